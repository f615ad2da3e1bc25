use docmodel::{DocModel, JsonObject, MigrationError};
use serde::{Deserialize, Serialize};

fn step(_: &mut JsonObject) -> Result<(), MigrationError> {
    Ok(())
}

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "3.0", key = "user::{id}")]
#[docmodel(migrate_from(step))]
struct User {
    id: u64,
}

fn main() {}
