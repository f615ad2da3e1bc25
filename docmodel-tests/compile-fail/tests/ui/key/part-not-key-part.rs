use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
struct User {
    id: UserId,
}

#[derive(Serialize, Deserialize)]
struct UserId(u64);

fn main() {}
