//! `from_key` on a field the key has no part for, on a key part the body still stores, and on a nested
//! field; and an index over a `from_key` field. Each is reported, at once.

use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "session", schema = "1.0", key = "session::{email}::{device}", index = "email")]
struct Session {
    #[docmodel(from_key)]
    #[serde(skip)]
    email: String,
    #[docmodel(from_key)]
    device: String,
    #[docmodel(from_key)]
    #[serde(skip)]
    token: String,
}

fn main() {}
