//! The models the targets read: one of each shape the tests use (each layout and timestamp format, a chain of
//! JSON steps, a chain with a typed step, `Presence`, `skip_empty`, renamed envelope fields, a lookup with
//! revisions) and one per kind of key template. Copied from docmodel-tests, not shared with it, so that the
//! fuzz crate builds alone.

use std::collections::BTreeMap;

use docmodel::uuid::Uuid;
use docmodel::{DocModel, JsonObject, JsonValue, MigrationError, Presence};
use serde::{Deserialize, Serialize};

/// One of a 3.0 user's phones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Phone {
    #[serde(rename = "type")]
    pub kind: String,
    pub number: String,
}

/// The seeds' user at 3.0, read from 1.0 and 2.0 through two JSON steps; flat layout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}")]
#[docmodel(migrate_from("1.0" = split_name, "2.0" = phone_to_phones))]
pub struct User {
    pub user_id: u64,
    pub first_name: String,
    pub last_name: String,
    pub phones: Vec<Phone>,
}

/// The seeds' user at 2.0, a model of its own with a JSON step from 1.0: what [`TypedUser`]'s step reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "2.0", key = "user::{user_id}", migrate_from("1.0" = split_name))]
pub struct UserV2 {
    pub user_id: u64,
    pub first_name: String,
    pub last_name: String,
    pub phone: String,
}

/// The same user at 3.0 with a typed step from [`UserV2`] (`TryFrom`, refusing an empty phone): a chain of a
/// JSON step then a typed one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}", migrate_from("2.0" = UserV2))]
pub struct TypedUser {
    pub user_id: u64,
    pub first_name: String,
    pub last_name: String,
    pub phones: Vec<Phone>,
}

/// The typed step's refusal.
#[derive(Debug)]
pub struct NoPhone(pub u64);

impl std::fmt::Display for NoPhone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "user {} has no phone", self.0)
    }
}

impl std::error::Error for NoPhone {}

impl TryFrom<UserV2> for TypedUser {
    type Error = NoPhone;

    fn try_from(old: UserV2) -> Result<Self, NoPhone> {
        if old.phone.is_empty() {
            return Err(NoPhone(old.user_id));
        }
        Ok(TypedUser {
            user_id: old.user_id,
            first_name: old.first_name,
            last_name: old.last_name,
            phones: vec![Phone {
                kind: "other".into(),
                number: old.phone,
            }],
        })
    }
}

/// 1.0 -> 2.0: `name` becomes `firstName` and `lastName`.
pub fn split_name(doc: &mut JsonObject) -> Result<(), MigrationError> {
    let name = doc
        .remove("name")
        .ok_or_else(|| MigrationError::missing_field("name"))?;
    let name = name
        .as_str()
        .ok_or_else(|| MigrationError::new("`name` is not a string"))?;
    let (first, last) = name.split_once(' ').unwrap_or((name, ""));
    doc.insert("firstName".into(), first.into());
    doc.insert("lastName".into(), last.into());
    Ok(())
}

/// 2.0 -> 3.0: the seed's `addPhone("other", doc.phone)`.
pub fn phone_to_phones(doc: &mut JsonObject) -> Result<(), MigrationError> {
    let phone = doc
        .remove("phone")
        .ok_or_else(|| MigrationError::missing_field("phone"))?;
    doc.insert(
        "phones".into(),
        JsonValue::Array(vec![JsonValue::Object(
            [
                ("type".to_owned(), "other".into()),
                ("number".to_owned(), phone),
            ]
            .into_iter()
            .collect(),
        )]),
    );
    Ok(())
}

/// Sync Gateway's user: plain layout, epoch seconds, who wrote it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}")]
#[docmodel(envelope(layout = "plain", timestamps = "epoch_s", created_by, modified_by))]
pub struct MobileUser {
    pub user_id: u64,
    pub first_name: String,
}

/// The seed's `"meta": {}` layout with ISO-8601 timestamps and every optional envelope field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "profile",
    schema = "1.2",
    key = "couchmusic:userprofile:{username}"
)]
#[docmodel(envelope(
    layout = "meta",
    timestamps = "iso8601",
    created_by,
    modified_by,
    accessed,
    geo
))]
pub struct Profile {
    pub username: String,
    pub bio: Option<String>,
}

/// Plain layout under names of the application's, epoch days, stored times without a zone read as UTC.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "note", schema = "1.0", key = "note::{id}")]
#[docmodel(envelope(
    layout = "plain",
    timestamps = "epoch_day",
    zoneless = "utc",
    names(type = "docType", created = "ctime")
))]
pub struct Note {
    pub id: u64,
    pub text: String,
}

/// The seed's country, whose `geocode` may be valued, empty, null or missing; a JSON step from 1.0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "country", schema = "2.0", key = "country::{code}")]
#[docmodel(migrate_from("1.0" = country_v1))]
pub struct Country {
    pub code: String,
    pub geocode: Presence<String>,
    #[serde(rename = "regionCodes")]
    pub region_codes: Presence<Vec<String>>,
}

/// 1.0 stored the region codes as one comma-separated string.
pub fn country_v1(doc: &mut JsonObject) -> Result<(), MigrationError> {
    match doc.remove("regions") {
        Some(JsonValue::String(codes)) => {
            let codes: Vec<JsonValue> = codes
                .split(',')
                .filter(|code| !code.is_empty())
                .map(|code| code.into())
                .collect();
            doc.insert("regionCodes".into(), codes.into());
        }
        Some(other) => {
            doc.insert("regionCodes".into(), other);
        }
        None => {}
    }
    Ok(())
}

/// The seed's user with `skip_empty`: nothing is stored for an empty value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{user_id}", skip_empty)]
#[serde(rename_all = "camelCase")]
pub struct SkipProfile {
    pub user_id: u64,
    #[serde(default)]
    pub first_name: String,
    pub middle_name: Option<String>,
    #[serde(default)]
    pub phones: Vec<String>,
    #[serde(default)]
    pub social: BTreeMap<String, String>,
    pub geocode: Presence<String>,
    pub logins: u32,
    #[docmodel(skip_empty(default))]
    #[serde(default)]
    pub retries: u32,
}

/// A UUID key part, and the UUID stored without dashes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "session", schema = "1.0", key = "session::{id}")]
pub struct Session {
    #[serde(with = "docmodel::uuid_simple")]
    pub id: Uuid,
    pub owner: String,
}

/// A lookup document and revision copies: what a save writes beside the document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "member",
    schema = "1.0",
    key = "member::{username}",
    revisions = 2
)]
#[docmodel(lookup = "mref::{no}")]
pub struct Member {
    pub username: String,
    #[docmodel(allow(reserved_word))]
    pub no: u64,
}

/// The seed's hierarchical key: `user::foo.org::12345`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{domain}::{id}")]
pub struct DomainUser {
    pub domain: String,
    pub id: u64,
}

/// A signed part and a single-byte delimiter that is also the minus sign.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "reading", schema = "1.0", key = "{station}-readings-{offset}")]
pub struct Reading {
    pub station: String,
    #[docmodel(allow(reserved_word))]
    pub offset: i32,
}

/// Two string parts under a two-byte delimiter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "rating", schema = "1.0", key = "rating::{track}::{username}")]
pub struct Rating {
    pub track: String,
    pub username: String,
    pub stars: u8,
}

/// Signed and unsigned parts of several widths under a one-byte delimiter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "stamp", schema = "1.0", key = "stamp:{shard}:{seq}:{delta}")]
pub struct Stamp {
    pub shard: u8,
    pub seq: u128,
    pub delta: i64,
}
