//! Schema migration: a model's chain of steps from every older schema to the current one, and what one JSON
//! step does to a document.
//!
//! A document carries its schema version. Reading one of the current major version takes the one-pass path
//! of every read; only a document an older major version wrote (or one a listed step names) is parsed into a
//! [`JsonObject`] and moved up the chain step by step (`crate::read` runs the chain).

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt;

use serde_json::value::RawValue;

use crate::codec::Decoded;
use crate::envelope::{EnvelopeField, EnvelopeSpec, Layout};
use crate::{DocModel, Error, MigrationError, SchemaVersion};

/// A stored document as a JSON step sees it: the whole object, envelope included.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

/// A JSON value, as a [`JsonObject`] holds it (`serde_json::Value`): what a JSON step reads and writes,
/// without a dependency line of its own. [`json!`](crate::json) builds one from JSON text.
pub type JsonValue = serde_json::Value;

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

/// A document parsed for the JSON steps, with the stored text of each top-level value that a [`JsonValue`]
/// does not hold as written: a number beyond 64 bits, or a fraction an `f64` rounds. A value no step changed
/// goes back to the reader as it was stored, not as the `f64` it was parsed into.
pub(crate) struct Parsed<'b> {
    pub(crate) object: JsonObject,
    exact: Vec<Exact<'b>>,
}

/// A top-level value as stored, and as parsed.
struct Exact<'b> {
    name: String,
    stored: &'b RawValue,
    parsed: JsonValue,
}

impl Parsed<'_> {
    /// The document as the steps left it, as JSON text whose untouched values are the stored ones; `None`
    /// when it has none that parsing changed (almost always), and the object is read as it is.
    pub(crate) fn exact_bytes(&self) -> Option<Vec<u8>> {
        // A value is taken as untouched when it is still the one parsed there; unless another field's parsed
        // the same, when a step may have moved that one here.
        let ambiguous = |exact: &Exact<'_>| {
            self.exact
                .iter()
                .any(|other| other.name != exact.name && other.parsed == exact.parsed)
        };
        let mut stored: Vec<(&str, &RawValue)> = self
            .exact
            .iter()
            .filter(|exact| self.object.get(&exact.name) == Some(&exact.parsed))
            .filter(|exact| !ambiguous(exact))
            .map(|exact| (exact.name.as_str(), exact.stored))
            .collect();
        if stored.is_empty() {
            return None;
        }
        stored.sort_unstable_by_key(|(name, _)| *name);
        Some(write_with(&self.object, &stored))
    }

    /// The document as the steps left it, as JSON text: the stored text of the values no step changed.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        self.exact_bytes()
            .unwrap_or_else(|| write_with(&self.object, &[]))
    }
}

/// `object` as JSON text, with the values of the names in `stored` (sorted) written as stored.
fn write_with(object: &JsonObject, stored: &[(&str, &RawValue)]) -> Vec<u8> {
    use serde::ser::{SerializeMap, Serializer};

    struct With<'a>(&'a JsonObject, &'a [(&'a str, &'a RawValue)]);

    impl serde::Serialize for With<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut map = serializer.serialize_map(Some(self.0.len()))?;
            for (name, value) in self.0 {
                match self
                    .1
                    .binary_search_by_key(&name.as_str(), |(name, _)| name)
                {
                    Ok(at) => map.serialize_entry(name, self.1[at].1)?,
                    Err(_) => map.serialize_entry(name, value)?,
                }
            }
            map.end()
        }
    }

    // A map of strings to JSON values, and raw JSON text, always serialize.
    serde_json::to_vec(&With(object, stored)).unwrap_or_default()
}

/// Parses a document for the JSON steps, refusing a field name that appears twice in any object, as the
/// one-pass reader does: readers that keep the first and readers that keep the last would disagree.
pub(crate) fn strict_object(bytes: &[u8]) -> Result<Parsed<'_>, Error> {
    use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

    /// Parses one value, noting in `fraction` whether it held a number parsed as an `f64`.
    #[derive(Clone, Copy)]
    struct Strict<'f> {
        fraction: &'f Cell<bool>,
    }

    impl<'de> DeserializeSeed<'de> for Strict<'_> {
        type Value = JsonValue;

        fn deserialize<D: Deserializer<'de>>(
            self,
            deserializer: D,
        ) -> Result<Self::Value, D::Error> {
            deserializer.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for Strict<'_> {
        type Value = JsonValue;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON value")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut object = JsonObject::new();
            while let Some(name) = map.next_key::<String>()? {
                let value = map.next_value_seed(self)?;
                insert_once(&mut object, name, value)?;
            }
            Ok(JsonValue::Object(object))
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut items = Vec::new();
            while let Some(item) = seq.next_element_seed(self)? {
                items.push(item);
            }
            Ok(JsonValue::Array(items))
        }

        fn visit_bool<E>(self, value: bool) -> Result<Self::Value, E> {
            Ok(value.into())
        }

        fn visit_i64<E>(self, value: i64) -> Result<Self::Value, E> {
            Ok(value.into())
        }

        fn visit_u64<E>(self, value: u64) -> Result<Self::Value, E> {
            Ok(value.into())
        }

        fn visit_f64<E>(self, value: f64) -> Result<Self::Value, E> {
            self.fraction.set(true);
            Ok(serde_json::Number::from_f64(value).map_or(JsonValue::Null, JsonValue::Number))
        }

        fn visit_str<E>(self, value: &str) -> Result<Self::Value, E> {
            Ok(value.into())
        }

        fn visit_string<E>(self, value: String) -> Result<Self::Value, E> {
            Ok(value.into())
        }

        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(JsonValue::Null)
        }
    }

    /// The document object: the names of its values that held an `f64`.
    struct Top<'n> {
        fractions: &'n mut Vec<String>,
    }

    impl<'de> Visitor<'de> for Top<'_> {
        type Value = JsonObject;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a stored document, a JSON object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut object = JsonObject::new();
            let fraction = Cell::new(false);
            while let Some(name) = map.next_key::<String>()? {
                let value = map.next_value_seed(Strict {
                    fraction: &fraction,
                })?;
                if fraction.replace(false) {
                    self.fractions.push(name.clone());
                }
                insert_once(&mut object, name, value)?;
            }
            Ok(object)
        }
    }

    let mut fractions = Vec::new();
    let mut json = serde_json::Deserializer::from_slice(bytes);
    let object = json
        .deserialize_map(Top {
            fractions: &mut fractions,
        })
        .and_then(|object| json.end().map(|()| object))
        .map_err(|source| Error::Codec { key: None, source })?;
    let exact = if fractions.is_empty() {
        Vec::new()
    } else {
        stored_text(bytes, &object, &fractions)
    };
    Ok(Parsed { object, exact })
}

/// Inserts a field's value, refusing a name already in the object.
fn insert_once<E: serde::de::Error>(
    object: &mut JsonObject,
    name: String,
    value: JsonValue,
) -> Result<(), E> {
    match object.entry(name) {
        serde_json::map::Entry::Vacant(slot) => {
            slot.insert(value);
            Ok(())
        }
        serde_json::map::Entry::Occupied(slot) => {
            Err(E::custom(format_args!("duplicate field `{}`", slot.key())))
        }
    }
}

/// The stored text of the top-level values named in `names` (parsed, in `object`) whose parsed value writes
/// out as other text: what [`Parsed::exact_bytes`] may put back.
fn stored_text<'b>(bytes: &'b [u8], object: &JsonObject, names: &[String]) -> Vec<Exact<'b>> {
    // The bytes parsed once already: this second pass over them cannot fail.
    let Ok(stored) = serde_json::from_slice::<BTreeMap<Cow<'b, str>, &'b RawValue>>(bytes) else {
        return Vec::new();
    };
    names
        .iter()
        .filter_map(|name| {
            let stored = *stored.get(name.as_str())?;
            let parsed = object.get(name)?;
            let written = serde_json::to_string(parsed).ok()?;
            (written != stored.get()).then(|| Exact {
                name: name.clone(),
                stored,
                parsed: parsed.clone(),
            })
        })
        .collect()
}

/// The envelope object of a document: the document itself, or its `meta` object.
fn envelope_object<'o>(
    object: &'o mut JsonObject,
    meta_name: &str,
    layout: Layout,
) -> Option<&'o mut JsonObject> {
    match layout {
        Layout::Meta => object.get_mut(meta_name)?.as_object_mut(),
        Layout::Flat | Layout::Plain => Some(object),
    }
}

/// A JSON step only ever runs on a document of the model's own type: its type, one of its aliases, or none
/// where the model accepts untyped documents.
pub(crate) fn check_type<T: DocModel>(object: &JsonObject) -> Result<(), Error> {
    let spec = &T::ENVELOPE;
    let field = spec.name(EnvelopeField::Type);
    let envelope = match spec.layout() {
        Layout::Meta => object
            .get(spec.meta_name())
            .and_then(|meta| meta.as_object()),
        Layout::Flat | Layout::Plain => Some(object),
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
    let Some(envelope) = envelope_object(object, spec.meta_name(), spec.layout()) else {
        return;
    };
    let type_field = spec.name(EnvelopeField::Type);
    let adopted = match envelope.get(type_field) {
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

/// Whether model `T` reads documents that [`adopt`] rewrites before a step sees them.
pub(crate) const fn adopts<T: DocModel>() -> bool {
    T::UNVERSIONED.is_some() || !T::TYPE_ALIASES.is_empty() || T::ACCEPTS_UNTYPED
}

/// The runtime, not the step, writes the schema a step moved the document to.
fn set_schema(
    object: &mut JsonObject,
    spec: &EnvelopeSpec,
    version: &str,
) -> Result<(), MigrationError> {
    let envelope = envelope_object(object, spec.meta_name(), spec.layout()).ok_or_else(|| {
        MigrationError::new(format!(
            "the step removed the `{}` object",
            spec.meta_name()
        ))
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
