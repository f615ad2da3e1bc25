use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, docmodel::DocModel)]
#[docmodel(type = "bookmark", schema = "1.0", key = "bookmark::{id}")]
struct Bookmark {
    id: u64,
    #[docmodel(parent)]
    folder: String,
}

fn main() {}
