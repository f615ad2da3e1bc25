//! The generated code: the `DocModel` impl, the key functions, the accessors and the model's rustdoc, all in
//! one `const _: () = { ... };` block that names the runtime as `_docmodel`.

mod accessors;
mod child;
pub(crate) mod docs;
mod envelope;
mod fields;
mod key;
mod lints;
mod merge;
mod migrate;
pub(crate) mod schema;
mod validate;

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use crate::ast::{Complete, Model, simple_type_name};
use crate::attr::ModelAttr;
use crate::{fallback, omit, valid};

pub fn derive(input: &DeriveInput, source: Option<&std::path::Path>) -> TokenStream {
    if let Err(error) = check_shape(input) {
        return fallback::expand(input, error.to_compile_error());
    }
    let attr = match ModelAttr::from_derive_input(input) {
        Ok(attr) => attr,
        Err(errors) => return fallback::expand(input, errors.write_errors()),
    };
    let mut errors = crate::meta::Accumulator::default();
    let model = Model::from_attr(&attr, &mut errors);
    valid::check(&model, &mut errors);
    // The lock of the declared version, compared with the model's other checks.
    let lock = model
        .complete()
        .and_then(|complete| errors.handle(crate::lock::check(&complete, source)))
        .flatten();
    match (errors.finish(), model.complete()) {
        (Ok(()), Some(model)) => expand(&model, source, lock.as_deref()),
        (Err(errors), _) => fallback::expand(input, errors.write_errors()),
        // A missing required option is always reported, so this is not reached.
        (Ok(()), None) => fallback::expand(input, TokenStream::new()),
    }
}

/// A document is a JSON object: only a struct with named fields can be one. It owns its data, so the model
/// has no lifetime parameters (`DocModel: 'static`).
fn check_shape(input: &DeriveInput) -> syn::Result<()> {
    if let Some(lifetime) = input.generics.lifetimes().next() {
        return Err(syn::Error::new_spanned(
            lifetime,
            "a document model owns its data (`DocModel: 'static`), so it cannot borrow: remove this lifetime",
        ));
    }
    named_struct(
        input,
        "a document model is a struct with named fields, which serde stores as a JSON object",
    )
}

/// `message` at the token that makes `input` something other than a struct with named fields.
pub fn named_struct(input: &DeriveInput, message: &str) -> syn::Result<()> {
    match &input.data {
        syn::Data::Struct(data) => match &data.fields {
            syn::Fields::Named(_) => Ok(()),
            syn::Fields::Unnamed(fields) => Err(syn::Error::new_spanned(fields, message)),
            syn::Fields::Unit => Err(syn::Error::new_spanned(&input.ident, message)),
        },
        syn::Data::Enum(data) => Err(syn::Error::new_spanned(data.enum_token, message)),
        syn::Data::Union(data) => Err(syn::Error::new_spanned(data.union_token, message)),
    }
}

fn expand(
    model: &Complete,
    source: Option<&std::path::Path>,
    lock: Option<&std::path::Path>,
) -> TokenStream {
    let krate = &model.krate;
    let private = crate::runtime::private_module();
    let ident = model.ident;
    let generics = with_key_part_bounds(model);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();

    let type_name = model.type_name;
    let schema_lit = model.schema.lit;
    let version = &model.schema.version;
    let (major, minor, patch) = (version.major, version.minor, version.patch);
    let key_template = key::template(model);
    let envelope = envelope::spec(model);
    let conventions_checks = envelope::conventions_checks(model);
    let key_impl = key::trait_items(model);
    let migrations = migrate::chain(model);
    let revisions = model.revisions.map(|revisions| {
        let count = **revisions.keep;
        let age = revisions.age.map(|age| {
            let millis = age.millis;
            quote! {
                const REVISIONS_FOR: ::core::option::Option<::core::time::Duration> =
                    ::core::option::Option::Some(::core::time::Duration::from_millis(#millis));
            }
        });
        quote! {
            const REVISIONS: ::core::option::Option<u64> = ::core::option::Option::Some(#count);
            #age
        }
    });
    let unversioned = model.unversioned.as_ref().map(|unversioned| {
        let version = &unversioned.version;
        let (major, minor, patch) = (version.major, version.minor, version.patch);
        quote! {
            const UNVERSIONED: ::core::option::Option<_docmodel::SchemaVersion> =
                ::core::option::Option::Some(_docmodel::SchemaVersion::new(#major, #minor, #patch));
        }
    });
    let aliases = (!model.aliases.is_empty()).then(|| {
        let aliases = &model.aliases;
        quote!(const TYPE_ALIASES: &'static [&'static str] = &[#(#aliases),*];)
    });
    let collection = model.collection.map(|collection| {
        quote!(const COLLECTION: ::core::option::Option<&'static str> = ::core::option::Option::Some(#collection);)
    });
    let untyped = model.accepts_untyped.then(|| {
        quote!(
            const ACCEPTS_UNTYPED: bool = true;
        )
    });
    let validate = validate::trait_items(model);
    let shape = crate::lock::trait_items(model, source);
    let tracked = crate::lock::tracked(lock);
    let merge = merge::trait_items(model.merge.as_ref(), model.fields.iter());
    let body_schema = if cfg!(feature = "json-schema") {
        schema::trait_items(model)
    } else {
        TokenStream::new()
    };
    let typed_schema_checks = migrate::typed_schema_checks(model);
    let body_fields = model
        .fields
        .iter()
        .filter_map(|field| field.json.serialize.as_ref());
    // Names the body writes but reads under no field: the only names a reader must tell apart from
    // unknown fields, so it checks this (almost always empty) list, not every body field.
    let written_not_read: Vec<_> = body_fields
        .clone()
        .filter(|name| {
            !model
                .fields
                .iter()
                .any(|field| field.json.deserialize.contains(name))
        })
        .collect();
    // The trait's default is empty: one constant fewer for the compiler in nearly every model.
    let written_not_read = (!written_not_read.is_empty()).then(
        || quote!(const WRITTEN_NOT_READ: &'static [&'static str] = &[#(#written_not_read),*];),
    );
    let omit = omit::trait_items(model);
    let reserved_words = lints::reserved_words(model);
    let key_fn = key::constructor(model);
    let part_fns = key::part_fns(model);
    let accessors = accessors::expand(model);
    let model_docs = docs::model(model);
    let fields_declaration = fields::declaration(model, &generics);
    let fields_items = fields::trait_items(model);
    let child = child::impl_child(model, &generics);
    let items = child::trait_items(model);
    let parent = child::impl_parent(model, &generics);
    // What `Doc::from_slice` reads: a body holding its whole key.
    let key_in_body = model
        .fields
        .iter()
        .all(|field| field.from_key.is_none())
        .then(|| {
            quote! {
                #[automatically_derived]
                impl #impl_generics _docmodel::KeyInBody for #ident #ty_generics #where_clause {}
            }
        });

    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, unused_qualifications, unused_imports)]
        const _: () = {
            use #krate as _docmodel;
            use #krate::#private as __docmodel_private;

            #[automatically_derived]
            impl #impl_generics _docmodel::DocModel for #ident #ty_generics #where_clause {
                const TYPE: &'static str = #type_name;
                const SCHEMA: _docmodel::SchemaVersion = _docmodel::SchemaVersion::new(#major, #minor, #patch);
                const SCHEMA_TEXT: &'static str = #schema_lit;
                const KEY: _docmodel::KeyTemplate = #key_template;
                const ENVELOPE: _docmodel::EnvelopeSpec = #envelope;
                const BODY_FIELDS: &'static [&'static str] = &[#(#body_fields),*];
                #written_not_read
                #omit
                #migrations
                #revisions
                #unversioned
                #aliases
                #untyped
                #collection
                #merge
                #shape
                #validate
                #key_impl
                #fields_items
                #items
                #body_schema
            }

            #key_in_body
            #child
            #parent

            #fields_declaration

            #model_docs
            #[automatically_derived]
            impl #impl_generics #ident #ty_generics #where_clause {
                #key_fn
                #part_fns
                #accessors
            }

            #conventions_checks
            #typed_schema_checks
            #tracked
            #reserved_words
        };
    }
}

/// The model's generics, plus `P: 'static` for every type parameter and `K: KeyPart` for every one that is a
/// key part on its own (other uses of type parameters need no bound from docmodel); or, with
/// `bound = "..."`, the user's predicates instead.
fn with_key_part_bounds(model: &Complete) -> syn::Generics {
    let mut generics = model.generics.clone();
    if let Some(bound) = &model.bound {
        // The user's bounds replace the derive's, as serde's and thiserror's `bound` do.
        generics
            .make_where_clause()
            .predicates
            .extend(bound.iter().cloned());
        return generics;
    }
    let mut generics = fallback::static_bounds(&generics);
    let params: Vec<String> = model
        .generics
        .type_params()
        .map(|param| param.ident.to_string())
        .collect();
    for field in model
        .key
        .template
        .parts()
        .filter_map(|name| model.field(name))
    {
        if simple_type_name(field.ty).is_some_and(|name| params.contains(&name)) {
            let ty = field.ty;
            generics
                .make_where_clause()
                .predicates
                .push(syn::parse_quote!(#ty: _docmodel::KeyPart));
        }
    }
    // A field merged by the model's function is read and written as its own type; a side without it reads
    // as the struct's `Default` has it, where serde's container `default` says so (serde's own impl is bound
    // by `Self: Default` then).
    let merged_by_a_function = |field: &&crate::ast::Field| {
        field
            .merge
            .as_ref()
            .is_some_and(|merge| matches!(merge.rule, Some(crate::merge::RuleDecl::With(_))))
    };
    if !params.is_empty()
        && model.serde.default == Some(crate::serde_names::DefaultValue::Trait)
        && model
            .fields
            .iter()
            .any(|field| merged_by_a_function(&field))
    {
        let ident = model.ident;
        let (_, ty_generics, _) = model.generics.split_for_impl();
        generics
            .make_where_clause()
            .predicates
            .push(syn::parse_quote!(#ident #ty_generics: ::core::default::Default));
    }
    for field in &model.fields {
        let merged_by_function = field
            .merge
            .as_ref()
            .is_some_and(|merge| matches!(merge.rule, Some(crate::merge::RuleDecl::With(_))));
        if merged_by_function && mentions_any(field.ty, &params) {
            let ty = field.ty;
            generics.make_where_clause().predicates.push(syn::parse_quote!(
                #ty: __docmodel_private::serde::Serialize + __docmodel_private::serde::de::DeserializeOwned
            ));
        }
    }
    generics
}

/// Whether `ty` names any of the type parameters `params`.
fn mentions_any(ty: &syn::Type, params: &[String]) -> bool {
    fn walk(tokens: proc_macro2::TokenStream, params: &[String]) -> bool {
        tokens.into_iter().any(|token| match token {
            proc_macro2::TokenTree::Ident(ident) => params.contains(&ident.to_string()),
            proc_macro2::TokenTree::Group(group) => walk(group.stream(), params),
            _ => false,
        })
    }
    walk(quote!(#ty), params)
}

/// A local of the generated code, in its own hygiene context so no field or parameter of the user's can
/// shadow it, nor it them.
pub fn local(name: &str) -> syn::Ident {
    syn::Ident::new(name, proc_macro2::Span::mixed_site())
}

/// A path as the user wrote it, without the spaces of its tokens: `crate::steps::split_name`.
pub fn path_text(path: &syn::Path) -> String {
    quote!(#path).to_string().replace(' ', "")
}
