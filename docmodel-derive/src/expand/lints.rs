//! Warnings at the user's tokens. Stable Rust has no warnings from a procedural macro, so each is the use of a
//! `#[deprecated]` item whose note says what is wrong, spanned at the token the warning is about.

use proc_macro2::TokenStream;
use quote::{format_ident, quote_spanned};

use crate::ast::Complete;
use crate::reserved::is_reserved;

/// A warning at each body field whose stored name SQL++ reserves, unless the field or the model allows it.
pub fn reserved_words(model: &Complete) -> TokenStream {
    if model.allow_reserved_word {
        return TokenStream::new();
    }
    model
        .fields
        .iter()
        .filter(|field| !field.allow_reserved_word)
        .filter_map(|field| {
            let stored = field.json.serialize.as_deref()?;
            if !is_reserved(stored) {
                return None;
            }
            let note = format!(
                "the stored field `{stored}` is a reserved word of SQL++ (N1QL): every query must escape it as \
                 `` `{stored}` ``; rename it with `#[serde(rename = \"...\")]`, or allow it with \
                 `#[docmodel(allow(reserved_word))]`"
            );
            let span = field.ident.span();
            let warning = format_ident!(
                "{}_is_a_reserved_word_in_sqlpp",
                stored.to_ascii_lowercase(),
                span = span
            );
            Some(quote_spanned! {span=>
                #[deprecated(note = #note)]
                #[allow(non_upper_case_globals)]
                const #warning: () = ();
                const _: () = #warning;
            })
        })
        .collect()
}
