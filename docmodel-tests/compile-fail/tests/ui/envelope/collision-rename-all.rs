use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
#[docmodel(envelope(layout = "plain", created_by))]
struct User {
    id: u64,
    created_by: String,
}

fn main() {}
