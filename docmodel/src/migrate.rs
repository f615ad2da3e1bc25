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
use crate::{Doc, DocModel, Error};

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

/// Reads a document as an older model and converts it to the current one.
pub type TypedRead<T> = fn(&[u8]) -> Result<Doc<T>, TypedFailure>;

/// Why a typed step failed: the older model could not read the document (its own error, as it is), or the
/// conversion refused it.
#[derive(Debug)]
pub enum TypedFailure {
    /// The older model's error reading the document.
    Read(Error),
    /// The conversion's error.
    Convert(MigrationError),
}

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
    if found.0 == current.0 {
        // An older minor of the current major reads as stored, unless a step was listed for it.
        let listed = chain
            .iter()
            .rposition(|entry| same_major(&entry) && entry.from <= *version);
        return listed.map_or(Route::Read, Route::Migrate);
    }
    if let Some(at) = chain
        .iter()
        .rposition(|entry| same_major(&entry) && entry.from <= *version)
    {
        return Route::Migrate(at);
    }
    if let Some(at) = chain.iter().position(|entry| same_major(&entry)) {
        return Route::Migrate(at);
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
    let chain = T::MIGRATIONS;
    // A typed step first reads the stored bytes itself: no `JsonObject` on that path.
    if let Some(Migration {
        step: Step::Typed { read, .. },
        from_text,
        ..
    }) = chain.get(start)
    {
        return typed(*read, bytes, from_text, version);
    }
    let mut object = strict_object(bytes)?;
    check_type::<T>(&object)?;
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
                return typed(read, &bytes, entry.from_text, version);
            }
        }
    }
    let bytes = serde_json::to_vec(&object).map_err(|source| Error::Codec { key: None, source })?;
    // Whatever keeps the result from reading as the current model is the chain's doing.
    let mut decoded = codec::decode::<T>(&bytes).map_err(|err| Error::Migration {
        key: None,
        from: version_text.to_owned(),
        to: T::SCHEMA_TEXT.to_owned(),
        source: MigrationError::with_source(
            "the migrated document does not read as the current model",
            err,
        ),
    })?;
    decoded.migrated_from = Some(version);
    Ok(decoded)
}

/// Runs a typed step on `bytes`: the older model's own errors (its type, its schema, its chain) come back as
/// they are; only a failed conversion is this step's `Migration` error.
fn typed<T: DocModel>(
    read: TypedRead<T>,
    bytes: &[u8],
    from: &str,
    version: Version,
) -> Result<Decoded<T>, Error> {
    let doc = read(bytes).map_err(|failure| match failure {
        TypedFailure::Read(err) => err,
        TypedFailure::Convert(source) => Error::Migration {
            key: None,
            from: from.to_owned(),
            to: T::SCHEMA_TEXT.to_owned(),
            source,
        },
    })?;
    let mut decoded = doc.into_decoded();
    decoded.migrated_from = Some(version);
    Ok(decoded)
}

/// Parses a document for the JSON steps, refusing a field name that appears twice in any object, as the
/// one-pass reader does: readers that keep the first and readers that keep the last would disagree.
fn strict_object(bytes: &[u8]) -> Result<JsonObject, Error> {
    use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

    struct Strict;

    impl<'de> DeserializeSeed<'de> for Strict {
        type Value = serde_json::Value;

        fn deserialize<D: Deserializer<'de>>(
            self,
            deserializer: D,
        ) -> Result<Self::Value, D::Error> {
            deserializer.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for Strict {
        type Value = serde_json::Value;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON value")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut object = JsonObject::new();
            while let Some(name) = map.next_key::<String>()? {
                let value = map.next_value_seed(Strict)?;
                if object.contains_key(&name) {
                    return Err(serde::de::Error::custom(format_args!(
                        "duplicate field `{name}`"
                    )));
                }
                object.insert(name, value);
            }
            Ok(serde_json::Value::Object(object))
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut items = Vec::new();
            while let Some(item) = seq.next_element_seed(Strict)? {
                items.push(item);
            }
            Ok(serde_json::Value::Array(items))
        }

        fn visit_bool<E>(self, value: bool) -> Result<Self::Value, E> {
            Ok(value.into())
        }

        fn visit_i64<E>(self, value: i64) -> Result<Self::Value, E> {
            Ok(value.into())
        }

        fn visit_u64<E>(self, value: u64) -> Result<Self::Value, E> {
            Ok(value.into())
        }

        fn visit_f64<E>(self, value: f64) -> Result<Self::Value, E> {
            Ok(serde_json::Number::from_f64(value)
                .map_or(serde_json::Value::Null, serde_json::Value::Number))
        }

        fn visit_str<E>(self, value: &str) -> Result<Self::Value, E> {
            Ok(value.into())
        }

        fn visit_string<E>(self, value: String) -> Result<Self::Value, E> {
            Ok(value.into())
        }

        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(serde_json::Value::Null)
        }
    }

    let mut json = serde_json::Deserializer::from_slice(bytes);
    let value = Strict
        .deserialize(&mut json)
        .and_then(|value| json.end().map(|()| value));
    match value.map_err(|source| Error::Codec { key: None, source })? {
        serde_json::Value::Object(object) => Ok(object),
        _ => Err(Error::Codec {
            key: None,
            source: serde::de::Error::custom("a stored document is a JSON object"),
        }),
    }
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
    let envelope = match spec.layout() {
        Layout::Meta => object
            .get(spec.meta_name())
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
    let envelope = envelope_object(object, spec.meta_name(), spec.layout()).ok_or_else(|| {
        MigrationError::new(format!(
            "the step removed the `{}` object",
            spec.meta_name()
        ))
    })?;
    envelope.insert(spec.name(EnvelopeField::Schema).to_owned(), version.into());
    Ok(())
}

#[doc(hidden)]
/// A typed step: reads the document as the older model `Old` (which migrates it up to its own schema) and
/// converts it with `TryFrom`, keeping its envelope and the fields neither model knows.
pub fn typed_step<T, Old>(bytes: &[u8]) -> Result<Doc<T>, TypedFailure>
where
    T: DocModel,
    Old: DocModel + DeserializeOwned,
    T: TryFrom<Old>,
    T::Error: StdError + Send + Sync + 'static,
{
    let old = Doc::<Old>::from_slice(bytes).map_err(TypedFailure::Read)?;
    let (body, rest) = old.into_parts();
    let body = T::try_from(body).map_err(|err| {
        let message = format!("converting `{}` failed", std::any::type_name::<Old>());
        TypedFailure::Convert(MigrationError::with_source(message, err))
    })?;
    Doc::from_parts(body, rest).map_err(TypedFailure::Read)
}
