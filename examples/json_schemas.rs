//! The schema other clients meet: the JSON Schema (draft 2020-12) of each of the seeds' models, as a Node
//! service, a Python job or a validator in CI reads it. Writes one file per model and version under
//! `target/schemas/` (or the directory given), and prints them.
//!
//! Run with `cargo run --example json_schemas --features json-schema` (or `-- <directory>`).

use docmodel::{DocModel, Embedded, json_schemas};
use serde::{Deserialize, Serialize};

/// One of a 3.0 user's phones: `Embedded`, so that its fields are in the schema (`$defs`).
#[derive(Debug, Serialize, Deserialize, Embedded)]
pub struct Phone {
    #[serde(rename = "type")]
    kind: String,
    number: String,
}

/// The seeds' user at 2.0 ("Document Management Strategies", Schema Versioning).
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "2.0", key = "user::{user_id}")]
pub struct UserV2 {
    user_id: u64,
    first_name: String,
    last_name: String,
    phone: String,
}

/// The seeds' user at 3.0, read from 2.0 through a typed step: a schema for each version.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}", migrate_from("2.0" = UserV2))]
pub struct User {
    user_id: u64,
    first_name: String,
    last_name: String,
    phones: Vec<Phone>,
}

impl From<UserV2> for User {
    fn from(old: UserV2) -> Self {
        let phones = vec![Phone {
            kind: "other".into(),
            number: old.phone,
        }];
        User {
            user_id: old.user_id,
            first_name: old.first_name,
            last_name: old.last_name,
            phones,
        }
    }
}

/// The seeds' Couchmusic user profile: the `meta` layout, ISO-8601 times, optional fields.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "userprofile",
    schema = "1.2",
    key = "couchmusic:userprofile:{username}"
)]
#[docmodel(envelope(layout = "meta", timestamps = "iso8601", created_by, modified_by))]
pub struct UserProfile {
    username: String,
    email: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    picture: Option<String>,
    #[serde(default)]
    favorite_genres: Vec<String>,
}

fn write_all<T: DocModel>(dir: &std::path::Path) -> std::io::Result<()> {
    for (version, schema) in json_schemas::<T>() {
        let text = format!("{schema:#}\n");
        let path = dir.join(format!("{}-{version}.schema.json", T::TYPE));
        std::fs::write(&path, &text)?;
        println!("-- {}\n{text}", path.display());
    }
    Ok(())
}

fn main() -> std::io::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .map_or_else(|| std::path::PathBuf::from("target/schemas"), Into::into);
    std::fs::create_dir_all(&dir)?;
    write_all::<User>(&dir)?;
    write_all::<UserProfile>(&dir)?;
    Ok(())
}
