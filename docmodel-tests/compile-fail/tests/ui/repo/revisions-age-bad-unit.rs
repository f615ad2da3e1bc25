use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
#[docmodel(revisions(keep = 10, for = "30x"))]
struct User {
    id: u64,
}

fn main() {}
