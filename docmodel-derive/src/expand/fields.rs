//! `<Model>Fields`: a typed path to every stored body field, for filters and queries.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ast::Complete;

/// The name of the paths struct of a model.
pub fn struct_ident(model: &Complete) -> syn::Ident {
    format_ident!("{}Fields", model.ident)
}

/// The struct, declared beside the model (so that it can be named), with the model's visibility and
/// generics.
pub fn declaration(model: &Complete) -> TokenStream {
    let krate = &model.krate;
    let vis = model.vis;
    let ident = model.ident;
    let fields_ident = struct_ident(model);
    let (_, ty_generics, _) = model.generics.split_for_impl();
    let params = &model.generics.params;
    let where_clause = &model.generics.where_clause;
    let members = stored(model).map(|(field, name)| {
        let member = field.ident;
        let ty = field.ty;
        let doc = format!("`{member}`, stored as `\"{name}\"`.");
        quote!(#[doc = #doc] #vis #member: #krate::Field<#ident #ty_generics, #ty>,)
    });
    let doc = format!(
        "The stored fields of [`{ident}`], each a typed path for filters and queries: `{ident}::fields()`. \
         The envelope's are under [`{fields_ident}::envelope`]."
    );
    // A generic model's parameters may appear in no stored field's type.
    let marker = (!params.is_empty()).then(|| {
        quote!(#[doc(hidden)] #vis __model: ::core::marker::PhantomData<fn() -> #ident #ty_generics>,)
    });
    quote! {
        #[doc = #doc]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #fields_ident<#params> #where_clause {
            #(#members)*
            #marker
        }
    }
}

/// The body fields that are stored, with their JSON names.
fn stored<'m>(
    model: &'m Complete,
) -> impl Iterator<Item = (&'m crate::ast::Field<'m>, &'m str)> + 'm {
    model
        .fields
        .iter()
        .filter_map(|field| Some((field, field.json.serialize.as_deref()?)))
}

/// `Model::fields()`, and `envelope()` on the paths struct: items of the model's generated `impl` blocks.
pub fn constructor(model: &Complete) -> TokenStream {
    let vis = model.vis;
    let fields_ident = struct_ident(model);
    let (_, ty_generics, _) = model.generics.split_for_impl();
    let members = stored(model).map(|(field, name)| {
        let member = field.ident;
        quote!(#member: _docmodel::Field::top(&[#name]),)
    });
    let doc = format!(
        "Typed paths to the stored fields of the model, for filters and queries (see [`{fields_ident}`])."
    );
    let marker =
        (!model.generics.params.is_empty()).then(|| quote!(__model: ::core::marker::PhantomData,));
    quote! {
        #[doc = #doc]
        #[must_use]
        #vis fn fields() -> #fields_ident #ty_generics {
            #fields_ident {
                #(#members)*
                #marker
            }
        }
    }
}

/// `envelope()` on the paths struct.
pub fn envelope_impl(model: &Complete, generics: &syn::Generics) -> TokenStream {
    let vis = model.vis;
    let ident = model.ident;
    let fields_ident = struct_ident(model);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    quote! {
        #[automatically_derived]
        impl #impl_generics #fields_ident #ty_generics #where_clause {
            /// The envelope's fields (`_type`, `_schema`, `_ver`, `_created`, `_modified`), under the
            /// model's layout and names.
            #[must_use]
            #vis fn envelope(&self) -> _docmodel::EnvelopeFields<#ident #ty_generics> {
                _docmodel::EnvelopeFields::of()
            }
        }
    }
}
