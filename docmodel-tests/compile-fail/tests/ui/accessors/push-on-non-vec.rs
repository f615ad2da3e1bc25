use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
struct User {
    id: u64,
    #[docmodel(push = add_name)]
    name: String,
}

fn main() {}
