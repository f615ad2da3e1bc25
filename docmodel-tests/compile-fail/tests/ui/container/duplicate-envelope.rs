//! Several `#[docmodel(...)]` attributes are merged, but an option is given once across them: a second
//! `envelope(...)` is refused at its name, rather than merged into the first.
use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
#[docmodel(envelope(layout = "plain"))]
#[docmodel(envelope(accessed))]
struct User {
    id: u64,
}

fn main() {}
