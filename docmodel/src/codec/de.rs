//! Reading a stored document in one pass: the envelope fields are picked off the body's map as serde_json
//! hands them over, and fields the body ignores are kept as raw JSON.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::value::{BorrowedStrDeserializer, MapDeserializer, StrDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::values::{CopyNextVisitor, CopyOfVisitor, TextVisitor, VerVisitor, read_timestamp};
use crate::envelope::{Envelope, EnvelopeField, EnvelopeName, EnvelopeSpec, Layout};
use crate::{DocModel, SchemaVersion, SchemaVersionError};

pub(crate) use super::unknown::Unknown;

/// What a reader is told about the model whose documents it reads.
#[derive(Clone, Copy)]
pub(crate) struct Expect<'s> {
    pub(crate) spec: &'s EnvelopeSpec,
    pub(crate) type_name: &'static str,
    /// Other spellings of the type, read as the model's.
    pub(crate) type_aliases: &'static [&'static str],
    /// Names the body writes but does not read, which are never kept as unknown: a name the body reads
    /// never reaches the capture, so only these need telling apart.
    pub(crate) written_not_read: &'static [&'static str],
    /// The model's current schema.
    pub(crate) current: SchemaVersion,
    /// `current` as the model writes it: the text nearly every document carries, read without parsing.
    pub(crate) current_text: &'static str,
    /// What to do at a document's schema version.
    pub(crate) at_schema: fn(SchemaVersion) -> AtSchema,
    /// Whether fields the body ignores are kept (not when only the envelope is wanted).
    pub(crate) capture_unknown: bool,
}

/// What a reader does at a document's schema version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AtSchema {
    /// Read the document as the current model.
    Read,
    /// Stop: the body is not the current model's, and the migration chain reads it.
    Stop,
    /// Read on, but the model reads no document of this schema: the body is read only to name its key.
    Refuse,
}

/// What a reader saw of a document's envelope, and the fields the body did not take.
#[derive(Default)]
pub(crate) struct Seen {
    pub(crate) type_name: TypeSeen,
    /// The schema version read, or why its text is not one.
    pub(crate) schema: Option<Result<SchemaVersion, SchemaVersionError>>,
    /// The schema that stopped the reading ([`AtSchema::Stop`]).
    pub(crate) stopped: Option<SchemaVersion>,
    /// A schema the model reads no document of ([`AtSchema::Refuse`]).
    pub(crate) refused: Option<SchemaVersion>,
    /// The schema text of a document a newer minor version wrote, to write back as it was.
    pub(crate) newer_schema: Option<String>,
    pub(crate) envelope: Envelope,
    pub(crate) unknown: Unknown,
    pub(crate) meta_unknown: Unknown,
    /// The envelope fields read so far (by `EnvelopeField` index), and the meta object: a repeat is refused.
    fields: u16,
    /// Whether a field was read under its legacy name ([`EnvelopeSpec::with_legacy_name`]).
    ///
    /// [`EnvelopeSpec::with_legacy_name`]: crate::EnvelopeSpec::with_legacy_name
    pub(crate) legacy: bool,
}

impl Seen {
    /// Whether the document had the envelope field `field`.
    pub(crate) fn saw(&self, field: EnvelopeField) -> bool {
        self.fields & (1 << (field as u16)) != 0
    }

    /// Records that an envelope field was read; a second one is an error, as serde_derive makes it for
    /// body fields, since readers that keep the first and readers that keep the last would disagree.
    /// `duplicate` builds the error, off the path of a document that reads.
    #[inline]
    fn mark<E: de::Error>(&mut self, bit: u16, duplicate: impl FnOnce() -> E) -> Result<(), E> {
        if self.fields & bit != 0 {
            return Err(duplicate());
        }
        self.fields |= bit;
        Ok(())
    }
}

/// The error of envelope field `field` read twice: under its name, or its legacy name, or both.
#[cold]
#[inline(never)]
fn duplicate_field<E: de::Error>(spec: &EnvelopeSpec, field: EnvelopeField) -> E {
    let name = spec.name(field);
    match spec.legacy_name(field) {
        Some(legacy) => E::custom(format_args!(
            "duplicate field `{name}`: the document holds it under `{name}` or its legacy name `{legacy}` \
             twice, or under both"
        )),
        None => E::custom(format_args!("duplicate field `{name}`")),
    }
}

/// The error of a name read twice.
#[cold]
#[inline(never)]
fn duplicate_name<E: de::Error>(name: &str) -> E {
    E::custom(format_args!("duplicate field `{name}`"))
}

const META_SEEN: u16 = 1 << 15;

#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) enum TypeSeen {
    #[default]
    Absent,
    Expected,
    /// One of the model's other spellings of its type.
    Alias(String),
    Other(String),
}

/// Reads the envelope of a document while its body deserializes through [`EnvelopeReader::read`].
pub(crate) struct EnvelopeReader<'s> {
    expect: Expect<'s>,
    pub(crate) seen: Seen,
    /// Through [`EnvelopeReader::read_noting`], the body field whose value failed to read, if one did:
    /// noted only then, from the name the reader holds anyway.
    pub(crate) failed_field: Option<String>,
}

impl<'s> EnvelopeReader<'s> {
    pub(crate) fn new(expect: Expect<'s>) -> Self {
        EnvelopeReader {
            expect,
            seen: Seen::default(),
            failed_field: None,
        }
    }

    /// Reads `B` from `inner`, a deserializer of a whole document of model `M`, taking the envelope's fields
    /// as they pass: the body, or (`IgnoredAny`) the envelope alone.
    pub(crate) fn read<'de, M: DocModel, B: Deserialize<'de>, D: Deserializer<'de>>(
        &mut self,
        inner: D,
    ) -> Result<B, D::Error> {
        self.read_with::<M, B, D, false>(inner)
    }

    /// [`EnvelopeReader::read`], noting the body field whose value fails to read in
    /// [`EnvelopeReader::failed_field`]: for a reader of a `serde_json::Value`, which has no text to find it
    /// in. (A reader of bytes finds it in the text afterwards: its code notes nothing.)
    pub(crate) fn read_noting<'de, M: DocModel, B: Deserialize<'de>, D: Deserializer<'de>>(
        &mut self,
        inner: D,
    ) -> Result<B, D::Error> {
        self.read_with::<M, B, D, true>(inner)
    }

    fn read_with<'de, M: DocModel, B: Deserialize<'de>, D: Deserializer<'de>, const NOTE: bool>(
        &mut self,
        inner: D,
    ) -> Result<B, D::Error> {
        // A constant: a model compiles the reader of its own layout only.
        if const { matches!(M::ENVELOPE.layout(), Layout::Root) } {
            B::deserialize(DocDeserializer::<D, NOTE, true> {
                inner,
                reader: self,
            })
        } else {
            B::deserialize(DocDeserializer::<D, NOTE, false> {
                inner,
                reader: self,
            })
        }
    }
}

/// The document's deserializer, of a document of the `root` layout with `ROOT`; with `NOTE`, it notes the
/// body field whose value fails to read.
struct DocDeserializer<'r, 's, D, const NOTE: bool, const ROOT: bool> {
    inner: D,
    reader: &'r mut EnvelopeReader<'s>,
}

impl<'de, D: Deserializer<'de>, const NOTE: bool, const ROOT: bool> Deserializer<'de>
    for DocDeserializer<'_, '_, D, NOTE, ROOT>
{
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        if ROOT {
            return self.inner.deserialize_map(RootVisitor::<V, NOTE> {
                visitor,
                reader: self.reader,
            });
        }
        self.inner.deserialize_map(ObjectVisitor::<V, NOTE> {
            visitor,
            reader: self.reader,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// A document of the `root` layout: one top-level attribute, named by the type, whose object holds the
/// envelope and the body, read as any document's object is.
struct RootVisitor<'r, 's, V, const NOTE: bool> {
    visitor: V,
    reader: &'r mut EnvelopeReader<'s>,
}

impl<'de, V: Visitor<'de>, const NOTE: bool> Visitor<'de> for RootVisitor<'_, '_, V, NOTE> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a JSON object holding one attribute, `{}`, whose object is the document",
            self.reader.expect.type_name
        )
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<V::Value, A::Error> {
        let no_body = || MapDeserializer::<_, A::Error>::new(std::iter::empty::<((), ())>());
        let Some(name) = map.next_key_seed(Name)? else {
            // No root attribute: no type, and no body.
            return self.visitor.visit_map(no_body());
        };
        let Expect {
            spec,
            type_name,
            type_aliases,
            ..
        } = self.reader.expect;
        let seen = &mut self.reader.seen;
        seen.mark(1 << (EnvelopeField::Type as u16), || {
            duplicate_field(spec, EnvelopeField::Type)
        })?;
        if name == type_name {
            seen.type_name = TypeSeen::Expected;
        } else if type_aliases.contains(&&*name) {
            seen.type_name = TypeSeen::Alias(name.clone().into_owned());
        } else {
            // Another type's document: its type is reported, not the body's errors.
            seen.type_name = TypeSeen::Other(name.into_owned());
            map.next_value::<IgnoredAny>()?;
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            return self.visitor.visit_map(no_body());
        }
        let value = map.next_value_seed(RootSeed::<V, NOTE> {
            visitor: self.visitor,
            reader: self.reader,
        })?;
        if let Some(other) = map.next_key_seed(Name)? {
            return Err(de::Error::custom(format_args!(
                "a document of the `root` layout holds one top-level attribute, its type `{name}`; this one \
                 holds `{other}` too"
            )));
        }
        Ok(value)
    }
}

/// The root attribute's value: the document's object.
struct RootSeed<'r, 's, V, const NOTE: bool> {
    visitor: V,
    reader: &'r mut EnvelopeReader<'s>,
}

impl<'de, V: Visitor<'de>, const NOTE: bool> DeserializeSeed<'de> for RootSeed<'_, '_, V, NOTE> {
    type Value = V::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        deserializer.deserialize_map(ObjectVisitor::<V, NOTE> {
            visitor: self.visitor,
            reader: self.reader,
        })
    }
}

struct ObjectVisitor<'r, 's, V, const NOTE: bool> {
    visitor: V,
    reader: &'r mut EnvelopeReader<'s>,
}

impl<'de, V: Visitor<'de>, const NOTE: bool> Visitor<'de> for ObjectVisitor<'_, '_, V, NOTE> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object holding a document")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_map(DocMap::<A, NOTE> {
            map,
            reader: self.reader,
            pending: None,
        })
    }
}

/// The document's map as the body sees it: without the envelope fields.
struct DocMap<'r, 's, 'de, A, const NOTE: bool> {
    map: A,
    reader: &'r mut EnvelopeReader<'s>,
    /// The name of the body field whose value comes next.
    pending: Option<Cow<'de, str>>,
}

impl<'de, A: MapAccess<'de>, const NOTE: bool> MapAccess<'de> for DocMap<'_, '_, 'de, A, NOTE> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        loop {
            let Some(name) = self.map.next_key_seed(Name)? else {
                return Ok(None);
            };
            let spec = self.reader.expect.spec;
            match spec.envelope_at(name.as_bytes()) {
                Some(EnvelopeName::Meta) => {
                    self.map.next_value_seed(MetaSeed {
                        reader: &mut *self.reader,
                    })?;
                    continue;
                }
                Some(EnvelopeName::Field(field)) => {
                    self.map.next_value_seed(FieldSeed {
                        field,
                        legacy: spec.is_legacy_name(field, &name),
                        reader: &mut *self.reader,
                    })?;
                    continue;
                }
                None => {}
            }
            let key = match &name {
                Cow::Borrowed(text) => seed.deserialize(BorrowedStrDeserializer::new(text))?,
                Cow::Owned(text) => seed.deserialize(StrDeserializer::new(text))?,
            };
            self.pending = Some(name);
            return Ok(Some(key));
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        let name = self.pending.take();
        self.map.next_value_seed(CaptureSeed::<V, NOTE> {
            seed,
            name,
            reader: &mut *self.reader,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// A map key, borrowed from the input when it has no escapes.
pub(crate) struct Name;

impl<'de> DeserializeSeed<'de> for Name {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Name {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(text))
    }

    fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(text.to_owned()))
    }

    /// A name a `serde_json::Value` hands over, moved rather than copied.
    fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(text))
    }
}

/// The value of a body field: passed to the body, except that a value the body ignores is kept raw.
struct CaptureSeed<'r, 's, 'de, S, const NOTE: bool> {
    seed: S,
    name: Option<Cow<'de, str>>,
    reader: &'r mut EnvelopeReader<'s>,
}

impl<'de, S: DeserializeSeed<'de>, const NOTE: bool> DeserializeSeed<'de>
    for CaptureSeed<'_, '_, 'de, S, NOTE>
{
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, inner: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(CaptureDeserializer::<D, NOTE> {
            inner,
            name: self.name,
            reader: self.reader,
        })
    }
}

struct CaptureDeserializer<'r, 's, 'de, D, const NOTE: bool> {
    inner: D,
    name: Option<Cow<'de, str>>,
    reader: &'r mut EnvelopeReader<'s>,
}

/// Notes `name` in `reader` as the field whose value failed to read, when `read` failed and `NOTE` is on (a
/// constant: without it, this is `read`).
#[inline(always)]
fn note<T, E, const NOTE: bool>(
    read: Result<T, E>,
    name: Option<Cow<'_, str>>,
    reader: &mut EnvelopeReader<'_>,
) -> Result<T, E> {
    if NOTE {
        // The field of the last value that failed: one a later value read past (a body that recovers from
        // an error) is not the one.
        reader.failed_field = match (&read, name) {
            (Err(_), Some(name)) => Some(name.into_owned()),
            _ => None,
        };
    }
    read
}

macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*))*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            let read = self.inner.$method($($arg,)* visitor);
            note::<_, _, NOTE>(read, self.name, self.reader)
        }
    )*};
}

impl<'de, D: Deserializer<'de>, const NOTE: bool> Deserializer<'de>
    for CaptureDeserializer<'_, '_, 'de, D, NOTE>
{
    type Error = D::Error;

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        match self.name {
            Some(name)
                if self.reader.expect.capture_unknown
                    && !self.reader.expect.written_not_read.contains(&&*name) =>
            {
                let raw = Box::<RawValue>::deserialize(self.inner)?;
                let depth = checked::<D::Error>(&name, &raw, 2)?;
                self.reader.seen.unknown.push(&name, raw, depth);
                visitor.visit_unit()
            }
            name => {
                let read = self.inner.deserialize_ignored_any(visitor);
                note::<_, _, NOTE>(read, name, self.reader)
            }
        }
    }

    /// A `null` the document holds is given as `visit_unit`, so that a `Presence` field tells it from a
    /// field the document does not hold (which serde reads through `visit_none`). `Option` reads both as
    /// `None`.
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        let read = self.inner.deserialize_option(NullAsUnit(visitor));
        note::<_, _, NOTE>(read, self.name, self.reader)
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }

    forward! {
        deserialize_any() deserialize_bool() deserialize_i8() deserialize_i16() deserialize_i32()
        deserialize_i64() deserialize_i128() deserialize_u8() deserialize_u16() deserialize_u32()
        deserialize_u64() deserialize_u128() deserialize_f32() deserialize_f64() deserialize_char()
        deserialize_str() deserialize_string() deserialize_bytes() deserialize_byte_buf()
        deserialize_unit() deserialize_seq() deserialize_map() deserialize_identifier()
        deserialize_unit_struct(name: &'static str)
        deserialize_newtype_struct(name: &'static str)
        deserialize_tuple(len: usize)
        deserialize_tuple_struct(name: &'static str, len: usize)
        deserialize_struct(name: &'static str, fields: &'static [&'static str])
        deserialize_enum(name: &'static str, variants: &'static [&'static str])
    }
}

/// Holds the raw value of a field the body does not know, found `depth` levels deep, to the rules every path
/// reads a document by ([`limits`](super::limits)); returns how deep the value itself nests, which the
/// writer counts without reading it again.
fn checked<E: de::Error>(name: &str, raw: &RawValue, depth: usize) -> Result<usize, E> {
    super::limits::check_raw(raw.get(), depth)
        .map_err(|problem| E::custom(format_args!("the field `{name}`: {problem}")))
}

/// An option's visitor that is told of a present `null` by `visit_unit`.
struct NullAsUnit<V>(V);

impl<'de, V: Visitor<'de>> Visitor<'de> for NullAsUnit<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_unit()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        self.0.visit_some(deserializer)
    }
}

/// The `meta` object of the `meta` layout.
struct MetaSeed<'r, 's> {
    reader: &'r mut EnvelopeReader<'s>,
}

impl<'de> DeserializeSeed<'de> for MetaSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        let name = self.reader.expect.spec.meta_name();
        self.reader.seen.mark(META_SEEN, || duplicate_name(name))?;
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for MetaSeed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "an object of envelope fields under `{}`",
            self.reader.expect.spec.meta_name()
        )
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(name) = map.next_key_seed(Name)? {
            let spec = self.reader.expect.spec;
            match spec.field_named(&name) {
                Some(field) => map.next_value_seed(FieldSeed {
                    field,
                    legacy: spec.is_legacy_name(field, &name),
                    reader: &mut *self.reader,
                })?,
                None if self.reader.expect.capture_unknown => {
                    let raw: Box<RawValue> = map.next_value()?;
                    let depth = checked::<A::Error>(&name, &raw, 3)?;
                    self.reader.seen.meta_unknown.push(&name, raw, depth);
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// One envelope field's value, stored into the reader.
struct FieldSeed<'r, 's> {
    field: EnvelopeField,
    /// Read under the field's legacy name.
    legacy: bool,
    reader: &'r mut EnvelopeReader<'s>,
}

impl<'de> DeserializeSeed<'de> for FieldSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        let Expect {
            spec,
            type_name,
            type_aliases,
            current,
            current_text,
            at_schema,
            ..
        } = self.reader.expect;
        let seen = &mut self.reader.seen;
        let name = spec.name(self.field);
        seen.mark(1 << (self.field as u16), || {
            duplicate_field(spec, self.field)
        })?;
        seen.legacy |= self.legacy;
        let envelope = &mut seen.envelope;
        match self.field {
            EnvelopeField::Type => {
                let found = deserializer.deserialize_str(TextVisitor(name))?;
                seen.type_name = if found == type_name {
                    TypeSeen::Expected
                } else if type_aliases.contains(&&*found) {
                    TypeSeen::Alias(found.into_owned())
                } else {
                    TypeSeen::Other(found.into_owned())
                };
            }
            EnvelopeField::Schema => {
                let found = deserializer.deserialize_str(TextVisitor(name))?;
                let version = if found == current_text {
                    debug_assert_eq!(SchemaVersion::parse(current_text).ok(), Some(current));
                    Ok(current)
                } else {
                    SchemaVersion::parse(&found)
                };
                if let Ok(version) = version {
                    match at_schema(version) {
                        AtSchema::Read if version > current => {
                            seen.newer_schema = Some(found.into_owned());
                        }
                        AtSchema::Read => {}
                        AtSchema::Stop => {
                            // The body cannot be the current model's: stop reading, the chain takes over.
                            seen.stopped = Some(version);
                            return Err(de::Error::custom("the document needs migration"));
                        }
                        AtSchema::Refuse => seen.refused = Some(version),
                    }
                }
                seen.schema = Some(version);
            }
            EnvelopeField::Ver => envelope.ver = deserializer.deserialize_any(VerVisitor(name))?,
            EnvelopeField::Created => envelope.created = read_timestamp(deserializer, spec, name)?,
            EnvelopeField::Modified => {
                envelope.modified = read_timestamp(deserializer, spec, name)?
            }
            EnvelopeField::Accessed => {
                envelope.accessed = read_timestamp(deserializer, spec, name)?
            }
            EnvelopeField::CreatedBy => envelope.created_by = Option::deserialize(deserializer)?,
            EnvelopeField::ModifiedBy => envelope.modified_by = Option::deserialize(deserializer)?,
            EnvelopeField::Geo => envelope.geo = Option::deserialize(deserializer)?,
            EnvelopeField::CopyOf => {
                envelope.copy_of = deserializer.deserialize_any(CopyOfVisitor(name))?
            }
            // Checked, not kept: a merge reads the record from the copy's bytes (`codec::peek_copy_next`).
            EnvelopeField::CopyNext => deserializer.deserialize_any(CopyNextVisitor(name))?,
        }
        Ok(())
    }
}
