use docmodel::DocModel;
use serde::{Deserialize, Serialize};

// A field the stored JSON does not hold has nothing to merge.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
struct User {
    id: u64,
    #[serde(skip)]
    #[docmodel(merge = "ours")]
    cache: String,
    #[serde(flatten)]
    #[docmodel(merge = "theirs")]
    extra: std::collections::BTreeMap<String, String>,
}

fn main() {}
