use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "three", key = "user::{id}")]
struct User {
    id: u64,
}

fn main() {}
