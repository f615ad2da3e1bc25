//! The strict JSON parser of the migration path: a stored document parsed whole into a [`JsonObject`] for the
//! JSON steps, refusing a field name given twice in any object, and keeping the stored text of each top-level
//! number that a [`JsonValue`] would not hold as written (a number beyond 64 bits, a fraction an `f64`
//! rounds), so that a value no step changed reads back as it was stored.
//!
//! The one-pass reader never builds a [`JsonObject`]; this parser is what a caller uses when it needs the
//! whole document as a value. Its rules are the ones [`limits`](super::limits) holds the one-pass reader's
//! kept fields to.

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt;

use serde_json::value::RawValue;

use crate::Error;

/// A stored document as a JSON step sees it: the whole object, envelope included. It is serde_json's
/// `Map<String, Value>`, which docmodel re-exports as [`JsonMap`] and [`JsonValue`]: a program needs no
/// dependency line of its own, and the compiler's messages name the type `JsonMap<String, JsonValue>`.
pub type JsonObject = JsonMap<String, JsonValue>;

// Re-exports, not aliases: the compiler names a type by a path it can reach, and without these the only one
// is the hidden `__private::serde_json`.
/// The map a [`JsonObject`] is.
#[doc(no_inline)]
pub use serde_json::Map as JsonMap;
/// A JSON value, as a [`JsonObject`] holds it: what a JSON step reads and writes. [`json!`](crate::json)
/// builds one from JSON text.
#[doc(no_inline)]
pub use serde_json::Value as JsonValue;

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
    let text = super::utf8(bytes).map_err(Error::codec)?;
    let mut json = serde_json::Deserializer::from_str(text);
    let object = json
        .deserialize_map(Top {
            fractions: &mut fractions,
        })
        .and_then(|object| json.end().map(|()| object))
        .map_err(Error::codec)?;
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
