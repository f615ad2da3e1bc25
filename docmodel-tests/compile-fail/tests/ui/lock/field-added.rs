use docmodel::DocModel;
use serde::{Deserialize, Serialize};

// A field added under an unchanged version, required: a major bump and a step, or a new lock. Its lock is
// `docmodel-locks/field-added/user/1.0.json`, beside this file.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
struct User {
    id: u64,
    name: String,
    nickname: Option<String>,
    age: u32,
}

fn main() {}
