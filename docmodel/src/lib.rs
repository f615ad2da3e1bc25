//! Typed, versioned JSON document models for Couchbase, CouchDB and embedded stores.
//!
//! `#[derive(DocModel)]` on a serde struct gives it an identity (`type`), a schema version, a typed key built
//! from its fields, accessors with validation hooks, and a managed envelope (`_type`, `_schema`, `_ver`,
//! `_created`, `_modified`, ...), all checked by the compiler. [`Doc<T>`] reads and writes the stored JSON.
//!
//! ```
//! use docmodel::{Doc, DocModel};
//! use serde::{Deserialize, Serialize};
//!
//! /// A registered user.
//! #[derive(Debug, Serialize, Deserialize, DocModel)]
//! #[serde(rename_all = "camelCase")]
//! #[docmodel(type = "user", schema = "3.0", key = "user::{user_id}")]
//! pub struct User {
//!     /// The user's id, fixed at creation.
//!     #[docmodel(get)]
//!     user_id: u64,
//!     /// Given name.
//!     #[docmodel(get, set)]
//!     first_name: String,
//! }
//!
//! assert_eq!(User::key(123).as_str(), "user::123");
//!
//! let doc = Doc::new(User { user_id: 123, first_name: "Joe".into() })?;
//! let stored = doc.to_vec()?;
//! assert_eq!(stored, br#"{"_type":"user","_schema":"3.0","_ver":1,"userId":123,"firstName":"Joe"}"#);
//! # Ok::<(), docmodel::Error>(())
//! ```
//!
//! The attribute's full grammar is in the [`DocModel`](derive@DocModel) derive's documentation.

#![warn(missing_docs)]

mod codec;
mod doc;
mod envelope;
mod error;
mod key;
mod schema;
mod timestamp;

pub use semver;

pub use crate::doc::Doc;
pub use crate::envelope::{
    Conventions, DefaultConventions, Envelope, EnvelopeField, EnvelopeSpec, Layout,
};
pub use crate::error::Error;
pub use crate::key::{Key, KeyPart, KeyTemplate, Segment};
pub use crate::schema::parse_schema;
pub use crate::timestamp::{Timestamp, TimestampFormat};

/// Derives [`DocModel`](trait@DocModel) and the model's key constructor and accessors.
///
/// See the crate's README for the attribute's grammar.
pub use docmodel_derive::DocModel;

/// A document model: a struct with a type, a schema version, a key template and an envelope layout.
///
/// Implemented by `#[derive(DocModel)]`; the derive checks the model when it compiles. Writing an impl by
/// hand is possible but loses those checks.
pub trait DocModel: Sized {
    /// The document type, stored in `_type`.
    const TYPE: &'static str;
    /// The current schema version.
    const SCHEMA: semver::Version;
    /// The current schema version as the model writes it in `_schema` (`"3.0"`).
    const SCHEMA_TEXT: &'static str;
    /// The key template.
    const KEY: KeyTemplate;
    /// The envelope layout, names and timestamp format.
    const ENVELOPE: EnvelopeSpec;

    /// The values a key is built from, as a tuple in template order (`(u64,)` for `user::{user_id}`).
    type KeyParts;

    /// The key of this value.
    ///
    /// Fails with [`Error::InvalidKey`] if a key field is empty or holds a character of the delimiter.
    fn key(&self) -> Result<Key<Self>, Error>;

    /// Splits `key` into its parts, checking it against [`KEY`](DocModel::KEY).
    fn parse_key_parts(key: &str) -> Result<Self::KeyParts, Error>;
}

#[doc(hidden)]
/// Not public API: what the derive's expansion calls.
pub mod __private {
    pub use core;
    pub use std::string::String;

    use crate::{DocModel, Error, Key, KeyPart};

    /// Appends one part to a key under construction, refusing empty parts and parts holding a delimiter
    /// character.
    #[inline]
    pub fn push_part<T: DocModel, P: KeyPart + ?Sized>(
        out: &mut String,
        name: &'static str,
        part: &P,
    ) -> Result<(), Error> {
        push_part_with::<T>(out, name, |out| part.write_part(out))
    }

    /// [`push_part`] with the part's writer given, for parts whose type the expansion checked once.
    #[inline]
    pub fn push_part_with<T: DocModel>(
        out: &mut String,
        name: &'static str,
        write: impl FnOnce(&mut String),
    ) -> Result<(), Error> {
        crate::key::push_part(out, &T::KEY, T::TYPE, name, write)
    }

    /// A key whose text the expansion built from the template.
    #[inline]
    pub fn key<T: DocModel>(text: String) -> Key<T> {
        Key::from_checked(text)
    }

    /// Splits a key into its `N` parts.
    #[inline]
    pub fn split_key<T: DocModel, const N: usize>(text: &str) -> Result<[&str; N], Error> {
        T::KEY.split(T::TYPE, text)
    }

    /// Parses one part of a key.
    #[inline]
    pub fn parse_part<T: DocModel, P: KeyPart>(
        text: &str,
        key: &str,
        name: &'static str,
    ) -> Result<P, Error> {
        parse_part_with::<T, P>(text, key, name, P::parse_part)
    }

    /// [`parse_part`] with the part's parser given.
    #[inline]
    pub fn parse_part_with<T: DocModel, P>(
        text: &str,
        key: &str,
        name: &'static str,
        parse: fn(&str) -> Option<P>,
    ) -> Result<P, Error> {
        parse(text).ok_or_else(|| Error::InvalidKey {
            model: T::TYPE,
            key: key.to_owned(),
            reason: format!(
                "the part `{name}` = {text:?} is not a valid `{}`",
                core::any::type_name::<P>()
            ),
        })
    }

    pub use crate::envelope::assert_delimiter;

    /// The writer and parser of a key part type, named once so that a type that is not a [`KeyPart`] is
    /// reported once, at the field's type.
    pub type PartFns<P> = (fn(&P, &mut String), fn(&str) -> Option<P>);
}
