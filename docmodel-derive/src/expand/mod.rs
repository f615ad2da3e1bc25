//! The generated code: the `DocModel` impl, the key functions, the accessors and the model's rustdoc, all in
//! one `const _: () = { ... };` block that names the runtime as `_docmodel`.

mod accessors;
mod docs;
mod envelope;
mod key;

use darling::FromDeriveInput;
use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use crate::ast::Model;
use crate::attr::ModelAttr;
use crate::{fallback, valid};

pub fn derive(input: &DeriveInput) -> TokenStream {
    let attr = match ModelAttr::from_derive_input(input) {
        Ok(attr) => attr,
        Err(errors) => return fallback::expand(input, errors.write_errors()),
    };
    let mut errors = darling::Error::accumulator();
    let model = Model::from_attr(&attr, &mut errors);
    if let Some(model) = &model {
        valid::check(model, &mut errors);
    }
    match (model, errors.finish()) {
        (Some(model), Ok(())) => expand(&model),
        (_, Err(errors)) => fallback::expand(input, errors.write_errors()),
        (None, Ok(())) => fallback::expand(input, TokenStream::new()),
    }
}

fn expand(model: &Model) -> TokenStream {
    let krate = &model.krate;
    let ident = model.ident;
    let (impl_generics, ty_generics, where_clause) = model.generics.split_for_impl();

    let type_name = model.type_name;
    let schema_lit = model.schema_lit;
    let (major, minor, patch) = (model.schema.major, model.schema.minor, model.schema.patch);
    let key_template = key::template(model);
    let envelope = envelope::spec(model);
    let collision_check = envelope::collision_check(model);
    let key_impl = key::trait_items(model);
    let key_fn = key::constructor(model);
    let accessors = accessors::expand(model);
    let model_docs = docs::model(model);

    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, unused_qualifications)]
        const _: () = {
            use #krate as _docmodel;

            #[automatically_derived]
            impl #impl_generics _docmodel::DocModel for #ident #ty_generics #where_clause {
                const TYPE: &'static str = #type_name;
                const SCHEMA: _docmodel::semver::Version = _docmodel::semver::Version::new(#major, #minor, #patch);
                const SCHEMA_TEXT: &'static str = #schema_lit;
                const KEY: _docmodel::KeyTemplate = #key_template;
                const ENVELOPE: _docmodel::EnvelopeSpec = #envelope;
                #key_impl
            }

            #model_docs
            #[automatically_derived]
            impl #impl_generics #ident #ty_generics #where_clause {
                #key_fn
                #accessors
            }

            #collision_check
        };
    }
}
