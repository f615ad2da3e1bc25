use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{domain}{id}")]
struct User {
    domain: String,
    id: u64,
}

fn main() {}
