//! The one error type of docmodel.

mod display;

use std::error::Error as StdError;
use std::fmt;

use crate::validate::FieldError;

/// Everything that can go wrong while building keys, reading or writing documents.
///
/// Match on the variant to react to a kind of failure; every message names the document key (where one is
/// known), the versions involved and what was found.
///
/// ```
/// use docmodel::Error;
///
/// let err = Error::validation("phones", "a phone number has 10 digits");
/// assert_eq!(err.to_string(), "invalid value for `phones`: a phone number has 10 digits");
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// No document is stored under the key.
    NotFound {
        /// The key that was looked up.
        key: String,
    },

    /// The document changed since it was read (compare-and-swap mismatch); nothing was written.
    Conflict {
        /// The key of the document.
        key: String,
    },

    /// A document is already stored under the key; nothing was written.
    AlreadyExists {
        /// The key of the document.
        key: String,
    },

    /// A unique value is held by more than one document: servers that replicate each other each accepted a
    /// document with it, and the lookup document naming them is in conflict. Read by
    /// [`Repo::get_by_lookup`](crate::Repo::get_by_lookup); settled by
    /// [`Repo::settle_lookup`](crate::Repo::settle_lookup). Nothing was written.
    DuplicateValue {
        /// The lookup's key (`email::ada@example.com`).
        lookup: String,
        /// The keys of the documents holding the value, in key order.
        keys: Vec<String>,
    },

    /// The stored document is of another type than the model reading it, or has no type field.
    WrongType {
        /// The key of the document, when it is known.
        key: Option<String>,
        /// The name of the type field that was read (`_type` in the flat layout).
        field: &'static str,
        /// The model's type.
        expected: &'static str,
        /// The type the document carries; `None` when it has no type field.
        found: Option<String>,
    },

    /// The stored document has no schema field, so it cannot be read safely.
    MissingSchema {
        /// The key of the document, when it is known.
        key: Option<String>,
        /// The name of the schema field that was looked for (`_schema` in the flat layout).
        field: &'static str,
    },

    /// The document was written by a newer major version of the model than this code knows.
    SchemaTooNew {
        /// The key of the document, when it is known.
        key: Option<String>,
        /// The schema version the document carries.
        found: String,
        /// The model's current schema version.
        current: String,
    },

    /// The document carries a schema version this model cannot read (not semver, or older than any
    /// version the model knows how to migrate from).
    UnsupportedSchema {
        /// The key of the document, when it is known.
        key: Option<String>,
        /// The schema version (or text) the document carries.
        found: String,
        /// The model's current schema version.
        current: String,
        /// Why it cannot be read.
        reason: String,
    },

    /// A step of the model's migration chain failed; the document is left as it is stored.
    Migration {
        /// The key of the document, when it is known.
        key: Option<String>,
        /// The version the failing step reads.
        from: String,
        /// The version it moves the document to.
        to: String,
        /// What went wrong.
        source: MigrationError,
    },

    /// A key could not be built or parsed, or a store cannot hold it.
    InvalidKey {
        /// The model's type; empty when a store refused the key (CouchDB reserves ids starting with `_`).
        model: &'static str,
        /// The key text, as far as it was built or as it was given.
        key: String,
        /// What is wrong with it.
        reason: String,
    },

    /// The body breaks the model's rules: its `validate` function or garde rules, checked before every
    /// write (and on read with `validate_on_read`), or a setter's `set(with = ...)` function. Nothing was
    /// written.
    Validation {
        /// The key of the document, when it is known.
        key: Option<String>,
        /// Every failing value, with its JSON path; never empty.
        errors: Vec<FieldError>,
    },

    /// A [`try_update`](crate::Repo::try_update) closure stopped the update with the application's own error,
    /// given back here; nothing was written. [`Error::into_application`] takes it out as its type.
    Application {
        /// The key of the document.
        key: Option<String>,
        /// The closure's error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },

    /// The store failed (I/O, connection, a value of the wrong kind, a capability it lacks). Its
    /// [`StoreErrorKind`] says whether the operation did not happen and a retry may succeed
    /// ([`Transient`](StoreErrorKind::Transient)), whether a write may or may not have happened
    /// ([`Ambiguous`](StoreErrorKind::Ambiguous)), whether retrying is pointless
    /// ([`Permanent`](StoreErrorKind::Permanent)), or whether the store does not do the operation at all
    /// ([`Unsupported`](StoreErrorKind::Unsupported)).
    Store {
        /// The key of the document, when it is known; `None` for a failure of the store as a whole (a file
        /// that cannot be opened), which the message then names.
        key: Option<String>,
        /// What a retry can expect.
        kind: StoreErrorKind,
        /// What the backend reported.
        source: Box<dyn std::error::Error + Send + Sync>,
    },

    /// The document's `_ver` cannot count another save: it is at `u64::MAX`. Nothing was written.
    VersionLimit {
        /// The key of the document.
        key: String,
        /// The version it is at.
        ver: u64,
    },

    /// The document is larger or nests deeper than the repository writes ([`Repo::limits`](crate::Repo::limits));
    /// nothing was written.
    OverLimit {
        /// The key of the document.
        key: String,
        /// Which limit.
        limit: crate::Limit,
        /// The document's size (bytes) or depth (levels, counting the document itself).
        found: usize,
        /// The limit.
        max: usize,
    },

    /// A three-way merge found places both sides changed differently that no merge rule of the model
    /// decides ([`Resolve::merge`](crate::Resolve::merge), [`Repo::save_merging`](crate::Repo::save_merging)).
    /// Nothing was written.
    MergeConflict {
        /// The key of the document.
        key: String,
        /// Every place undecided, in document order, with its base, ours and theirs values.
        conflicts: Vec<crate::merge::MergeConflict>,
    },

    /// [`Repo::remove_with_items`](crate::Repo::remove_with_items) found items stored at an older schema than
    /// their model's, which a find by their parent field may miss: they are to be migrated first
    /// ([`Repo::migrate_all`](crate::Repo::migrate_all)). Nothing was written.
    ItemsNotMigrated {
        /// The key of the document to remove.
        key: String,
        /// The items' model (`_type`).
        items: &'static str,
        /// How many of its documents were found at an older schema (at least this many).
        count: usize,
        /// The items' model's schema version.
        schema: &'static str,
    },

    /// [`EventLog::compact`](crate::EventLog::compact) was asked to fold the events from before a horizon
    /// that another replica may not have synchronised yet: newer than the log's replication horizon allows,
    /// or on a log that declares none. Nothing was changed.
    CompactionHorizon {
        /// The log's key prefix: `bookmarks::alice`.
        log: String,
        /// The horizon asked for.
        horizon: crate::Timestamp,
        /// The newest horizon the log allows now (its clock less its replication horizon); `None` where it
        /// declares no replication horizon.
        limit: Option<crate::Timestamp>,
    },

    /// A three-way merge needs a version every side descends from, and none is kept: the model keeps no
    /// revisions, they were pruned past the point where the sides went apart, or the sides are two documents
    /// created apart under one key (one removed and created again, here or on another replica; a stale
    /// save's document among them). Nothing was written; [`Repo::resolve`](crate::Repo::resolve) with a
    /// pick still resolves a conflict, and a stale edit is made again on the document read anew.
    NoMergeBase {
        /// The key of the document.
        key: String,
        /// The version of each side, in the store's order (the revision read first).
        versions: Vec<u64>,
        /// The versions whose copies were read and found to differ, or missing, newest first.
        checked: Vec<u64>,
    },

    /// A three-way merge needs a version every side descends from, shown by each side's own history: each
    /// side's document, then the revision copies that record it as saved from them, down to a version all
    /// sides reach (see [`EnvelopeField::CopyNext`](crate::EnvelopeField::CopyNext)). A copy one side wrote is never
    /// taken for another side's; here a side's history stops at a copy this store does not hold (yet): on
    /// servers that replicate, the copies travel apart from their document, and a merge made before they
    /// arrive would take one side's version for both. Nothing was written; the same merge succeeds once the
    /// copies have replicated (so this is [`ErrorClass::Transient`]). A copy pruned past the point where the
    /// sides went apart never arrives: keep more history (`revisions`), or resolve with a pick.
    MergeHistoryMissing {
        /// The key of the document.
        key: String,
        /// The version of each side, in the store's order (the revision read first).
        versions: Vec<u64>,
        /// For each side whose history stops, the version whose copy (recording the version above it as
        /// saved from it) is not here, newest first.
        missing: Vec<u64>,
    },

    /// The store holds another stored shape for the model's schema version than this program's
    /// ([`Repo::ensure_schema`](crate::Repo::ensure_schema)): a program changed the struct without bumping
    /// the version. Nothing was written.
    SchemaMismatch {
        /// The model's type.
        type_name: &'static str,
        /// The schema version.
        version: crate::SchemaVersion,
        /// The fingerprint the store records.
        recorded: String,
        /// This program's.
        ours: String,
        /// What this program's shape changes from the recorded one, as [`lock::check`](crate::lock::check)
        /// compares (the structs the body holds included where both programs know them); empty where only
        /// the fingerprints tell (a field the record requires that this program reads when missing).
        changes: Vec<crate::lock::Change>,
    },

    /// The stored bytes are not valid JSON for the model, or the model could not be serialized.
    Codec {
        /// The key of the document, when it is known.
        key: Option<String>,
        /// The stored field whose value did not read, as a path from the top of the body: `gdp`,
        /// `phones[2].number` (the top-level field alone, `phones`, for a document read after a JSON
        /// migration step). `None` when the error is not one field's (not JSON, a field missing: serde's
        /// message names it) or when writing.
        field: Option<String>,
        /// The underlying JSON error, with line and column.
        source: serde_json::Error,
    },

    /// A [`HashKey`](crate::HashKey) was refused (shorter than 32 bytes), or a repository was asked
    /// to hash a value without having been given one ([`Repo::hash_key`](crate::Repo::hash_key)).
    #[cfg(feature = "hashed")]
    HashKey {
        /// What is wrong, naming the model for a repository without a key.
        reason: String,
    },
}

impl Error {
    /// A validation failure for `field`, for use in `set(with = ...)` functions.
    ///
    /// ```
    /// fn normalize(phone: String) -> Result<String, docmodel::Error> {
    ///     let digits: String = phone.chars().filter(char::is_ascii_digit).collect();
    ///     if digits.len() != 10 {
    ///         return Err(docmodel::Error::validation("phone", format!("{phone:?} does not have 10 digits")));
    ///     }
    ///     Ok(digits)
    /// }
    /// assert_eq!(normalize("111-222-3333".into()).unwrap(), "1112223333");
    /// assert!(normalize("123".into()).is_err());
    /// ```
    pub fn validation(field: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Validation {
            key: None,
            errors: vec![FieldError::new(field, message)],
        }
    }

    /// The failing values of an [`Error::Validation`]; empty for every other error.
    pub fn field_errors(&self) -> &[FieldError] {
        match self {
            Error::Validation { errors, .. } => errors,
            _ => &[],
        }
    }

    /// The application's own error out of a [`try_update`](crate::Repo::try_update) closure, as its type; any
    /// other error is given back as it is.
    ///
    /// ```
    /// use docmodel::Error;
    ///
    /// #[derive(Debug, thiserror::Error, PartialEq)]
    /// #[error("the account is frozen")]
    /// struct Frozen;
    ///
    /// let err = Error::application(Frozen);
    /// assert_eq!(err.to_string(), "the update was stopped: the account is frozen");
    /// assert_eq!(err.into_application::<Frozen>().unwrap(), Frozen);
    /// ```
    pub fn into_application<E: std::error::Error + 'static>(self) -> Result<E, Self> {
        match self {
            Error::Application { key, source } => match source.downcast::<E>() {
                Ok(found) => Ok(*found),
                Err(source) => Err(Error::Application { key, source }),
            },
            other => Err(other),
        }
    }

    /// An application's error, as a [`try_update`](crate::Repo::try_update) closure returns it: a docmodel
    /// [`Error`] stays itself, anything else becomes [`Error::Application`].
    pub fn application(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        let source = error.into();
        match source.downcast::<Error>() {
            Ok(own) => *own,
            Err(source) => Error::Application { key: None, source },
        }
    }

    /// A store failure for `key` that retrying will not fix, for backends.
    pub fn store(key: &str, source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Error::store_with(StoreErrorKind::Permanent, key, source)
    }

    /// A store failure of the given kind for `key`, for backends: a timeout before the request was sent is
    /// [`StoreErrorKind::Transient`], one after a write was sent [`StoreErrorKind::Ambiguous`].
    ///
    /// ```
    /// use docmodel::{Error, ErrorClass, StoreErrorKind};
    ///
    /// let err = Error::store_with(StoreErrorKind::Transient, "user::1", "connection refused");
    /// assert_eq!(err.class(), ErrorClass::Transient);
    /// assert_eq!(
    ///     err.to_string(),
    ///     "document `user::1`: the store failed, and a retry may succeed: connection refused"
    /// );
    /// ```
    pub fn store_with(
        kind: StoreErrorKind,
        key: &str,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Error::Store {
            key: Some(key.to_owned()),
            kind,
            source: source.into(),
        }
    }

    /// What a caller can do about this error; see [`ErrorClass`].
    ///
    /// ```
    /// use docmodel::{Error, ErrorClass};
    ///
    /// let err = Error::Conflict { key: "user::1".into() };
    /// assert_eq!(err.class(), ErrorClass::Conflict);
    /// assert_eq!(Error::validation("name", "empty").class(), ErrorClass::Permanent);
    /// ```
    pub fn class(&self) -> ErrorClass {
        match self {
            Error::Conflict { .. } => ErrorClass::Conflict,
            Error::NotFound { .. } => ErrorClass::NotFound,
            Error::AlreadyExists { .. } => ErrorClass::AlreadyExists,
            Error::Store { kind, .. } => match kind {
                StoreErrorKind::Transient => ErrorClass::Transient,
                StoreErrorKind::Ambiguous => ErrorClass::Ambiguous,
                StoreErrorKind::Permanent | StoreErrorKind::Unsupported => ErrorClass::Permanent,
            },
            Error::MergeHistoryMissing { .. } => ErrorClass::Transient,
            _ => ErrorClass::Permanent,
        }
    }

    /// A JSON error of no field's: the bytes are not JSON, or a value could not be written.
    pub(crate) fn codec(source: serde_json::Error) -> Self {
        Error::Codec {
            key: None,
            field: None,
            source,
        }
    }

    /// Attaches the document key to errors raised before the key was known.
    pub(crate) fn with_key(mut self, known: &str) -> Self {
        match &mut self {
            Error::WrongType { key, .. }
            | Error::MissingSchema { key, .. }
            | Error::SchemaTooNew { key, .. }
            | Error::UnsupportedSchema { key, .. }
            | Error::Migration { key, .. }
            | Error::Store { key, .. }
            | Error::Codec { key, .. }
            | Error::Validation { key, .. }
            | Error::Application { key, .. }
                if key.is_none() =>
            {
                *key = Some(known.to_owned());
            }
            _ => {}
        }
        self
    }
}

/// How a [`Error::Store`] failure bears on a retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StoreErrorKind {
    /// The operation did not happen (a refused connection, a timeout before the request was sent, a busy
    /// server); the same operation again may succeed.
    Transient,
    /// A write may or may not have happened (a timeout after the request was sent, Couchbase's ambiguous
    /// timeout): read before writing again.
    Ambiguous,
    /// Retrying will not help: a broken file, a refused login, a value the store refuses.
    Permanent,
    /// The store does not do this operation at all (one its [`Capabilities`](crate::store::Capabilities) do
    /// not claim: a scan, a query, an atomic batch, an expiry). Nothing was written; retrying will not help,
    /// and a caller with another way to the same end (the repository saving step by step instead of in one
    /// batch) takes it.
    Unsupported,
}

impl StoreErrorKind {
    fn describe(self) -> &'static str {
        match self {
            StoreErrorKind::Transient => "the store failed, and a retry may succeed",
            StoreErrorKind::Ambiguous => {
                "the store failed, and the write may or may not have happened"
            }
            StoreErrorKind::Permanent => "the store failed",
            StoreErrorKind::Unsupported => "the store does not support this",
        }
    }
}

/// What a caller can do about an [`Error`]: the classes a retry loop acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorClass {
    /// Another writer changed the document since it was read: read it again and redo the change.
    Conflict,
    /// Nothing is stored under the key.
    NotFound,
    /// Something is already stored under the key.
    AlreadyExists,
    /// Nothing happened; the same operation may succeed later.
    Transient,
    /// A write may or may not have happened: read to find out before writing again.
    Ambiguous,
    /// Repeating the operation gives the same error.
    Permanent,
}

/// `: field `x` added; ...` after a schema mismatch's fingerprints, where the changes are known.
struct ChangesLabel<'a>(&'a [crate::lock::Change]);

impl fmt::Display for ChangesLabel<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (at, change) in self.0.iter().enumerate() {
            f.write_str(if at == 0 { ": " } else { "; " })?;
            change.fmt(f)?;
        }
        Ok(())
    }
}

/// `document "user::1"`, or `document` when the key is not known.
struct DocLabel<'a>(&'a Option<String>);

impl fmt::Display for DocLabel<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(key) => write!(f, "document `{key}`"),
            None => f.write_str("document"),
        }
    }
}

/// `4 and 5`, `4, 5 and 6`, `none`.
struct Versions<'a>(&'a [u64]);

impl fmt::Display for Versions<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            [] => f.write_str("none"),
            [only] => write!(f, "{only}"),
            [before @ .., last] => {
                for (at, version) in before.iter().enumerate() {
                    if at > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{version}")?;
                }
                write!(f, " and {last}")
            }
        }
    }
}

/// What the versions a merge checked for a base hold: `versions 5, 4 and 3 are each held differently by the
/// sides or kept by only one`.
struct Checked<'a>(&'a [u64]);

impl fmt::Display for Checked<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            [] => f.write_str("no version below them is kept by every side"),
            [only] => write!(
                f,
                "version {only} is held differently by the sides or kept by only one"
            ),
            versions => write!(
                f,
                "versions {} are each held differently by the sides or kept by only one, and none older \
                 by every side",
                Versions(versions)
            ),
        }
    }
}

/// `` `user::1`, `user::2` ``.
struct Keys<'a>(&'a [String]);

impl fmt::Display for Keys<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (at, key) in self.0.iter().enumerate() {
            if at > 0 {
                f.write_str(", ")?;
            }
            write!(f, "`{key}`")?;
        }
        Ok(())
    }
}

/// `, field `gdp``, or nothing when no field is named.
struct FieldLabel<'a>(&'a Option<String>);

impl fmt::Display for FieldLabel<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(field) => write!(f, ", field `{field}`"),
            None => Ok(()),
        }
    }
}

/// `document `user::1`: `, or nothing when the key is not known.
struct KeyPrefix<'a>(&'a Option<String>);

impl fmt::Display for KeyPrefix<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(key) => write!(f, "document `{key}`: "),
            None => Ok(()),
        }
    }
}

/// Why a compaction's horizon is too new.
struct Limit<'a>(&'a Option<crate::Timestamp>);

impl fmt::Display for Limit<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(limit) => write!(
                f,
                "another replica may not have synchronised the events from before it yet (the log's \
                 replication horizon allows {limit} at the newest)"
            ),
            None => f.write_str(
                "the log declares no replication horizon (`EventLog::replication_horizon`), so it cannot \
                 know which events every replica holds",
            ),
        }
    }
}

/// ` for type `user``, or nothing for a key no model was named with.
struct ForModel<'a>(&'a str);

impl fmt::Display for ForModel<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            "" => Ok(()),
            model => write!(f, " for type `{model}`"),
        }
    }
}

/// `found "order"`, or `but the document has no `_type` field`.
struct Found<'a>(&'a str, &'a Option<String>);

impl fmt::Display for Found<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1 {
            Some(found) => write!(f, "found {found:?}"),
            None => write!(f, "but the document has no `{}` field", self.0),
        }
    }
}

/// Why a migration step failed.
///
/// ```
/// use docmodel::{JsonObject, MigrationError};
///
/// fn split_name(doc: &mut JsonObject) -> Result<(), MigrationError> {
///     let name = doc.remove("name").ok_or_else(|| MigrationError::missing_field("name"))?;
///     let name = name.as_str().ok_or_else(|| MigrationError::new("`name` is not a string"))?;
///     let (first, last) = name.split_once(' ').unwrap_or((name, ""));
///     doc.insert("firstName".into(), first.into());
///     doc.insert("lastName".into(), last.into());
///     Ok(())
/// }
///
/// let mut doc = JsonObject::new();
/// assert_eq!(split_name(&mut doc).unwrap_err().to_string(), "the field `name` is missing");
/// ```
#[derive(Debug)]
pub struct MigrationError {
    message: String,
    source: Option<Box<dyn StdError + Send + Sync>>,
}

impl MigrationError {
    /// A failure described by `message`.
    pub fn new(message: impl Into<String>) -> Self {
        MigrationError {
            message: message.into(),
            source: None,
        }
    }

    /// A failure caused by `source`, described by `message`.
    pub fn with_source(
        message: impl Into<String>,
        source: impl Into<Box<dyn StdError + Send + Sync>>,
    ) -> Self {
        MigrationError {
            message: message.into(),
            source: Some(source.into()),
        }
    }

    /// The document has no field `name`, which the step needs.
    pub fn missing_field(name: &str) -> Self {
        MigrationError::new(format!("the field `{name}` is missing"))
    }
}

impl fmt::Display for MigrationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl StdError for MigrationError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.source
            .as_deref()
            .map(|source| source as &(dyn StdError + 'static))
    }
}

impl From<serde_json::Error> for MigrationError {
    fn from(source: serde_json::Error) -> Self {
        MigrationError::with_source(source.to_string(), source)
    }
}
