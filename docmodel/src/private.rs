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

pub use crate::codec::Decoded;
pub use crate::envelope::{
    assert_delimiter, assert_envelope_valid, assert_no_collision, assert_root_layout, str_eq,
};
#[cfg(feature = "json-schema")]
pub use crate::json_schema::couchdb::validation_level;
#[cfg(feature = "json-schema")]
pub use crate::json_schema::{BodySchema, Open, Probe, ViaShape, object_shape, open_shape};
pub use crate::key::Segment;
pub use crate::lookup::Lookup;
pub use crate::migrate::{Migration, Step, TypedFailure, TypedRead, typed_step};
pub use crate::schema::SchemaVersion;
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

/// A field's merge function (`#[docmodel(merge = path)]`, `fn(Option<F>, F, F) -> F`) on the field's JSON
/// values: each side read as the field's type (an absent side as JSON `null`), the merged value written.
pub fn typed_merge<F: serde::Serialize + serde::de::DeserializeOwned>(
    merge: fn(Option<F>, F, F) -> F,
    base: Option<&serde_json::Value>,
    ours: Option<&serde_json::Value>,
    theirs: Option<&serde_json::Value>,
) -> Result<Option<serde_json::Value>, String> {
    let read = |side: Option<&serde_json::Value>, which: &str| {
        F::deserialize(side.unwrap_or(&serde_json::Value::Null))
            .map_err(|err| format!("{which} does not read as the field's type: {err}"))
    };
    let base = base.map(|base| read(Some(base), "the base")).transpose()?;
    let (ours, theirs) = (read(ours, "ours")?, read(theirs, "theirs")?);
    let merged = merge(base, ours, theirs);
    serde_json::to_value(&merged)
        .map(Some)
        .map_err(|err| format!("the merged value does not write: {err}"))
}
