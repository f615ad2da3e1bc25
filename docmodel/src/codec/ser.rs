//! Writing a document in one pass: envelope fields, then the body's own fields, then the fields this code
//! did not know, all into one JSON object.

use std::cell::Cell;
use std::io;

use serde::ser::{self, Impossible, Serialize, SerializeMap, SerializeStruct, Serializer};

use crate::__private::Omit;
use crate::envelope::{Envelope, EnvelopeField, EnvelopeSpec, Layout};
use crate::presence::MISSING;
use crate::{Timestamp, TimestampFormat};

use super::de::Unknown;

/// serde_json's compact output, counting how deep it nests as it is written (the outermost value is 1): a
/// repository holds what it writes to its depth limit without a second pass over the bytes. A kept unknown
/// field's raw text nests as deep as was found when it was read ([`DocWriter::kept_depth`] says so just
/// before it is written); any other raw text (a body's `RawValue`) is counted by reading it.
#[derive(Debug, Default)]
pub(crate) struct Nesting<'k> {
    depth: usize,
    deepest: usize,
    /// The [`DocWriter::kept_depth`] of the document written.
    kept: Option<&'k Cell<Option<usize>>>,
}

impl<'k> Nesting<'k> {
    /// Counts the depth of a document written by `writer`, taking the depth of its kept fields from it.
    pub(crate) fn of<T>(writer: &'k DocWriter<'_, T>) -> Self {
        Nesting {
            depth: 0,
            deepest: 0,
            kept: Some(&writer.kept_depth),
        }
    }

    /// How deep the text written so far nests.
    pub(crate) fn deepest(&self) -> usize {
        self.deepest
    }

    fn open(&mut self) {
        self.depth += 1;
        self.deepest = self.deepest.max(self.depth);
    }
}

// The compact formatter's output byte for byte (`serde_json::ser::CompactFormatter` is the trait's defaults).
impl serde_json::ser::Formatter for &mut Nesting<'_> {
    fn begin_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.open();
        writer.write_all(b"[")
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.depth -= 1;
        writer.write_all(b"]")
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.open();
        writer.write_all(b"{")
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.depth -= 1;
        writer.write_all(b"}")
    }

    fn write_raw_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let inner = match self.kept.and_then(Cell::take) {
            Some(known) => known,
            None => super::limits::depth_of(fragment.as_bytes()),
        };
        self.deepest = self.deepest.max(self.depth + inner);
        writer.write_all(fragment.as_bytes())
    }
}

/// A document as it is stored.
pub(crate) struct DocWriter<'a, T> {
    pub(crate) spec: &'a EnvelopeSpec,
    pub(crate) type_name: &'static str,
    pub(crate) schema: &'a str,
    pub(crate) envelope: &'a Envelope,
    pub(crate) body: &'a T,
    /// The body fields that may be left out ([`DocModel::OMIT`](crate::DocModel::OMIT)).
    pub(crate) omit: &'a [Omit<T>],
    pub(crate) unknown: &'a Unknown,
    pub(crate) meta_unknown: &'a Unknown,
    /// How deep the raw value written next nests, set just before a kept unknown field's value is written
    /// (the depth found when it was read) and taken by [`Nesting`]; `None` otherwise.
    pub(crate) kept_depth: Cell<Option<usize>>,
    /// The top-level kept fields are left out, for the caller to append to the bytes written (the compact
    /// writer, [`encode`](super::encode), where the document's object is the whole document).
    pub(crate) unknown_appended: bool,
}

impl<T: Serialize> Serialize for DocWriter<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.spec.layout() == Layout::Root {
            // One attribute, named by the type, holding the document's object.
            let mut map = serializer.serialize_map(Some(1))?;
            map.serialize_entry(self.type_name, &ObjectWriter(self))?;
            return map.end();
        }
        ObjectWriter(self).serialize(serializer)
    }
}

/// The document's object: the whole document, or in the `root` layout its root attribute's value.
struct ObjectWriter<'w, 'a, T>(&'w DocWriter<'a, T>);

impl<T: Serialize> Serialize for ObjectWriter<'_, '_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let doc = self.0;
        let mut map = serializer.serialize_map(None)?;
        if doc.spec.layout() == Layout::Meta {
            map.serialize_entry(doc.spec.meta_name(), &MetaWriter(doc))?;
        } else {
            doc.write_envelope(&mut map)?;
        }
        doc.body.serialize(Flatten {
            map: &mut map,
            omit: doc.omit,
            body: doc.body,
        })?;
        if !doc.unknown_appended {
            doc.write_kept(&mut map, doc.unknown)?;
        }
        map.end()
    }
}

impl<T> DocWriter<'_, T> {
    /// Writes the fields of `kept` into `map`, each value as its raw text, telling [`Nesting`] how deep the
    /// values nest (all of them are as deep as the deepest: they are written at the same level).
    fn write_kept<M: SerializeMap>(&self, map: &mut M, kept: &Unknown) -> Result<(), M::Error> {
        for (name, value) in kept.iter() {
            self.kept_depth.set(Some(kept.deepest()));
            map.serialize_entry(name, value)?;
        }
        // Not taken by another formatter than `Nesting` (the pretty one).
        self.kept_depth.set(None);
        Ok(())
    }

    fn write_envelope<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        let spec = self.spec;
        let envelope = self.envelope;
        let format = spec.timestamps();
        for field in EnvelopeField::ALL {
            if !spec.keeps(field) {
                continue;
            }
            let name = spec.name(field);
            match field {
                // The root layout's type is the name of its root attribute.
                EnvelopeField::Type if spec.layout() == Layout::Root => {}
                EnvelopeField::Type => map.serialize_entry(name, self.type_name)?,
                EnvelopeField::Schema => map.serialize_entry(name, self.schema)?,
                EnvelopeField::Ver => map.serialize_entry(name, &envelope.ver)?,
                EnvelopeField::Created => write_time(map, name, envelope.created, format)?,
                EnvelopeField::Modified => write_time(map, name, envelope.modified, format)?,
                EnvelopeField::Accessed => write_time(map, name, envelope.accessed, format)?,
                EnvelopeField::CreatedBy => write_some(map, name, &envelope.created_by)?,
                EnvelopeField::ModifiedBy => write_some(map, name, &envelope.modified_by)?,
                EnvelopeField::Geo => write_some(map, name, &envelope.geo)?,
                // A revision copy is marked as it is kept (`codec::marked`), never through here: a document
                // carries it only where it was read with one (another program's), and keeps it.
                EnvelopeField::CopyOf => write_some(map, name, &envelope.copy_of)?,
                // A copy's record is written with the copy (`codec::marked`) and read from its bytes where a
                // merge asks (`codec::peek_copy_next`); a document never carries it.
                EnvelopeField::CopyNext => {}
            }
        }
        Ok(())
    }
}

/// The seeds' advice: a missing value is not stored as `null`.
fn write_some<M: SerializeMap>(
    map: &mut M,
    name: &str,
    value: &Option<String>,
) -> Result<(), M::Error> {
    match value {
        Some(value) => map.serialize_entry(name, value),
        None => Ok(()),
    }
}

fn write_time<M: SerializeMap>(
    map: &mut M,
    name: &str,
    time: Option<Timestamp>,
    format: TimestampFormat,
) -> Result<(), M::Error> {
    let Some(time) = time else { return Ok(()) };
    // The reader takes the years 0000 to 9999 in every format: what it would refuse is not written.
    if !time.fits_iso8601() {
        return Err(ser::Error::custom(format_args!(
            "`{name}` = {} ms since the epoch is outside the years the envelope reads (0000 to 9999)",
            time.as_millis()
        )));
    }
    match time.to_epoch(format) {
        Some(count) => map.serialize_entry(name, &count),
        None => map.serialize_entry(name, &DisplayStr(time)),
    }
}

struct DisplayStr(Timestamp);

impl Serialize for DisplayStr {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0)
    }
}

struct MetaWriter<'w, 'a, T>(&'w DocWriter<'a, T>);

impl<T> Serialize for MetaWriter<'_, '_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        self.0.write_envelope(&mut map)?;
        self.0.write_kept(&mut map, self.0.meta_unknown)?;
        map.end()
    }
}

/// Serializes a struct or map body into an object that is already open, leaving out the fields `omit` lists
/// when their rule says so.
struct Flatten<'m, M, T> {
    map: &'m mut M,
    omit: &'m [Omit<T>],
    body: &'m T,
}

impl<M, T> Flatten<'_, M, T> {
    /// Whether the field written under `name` with `value` is left out.
    fn omits<V: Serialize + ?Sized>(&self, name: &str, value: &V) -> bool {
        let Some(rule) = self.omit.iter().find(|rule| rule.name == name) else {
            return false;
        };
        rule.default.is_some_and(|is_default| is_default(self.body))
            || match probe(value) {
                Probed::Missing => true,
                Probed::Empty => rule.empty,
                Probed::Other => false,
            }
    }
}

const NOT_AN_OBJECT: &str =
    "a document body must serialize as a JSON object (a struct with named fields, or a map)";

macro_rules! refuse {
    ($($method:ident($($ty:ty),*))*) => {$(
        fn $method(self, $(_: $ty),*) -> Result<(), M::Error> {
            Err(ser::Error::custom(NOT_AN_OBJECT))
        }
    )*};
}

impl<'m, M: SerializeMap, T> Serializer for Flatten<'m, M, T> {
    type Ok = ();
    type Error = M::Error;
    type SerializeSeq = Impossible<(), M::Error>;
    type SerializeTuple = Impossible<(), M::Error>;
    type SerializeTupleStruct = Impossible<(), M::Error>;
    type SerializeTupleVariant = Impossible<(), M::Error>;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), M::Error>;

    refuse! {
        serialize_bool(bool) serialize_i8(i8) serialize_i16(i16) serialize_i32(i32) serialize_i64(i64)
        serialize_u8(u8) serialize_u16(u16) serialize_u32(u32) serialize_u64(u64) serialize_f32(f32)
        serialize_f64(f64) serialize_char(char) serialize_str(&str) serialize_bytes(&[u8]) serialize_none()
        serialize_unit() serialize_unit_struct(&'static str)
        serialize_unit_variant(&'static str, u32, &'static str)
    }

    fn serialize_some<V: Serialize + ?Sized>(self, value: &V) -> Result<(), M::Error> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<V: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &V,
    ) -> Result<(), M::Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<V: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &V,
    ) -> Result<(), M::Error> {
        Err(ser::Error::custom(NOT_AN_OBJECT))
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, M::Error> {
        Err(ser::Error::custom(NOT_AN_OBJECT))
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, M::Error> {
        Err(ser::Error::custom(NOT_AN_OBJECT))
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, M::Error> {
        Err(ser::Error::custom(NOT_AN_OBJECT))
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, M::Error> {
        Err(ser::Error::custom(NOT_AN_OBJECT))
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self, M::Error> {
        Ok(self)
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, M::Error> {
        Ok(self)
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, M::Error> {
        Err(ser::Error::custom(NOT_AN_OBJECT))
    }
}

impl<M: SerializeMap, T> SerializeStruct for Flatten<'_, M, T> {
    type Ok = ();
    type Error = M::Error;

    fn serialize_field<V: Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        value: &V,
    ) -> Result<(), M::Error> {
        if !self.omit.is_empty() && self.omits(name, value) {
            return Ok(());
        }
        self.map.serialize_entry(name, value)
    }

    fn end(self) -> Result<(), M::Error> {
        Ok(())
    }
}

impl<M: SerializeMap, T> SerializeMap for Flatten<'_, M, T> {
    type Ok = ();
    type Error = M::Error;

    fn serialize_key<K: Serialize + ?Sized>(&mut self, key: &K) -> Result<(), M::Error> {
        self.map.serialize_key(key)
    }

    fn serialize_value<V: Serialize + ?Sized>(&mut self, value: &V) -> Result<(), M::Error> {
        self.map.serialize_value(value)
    }

    fn end(self) -> Result<(), M::Error> {
        Ok(())
    }
}

/// What a value's JSON begins with, as far as leaving it out goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Probed {
    /// `Presence::Missing`.
    Missing,
    /// `null`, `""`, `[]` or `{}`.
    Empty,
    /// Anything else.
    Other,
}

/// What `value` would be written as, found from the serializer's first call (no JSON is written).
fn probe<V: Serialize + ?Sized>(value: &V) -> Probed {
    match value.serialize(Probe) {
        Ok(probed) | Err(Stop(probed)) => probed,
    }
}

/// A serializer that stops at its first call: a sequence, map or struct answers by the error.
struct Probe;

/// The answer of a [`Probe`] that had to stop with an error.
#[derive(Debug)]
struct Stop(Probed);

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl std::error::Error for Stop {}

impl ser::Error for Stop {
    fn custom<E: std::fmt::Display>(_: E) -> Self {
        Stop(Probed::Other)
    }
}

macro_rules! probe_as {
    ($probed:expr => $($method:ident($($ty:ty),*))*) => {$(
        fn $method(self, $(_: $ty),*) -> Result<Probed, Stop> {
            Ok($probed)
        }
    )*};
}

/// `Empty` when a container is written with no items, else `Other`; either way the probe stops.
fn stop_at<C>(len: Option<usize>) -> Result<C, Stop> {
    Err(Stop(if len == Some(0) {
        Probed::Empty
    } else {
        Probed::Other
    }))
}

impl Serializer for Probe {
    type Ok = Probed;
    type Error = Stop;
    type SerializeSeq = Impossible<Probed, Stop>;
    type SerializeTuple = Impossible<Probed, Stop>;
    type SerializeTupleStruct = Impossible<Probed, Stop>;
    type SerializeTupleVariant = Impossible<Probed, Stop>;
    type SerializeMap = Impossible<Probed, Stop>;
    type SerializeStruct = Impossible<Probed, Stop>;
    type SerializeStructVariant = Impossible<Probed, Stop>;

    probe_as! { Probed::Other =>
        serialize_bool(bool) serialize_i8(i8) serialize_i16(i16) serialize_i32(i32) serialize_i64(i64)
        serialize_u8(u8) serialize_u16(u16) serialize_u32(u32) serialize_u64(u64) serialize_f32(f32)
        serialize_f64(f64) serialize_char(char) serialize_bytes(&[u8])
        serialize_unit_variant(&'static str, u32, &'static str)
    }

    probe_as! { Probed::Empty => serialize_none() serialize_unit() serialize_unit_struct(&'static str) }

    fn serialize_str(self, text: &str) -> Result<Probed, Stop> {
        Ok(if text.is_empty() {
            Probed::Empty
        } else {
            Probed::Other
        })
    }

    fn serialize_some<V: Serialize + ?Sized>(self, value: &V) -> Result<Probed, Stop> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<V: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &V,
    ) -> Result<Probed, Stop> {
        if name == MISSING {
            return Ok(Probed::Missing);
        }
        value.serialize(self)
    }

    fn serialize_newtype_variant<V: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &V,
    ) -> Result<Probed, Stop> {
        Ok(Probed::Other)
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, Stop> {
        stop_at(len)
    }

    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, Stop> {
        stop_at(Some(len))
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct, Stop> {
        stop_at(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Stop> {
        stop_at(None)
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, Stop> {
        stop_at(len)
    }

    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Self::SerializeStruct, Stop> {
        stop_at(Some(len))
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Stop> {
        stop_at(None)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::Presence;

    #[test]
    fn the_probe_tells_empty_values_from_others() {
        assert_eq!(probe(&None::<u8>), Probed::Empty);
        assert_eq!(probe(&()), Probed::Empty);
        assert_eq!(probe(""), Probed::Empty);
        assert_eq!(probe(&Some(String::new())), Probed::Empty);
        assert_eq!(probe(&Vec::<u8>::new()), Probed::Empty);
        assert_eq!(probe(&BTreeMap::<String, u8>::new()), Probed::Empty);
        assert_eq!(probe(&serde_json::json!({})), Probed::Empty);
        assert_eq!(probe(&serde_json::json!([])), Probed::Empty);
        assert_eq!(probe(&serde_json::Value::Null), Probed::Empty);
        assert_eq!(probe(&Presence::<String>::Missing), Probed::Missing);
        assert_eq!(probe(&Presence::<String>::Null), Probed::Empty);
        assert_eq!(probe(&Presence::<String>::Empty), Probed::Empty);

        assert_eq!(probe(&0u8), Probed::Other);
        assert_eq!(probe(&false), Probed::Other);
        assert_eq!(probe(" "), Probed::Other);
        assert_eq!(probe(&vec![0u8]), Probed::Other);
        assert_eq!(probe(&serde_json::json!({"a": null})), Probed::Other);
        assert_eq!(probe(&Presence::Value("x".to_owned())), Probed::Other);
    }
}
