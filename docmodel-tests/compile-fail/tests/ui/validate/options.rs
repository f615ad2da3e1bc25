use docmodel::DocModel;
use serde::{Deserialize, Serialize};

// Each mistake is reported, all in one compilation: a `validate` that is not a path, a `garde` flag given a
// value.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}", validate = 1, garde = "yes")]
struct User {
    id: u64,
}

// `validate_on_read` with no rules to run.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "order", schema = "1.0", key = "order::{id}", validate_on_read)]
struct Order {
    id: u64,
}

fn main() {}
