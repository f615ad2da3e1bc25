use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "person", schema = "2.0", key = "person::{id}")]
struct PersonV2 {
    id: u64,
}

impl From<PersonV2> for User {
    fn from(old: PersonV2) -> Self {
        User { id: old.id }
    }
}

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "3.0", key = "user::{id}", migrate_from("2.0" = PersonV2))]
struct User {
    id: u64,
}

fn main() {}
