//! `#[derive(DocModel)]`: use it through the `docmodel` crate, which re-exports it and documents the attribute.
//!
//! The derive runs in four stages, data flowing one way: `attr` (what the user wrote, parsed by darling) ->
//! `ast` (the checked model) -> `valid` (cross-cutting checks) -> `expand` (the generated code). On any error
//! it emits every error found and a stub impl (`fallback`), so one mistake causes one error.

mod ast;
mod attr;
mod chain;
mod envelope;
mod expand;
mod fallback;
mod serde_names;
mod template;
mod valid;

use proc_macro::TokenStream;

#[proc_macro_derive(DocModel, attributes(docmodel))]
pub fn derive_doc_model(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::derive(&input).into()
}
