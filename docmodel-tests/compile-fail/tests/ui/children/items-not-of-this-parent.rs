use docmodel::Ref;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, docmodel::DocModel)]
#[docmodel(type = "shelf", schema = "1.0", key = "shelf::{id}")]
struct Shelf {
    id: u64,
}

#[derive(Serialize, Deserialize, docmodel::DocModel)]
#[docmodel(type = "folder", schema = "1.0", key = "folder::{id}", items(Bookmark, Shelf))]
struct Folder {
    id: u64,
}

#[derive(Serialize, Deserialize, docmodel::DocModel)]
#[docmodel(type = "bookmark", schema = "1.0", key = "bookmark::{id}")]
struct Bookmark {
    id: u64,
    #[docmodel(parent)]
    shelf: Ref<Shelf>,
}

fn main() {}
