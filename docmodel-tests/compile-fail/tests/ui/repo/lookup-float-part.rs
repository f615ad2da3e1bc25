use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}", lookup = "score::{score}")]
struct User {
    id: u64,
    score: f64,
}

fn main() {}
