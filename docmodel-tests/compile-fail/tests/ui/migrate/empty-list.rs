use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "3.0", key = "user::{id}")]
#[docmodel(migrate_from())]
struct User {
    id: u64,
}

fn main() {}
