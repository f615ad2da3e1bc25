use docmodel::DocModel;
use serde::{Deserialize, Serialize};

// A merge function takes the base (if any), ours and theirs as the field's type, and returns it.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
struct User {
    id: u64,
    #[docmodel(merge = by_reference)]
    name: String,
}

fn by_reference(_: Option<&String>, ours: &String, _: &String) -> String {
    ours.clone()
}

fn main() {}
