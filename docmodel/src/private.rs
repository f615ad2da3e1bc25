//! Not public API: what the derive's expansion calls.

pub use core;
#[doc(hidden)]
pub use serde;
#[doc(hidden)]
pub use serde_json;
pub use std::string::String;
pub use std::vec::Vec;

pub use crate::validate::GardeModel;

use crate::{DocModel, Error, Key, KeyPart, KeyTemplate};

pub use crate::model::Omit;

/// Appends one part to a key under construction from `template`, refusing empty parts and parts
/// holding a delimiter character.
#[inline]
pub fn push_part<P: KeyPart + ?Sized>(
    out: &mut String,
    template: &KeyTemplate,
    model: &'static str,
    name: &'static str,
    part: &P,
) -> Result<(), Error> {
    crate::key::push_part(out, template, model, name, |out| part.write_part(out))
}

/// [`push_part`] with the part's writer given, for parts whose type the expansion checked once.
#[inline]
pub fn push_part_with(
    out: &mut String,
    template: &KeyTemplate,
    model: &'static str,
    name: &'static str,
    write: impl FnOnce(&mut String),
) -> Result<(), Error> {
    crate::key::push_part(out, template, model, name, write)
}

/// A key whose text the expansion built from the template.
#[inline]
pub fn key<T: DocModel>(text: String) -> Key<T> {
    Key::from_checked(text)
}

// The key functions below take the model's type and template as values, not the model as a type
// parameter: a crate of models then compiles them once per part type, not once per model.

/// Splits a key of model `model` into the `N` parts of `template`.
#[inline]
pub fn split_key<'k, const N: usize>(
    template: &KeyTemplate,
    model: &'static str,
    text: &'k str,
) -> Result<[&'k str; N], Error> {
    template.split(model, text)
}

/// Parses one part of a key of model `model`.
#[inline]
pub fn parse_part<P: KeyPart>(
    text: &str,
    key: &str,
    model: &'static str,
    name: &'static str,
) -> Result<P, Error> {
    parse_part_with(text, key, model, name, P::parse_part)
}

/// [`parse_part`] with the part's parser given.
#[inline]
pub fn parse_part_with<P>(
    text: &str,
    key: &str,
    model: &'static str,
    name: &'static str,
    parse: fn(&str) -> Option<P>,
) -> Result<P, Error> {
    match parse(text) {
        Some(part) => Ok(part),
        None => Err(invalid_part(
            text,
            key,
            model,
            name,
            core::any::type_name::<P>(),
        )),
    }
}

/// The error of a key part that does not parse as `type_name`.
#[cold]
fn invalid_part(
    text: &str,
    key: &str,
    model: &'static str,
    name: &'static str,
    type_name: &'static str,
) -> Error {
    Error::InvalidKey {
        model,
        key: key.to_owned(),
        reason: format!("the part `{name}` = {text:?} is not a valid `{type_name}`"),
    }
}

pub use crate::SchemaVersion;
pub use crate::child::{ParentField, check_items, listed, remove_items};
pub use crate::codec::Decoded;
pub use crate::envelope::{
    assert_delimiter, assert_envelope_valid, assert_no_collision, assert_root_layout, str_eq,
};
#[cfg(feature = "json-schema")]
pub use crate::json_schema::couchdb::validation_level;
#[cfg(feature = "json-schema")]
pub use crate::json_schema::{BodySchema, Open, Probe, ViaShape, object_shape, open_shape};
pub use crate::key::Segment;
/// The digest a revision copy records for the version saved from it, of that version's stored bytes
/// ([`crate::EnvelopeField::CopyNext`]): what tests of the stored JSON compute, for a model that does not keep
/// `_accessed` (for one that does: [`version_digest_of`]).
pub use crate::lineage::digest as version_digest;
/// The digest a revision copy of `T` records for the version saved from it, of that version's stored bytes:
/// without `_accessed` where the model keeps it.
pub use crate::lineage::version_digest as version_digest_of;
pub use crate::lookup::Lookup;
pub use crate::migrate::{Migration, Step, TypedFailure, TypedRead, typed_step};
pub use crate::model::Removal;
/// A stored field's JSON: the value type of the path of a field serde writes its own way.
pub type JsonValue = serde_json::Value;

/// A key template of segments the derive checked.
pub const fn key_template(
    pattern: &'static str,
    delimiter: &'static str,
    segments: &'static [Segment],
) -> KeyTemplate {
    KeyTemplate::new(pattern, delimiter, segments)
}

/// [`key_template`] for a model with `allow(control_chars_in_keys)`.
pub const fn key_template_allowing_any_text(
    pattern: &'static str,
    delimiter: &'static str,
    segments: &'static [Segment],
) -> KeyTemplate {
    KeyTemplate::new(pattern, delimiter, segments).allowing_any_text()
}

/// The writer and parser of a key part type, named once so that a type that is not a [`KeyPart`] is
/// reported once, at the field's type.
pub type PartFns<P> = (fn(&P, &mut String), fn(&str) -> Option<P>);

/// How a field is read and written in the stored JSON, by its own serde attributes (`with`,
/// `deserialize_with`, `serialize_with`, `default`): what the derive gives a field's merge function.
pub struct FieldCodec<F> {
    /// Reads the field's JSON as the field does.
    pub read: fn(&serde_json::Value) -> Result<F, serde_json::Error>,
    /// Writes a value as the field does.
    pub write: fn(&F) -> Result<serde_json::Value, serde_json::Error>,
    /// What a document without the field reads it as; `None` where such a document does not read.
    pub absent: Option<fn() -> F>,
}

/// A field's merge function (`#[docmodel(merge = path)]`, `fn(Option<F>, F, F) -> F`) on the field's JSON
/// values: each side read as the field reads it (an absent side as the field's value in a document without
/// it), the merged value written as the field writes it.
pub fn typed_merge<F>(
    merge: fn(Option<F>, F, F) -> F,
    codec: FieldCodec<F>,
    base: Option<&serde_json::Value>,
    ours: Option<&serde_json::Value>,
    theirs: Option<&serde_json::Value>,
) -> Result<Option<serde_json::Value>, String> {
    let read = |side: Option<&serde_json::Value>, which: &str| match side {
        Some(value) => (codec.read)(value)
            .map_err(|err| format!("{which} does not read as the field does: {err}")),
        None => codec.absent.map(|absent| absent()).ok_or_else(|| {
            format!("{which} does not hold the field, and a document without it does not read")
        }),
    };
    // A base without the field: one where neither side had it yet, given to the function as `None`.
    let base = base.map(|base| read(Some(base), "the base")).transpose()?;
    let (ours, theirs) = (read(ours, "ours")?, read(theirs, "theirs")?);
    let merged = merge(base, ours, theirs);
    (codec.write)(&merged)
        .map(Some)
        .map_err(|err| format!("the merged value does not write: {err}"))
}

/// A model's stored fields and the place of its locks, as the derive writes them: what the lock compares.
/// Not public API.
#[derive(Debug, Clone, Copy)]
pub struct LockSpec {
    /// The directory of the model's locks, by its type, where the derive could tell where its source is.
    pub dir: Option<&'static str>,
    /// The directory of the locks of every model of its source file.
    pub root: Option<&'static str>,
    /// The Rust struct's name.
    pub model: &'static str,
    /// Each stored field.
    pub fields: &'static [FieldRecord],
}

/// A stored field as the lock records it: Rust name, stored name, type as written, whether a document
/// without it does not read, the names it is read from where they are not just the stored one.
pub type FieldRecord = (
    &'static str,
    &'static str,
    &'static str,
    bool,
    &'static [&'static str],
);

impl LockSpec {
    /// What a model not written by the derive has.
    pub const NONE: LockSpec = LockSpec {
        dir: None,
        root: None,
        model: "",
        fields: &[],
    };
}
