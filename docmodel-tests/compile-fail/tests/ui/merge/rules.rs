use docmodel::DocModel;
use serde::{Deserialize, Serialize};

// Each mistake in a field's `merge` reported at its token, all at once.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
struct User {
    id: u64,
    #[docmodel(merge = "latest")]
    name: String,
    #[docmodel(merge(max, min))]
    score: u64,
    #[docmodel(merge(union, with = pick))]
    tags: Vec<String>,
    #[docmodel(merge(max, order_by = "at"))]
    events: Vec<u64>,
    #[docmodel(merge(by = ""))]
    addresses: Vec<String>,
    #[docmodel(merge(sort = "at"))]
    notes: Vec<String>,
    #[docmodel(merge)]
    city: String,
    #[docmodel(merge())]
    zip: String,
}

fn pick(_: Option<Vec<String>>, ours: Vec<String>, _: Vec<String>) -> Vec<String> {
    ours
}

fn main() {}
