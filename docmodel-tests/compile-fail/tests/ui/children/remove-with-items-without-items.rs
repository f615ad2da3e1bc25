use docmodel::store::MemoryStore;
use docmodel::{Ref, Repo};
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
}

async fn remove(folders: &Repo<Folder, MemoryStore>) -> Result<(), docmodel::Error> {
    // `Folder` does not name `Bookmark` in `items(...)`: its bookmarks would be left behind.
    folders.remove_with_items(&Folder::key(1)).await
}

fn main() {
    let _ = remove;
}
