use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "2.0", key = "user::{id}")]
struct UserV2 {
    id: u64,
}

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "3.0", key = "user::{id}")]
#[docmodel(migrate_from("2.0" = UserV2))]
struct User {
    id: u64,
}

fn main() {}
