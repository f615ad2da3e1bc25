use docmodel::Ref;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, docmodel::DocModel)]
#[docmodel(type = "folder", schema = "1.0", key = "folder::{id}")]
struct Folder {
    id: u64,
}

#[derive(Serialize, Deserialize, docmodel::DocModel)]
#[docmodel(type = "bookmark", schema = "1.0", key = "bookmark::{id}")]
struct Bookmark {
    id: u64,
    #[docmodel(parent)]
    folder: Ref<Folder>,
    #[docmodel(parent)]
    shelf: Ref<Folder>,
    #[docmodel(order)]
    place: docmodel::OrderKey,
    #[docmodel(order)]
    added: u64,
}

fn main() {}
