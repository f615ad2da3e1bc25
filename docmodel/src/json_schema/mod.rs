//! The schema other clients meet: a model's stored documents as a JSON Schema (draft 2020-12), built from what
//! the derive knows of the model (its fields' stored names and types, which it must hold, its envelope).
//!
//! # Files
//!
//! - this file: [`json_schema`] and [`json_schemas`], the model's schema from its envelope spec and its
//!   body's fields ([`BodySchema`], which the derive writes).
//! - `shape.rs`: [`StoredShape`], the schema of a field's type, and the probe the derive calls, which leaves
//!   a type without one open.
//! - `couchdb.rs`: the `validate_doc_update` function that enforces the schemas on CouchDB, from
//!   `validate_doc_update.js`.

pub(crate) mod couchdb;
mod shape;

use serde_json::{Map, Value, json};

#[doc(hidden)]
pub use shape::{Open, Probe, ViaShape};
pub use shape::{Shapes, StoredShape};

use crate::envelope::{EnvelopeField, Layout};
use crate::{DocModel, TimestampFormat};

/// The JSON Schema draft the schemas are written in.
pub const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";

/// What the derive knows of a model's body: each stored field's name and schema, which fields a document
/// must hold, and why part of it is open (a flattened field). Written by `#[derive(DocModel)]`.
#[doc(hidden)]
pub struct BodySchema {
    /// Each field the body writes, by its stored name, with its schema.
    pub properties: Vec<(&'static str, Value)>,
    /// The fields a document must hold for the body to read.
    pub required: &'static [&'static str],
    /// The fields a document must hold under one of several names (a field read from an `alias` too): each
    /// the names it is read from.
    pub required_any: &'static [&'static [&'static str]],
    /// Why the body holds fields the schema cannot name, if it does.
    pub open: Option<&'static str>,
    /// Each stored field's name in Rust (as a key template names it) and in the document.
    pub names: &'static [(&'static str, &'static str)],
}

/// The schema of an object of `properties`, `required` of them, holding others the schema cannot name where
/// `open` says why: an `Embedded` struct's.
#[doc(hidden)]
pub fn object_shape(
    properties: Vec<(&'static str, Value)>,
    required: &[&str],
    required_any: &[&[&str]],
    open: Option<&str>,
) -> Value {
    let properties: Map<String, Value> = properties
        .into_iter()
        .map(|(name, shape)| (name.to_owned(), shape))
        .collect();
    let mut object = json!({ "type": "object", "properties": properties });
    if !required.is_empty() {
        object["required"] = json!(required);
    }
    require_any(&mut object, required_any);
    if let Some(open) = open {
        object["description"] = json!(format!(
            "Fields this schema does not name are allowed: {open}."
        ));
    }
    object
}

/// Requires of `object` each of `groups` under one of its names: `allOf` of an `anyOf` of `required` per
/// group (a field read from an alias as well as its own name).
fn require_any(object: &mut Value, groups: &[&[&str]]) {
    if groups.is_empty() {
        return;
    }
    let all: Vec<Value> = groups
        .iter()
        .map(|names| {
            let any: Vec<Value> = names
                .iter()
                .map(|name| json!({ "required": [name] }))
                .collect();
            json!({ "anyOf": any })
        })
        .collect();
    object["allOf"] = Value::Array(all);
}

/// An open schema (any JSON), with `description` saying why.
#[doc(hidden)]
pub fn open_shape(description: &str) -> Value {
    shape::open(description)
}

impl BodySchema {
    /// A body docmodel knows nothing of: a model implemented by hand.
    pub fn unknown() -> Self {
        BodySchema {
            properties: Vec::new(),
            required: &[],
            required_any: &[],
            open: Some(
                "the model's `DocModel` is implemented by hand, so its body's fields are not known",
            ),
            names: &[],
        }
    }
}

/// The JSON Schema (draft 2020-12) of model `T`'s documents at its current schema version, as other clients
/// of the same database may read and write them: the envelope under the model's layout and names (the type as
/// a `const`, the schema version of the current major, `_ver`, the timestamps in their format), the body's
/// fields under their stored names, those a document must hold as `required`, and a `$defs` entry per struct
/// stored in the body ([`Embedded`](trait@crate::Embedded)). Fields the model does not know are allowed:
/// docmodel keeps them.
///
/// A field whose type has no [`StoredShape`] (or that serde writes its own way, `#[serde(with = ...)]`) is
/// left open, with a `description` saying so.
///
/// ```
/// use docmodel::DocModel;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, DocModel)]
/// #[serde(rename_all = "camelCase")]
/// #[docmodel(type = "user", schema = "3.0", key = "user::{user_id}")]
/// struct User {
///     user_id: u64,
///     first_name: String,
///     nickname: Option<String>,
/// }
///
/// let schema = docmodel::json_schema::<User>();
/// assert_eq!(schema["properties"]["_type"], docmodel::json!({ "const": "user" }));
/// assert_eq!(schema["properties"]["firstName"], docmodel::json!({ "type": "string" }));
/// assert_eq!(schema["required"], docmodel::json!(["_type", "_schema", "userId", "firstName"]));
/// ```
pub fn json_schema<T: DocModel>() -> Value {
    let mut shapes = Shapes::new();
    let body = T::__body_schema(&mut shapes);
    document_schema::<T>(Some(body), shapes)
}

/// The schema of model `T`'s envelope alone, at any schema version: what the server checks of a document
/// that a JSON step reads (the step is a function over any JSON), whose schema text the server's function
/// checks on its own.
pub(crate) fn envelope_schema<T: DocModel>() -> Value {
    document_schema::<T>(None, Shapes::new())
}

/// The schema of model `T`'s documents: the envelope, and `body` where it is known.
fn document_schema<T: DocModel>(body: Option<BodySchema>, shapes: Shapes) -> Value {
    let spec = &T::ENVELOPE;
    let mut envelope = Map::new();
    let mut envelope_required = Vec::new();
    for field in EnvelopeField::ALL {
        // A field the model does not keep is one it does not know (kept as read); only docmodel's revision
        // copies carry the copy marker and the record of what was saved from them, and they are not the model's
        // documents.
        if !spec.keeps(field) || matches!(field, EnvelopeField::CopyOf | EnvelopeField::CopyNext) {
            continue;
        }
        let shape = match field {
            EnvelopeField::Type if spec.layout() == Layout::Root => continue,
            EnvelopeField::Type => type_shape::<T>(),
            EnvelopeField::Schema if body.is_none() => json!({ "type": "string" }),
            EnvelopeField::Schema => json!({
                "type": "string",
                "pattern": version_pattern(T::SCHEMA.major),
                "description": format!(
                    "the schema version: {} is current; another minor of major {} reads as it",
                    T::SCHEMA_TEXT,
                    T::SCHEMA.major
                ),
            }),
            EnvelopeField::Ver => json!({
                "type": "integer",
                "minimum": 1,
                "exclusiveMaximum": U64_END,
                "description": "the revision count: 1 for a new document, one more with each save",
            }),
            EnvelopeField::Created | EnvelopeField::Modified | EnvelopeField::Accessed => {
                time_shape(spec.timestamps())
            }
            EnvelopeField::CreatedBy | EnvelopeField::ModifiedBy | EnvelopeField::Geo => {
                json!({ "type": "string" })
            }
            EnvelopeField::CopyOf | EnvelopeField::CopyNext => continue,
        };
        let name = spec.name(field);
        let must = match field {
            EnvelopeField::Type => !T::ACCEPTS_UNTYPED,
            EnvelopeField::Schema => T::UNVERSIONED.is_none(),
            _ => false,
        };
        if must {
            envelope_required.push(name);
        }
        envelope.insert(name.to_owned(), shape);
    }

    let mut properties = Map::new();
    let mut required: Vec<&str> = Vec::new();
    match spec.layout() {
        Layout::Meta => {
            let mut meta = json!({ "type": "object", "properties": envelope });
            if !envelope_required.is_empty() {
                meta["required"] = json!(envelope_required);
            }
            properties.insert(spec.meta_name().to_owned(), meta);
            required.push(spec.meta_name());
        }
        Layout::Flat | Layout::Plain | Layout::Root => {
            properties.extend(envelope);
            required.extend(envelope_required);
        }
    }
    let open = match &body {
        Some(body) => body.open,
        None => Some("the envelope alone is described: the body is what a migration step reads"),
    };
    let mut required_any: &[&[&str]] = &[];
    if let Some(body) = body {
        for (name, shape) in body.properties {
            properties.insert(name.to_owned(), shape);
        }
        required.extend(body.required);
        required_any = body.required_any;
    }

    let mut object = json!({ "type": "object", "properties": properties, "required": required });
    require_any(&mut object, required_any);
    if let Some(open) = open {
        object["description"] = json!(format!(
            "Fields this schema does not name are allowed: {open}."
        ));
    }
    let description = format!(
        "A `{}` document (schema {}) as docmodel stores it{}. Fields the model does not know are allowed: \
         docmodel keeps them.",
        T::TYPE,
        T::SCHEMA_TEXT,
        match spec.layout() {
            Layout::Flat => "",
            Layout::Plain => ", in the plain layout",
            Layout::Meta => ", with its envelope in the meta object",
            Layout::Root => ", under one attribute named by its type",
        }
    );
    let mut schema = match spec.layout() {
        Layout::Root => json!({
            "type": "object",
            "properties": { T::TYPE: object },
            "required": [T::TYPE],
        }),
        _ => object,
    };
    let root = schema.as_object_mut().expect("an object was built");
    let mut head = Map::new();
    head.insert("$schema".into(), json!(DRAFT));
    head.insert(
        "title".into(),
        json!(format!("{} {}", T::TYPE, T::SCHEMA_TEXT)),
    );
    head.insert("description".into(), json!(description));
    head.append(root);
    let defs = shapes.into_defs();
    if !defs.is_empty() {
        head.insert("$defs".into(), Value::Object(defs));
    }
    Value::Object(head)
}

/// [`json_schema`] of model `T`, then of each older model its chain reads through a typed step
/// (`migrate_from("2.0" = UserV2)`) and theirs, newest first, each with its schema version. A version read by
/// a JSON step has no schema: the step is a function over any JSON.
pub fn json_schemas<T: DocModel>() -> Vec<(crate::SchemaVersion, Value)> {
    let mut all = vec![(T::SCHEMA, json_schema::<T>())];
    for entry in T::MIGRATIONS.iter().rev() {
        if let crate::migrate::Step::Typed { schemas, .. } = entry.step {
            for (version, schema) in schemas() {
                if all.iter().all(|(known, _)| *known != version) {
                    all.push((version, schema));
                }
            }
        }
    }
    all
}

/// The type field: the model's type, or one of its aliases.
fn type_shape<T: DocModel>() -> Value {
    if T::TYPE_ALIASES.is_empty() {
        return json!({ "const": T::TYPE });
    }
    let names: Vec<&str> = std::iter::once(T::TYPE)
        .chain(T::TYPE_ALIASES.iter().copied())
        .collect();
    json!({ "enum": names })
}

/// 2^64, the first whole number past `u64::MAX`: exact as a JSON number of any reader (a double holds it),
/// where `u64::MAX` itself is not (a double rounds it up to 2^64).
pub(crate) const U64_END: f64 = 18_446_744_073_709_551_616.0;

/// A timestamp of the envelope, in its format: a whole number of its unit within the years docmodel reads
/// (0000 to 9999), or an ISO-8601 date-time with a zone.
fn time_shape(format: TimestampFormat) -> Value {
    let unit = match format {
        TimestampFormat::Iso8601 => return json!({ "type": "string", "format": "date-time" }),
        TimestampFormat::EpochMs => "milliseconds",
        TimestampFormat::EpochS => "seconds",
        TimestampFormat::EpochMin => "minutes",
        TimestampFormat::EpochH => "hours",
        TimestampFormat::EpochDay => "days",
    };
    let (minimum, maximum) = crate::Timestamp::epoch_range(format);
    json!({
        "type": "integer",
        "minimum": minimum,
        "maximum": maximum,
        "description": format!("{unit} since the Unix epoch, in the years 0000 to 9999"),
    })
}

/// The schema versions of major `major` as docmodel reads them: `3.0`, `3.12`, `3.0.1`; no leading zeros.
fn version_pattern(major: u64) -> String {
    const NUMBER: &str = "(0|[1-9][0-9]*)";
    format!(r"^{major}\.{NUMBER}(\.{NUMBER})?$")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_pattern_reads_as_the_parser_does() {
        let pattern = version_pattern(3);
        assert_eq!(pattern, r"^3\.(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))?$");
    }
}
