//! The stored JSON of a document: envelope and body in one object, read and written in one pass.
//!
//! # Files
//!
//! - `de.rs`: the one-pass reader. The envelope's fields are picked off the body's map as serde_json hands
//!   them over; the fields the body ignores are kept as raw JSON.
//! - `ser.rs`: the one-pass writer: the envelope, the body's fields, then the kept unknown fields, in one
//!   object.
//! - `peek.rs`: the schema text read from the beginning docmodel writes, without a parser.
//! - `limits.rs`: what a stored document may hold, the same whichever path reads it.
//! - `unknown.rs`: the fields a model does not know, kept as read.
//! - `path.rs`: the path of the value where a read failed, from the text and the offset of the error.
//! - `strict.rs`: the strict parser into a [`JsonObject`], which the migration path's JSON steps work on; it
//!   keeps the stored text of the numbers a [`JsonValue`] would change.
//! - this file: the entry points ([`decode`], [`decode_object`], [`peek`](fn@peek), [`encode`]) and the
//!   checks made after a pass.
//!
//! The codec knows nothing of migration. What to do at a schema version is the caller's answer, passed in as
//! a function (`at_schema`); a document the caller must migrate comes back as a value
//! ([`NotRead::Stopped`]), and the caller hands it to the migration path.
//!
//! # The one-pass read protocol
//!
//! **What a reader is told** ([`Expect`]): the model's envelope spec (layout, field names, timestamp format,
//! the zone of zone-less times), its type and the aliases of its type, the names its body writes but does not
//! read, its current schema (as a version, and as the text it writes), whether to keep unknown fields, and
//! `at_schema`, which says what to do at a schema version ([`AtSchema`]).
//!
//! **The pass.** The body deserializes from a wrapper of serde_json's deserializer of the whole document. As
//! the map hands over names, the reader takes the envelope's fields (top-level names of the flat or plain
//! layout; the `meta` object of the meta layout) before the body sees them, and notes what it saw
//! ([`Seen`]): the type (the model's, an alias, another, none), the schema (a version, or why its text is
//! not one), the envelope's values, and the unknown fields. An envelope field given twice is a
//! `duplicate field` error, as serde_derive makes it for body fields.
//!
//! **What the reader tells the router**: the schema version only, once, when it reads the schema field
//! (the text the model writes is taken as the current version without parsing). Text that is not a version
//! is not routed; it is reported after the pass. The type is checked here, after the pass, and the body's
//! fields never leave the codec. A document without a schema field, of a model that reads one as
//! `unversioned = "..."`, is routed at that version once the pass has read the whole document (or, after a
//! body error, its envelope).
//!
//! **The router's answer**:
//! - [`AtSchema::Read`]: read on as the current model. A newer version (a newer minor) keeps its schema
//!   text, to be written back as it was.
//! - [`AtSchema::Stop`]: the body is not the current model's. The reader notes the version and ends the pass
//!   at once with an error (`the document needs migration`); [`decode`] returns [`NotRead::Stopped`] with
//!   the version, whatever else the document holds. The caller runs the chain on the bytes and reads its
//!   result back through [`decode`] (from the migrated JSON text) or [`decode_object`] (from the migrated
//!   object), with the same `at_schema`.
//! - [`AtSchema::Refuse`]: the model reads no document of this version. The pass reads on, so that the body
//!   can name its key; after the type and schema checks, [`decode`] returns [`NotRead::Refused`] with the
//!   version and, when the body read, its key, and the caller reports the version as too new or unsupported.
//!
//! **After the pass** ([`finish`]): a document of another type ([`Error::WrongType`]; none counts as
//! another unless the model accepts untyped documents), without a schema ([`Error::MissingSchema`]) or
//! with one that is not a version ([`Error::UnsupportedSchema`]) is refused, naming the body's key when it
//! forms one; then a refused schema gives [`NotRead::Refused`]; then an unknown field name given twice is an
//! [`Error::Codec`]. A document without `_ver` is version 1.
//!
//! **When the body fails to read**, the envelope is read again on its own (`envelope_of`), so that a
//! document of another type or schema is reported as such rather than as the JSON error its body causes: a
//! schema the chain reads still gives [`NotRead::Stopped`]; an envelope that reads but fails the checks is
//! that error; a refused schema gives [`NotRead::Refused`] without a key. Otherwise (the envelope does not
//! read either, or is in order) the body's error is reported, as [`Error::Codec`], with the path of the
//! value that failed, found in the text at the error's offset (`path.rs`); bytes after the object are the
//! body's error too. [`decode_object`] does not read again: its caller checks the object's type first, and
//! its reader notes the top-level field that fails, as a `JsonObject` has no text to find it in.
//!
//! **What a model compiles.** Each model compiles one reader of its documents' text, of its own layout (the
//! `root` layout's visitor only where it is the model's, a constant), and the reader of a `JsonObject` only
//! when it has a migration chain, whose result that reader reads.
//!
//! **Unknown fields**: a field the body's `Deserialize` ignores (through `deserialize_ignored_any`) is kept
//! as raw JSON in the order read: top-level ones as `unknown`, those of the `meta` object as `meta_unknown`.
//! The writer puts them back after the body's fields. Not kept: the names the body writes but does not
//! read (it writes them again), and nothing at all when only the envelope is read ([`peek`](fn@peek), and
//! the second read after a body error).
//!
//! **Limits**: each kept raw value is held to the rules of `limits.rs`: it nests no deeper than
//! [`MAX_DEPTH`] levels counting the document, each number fits an `f64`, no string holds a lone surrogate
//! escape, and no object has a name twice. These are the rules the strict parser's `serde_json::Value`
//! enforces on the migration path, so that a document reads, or fails, the same at any schema; a break is an
//! [`Error::Codec`] naming the field. The body's own fields are read by serde_json, whose recursion limit is
//! one level more than [`MAX_DEPTH`].

mod de;
mod limits;
mod path;
mod peek;
mod ser;
mod strict;
mod unknown;
mod values;

use serde::Serialize;
use serde::de::{DeserializeOwned, IgnoredAny};

use crate::SchemaVersion;
use crate::envelope::EnvelopeField;
use crate::{DocModel, Envelope, Error, Key};

pub(crate) use de::AtSchema;
pub(crate) use de::Name;
pub(crate) use de::Unknown;
use de::{EnvelopeReader, Expect, Seen, TypeSeen};
pub(crate) use limits::MAX_DEPTH;
#[cfg(test)]
pub(crate) use limits::depth_of;
mod copy;

pub(crate) use copy::{
    copy_header, marked, marked_recording, peek_copy_next, records_next, same_copy, same_json,
    unmarked, with_next,
};
use peek::{Leading, leading_envelope, written_copy};
pub(crate) use peek::{escaped, leading_schema};
pub(crate) use ser::DocWriter;
use ser::Nesting;
pub use strict::{JsonMap, JsonObject, JsonValue};
pub(crate) use strict::{Parsed, strict_object};

/// A document read from its bytes: the current model's body plus what the envelope held. Opaque outside the
/// crate; generated code only names it (in `__private::TypedRead`).
#[derive(Clone)]
pub struct Decoded<T> {
    pub(crate) body: T,
    pub(crate) envelope: Envelope,
    pub(crate) unknown: Unknown,
    pub(crate) meta_unknown: Unknown,
    /// The schema the document was stored at, when the migration chain moved it to the current one.
    pub(crate) migrated_from: Option<SchemaVersion>,
    /// The schema text of a document a newer minor version wrote: it is written back as it was.
    pub(crate) newer_schema: Option<String>,
}

impl<T> Decoded<T> {
    /// A new document's parts: version 1, nothing unknown.
    pub(crate) fn new(body: T) -> Self {
        Decoded {
            body,
            envelope: Envelope {
                ver: 1,
                ..Envelope::default()
            },
            unknown: Unknown::new(),
            meta_unknown: Unknown::new(),
            migrated_from: None,
            newer_schema: None,
        }
    }

    /// The body, and the rest around a placeholder.
    pub(crate) fn take_body(self) -> (T, Decoded<()>) {
        let Decoded {
            body,
            envelope,
            unknown,
            meta_unknown,
            migrated_from,
            newer_schema,
        } = self;
        let rest = Decoded {
            body: (),
            envelope,
            unknown,
            meta_unknown,
            migrated_from,
            newer_schema,
        };
        (body, rest)
    }

    /// The same envelope and unknown fields around another body.
    pub(crate) fn with_body<U>(self, body: U) -> Decoded<U> {
        Decoded {
            body,
            envelope: self.envelope,
            unknown: self.unknown,
            meta_unknown: self.meta_unknown,
            migrated_from: self.migrated_from,
            newer_schema: self.newer_schema,
        }
    }
}

/// Why reading a document as the current model gave no document. The document itself travels in the `Ok`
/// of [`decode`]'s result, so the common path moves it no more than once.
pub(crate) enum NotRead {
    /// Its schema is one the migration chain reads; reading stopped there.
    Stopped(SchemaVersion),
    /// Its schema is one the model reads no document of; its type was checked, and `key` is the key of its
    /// body when the body read as the current model.
    Refused {
        version: SchemaVersion,
        key: Option<String>,
    },
    /// It is not a document of the model: another type, no schema, not its JSON.
    Failed(Error),
}

impl From<Error> for NotRead {
    fn from(err: Error) -> Self {
        NotRead::Failed(err)
    }
}

/// What a stored document's envelope says, read without its body: enough to recognise a revision copy.
#[derive(Debug, PartialEq)]
pub(crate) struct Peeked {
    /// Whether it carries the model's type, or none where the model accepts that.
    pub(crate) own_type: bool,
    /// Whether it carries a type field at all (the model's, one of its aliases, or another).
    pub(crate) typed: bool,
    /// The type it carries, when another one.
    pub(crate) found_type: Option<String>,
    /// Its `_ver` (1 when it has none, as on a full read).
    pub(crate) ver: u64,
    /// Its `_created`.
    pub(crate) created: Option<crate::Timestamp>,
    /// Whether it is in the form the model writes: its own type (not an alias), a schema, a revision count,
    /// each under its own name (not a legacy one).
    pub(crate) model_form: bool,
    /// Whether it holds an envelope field under a legacy name.
    pub(crate) legacy_names: bool,
}

/// What a reader of model `T`'s documents is told.
fn expect<T: DocModel>(
    at_schema: fn(SchemaVersion) -> AtSchema,
    capture_unknown: bool,
) -> Expect<'static> {
    Expect {
        spec: &T::ENVELOPE,
        type_name: T::TYPE,
        type_aliases: T::TYPE_ALIASES,
        written_not_read: T::WRITTEN_NOT_READ,
        current: T::SCHEMA,
        current_text: T::SCHEMA_TEXT,
        at_schema,
        capture_unknown,
    }
}

/// Reads the envelope of `bytes` as model `T` lays it out, skipping everything else; `None` when the bytes
/// are not a JSON object with a readable envelope.
pub(crate) fn peek<T: DocModel>(bytes: &[u8]) -> Option<Peeked> {
    let (seen, read) = envelope_of::<T>(bytes, |_| AtSchema::Read, true);
    read.ok()?;
    let ver = if seen.saw(EnvelopeField::Ver) {
        seen.envelope.ver
    } else {
        1
    };
    let typed = !matches!(seen.type_name, TypeSeen::Absent);
    let model_form = matches!(seen.type_name, TypeSeen::Expected)
        && !seen.legacy
        && seen.saw(EnvelopeField::Schema)
        && seen.saw(EnvelopeField::Ver);
    let (own_type, found_type) = match seen.type_name {
        // A document the model adopts (another spelling of its type, or none where it accepts that) is its
        // own: the first save of one keeps the bytes read as its revision copy.
        TypeSeen::Expected | TypeSeen::Alias(_) => (true, None),
        TypeSeen::Absent => (T::ACCEPTS_UNTYPED, None),
        TypeSeen::Other(other) => (false, Some(other)),
    };
    Some(Peeked {
        own_type,
        typed,
        found_type,
        ver,
        created: seen.envelope.created,
        model_form,
        legacy_names: seen.legacy,
    })
}

/// The `_modified` of a stored document or copy of model `T`: when the version it holds was written, which
/// is when the version before it stopped being current. `None` when it keeps none or does not read.
pub(crate) fn modified<T: DocModel>(bytes: &[u8]) -> Option<crate::Timestamp> {
    let (seen, read) = envelope_of::<T>(bytes, |_| AtSchema::Read, true);
    read.ok()?;
    seen.envelope.modified
}

/// [`peek`](fn@peek) of a document that begins exactly as docmodel writes the revision copy of the document
/// of model `T` under `key` ([`written_copy`]): compared with the text a copy of it begins with, rather
/// than scanned. `None` for any other beginning, which [`peek_leading`] reads.
pub(crate) fn peek_written_copy<T: DocModel>(bytes: &[u8], key: &str) -> Option<Peeked> {
    let spec = &T::ENVELOPE;
    let (ver, created) = written_copy(bytes, spec, key, T::TYPE)?;
    Some(Peeked {
        own_type: true,
        typed: true,
        found_type: None,
        ver,
        created: created_at(spec, created)?,
        model_form: true,
        legacy_names: false,
    })
}

/// `_created` from its stored text under `spec` (`Some(None)` where the model keeps none); `None` when the
/// text does not read.
fn created_at(spec: &crate::EnvelopeSpec, text: Option<&[u8]>) -> Option<Option<crate::Timestamp>> {
    match (spec.keeps(EnvelopeField::Created), text) {
        (false, _) => Some(None),
        (true, None) => None,
        (true, Some(text)) => values::read_timestamp(
            &mut serde_json::Deserializer::from_slice(text),
            spec,
            spec.name(EnvelopeField::Created),
        )
        .ok(),
    }
}

/// [`peek`](fn@peek) of a document that begins as docmodel writes one of model `T`: its own type (not an
/// alias), a schema, `_ver` and, where the model keeps it, `_created`, each read from the envelope fields the
/// object begins with ([`leading_envelope`]) and nothing after them. `None` for any other beginning, which
/// [`peek`](fn@peek) reads whole. What it does not see: an envelope field given again later in the object,
/// or a rest that is not JSON, for which [`peek`](fn@peek) gives `None`. It recognises a revision copy, which
/// docmodel writes with its envelope first, and which the caller reads in full before it hands it on.
pub(crate) fn peek_leading<T: DocModel>(bytes: &[u8]) -> Option<Peeked> {
    let spec = &T::ENVELOPE;
    let Leading {
        type_name: Some(type_name),
        schema: true,
        ver: Some(ver),
        created,
    } = leading_envelope(bytes, spec)?
    else {
        return None;
    };
    if type_name != T::TYPE.as_bytes() {
        return None;
    }
    let created = created_at(spec, created)?;
    Some(Peeked {
        own_type: true,
        typed: true,
        found_type: None,
        ver,
        created,
        model_form: true,
        legacy_names: false,
    })
}

/// Whether `bytes`, a document read whole before (no field comes twice), is in the form model `T` writes
/// ([`Peeked::model_form`]): from the envelope fields it begins with where they say so (its own type, a
/// schema, a revision count: a document docmodel wrote), else from its whole envelope ([`peek`](fn@peek)).
pub(crate) fn model_form<T: DocModel>(bytes: &[u8]) -> bool {
    if let Some(Leading {
        type_name: Some(type_name),
        schema: true,
        ver: Some(_),
        ..
    }) = leading_envelope(bytes, &T::ENVELOPE)
        && type_name == T::TYPE.as_bytes()
    {
        return true;
    }
    peek::<T>(bytes).is_some_and(|peeked| peeked.model_form)
}

/// Reads only the envelope of `bytes`: what it saw, and whether the object read (and, with `to_end`, nothing
/// but whitespace followed it).
fn envelope_of<T: DocModel>(
    bytes: &[u8],
    at_schema: fn(SchemaVersion) -> AtSchema,
    to_end: bool,
) -> (Seen, Result<(), serde_json::Error>) {
    let mut reader = EnvelopeReader::new(expect::<T>(at_schema, false));
    let mut json = serde_json::Deserializer::from_slice(bytes);
    let read = reader
        .read::<T, IgnoredAny, _>(&mut json)
        .and_then(|_| if to_end { json.end() } else { Ok(()) });
    let mut seen = reader.seen;
    if read.is_ok() {
        unversioned::<T>(&mut seen, at_schema);
    }
    (seen, read)
}

/// A document without a schema field, of a model that reads one as `unversioned = "..."`: from here on it
/// is a document of that version, which the reader routes as it routes any.
fn unversioned<T: DocModel>(seen: &mut Seen, at_schema: fn(SchemaVersion) -> AtSchema) {
    let Some(version) = T::UNVERSIONED else {
        return;
    };
    if seen.schema.is_some() {
        return;
    }
    seen.schema = Some(Ok(version));
    match at_schema(version) {
        AtSchema::Read => {}
        AtSchema::Stop => seen.stopped = Some(version),
        AtSchema::Refuse => seen.refused = Some(version),
    }
}

/// Reads a stored document as the current model `T`, in one pass: the body and the envelope come out
/// together, and the pass stops as soon as it reads a schema that `at_schema` says the chain reads.
///
/// When the body fails to read, the envelope is read again on its own, so that a document of another type
/// or schema is reported as such rather than as the JSON error it causes.
pub(crate) fn decode<T: DocModel + DeserializeOwned>(
    bytes: &[u8],
    at_schema: fn(SchemaVersion) -> AtSchema,
) -> Result<Decoded<T>, NotRead> {
    // Checked as UTF-8 once, rather than string by string; bytes that are not are reported as a body that
    // fails to read is, after what their envelope says.
    let text = match utf8(bytes) {
        Ok(text) => text,
        Err(source) => return Err(body_failed::<T>(bytes, at_schema, source)),
    };
    let mut reader = EnvelopeReader::new(expect::<T>(at_schema, true));
    let mut json = serde_json::Deserializer::from_str(text);
    let body = reader
        .read::<T, T, _>(&mut json)
        .and_then(|body| json.end().map(|()| body));
    if body.is_ok() {
        unversioned::<T>(&mut reader.seen, at_schema);
    }
    if let Some(version) = reader.seen.stopped {
        return Err(NotRead::Stopped(version));
    }
    match body {
        Ok(body) => finish(reader.seen, body),
        Err(source) => Err(body_failed::<T>(bytes, at_schema, source)),
    }
}

/// What [`decode`] reports of a body that failed to read with `source`: kept out of the reading itself,
/// which a document that reads goes through alone.
#[cold]
#[inline(never)]
fn body_failed<T: DocModel + DeserializeOwned>(
    bytes: &[u8],
    at_schema: fn(SchemaVersion) -> AtSchema,
    source: serde_json::Error,
) -> NotRead {
    // Trailing bytes are the body's error to report, after the envelope's.
    let (probed, read) = envelope_of::<T>(bytes, at_schema, false);
    if let Some(version) = probed.stopped {
        return NotRead::Stopped(version);
    }
    if read.is_ok() {
        if let Err(err) = check_envelope::<T>(&probed) {
            return err.into();
        }
        if let Some(version) = probed.refused {
            return NotRead::Refused { version, key: None };
        }
    }
    let field = if source.is_data() {
        body_path(&T::ENVELOPE, T::TYPE, bytes, &source)
    } else {
        None
    };
    Error::Codec {
        key: None,
        field,
        source,
    }
    .into()
}

/// `bytes` as text, checked once, so that the parser need not check each string; or the error that says
/// where they stop being UTF-8 (JSON is UTF-8, RFC 8259).
pub(crate) fn utf8(bytes: &[u8]) -> Result<&str, serde_json::Error> {
    std::str::from_utf8(bytes).map_err(|err| {
        <serde_json::Error as serde::de::Error>::custom(format_args!(
            "the document is not UTF-8 text (the bytes at offset {} form no character)",
            err.valid_up_to()
        ))
    })
}

/// The path from the top of the body of a document in `spec`'s layout (of the type `type_name`) to the
/// value in `bytes` where reading it failed with `source`: `phones[2].number`. Found in the text, at the
/// offset serde_json gives (or where the text stops being UTF-8), so that a model compiles no second,
/// tracking read. `None` when the failure is the body's own (a field missing from it, which serde's
/// message names) or the envelope's.
#[cold]
#[inline(never)]
fn body_path(
    spec: &crate::EnvelopeSpec,
    type_name: &str,
    bytes: &[u8],
    source: &serde_json::Error,
) -> Option<String> {
    let offset = match std::str::from_utf8(bytes) {
        Err(err) => err.valid_up_to(),
        Ok(_) => path::error_offset(bytes, source)?,
    };
    let segments = path::segments_at(bytes, offset)?;
    let body = match crate::envelope::body_attribute(spec, type_name) {
        // The document's one attribute holds the envelope and the body.
        Some(_) => segments.get(1..)?,
        None => &segments[..],
    };
    let path::Segment::Member(first) = *body.first()? else {
        return None;
    };
    if spec.envelope_at(first).is_some() {
        return None;
    }
    path::display(body)
}

/// Reads a document that migration steps left as a JSON object as the current model `T`: its values move
/// into the body, where writing the object out and parsing it again would copy each one twice. A body
/// that fails to read is a JSON error: the caller checks the object's type first.
pub(crate) fn decode_object<T: DocModel + DeserializeOwned>(
    object: JsonObject,
    at_schema: fn(SchemaVersion) -> AtSchema,
) -> Result<Decoded<T>, NotRead> {
    let mut reader = EnvelopeReader::new(expect::<T>(at_schema, true));
    let body = reader.read_noting::<T, T, _>(serde_json::Value::Object(object));
    if body.is_ok() {
        unversioned::<T>(&mut reader.seen, at_schema);
    }
    if let Some(version) = reader.seen.stopped {
        return Err(NotRead::Stopped(version));
    }
    match body {
        Ok(body) => finish(reader.seen, body),
        Err(source) => Err(Error::Codec {
            key: None,
            field: reader.failed_field,
            source,
        }
        .into()),
    }
}

/// A body read whole, with the envelope its reader saw: checked, and put together as a document.
fn finish<T: DocModel>(seen: Seen, body: T) -> Result<Decoded<T>, NotRead> {
    if let Err(err) = check_envelope::<T>(&seen) {
        return Err(NotRead::Failed(match body.doc_key() {
            Ok(key) => err.with_key(key.as_str()),
            Err(_) => err,
        }));
    }
    if let Some(version) = seen.refused {
        let key = body.doc_key().ok().map(|key| key.into_string());
        return Err(NotRead::Refused { version, key });
    }
    if let Some(name) = seen
        .unknown
        .repeated()
        .or_else(|| seen.meta_unknown.repeated())
    {
        let source = <serde_json::Error as serde::de::Error>::custom(format_args!(
            "duplicate field `{name}`"
        ));
        let key = body.doc_key().ok().map(Key::into_string);
        let field = None;
        return Err(NotRead::Failed(Error::Codec { key, field, source }));
    }
    let saw_ver = seen.saw(EnvelopeField::Ver);
    let Seen {
        mut envelope,
        unknown,
        meta_unknown,
        newer_schema,
        ..
    } = seen;
    if !saw_ver {
        // A document written before its revisions were counted is its first version.
        envelope.ver = 1;
    }
    Ok(Decoded {
        body,
        envelope,
        unknown,
        meta_unknown,
        migrated_from: None,
        newer_schema,
    })
}

/// The envelope a reader saw, checked: the model's type, and a schema version it reads.
fn check_envelope<T: DocModel>(seen: &Seen) -> Result<(), Error> {
    let spec = &T::ENVELOPE;
    let found = match &seen.type_name {
        TypeSeen::Expected | TypeSeen::Alias(_) => None,
        TypeSeen::Absent if T::ACCEPTS_UNTYPED => None,
        TypeSeen::Absent => Some(None),
        TypeSeen::Other(other) => Some(Some(other.clone())),
    };
    if let Some(found) = found {
        return Err(Error::WrongType {
            key: None,
            field: spec.type_field_label(),
            expected: T::TYPE,
            found,
        });
    }
    match &seen.schema {
        None => Err(Error::MissingSchema {
            key: None,
            field: spec.name(EnvelopeField::Schema),
        }),
        Some(Err(err)) => Err(Error::UnsupportedSchema {
            key: None,
            found: err.text().to_owned(),
            current: T::SCHEMA_TEXT.to_owned(),
            reason: err.to_string(),
        }),
        Some(Ok(_)) => Ok(()),
    }
}

/// A document's stored JSON, and how deep it nests (the outermost object is 1), counted as it was written.
pub(crate) struct Written {
    pub(crate) bytes: Vec<u8>,
    pub(crate) depth: usize,
}

/// Writes a document of model `T` as stored JSON, counting its depth as it goes ([`Nesting`]), into a
/// buffer of `capacity` bytes to begin with (the length of the version it replaces, where there is one: a
/// document grown from the 128 bytes `serde_json::to_vec` starts with is copied at each doubling).
pub(crate) fn encode<T: DocModel + Serialize>(
    body: &T,
    envelope: &Envelope,
    schema: &str,
    (unknown, meta_unknown): (&Unknown, &Unknown),
    capacity: usize,
) -> Result<Written, Error> {
    let mut writer = doc_writer(body, envelope, schema, unknown, meta_unknown);
    // The kept fields of a document whose object is the whole document are appended to its bytes after the
    // rest is written: each name written as a JSON string, its value copied as it was read.
    let appended = unknown.iter().len() > 0 && T::ENVELOPE.layout() != crate::Layout::Root;
    writer.unknown_appended = appended;
    let mut nesting = Nesting::of(&writer);
    let mut json =
        serde_json::Serializer::with_formatter(Vec::with_capacity(capacity), &mut nesting);
    writer.serialize(&mut json).map_err(Error::codec)?;
    let mut bytes = json.into_inner();
    let mut depth = nesting.deepest();
    if appended {
        append_kept(&mut bytes, unknown)?;
        // The document's object is level 1: its fields' values nest from there.
        depth = depth.max(1 + unknown.deepest());
    }
    Ok(Written { bytes, depth })
}

/// Appends the fields of `kept` to the JSON object `bytes` ends with, before its closing brace.
fn append_kept(bytes: &mut Vec<u8>, kept: &Unknown) -> Result<(), Error> {
    let closed = bytes.pop();
    debug_assert_eq!(closed, Some(b'}'), "an object is written");
    // An object with no member yet takes the first without a comma.
    let comma = bytes.last() != Some(&b'{');
    kept.write_members(bytes, comma).map_err(Error::codec)?;
    bytes.push(b'}');
    Ok(())
}

/// [`encode`], indented for people to read.
pub(crate) fn encode_pretty<T: DocModel + Serialize>(
    body: &T,
    envelope: &Envelope,
    schema: &str,
    unknown: &Unknown,
    meta_unknown: &Unknown,
) -> Result<Vec<u8>, Error> {
    serde_json::to_vec_pretty(&doc_writer(body, envelope, schema, unknown, meta_unknown))
        .map_err(Error::codec)
}

fn doc_writer<'a, T: DocModel>(
    body: &'a T,
    envelope: &'a Envelope,
    schema: &'a str,
    unknown: &'a Unknown,
    meta_unknown: &'a Unknown,
) -> DocWriter<'a, T> {
    DocWriter {
        spec: &T::ENVELOPE,
        type_name: T::TYPE,
        schema,
        envelope,
        body,
        omit: T::OMIT,
        unknown,
        meta_unknown,
        kept_depth: std::cell::Cell::new(None),
        unknown_appended: false,
    }
}

#[cfg(test)]
mod tests;
