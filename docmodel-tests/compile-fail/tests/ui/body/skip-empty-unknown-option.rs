use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, docmodel::DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}", skip_empty(defaults))]
struct User {
    id: u64,
}

fn main() {}
