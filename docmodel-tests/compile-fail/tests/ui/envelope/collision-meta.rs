use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}", envelope(layout = "meta"))]
struct User {
    id: u64,
    meta: String,
}

fn main() {}
