//! The seeds' schema evolution: User 1.0 (`name`, `phone`) -> 2.0 (`firstName`, `lastName`, `phone`) -> 3.0
//! (`phones`). Documents of all three versions sit side by side in a store; the 3.0 model reads every one of
//! them, and writes 3.0 back.
//!
//! Run with `cargo run --example schema_evolution`.

use docmodel::{Doc, DocModel, JsonObject, MigrationError, json};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Phone {
    #[serde(rename = "type")]
    kind: String,
    number: String,
}

/// The current User, 3.0. Each step moves a document one version up; docmodel writes the new `_schema`.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}")]
#[docmodel(migrate_from("1.0" = split_name, "2.0" = phone_to_phones))]
pub struct User {
    #[docmodel(get)]
    user_id: u64,
    #[docmodel(get, set)]
    first_name: String,
    #[docmodel(get, set)]
    last_name: String,
    #[docmodel(get)]
    phones: Vec<Phone>,
}

/// 1.0 -> 2.0: the seed's `migrateFromV1toV2`, splitting `name`.
fn split_name(doc: &mut JsonObject) -> Result<(), MigrationError> {
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

/// 2.0 -> 3.0: the seed's `migrateFromV2toV3`, `addPhone("other", doc.phone)`.
fn phone_to_phones(doc: &mut JsonObject) -> Result<(), MigrationError> {
    let phone = doc
        .remove("phone")
        .ok_or_else(|| MigrationError::missing_field("phone"))?;
    doc.insert(
        "phones".into(),
        json!([{ "type": "other", "number": phone }]),
    );
    Ok(())
}

fn main() -> Result<(), docmodel::Error> {
    let stored = [
        r#"{"_type":"user","_schema":"1.0","userId":123,"name":"Joe Smith","phone":"1234567890"}"#,
        r#"{"_type":"user","_schema":"2.0","userId":124,"firstName":"Ann","lastName":"Lee","phone":"1112223333"}"#,
        r#"{"_type":"user","_schema":"3.0","userId":125,"firstName":"Bo","lastName":"Ek","phones":[]}"#,
        r#"{"_type":"user","_schema":"3.4","userId":126,"firstName":"Cy","lastName":"Ng","phones":[],"nickname":"cy"}"#,
    ];
    for bytes in stored {
        let doc = Doc::<User>::from_slice(bytes.as_bytes())?;
        let how = match doc.migrated_from() {
            Some(version) => format!("migrated from {version}"),
            None => "read as stored".to_owned(),
        };
        println!(
            "{}: {} {} ({how})",
            doc.key(),
            doc.first_name(),
            doc.last_name()
        );
        println!("  stored:  {bytes}");
        println!("  written: {}", String::from_utf8_lossy(&doc.to_vec()?));
    }

    // What cannot be read is a typed error naming the key and the versions, never a panic.
    let broken =
        r#"{"_type":"user","_schema":"1.0","userId":127,"fullName":"No Name","phone":"0"}"#;
    match Doc::<User>::from_slice_at(User::key(127), broken.as_bytes()) {
        Ok(_) => println!("unexpected: the broken document read"),
        Err(err) => println!("\n{err}"),
    }
    let future = r#"{"_type":"user","_schema":"4.0","userId":128}"#;
    if let Err(err) = Doc::<User>::from_slice_at(User::key(128), future.as_bytes()) {
        println!("{err}");
    }
    Ok(())
}
