//! The schema lock: each version's stored shape, kept in a file beside the model's source
//! (`docmodel-locks/<file>/<type>/<version>.json`, laid out and compared by `docmodel-shape`, which the runtime's
//! `docmodel::lock::check` shares). The derive writes the model's shape into the expansion, and when the lock of
//! the version it declares exists, compares the two and fails at `schema = "..."` on a difference. The
//! generated code includes the lock's bytes, so that a change to the file rebuilds the model, and reads
//! `DOCMODEL_BLESS` with `option_env!`, so that a change of it does too.

use std::path::{Path, PathBuf};

use docmodel_shape::{Record, Shape};
use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Complete;

/// The stored fields of the model, in order: each one's record, from the field's one set of answers.
pub fn records(model: &Complete) -> Vec<Record> {
    model
        .fields
        .iter()
        .filter_map(|field| {
            let stored = field.json.serialize.clone()?;
            let reads = match field.json.deserialize.as_slice() {
                [only] if *only == stored => Vec::new(),
                names => names.to_vec(),
            };
            Some(Record {
                field: field.name(),
                stored,
                ty: type_text(field.ty),
                required: !field.reads_absent(),
                reads,
            })
        })
        .collect()
}

/// The model's stored shape at its version, as its lock records it (without the structs the body holds,
/// which only the runtime knows).
fn shape(model: &Complete) -> Shape {
    Shape {
        type_name: model.type_name.value(),
        schema: model.schema.version.to_string(),
        model: Some(rust_name(model.ident)),
        fields: records(model),
        defs: None,
    }
}

/// `User` for `User`, `type` for `r#type`.
fn rust_name(ident: &syn::Ident) -> String {
    let name = ident.to_string();
    name.strip_prefix("r#").map(str::to_owned).unwrap_or(name)
}

/// A type as the lock records it: as written, without spaces and without the paths in front of names
/// (`Vec<Phone>` for `Vec<crate::Phone>`, `String` for `std::string::String`), so that naming one type
/// another way is not a change.
pub fn type_text(ty: &syn::Type) -> String {
    let written = quote!(#ty).to_string().replace(' ', "");
    let mut text = String::with_capacity(written.len());
    let mut word = String::new();
    let mut rest = written.as_str();
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("::") {
            // A path's segment before `::`: left out.
            word.clear();
            rest = after;
            continue;
        }
        rest = &rest[c.len_utf8()..];
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            text.push_str(&word);
            word.clear();
            text.push(c);
        }
    }
    text.push_str(&word);
    text
}

/// Whether `DOCMODEL_BLESS=1` is set for this build: the locks are being written again, and the model is
/// not held to the old one. The expansion reads the variable too (`option_env!`), so that cargo builds the
/// model again when it changes: a build made under it is never reused without the check.
fn blessing() -> bool {
    std::env::var("DOCMODEL_BLESS").is_ok_and(|value| value == "1")
}

/// The root of the locks of the models in `source` (`src/docmodel-locks/models/` for `src/models.rs`).
fn lock_root(source: Option<&Path>) -> Option<PathBuf> {
    // Cargo gives rustc paths relative to the workspace, which is the macro's working directory too.
    docmodel_shape::lock_root(&std::path::absolute(source?).ok()?)
}

/// The directory of the model's locks: by its type, under the root of its file's.
pub fn directory(source: Option<&Path>, type_name: &str) -> Option<PathBuf> {
    Some(docmodel_shape::model_dir(&lock_root(source)?, type_name))
}

/// `path` as shown in a message: from `docmodel-locks/`, the same on every machine.
fn shown(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    match text.find(docmodel_shape::LOCKS) {
        Some(at) => text[at..].to_owned(),
        None => text,
    }
}

/// Compares the model with the lock of its version, if there is one: an error at `schema = "..."` naming every
/// change and what to do, or the lock file's path (for the expansion to include). A model whose lock is under
/// another type (its type renamed, the locks not moved) is an error naming that lock.
pub fn check(
    model: &Complete,
    source: Option<&Path>,
) -> Result<Option<PathBuf>, crate::meta::Error> {
    let type_name = model.type_name.value();
    let (Some(root), Some(dir)) = (lock_root(source), directory(source, &type_name)) else {
        return Ok(None);
    };
    let version = model.schema.version.to_string();
    let path = docmodel_shape::lock_file(&dir, &version);
    let error = |message: String| crate::meta::Error::custom(message).with_span(model.schema.lit);
    let current = shape(model);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            let aliases: Vec<String> = model.aliases.iter().map(|alias| alias.value()).collect();
            let aliases: Vec<&str> = aliases.iter().map(String::as_str).collect();
            let name = rust_name(model.ident);
            return match docmodel_shape::moved_lock(&root, &name, &type_name, &version, &aliases) {
                Some((moved, old)) if !blessing() => {
                    let keep = match aliases.contains(&old.type_name.as_str()) {
                        true => String::new(),
                        false => format!(
                            ", and keep its documents readable with `aliases(\"{}\")`",
                            old.type_name
                        ),
                    };
                    Err(error(format!(
                        "`{name}` {version} is locked under another type (`{}`, beside this file): the type was \
                         renamed to `{type_name}` and its locks were not moved; move the directory to `{}`{keep}; \
                         or, if `{type_name}` is a new type and not `{}` renamed, write its lock with \
                         `DOCMODEL_BLESS=1 cargo test`",
                        shown(&moved),
                        shown(&dir),
                        old.type_name
                    )))
                }
                _ => Ok(None),
            };
        }
        Err(err) => {
            return Err(error(format!(
                "the lock `{}` (beside this file) does not read: {err}",
                shown(&path)
            )));
        }
    };
    let locked = Shape::parse(&text).map_err(|why| {
        error(format!(
            "the lock `{}` (beside this file) does not read: {why}; delete it, and write it again with \
             `DOCMODEL_BLESS=1 cargo test`",
            shown(&path)
        ))
    })?;
    if blessing() {
        return Ok(Some(path));
    }
    let aliases: Vec<String> = model.aliases.iter().map(|alias| alias.value()).collect();
    let aliases: Vec<&str> = aliases.iter().map(String::as_str).collect();
    let changes = locked.compare(&current, &aliases);
    if changes.is_empty() {
        return Ok(Some(path));
    }
    let listed: Vec<String> = changes
        .iter()
        .map(|change| format!("  - {change}"))
        .collect();
    let (major, minor) = (model.schema.version.major, model.schema.version.minor);
    let fix = docmodel_shape::fix(&changes, major, minor, &version);
    // Another struct of this type and version in this file wrote the lock: the two share it.
    let writer = match (&locked.model, &current.model) {
        (Some(writer), Some(name)) if writer != name => format!(
            "\n(the lock was written by `{writer}`: two models of one type and version in one file share its \
             lock; if `{writer}` was renamed `{name}`, this is its lock)"
        ),
        _ => String::new(),
    };
    Err(error(format!(
        "`{type_name}` {version} is locked with another stored shape (`{}`, beside this file):\n{}\n{fix}; or, \
         if {version} was never released, write its lock again: `DOCMODEL_BLESS=1 cargo test` (which builds \
         the model without this check, and again with it when the variable is unset){writer}",
        shown(&path),
        listed.join("\n")
    )))
}

/// `const __LOCK`: the stored fields and where the locks are; and `DOCMODEL_BLESS` read with `option_env!`,
/// which rustc records as an input of the crate, so that cargo builds it again when the variable changes.
pub fn trait_items(model: &Complete, source: Option<&Path>) -> TokenStream {
    let fields = records(model).into_iter().map(|record| {
        let Record {
            field,
            stored,
            ty,
            required,
            reads,
        } = record;
        quote!((#field, #stored, #ty, #required, &[#(#reads),*]))
    });
    let text = |path: Option<PathBuf>| match path.as_deref().and_then(Path::to_str) {
        Some(path) => quote!(::core::option::Option::Some(#path)),
        None => quote!(::core::option::Option::None),
    };
    let dir = text(directory(source, &model.type_name.value()));
    let root = text(lock_root(source));
    let name = rust_name(model.ident);
    quote! {
        const __LOCK: __docmodel_private::LockSpec = {
            // Built again when `DOCMODEL_BLESS` changes: a build under it skips the compile-time check.
            const _: ::core::option::Option<&str> = ::core::option_env!("DOCMODEL_BLESS");
            __docmodel_private::LockSpec {
                dir: #dir,
                root: #root,
                model: #name,
                fields: &[#(#fields),*],
            }
        };
    }
}

/// The lock's bytes, included so that an edit of the file rebuilds the model (and the derive compares again).
pub fn tracked(lock: Option<&Path>) -> TokenStream {
    match lock.and_then(Path::to_str) {
        Some(lock) => quote!(
            const _: &[u8] = ::core::include_bytes!(#lock);
        ),
        None => TokenStream::new(),
    }
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::ast::Model;
    use crate::attr::ModelAttr;

    /// Runs `with` on the checked model of `declaration`, a struct deriving `DocModel`.
    fn with_model<R>(declaration: &str, with: impl FnOnce(&Complete) -> R) -> R {
        let input: syn::DeriveInput = syn::parse_str(declaration).unwrap();
        let attr = ModelAttr::from_derive_input(&input).unwrap();
        let mut errors = crate::meta::Accumulator::default();
        let model = Model::from_attr(&attr, &mut errors);
        crate::valid::check(&model, &mut errors);
        errors.finish().unwrap();
        with(&model.complete().unwrap())
    }

    /// `fields` in a `user` model at 1.0, with `attrs` on the struct.
    fn user(attrs: &str, fields: &str) -> String {
        format!(
            "#[docmodel(type = \"user\", schema = \"1.0\", key = \"user::{{id}}\")] {attrs} \
             struct User {{ id: u64, {fields} }}"
        )
    }

    /// The one comparison of stored shapes, on real struct changes: each row a struct as locked and as
    /// changed, both read by the derive as it reads a model, and what the comparison finds.
    #[test]
    fn struct_changes_are_found_from_their_declarations() {
        #[rustfmt::skip]
        let table: &[(&str, String, String, &[&str])] = &[
            ("fields reordered, documented, a type by its path", user("", "name: String, tags: Vec<String>"),
             user("", "/// Tags.\n tags: Vec<std::string::String>, name: String"), &[]),
            ("an `Option` added", user("", "name: String"), user("", "name: String, nick: Option<String>"),
             &["field `nick` added"]),
            ("a field added", user("", "name: String"), user("", "name: String, age: u32"),
             &["field `age` added, required (a stored document without it does not read)"]),
            ("an `Option` added, read by its own function: required by serde", user("", "name: String"),
             user("", "name: String, #[serde(with = \"m\")] shipped: Option<u64>"),
             &["field `shipped` added, required (a stored document without it does not read)"]),
            ("an `Option` added, read by its own function, with a default", user("", "name: String"),
             user("", "name: String, #[serde(with = \"m\", default)] shipped: Option<u64>"),
             &["field `shipped` added"]),
            ("a field added that is never read", user("", "name: String"),
             user("", "name: String, #[serde(skip_deserializing)] seen: u32"), &["field `seen` added"]),
            ("a field added under the struct's default", user("", "name: String"),
             user("#[serde(default)]", "name: String, age: u32"), &["field `age` added"]),
            ("a field removed", user("", "name: String"), user("", ""), &["field `name` removed"]),
            ("a field renamed", user("", "name: String"), user("", "#[serde(rename = \"fullName\")] name: String"),
             &["field `name` renamed: stored as `fullName`, was `name`"]),
            ("`rename_all`", user("", "first_name: String"),
             user("#[serde(rename_all = \"camelCase\")]", "first_name: String"),
             &["field `first_name` renamed: stored as `firstName`, was `first_name`"]),
            ("a type changed", user("", "name: String"), user("", "name: Vec<String>"),
             &["field `name` changed type: `Vec<String>`, was `String`"]),
            ("an `Option` made plain", user("", "nick: Option<String>"), user("", "nick: String"),
             &["field `nick` changed type: `String`, was `Option<String>`",
               "field `nick` made required: a stored document without it no longer reads"]),
            ("a default dropped", user("", "#[serde(default)] n: u32"), user("", "n: u32"),
             &["field `n` made required: a stored document without it no longer reads"]),
            ("a default added", user("", "n: u32"), user("", "#[serde(default)] n: u32"), &[]),
            ("an alias added", user("", "name: String"), user("", "#[serde(alias = \"fullName\")] name: String"), &[]),
            ("an alias dropped", user("", "#[serde(alias = \"fullName\")] name: String"), user("", "name: String"),
             &["field `name` no longer read from `fullName`: a stored document holding it there loses it"]),
            ("the type renamed", user("", ""), user("", "").replace("\"user\"", "\"member\""),
             &["the type renamed: `member`, was `user`: stored documents of `user` no longer read"]),
            ("the type renamed, its old name an alias", user("", ""),
             user("#[docmodel(aliases(\"user\"))]", "").replace("type = \"user\"", "type = \"member\""), &[]),
        ];
        for (what, locked, changed, expected) in table {
            let locked = with_model(locked, shape);
            let (current, aliases) = with_model(changed, |model| {
                let aliases: Vec<String> =
                    model.aliases.iter().map(|alias| alias.value()).collect();
                (shape(model), aliases)
            });
            let aliases: Vec<&str> = aliases.iter().map(String::as_str).collect();
            let found: Vec<String> = locked
                .compare(&current, &aliases)
                .iter()
                .map(ToString::to_string)
                .collect();
            assert_eq!(found, *expected, "{what}");
        }
    }

    /// The lock's "required" and the JSON Schema's `required` (which the CouchDB guard enforces) are one
    /// answer, the field's: a document must hold the field exactly where a document without it does not read.
    #[test]
    fn the_lock_and_the_schema_give_one_answer() {
        let declaration = user(
            "#[serde(rename_all = \"camelCase\")]",
            "plain: String, maybe: Option<u8>, present: Presence<u8>, \
             #[serde(with = \"m\")] shipped: Option<u64>, \
             #[serde(deserialize_with = \"r\")] read_own: Option<u64>, \
             #[serde(serialize_with = \"w\")] written_own: Option<u64>, \
             #[serde(default)] counted: u32, \
             #[serde(default, skip_serializing_if = \"Vec::is_empty\")] tags: Vec<String>, \
             #[serde(skip_deserializing)] seen: u32",
        );
        with_model(&declaration, |model| {
            let required: Vec<String> = records(model)
                .into_iter()
                .filter(|record| record.required)
                .map(|record| record.stored)
                .collect();
            assert_eq!(required, ["id", "plain", "shipped", "readOwn"]);
            let fields: Vec<crate::expand::schema::SchemaField> = model
                .fields
                .iter()
                .map(|field| crate::expand::schema::SchemaField {
                    ident: field.ident,
                    ty: field.ty,
                    json: &field.json,
                    reads_absent: field.reads_absent(),
                })
                .collect();
            let shapes = quote::format_ident!("shapes");
            let parts = crate::expand::schema::object(&fields, &shapes);
            let in_schema: Vec<&str> = parts.required.iter().map(|name| name.as_str()).collect();
            assert_eq!(in_schema, required);
        });
    }

    #[test]
    fn types_are_compared_without_their_paths() {
        let text = |ty: &str| type_text(&syn::parse_str(ty).unwrap());
        assert_eq!(text("std::string::String"), "String");
        assert_eq!(text("Vec < crate::models::Phone >"), "Vec<Phone>");
        assert_eq!(text("::core::option::Option<u64>"), "Option<u64>");
        assert_eq!(text("HashMap<String, Vec<u8>>"), "HashMap<String,Vec<u8>>");
    }
}
