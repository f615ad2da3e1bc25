use docmodel::{DocModel, JsonObject, MigrationError};
use serde::{Deserialize, Serialize};

fn step(_: &mut JsonObject) -> Result<(), MigrationError> {
    Ok(())
}

// A document without a schema is read as a version the model reads: not a newer one, not one of an older
// major version no step migrates from, and a version at all.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "a", schema = "2.0", key = "a::{id}", unversioned = "2.1")]
struct Newer {
    id: u64,
}

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "b", schema = "3.0", key = "b::{id}", unversioned = "1.0")]
#[docmodel(migrate_from("2.0" = step))]
struct NoStep {
    id: u64,
}

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "c", schema = "1.0", key = "c::{id}", unversioned = "one")]
struct NotAVersion {
    id: u64,
}

// These read: an older minor of the current major, and a version the chain migrates from.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "d", schema = "2.3", key = "d::{id}", unversioned = "2.0")]
struct OlderMinor {
    id: u64,
}

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "e", schema = "3.0", key = "e::{id}", unversioned = "1.0")]
#[docmodel(migrate_from("1.0" = step, "2.0" = step))]
struct Listed {
    id: u64,
}

fn main() {}
