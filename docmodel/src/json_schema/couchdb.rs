//! The model's schemas enforced by CouchDB: a `validate_doc_update` function, which the server runs on every
//! write of every client (`Repo::ensure_validation` installs it), generated from [`json_schemas`].
//!
//! The function is `validate_doc_update.js` beside this file, with `DOCMODEL_MODEL` replaced by what it needs of the
//! model: its type and the names of its envelope fields, the current major, and the JSON Schema of each version
//! it reads as a model (the current one, and each older model of a typed step), newest first. It checks only documents of the model's type (copies, lookups, counters and other models pass),
//! refuses a schema version newer than the model's major and a `_ver` lower than the document's before, and
//! walks the schema of the version the model reads the document as (the keywords `json_schema` writes: `type`, `const`, `enum`,
//! `properties`, `required`, `additionalProperties`, `items`, `prefixItems`, `minItems`, `maxItems`,
//! `minimum`, `maximum`, `pattern`, `minLength`, `maxLength`, `anyOf`, `not`, `$ref` into `$defs`). A refusal
//! is `{"forbidden": "docmodel: <path>: <what is wrong>"}`, the path as docmodel's validation names it
//! (`phones[0].number`), which the CouchDB store turns into [`Error::Validation`](crate::Error::Validation).

use serde_json::{Value, json};

use super::json_schemas;
use crate::DocModel;
use crate::envelope::{EnvelopeField, Layout};

/// What a refusal's reason begins with.
pub(crate) const REFUSAL: &str = "docmodel: ";

/// The design document's id for model `T`: `_design/docmodel_<type>`.
pub(crate) fn design_name<T: DocModel>() -> String {
    format!("docmodel_{}", T::TYPE)
}

/// The `validate_doc_update` function of model `T`.
pub(crate) fn validate_function<T: DocModel>() -> String {
    let spec = &T::ENVELOPE;
    let names = |field| spec.name(field);
    let path = |field| match spec.layout() {
        Layout::Meta => format!("{}.{}", spec.meta_name(), spec.name(field)),
        Layout::Root => format!("{}.{}", T::TYPE, spec.name(field)),
        Layout::Flat | Layout::Plain => spec.name(field).to_owned(),
    };
    // Newest first: the function takes the first at or below a document's version within its major.
    let mut versions = json_schemas::<T>();
    versions.sort_by(|(a, _), (b, _)| b.cmp(a));
    let schemas: Vec<Value> = versions
        .into_iter()
        .map(|(version, schema)| {
            json!({
                "major": version.major,
                "minor": version.minor,
                "patch": version.patch,
                "schema": schema,
            })
        })
        .collect();
    let types: Vec<&str> = std::iter::once(T::TYPE)
        .chain(T::TYPE_ALIASES.iter().copied())
        .collect();
    let model = json!({
        "type": T::TYPE,
        "types": types,
        "root": spec.layout() == Layout::Root,
        "meta": (spec.layout() == Layout::Meta).then(|| spec.meta_name()),
        "names": {
            "type": names(EnvelopeField::Type),
            "schema": names(EnvelopeField::Schema),
            "ver": names(EnvelopeField::Ver),
            "copyOf": names(EnvelopeField::CopyOf),
        },
        "paths": {
            "schema": path(EnvelopeField::Schema),
            "ver": path(EnvelopeField::Ver),
        },
        "current": T::SCHEMA.major,
        "currentText": T::SCHEMA_TEXT,
        "unversioned": T::UNVERSIONED.map(|version| version.to_string()),
        "schemas": schemas,
    });
    let model = serde_json::to_string_pretty(&model).expect("JSON values write");
    let model = model.replace('\n', "\n  ");
    include_str!("validate_doc_update.js")
        .trim_end()
        .replacen("DOCMODEL_MODEL", &model, 1)
}

#[cfg_attr(not(feature = "couchdb"), allow(dead_code))]
/// The field error a CouchDB refusal names, when the reason is one `validate_function` wrote: its path, and
/// what is wrong.
pub(crate) fn refused_field(error: &str, reason: &str) -> Option<(String, String)> {
    if error != "forbidden" {
        return None;
    }
    let rest = reason.strip_prefix(REFUSAL)?;
    let (path, message) = rest.split_once(": ")?;
    let path = if path == "(the document)" { "" } else { path };
    Some((path.to_owned(), message.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize, serde::Deserialize, crate::DocModel)]
    #[docmodel(crate = crate, type = "note", schema = "2.1", key = "note::{id}")]
    #[docmodel(envelope(layout = "plain"))]
    struct Note {
        id: u64,
    }

    #[test]
    fn the_function_holds_the_model_and_nothing_to_fill_in() {
        let function = validate_function::<Note>();
        assert!(
            function.starts_with("function (newDoc, oldDoc) {"),
            "{function}"
        );
        assert!(function.ends_with('}'));
        assert!(!function.contains("DOCMODEL_MODEL"));
        assert!(function.contains(r#""currentText": "2.1""#), "{function}");
        assert!(function.contains(r#""schema": "schema""#), "{function}");
        assert_eq!(design_name::<Note>(), "docmodel_note");
    }

    #[test]
    fn a_refusal_names_its_field() {
        assert_eq!(
            refused_field(
                "forbidden",
                "docmodel: phones[0].number: must be string, not null"
            ),
            Some(("phones[0].number".into(), "must be string, not null".into()))
        );
        assert_eq!(
            refused_field(
                "forbidden",
                "docmodel: (the document): has none of the shapes"
            ),
            Some((String::new(), "has none of the shapes".into()))
        );
        assert_eq!(refused_field("forbidden", "only admins"), None);
        assert_eq!(refused_field("conflict", "docmodel: a: b"), None);
    }
}
