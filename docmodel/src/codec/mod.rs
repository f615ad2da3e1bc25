//! The stored JSON of a document: envelope and body in one object, read and written in one pass.

mod de;
mod ser;

use serde::Serialize;
use serde::de::{DeserializeOwned, IgnoredAny};

use semver::Version;

use crate::envelope::EnvelopeField;
use crate::migrate::{self, Route};
use crate::{DocModel, Envelope, Error};

pub(crate) use de::Unknown;
use de::{EnvelopeReader, TypeSeen};
pub(crate) use ser::DocWriter;

/// A document read from its bytes: the current model's body plus what the envelope held.
pub(crate) struct Decoded<T> {
    pub(crate) body: T,
    pub(crate) envelope: Envelope,
    pub(crate) unknown: Unknown,
    pub(crate) meta_unknown: Unknown,
    /// The schema the document was stored at, when the migration chain moved it to the current one.
    pub(crate) migrated_from: Option<Version>,
    /// The schema text of a document a newer minor version wrote: it is written back as it was.
    pub(crate) newer_schema: Option<String>,
}

/// What a stored document's envelope says, read without its body: enough to recognise a revision copy.
#[derive(Debug)]
pub(crate) struct Peeked {
    /// Whether it carries the model's type.
    pub(crate) own_type: bool,
    /// The type it carries, when another one.
    pub(crate) found_type: Option<String>,
    /// Its `_ver` (1 when it has none, as on a full read).
    pub(crate) ver: u64,
    /// Its `_created`.
    pub(crate) created: Option<crate::Timestamp>,
}

/// Reads the envelope of `bytes` as model `T` lays it out, skipping everything else; `None` when the bytes
/// are not a JSON object with a readable envelope.
pub(crate) fn peek<T: DocModel>(bytes: &[u8]) -> Option<Peeked> {
    let current = [T::SCHEMA.major, T::SCHEMA.minor, T::SCHEMA.patch];
    let mut probe = EnvelopeReader::probe(&T::ENVELOPE, T::TYPE, |_| false, current);
    let mut json = serde_json::Deserializer::from_slice(bytes);
    IgnoredAny::deserialize(probe.wrap(&mut json)).ok()?;
    json.end().ok()?;
    let ver = if probe.saw(EnvelopeField::Ver) {
        probe.envelope.ver
    } else {
        1
    };
    let (own_type, found_type) = match probe.found_type {
        TypeSeen::Expected => (true, None),
        TypeSeen::Absent => (false, None),
        TypeSeen::Other(other) => (false, Some(other)),
    };
    Some(Peeked {
        own_type,
        found_type,
        ver,
        created: probe.envelope.created,
    })
}

/// Reads a stored document of model `T`.
///
/// The body and the envelope come out of one pass over `bytes`. A document whose schema needs the migration
/// chain stops that pass as soon as its schema is read and goes through [`migrate::migrate`]. When the body
/// fails to read, the envelope is read again on its own, so that a document of another type or schema is
/// reported as such rather than as the JSON error it causes.
pub(crate) fn decode<T: DocModel + DeserializeOwned>(bytes: &[u8]) -> Result<Decoded<T>, Error> {
    let spec = &T::ENVELOPE;
    let current = [T::SCHEMA.major, T::SCHEMA.minor, T::SCHEMA.patch];
    let unlisted = T::MIGRATIONS
        .iter()
        .all(|entry| entry.from.major != T::SCHEMA.major);
    let mut reader = EnvelopeReader::new(
        spec,
        T::TYPE,
        T::BODY_FIELDS,
        migrate::needs_migration::<T>,
        current,
    )
    .current_major_unlisted(unlisted);
    let mut json = serde_json::Deserializer::from_slice(bytes);
    let body = T::deserialize(reader.wrap(&mut json)).and_then(|body| json.end().map(|()| body));
    match body {
        Ok(body) => {
            if let Err(err) = check_envelope::<T>(&reader) {
                return Err(match body.key() {
                    Ok(key) => err.with_key(key.as_str()),
                    Err(_) => err,
                });
            }
            let saw_ver = reader.saw(EnvelopeField::Ver);
            let mut envelope = reader.envelope;
            if !saw_ver {
                // A document written before its revisions were counted is its first version.
                envelope.ver = 1;
            }
            Ok(Decoded {
                body,
                envelope,
                unknown: reader.unknown,
                meta_unknown: reader.meta_unknown,
                migrated_from: None,
                newer_schema: reader.newer_schema,
            })
        }
        Err(source) => {
            if let Some((version, text)) = reader.migrate_from {
                return migrate_from::<T>(bytes, version, &text);
            }
            let mut probe =
                EnvelopeReader::probe(spec, T::TYPE, migrate::needs_migration::<T>, current);
            let mut json = serde_json::Deserializer::from_slice(bytes);
            let probed = IgnoredAny::deserialize(probe.wrap(&mut json));
            if let Some((version, text)) = probe.migrate_from {
                return migrate_from::<T>(bytes, version, &text);
            }
            if probed.is_ok() {
                check_envelope::<T>(&probe)?;
            }
            Err(Error::Codec { key: None, source })
        }
    }
}

fn migrate_from<T: DocModel + DeserializeOwned>(
    bytes: &[u8],
    version: Version,
    text: &str,
) -> Result<Decoded<T>, Error> {
    match migrate::route::<T>(&version) {
        Route::Migrate(start) => migrate::migrate(bytes, version, text, start),
        // The reader stops only for versions the chain reads.
        Route::Read | Route::TooNew | Route::Unsupported => Err(Error::UnsupportedSchema {
            key: None,
            found: version.to_string(),
            current: T::SCHEMA_TEXT.to_owned(),
            reason: "no migration step reads it".to_owned(),
        }),
    }
}

use serde::Deserialize as _;

fn check_envelope<T: DocModel>(reader: &EnvelopeReader<'_>) -> Result<(), Error> {
    let spec = &T::ENVELOPE;
    let found = match &reader.found_type {
        TypeSeen::Expected => None,
        TypeSeen::Absent => Some(None),
        TypeSeen::Other(other) => Some(Some(other.clone())),
    };
    if let Some(found) = found {
        return Err(Error::WrongType {
            key: None,
            field: spec.name(EnvelopeField::Type),
            expected: T::TYPE,
            found,
        });
    }
    let version = match &reader.schema {
        None => {
            return Err(Error::MissingSchema {
                key: None,
                field: spec.name(EnvelopeField::Schema),
            });
        }
        Some(Err((text, reason))) => {
            return Err(Error::UnsupportedSchema {
                key: None,
                found: text.clone(),
                current: T::SCHEMA_TEXT.to_owned(),
                reason: reason.clone(),
            });
        }
        Some(Ok(version)) => version,
    };
    match migrate::route::<T>(version) {
        Route::Read => Ok(()),
        Route::TooNew => Err(Error::SchemaTooNew {
            key: None,
            found: version.to_string(),
            current: T::SCHEMA.to_string(),
        }),
        // The reader stops for a version the chain reads, so only a version no step reads gets here.
        Route::Unsupported | Route::Migrate(_) => Err(Error::UnsupportedSchema {
            key: None,
            found: version.to_string(),
            current: T::SCHEMA.to_string(),
            reason: unsupported_reason::<T>(),
        }),
    }
}

/// Which versions the model reads, for an error about one it does not.
fn unsupported_reason<T: DocModel>() -> String {
    match T::MIGRATIONS {
        [] => format!(
            "the model has no migration steps; it reads {}.x",
            T::SCHEMA.major
        ),
        chain => {
            let listed: Vec<&str> = chain.iter().map(|entry| entry.from_text).collect();
            format!(
                "the model migrates from {} and reads {}.x; no step reads this version",
                listed.join(", "),
                T::SCHEMA.major
            )
        }
    }
}

/// Writes a document of model `T` as stored JSON.
pub(crate) fn encode<T: DocModel + Serialize>(
    body: &T,
    envelope: &Envelope,
    schema: &str,
    unknown: &Unknown,
    meta_unknown: &Unknown,
    pretty: bool,
) -> Result<Vec<u8>, Error> {
    let writer = DocWriter {
        spec: &T::ENVELOPE,
        type_name: T::TYPE,
        schema,
        envelope,
        body,
        unknown,
        meta_unknown,
    };
    let written = if pretty {
        serde_json::to_vec_pretty(&writer)
    } else {
        serde_json::to_vec(&writer)
    };
    written.map_err(|source| Error::Codec { key: None, source })
}
