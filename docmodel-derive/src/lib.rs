//! `#[derive(DocModel)]` and `#[derive(Embedded)]`: use them through the `docmodel` crate, which re-exports them
//! and documents their attributes.
//!
//! The derive runs in four stages, data flowing one way: `attr` (what the user wrote, read with `meta`) ->
//! `ast` (the checked model) -> `valid` (cross-cutting checks) -> `expand` (the generated code). On any error
//! it emits every error found and a stub impl (`fallback`), so one mistake causes one error.

mod ast;
mod attr;
mod chain;
mod embedded;
mod envelope;
mod expand;
mod fallback;
mod lock;
mod merge;
mod meta;
mod omit;
mod reserved;
mod runtime;
mod serde_names;
mod template;
mod valid;

use proc_macro::TokenStream;

#[proc_macro_derive(DocModel, attributes(docmodel))]
pub fn derive_doc_model(input: TokenStream) -> TokenStream {
    // The file the model is written in: its schema locks are beside it.
    let source = proc_macro::Span::call_site().local_file();
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::derive(&input, source.as_deref()).into()
}

#[proc_macro_derive(Embedded, attributes(docmodel))]
pub fn derive_embedded(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    embedded::derive(&input).into()
}
