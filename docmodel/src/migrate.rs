//! Schema migration: a model's chain of steps from every older schema to the current one, applied on read.
//!
//! A document carries its schema version. Reading one of the current major version takes the one-pass path
//! of every read; only a document an older major version wrote (or one a listed step names) is parsed into a
//! [`JsonObject`], moved up the chain step by step, and then read as the current model.

use std::error::Error as StdError;
use std::fmt;

use semver::Version;
use serde::de::DeserializeOwned;

use crate::codec::{self, Decoded};
use crate::envelope::{EnvelopeField, Layout};
use crate::{Doc, DocModel, Envelope, Error};

/// A stored document as a JSON step sees it: the whole object, envelope included.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

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

/// One entry of a model's migration chain: the step that moves a document from the version `from` to the next
/// listed version (the last one to the current schema). Generated from `migrate_from(...)`.
pub struct Migration<T: 'static> {
    /// The version the step reads.
    pub from: Version,
    /// `from` as listed in the attribute (`"2.0"`).
    pub from_text: &'static str,
    /// What moves the document on.
    pub step: Step<T>,
}

/// Reads a document as an older model and converts its body, keeping the envelope values.
pub type TypedRead<T> = fn(&[u8]) -> Result<(T, Envelope), MigrationError>;

/// How a [`Migration`] moves a document on.
pub enum Step<T: 'static> {
    /// A function over the JSON object, listed by name.
    Json {
        /// The function's path as written in the attribute.
        name: &'static str,
        /// The function.
        run: fn(&mut JsonObject) -> Result<(), MigrationError>,
    },
    /// An older model of its own (with its own chain), converted to the current one with `TryFrom`.
    Typed {
        /// The older model's path as written in the attribute.
        name: &'static str,
        /// Reads the document as the older model and converts it.
        read: TypedRead<T>,
    },
}

impl<T> Step<T> {
    /// The step's name as written in the attribute.
    pub fn name(&self) -> &'static str {
        match self {
            Step::Json { name, .. } | Step::Typed { name, .. } => name,
        }
    }
}

impl<T> fmt::Debug for Migration<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.step {
            Step::Json { .. } => "json",
            Step::Typed { .. } => "typed",
        };
        write!(f, "{} = {} ({kind})", self.from_text, self.step.name())
    }
}

/// What reading a document of schema `version` takes.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Route {
    /// Read as the current model: the current major version, and no listed step for it.
    Read,
    /// Run the chain from this entry.
    Migrate(usize),
    /// A newer major version.
    TooNew,
    /// An older major version no step reads.
    Unsupported,
}

pub(crate) fn route<T: DocModel>(version: &Version) -> Route {
    // Schema versions have no pre-release or build part, so they order as (major, minor, patch); comparing
    // those is what every read does, and it is cheaper than `Version`'s own order.
    let current = (T::SCHEMA.major, T::SCHEMA.minor, T::SCHEMA.patch);
    let found = (version.major, version.minor, version.patch);
    if found.0 > current.0 {
        return Route::TooNew;
    }
    if found >= current {
        return Route::Read;
    }
    let chain = T::MIGRATIONS;
    // The step for a version is the last listed one of its major version at or below it (minor versions only
    // add fields), else the first listed one of its major version.
    let same_major = |entry: &&Migration<T>| entry.from.major == version.major;
    if let Some(at) = chain
        .iter()
        .rposition(|entry| same_major(&entry) && entry.from <= *version)
    {
        return Route::Migrate(at);
    }
    if let Some(at) = chain.iter().position(|entry| same_major(&entry)) {
        return Route::Migrate(at);
    }
    if found.0 == current.0 {
        return Route::Read;
    }
    // Older than the chain: an older model listed first reads it with its own chain.
    match chain.first() {
        Some(first) if matches!(first.step, Step::Typed { .. }) && *version < first.from => {
            Route::Migrate(0)
        }
        _ => Route::Unsupported,
    }
}

/// Whether a document of schema `version` goes through the chain, for the one-pass reader to stop early.
pub(crate) fn needs_migration<T: DocModel>(version: &Version) -> bool {
    matches!(route::<T>(version), Route::Migrate(_))
}

/// Runs the chain from entry `start` on a document of schema `version`, then reads the result.
pub(crate) fn migrate<T: DocModel + DeserializeOwned>(
    bytes: &[u8],
    version: Version,
    version_text: &str,
    start: usize,
) -> Result<Decoded<T>, Error> {
    let mut object: JsonObject =
        serde_json::from_slice(bytes).map_err(|source| Error::Codec { key: None, source })?;
    check_type::<T>(&object)?;
    let chain = T::MIGRATIONS;
    for (at, entry) in chain.iter().enumerate().skip(start) {
        let to = chain
            .get(at + 1)
            .map_or(T::SCHEMA_TEXT, |next| next.from_text);
        let failed = |source| Error::Migration {
            key: None,
            from: entry.from_text.to_owned(),
            to: to.to_owned(),
            source,
        };
        match entry.step {
            Step::Json { run, .. } => {
                run(&mut object).map_err(failed)?;
                set_schema(&mut object, &T::ENVELOPE, to).map_err(failed)?;
            }
            Step::Typed { read, .. } => {
                let bytes = serde_json::to_vec(&object).map_err(|err| failed(err.into()))?;
                let (body, envelope) = read(&bytes).map_err(|source| Error::Migration {
                    key: None,
                    from: entry.from_text.to_owned(),
                    to: T::SCHEMA_TEXT.to_owned(),
                    source,
                })?;
                return Ok(Decoded::migrated(body, envelope, version));
            }
        }
    }
    let bytes = serde_json::to_vec(&object).map_err(|source| Error::Codec { key: None, source })?;
    let mut decoded = codec::decode::<T>(&bytes).map_err(|err| match err {
        Error::Codec { source, .. } => Error::Migration {
            key: None,
            from: version_text.to_owned(),
            to: T::SCHEMA_TEXT.to_owned(),
            source: MigrationError::with_source(
                "the migrated document does not read as the current model",
                source,
            ),
        },
        other => other,
    })?;
    decoded.migrated_from = Some(version);
    Ok(decoded)
}

/// The envelope object of a document: the document itself, or its `meta` object.
fn envelope_object<'o>(
    object: &'o mut JsonObject,
    meta_name: &str,
    layout: Layout,
) -> Option<&'o mut JsonObject> {
    match layout {
        Layout::Meta => object.get_mut(meta_name)?.as_object_mut(),
        Layout::Flat | Layout::Plain => Some(object),
    }
}

fn check_type<T: DocModel>(object: &JsonObject) -> Result<(), Error> {
    let spec = &T::ENVELOPE;
    let field = spec.name(EnvelopeField::Type);
    let envelope = match spec.get_layout() {
        Layout::Meta => object
            .get(spec.get_meta_name())
            .and_then(|meta| meta.as_object()),
        Layout::Flat | Layout::Plain => Some(object),
    };
    match envelope.and_then(|envelope| envelope.get(field)) {
        Some(serde_json::Value::String(found)) if found == T::TYPE => Ok(()),
        found => Err(Error::WrongType {
            key: None,
            field,
            expected: T::TYPE,
            found: found.map(|found| {
                found
                    .as_str()
                    .map_or_else(|| found.to_string(), str::to_owned)
            }),
        }),
    }
}

/// The runtime, not the step, writes the schema a step moved the document to.
fn set_schema(
    object: &mut JsonObject,
    spec: &crate::EnvelopeSpec,
    version: &str,
) -> Result<(), MigrationError> {
    let envelope =
        envelope_object(object, spec.get_meta_name(), spec.get_layout()).ok_or_else(|| {
            MigrationError::new(format!(
                "the step removed the `{}` object",
                spec.get_meta_name()
            ))
        })?;
    envelope.insert(spec.name(EnvelopeField::Schema).to_owned(), version.into());
    Ok(())
}

#[doc(hidden)]
/// A typed step: reads the document as the older model `Old` (which migrates it up to its own schema) and
/// converts the body with `TryFrom`.
pub fn typed_step<T, Old>(bytes: &[u8]) -> Result<(T, Envelope), MigrationError>
where
    Old: DocModel + DeserializeOwned,
    T: TryFrom<Old>,
    T::Error: StdError + Send + Sync + 'static,
{
    let old = Doc::<Old>::from_slice(bytes).map_err(|err| {
        MigrationError::with_source(
            format!("it does not read as `{}`", std::any::type_name::<Old>()),
            err,
        )
    })?;
    let envelope = old.envelope().clone();
    let body = T::try_from(old.into_inner()).map_err(|err| {
        MigrationError::with_source(
            format!("converting `{}` failed", std::any::type_name::<Old>()),
            err,
        )
    })?;
    Ok((body, envelope))
}
