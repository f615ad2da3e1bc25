//! The stored JSON of a document: envelope and body in one object, read and written in one pass.

mod de;
mod ser;

use serde::Serialize;
use serde::de::{DeserializeOwned, IgnoredAny};

use crate::envelope::EnvelopeField;
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
}

/// Reads a stored document of model `T`.
///
/// The body and the envelope come out of one pass over `bytes`. When the body fails to read, the envelope is
/// read again on its own, so that a document of another type or schema is reported as such rather than as
/// the JSON error it causes.
pub(crate) fn decode<T: DocModel + DeserializeOwned>(bytes: &[u8]) -> Result<Decoded<T>, Error> {
    let spec = &T::ENVELOPE;
    let mut reader = EnvelopeReader::new(spec, T::TYPE, T::BODY_FIELDS);
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
            })
        }
        Err(source) => {
            let mut probe = EnvelopeReader::probe(spec, T::TYPE);
            let mut json = serde_json::Deserializer::from_slice(bytes);
            if IgnoredAny::deserialize(probe.wrap(&mut json)).is_ok() {
                check_envelope::<T>(&probe)?;
            }
            Err(Error::Codec { key: None, source })
        }
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
    if version.major > T::SCHEMA.major {
        return Err(Error::SchemaTooNew {
            key: None,
            found: version.to_string(),
            current: T::SCHEMA.to_string(),
        });
    }
    if version.major < T::SCHEMA.major {
        return Err(Error::UnsupportedSchema {
            key: None,
            found: version.to_string(),
            current: T::SCHEMA.to_string(),
            reason: format!(
                "the model has no migration from major version {}",
                version.major
            ),
        });
    }
    Ok(())
}

/// Writes a document of model `T` as stored JSON.
pub(crate) fn encode<T: DocModel + Serialize>(
    body: &T,
    envelope: &Envelope,
    unknown: &Unknown,
    meta_unknown: &Unknown,
    pretty: bool,
) -> Result<Vec<u8>, Error> {
    let writer = DocWriter {
        spec: &T::ENVELOPE,
        type_name: T::TYPE,
        schema: T::SCHEMA_TEXT,
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
