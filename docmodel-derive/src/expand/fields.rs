//! The model's field paths: a struct of typed paths, one per stored body field, for filters and queries.
//! It is declared inside the generated `const` block, so it adds no name to the user's module; users reach
//! it as `Model::fields()` (`DocModel::fields`) and name it as `<Model as DocModel>::Fields`.

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Complete, Field, replace_self};

/// The name of the paths struct (inside the generated block).
pub fn struct_ident(model: &Complete) -> syn::Ident {
    format_ident!("{}Fields", model.ident)
}

/// The body fields that are stored, with their JSON names.
fn stored<'m>(model: &'m Complete) -> impl Iterator<Item = (&'m Field<'m>, &'m str)> + 'm {
    model
        .fields
        .iter()
        .filter_map(|field| Some((field, field.json.serialize.as_deref()?)))
}

/// The field's type as written, with `Self` naming the model.
fn field_type(model: &Complete, field: &Field) -> TokenStream {
    let (_, ty_generics, _) = model.generics.split_for_impl();
    let ident = model.ident;
    replace_self(field.ty.to_token_stream(), &quote!(#ident #ty_generics))
}

/// The type of a field's member in the paths struct: a path to its own type, or to its stored JSON when
/// serde writes it its own way (`with`, `serialize_with`); for a `nested` field, the paths of the struct it
/// holds.
fn member_type(model: &Complete, field: &Field) -> TokenStream {
    let ident = model.ident;
    let (_, ty_generics, _) = model.generics.split_for_impl();
    let ty = field_type(model, field);
    if field.nested.is_some() {
        // At the field's type, so that a type without paths is reported there.
        quote_spanned!(field.ty.span()=> <#ty as _docmodel::Embedded>::Fields<#ident #ty_generics>)
    } else if field.json.custom {
        quote!(_docmodel::Field<#ident #ty_generics, __docmodel_private::JsonValue>)
    } else {
        quote!(_docmodel::Field<#ident #ty_generics, #ty>)
    }
}

/// Whether the struct ends with a marker field: for a generic model, whose parameters may appear in no
/// stored field's type; and where the last stored field is `nested`. A struct is `Sized` when its last field
/// is, so a type without paths there would be reported again wherever the struct must be sized, besides the
/// one error at the field.
fn needs_marker(model: &Complete) -> bool {
    !model.generics.params.is_empty()
        || stored(model)
            .last()
            .is_some_and(|(field, _)| field.nested.is_some())
}

/// The struct and its `envelope()`, inside the generated block.
pub fn declaration(model: &Complete, generics: &syn::Generics) -> TokenStream {
    let vis = model.vis;
    let ident = model.ident;
    let fields_ident = struct_ident(model);
    let (_, ty_generics, _) = model.generics.split_for_impl();
    let params = &model.generics.params;
    let where_clause = &model.generics.where_clause;
    let members = stored(model).map(|(field, name)| {
        let member = field.ident;
        let ty = member_type(model, field);
        let doc = if field.nested.is_some() {
            format!("`{member}`, stored as `\"{name}\"`: the paths of the struct it holds, and `whole()`.")
        } else if field.json.custom {
            format!("`{member}`, stored as `\"{name}\"` in the form its serde attribute writes.")
        } else {
            format!("`{member}`, stored as `\"{name}\"`.")
        };
        quote!(#[doc = #doc] #vis #member: #ty,)
    });
    let marker = needs_marker(model).then(|| {
        quote!(#[doc(hidden)] #vis __model: ::core::marker::PhantomData<fn() -> #ident #ty_generics>,)
    });
    let doc = format!(
        "The stored fields of [`{ident}`], each a typed path for filters and queries: `{ident}::fields()`."
    );
    let (impl_generics, impl_ty_generics, impl_where) = generics.split_for_impl();
    quote! {
        #[doc = #doc]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #fields_ident<#params> #where_clause {
            #(#members)*
            #marker
        }

        #[automatically_derived]
        impl #impl_generics #fields_ident #impl_ty_generics #impl_where {
            /// The envelope's fields (`_type`, `_schema`, `_ver`, `_created`, `_modified`), under the model's
            /// layout and names.
            #[inline]
            #[must_use]
            #vis fn envelope(&self) -> _docmodel::EnvelopeFields<#ident #ty_generics> {
                _docmodel::EnvelopeFields::of()
            }
        }
    }
}

/// `type Fields` and `fn fields()` of the `DocModel` impl.
pub fn trait_items(model: &Complete) -> TokenStream {
    let fields_ident = struct_ident(model);
    let (_, ty_generics, _) = model.generics.split_for_impl();
    let members = stored(model).map(|(field, name)| {
        let member = field.ident;
        if field.nested.is_some() {
            let ty = field_type(model, field);
            // All at the field's type, so a type without paths is one error there, not one per use.
            let mut member = member.clone();
            member.set_span(field.ty.span());
            quote_spanned!(field.ty.span()=>
                #member: <#ty as _docmodel::Embedded>::fields_at(_docmodel::Field::top(&[#name])),
            )
        } else {
            quote!(#member: _docmodel::Field::top(&[#name]),)
        }
    });
    let marker = needs_marker(model).then(|| quote!(__model: ::core::marker::PhantomData,));
    let indexes = indexes(model);
    quote! {
        type Fields = #fields_ident #ty_generics;

        #indexes

        // Inline, as `envelope()`: compiled in the crate that builds a query, not in every crate of models.
        #[inline]
        fn fields() -> Self::Fields {
            #fields_ident {
                #(#members)*
                #marker
            }
        }
    }
}

/// `const INDEXES`: each declared index with the stored names of its fields (checked in `valid.rs`).
fn indexes(model: &Complete) -> TokenStream {
    if model.indexes.is_empty() {
        return TokenStream::new();
    }
    let entries = model.indexes.iter().map(|index| {
        let name = index.name();
        let paths = index.fields.iter().map(|field| {
            let stored = model
                .field(field)
                .and_then(|field| field.json.serialize.as_deref())
                .unwrap_or(field);
            quote!(&[#stored])
        });
        quote!(_docmodel::Index::new(#name, &[#(#paths),*]))
    });
    quote! {
        const INDEXES: &'static [_docmodel::Index] = &[#(#entries),*];
    }
}
