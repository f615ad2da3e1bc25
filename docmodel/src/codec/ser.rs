//! Writing a document in one pass: envelope fields, then the body's own fields, then the fields this code
//! did not know, all into one JSON object.

use serde::ser::{self, Impossible, Serialize, SerializeMap, SerializeStruct, Serializer};

use crate::envelope::{Envelope, EnvelopeField, EnvelopeSpec, Layout};
use crate::{Timestamp, TimestampFormat};

use super::de::Unknown;

/// A document as it is stored.
pub(crate) struct DocWriter<'a, T: ?Sized> {
    pub(crate) spec: &'a EnvelopeSpec,
    pub(crate) type_name: &'static str,
    pub(crate) schema: &'a str,
    pub(crate) envelope: &'a Envelope,
    pub(crate) body: &'a T,
    pub(crate) unknown: &'a Unknown,
    pub(crate) meta_unknown: &'a Unknown,
}

impl<T: Serialize + ?Sized> Serialize for DocWriter<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if self.spec.layout() == Layout::Meta {
            map.serialize_entry(self.spec.meta_name(), &MetaWriter(self))?;
        } else {
            self.write_envelope(&mut map)?;
        }
        self.body.serialize(Flatten(&mut map))?;
        for (name, value) in self.unknown {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

impl<T: ?Sized> DocWriter<'_, T> {
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
                EnvelopeField::Type => map.serialize_entry(name, self.type_name)?,
                EnvelopeField::Schema => map.serialize_entry(name, self.schema)?,
                EnvelopeField::Ver => map.serialize_entry(name, &envelope.ver)?,
                EnvelopeField::Created => write_time(map, name, envelope.created, format)?,
                EnvelopeField::Modified => write_time(map, name, envelope.modified, format)?,
                EnvelopeField::Accessed => write_time(map, name, envelope.accessed, format)?,
                EnvelopeField::CreatedBy => write_some(map, name, &envelope.created_by)?,
                EnvelopeField::ModifiedBy => write_some(map, name, &envelope.modified_by)?,
                EnvelopeField::Geo => write_some(map, name, &envelope.geo)?,
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
    match time.to_epoch(format) {
        Some(count) => map.serialize_entry(name, &count),
        None if time.fits_iso8601() => map.serialize_entry(name, &DisplayStr(time)),
        None => Err(ser::Error::custom(format_args!(
            "`{name}` = {} ms since the epoch is outside the years ISO-8601 can write (0000 to 9999)",
            time.as_millis()
        ))),
    }
}

struct DisplayStr(Timestamp);

impl Serialize for DisplayStr {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0)
    }
}

struct MetaWriter<'w, 'a, T: ?Sized>(&'w DocWriter<'a, T>);

impl<T: ?Sized> Serialize for MetaWriter<'_, '_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        self.0.write_envelope(&mut map)?;
        for (name, value) in self.0.meta_unknown {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

/// Serializes a struct or map body into an object that is already open.
struct Flatten<'m, M>(&'m mut M);

const NOT_AN_OBJECT: &str =
    "a document body must serialize as a JSON object (a struct with named fields, or a map)";

macro_rules! refuse {
    ($($method:ident($($ty:ty),*))*) => {$(
        fn $method(self, $(_: $ty),*) -> Result<(), M::Error> {
            Err(ser::Error::custom(NOT_AN_OBJECT))
        }
    )*};
}

impl<'m, M: SerializeMap> Serializer for Flatten<'m, M> {
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

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), M::Error> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), M::Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
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

impl<M: SerializeMap> SerializeStruct for Flatten<'_, M> {
    type Ok = ();
    type Error = M::Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        value: &T,
    ) -> Result<(), M::Error> {
        self.0.serialize_entry(name, value)
    }

    fn end(self) -> Result<(), M::Error> {
        Ok(())
    }
}

impl<M: SerializeMap> SerializeMap for Flatten<'_, M> {
    type Ok = ();
    type Error = M::Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), M::Error> {
        self.0.serialize_key(key)
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), M::Error> {
        self.0.serialize_value(value)
    }

    fn end(self) -> Result<(), M::Error> {
        Ok(())
    }
}
