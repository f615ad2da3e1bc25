use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
struct User {
    id: u64,
    #[docmodel(get, set(with = check_name))]
    name: String,
}

fn check_name(name: &str) -> bool {
    !name.is_empty()
}

fn main() {}
