//! [`Presence`], the four states of a field (on its page), and the empty values it tells apart.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserialize, Deserializer, Visitor};
use serde::ser::{self, Serialize, Serializer};

/// A field's value and whether it is there at all: the four states a field of a JSON document can be in,
/// from the seeds' data-modeling guide.
///
/// SQL++ tells them apart (`IS VALUED`, `IS NOT VALUED`, `IS NULL`, `IS MISSING`), and so can a model:
///
/// | state | stored JSON | SQL++ |
/// |---|---|---|
/// | [`Presence::Value`] | `"geocode": "USA"` | `geocode IS VALUED` |
/// | [`Presence::Empty`] | `"geocode": ""` | `geocode IS NOT VALUED` |
/// | [`Presence::Null`] | `"geocode": null` | `geocode IS NULL` |
/// | [`Presence::Missing`] | no `geocode` field | `geocode IS MISSING` |
///
/// A plain `Option<T>` has two states and writes `None` back as `null`, so a document read with a field missing
/// gains a `null` when it is saved. A `Presence<T>` field of a model keeps all four: docmodel writes the body,
/// and its writer leaves a `Missing` field out; its reader reads an absent field as `Missing` and a `null` as
/// `Null`. No serde attribute is needed on the field:
///
/// ```
/// use docmodel::{Doc, DocModel, Presence};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, DocModel)]
/// #[docmodel(type = "country", schema = "1.0", key = "country::{code}")]
/// struct Country {
///     code: String,
///     geocode: Presence<String>,
/// }
///
/// let stored = br#"{"_type":"country","_schema":"1.0","_ver":1,"code":"US"}"#;
/// let mut doc = Doc::<Country>::from_slice(stored)?;
/// assert!(doc.geocode.is_missing());
/// assert!(!String::from_utf8(doc.to_vec()?)?.contains("geocode"));
///
/// doc.geocode = Presence::Null;
/// assert!(String::from_utf8(doc.to_vec()?)?.contains(r#""geocode":null"#));
/// doc.geocode = Presence::Empty;
/// assert!(String::from_utf8(doc.to_vec()?)?.contains(r#""geocode":"""#));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Where the four states hold
///
/// The writer leaves `Missing` out, and the reader tells `null` from absent, in the top-level fields of a
/// model's body whose type is written `Presence<...>`. Elsewhere (a struct nested in the body, a model's
/// `#[serde(flatten)]` field, `serde_json::to_string` of the body on its own) serde alone is at work:
///
/// - writing `Missing` there is an error that says so, rather than a silent `null`; add
///   `#[serde(default, skip_serializing_if = "Presence::is_missing")]` to such a field;
/// - reading a `null` there gives `Missing`, since serde's JSON reader does not tell the two apart for a
///   type read as an option.
///
/// # Empty values
///
/// `Empty` is the type's empty value (`""`, `[]`, `{}`), which the seed's guide counts as a state of its own
/// (`IS NOT VALUED`); a value read as empty is `Empty`, never `Value`. The type parameter must be one that has
/// an empty value: [`EmptyValue`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum Presence<T> {
    /// The field holds a value that is not empty.
    Value(T),
    /// The field holds the type's empty value: `""`, `[]` or `{}`.
    Empty,
    /// The field is `null`.
    Null,
    /// The field is not in the document.
    #[default]
    Missing,
}

impl<T> Presence<T> {
    /// Whether the field holds a value that is not empty (`IS VALUED`).
    pub fn is_value(&self) -> bool {
        matches!(self, Presence::Value(_))
    }

    /// Whether the field holds its type's empty value.
    pub fn is_empty(&self) -> bool {
        matches!(self, Presence::Empty)
    }

    /// Whether the field is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Presence::Null)
    }

    /// Whether the field is not in the document (`IS MISSING`): the test for
    /// `#[serde(skip_serializing_if = "Presence::is_missing")]`.
    pub fn is_missing(&self) -> bool {
        matches!(self, Presence::Missing)
    }

    /// The value, when the field holds one that is not empty.
    pub fn value(&self) -> Option<&T> {
        match self {
            Presence::Value(value) => Some(value),
            _ => None,
        }
    }

    /// The value, when the field holds one that is not empty.
    pub fn into_value(self) -> Option<T> {
        match self {
            Presence::Value(value) => Some(value),
            _ => None,
        }
    }
}

impl<T: EmptyValue> Presence<T> {
    /// `Value(value)`, or `Empty` when `value` is its type's empty value: the state a stored `value` reads as.
    pub fn of(value: T) -> Self {
        if value.is_empty_value() {
            Presence::Empty
        } else {
            Presence::Value(value)
        }
    }
}

impl<T: EmptyValue> From<T> for Presence<T> {
    /// [`Presence::of`].
    fn from(value: T) -> Self {
        Presence::of(value)
    }
}

/// A type with an empty value, stored as `""`, `[]` or `{}`: what [`Presence::Empty`] writes.
///
/// Implemented for strings, sequences, sets and maps; implement it for a type of your own whose JSON can be
/// empty.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no empty value (`\"\"`, `[]` or `{{}}`), so it cannot be in a `Presence`",
    label = "the value of this `Presence`",
    note = "`Presence<T>` keeps an empty state, which strings, sequences, sets and maps have; for a type \
            without one, an `Option<T>` keeps a value, null (`None`) and, with `#[docmodel(skip_empty)]`, missing"
)]
pub trait EmptyValue: Sized {
    /// The empty value.
    fn empty_value() -> Self;

    /// Whether `self` is the empty value.
    fn is_empty_value(&self) -> bool;
}

macro_rules! empty_values {
    ($(<$($param:ident),*> $ty:ty;)*) => {$(
        impl<$($param),*> EmptyValue for $ty {
            fn empty_value() -> Self {
                Default::default()
            }

            fn is_empty_value(&self) -> bool {
                self.is_empty()
            }
        }
    )*};
}

empty_values! {
    <> String;
    <> Box<str>;
    <> Cow<'static, str>;
    <T> Vec<T>;
    <T> VecDeque<T>;
    <T> BTreeSet<T>;
    <T> HashSet<T>;
    <K, V> BTreeMap<K, V>;
    <K, V> HashMap<K, V>;
    <> serde_json::Map<String, serde_json::Value>;
}

/// The name `Missing` is written under: docmodel's writer recognises it and leaves the field out; any other
/// serializer writes its content, which fails with [`MISSING_OUTSIDE`].
pub(crate) const MISSING: &str = "docmodel::Presence::Missing";

/// Why `Missing` could not be written.
const MISSING_OUTSIDE: &str = "`Presence::Missing` is left out of a document only in a top-level field of a \
    model's body; here, add `#[serde(default, skip_serializing_if = \"Presence::is_missing\")]` to the field";

impl<T: Serialize + EmptyValue> Serialize for Presence<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Presence::Value(value) => value.serialize(serializer),
            Presence::Empty => T::empty_value().serialize(serializer),
            Presence::Null => serializer.serialize_none(),
            Presence::Missing => serializer.serialize_newtype_struct(MISSING, &MissingOutside),
        }
    }
}

/// What `Missing` holds: a value no serializer can write.
struct MissingOutside;

impl Serialize for MissingOutside {
    fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(ser::Error::custom(MISSING_OUTSIDE))
    }
}

impl<'de, T: Deserialize<'de> + EmptyValue> Deserialize<'de> for Presence<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // A field serde never saw is read through `visit_none`; docmodel's reader gives a `null` it saw as
        // `visit_unit`.
        deserializer.deserialize_option(PresenceVisitor(PhantomData))
    }
}

struct PresenceVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de> + EmptyValue> Visitor<'de> for PresenceVisitor<T> {
    type Value = Presence<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value, an empty value or null")
    }

    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Presence::Missing)
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Presence::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        T::deserialize(deserializer).map(Presence::of)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_a_model_null_reads_as_missing_and_missing_cannot_be_written() {
        #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
        struct Nested {
            #[serde(default)]
            geocode: Presence<String>,
        }
        let read = |json| serde_json::from_str::<Nested>(json).unwrap().geocode;
        assert_eq!(read(r#"{"geocode":"USA"}"#), Presence::Value("USA".into()));
        assert_eq!(read(r#"{"geocode":""}"#), Presence::Empty);
        assert_eq!(read(r#"{"geocode":null}"#), Presence::Missing);
        assert_eq!(read(r#"{}"#), Presence::Missing);

        let err = serde_json::to_string(&Nested {
            geocode: Presence::Missing,
        })
        .unwrap_err();
        assert_eq!(err.to_string(), MISSING_OUTSIDE);
        assert_eq!(
            serde_json::to_string(&Nested {
                geocode: Presence::Empty
            })
            .unwrap(),
            r#"{"geocode":""}"#
        );
        assert_eq!(
            serde_json::to_string(&Presence::<Vec<u8>>::Null).unwrap(),
            "null"
        );
    }

    #[test]
    fn an_empty_value_is_empty_not_a_value() {
        assert_eq!(Presence::of(Vec::<u8>::new()), Presence::Empty);
        assert_eq!(Presence::from("x".to_owned()), Presence::Value("x".into()));
        assert_eq!(
            serde_json::from_str::<Presence<BTreeMap<String, u8>>>("{}").unwrap(),
            Presence::Empty
        );
    }
}
