//! The model's `MIGRATIONS` chain, with each step's type checked at the user's path.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::{local, path_text};
use crate::ast::Complete;

/// `const MIGRATIONS: &[Migration<Self>] = &[...]` for the `DocModel` impl; nothing for a model without steps.
pub fn chain(model: &Complete) -> TokenStream {
    if model.steps.is_empty() {
        return TokenStream::new();
    }
    let entries = model.steps.iter().map(|step| {
        let (major, minor, patch) = (step.version.major, step.version.minor, step.version.patch);
        let from_text = step.lit;
        let target = step.target;
        let name = path_text(target);
        // Spanned at the user's path: a JSON step of the wrong signature, or an older model without a
        // conversion, is reported there.
        let step = if step.typed {
            let schemas = cfg!(feature = "json-schema").then(|| {
                quote_spanned!(target.span()=>
                    schemas: _docmodel::json_schemas::<#target>,
                    model: __docmodel_private::validation_level::<#target>,
                )
            });
            quote_spanned! {target.span()=>
                __docmodel_private::Step::Typed {
                    name: #name,
                    read: __docmodel_private::typed_step::<Self, #target>,
                    #schemas
                }
            }
        } else {
            quote_spanned! {target.span()=>
                __docmodel_private::Step::Json { name: #name, run: #target }
            }
        };
        quote! {
            __docmodel_private::Migration {
                from: _docmodel::SchemaVersion::new(#major, #minor, #patch),
                from_text: #from_text,
                step: #step,
            }
        }
    });
    quote! {
        const MIGRATIONS: &'static [__docmodel_private::Migration<Self>] = &[#(#entries),*];
    }
}

/// For each typed step, a constant asserting that the older model's own schema is the version it is listed
/// under.
pub fn typed_schema_checks(model: &Complete) -> TokenStream {
    let ident = model.ident;
    model
        .steps
        .iter()
        .filter(|step| step.typed)
        .map(|step| {
            let (major, minor, patch) = (step.version.major, step.version.minor, step.version.patch);
            let target = step.target;
            let schema_message = format!(
                "`{}` is listed under schema {} in `migrate_from`, but its own `DocModel::SCHEMA` differs",
                path_text(target),
                step.lit.value()
            );
            let type_message = format!(
                "`{}` has another document type than `{ident}`; a typed step reads older documents of the same type",
                path_text(target)
            );
            let schema = local("schema");
            quote_spanned! {target.span()=>
                const _: () = {
                    let #schema = <#target as _docmodel::DocModel>::SCHEMA;
                    ::core::assert!(
                        #schema.major == #major && #schema.minor == #minor && #schema.patch == #patch,
                        "{}",
                        #schema_message
                    );
                    ::core::assert!(
                        __docmodel_private::str_eq(
                            <#target as _docmodel::DocModel>::TYPE,
                            <#ident as _docmodel::DocModel>::TYPE,
                        ),
                        "{}",
                        #type_message
                    );
                };
            }
        })
        .collect()
}
