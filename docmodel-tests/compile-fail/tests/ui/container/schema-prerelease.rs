use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "3.0.0-beta.1", key = "user::{id}")]
struct User {
    id: u64,
}

fn main() {}
