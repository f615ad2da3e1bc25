//! `Doc::from_slice` has no key to read a `from_key` part from: it does not compile for such a model.

use docmodel::{Doc, DocModel};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "session", schema = "1.0", key = "session::{email}")]
struct Session {
    #[docmodel(from_key)]
    #[serde(skip)]
    email: String,
    token: String,
}

fn main() {
    let _ = Doc::<Session>::from_slice(br#"{"_type":"session","_schema":"1.0","token":"1"}"#);
}
