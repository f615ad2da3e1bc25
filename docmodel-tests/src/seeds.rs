//! The seeds' User evolution (1.0 `name`, `phone` -> 2.0 `firstName`, `lastName`, `phone` -> 3.0 `phones`):
//! the two JSON steps, the 2.0 user as a model of its own and the phone type, shared by the tests and
//! benchmarks that migrate users.

use docmodel::{DocModel, Embedded, JsonObject, MigrationError, json};
use serde::{Deserialize, Serialize};

/// One of a 3.0 user's phones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Embedded)]
pub struct Phone {
    /// `type`: "other" for the phone a 2.0 document had.
    #[serde(rename = "type")]
    pub kind: String,
    /// The number.
    pub number: String,
}

/// The seeds' user at 2.0 as a model of its own, with its own chain from 1.0: what a typed step to 3.0 reads.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "2.0", key = "user::{user_id}", migrate_from("1.0" = split_name))]
pub struct UserV2 {
    /// `userId`.
    pub user_id: u64,
    /// `firstName`.
    pub first_name: String,
    /// `lastName`.
    pub last_name: String,
    /// `phone`: the one phone a 2.0 user has.
    pub phone: String,
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
        json!([{ "type": "other", "number": phone }]),
    );
    Ok(())
}
