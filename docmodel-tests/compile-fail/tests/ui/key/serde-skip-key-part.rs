use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "thing", schema = "1.0", key = "thing::{id}")]
struct Thing {
    #[serde(skip)]
    id: u64,
}

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "login", schema = "1.0", key = "login::{id}", lookup = "email::{email}")]
struct Login {
    id: u64,
    #[serde(default, skip_serializing)]
    email: String,
}

fn main() {}
