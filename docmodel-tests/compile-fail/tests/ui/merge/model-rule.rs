use docmodel::DocModel;
use serde::{Deserialize, Serialize};

// On the model, `merge` is a rule by name for every field: a function, `by` and `order_by` belong on a field.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
#[docmodel(merge(union, by = "id", order_by = "at", with = pick))]
struct User {
    id: u64,
}

fn pick(_: Option<u64>, ours: u64, _: u64) -> u64 {
    ours
}

fn main() {}
