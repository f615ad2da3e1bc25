//! The model's field paths: a struct of typed paths, one per stored body field, for filters and queries.
//! It is declared inside the generated `const` block, so it adds no name to the user's module; users reach
//! it as `Model::fields()` (`DocModel::fields`) and name it as `<Model as DocModel>::Fields`.

use proc_macro2::{Group, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote};

use crate::ast::{Complete, Field};

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

/// The value type of a field's path: its own type (with `Self` naming the model, as in the model), or its
/// stored JSON when serde writes it its own way (`with`, `serialize_with`).
fn value_type(model: &Complete, field: &Field) -> TokenStream {
    if field.json.custom {
        return quote!(_docmodel::__private::JsonValue);
    }
    let (_, ty_generics, _) = model.generics.split_for_impl();
    let model_type = {
        let ident = model.ident;
        quote!(#ident #ty_generics)
    };
    replace_self(field.ty.to_token_stream(), &model_type)
}

fn replace_self(tokens: TokenStream, model: &TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .flat_map(|token| match token {
            TokenTree::Ident(ident) if ident == "Self" => model.clone().into_iter().collect(),
            TokenTree::Group(group) => {
                let mut replaced =
                    Group::new(group.delimiter(), replace_self(group.stream(), model));
                replaced.set_span(group.span());
                vec![TokenTree::Group(replaced)]
            }
            other => vec![other],
        })
        .collect()
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
        let ty = value_type(model, field);
        let doc = if field.json.custom {
            format!("`{member}`, stored as `\"{name}\"` in the form its serde attribute writes.")
        } else {
            format!("`{member}`, stored as `\"{name}\"`.")
        };
        quote!(#[doc = #doc] #vis #member: _docmodel::Field<#ident #ty_generics, #ty>,)
    });
    // A generic model's parameters may appear in no stored field's type.
    let marker = (!params.is_empty()).then(|| {
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
        quote!(#member: _docmodel::Field::top(&[#name]),)
    });
    let marker =
        (!model.generics.params.is_empty()).then(|| quote!(__model: ::core::marker::PhantomData,));
    let indexes = indexes(model);
    quote! {
        type Fields = #fields_ident #ty_generics;

        #indexes

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
