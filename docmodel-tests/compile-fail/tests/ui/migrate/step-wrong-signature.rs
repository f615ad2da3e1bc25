use docmodel::{DocModel, JsonObject};
use serde::{Deserialize, Serialize};

fn step(doc: &JsonObject) -> bool {
    doc.is_empty()
}

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "3.0", key = "user::{id}")]
#[docmodel(migrate_from("2.0" = step))]
struct User {
    id: u64,
}

fn main() {}
