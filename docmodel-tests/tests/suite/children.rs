//! Items as documents of their own (the CouchDB guide's "document per item" design, with its bookmarks): a
//! model marks the field referring to its parent `#[docmodel(parent)]` and its place `#[docmodel(order)]`,
//! and `Repo::children`, `children_of` and `roots` list them in their order on every store, a level of
//! nested items at a time. A folder declares its items (`items(Bookmark)`): `Repo::remove_with_items`
//! removes it with every entry under it, and a removal stopped at any step leaves no entry without its
//! folder and is finished by `Repo::finish_removals`. The guide's scenario on two replicating servers is in
//! `replication::bookmarks`.

use docmodel::store::{MemoryStore, Store};
use docmodel::{
    Child, DocModel, Error, Key, OrderKey, Orphans, Ref, Repo, StoreErrorKind, Timestamp,
};
use docmodel_tests::{FailingStore, Fresh, keys_under, text};
use serde::{Deserialize, Serialize};

/// An entry of the guide's bookmarks: a link (with a `url`) or a folder of entries (without), placed among
/// its siblings by `place`. The entries at the top have no folder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "bookmark", schema = "1.0", key = "bookmark::{id}")]
#[docmodel(envelope(layout = "plain"), items(Bookmark))]
pub struct Bookmark {
    pub id: String,
    #[docmodel(parent)]
    pub folder: Option<Ref<Bookmark>>,
    #[docmodel(order)]
    pub place: OrderKey,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// The key of the entry `id`.
pub fn key(id: &str) -> Key<Bookmark> {
    Bookmark::key(id).unwrap()
}

impl Bookmark {
    /// A link in `folder` at `place`.
    pub fn link(id: &str, folder: Option<&str>, place: &OrderKey, name: &str, url: &str) -> Self {
        Bookmark {
            id: id.to_owned(),
            folder: folder.map(|folder| Ref::new(key(folder))),
            place: place.clone(),
            name: name.to_owned(),
            url: Some(url.to_owned()),
        }
    }
}

/// The guide's bookmarks before either machine changes them, as documents: the top level's Weather, News
/// and the Tech folder, and Tech's Register and CouchDB.
pub fn the_guides_bookmarks() -> Vec<Bookmark> {
    let [p0, p1, p2] = [0, 1, 2].map(|n| (0..n).fold(OrderKey::first(), |key, _| key.after()));
    let tech = Bookmark {
        id: "tech".into(),
        folder: None,
        place: p2,
        name: "Tech".into(),
        url: None,
    };
    vec![
        Bookmark::link(
            "weather",
            None,
            &p0,
            "Weather",
            "http://www.bbc.co.uk/weather",
        ),
        Bookmark::link("news", None, &p1, "News", "http://news.bbc.co.uk/"),
        tech,
        Bookmark::link(
            "register",
            Some("tech"),
            &OrderKey::first(),
            "Register",
            "http://www.theregister.co.uk/",
        ),
        Bookmark::link(
            "couchdb",
            Some("tech"),
            &OrderKey::first().after(),
            "CouchDB",
            "http://couchdb.apache.org/",
        ),
    ]
}

/// [`the_guides_bookmarks`] as [`tree`] lists them.
pub const THE_GUIDES_TREE: [&str; 5] = [
    "Weather http://www.bbc.co.uk/weather",
    "News http://news.bbc.co.uk/",
    "Tech/",
    "  Register http://www.theregister.co.uk/",
    "  CouchDB http://couchdb.apache.org/",
];

/// The list the guide expects once the laptop's and the PC's changes have met (News pointed to CNN, Register
/// renamed, Slashdot added after it; Weather removed, CNET added): what each design must end with on both
/// replicas.
pub const THE_GUIDES_MERGED_TREE: [&str; 6] = [
    "News http://www.cnn.com/",
    "Tech/",
    "  The Register http://www.theregister.co.uk/",
    "  Slashdot http://www.slashdot.new/",
    "  CouchDB http://couchdb.apache.org/",
    "  CNET http://news.cnet.com/",
];

/// The whole tree as the guide writes it, one line per entry, indented by its depth: read with one
/// listing per level (`roots`, then `children_of` the folders of each level), every page of each.
pub async fn tree<S: Store>(repo: &Repo<Bookmark, S>) -> Vec<String> {
    async fn all<S: Store>(mut pages: docmodel::Pages<'_, Bookmark, S>) -> Vec<Bookmark> {
        let mut all = Vec::new();
        while let Some(page) = pages.next().await.unwrap() {
            all.extend(page.docs.into_iter().map(docmodel::Doc::into_inner));
        }
        all
    }
    let mut levels = vec![all(repo.roots()).await];
    loop {
        let folders: Vec<_> = levels
            .last()
            .unwrap()
            .iter()
            .filter(|entry| entry.url.is_none())
            .map(|folder| key(&folder.id))
            .collect();
        if folders.is_empty() {
            break;
        }
        levels.push(all(repo.children_of(&folders)).await);
    }
    // Depth first, each folder's entries after it, in the order their level came in.
    fn lines(levels: &[Vec<Bookmark>], depth: usize, folder: Option<&str>, out: &mut Vec<String>) {
        let Some(level) = levels.get(depth) else {
            return;
        };
        for entry in level
            .iter()
            .filter(|entry| entry.parent_key().map(|key| key.as_str()) == folder)
        {
            let indent = "  ".repeat(depth);
            match &entry.url {
                Some(url) => out.push(format!("{indent}{} {url}", entry.name)),
                None => out.push(format!("{indent}{}/", entry.name)),
            }
            let key = key(&entry.id);
            lines(levels, depth + 1, Some(key.as_str()), out);
        }
    }
    let mut out = Vec::new();
    lines(&levels, 0, None, &mut out);
    out
}

async fn items_list_in_order_under_their_parent<S: Fresh>() {
    let store = S::fresh().await;
    let bookmarks = Repo::<Bookmark>::new(&store);
    // Inserted out of their order.
    let mut entries = the_guides_bookmarks();
    entries.reverse();
    entries.swap(0, 2);
    for entry in entries {
        bookmarks.insert(entry).await.unwrap();
    }
    bookmarks.ensure_indexes().await.unwrap();

    assert_eq!(tree(&bookmarks).await, THE_GUIDES_TREE);

    // The parent is stored as its key, the place as its text.
    let stored: serde_json::Value =
        serde_json::from_str(&text(&store, "bookmark::couchdb").await.unwrap()).unwrap();
    assert_eq!(stored["folder"], "bookmark::tech");
    assert_eq!(stored["place"], "n1");
    let stored: serde_json::Value =
        serde_json::from_str(&text(&store, "bookmark::news").await.unwrap()).unwrap();
    assert_eq!(stored["folder"], serde_json::Value::Null);

    // One parent's items, a page at a time, in their order; a new item between two lands between them.
    let tech = key("tech");
    let register = bookmarks.get(&key("register")).await.unwrap().unwrap();
    let couchdb = bookmarks.get(&key("couchdb")).await.unwrap().unwrap();
    let between = OrderKey::between(&register.place, &couchdb.place).unwrap();
    bookmarks
        .insert(Bookmark::link(
            "slashdot",
            Some("tech"),
            &between,
            "Slashdot",
            "http://www.slashdot.new/",
        ))
        .await
        .unwrap();
    let mut pages = bookmarks.pages(Bookmark::children_query(std::slice::from_ref(&tech)).limit(2));
    let mut names = Vec::new();
    while let Some(page) = pages.next().await.unwrap() {
        assert!(page.docs.len() <= 2);
        names.push(
            page.docs
                .iter()
                .map(|doc| doc.name.clone())
                .collect::<Vec<_>>(),
        );
    }
    assert_eq!(names, [vec!["Register", "Slashdot"], vec!["CouchDB"]]);

    // Every item says whose it is; a folder nobody fills has no items, and no parents list nothing.
    for doc in &[register, couchdb] {
        assert_eq!(doc.parent_key(), Some(&tech));
    }
    let empty = bookmarks.children(&key("weather")).next().await.unwrap();
    assert!(empty.is_none_or(|page| page.docs.is_empty()));
    let none = bookmarks.children_of(&[]).next().await.unwrap();
    assert!(none.is_none_or(|page| page.docs.is_empty()));
}

/// The guide's bookmarks with a folder inside Tech, `rust`, holding two links.
async fn with_a_sub_folder<S: Store>(bookmarks: &Repo<Bookmark, S>) {
    for entry in the_guides_bookmarks() {
        bookmarks.insert(entry).await.unwrap();
    }
    let first = OrderKey::first();
    let rust = Bookmark {
        id: "rust".into(),
        folder: Some(Ref::new(key("tech"))),
        place: first.before(),
        name: "Rust".into(),
        url: None,
    };
    bookmarks.insert(rust).await.unwrap();
    for (id, place, url) in [
        ("docs", first.clone(), "https://docs.rs/"),
        ("crates", first.after(), "https://crates.io/"),
    ] {
        bookmarks
            .insert(Bookmark::link(id, Some("rust"), &place, id, url))
            .await
            .unwrap();
    }
    bookmarks.ensure_indexes().await.unwrap();
}

async fn a_folder_is_removed_with_every_entry_under_it<S: Fresh>() {
    let store = S::fresh().await;
    let bookmarks = Repo::<Bookmark>::new(&store);
    with_a_sub_folder(&bookmarks).await;
    assert_eq!(
        tree(&bookmarks).await,
        [
            "Weather http://www.bbc.co.uk/weather",
            "News http://news.bbc.co.uk/",
            "Tech/",
            "  Rust/",
            "    docs https://docs.rs/",
            "    crates https://crates.io/",
            "  Register http://www.theregister.co.uk/",
            "  CouchDB http://couchdb.apache.org/",
        ]
    );
    bookmarks.remove_with_items(&key("tech")).await.unwrap();
    assert_eq!(tree(&bookmarks).await, THE_GUIDES_TREE[..2]);
    assert_eq!(
        keys_under(&store, "bookmark::").await,
        ["bookmark::news", "bookmark::weather"]
    );
    assert_eq!(keys_under(&store, "removing::").await, Vec::<String>::new());
    // Again, or of a link (no items of its own, which removes it as `remove` does): no error.
    bookmarks.remove_with_items(&key("tech")).await.unwrap();
    bookmarks.remove_with_items(&key("news")).await.unwrap();
    assert_eq!(
        keys_under(&store, "bookmark::").await,
        ["bookmark::weather"]
    );
    assert_eq!(bookmarks.finish_removals().await.unwrap(), 0);
    assert!(bookmarks.orphans().await.unwrap().is_empty());

    // Folders whose parents make a cycle (one its own folder, two each other's): removed without going round.
    let place = OrderKey::first();
    for (id, folder) in [("loop", "loop"), ("a", "b"), ("b", "a")] {
        let mut entry = Bookmark::link(id, Some(folder), &place, id, "x");
        entry.url = None;
        bookmarks.insert(entry).await.unwrap();
    }
    bookmarks
        .insert(Bookmark::link(
            "in-a",
            Some("a"),
            &place,
            "in-a",
            "https://a.example/",
        ))
        .await
        .unwrap();
    bookmarks.remove_with_items(&key("loop")).await.unwrap();
    bookmarks.remove_with_items(&key("a")).await.unwrap();
    assert_eq!(
        keys_under(&store, "bookmark::").await,
        ["bookmark::weather"]
    );
    assert_eq!(keys_under(&store, "removing::").await, Vec::<String>::new());
}

/// The guide's bookmarks, with entries another replica added to a folder `gone` removed here: the link CNET,
/// and the folder Lost holding the link Deep.
async fn with_orphans<S: Store>(bookmarks: &Repo<Bookmark, S>) {
    for entry in the_guides_bookmarks() {
        bookmarks.insert(entry).await.unwrap();
    }
    let [p2, p3] = [2, 3].map(|n| (0..n).fold(OrderKey::first(), |key, _| key.after()));
    let lost = Bookmark {
        id: "lost".into(),
        folder: Some(Ref::new(key("gone"))),
        place: p3,
        name: "Lost".into(),
        url: None,
    };
    for entry in [
        Bookmark::link("cnet", Some("gone"), &p2, "CNET", "http://news.cnet.com/"),
        lost,
        Bookmark::link(
            "deep",
            Some("lost"),
            &OrderKey::first(),
            "Deep",
            "http://deep.example/",
        ),
    ] {
        bookmarks.insert(entry).await.unwrap();
    }
    bookmarks.ensure_indexes().await.unwrap();
}

async fn orphans_are_removed_or_moved_by_the_rule_given<S: Fresh>() {
    let store = S::fresh().await;
    let bookmarks = Repo::<Bookmark>::new(&store);
    with_orphans(&bookmarks).await;
    let mut orphans: Vec<String> = bookmarks
        .orphans()
        .await
        .unwrap()
        .iter()
        .map(|doc| doc.id.clone())
        .collect();
    orphans.sort();
    assert_eq!(orphans, ["cnet", "lost"]);

    // Moved to a parent that is not stored: refused, nothing changed.
    let err = bookmarks
        .settle_orphans(&Orphans::MoveTo(key("nowhere")))
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "document `bookmark::nowhere` not found");
    assert_eq!(bookmarks.orphans().await.unwrap().len(), 2);

    // Moved to Tech: after its own entries, in their places, Lost with Deep still in it.
    assert_eq!(
        bookmarks
            .settle_orphans(&Orphans::MoveTo(key("tech")))
            .await
            .unwrap(),
        2
    );
    assert_eq!(
        tree(&bookmarks).await,
        [
            "Weather http://www.bbc.co.uk/weather",
            "News http://news.bbc.co.uk/",
            "Tech/",
            "  Register http://www.theregister.co.uk/",
            "  CouchDB http://couchdb.apache.org/",
            "  CNET http://news.cnet.com/",
            "  Lost/",
            "    Deep http://deep.example/",
        ]
    );
    assert!(bookmarks.orphans().await.unwrap().is_empty());
    let stored: serde_json::Value =
        serde_json::from_str(&text(&store, "bookmark::cnet").await.unwrap()).unwrap();
    assert_eq!(stored["folder"], "bookmark::tech");

    // Removed, on another store: the orphans, then Deep, which removing Lost left without its folder.
    let store = S::fresh().await;
    let bookmarks = Repo::<Bookmark>::new(&store);
    with_orphans(&bookmarks).await;
    assert_eq!(bookmarks.settle_orphans(&Orphans::Remove).await.unwrap(), 3);
    assert_eq!(tree(&bookmarks).await, THE_GUIDES_TREE);
    assert_eq!(
        keys_under(&store, "bookmark::").await,
        [
            "bookmark::couchdb",
            "bookmark::news",
            "bookmark::register",
            "bookmark::tech",
            "bookmark::weather"
        ]
    );
    assert_eq!(bookmarks.settle_orphans(&Orphans::Remove).await.unwrap(), 0);
}

on_every_store!(sqlpp[
    items_list_in_order_under_their_parent,
    a_folder_is_removed_with_every_entry_under_it,
    orphans_are_removed_or_moved_by_the_rule_given,
]);

/// A removal stopped at each of its store operations in turn: no entry is ever left whose folder is gone,
/// the entries outside the folder stay, and `finish_removals` completes it (or, stopped before its mark,
/// nothing was removed).
#[tokio::test]
async fn a_removal_stopped_at_any_step_leaves_no_orphan_and_is_finished_by_finish_removals() {
    let mut stops = 0;
    for k in 1.. {
        let store = FailingStore::new(MemoryStore::new());
        let bookmarks = Repo::<Bookmark>::new(&store);
        with_a_sub_folder(&bookmarks).await;
        store.fail_at(k);
        let result = bookmarks.remove_with_items(&key("tech")).await;
        let ran = store.count();
        store.fail_at(0);
        if ran < k {
            result.unwrap();
            break;
        }
        stops += 1;
        // A failure of a step `remove` leaves to its next run (an index entry's removal) is no error here.
        let context = format!("stopped at operation {k}: {result:?}");
        let orphans: Vec<String> = bookmarks
            .orphans()
            .await
            .unwrap()
            .iter()
            .map(|doc| doc.id.clone())
            .collect();
        assert_eq!(orphans, Vec::<String>::new(), "{context}");
        let lines = tree(&bookmarks).await;
        assert_eq!(lines[..2], THE_GUIDES_TREE[..2], "{context}");
        let marks = keys_under(&store, "removing::").await;
        let finished = bookmarks.finish_removals().await.unwrap();
        assert_eq!(finished, marks.len(), "{context}");
        if marks.is_empty() && lines.len() == 8 {
            // Stopped before anything was written: the folder stands whole, and removing it again works.
            bookmarks.remove_with_items(&key("tech")).await.unwrap();
        }
        assert_eq!(tree(&bookmarks).await, THE_GUIDES_TREE[..2], "{context}");
        assert_eq!(
            keys_under(&store, "removing::").await,
            Vec::<String>::new(),
            "{context}"
        );
    }
    assert!(stops > 10, "{stops} stops");
}

/// A mark left by a removal whose last step failed does not remove a document created again under its key
/// since: `finish_removals` takes the mark away alone.
#[tokio::test]
async fn a_mark_left_from_an_earlier_document_does_not_remove_one_created_since() {
    let store = MemoryStore::new();
    let at =
        |millis: i64| Repo::<Bookmark>::new(&store).clock(move || Timestamp::from_millis(millis));
    with_a_sub_folder(&at(1_000)).await;
    at(2_000).remove_with_items(&key("tech")).await.unwrap();
    // As a removal that failed to take its mark away would leave it.
    store
        .insert(
            "removing::bookmark::bookmark::tech",
            br#"{"removing":"bookmark::tech","created":1000}"#,
        )
        .await
        .unwrap();
    let mut tech = Bookmark::link("tech", None, &OrderKey::first(), "Tech", "x");
    tech.url = None;
    at(3_000).insert(tech).await.unwrap();
    at(3_000)
        .insert(Bookmark::link(
            "new",
            Some("tech"),
            &OrderKey::first(),
            "New",
            "https://new.example/",
        ))
        .await
        .unwrap();
    assert_eq!(at(4_000).finish_removals().await.unwrap(), 0);
    assert_eq!(
        keys_under(&store, "bookmark::").await,
        [
            "bookmark::new",
            "bookmark::news",
            "bookmark::tech",
            "bookmark::weather"
        ]
    );
    assert_eq!(keys_under(&store, "removing::").await, Vec::<String>::new());
    // A mark of the document as it is: finished.
    store
        .insert(
            "removing::bookmark::bookmark::tech",
            br#"{"removing":"bookmark::tech","created":3000}"#,
        )
        .await
        .unwrap();
    assert_eq!(at(4_000).finish_removals().await.unwrap(), 1);
    assert_eq!(
        keys_under(&store, "bookmark::").await,
        ["bookmark::news", "bookmark::weather"]
    );
}

/// A shelf whose notes live in another Couchbase collection.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "shelf", schema = "1.0", key = "shelf::{id}", items(Note))]
struct Shelf {
    id: u64,
}

#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "note",
    schema = "1.0",
    key = "note::{id}",
    collection = "notes"
)]
struct Note {
    id: u64,
    #[docmodel(parent)]
    shelf: Ref<Shelf>,
}

/// Items in another collection than their parent: refused before anything is removed, naming both.
#[tokio::test]
async fn items_in_another_collection_than_their_parent_are_refused() {
    let store = MemoryStore::new();
    Repo::<Shelf>::new(&store)
        .insert(Shelf { id: 1 })
        .await
        .unwrap();
    Repo::<Note>::new(&store)
        .insert(Note {
            id: 1,
            shelf: Ref::new(Shelf::key(1)),
        })
        .await
        .unwrap();
    let err = Repo::<Shelf>::new(&store)
        .remove_with_items(&Shelf::key(1))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Store {
                kind: StoreErrorKind::Unsupported,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "document `shelf::1`: the store does not support this: the `note` items live in collection `notes`, \
         their `shelf` parents in the store's own collection: a removal with items and `Repo::orphans` read \
         both through one store, so they must share a collection"
    );
    assert_eq!(keys_under(&store, "shelf::").await, ["shelf::1"]);
    assert_eq!(keys_under(&store, "note::").await, ["note::1"]);
    // Refused before the shelf is marked: nothing is left for `finish_removals`.
    assert_eq!(keys_under(&store, "removing::").await, Vec::<String>::new());
    assert_eq!(
        Repo::<Shelf>::new(&store).finish_removals().await.unwrap(),
        0
    );
    assert_eq!(keys_under(&store, "note::").await, ["note::1"]);
    assert!(Repo::<Note>::new(&store).orphans().await.is_err());
}

/// A rack whose boxes were stored at schema 1.0 (their label under `name`) and are read at 2.0.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "rack", schema = "1.0", key = "rack::{id}", items(Crate))]
struct Rack {
    id: u64,
}

#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "crate", schema = "2.0", key = "crate::{id}")]
#[docmodel(migrate_from("1.0" = name_to_label))]
struct Crate {
    id: u64,
    #[docmodel(parent)]
    rack: Ref<Rack>,
    label: String,
}

fn name_to_label(doc: &mut docmodel::JsonObject) -> Result<(), docmodel::MigrationError> {
    let name = doc.remove("name").unwrap_or_default();
    doc.insert("label".into(), name);
    Ok(())
}

/// Items stored at an older schema than their model's (a find by the parent field may miss them): the
/// removal is refused before anything is written, and goes through once they are migrated.
#[tokio::test]
async fn items_at_an_older_schema_are_refused_until_migrated() {
    let store = MemoryStore::new();
    let racks = Repo::<Rack>::new(&store);
    racks.insert(Rack { id: 1 }).await.unwrap();
    store
        .insert(
            "crate::1",
            br#"{"_type":"crate","_schema":"1.0","_ver":1,"id":1,"rack":"rack::1","name":"tools"}"#,
        )
        .await
        .unwrap();
    let before = keys_under(&store, "").await;
    let err = racks.remove_with_items(&Rack::key(1)).await.unwrap_err();
    assert!(
        matches!(&err, Error::ItemsNotMigrated { key, items: "crate", count: 1, schema: "2.0" } if key == "rack::1"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "document `rack::1` was not removed with its items: 1 `crate` document is stored at a schema older than \
         2.0, which a find by the parent may miss; migrate them first (`Repo::migrate_all`); nothing was written"
    );
    assert_eq!(keys_under(&store, "").await, before);

    let crates = Repo::<Crate>::new(&store);
    assert_eq!(crates.migrate_all().await.unwrap().migrated, 1);
    racks.remove_with_items(&Rack::key(1)).await.unwrap();
    assert_eq!(keys_under(&store, "crate::").await, Vec::<String>::new());
    assert_eq!(keys_under(&store, "rack::").await, Vec::<String>::new());
}
