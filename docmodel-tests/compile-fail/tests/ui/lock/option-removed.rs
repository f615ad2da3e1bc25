use docmodel::DocModel;
use serde::{Deserialize, Serialize};

// `Option` removed from a field under an unchanged version: its type changed, and it is now required. Its lock is
// `docmodel-locks/option-removed/user/1.0.json`, beside this file.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
struct User {
    id: u64,
    name: String,
    nickname: String,
}

fn main() {}
