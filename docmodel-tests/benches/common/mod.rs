//! The models both benchmarks measure: a 10-field user document as docmodel models it, and the hand-written
//! struct serde_json reads and writes as the floor.

use docmodel::{Doc, DocModel, Timestamp};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Phone {
    #[serde(rename = "type")]
    kind: String,
    number: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}")]
pub struct User {
    user_id: u64,
    first_name: String,
    last_name: String,
    email: String,
    active: bool,
    phones: Vec<Phone>,
}

/// What a careful hand-written model of the same document looks like without docmodel.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HandWritten {
    #[serde(rename = "_type")]
    doc_type: String,
    #[serde(rename = "_schema")]
    schema: String,
    #[serde(rename = "_ver")]
    ver: u64,
    #[serde(rename = "_created")]
    created: i64,
    #[serde(rename = "_modified")]
    modified: i64,
    user_id: u64,
    first_name: String,
    last_name: String,
    email: String,
    active: bool,
    phones: Vec<Phone>,
}

/// Why a hand-written read refuses a document.
#[derive(Debug)]
#[allow(dead_code)] // Read through `Debug`, when a benchmark unwraps one.
pub enum HandError {
    Json(serde_json::Error),
    WrongType(String),
    Schema(String),
}

impl HandWritten {
    /// What a careful user writes to read one: the struct, then the checks docmodel makes (the type, a
    /// schema of the major version this code reads), and the key the document is stored under, built from
    /// its field as `Doc` holds it.
    pub fn read(bytes: &[u8]) -> Result<(String, HandWritten), HandError> {
        let doc: HandWritten = serde_json::from_slice(bytes).map_err(HandError::Json)?;
        if doc.doc_type != "user" {
            return Err(HandError::WrongType(doc.doc_type));
        }
        let major = doc.schema.split('.').next().map(str::parse::<u64>);
        if !matches!(major, Some(Ok(3))) {
            return Err(HandError::Schema(doc.schema));
        }
        let key = format!("user::{}", doc.user_id);
        Ok((key, doc))
    }
}

pub fn user() -> User {
    User {
        user_id: 123_456,
        first_name: "Joseph".into(),
        last_name: "Smith".into(),
        email: "joseph.smith@example.com".into(),
        active: true,
        phones: vec![
            Phone {
                kind: "mobile".into(),
                number: "1234567890".into(),
            },
            Phone {
                kind: "home".into(),
                number: "1112223333".into(),
            },
        ],
    }
}

/// The same document in both forms, and its stored bytes; both write exactly these bytes.
pub fn documents() -> (Doc<User>, HandWritten, Vec<u8>) {
    let mut doc = Doc::new(user()).unwrap();
    doc.envelope_mut().created = Some(Timestamp::from_millis(1_544_759_124_478));
    doc.envelope_mut().modified = Some(Timestamp::from_millis(1_544_759_200_000));
    let bytes = doc.to_vec().unwrap();
    let hand: HandWritten = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(
        serde_json::to_vec(&hand).unwrap(),
        bytes,
        "both write the same document"
    );
    (doc, hand, bytes)
}
