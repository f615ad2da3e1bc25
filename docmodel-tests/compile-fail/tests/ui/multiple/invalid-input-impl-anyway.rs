use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{missing}")]
struct User {
    id: u64,
}

fn load(bytes: &[u8]) -> docmodel::Doc<User> {
    docmodel::Doc::from_slice(bytes).unwrap()
}

fn main() {}
