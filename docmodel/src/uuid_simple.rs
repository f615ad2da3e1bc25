//! A UUID in the body written as 32 lowercase hex digits without dashes, as its key part is: 4 bytes fewer a
//! value (the seeds). `#[serde(with = "docmodel::uuid_simple")]` on a `Uuid`, `uuid_simple::option` on an
//! `Option<Uuid>`, `uuid_simple::vec` on a `Vec<Uuid>`.
//!
//! Reading accepts the dashed form too, so documents written before the field moved to this form still read.
//!
//! ```
//! use docmodel::uuid::Uuid;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize)]
//! struct Playlist {
//!     #[serde(with = "docmodel::uuid_simple")]
//!     id: Uuid,
//! }
//!
//! let id = Uuid::parse_str("003c6f65-641a-4c9a-8e5e-41c947086cae").unwrap();
//! let written = serde_json::to_string(&Playlist { id })?;
//! assert_eq!(written, r#"{"id":"003c6f65641a4c9a8e5e41c947086cae"}"#);
//! let dashed: Playlist = serde_json::from_str(r#"{"id":"003c6f65-641a-4c9a-8e5e-41c947086cae"}"#)?;
//! assert_eq!(dashed.id, id);
//! # Ok::<(), serde_json::Error>(())
//! ```

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};
use uuid::Uuid;

/// Writes the UUID without dashes.
pub fn serialize<S: Serializer>(id: &Uuid, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(id.simple().encode_lower(&mut Uuid::encode_buffer()))
}

/// Reads a UUID, with or without dashes.
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Uuid, D::Error> {
    deserializer.deserialize_str(UuidVisitor)
}

struct UuidVisitor;

impl Visitor<'_> for UuidVisitor {
    type Value = Uuid;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a UUID: 32 hex digits, with or without dashes")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Uuid, E> {
        Uuid::try_parse(text)
            .map_err(|err| E::custom(format_args!("{text:?} is not a UUID: {err}")))
    }
}

/// A UUID written without dashes, for the `option` and `vec` forms.
struct Simple(Uuid);

impl Serialize for Simple {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize(&self.0, serializer)
    }
}

impl<'de> Deserialize<'de> for Simple {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize(deserializer).map(Simple)
    }
}

/// `Option<Uuid>` without dashes, or `null`.
pub mod option {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use uuid::Uuid;

    use super::Simple;

    /// Writes the UUID without dashes, or `null`.
    pub fn serialize<S: Serializer>(id: &Option<Uuid>, serializer: S) -> Result<S::Ok, S::Error> {
        id.map(Simple).serialize(serializer)
    }

    /// Reads a UUID, with or without dashes, or `null` as `None`.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Uuid>, D::Error> {
        Ok(Option::<Simple>::deserialize(deserializer)?.map(|id| id.0))
    }
}

/// `Vec<Uuid>` without dashes.
pub mod vec {
    use serde::ser::SerializeSeq;
    use serde::{Deserialize, Deserializer, Serializer};
    use uuid::Uuid;

    use super::Simple;

    /// Writes each UUID without dashes.
    pub fn serialize<S: Serializer>(ids: &[Uuid], serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(ids.len()))?;
        for id in ids {
            seq.serialize_element(&Simple(*id))?;
        }
        seq.end()
    }

    /// Reads an array of UUIDs, each with or without dashes.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<Uuid>, D::Error> {
        Ok(Vec::<Simple>::deserialize(deserializer)?
            .into_iter()
            .map(|id| id.0)
            .collect())
    }
}
