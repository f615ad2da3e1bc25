//! The model's `ENVELOPE` constant: its conventions with the model's own `envelope(...)` options on top.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::Complete;

pub fn spec(model: &Complete) -> TokenStream {
    // Named through the crate's own path, not the expansion's local alias: rustdoc shows this expression on
    // the model's page.
    let krate = &model.krate;
    let base = match model.conventions {
        Some(path) => quote!(<#path as #krate::Conventions>::ENVELOPE),
        None => quote!(#krate::EnvelopeSpec::DEFAULT),
    };
    let Some(attr) = model.envelope else {
        return base;
    };
    let mut calls = Vec::new();
    // The derive's enums are named as the runtime's, variant for variant.
    if let Some(layout) = &attr.layout {
        let variant = variant(**layout);
        calls.push(quote!(.with_layout(_docmodel::Layout::#variant)));
    }
    if let Some(format) = &attr.timestamps {
        let variant = variant(**format);
        calls.push(quote!(.with_timestamps(_docmodel::TimestampFormat::#variant)));
    }
    if let Some(offset) = model.zoneless {
        calls.push(quote!(.with_zoneless_offset(#offset)));
    }
    for (field, flag) in attr.kept() {
        if flag.is_present() {
            let variant = variant(field);
            calls.push(quote!(.keep(_docmodel::EnvelopeField::#variant)));
        }
    }
    if let Some(names) = &attr.names {
        for (field, name) in &names.renamed {
            let variant = variant(field);
            calls.push(quote!(.rename(_docmodel::EnvelopeField::#variant, #name)));
        }
        if let Some(meta) = &names.meta {
            calls.push(quote!(.with_meta_name(#meta)));
        }
    }
    if let Some(legacy) = &attr.legacy_names {
        for (field, name) in &legacy.renamed {
            let variant = variant(field);
            calls.push(quote!(.with_legacy_name(_docmodel::EnvelopeField::#variant, #name)));
        }
    }
    quote!(#base #(#calls)*)
}

/// With a `Conventions` type the envelope names and the required delimiter are only known to the compiler:
/// check them in constants spanned at the user's tokens, so a collision or another delimiter still fails the
/// build there. (Without conventions, `valid.rs` has checked the names with spans.)
pub fn conventions_checks(model: &Complete) -> TokenStream {
    let Some(conventions) = model.conventions else {
        return TokenStream::new();
    };
    let delimiter = &model.key.template.delimiter;
    let delimiter_check = quote_spanned! {model.key.lit.span()=>
        const _: () = __docmodel_private::assert_delimiter(
            <#conventions as _docmodel::Conventions>::DELIMITER,
            #delimiter,
        );
    };
    if !model.generics.params.is_empty() {
        return delimiter_check;
    }
    let ident = model.ident;
    let names_check = quote_spanned! {conventions.span()=>
        const _: () = __docmodel_private::assert_envelope_valid(&<#ident as _docmodel::DocModel>::ENVELOPE);
        const _: () = __docmodel_private::assert_root_layout(
            &<#ident as _docmodel::DocModel>::ENVELOPE,
            <#ident as _docmodel::DocModel>::TYPE_ALIASES.len(),
            <#ident as _docmodel::DocModel>::ACCEPTS_UNTYPED,
        );
    };
    let tag_check = model.serde.tag.as_ref().map(|tag| {
        quote_spanned! {tag.span()=>
            const _: () = __docmodel_private::assert_no_collision(&<#ident as _docmodel::DocModel>::ENVELOPE, &[#tag]);
        }
    });
    model
        .fields
        .iter()
        .map(|field| {
            let names = field.json.serialize.iter().chain(&field.json.deserialize);
            // One constant per field, spanned at it, so the error points at the field whose name is taken.
            quote_spanned! {field.ident.span()=>
                const _: () = __docmodel_private::assert_no_collision(&<#ident as _docmodel::DocModel>::ENVELOPE, &[#(#names),*]);
            }
        })
        .chain([delimiter_check, names_check])
        .chain(tag_check)
        .collect()
}

/// The runtime's variant of the same name as one of the derive's envelope enums.
fn variant(value: impl std::fmt::Debug) -> syn::Ident {
    syn::Ident::new(&format!("{value:?}"), proc_macro2::Span::call_site())
}
