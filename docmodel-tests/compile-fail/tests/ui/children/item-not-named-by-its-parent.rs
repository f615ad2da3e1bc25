use docmodel::{OrderKey, Ref};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, docmodel::DocModel)]
#[docmodel(type = "folder", schema = "1.0", key = "folder::{id}", items(Bookmark))]
struct Folder {
    id: u64,
}

#[derive(Serialize, Deserialize, docmodel::DocModel)]
#[docmodel(type = "bookmark", schema = "1.0", key = "bookmark::{id}")]
struct Bookmark {
    id: u64,
    #[docmodel(parent)]
    folder: Ref<Folder>,
}

// A second kind of item the folder's `items(...)` forgets: removing a folder with its items would leave these.
#[derive(Serialize, Deserialize, docmodel::DocModel)]
#[docmodel(type = "note", schema = "1.0", key = "note::{id}")]
struct Note {
    id: u64,
    #[docmodel(parent)]
    folder: Option<Ref<Folder>>,
    #[docmodel(order)]
    place: OrderKey,
}

fn main() {}
