use docmodel::DocModel;
use serde::{Deserialize, Serialize};

// `schema = "1.0.0"` is the version 1.0, whose lock is `docmodel-locks/patch-version/user/1.0.json`, beside
// this file: a field added is caught there too.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0.0", key = "user::{id}")]
struct User {
    id: u64,
    name: String,
    nickname: Option<String>,
    age: u32,
}

fn main() {}
