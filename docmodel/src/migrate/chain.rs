//! The migration chain: its entries as the derive generates them from `migrate_from(...)` ([`Migration`],
//! [`Step`]), and what the runtime does around one JSON step. It checks the document's type before a step
//! sees it ([`check_type`]), rewrites a document the model adopts as the steps expect one ([`adopt`]), runs
//! the step and writes the schema it moved the document to ([`apply_json`]).
//!
//! Nothing here reads bytes: a JSON step works on the [`JsonObject`] the codec's strict parser gives, and a
//! typed step's [`TypedRead`] is the read entry of an older model (`read::typed_step`).

use std::fmt;

use crate::codec::{Decoded, JsonObject};
use crate::envelope::{EnvelopeField, EnvelopeSpec, Layout, envelope_object};
use crate::{DocModel, Error, MigrationError, SchemaVersion};

/// One entry of a model's migration chain: the step that moves a document from the version `from` to the next
/// listed version (the last one to the current schema). Generated from `migrate_from(...)`.
pub struct Migration<T: 'static> {
    /// The version the step reads.
    pub from: SchemaVersion,
    /// `from` as listed in the attribute (`"2.0"`).
    pub from_text: &'static str,
    /// What moves the document on.
    pub step: Step<T>,
}

/// Reads a document as an older model and converts it to the current one.
pub type TypedRead<T> = fn(&[u8]) -> Result<Decoded<T>, TypedFailure>;

/// Why a typed step failed: the older model could not read the document (its own error, as it is), or the
/// conversion refused it.
#[derive(Debug)]
pub enum TypedFailure {
    /// The older model's error reading the document.
    Read(Error),
    /// The conversion's error.
    Convert(MigrationError),
}

/// How a [`Migration`] moves a document on.
pub enum Step<T: 'static> {
    /// A function over the JSON object, listed by name.
    Json {
        /// The function's path as written in the attribute.
        name: &'static str,
        /// The function.
        run: fn(&mut JsonObject) -> Result<(), MigrationError>,
    },
    /// An older model of its own (with its own chain), converted to the current one with `TryFrom`.
    Typed {
        /// The older model's path as written in the attribute.
        name: &'static str,
        /// Reads the document as the older model and converts it.
        read: TypedRead<T>,
        /// The older model's JSON Schemas ([`json_schemas`](crate::json_schemas)): of its version, and of
        /// the versions its own typed steps read.
        #[cfg(feature = "json-schema")]
        schemas: fn() -> Vec<(crate::SchemaVersion, serde_json::Value)>,
        /// The older model as the CouchDB validation function routes and checks a document by it (its
        /// version, its own chain, its schemas).
        #[cfg(feature = "json-schema")]
        model: fn() -> serde_json::Value,
    },
}

impl<T> Step<T> {
    /// The step's name as written in the attribute.
    pub fn name(&self) -> &'static str {
        match self {
            Step::Json { name, .. } | Step::Typed { name, .. } => name,
        }
    }
}

impl<T> fmt::Debug for Migration<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.step {
            Step::Json { .. } => "json",
            Step::Typed { .. } => "typed",
        };
        write!(f, "{} = {} ({kind})", self.from_text, self.step.name())
    }
}

/// Runs the JSON step `run` of the chain entry `entry` on `object`, then writes the schema it moved the
/// document to (`to`): the runtime, not the step, keeps `_schema`.
pub(crate) fn apply_json<T: DocModel>(
    entry: &Migration<T>,
    run: fn(&mut JsonObject) -> Result<(), MigrationError>,
    to: &str,
    object: &mut JsonObject,
) -> Result<(), Error> {
    let failed = |source| Error::Migration {
        key: None,
        from: entry.from_text.to_owned(),
        to: to.to_owned(),
        source,
    };
    run(object).map_err(failed)?;
    set_schema(object, &T::ENVELOPE, to).map_err(failed)
}

/// A JSON step only ever runs on a document of the model's own type: its type, one of its aliases, or none
/// where the model accepts untyped documents.
pub(crate) fn check_type<T: DocModel>(object: &JsonObject) -> Result<(), Error> {
    let spec = &T::ENVELOPE;
    let field = spec.type_field_label();
    let envelope = match spec.layout() {
        Layout::Meta => object
            .get(spec.meta_name())
            .and_then(|meta| meta.as_object()),
        Layout::Flat | Layout::Plain => Some(object),
        // The type is the name of the one top-level attribute.
        Layout::Root => {
            let mut names = object.keys();
            return match (names.next(), names.next()) {
                (Some(name), None)
                    if name == T::TYPE || T::TYPE_ALIASES.contains(&name.as_str()) =>
                {
                    Ok(())
                }
                (found, _) => Err(Error::WrongType {
                    key: None,
                    field,
                    expected: T::TYPE,
                    found: found.cloned(),
                }),
            };
        }
    };
    match envelope.and_then(|envelope| envelope.get(field)) {
        Some(serde_json::Value::String(found))
            if found == T::TYPE || T::TYPE_ALIASES.contains(&found.as_str()) =>
        {
            Ok(())
        }
        None if T::ACCEPTS_UNTYPED => Ok(()),
        found => Err(Error::WrongType {
            key: None,
            field,
            expected: T::TYPE,
            found: found.map(|found| {
                found
                    .as_str()
                    .map_or_else(|| found.to_string(), str::to_owned)
            }),
        }),
    }
}

/// A document the model adopts as it was written before (under an alias of its type, without a type, or
/// without a schema) as the chain's steps expect one: the model's type, and the schema it is read as.
pub(crate) fn adopt<T: DocModel>(object: &mut JsonObject, version: SchemaVersion) {
    let spec = &T::ENVELOPE;
    if spec.layout() == Layout::Meta && !object.contains_key(spec.meta_name()) {
        // An untyped document of a `meta` layout model has no envelope object yet.
        object.insert(spec.meta_name().to_owned(), JsonObject::new().into());
    }
    if spec.layout() == Layout::Root
        && let Some(alias) = object
            .keys()
            .next()
            .filter(|name| T::TYPE_ALIASES.contains(&name.as_str()))
            .cloned()
        && let Some(value) = object.remove(&alias)
    {
        // The root attribute is the type: an alias's becomes the model's.
        object.insert(T::TYPE.to_owned(), value);
    }
    let Some(envelope) = envelope_object(spec, object) else {
        return;
    };
    let type_field = spec.name(EnvelopeField::Type);
    let adopted = match envelope.get(type_field) {
        // The root layout's type is its root attribute, not a field.
        _ if spec.layout() == Layout::Root => false,
        None => T::ACCEPTS_UNTYPED,
        Some(serde_json::Value::String(found)) => T::TYPE_ALIASES.contains(&found.as_str()),
        Some(_) => false,
    };
    if adopted {
        envelope.insert(type_field.to_owned(), T::TYPE.into());
    }
    let schema = spec.name(EnvelopeField::Schema);
    if !envelope.contains_key(schema) {
        envelope.insert(schema.to_owned(), version.to_string().into());
    }
}

/// Whether model `T` reads documents that [`adopt`] rewrites before a step sees them (or whose legacy
/// envelope names [`rename_legacy`](crate::envelope::rename_legacy) moves).
pub(crate) const fn adopts<T: DocModel>() -> bool {
    T::UNVERSIONED.is_some()
        || !T::TYPE_ALIASES.is_empty()
        || T::ACCEPTS_UNTYPED
        || T::ENVELOPE.has_legacy_names()
}

/// The runtime, not the step, writes the schema a step moved the document to.
fn set_schema(
    object: &mut JsonObject,
    spec: &EnvelopeSpec,
    version: &str,
) -> Result<(), MigrationError> {
    let envelope = envelope_object(spec, object).ok_or_else(|| {
        MigrationError::new(match spec.layout() {
            Layout::Root => "the step left the document without its one root attribute".to_owned(),
            _ => format!("the step removed the `{}` object", spec.meta_name()),
        })
    })?;
    let name = spec.name(EnvelopeField::Schema);
    // The stored schema is almost always there, as a string: its buffer takes the new text.
    match envelope.get_mut(name) {
        Some(serde_json::Value::String(text)) => {
            text.clear();
            text.push_str(version);
        }
        _ => {
            envelope.insert(name.to_owned(), version.into());
        }
    }
    Ok(())
}
