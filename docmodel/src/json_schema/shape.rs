//! How a Rust type is stored, as a JSON Schema: [`StoredShape`], its implementations for the types serde
//! writes in a known way, and the probe the derive calls, which falls back to an open schema for a type
//! without one.

use std::any::TypeId;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::marker::PhantomData;
use std::rc::Rc;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::{Presence, Timestamp};

/// How values of a type are stored in a document: the JSON Schema (draft 2020-12) of the JSON serde writes
/// for it. [`json_schema`](crate::json_schema) builds a model's schema from its fields' shapes.
///
/// docmodel gives it for the types serde writes in a known way (numbers, strings, `bool`, sequences, maps
/// with string keys, `Option`, [`Presence`], [`Timestamp`], ...), and `#[derive(Embedded)]` for a struct
/// stored inside a body. A field of a type without one (an enum of the application's, a foreign type, a field
/// written `#[serde(with = ...)]`) is left open in the schema (any JSON), which its description says; implement
/// it to close it:
///
/// ```
/// use docmodel::{Shapes, StoredShape, json};
///
/// #[derive(serde::Serialize)]
/// #[serde(rename_all = "lowercase")]
/// enum Tier { Gold, Silver }
///
/// impl StoredShape for Tier {
///     fn stored_shape(_: &mut Shapes) -> docmodel::JsonValue {
///         json!({ "enum": ["gold", "silver"] })
///     }
/// }
/// ```
pub trait StoredShape {
    /// The schema of a stored value. A struct of named fields registers itself in `shapes` and returns a
    /// reference to it ([`Shapes::define`]), so that a type that holds itself has a finite schema.
    fn stored_shape(shapes: &mut Shapes) -> Value;
}

/// The named schemas a model's schema refers to (its `$defs`): one per struct stored inside the body.
#[derive(Default)]
pub struct Shapes {
    defs: Map<String, Value>,
    /// The name each type was given, and the names taken.
    names: HashMap<TypeId, String>,
}

impl Shapes {
    /// No definitions.
    pub fn new() -> Self {
        Shapes::default()
    }

    /// The schema of `T`, through its [`StoredShape`].
    pub fn shape_of<T: StoredShape + ?Sized>(&mut self) -> Value {
        T::stored_shape(self)
    }

    /// A reference (`{"$ref": "#/$defs/<name>"}`) to the definition of `T` under `name` (another name when
    /// another type took it), built by `build` the first time: a type that holds itself refers to the
    /// definition being built.
    pub fn define<T: ?Sized + 'static>(
        &mut self,
        name: &str,
        build: impl FnOnce(&mut Shapes) -> Value,
    ) -> Value {
        let id = TypeId::of::<T>();
        if let Some(taken) = self.names.get(&id) {
            return reference(taken);
        }
        let mut unique = name.to_owned();
        let mut n = 1;
        while self.defs.contains_key(&unique) {
            n += 1;
            unique = format!("{name}{n}");
        }
        self.names.insert(id, unique.clone());
        // A placeholder, so that a second type of the same name while this one is built takes another.
        self.defs.insert(unique.clone(), Value::Bool(true));
        let schema = build(self);
        self.defs.insert(unique.clone(), schema);
        reference(&unique)
    }

    /// The definitions, to put under `$defs`.
    pub(crate) fn into_defs(self) -> Map<String, Value> {
        self.defs
    }
}

fn reference(name: &str) -> Value {
    json!({ "$ref": format!("#/$defs/{name}") })
}

/// An integer type's range as a schema says it: `minimum` and `maximum` where a double holds them exactly
/// (every type up to 32 bits, and the least value of the wider ones, a power of two), else
/// `exclusiveMaximum` at the power of two past the type's `MAX`, which a double holds where it would round
/// `MAX` itself up (`u64::MAX` reads as 2^64 in JavaScript).
macro_rules! integers {
    ($($ty:ty),*) => {$(
        impl StoredShape for $ty {
            fn stored_shape(_: &mut Shapes) -> Value {
                // A double rounds `MAX` of a type wider than 53 bits up to `end`, a power of two.
                if <$ty>::BITS > 53 {
                    let end = <$ty>::MAX as f64;
                    let minimum = i64::try_from(<$ty>::MIN).map_or_else(|_| json!(<$ty>::MIN as f64), |least| json!(least));
                    json!({ "type": "integer", "minimum": minimum, "exclusiveMaximum": end })
                } else {
                    json!({ "type": "integer", "minimum": <$ty>::MIN, "maximum": <$ty>::MAX })
                }
            }
        }
    )*};
}

integers!(
    u8, u16, u32, u64, i8, i16, i32, i64, usize, isize, u128, i128
);

macro_rules! nonzero {
    ($($ty:ty => $int:ty),*) => {$(
        impl StoredShape for $ty {
            fn stored_shape(shapes: &mut Shapes) -> Value {
                let mut shape = <$int>::stored_shape(shapes);
                if <$int>::MIN == 0 {
                    shape["minimum"] = json!(1);
                } else {
                    shape["not"] = json!({ "const": 0 });
                }
                shape
            }
        }
    )*};
}

nonzero!(
    std::num::NonZeroU8 => u8, std::num::NonZeroU16 => u16, std::num::NonZeroU32 => u32,
    std::num::NonZeroU64 => u64, std::num::NonZeroI32 => i32, std::num::NonZeroI64 => i64
);

impl StoredShape for f32 {
    fn stored_shape(_: &mut Shapes) -> Value {
        json!({ "type": "number" })
    }
}

impl StoredShape for f64 {
    fn stored_shape(_: &mut Shapes) -> Value {
        json!({ "type": "number" })
    }
}

impl StoredShape for bool {
    fn stored_shape(_: &mut Shapes) -> Value {
        json!({ "type": "boolean" })
    }
}

impl StoredShape for String {
    fn stored_shape(_: &mut Shapes) -> Value {
        json!({ "type": "string" })
    }
}

impl StoredShape for str {
    fn stored_shape(_: &mut Shapes) -> Value {
        json!({ "type": "string" })
    }
}

impl StoredShape for char {
    fn stored_shape(_: &mut Shapes) -> Value {
        json!({ "type": "string", "minLength": 1, "maxLength": 1 })
    }
}

impl StoredShape for () {
    fn stored_shape(_: &mut Shapes) -> Value {
        json!({ "type": "null" })
    }
}

impl StoredShape for Value {
    fn stored_shape(_: &mut Shapes) -> Value {
        json!({})
    }
}

impl StoredShape for Map<String, Value> {
    fn stored_shape(_: &mut Shapes) -> Value {
        json!({ "type": "object" })
    }
}

/// Written as epoch milliseconds; read from those or from an ISO-8601 string with a zone.
impl StoredShape for Timestamp {
    fn stored_shape(_: &mut Shapes) -> Value {
        json!({
            "anyOf": [
                {
                    "type": "integer",
                    "minimum": Timestamp::epoch_range(crate::TimestampFormat::EpochMs).0,
                    "maximum": Timestamp::epoch_range(crate::TimestampFormat::EpochMs).1,
                    "description": "milliseconds since the Unix epoch, in the years 0000 to 9999",
                },
                { "type": "string", "format": "date-time" },
            ]
        })
    }
}

/// Digits and lowercase letters: a head letter, the integer digits it gives, a fraction not ending with `0`
/// (exactly what `OrderKey::parse` takes).
impl StoredShape for crate::OrderKey {
    fn stored_shape(_: &mut Shapes) -> Value {
        json!({ "type": "string", "pattern": crate::order_key::json_pattern() })
    }
}

#[cfg(feature = "uuid")]
impl StoredShape for uuid::Uuid {
    fn stored_shape(_: &mut Shapes) -> Value {
        json!({ "type": "string", "format": "uuid" })
    }
}

/// `None` is written as `null`.
impl<T: StoredShape> StoredShape for Option<T> {
    fn stored_shape(shapes: &mut Shapes) -> Value {
        nullable(T::stored_shape(shapes))
    }
}

/// `Missing` is left out by the writer; `Null` is `null`; `Empty` is the type's empty value, which its own
/// schema allows.
impl<T: StoredShape> StoredShape for Presence<T> {
    fn stored_shape(shapes: &mut Shapes) -> Value {
        nullable(T::stored_shape(shapes))
    }
}

/// `shape`, or `null`.
pub(crate) fn nullable(shape: Value) -> Value {
    match shape {
        // An open schema already takes null.
        Value::Object(ref map) if map.is_empty() => shape,
        Value::Object(mut map) if map.len() == 1 && map.contains_key("type") => {
            let types = match map.remove("type") {
                Some(Value::String(one)) => json!([one, "null"]),
                Some(Value::Array(mut many)) => {
                    if !many.contains(&json!("null")) {
                        many.push(json!("null"));
                    }
                    Value::Array(many)
                }
                other => other.unwrap_or(Value::Null),
            };
            map.insert("type".into(), types);
            Value::Object(map)
        }
        other => json!({ "anyOf": [other, { "type": "null" }] }),
    }
}

macro_rules! wrappers {
    ($($ty:ident),*) => {$(
        impl<T: StoredShape + ?Sized> StoredShape for $ty<T> {
            fn stored_shape(shapes: &mut Shapes) -> Value {
                T::stored_shape(shapes)
            }
        }
    )*};
}

wrappers!(Box, Rc, Arc);

impl<T: StoredShape + ?Sized> StoredShape for &T {
    fn stored_shape(shapes: &mut Shapes) -> Value {
        T::stored_shape(shapes)
    }
}

fn array_of(items: Value) -> Value {
    json!({ "type": "array", "items": items })
}

macro_rules! sequences {
    ($($ty:ident),*) => {$(
        impl<T: StoredShape> StoredShape for $ty<T> {
            fn stored_shape(shapes: &mut Shapes) -> Value {
                array_of(T::stored_shape(shapes))
            }
        }
    )*};
}

sequences!(Vec, VecDeque, BTreeSet);

impl<T: StoredShape, S> StoredShape for HashSet<T, S> {
    fn stored_shape(shapes: &mut Shapes) -> Value {
        array_of(T::stored_shape(shapes))
    }
}

impl<T: StoredShape> StoredShape for [T] {
    fn stored_shape(shapes: &mut Shapes) -> Value {
        array_of(T::stored_shape(shapes))
    }
}

impl<T: StoredShape, const N: usize> StoredShape for [T; N] {
    fn stored_shape(shapes: &mut Shapes) -> Value {
        let mut shape = array_of(T::stored_shape(shapes));
        shape["minItems"] = json!(N);
        shape["maxItems"] = json!(N);
        shape
    }
}

/// A map is stored as an object; its keys are text (serde writes a map with integer keys with the numbers as
/// text, which an object's names are anyway).
fn object_of(values: Value) -> Value {
    json!({ "type": "object", "additionalProperties": values })
}

impl<K, V: StoredShape> StoredShape for BTreeMap<K, V> {
    fn stored_shape(shapes: &mut Shapes) -> Value {
        object_of(V::stored_shape(shapes))
    }
}

impl<K, V: StoredShape, S> StoredShape for HashMap<K, V, S> {
    fn stored_shape(shapes: &mut Shapes) -> Value {
        object_of(V::stored_shape(shapes))
    }
}

macro_rules! tuples {
    ($(($($name:ident),+)),*) => {$(
        impl<$($name: StoredShape),+> StoredShape for ($($name,)+) {
            fn stored_shape(shapes: &mut Shapes) -> Value {
                let items = vec![$($name::stored_shape(shapes)),+];
                let n = items.len();
                json!({ "type": "array", "prefixItems": items, "items": false, "minItems": n })
            }
        }
    )*};
}

tuples!((A), (A, B), (A, B, C), (A, B, C, D));

/// What the derive calls for a field's type: the type's [`StoredShape`] where it has one, an open schema
/// (any JSON) saying so where it has none. Method resolution picks the first: `(&&Probe::<T>::new())`
/// finds [`ViaShape`] on `&Probe<T>` when `T: StoredShape`, else [`Open`] on `Probe<T>`.
#[doc(hidden)]
pub struct Probe<T: ?Sized>(PhantomData<T>);

impl<T: ?Sized> Probe<T> {
    pub const fn new() -> Self {
        Probe(PhantomData)
    }
}

impl<T: ?Sized> Default for Probe<T> {
    fn default() -> Self {
        Probe::new()
    }
}

#[doc(hidden)]
pub trait ViaShape {
    fn field_shape(&self, shapes: &mut Shapes, type_name: &str) -> Value;
}

impl<T: StoredShape + ?Sized> ViaShape for &Probe<T> {
    fn field_shape(&self, shapes: &mut Shapes, _: &str) -> Value {
        T::stored_shape(shapes)
    }
}

#[doc(hidden)]
pub trait Open {
    fn field_shape(&self, shapes: &mut Shapes, type_name: &str) -> Value;
}

impl<T: ?Sized> Open for Probe<T> {
    fn field_shape(&self, _: &mut Shapes, type_name: &str) -> Value {
        open(&format!(
            "a `{type_name}`, whose stored shape docmodel does not know: implement `docmodel::StoredShape` \
             for it (or derive `Embedded`) to describe it"
        ))
    }
}

/// An open schema (any JSON), with `description` saying why.
pub(crate) fn open(description: &str) -> Value {
    json!({ "description": description })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_adds_null_to_the_type() {
        let mut shapes = Shapes::new();
        assert_eq!(
            shapes.shape_of::<Option<u8>>(),
            json!({ "anyOf": [{ "type": "integer", "minimum": 0, "maximum": 255 }, { "type": "null" }] })
        );
        assert_eq!(
            shapes.shape_of::<Option<String>>(),
            json!({ "type": ["string", "null"] })
        );
        assert_eq!(
            shapes.shape_of::<Option<Option<bool>>>(),
            json!({ "type": ["boolean", "null"] })
        );
        assert_eq!(shapes.shape_of::<Option<Value>>(), json!({}));
    }

    #[test]
    // The borrows are what pick the method, as in the derive's expansion.
    #[allow(clippy::needless_borrow)]
    fn a_type_without_a_shape_is_left_open_and_said_so() {
        struct Foreign;
        let mut shapes = Shapes::new();
        #[allow(unused_imports)]
        use super::{Open as _, ViaShape as _};
        let known = (&&Probe::<Vec<u32>>::new()).field_shape(&mut shapes, "Vec<u32>");
        assert_eq!(known["type"], "array");
        let unknown = (&&Probe::<Foreign>::new()).field_shape(&mut shapes, "Foreign");
        let description = unknown["description"].as_str().unwrap();
        assert!(
            description.starts_with("a `Foreign`, whose stored shape docmodel does not know"),
            "{description}"
        );
        assert_eq!(unknown.as_object().unwrap().len(), 1);
    }

    #[test]
    fn definitions_are_named_once_and_a_second_type_of_a_name_takes_another() {
        struct A;
        struct B;
        let mut shapes = Shapes::new();
        let first = shapes.define::<A>("Phone", |_| json!({ "type": "object" }));
        let again = shapes.define::<A>("Phone", |_| unreachable!());
        let other = shapes.define::<B>("Phone", |_| json!({ "type": "string" }));
        assert_eq!(first, json!({ "$ref": "#/$defs/Phone" }));
        assert_eq!(again, first);
        assert_eq!(other, json!({ "$ref": "#/$defs/Phone2" }));
        assert_eq!(
            Value::Object(shapes.into_defs()),
            json!({ "Phone": { "type": "object" }, "Phone2": { "type": "string" } })
        );
    }
}
