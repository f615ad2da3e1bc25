use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "three", key = "user::{usr_id}")]
struct User {
    #[docmodel(get, set, push = add)]
    user_id: u64,
    #[serde(rename = "_ver")]
    version: u32,
}

fn main() {}
