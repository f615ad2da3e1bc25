//! The stub impl emitted next to the errors of a model that did not check, so that code using the model
//! does not add errors of its own to the one mistake.

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

pub fn expand(input: &DeriveInput, errors: TokenStream) -> TokenStream {
    if input.generics.lifetimes().next().is_some() {
        // `DocModel: 'static`: no impl could compile, and its errors would only repeat the one reported.
        return errors;
    }
    let ident = &input.ident;
    // `DocModel: 'static`, as in the real impl.
    let generics = static_bounds(&input.generics);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    quote! {
        #errors

        #[allow(unused_qualifications)]
        #[automatically_derived]
        impl #impl_generics ::docmodel::DocModel for #ident #ty_generics #where_clause {
            const TYPE: &'static str = "";
            const SCHEMA: ::docmodel::semver::Version = ::docmodel::semver::Version::new(0, 0, 0);
            const SCHEMA_TEXT: &'static str = "";
            const KEY: ::docmodel::KeyTemplate =
                ::docmodel::KeyTemplate { pattern: "", delimiter: "", segments: &[] };
            const ENVELOPE: ::docmodel::EnvelopeSpec = ::docmodel::EnvelopeSpec::DEFAULT;
            type KeyParts = ();

            fn write_key(&self, _: &mut ::std::string::String) -> ::core::result::Result<(), ::docmodel::Error> {
                ::core::unreachable!()
            }

            fn parse_key_parts(_: &str) -> ::core::result::Result<(), ::docmodel::Error> {
                ::core::unreachable!()
            }
        }
    }
}

/// `generics` with `P: 'static` for every type parameter: a document model owns its data (`DocModel: 'static`).
pub fn static_bounds(generics: &syn::Generics) -> syn::Generics {
    let mut bounded = generics.clone();
    for param in generics.type_params() {
        let param = &param.ident;
        bounded
            .make_where_clause()
            .predicates
            .push(syn::parse_quote!(#param: 'static));
    }
    bounded
}
