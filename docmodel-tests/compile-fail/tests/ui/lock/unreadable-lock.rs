use docmodel::DocModel;
use serde::{Deserialize, Serialize};

// A lock that does not read (here, JSON cut short) is an error at the version, not a check skipped. Its lock
// is `docmodel-locks/unreadable-lock/user/1.0.json`, beside this file.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
struct User {
    id: u64,
}

fn main() {}
