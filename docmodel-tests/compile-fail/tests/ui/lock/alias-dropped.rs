use docmodel::DocModel;
use serde::{Deserialize, Serialize};

// A field no longer read from a name it was (`#[serde(alias = "fullName")]` dropped) under an unchanged
// version. Its lock is `docmodel-locks/alias-dropped/user/1.0.json`, beside this file.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
struct User {
    id: u64,
    name: String,
}

fn main() {}
