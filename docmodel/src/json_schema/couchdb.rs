//! The model's schemas enforced by CouchDB: a `validate_doc_update` function, which the server runs on every
//! write of every client (`Repo::ensure_validation` installs it), generated from what docmodel's reader
//! reads by, so that every document the server takes as the model's, docmodel reads.
//!
//! The function is `validate_doc_update.js` beside this file, with `DOCMODEL_MODEL` replaced by the model as
//! data ([`validation_model`]): what the reader decides by, each from the constant the reader itself uses:
//! its type and aliases, the envelope's layout, names and legacy names, the key shape an untyped document
//! is the model's at, the copy marker and the revision key, the depth limit, and per model of the chain
//! ([`validation_level`]) its current version, its chain's steps (a typed step's older model in full, with
//! its own chain), its JSON Schema ([`json_schema`](super::json_schema)) and its envelope's alone. The
//! function routes a document's version exactly as `migrate::route` does, then walks the schema of the model
//! that reads it (the keywords `json_schema` writes: `type`, `const`, `enum`, `properties`, `required`,
//! `additionalProperties`, `items`, `prefixItems`, `minItems`, `maxItems`, `minimum`, `maximum`,
//! `exclusiveMaximum`, `pattern`, `minLength`, `maxLength`, `format` (`date-time` as docmodel's parser reads
//! it, `uuid`), `anyOf`, `not`, `$ref` into `$defs`; any other keyword, from a `StoredShape` of the
//! application's, makes it refuse the value rather than pass it unchecked). A refusal is
//! `{"forbidden": "docmodel: <path>: <rule>"}`, the path as docmodel's validation names it
//! (`phones[0].number`) and never the value, which the CouchDB store turns into
//! [`Error::Validation`](crate::Error::Validation).

use serde_json::{Value, json};

use super::{envelope_schema, json_schema};
use crate::DocModel;
use crate::codec::MAX_DEPTH;
use crate::envelope::{EnvelopeField, Layout};
use crate::keyshape::{Chars, Piece, template_pieces};
use crate::migrate::Step;
use crate::migrate::route::readable;

/// What a refusal's reason begins with.
pub(crate) const REFUSAL: &str = "docmodel: ";

/// The top-level members CouchDB adds to or reads from a document body: its bookkeeping, never a docmodel
/// field. The store strips them on read; the function does not count them as the document's.
pub(crate) const COUCHDB_MEMBERS: [&str; 9] = [
    "_id",
    "_rev",
    "_deleted",
    "_attachments",
    "_conflicts",
    "_deleted_conflicts",
    "_local_seq",
    "_revs_info",
    "_revisions",
];

/// The design document's id for model `T`: `_design/docmodel_<type>`.
pub(crate) fn design_name<T: DocModel>() -> String {
    format!("docmodel_{}", T::TYPE)
}

/// The `validate_doc_update` function of model `T`.
pub(crate) fn validate_function<T: DocModel>() -> String {
    // The model as a JavaScript string of its JSON text, which the function parses: `JSON.parse` makes every
    // name an own property (an object literal would take a body field stored as `__proto__` for the
    // prototype), and U+2028 and U+2029, which end a line in JavaScript before ES2019, are escapes.
    let text = serde_json::to_string(&validation_model::<T>()).expect("JSON values write");
    let model = serde_json::to_string(&text)
        .expect("a string writes")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029");
    include_str!("validate_doc_update.js")
        .trim_end()
        .replacen("DOCMODEL_MODEL", &model, 1)
}

/// Model `T` as the function reads it: its [`validation_level`], and what only the model a document is read
/// as decides: whether an untyped document is its own (and at which keys), the revision key, the depth
/// limit, CouchDB's own members.
pub(crate) fn validation_model<T: DocModel>() -> Value {
    let mut model = validation_level::<T>();
    model["types"] = json!(
        std::iter::once(T::TYPE)
            .chain(T::TYPE_ALIASES.iter().copied())
            .collect::<Vec<_>>()
    );
    model["untyped"] = json!(T::ACCEPTS_UNTYPED);
    let pieces = template_pieces(&T::KEY);
    model["key"] = json!(key_pattern(&pieces));
    // The stored name of each whole-number part's field, in order (`null` for a text part, whose key text
    // is the field's as its type writes it in a key, not its JSON): the function holds the key to the body.
    let names = T::__body_schema(&mut super::Shapes::new()).names;
    let parts: Vec<Option<&str>> = pieces
        .iter()
        .filter_map(|piece| match *piece {
            Piece::Text(_) => None,
            Piece::Part {
                name,
                chars: Chars::Digits { .. },
            } => Some(
                names
                    .iter()
                    .find(|(field, _)| *field == name)
                    .map(|(_, stored)| *stored),
            ),
            Piece::Part { .. } => Some(None),
        })
        .collect();
    model["keyParts"] = json!(parts);
    model["delimiter"] = json!(T::KEY.delimiter());
    model["maxDepth"] = json!(MAX_DEPTH);
    model["couchdb"] = json!(COUCHDB_MEMBERS);
    // In the `root` layout the root attribute is the type: a type field inside it is one the reader refuses.
    let spec = &T::ENVELOPE;
    model["rootTypeNames"] = json!(match spec.layout() {
        Layout::Root => std::iter::once(spec.name(EnvelopeField::Type))
            .chain(spec.legacy_name(EnvelopeField::Type))
            .collect::<Vec<_>>(),
        _ => Vec::new(),
    });
    model
}

/// One model of a chain as the function routes and checks a document by it: its type, its envelope's
/// layout and names, its current version, its chain, its schemas. A typed step's entry holds the older
/// model's level (`Step::Typed::model`), so the function routes a version through it as the step reads it.
#[doc(hidden)]
pub fn validation_level<T: DocModel>() -> Value {
    let spec = &T::ENVELOPE;
    let mut fields = serde_json::Map::new();
    let mut paths = serde_json::Map::new();
    for field in EnvelopeField::ALL {
        if !spec.keeps(field) || (field == EnvelopeField::Type && spec.layout() == Layout::Root) {
            continue;
        }
        let names: Vec<&str> = std::iter::once(spec.name(field))
            .chain(spec.legacy_name(field))
            .collect();
        let path = match spec.layout() {
            Layout::Meta => format!("{}.{}", spec.meta_name(), spec.name(field)),
            Layout::Root => format!("{}.{}", T::TYPE, spec.name(field)),
            Layout::Flat | Layout::Plain => spec.name(field).to_owned(),
        };
        fields.insert(field.plain_name().to_owned(), json!(names));
        paths.insert(field.plain_name().to_owned(), json!(path));
    }
    let version = |version: crate::SchemaVersion| {
        json!([
            version.major.to_string(),
            version.minor.to_string(),
            version.patch.to_string()
        ])
    };
    let chain: Vec<Value> = T::MIGRATIONS
        .iter()
        .map(|entry| {
            let typed = match &entry.step {
                Step::Json { .. } => Value::Null,
                Step::Typed { model, .. } => model(),
            };
            json!({ "from": version(entry.from), "fromText": entry.from_text, "typed": typed })
        })
        .collect();
    json!({
        "type": T::TYPE,
        "layout": spec.layout().name(),
        "meta": spec.meta_name(),
        "fields": fields,
        "paths": paths,
        "current": version(T::SCHEMA),
        "currentText": T::SCHEMA_TEXT,
        "reads": readable::<T>(),
        "unversioned": T::UNVERSIONED.map(version),
        "chain": chain,
        "schema": json_schema::<T>(),
        "envelope": envelope_schema::<T>(),
    })
}

/// The keys `pieces` describe, as a JavaScript regular expression (ES5, no flags) matching a whole key, each
/// part a group: an integer part as docmodel writes one (no leading zero, a sign where its type has one).
fn key_pattern(pieces: &[Piece]) -> String {
    let mut pattern = String::from("^");
    for piece in pieces {
        match *piece {
            Piece::Text(text) => pattern.extend(text.chars().map(escaped)),
            Piece::Part { chars, .. } => pattern.push_str(&match chars {
                Chars::NotIn(text) => {
                    format!("([^{}]+)", text.chars().map(escaped).collect::<String>())
                }
                Chars::Digits { signed: false } => "(0|[1-9][0-9]*)".to_owned(),
                Chars::Digits { signed: true } => "(0|-?[1-9][0-9]*)".to_owned(),
                Chars::IndexValues => "([0-9a-f!-]+)".to_owned(),
            }),
        }
    }
    pattern.push('$');
    pattern
}

/// `c` as a regular expression matches it, in a class or out of one: as an escape of its UTF-16 units.
fn escaped(c: char) -> String {
    let mut units = [0u16; 2];
    c.encode_utf16(&mut units)
        .iter()
        .map(|unit| format!("\\u{unit:04x}"))
        .collect()
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
        assert!(
            function.contains(r#"\"currentText\":\"2.1\""#),
            "{function}"
        );
        assert!(
            function.contains(r#"\"schema\":[\"schema\"]"#),
            "{function}"
        );
        assert_eq!(design_name::<Note>(), "docmodel_note");
    }

    #[test]
    fn a_key_pattern_matches_the_keys_the_template_writes() {
        assert_eq!(
            key_pattern(&template_pieces(&Note::KEY)),
            r"^\u006e\u006f\u0074\u0065\u003a\u003a(0|[1-9][0-9]*)$"
        );
        let pieces = [
            Piece::Text("a.b"),
            Piece::Part {
                name: "x",
                chars: Chars::NotIn(":]"),
            },
            Piece::Text("\u{1F600}"),
        ];
        assert_eq!(
            key_pattern(&pieces),
            r"^\u0061\u002e\u0062([^\u003a\u005d]+)\ud83d\ude00$"
        );
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
