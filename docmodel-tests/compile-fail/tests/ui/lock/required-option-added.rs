use docmodel::DocModel;
use serde::{Deserialize, Serialize};

// An `Option` added under an unchanged version, read by its own function: serde requires it, so a stored 1.0
// document without it does not read, and a minor bump is not enough. Its lock is
// `docmodel-locks/required-option-added/user/1.0.json`, beside this file.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
struct User {
    id: u64,
    name: String,
    #[serde(with = "docmodel::timestamp::iso8601::option")]
    shipped: Option<docmodel::Timestamp>,
}

fn main() {}
