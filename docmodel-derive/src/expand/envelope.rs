//! The model's `ENVELOPE` constant: its conventions with the model's own `envelope(...)` options on top.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use crate::ast::Model;
use crate::attr::TIMESTAMP_FORMATS;

pub fn spec(model: &Model) -> TokenStream {
    let base = match model.conventions {
        Some(path) => quote!(<#path as _docmodel::Conventions>::ENVELOPE),
        None => quote!(_docmodel::EnvelopeSpec::DEFAULT),
    };
    let Some(attr) = model.envelope else {
        return base;
    };
    let mut calls = Vec::new();
    if let Some(layout) = &attr.layout {
        let variant = format_ident!("{}", layout.variant());
        calls.push(quote!(.layout(_docmodel::Layout::#variant)));
    }
    if let Some(format) = &attr.timestamps {
        let variant = format_ident!("{}", TIMESTAMP_FORMATS[format.0].1);
        calls.push(quote!(.timestamps(_docmodel::TimestampFormat::#variant)));
    }
    for (flag, variant) in [
        (&attr.created_by, "CreatedBy"),
        (&attr.modified_by, "ModifiedBy"),
        (&attr.accessed, "Accessed"),
        (&attr.geo, "Geo"),
    ] {
        if flag.is_present() {
            let variant = format_ident!("{}", variant);
            calls.push(quote!(.keep(_docmodel::EnvelopeField::#variant)));
        }
    }
    if let Some(names) = &attr.names {
        for (variant, name) in names.renamed() {
            let variant = format_ident!("{}", variant);
            calls.push(quote!(.rename(_docmodel::EnvelopeField::#variant, #name)));
        }
        if let Some(meta) = &names.meta {
            calls.push(quote!(.meta_name(#meta)));
        }
    }
    quote!(#base #(#calls)*)
}

/// With a `Conventions` type the envelope names are only known to the compiler: check them in a constant, so a
/// collision still fails the build. (Without one, `valid.rs` has checked them with spans.)
pub fn collision_check(model: &Model) -> TokenStream {
    if model.conventions.is_none() || !model.generics.params.is_empty() {
        return TokenStream::new();
    }
    let ident = model.ident;
    model
        .fields
        .iter()
        .filter(|field| !field.json.flatten)
        .map(|field| {
            let names = field.json.serialize.iter().chain(&field.json.deserialize);
            // One constant per field, spanned at it, so the error points at the field whose name is taken.
            quote_spanned! {field.ident.span()=>
                const _: () = <#ident as _docmodel::DocModel>::ENVELOPE.assert_no_collision(&[#(#names),*]);
            }
        })
        .collect()
}
