use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "", schema = "1.0", key = "user::{id}")]
struct User {
    id: u64,
}

fn main() {}
