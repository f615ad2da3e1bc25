//! `Doc<T>`: a model's body together with its envelope, as stored.

use std::ops::{Deref, DerefMut};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::codec::{self, Decoded, Written};
use crate::migrate::read;
use crate::store::{Cas, Stored};
use crate::{DocModel, Envelope, Error, Key, KeyInBody, SchemaVersion};

/// A document: the body `T` (a plain domain struct), its key, its envelope values, and any fields a newer
/// version of the model wrote that this code does not know (kept and written back unchanged).
///
/// `Doc<T>` derefs to `T`, so the model's accessors work on it directly.
///
/// ```
/// use docmodel::{Doc, DocModel};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, DocModel)]
/// #[serde(rename_all = "camelCase")]
/// #[docmodel(type = "user", schema = "3.0", key = "user::{user_id}")]
/// struct User {
///     #[docmodel(get)]
///     user_id: u64,
///     #[docmodel(get, set)]
///     first_name: String,
/// }
///
/// let mut doc = Doc::new(User { user_id: 123, first_name: "Joe".into() })?;
/// doc.set_first_name("Joseph");
/// assert_eq!(doc.key().as_str(), "user::123");
/// assert_eq!(
///     String::from_utf8(doc.to_vec()?).unwrap(),
///     r#"{"_type":"user","_schema":"3.0","_ver":1,"userId":123,"firstName":"Joseph"}"#
/// );
///
/// let read = Doc::<User>::from_slice(&doc.to_vec()?)?;
/// assert_eq!(read.first_name(), "Joseph");
/// # Ok::<(), docmodel::Error>(())
/// ```
pub struct Doc<T> {
    key: Key<T>,
    /// The body, the envelope values and the fields this code does not know.
    decoded: Decoded<T>,
    /// The bytes and CAS token the store holds for this document, when it came from (or went to) a store.
    stored: Option<Stored>,
    /// The lookup keys of the body as stored, for a save to move the ones that changed.
    lookups: Vec<String>,
}

impl<T: DocModel> Doc<T> {
    /// A new document holding `body`, at version 1, with its key built from the body.
    ///
    /// Fails with [`Error::InvalidKey`] when a key field holds a value that cannot be part of a key, and
    /// [`Error::Validation`] when the body breaks the model's rules
    /// ([`DocModel::validate_body`]).
    pub fn new(body: T) -> Result<Self, Error> {
        let doc = Doc::unchecked(body)?;
        doc.validate()?;
        Ok(doc)
    }

    /// A new document holding `body`, whose rules are checked when it is written.
    pub(crate) fn unchecked(body: T) -> Result<Self, Error> {
        let key = body.doc_key()?;
        Ok(Doc::from_decoded(key, Decoded::new(body)))
    }

    /// This document, read, once the model's rules pass for it if the model checks reads
    /// ([`DocModel::VALIDATES_ON_READ`]).
    pub(crate) fn checked_read(self) -> Result<Self, Error> {
        if T::VALIDATES_ON_READ {
            self.validate()?;
        }
        Ok(self)
    }

    /// Checks the body against the model's rules.
    fn validate(&self) -> Result<(), Error> {
        self.decoded
            .body
            .validate_body()
            .map_err(|errors| Error::Validation {
                key: Some(self.key.as_str().to_owned()),
                errors,
            })
    }

    /// Reads a stored document.
    ///
    /// Fails with [`Error::WrongType`] when the document is of another type (or has none),
    /// [`Error::MissingSchema`] when it carries no schema version, [`Error::SchemaTooNew`] or
    /// [`Error::UnsupportedSchema`] when its schema is not one this model reads, [`Error::Migration`] when a
    /// step of the migration chain fails, [`Error::Codec`] when the bytes are not the model's JSON,
    /// [`Error::InvalidKey`] when the key fields cannot form a key, and [`Error::Validation`] (naming the key)
    /// when the model checks reads (`validate_on_read`) and the body breaks its rules.
    ///
    /// A document of an older schema is migrated to the current one ([`Doc::migrated_from`] says from
    /// which); one of a newer minor version is read with the fields this code does not know kept, and is
    /// written back with its own schema version.
    ///
    /// A model whose body leaves key parts to the key (`#[docmodel(from_key)]`) is read with
    /// [`Doc::from_slice_at`], which has the key: calling this one for it does not compile.
    pub fn from_slice(bytes: &[u8]) -> Result<Self, Error>
    where
        T: DeserializeOwned + KeyInBody,
    {
        if T::KEY_ONLY_PARTS {
            // A hand-written `KeyInBody` on a model whose body leaves parts to the key: its key would be
            // built from defaults.
            return Err(Error::InvalidKey {
                model: T::TYPE,
                key: String::new(),
                reason: "the model keeps key parts out of its body (`from_key`): read it with \
                         `Doc::from_slice_at(key, bytes)`"
                    .to_owned(),
            });
        }
        let decoded = read::read::<T>(bytes)?;
        let key = decoded.body.doc_key()?;
        Doc::from_decoded(key, decoded).checked_read()
    }

    /// Reads the document stored under `key`: as [`Doc::from_slice`], with every error naming the key, and
    /// failing with [`Error::InvalidKey`] when the body's key fields give another key than the one it is
    /// stored under.
    ///
    /// ```
    /// # use docmodel::{Doc, DocModel, Error};
    /// # #[derive(Debug, serde::Serialize, serde::Deserialize, DocModel)]
    /// # #[docmodel(type = "user", schema = "3.0", key = "user::{id}")]
    /// # struct User { id: u64 }
    /// let err = Doc::from_slice_at(User::key(1), br#"{"_type":"user","_schema":"4.0","id":1}"#).unwrap_err();
    /// assert!(err.to_string().starts_with("document `user::1`: schema 4.0 is newer"));
    ///
    /// let err = Doc::from_slice_at(User::key(1), br#"{"_type":"user","_schema":"3.0","id":2}"#).unwrap_err();
    /// assert!(matches!(err, Error::InvalidKey { .. }));
    /// ```
    pub fn from_slice_at(key: Key<T>, bytes: &[u8]) -> Result<Self, Error>
    where
        T: DeserializeOwned,
    {
        Doc::read_at(key, bytes)?.checked_read()
    }

    /// [`Doc::from_slice_at`] without the model's rules: what the repository reads to write, remove or list
    /// history, so that a document that breaks them can still be fixed or removed.
    pub(crate) fn read_at(key: Key<T>, bytes: &[u8]) -> Result<Self, Error>
    where
        T: DeserializeOwned,
    {
        let mut decoded = read::read::<T>(bytes).map_err(|err| err.with_key(key.as_str()))?;
        // Parts the body does not store are the key's (`from_key`).
        decoded.body.fill_from_key(key.as_str())?;
        #[cfg(feature = "tracing")]
        if let Some(from) = decoded.migrated_from {
            crate::trace::event!(tracing::Level::DEBUG, {
                docmodel.key = %crate::trace::Private(key.as_str()),
                from = %from,
                to = %T::SCHEMA_TEXT,
            }, "migrated on read");
        }
        let body_key = decoded.body.doc_key()?;
        if body_key != key {
            return Err(Error::InvalidKey {
                model: T::TYPE,
                key: key.into_string(),
                reason: format!(
                    "the document stored under it holds the key fields of `{body_key}`"
                ),
            });
        }
        Ok(Doc::from_decoded(key, decoded))
    }

    /// Refuses to write a body whose key fields no longer give the document's key. The key is rebuilt in a
    /// buffer kept per thread, so writing a document allocates nothing for it.
    fn check_key(&self) -> Result<(), Error> {
        thread_local!(static BUFFER: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) });
        let check = |buffer: &mut String| {
            buffer.clear();
            self.decoded.body.write_key(buffer)?;
            if buffer.as_str() == self.key.as_str() {
                return Ok(());
            }
            Err(Error::InvalidKey {
                model: T::TYPE,
                key: self.key.as_str().to_owned(),
                reason: format!(
                    "the body's key fields now give `{buffer}`; a document cannot change its key"
                ),
            })
        };
        BUFFER.with(|buffer| match buffer.try_borrow_mut() {
            Ok(mut buffer) => check(&mut buffer),
            // A `KeyPart` that writes a document while its key is checked: use a buffer of its own.
            Err(_) => check(&mut String::new()),
        })
    }

    fn from_decoded(key: Key<T>, decoded: Decoded<T>) -> Self {
        Doc {
            key,
            decoded,
            stored: None,
            lookups: Vec::new(),
        }
    }

    /// The store's compare-and-swap token for this document, when it came from a store.
    pub fn cas(&self) -> Option<&Cas> {
        self.stored.as_ref().map(|stored| &stored.cas)
    }

    /// The other revisions of this document the store holds, as it was read: versions that servers
    /// replicating each other wrote at the same time as this one (CouchDB's `_conflicts`; this is the revision
    /// the store ranks first). Always empty on a store that keeps one value per key.
    ///
    /// A save writes over this revision and leaves the others; [`Repo::resolve`](crate::Repo::resolve) keeps
    /// one version and the others as revision copies.
    pub fn conflicts(&self) -> &[Cas] {
        self.stored
            .as_ref()
            .map_or(&[][..], |stored| stored.conflicts.as_slice())
    }

    /// Whether the store holds revisions of this document in conflict with it: see [`Doc::conflicts`].
    pub fn has_conflicts(&self) -> bool {
        !self.conflicts().is_empty()
    }

    /// The bytes and token the store holds for this document.
    pub(crate) fn stored(&self) -> Option<&Stored> {
        self.stored.as_ref()
    }

    /// Records what the store holds for this document, and the lookup keys its body holds there.
    pub(crate) fn set_stored(&mut self, stored: Stored, lookups: Vec<String>) {
        self.stored = Some(stored);
        self.lookups = lookups;
    }

    /// The lookup keys of the body as stored.
    pub(crate) fn stored_lookups(&self) -> &[String] {
        &self.lookups
    }

    /// The stored JSON, as [`Doc::to_vec`] writes it, with other envelope values, and how deep it nests: the
    /// document itself is left as it is until the write is known to have succeeded.
    pub(crate) fn to_vec_with(&self, envelope: &Envelope) -> Result<Written, Error>
    where
        T: Serialize,
    {
        self.encode(envelope, Rules::Check)
    }

    /// [`Doc::to_vec_with`] without the model's rules: for a body written back as it was read (a touch,
    /// a losing revision kept as a copy), which is not a change to check.
    pub(crate) fn to_vec_as_read(&self, envelope: &Envelope) -> Result<Vec<u8>, Error>
    where
        T: Serialize,
    {
        Ok(self.encode(envelope, Rules::Skip)?.bytes)
    }

    /// Takes the content of another version of this document (its body, unknown fields, schema), keeping
    /// this one's key, envelope and store token: what a restore saves.
    pub(crate) fn take_content(&mut self, version: Doc<T>) {
        let Decoded {
            body,
            unknown,
            meta_unknown,
            migrated_from,
            newer_schema,
            envelope: _,
        } = version.decoded;
        let own = &mut self.decoded;
        (own.body, own.unknown, own.meta_unknown) = (body, unknown, meta_unknown);
        (own.migrated_from, own.newer_schema) = (migrated_from, newer_schema);
    }

    /// Records a successful write: its envelope values and what the store now holds.
    pub(crate) fn written(&mut self, envelope: Envelope, stored: Stored, lookups: Vec<String>) {
        self.decoded.envelope = envelope;
        self.set_stored(stored, lookups);
    }

    /// The stored JSON of the document: envelope, body, then the fields this code does not know.
    ///
    /// Fails with [`Error::InvalidKey`] if the body's key fields no longer give the document's key (they were
    /// changed through `DerefMut`): the body would be stored under a key it does not match; and with
    /// [`Error::Validation`] if the body breaks the model's rules ([`DocModel::validate_body`]).
    pub fn to_vec(&self) -> Result<Vec<u8>, Error>
    where
        T: Serialize,
    {
        Ok(self.encode(&self.decoded.envelope, Rules::Check)?.bytes)
    }

    /// The stored JSON, indented for people to read. Printing is not a write: the model's rules are not
    /// checked.
    pub fn to_string_pretty(&self) -> Result<String, Error>
    where
        T: Serialize,
    {
        self.check_key()?;
        let decoded = &self.decoded;
        let bytes = codec::encode_pretty(
            &decoded.body,
            &decoded.envelope,
            self.schema_text(),
            &decoded.unknown,
            &decoded.meta_unknown,
        )
        .map_err(|err| err.with_key(self.key.as_str()))?;
        // serde_json writes UTF-8.
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    fn encode(&self, envelope: &Envelope, rules: Rules) -> Result<Written, Error>
    where
        T: Serialize,
    {
        self.check_key()?;
        if rules == Rules::Check {
            self.validate()?;
        }
        let decoded = &self.decoded;
        // A new version is most often about as long as the one it replaces; 128 bytes (`serde_json::to_vec`'s
        // start) for a document never stored.
        let capacity = self.stored.as_ref().map_or(128, |stored| {
            stored.bytes.len() + stored.bytes.len() / 8 + 16
        });
        codec::encode(
            &decoded.body,
            envelope,
            self.schema_text(),
            (&decoded.unknown, &decoded.meta_unknown),
            capacity,
        )
        .map_err(|err| err.with_key(self.key.as_str()))
    }

    /// The schema the document is written at: the current one, or the newer minor version it was read at.
    fn schema_text(&self) -> &str {
        self.decoded
            .newer_schema
            .as_deref()
            .unwrap_or(T::SCHEMA_TEXT)
    }

    /// The document's key.
    pub fn key(&self) -> &Key<T> {
        &self.key
    }

    /// The envelope values: version, timestamps, actors.
    pub fn envelope(&self) -> &Envelope {
        &self.decoded.envelope
    }

    /// The envelope values, to set timestamps or actors by hand (a repository keeps them itself).
    pub fn envelope_mut(&mut self) -> &mut Envelope {
        &mut self.decoded.envelope
    }

    /// This document with `_geo` set, for a model that keeps it (`envelope(geo)`): the geohash the seeds
    /// store where a document was written. [`Repo::insert`](crate::Repo::insert) takes the document as it is.
    #[must_use]
    pub fn with_geo(mut self, geo: impl Into<String>) -> Self {
        self.decoded.envelope.geo = Some(geo.into());
        self
    }

    /// The fields of the stored document that this model does not know, by name, as raw JSON.
    pub fn unknown_fields(&self) -> impl Iterator<Item = (&str, &str)> {
        self.decoded
            .unknown
            .iter()
            .map(|(name, value)| (name, value.get()))
    }

    /// The schema the document was stored at, when reading it ran the migration chain; `None` when it was
    /// read as it was stored. Saving it writes the current schema.
    pub fn migrated_from(&self) -> Option<SchemaVersion> {
        self.decoded.migrated_from
    }

    /// The body.
    pub fn body(&self) -> &T {
        &self.decoded.body
    }

    /// The body, giving up the envelope and the unknown fields.
    pub fn into_inner(self) -> T {
        self.decoded.body
    }
}

/// Whether an encoding checks the model's rules.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rules {
    Check,
    Skip,
}

impl<T: DocModel> Deref for Doc<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.decoded.body
    }
}

impl<T: DocModel> DerefMut for Doc<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.decoded.body
    }
}

impl<T: DocModel + std::fmt::Debug> std::fmt::Debug for Doc<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Doc")
            .field("key", &self.key)
            .field("envelope", &self.decoded.envelope)
            .field("body", &self.decoded.body)
            .field("unknown", &self.decoded.unknown)
            .field("meta_unknown", &self.decoded.meta_unknown)
            .field("migrated_from", &self.decoded.migrated_from)
            .field("newer_schema", &self.decoded.newer_schema)
            .finish()
    }
}

impl<T: DocModel + Clone> Clone for Doc<T> {
    fn clone(&self) -> Self {
        Doc {
            key: self.key.clone(),
            decoded: self.decoded.clone(),
            stored: self.stored.clone(),
            lookups: self.lookups.clone(),
        }
    }
}
