use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, docmodel::DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
struct User {
    id: u64,
    #[docmodel(skip_empty)]
    #[serde(skip_serializing, default)]
    cache: String,
}

fn main() {}
