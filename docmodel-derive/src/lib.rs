use proc_macro::TokenStream;
#[proc_macro_derive(DocModel, attributes(docmodel))]
pub fn derive_doc_model(_input: TokenStream) -> TokenStream { TokenStream::new() }
