use docmodel::DocModel;
use serde::{Deserialize, Serialize};

// A collection's name as Couchbase takes it: each mistake reported at its string.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}", collection = "_users")]
struct User {
    id: u64,
}

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "order", schema = "1.0", key = "order::{id}", collection = "sales.orders")]
struct Order {
    id: u64,
}

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "note", schema = "1.0", key = "note::{id}", collection = "")]
struct Note {
    id: u64,
}

fn main() {}
