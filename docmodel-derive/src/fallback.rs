//! The stub impl emitted next to the errors of a model that did not check, so that code using the model
//! does not add errors of its own to the one mistake.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{DeriveInput, LitStr, Path, WherePredicate};

pub fn expand(input: &DeriveInput, errors: TokenStream) -> TokenStream {
    if input.generics.lifetimes().next().is_some() {
        // `DocModel: 'static`: no impl could compile, and its errors would only repeat the one reported.
        return errors;
    }
    let ident = &input.ident;
    let options = Options::scan(input);
    let krate = options
        .krate
        .unwrap_or_else(|| syn::parse_quote!(::docmodel));
    let private = crate::runtime::private_module();
    let generics = match options.bound {
        // The user's bounds replace the derive's, as in the real impl.
        Some(bound) => {
            let mut generics = input.generics.clone();
            generics.make_where_clause().predicates.extend(bound);
            generics
        }
        None => static_bounds(&input.generics),
    };
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    quote! {
        #errors

        #[allow(unused_qualifications)]
        #[automatically_derived]
        impl #impl_generics #krate::DocModel for #ident #ty_generics #where_clause {
            const TYPE: &'static str = "";
            const SCHEMA: #krate::SchemaVersion = #krate::SchemaVersion::new(0, 0, 0);
            const SCHEMA_TEXT: &'static str = "";
            const KEY: #krate::KeyTemplate = #krate::#private::key_template("", "", &[]);
            const ENVELOPE: #krate::EnvelopeSpec = #krate::EnvelopeSpec::DEFAULT;
            type KeyParts = ();
            type Fields = ();

            fn fields() {}

            fn write_key(&self, _: &mut ::std::string::String) -> ::core::result::Result<(), #krate::Error> {
                ::core::unreachable!()
            }

            fn parse_key_parts(_: &str) -> ::core::result::Result<(), #krate::Error> {
                ::core::unreachable!()
            }
        }

        #[allow(unused_qualifications)]
        #[automatically_derived]
        impl #impl_generics #krate::KeyInBody for #ident #ty_generics #where_clause {}
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

/// The options the stub needs, `crate = "..."` and `bound = "..."`, read leniently from attributes that
/// failed to parse as a whole: whatever reads is used, the rest was reported already.
#[derive(Default)]
struct Options {
    krate: Option<Path>,
    bound: Option<Vec<WherePredicate>>,
}

impl Options {
    fn scan(input: &DeriveInput) -> Options {
        let mut options = Options::default();
        for attr in input
            .attrs
            .iter()
            .filter(|attr| attr.path().is_ident("docmodel"))
        {
            // An error ends the scan of this attribute only.
            let _ = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("crate") {
                    options.krate = Some(crate_value(&meta)?);
                } else if meta.path.is_ident("bound") {
                    let lit: LitStr = meta.value()?.parse()?;
                    let predicates = lit.parse_with(
                        syn::punctuated::Punctuated::<WherePredicate, syn::Token![,]>::parse_terminated,
                    )?;
                    options.bound = Some(predicates.into_iter().collect());
                } else if meta.input.peek(syn::Token![=]) {
                    meta.value()?.parse::<syn::Expr>()?;
                } else if meta.input.peek(syn::token::Paren) {
                    meta.input.parse::<proc_macro2::TokenTree>()?;
                }
                Ok(())
            });
        }
        options
    }
}

/// `crate = path` (or `crate = "path"`), read leniently from attributes that may not have parsed: whatever
/// reads is used.
pub fn scan_crate(input: &DeriveInput) -> Option<Path> {
    Options::scan(input).krate
}

fn crate_value(meta: &syn::meta::ParseNestedMeta) -> syn::Result<Path> {
    let value = meta.value()?;
    if value.peek(LitStr) {
        value.parse::<LitStr>()?.parse()
    } else {
        value.parse()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stub(input: syn::DeriveInput) -> String {
        expand(&input, TokenStream::new()).to_string()
    }

    #[test]
    fn the_stub_names_the_runtime_where_the_model_says_it_is() {
        let stub = stub(syn::parse_quote! {
            #[docmodel(type = "user", schema = 3, crate = "reexported::runtime")]
            struct User { id: u64 }
        });
        assert!(
            stub.contains("impl reexported :: runtime :: DocModel for User"),
            "{stub}"
        );
        assert!(!stub.contains(":: docmodel ::"), "{stub}");
    }

    #[test]
    fn the_stub_takes_the_models_bounds_instead_of_its_own() {
        let stub = stub(syn::parse_quote! {
            #[docmodel(type = "box", migrate_from("1.0" = step), envelope(layout = "meta"))]
            #[docmodel(bound = "K: Clone + 'static")]
            struct Boxed<K> { id: K }
        });
        assert!(stub.contains("where K : Clone + 'static"), "{stub}");
        assert!(!stub.contains("K : 'static"), "{stub}");
        let stub = super::tests::stub(syn::parse_quote! {
            #[docmodel(type = "box")]
            struct Boxed<K> { id: K }
        });
        assert!(stub.contains("where K : 'static"), "{stub}");
        assert!(stub.contains(":: docmodel :: DocModel"), "{stub}");
    }
}
