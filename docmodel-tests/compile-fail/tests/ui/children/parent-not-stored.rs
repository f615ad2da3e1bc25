use docmodel::Ref;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, docmodel::DocModel)]
#[docmodel(type = "folder", schema = "1.0", key = "folder::{id}")]
struct Folder {
    id: u64,
}

mod as_text {
    pub fn serialize<S: serde::Serializer>(
        folder: &docmodel::Ref<super::Folder>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(folder.key().as_str())
    }
}

#[derive(Serialize, Deserialize, docmodel::DocModel)]
#[docmodel(type = "bookmark", schema = "1.0", key = "bookmark::{id}")]
struct Bookmark {
    id: u64,
    #[docmodel(parent)]
    #[serde(skip)]
    folder: Option<Ref<Folder>>,
    #[docmodel(order)]
    #[serde(skip)]
    place: Option<docmodel::OrderKey>,
}

#[derive(Serialize, Deserialize, docmodel::DocModel)]
#[docmodel(type = "note", schema = "1.0", key = "note::{id}")]
struct Note {
    id: u64,
    #[docmodel(parent)]
    #[serde(serialize_with = "as_text::serialize")]
    folder: Ref<Folder>,
}

fn main() {}
