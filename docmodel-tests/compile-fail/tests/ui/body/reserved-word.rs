// The warnings are errors here, so that trybuild shows them.
#![deny(deprecated)]

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, docmodel::DocModel)]
#[docmodel(type = "order", schema = "1.0", key = "order::{id}")]
struct Order {
    id: u64,
    // Warned: the stored names `user` and `VALUE` are reserved, whatever their case.
    user: String,
    #[serde(rename = "VALUE")]
    amount: u64,
    // Not warned: stored as `orderedBy`, or allowed.
    #[serde(rename = "orderedBy")]
    select: String,
    #[docmodel(allow(reserved_word))]
    role: String,
}

#[derive(Serialize, Deserialize, docmodel::DocModel)]
#[docmodel(type = "bucket", schema = "1.0", key = "bucket::{id}", allow(reserved_word))]
struct Bucket {
    id: u64,
    user: String,
}

fn main() {}
