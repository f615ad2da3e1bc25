use docmodel::DocModel;
use serde::{Deserialize, Serialize};

// A field of another type under an unchanged version. Its lock is
// `docmodel-locks/type-changed/user/1.0.json`, beside this file.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
struct User {
    id: u64,
    name: Vec<String>,
    nickname: Option<String>,
}

fn main() {}
