use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{a}::::{b}")]
struct User {
    a: u64,
    b: u64,
}

fn main() {}
