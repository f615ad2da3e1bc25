//! The models both benchmarks measure: a 10-field user document as docmodel models it, and the hand-written
//! struct serde_json reads and writes as the floor; the seeds' user read from 1.0 and 2.0 as 3.0, by
//! docmodel's steps and by hand.

use docmodel::{Doc, DocModel, Timestamp};
use docmodel_tests::seeds::{Phone as SeedPhone, UserV2, phone_to_phones, split_name};
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

/// The seeds' user at 3.0, read from 1.0 through the two JSON steps.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}")]
#[docmodel(migrate_from("1.0" = split_name, "2.0" = phone_to_phones))]
pub struct Migrated {
    user_id: u64,
    first_name: String,
    last_name: String,
    phones: Vec<SeedPhone>,
}

/// The same 3.0 user as a hand-written struct, with the envelope fields.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct HandMigrated {
    #[serde(rename = "_type")]
    doc_type: String,
    #[serde(rename = "_schema")]
    schema: String,
    #[serde(rename = "_ver")]
    ver: u64,
    user_id: u64,
    first_name: String,
    last_name: String,
    phones: Vec<SeedPhone>,
}

/// The 3.0 user read from 2.0 by a typed step: the 2.0 model, then `From`.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}", migrate_from("2.0" = UserV2))]
pub struct TypedUser {
    user_id: u64,
    first_name: String,
    last_name: String,
    phones: Vec<SeedPhone>,
}

impl From<UserV2> for TypedUser {
    fn from(old: UserV2) -> Self {
        TypedUser {
            user_id: old.user_id,
            first_name: old.first_name,
            last_name: old.last_name,
            phones: vec![SeedPhone {
                kind: "other".into(),
                number: old.phone,
            }],
        }
    }
}

/// The same 2.0 user as a hand-written struct, with the envelope fields.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HandV2 {
    #[serde(rename = "_type")]
    doc_type: String,
    #[serde(rename = "_schema")]
    schema: String,
    #[serde(rename = "_ver")]
    ver: u64,
    user_id: u64,
    first_name: String,
    last_name: String,
    phone: String,
}

impl From<HandV2> for HandMigrated {
    fn from(old: HandV2) -> Self {
        HandMigrated {
            doc_type: old.doc_type,
            schema: "3.0".into(),
            ver: old.ver,
            user_id: old.user_id,
            first_name: old.first_name,
            last_name: old.last_name,
            phones: vec![SeedPhone {
                kind: "other".into(),
                number: old.phone,
            }],
        }
    }
}

/// What a user writes without docmodel who knows the document is at 2.0: the 2.0 struct, its checks, `From`,
/// and the key. docmodel does not know the version before it reads it.
pub fn convert_by_hand(bytes: &[u8]) -> (String, HandMigrated) {
    let old: HandV2 = serde_json::from_slice(bytes).unwrap();
    assert!(old.doc_type == "user" && old.schema == "2.0");
    let key = format!("user::{}", old.user_id);
    (key, old.into())
}

pub const V2: &[u8] = br#"{"_type":"user","_schema":"2.0","_ver":1,"userId":123,"firstName":"Joe","lastName":"Smith","phone":"1234567890"}"#;

pub const V1: &[u8] =
    br#"{"_type":"user","_schema":"1.0","_ver":1,"userId":123,"name":"Joe Smith","phone":"1234567890"}"#;

/// What a user writes without docmodel: parse to a `Value`, apply the same steps, read the struct from it.
pub fn migrate_by_hand(bytes: &[u8]) -> HandMigrated {
    let mut value: serde_json::Value = serde_json::from_slice(bytes).unwrap();
    let doc = value.as_object_mut().unwrap();
    if doc["_schema"] == "1.0" {
        split_name(doc).unwrap();
    }
    if doc["_schema"] == "1.0" || doc["_schema"] == "2.0" {
        phone_to_phones(doc).unwrap();
    }
    doc.insert("_schema".into(), "3.0".into());
    serde_json::from_value(value).unwrap()
}

/// The same user, keeping its last 10 versions as revision copies (`user::123456::v::<n>`).
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}", revisions = 10)]
pub struct Revised {
    user_id: u64,
    first_name: String,
    last_name: String,
    email: String,
    active: bool,
    phones: Vec<Phone>,
}

impl Revised {
    pub fn new() -> Self {
        let User {
            user_id,
            first_name,
            last_name,
            email,
            active,
            phones,
        } = user();
        Revised {
            user_id,
            first_name,
            last_name,
            email,
            active,
            phones,
        }
    }
}

/// A save of a user with 10 revision copies written by hand: the same store operations as `Repo::save` on a
/// store that writes a batch atomically (a get of the copy leaving the window, then one batch: the copy of
/// the version replaced, the replace, the removal of that copy), after `serde_json::to_vec` of the
/// hand-written struct with its `_ver` and `_modified` moved on. Nothing is checked that the store does not
/// check itself.
pub struct HandSaves<'s, S> {
    store: &'s S,
    key: String,
    hand: HandWritten,
    bytes: Vec<u8>,
    cas: docmodel::store::Cas,
}

impl<'s, S: docmodel::store::Store> HandSaves<'s, S> {
    /// The user stored at version 1 under `user::123456`.
    pub fn new(store: &'s S) -> Self {
        let (_, hand, bytes) = documents();
        let key = format!("user::{}", hand.user_id);
        let cas = pollster::block_on(store.insert(&key, &bytes)).unwrap();
        HandSaves {
            store,
            key,
            hand,
            bytes,
            cas,
        }
    }

    pub fn save(&mut self) {
        use docmodel::store::{Write, WriteOptions};
        let version = self.hand.ver;
        self.hand.ver += 1;
        self.hand.modified = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64;
        let bytes = serde_json::to_vec(&self.hand).unwrap();
        let copy_key = format!("{}::v::{version}", self.key);
        let pruned_key = version
            .checked_sub(10)
            .filter(|pruned| *pruned > 0)
            .map(|pruned| format!("{}::v::{pruned}", self.key));
        let pruned = pruned_key.as_ref().and_then(|pruned_key| {
            let copy = pollster::block_on(self.store.get(pruned_key)).unwrap()?;
            Some((pruned_key.as_str(), copy.cas))
        });
        let mut writes = vec![
            Write::Insert {
                key: &copy_key,
                value: &self.bytes,
            },
            Write::Replace {
                key: &self.key,
                value: &bytes,
                cas: &self.cas,
            },
        ];
        if let Some((key, cas)) = &pruned {
            writes.push(Write::Remove {
                key,
                cas: Some(cas),
            });
        }
        let tokens =
            pollster::block_on(self.store.write_atomic(&writes, &WriteOptions::DEFAULT)).unwrap();
        self.cas = tokens.into_iter().nth(1).flatten().unwrap();
        self.bytes = bytes;
    }

    /// The kept versions listed by hand, as `Repo::revisions` does: the document read and checked, its
    /// copies in the window read in one batch, each read and checked.
    pub fn revisions(&self) -> Vec<(String, HandWritten)> {
        let current = pollster::block_on(self.store.get(&self.key))
            .unwrap()
            .unwrap();
        let (_, current) = HandWritten::read(&current.bytes).unwrap();
        let keys: Vec<String> = (current.ver.saturating_sub(10).max(1)..current.ver)
            .rev()
            .map(|version| format!("{}::v::{version}", self.key))
            .collect();
        let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
        pollster::block_on(self.store.get_many(&refs))
            .unwrap()
            .into_iter()
            .flatten()
            .map(|copy| HandWritten::read(&copy.bytes).unwrap())
            .collect()
    }
}

/// How many fields the model does not know [`with_unknown`] adds to a user.
pub const UNKNOWN: usize = 10;

/// `bytes` with [`UNKNOWN`] more fields, each a short string, before its closing brace: what one kept
/// unknown field costs is the difference over `UNKNOWN` (the instruction counts, the allocations).
pub fn with_unknown(bytes: &[u8]) -> Vec<u8> {
    with_unknown_fields(bytes, UNKNOWN)
}

/// `bytes` with `count` more fields, each a short string, before its closing brace.
pub fn with_unknown_fields(bytes: &[u8], count: usize) -> Vec<u8> {
    let mut text = String::from_utf8(bytes.to_vec()).unwrap();
    assert_eq!(text.pop(), Some('}'));
    for i in 0..count {
        text.push_str(&format!(",\"extra{i}\":\"note {i}\""));
    }
    text.push('}');
    text.into_bytes()
}
