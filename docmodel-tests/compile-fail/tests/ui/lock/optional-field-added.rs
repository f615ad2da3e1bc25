use docmodel::DocModel;
use serde::{Deserialize, Serialize};

// A field added under an unchanged version that reads when missing: the minor bump is named. Its lock is
// `docmodel-locks/optional-field-added/user/1.0.json`, beside this file.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
struct User {
    id: u64,
    name: String,
    nickname: Option<String>,
    city: Option<String>,
}

fn main() {}
