//! Three-way merges of whole documents: replication conflicts merged from the base docmodel keeps in its
//! revision copies (`Resolve::merge`), on conflicts made by hand (MemoryStore) and on two replicating
//! pouchdb-servers; stale saves merged (`Repo::save_merging`) on Redb; the model's merge rules from the
//! derive; what is reported when nothing decides, or no base is kept; a merge failing at each store
//! operation, then tried again.

use docmodel::store::{MemoryStore, Redb, Store};
use docmodel::{Doc, DocModel, Error, Repo, Resolve, RetryPolicy, Timestamp};
use docmodel_tests::couchdb::{Replicated, eventually};
use docmodel_tests::{Conflicted, FailingStore, keys_under};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

mod layouts;
mod lineage;

/// The CouchDB guide's bookmark: "an ordered, nestable mapping of name to URL".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Bookmark {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    url: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    bookmarks: Vec<Bookmark>,
}

/// The guide's "Approach 1: Single JSON doc", with docmodel's history of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "bookmarks",
    schema = "1.0",
    key = "bookmarks::{owner}",
    revisions = 10
)]
#[docmodel(envelope(layout = "plain"))]
struct Bookmarks {
    owner: String,
    bookmarks: Vec<Bookmark>,
}

fn link(name: &str, url: &str) -> Bookmark {
    Bookmark {
        name: name.into(),
        url: Some(url.into()),
        bookmarks: Vec::new(),
    }
}

fn folder(name: &str, bookmarks: Vec<Bookmark>) -> Bookmark {
    Bookmark {
        name: name.into(),
        url: None,
        bookmarks,
    }
}

/// The guide's lists, as printed: the base (A), the laptop's (B), the PC's (C).
fn guide_lists() -> [Vec<Bookmark>; 3] {
    let a = vec![
        link("Weather", "http://www.bbc.co.uk/weather"),
        link("News", "http://news.bbc.co.uk/"),
        folder(
            "Tech",
            vec![
                link("Register", "http://www.theregister.co.uk/"),
                link("CouchDB", "http://couchdb.apache.org/"),
            ],
        ),
    ];
    let b = vec![
        link("Weather", "http://www.bbc.co.uk/weather"),
        link("News", "http://www.cnn.com/"),
        folder(
            "Tech",
            vec![
                link("The Register", "http://www.theregister.co.uk/"),
                link("Slashdot", "http://www.slashdot.new/"),
                link("CouchDB", "http://couchdb.apache.org/"),
            ],
        ),
    ];
    let c = vec![
        link("News", "http://www.cnn.com/"),
        folder(
            "Tech",
            vec![
                link("Register", "http://www.theregister.co.uk/"),
                link("CouchDB", "http://couchdb.apache.org/"),
                link("CNET", "http://news.cnet.com/"),
            ],
        ),
    ];
    [a, b, c]
}

/// What the guide's text expects of the merge, as JSON: News to CNN, Weather deleted, "The Register" renamed
/// with Slashdot after it, CNET added in Tech.
fn expected_json() -> Value {
    json!([
        {"name": "News", "url": "http://www.cnn.com/"},
        {"name": "Tech", "bookmarks": [
            {"name": "The Register", "url": "http://www.theregister.co.uk/"},
            {"name": "Slashdot", "url": "http://www.slashdot.new/"},
            {"name": "CouchDB", "url": "http://couchdb.apache.org/"},
            {"name": "CNET", "url": "http://news.cnet.com/"}
        ]}
    ])
}

fn at(seconds: i64) -> impl Fn() -> Timestamp + Send + Sync + 'static {
    move || Timestamp::from_millis(seconds * 1000)
}

fn repo<T, S>(store: S, actor: &str, seconds: i64) -> Repo<T, S>
where
    T: DocModel + Serialize + serde::de::DeserializeOwned + Send + Sync,
    S: Store,
{
    Repo::<T>::new(store).actor(actor).clock(at(seconds))
}

fn key() -> docmodel::Key<Bookmarks> {
    Bookmarks::key("ann").unwrap()
}

/// The stored JSON under `key`, as a value.
async fn stored_json(store: &impl Store, key: &str) -> Value {
    let stored = store.get(key).await.unwrap().unwrap();
    serde_json::from_slice(&stored.bytes).unwrap()
}

/// Every key of `store` and its bytes, and whether it holds revisions in conflict.
async fn snapshot(store: &impl Store) -> Vec<(String, Vec<u8>, usize)> {
    let mut all = Vec::new();
    for key in keys_under(store, "").await {
        if let Some(stored) = store.get(&key).await.unwrap() {
            all.push((key, stored.bytes.to_vec(), stored.conflicts.len()));
        }
    }
    all
}

/// One document on two MemoryStores apart: `base` inserted at 1 000 s on the laptop and copied to the PC
/// whole, then `laptop` applied on the laptop at 2 000 s and `pc` on the PC at 2 500 s; then the PC's store
/// replicated into the laptop's, where each differing value (identical copies too, as pouchdb-server does)
/// is in conflict.
async fn apart<T>(
    base: T,
    laptop: impl FnMut(&mut T) + Send,
    pc: impl FnMut(&mut T) + Send,
) -> Conflicted<MemoryStore>
where
    T: DocModel + Serialize + serde::de::DeserializeOwned + Send + Sync,
{
    let (laptop_store, pc_store, key) = forked(base).await;
    repo::<T, _>(&laptop_store, "laptop", 2_000)
        .update(&key, laptop)
        .await
        .unwrap();
    repo::<T, _>(&pc_store, "pc", 2_500)
        .update(&key, pc)
        .await
        .unwrap();
    laptop_store.replicate_from(&pc_store, "", true).await;
    laptop_store
}

/// `base` inserted at 1 000 s on the laptop's store (which holds conflicts made by hand) and copied whole to
/// the PC's: the two sides before they go apart, and the document's key.
async fn forked<T>(base: T) -> (Conflicted<MemoryStore>, MemoryStore, docmodel::Key<T>)
where
    T: DocModel + Serialize + serde::de::DeserializeOwned + Send + Sync,
{
    let key = base.doc_key().unwrap();
    let laptop_store = Conflicted::new(MemoryStore::new());
    let pc_store = MemoryStore::new();
    repo::<T, _>(&laptop_store, "ann", 1_000)
        .insert(base)
        .await
        .unwrap();
    for copied in keys_under(laptop_store.inner(), "").await {
        let stored = laptop_store.get(&copied).await.unwrap().unwrap();
        pc_store.insert(&copied, &stored.bytes).await.unwrap();
    }
    (laptop_store, pc_store, key)
}

/// The guide's lists as one document on two sides apart.
async fn bookmarks_apart() -> Conflicted<MemoryStore> {
    let [a, b, c] = guide_lists();
    apart(
        Bookmarks {
            owner: "ann".into(),
            bookmarks: a,
        },
        move |doc| doc.bookmarks = b.clone(),
        move |doc| doc.bookmarks = c.clone(),
    )
    .await
}

/// The lists kept: the document's, then each copy's, with their versions.
async fn history<S: Store>(repo: &Repo<Bookmarks, S>) -> Vec<(u64, Vec<Bookmark>)> {
    let doc = repo.get(&key()).await.unwrap().unwrap();
    let mut kept = vec![(doc.envelope().ver, doc.bookmarks.clone())];
    for copy in repo.revisions(&key()).await.unwrap() {
        kept.push((copy.envelope().ver, copy.bookmarks.clone()));
    }
    kept
}

#[tokio::test]
async fn the_guides_bookmarks_merge_from_conflicts_made_by_hand() {
    let store = bookmarks_apart().await;
    let [a, b, c] = guide_lists();
    let laptop = repo::<Bookmarks, _>(&store, "laptop", 3_000);
    let read = laptop.get(&key()).await.unwrap().unwrap();
    assert!(read.has_conflicts());
    // The copy of version 1 is in conflict with itself: one body, two revisions.
    assert_eq!(
        store
            .get(&docmodel::revision_key::<Bookmarks>(key().as_str(), 1))
            .await
            .unwrap()
            .unwrap()
            .conflicts
            .len(),
        1
    );

    let merged = laptop.resolve(&key(), &Resolve::merge()).await.unwrap();
    assert_eq!(
        serde_json::to_value(&merged.bookmarks).unwrap(),
        expected_json()
    );
    assert!(!merged.has_conflicts());
    assert_eq!(
        stored_json(&store, key().as_str()).await["bookmarks"],
        expected_json()
    );
    // One revision left of every key, and A, B and C kept as the copies below the merge.
    assert!(
        snapshot(&store)
            .await
            .iter()
            .all(|(_, _, conflicts)| *conflicts == 0)
    );
    let expected: Vec<Bookmark> = serde_json::from_value(expected_json()).unwrap();
    assert_eq!(
        history(&laptop).await,
        [(4, expected), (3, c), (2, b), (1, a)]
    );
}

#[tokio::test]
async fn the_guides_bookmarks_merge_on_two_replicating_servers() {
    let servers = Replicated::start().await;
    let [a, b, c] = guide_lists();
    repo::<Bookmarks, _>(&servers.a, "ann", 1_000)
        .insert(Bookmarks {
            owner: "ann".into(),
            bookmarks: a.clone(),
        })
        .await
        .unwrap();
    servers.replicate_a_to_b().await;
    eventually("the base to reach the PC", || async {
        servers.b.get(key().as_str()).await.unwrap().is_some()
    })
    .await;
    // On the laptop she edits; on the desktop her husband does.
    let (laptop, pc) = (
        repo::<Bookmarks, _>(&servers.a, "laptop", 2_000),
        repo::<Bookmarks, _>(&servers.b, "pc", 2_500),
    );
    let new_b = b.clone();
    laptop
        .update(&key(), move |doc| doc.bookmarks = new_b.clone())
        .await
        .unwrap();
    let new_c = c.clone();
    pc.update(&key(), move |doc| doc.bookmarks = new_c.clone())
        .await
        .unwrap();
    servers.replicate_continuously().await;
    eventually("the laptop to see the conflict", || async {
        let doc = laptop.get(&key()).await.unwrap().unwrap();
        doc.has_conflicts()
    })
    .await;

    let merged = repo::<Bookmarks, _>(&servers.a, "laptop", 3_000)
        .resolve(&key(), &Resolve::merge())
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&merged.bookmarks).unwrap(),
        expected_json()
    );
    let expected: Vec<Bookmark> = serde_json::from_value(expected_json()).unwrap();
    let want = vec![
        (4, expected.clone()),
        (3, c.clone()),
        (2, b.clone()),
        (1, a.clone()),
    ];
    // Both servers come to hold the merged list as one revision, and A, B and C as its copies.
    for (side, store) in [("laptop", &servers.a), ("pc", &servers.b)] {
        let repo = Repo::<Bookmarks>::new(store.clone());
        eventually(&format!("the {side} to hold the merge alone"), || async {
            let Some(doc) = repo.get(&key()).await.unwrap() else {
                return false;
            };
            doc.envelope().ver == 4 && !doc.has_conflicts()
        })
        .await;
        eventually(&format!("the {side}'s copies to settle"), || async {
            snapshot(store)
                .await
                .iter()
                .all(|(_, _, conflicts)| *conflicts == 0)
        })
        .await;
        assert_eq!(history(&repo).await, want, "{side}");
        assert_eq!(
            stored_json(store, key().as_str()).await["bookmarks"],
            expected_json(),
            "{side}"
        );
    }
}

/// The guide's "Approach 3": an append-only log of events.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Event {
    at: u64,
    what: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(type = "log", schema = "1.0", key = "log::{id}", revisions = 5)]
struct Log {
    id: u64,
    #[docmodel(merge(union, order_by = "at"))]
    events: Vec<Event>,
}

fn event(at: u64, what: &str) -> Event {
    Event {
        at,
        what: what.into(),
    }
}

#[tokio::test]
async fn an_event_log_appended_on_both_sides_merges_by_union_in_time_order() {
    let store = apart(
        Log {
            id: 1,
            events: vec![event(1, "Bookmark added")],
        },
        |log| {
            log.events.push(event(5, "Bookmark moved"));
            log.events.push(event(7, "Bookmark changed"));
        },
        |log| log.events.push(event(6, "Bookmark deleted")),
    )
    .await;
    let merged = repo::<Log, _>(&store, "laptop", 3_000)
        .resolve(&Log::key(1), &Resolve::merge())
        .await
        .unwrap();
    assert_eq!(
        merged.events,
        [
            event(1, "Bookmark added"),
            event(5, "Bookmark moved"),
            event(6, "Bookmark deleted"),
            event(7, "Bookmark changed"),
        ]
    );
}

/// The same log, with no merge rule.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(type = "log", schema = "1.0", key = "log::{id}", revisions = 5)]
struct LogWithoutRule {
    id: u64,
    events: Vec<Event>,
}

#[tokio::test]
async fn what_no_rule_decides_is_reported_by_path_with_its_three_values_and_nothing_is_written() {
    let store = apart(
        LogWithoutRule {
            id: 2,
            events: vec![event(1, "Bookmark added")],
        },
        |log| log.events.push(event(5, "Bookmark moved")),
        |log| log.events.push(event(6, "Bookmark deleted")),
    )
    .await;
    let before = snapshot(&store).await;
    let err = repo::<LogWithoutRule, _>(&store, "laptop", 3_000)
        .resolve(&LogWithoutRule::key(2), &Resolve::merge())
        .await
        .unwrap_err();
    let Error::MergeConflict { key, conflicts } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(key, "log::2");
    assert_eq!(conflicts.len(), 1);
    assert_eq!(conflicts[0].path, "events[1..1]");
    assert_eq!(conflicts[0].base, Some(json!([])));
    assert_eq!(
        conflicts[0].ours,
        Some(json!([{"at": 5, "what": "Bookmark moved"}]))
    );
    assert_eq!(
        conflicts[0].theirs,
        Some(json!([{"at": 6, "what": "Bookmark deleted"}]))
    );
    assert_eq!(
        err.to_string(),
        "document `log::2`: both sides changed 1 place differently, and no merge rule of the model decides: \
         `events[1..1]` (base [], ours [{\"at\":5,\"what\":\"Bookmark moved\"}], theirs \
         [{\"at\":6,\"what\":\"Bookmark deleted\"}]); nothing was written"
    );
    assert_eq!(snapshot(&store).await, before);
}

/// A user kept without revisions: no base for a merge.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
struct Unkept {
    id: u64,
    name: String,
    city: String,
}

#[tokio::test]
async fn without_a_kept_base_the_merge_is_refused_and_a_pick_still_resolves() {
    let store = apart(
        Unkept {
            id: 1,
            name: "Joe".into(),
            city: "Leeds".into(),
        },
        |user| user.name = "Joseph".into(),
        |user| user.city = "York".into(),
    )
    .await;
    let before = snapshot(&store).await;
    let users = repo::<Unkept, _>(&store, "laptop", 3_000);
    let err = users
        .resolve(&Unkept::key(1), &Resolve::merge())
        .await
        .unwrap_err();
    let Error::NoMergeBase {
        key,
        versions,
        checked,
    } = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!(
        (key.as_str(), versions.as_slice()),
        ("user::1", &[2, 2][..])
    );
    assert_eq!(checked, &[2]);
    assert_eq!(
        err.to_string(),
        "document `user::1`: no version both sides descend from is kept: the sides are at versions 2 and 2, \
         and version 2 is held differently by the sides or kept by only one; nothing was written: resolve a \
         conflict with a pick, such as `Resolve::highest_version()`, or make a stale edit again on the \
         document read anew"
    );
    assert_eq!(snapshot(&store).await, before);
    let picked = users
        .resolve(&Unkept::key(1), &Resolve::highest_version())
        .await
        .unwrap();
    assert!(!picked.has_conflicts());
}

/// A profile whose fields merge by the model's rules: the newer side's scalars, the greatest score, tags
/// by union, addresses by their id, and the nickname by the model's function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "profile", schema = "1.0", key = "profile::{id}", revisions = 3)]
#[docmodel(merge = "newer")]
struct Profile {
    id: u64,
    display_name: String,
    #[docmodel(merge = "max")]
    high_score: u64,
    #[docmodel(merge = "union")]
    tags: Vec<String>,
    #[docmodel(merge(by = "id"))]
    addresses: Vec<Address>,
    #[docmodel(merge = longest)]
    nickname: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Address {
    id: u32,
    city: String,
    zip: String,
}

/// The longer nickname, the base's when they are as long.
fn longest(base: Option<String>, ours: String, theirs: String) -> String {
    match ours.len().cmp(&theirs.len()) {
        std::cmp::Ordering::Greater => ours,
        std::cmp::Ordering::Less => theirs,
        std::cmp::Ordering::Equal => base.unwrap_or(ours),
    }
}

fn profile() -> Profile {
    Profile {
        id: 1,
        display_name: "Ann".into(),
        high_score: 10,
        tags: vec!["a".into()],
        addresses: vec![
            Address {
                id: 1,
                city: "Leeds".into(),
                zip: "LS1".into(),
            },
            Address {
                id: 2,
                city: "York".into(),
                zip: "YO1".into(),
            },
        ],
        nickname: "An".into(),
    }
}

#[tokio::test]
async fn a_stale_save_on_redb_merges_by_the_models_rules() {
    let store = Redb::in_memory().unwrap();
    let profiles = repo::<Profile, _>(&store, "form", 1_000);
    profiles.insert(profile()).await.unwrap();
    // A form holds version 1 open while another writer saves twice.
    let mut form = profiles.get(&Profile::key(1)).await.unwrap().unwrap();
    let other = repo::<Profile, _>(&store, "other", 2_000);
    other
        .update(&Profile::key(1), |p| {
            p.display_name = "Annie".into();
            p.high_score = 30;
            p.tags.push("other".into());
            p.addresses[0].zip = "LS2".into();
            p.addresses.swap(0, 1);
            p.nickname = "Nan".into();
        })
        .await
        .unwrap();
    other
        .update(&Profile::key(1), |p| p.tags.push("late".into()))
        .await
        .unwrap();
    form.display_name = "Anne".into();
    form.high_score = 20;
    form.tags.push("form".into());
    form.addresses[0].city = "Leeds City".into();
    form.nickname = "Annabel".into();

    // The form's save is later (3 000 s) than the other writer's: `newer` takes the form's name.
    let saver = repo::<Profile, _>(&store, "form", 3_000);
    saver.save_merging(&mut form).await.unwrap();
    let expected = Profile {
        id: 1,
        display_name: "Anne".into(),
        high_score: 30,
        tags: vec!["a".into(), "form".into(), "other".into(), "late".into()],
        addresses: vec![
            Address {
                id: 2,
                city: "York".into(),
                zip: "YO1".into(),
            },
            Address {
                id: 1,
                city: "Leeds City".into(),
                zip: "LS2".into(),
            },
        ],
        nickname: "Annabel".into(),
    };
    assert_eq!(*form, expected);
    assert_eq!(form.envelope().ver, 4);
    let stored = saver.get(&Profile::key(1)).await.unwrap().unwrap();
    assert_eq!(*stored, expected);
    // The other writer's versions are the copies, as after any save.
    let copies: Vec<u64> = saver
        .revisions(&Profile::key(1))
        .await
        .unwrap()
        .iter()
        .map(|copy| copy.envelope().ver)
        .collect();
    assert_eq!(copies, [3, 2, 1]);
}

/// A form read at version 3; the document is removed and another inserted under its key, then saved past
/// version 3: a stale save of the form is not merged into that other document, and nothing is written.
async fn a_stale_save_of_a_document_created_again_is_refused<S: Store>(store: S) {
    let first = repo::<Unkept, _>(&store, "ann", 1_000);
    let joe = || Unkept {
        id: 1,
        name: "Joe".into(),
        city: "Leeds".into(),
    };
    first.insert(joe()).await.unwrap();
    for city in ["York", "Hull"] {
        first
            .update(&Unkept::key(1), |user| user.city = city.into())
            .await
            .unwrap();
    }
    let mut form = first.get(&Unkept::key(1)).await.unwrap().unwrap();
    assert_eq!(form.envelope().ver, 3);
    first.remove(&Unkept::key(1)).await.unwrap();
    let again = repo::<Unkept, _>(&store, "bob", 2_000);
    again.insert(joe()).await.unwrap();
    for city in ["Ely", "Rye", "Wem"] {
        again
            .update(&Unkept::key(1), |user| user.city = city.into())
            .await
            .unwrap();
    }
    let before = snapshot(&store).await;
    form.name = "Joseph".into();
    let err = first.save_merging(&mut form).await.unwrap_err();
    assert!(
        matches!(&err, Error::NoMergeBase { key, versions, checked }
            if key == "user::1" && *versions == [3, 4] && checked.is_empty()),
        "{err:?}"
    );
    assert_eq!(snapshot(&store).await, before);
    assert_eq!((form.name.as_str(), form.envelope().ver), ("Joseph", 3));
    // Created again and not yet past the form's version: refused too.
    again.remove(&Unkept::key(1)).await.unwrap();
    again.insert(joe()).await.unwrap();
    assert!(matches!(
        first.save_merging(&mut form).await,
        Err(Error::NoMergeBase { .. })
    ));
}

#[tokio::test]
async fn a_stale_save_of_a_document_created_again_is_refused_on_memory() {
    a_stale_save_of_a_document_created_again_is_refused(MemoryStore::new()).await;
}

#[tokio::test]
async fn a_stale_save_of_a_document_created_again_is_refused_on_redb() {
    a_stale_save_of_a_document_created_again_is_refused(Redb::in_memory().unwrap()).await;
}

#[tokio::test]
async fn a_stale_save_that_conflicts_writes_nothing_and_leaves_the_edit() {
    let store = MemoryStore::new();
    let profiles = repo::<Unkept, _>(&store, "form", 1_000);
    profiles
        .insert(Unkept {
            id: 1,
            name: "Joe".into(),
            city: "Leeds".into(),
        })
        .await
        .unwrap();
    let mut form = profiles.get(&Unkept::key(1)).await.unwrap().unwrap();
    profiles
        .update(&Unkept::key(1), |user| user.name = "Joey".into())
        .await
        .unwrap();
    let before = snapshot(&store).await;
    form.name = "Joseph".into();
    let err = profiles.save_merging(&mut form).await.unwrap_err();
    let Error::MergeConflict { conflicts, .. } = &err else {
        panic!("{err:?}");
    };
    let found: Vec<_> = conflicts
        .iter()
        .map(|c| {
            (
                c.path.as_str(),
                c.base.clone(),
                c.ours.clone(),
                c.theirs.clone(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [(
            "name",
            Some(json!("Joe")),
            Some(json!("Joseph")),
            Some(json!("Joey"))
        )]
    );
    assert_eq!(snapshot(&store).await, before);
    assert_eq!((form.name.as_str(), form.envelope().ver), ("Joseph", 1));
    // A plain save of the same edit is the conflict it always was.
    assert!(matches!(
        profiles.save(&mut form).await,
        Err(Error::Conflict { .. })
    ));
}

#[tokio::test]
async fn the_models_own_merge_gets_the_three_bodies() {
    let store = apart(
        Profile {
            high_score: 1,
            ..profile()
        },
        |p| p.high_score += 5,
        |p| p.high_score += 2,
    )
    .await;
    // Both sides' increments count.
    let policy = Resolve::<Profile>::merge_with(|base, ours, theirs| Profile {
        high_score: ours.high_score + theirs.high_score - base.high_score,
        ..ours.clone()
    });
    let merged = repo::<Profile, _>(&store, "laptop", 3_000)
        .resolve(&Profile::key(1), &policy)
        .await
        .unwrap();
    assert_eq!(merged.high_score, 8);
}

#[tokio::test]
async fn a_merge_that_fails_at_any_step_completes_once_when_tried_again() {
    let [a, b, c] = guide_lists();
    let expected: Vec<Bookmark> = serde_json::from_value(expected_json()).unwrap();
    let mut steps = None;
    for step in 1..=24 {
        let store = bookmarks_apart().await;
        let failing = FailingStore::new(&store);
        let repo = repo::<Bookmarks, _>(&failing, "laptop", 3_000)
            .retry(RetryPolicy::default().with_attempts(1));
        failing.fail_at(step);
        let failed = repo.resolve(&key(), &Resolve::merge()).await;
        let ran = failing.count();
        failing.fail_at(0);
        match failed {
            Err(err) => assert!(
                err.to_string().contains("injected failure"),
                "step {step}: {err}"
            ),
            // A failure in tidying up after the commit is not the caller's: what it leaves merges again.
            Ok(_) if ran >= step => {}
            Ok(_) => {
                steps.get_or_insert(ran);
            }
        }
        let merged = repo.resolve(&key(), &Resolve::merge()).await.unwrap();
        assert!(!merged.has_conflicts(), "step {step}");
        assert_eq!(merged.bookmarks, expected, "step {step}");
        assert!(
            snapshot(&store)
                .await
                .iter()
                .all(|(_, _, conflicts)| *conflicts == 0),
            "step {step}"
        );
        // Every side is kept once, and the merge is written once, above them.
        assert_eq!(
            history(&repo).await,
            [
                (4, expected.clone()),
                (3, c.clone()),
                (2, b.clone()),
                (1, a.clone())
            ],
            "step {step}"
        );
    }
    let steps = steps.expect("a merge takes fewer than 24 store operations");
    eprintln!("a merge of the guide's bookmarks took {steps} store operations");
}

#[test]
fn the_derive_writes_the_models_merge_rules() {
    let rules = format!("{:?}", Profile::MERGE);
    assert!(rules.contains("default: Some(Newer)"), "{rules}");
    assert!(
        rules.contains("field: \"highScore\", rule: Some(Max)"),
        "{rules}"
    );
    assert!(
        rules.contains("field: \"addresses\", rule: None, by: Some(\"id\")"),
        "{rules}"
    );
    assert!(
        rules.contains("field: \"nickname\", rule: Some(Custom(..))"),
        "{rules}"
    );
    let doc = Doc::new(profile()).unwrap();
    assert_eq!(doc.key().as_str(), "profile::1");
}

/// The guide's bookmarks as a stale save: the laptop's edit of a list read at version 1, saved after the PC's
/// edit reached version 2.
async fn a_stale_save_merges_the_guides_bookmarks<S: docmodel_tests::Fresh>() {
    let store = S::fresh().await;
    let [a, b, c] = guide_lists();
    let laptop = repo::<Bookmarks, _>(&store, "laptop", 1_000);
    laptop
        .insert(Bookmarks {
            owner: "ann".into(),
            bookmarks: a.clone(),
        })
        .await
        .unwrap();
    let mut held = laptop.get(&key()).await.unwrap().unwrap();
    let new_c = c.clone();
    repo::<Bookmarks, _>(&store, "pc", 2_000)
        .update(&key(), move |doc| doc.bookmarks = new_c.clone())
        .await
        .unwrap();
    held.bookmarks = b;
    repo::<Bookmarks, _>(&store, "laptop", 3_000)
        .save_merging(&mut held)
        .await
        .unwrap();
    let expected: Vec<Bookmark> = serde_json::from_value(expected_json()).unwrap();
    assert_eq!(held.bookmarks, expected);
    assert_eq!(history(&laptop).await, [(3, expected), (2, c), (1, a)]);
    assert_eq!(
        stored_json(&store, key().as_str()).await["bookmarks"],
        expected_json()
    );
}

on_every_store!([a_stale_save_merges_the_guides_bookmarks]);

/// A page with a status, whose times are kept to the day: two sides' saves on one day carry one time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "page", schema = "1.0", key = "page::{id}", revisions = 5)]
#[docmodel(envelope(timestamps = "epoch_day"))]
struct Page {
    id: u64,
    status: String,
    note: String,
}

/// The same page, keeping two revisions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "page", schema = "1.0", key = "page::{id}", revisions = 2)]
#[docmodel(envelope(timestamps = "epoch_day"))]
struct ShortPage {
    id: u64,
    status: String,
    note: String,
}

/// Two sides of one document on two stores, from one insert of `base` at 1 000 s: the laptop's saves, then
/// the PC's, each at 2 000 s; then the PC's store replicated into the laptop's.
async fn saved_apart<T>(
    base: T,
    laptop: &[fn(&mut T)],
    pc: &[fn(&mut T)],
) -> Conflicted<MemoryStore>
where
    T: DocModel + Serialize + serde::de::DeserializeOwned + Send + Sync,
{
    let (laptop_store, pc_store, key) = forked(base).await;
    for edit in laptop {
        repo::<T, _>(&laptop_store, "ann", 2_000)
            .update(&key, *edit)
            .await
            .unwrap();
    }
    for edit in pc {
        repo::<T, _>(&pc_store, "ann", 2_000)
            .update(&key, *edit)
            .await
            .unwrap();
    }
    laptop_store.replicate_from(&pc_store, "", true).await;
    laptop_store
}

#[tokio::test]
async fn a_side_equal_to_an_older_copy_of_the_other_is_merged_not_taken_for_a_leftover() {
    // The laptop: review, published, then back to draft with a note; the PC publishes, the same day, so
    // its version 2 holds what the laptop's copy of version 3 holds, to the byte but for `_ver`.
    let store = saved_apart(
        Page {
            id: 1,
            status: "draft".into(),
            note: String::new(),
        },
        &[
            |p| p.status = "review".into(),
            |p| p.status = "published".into(),
            |p| {
                p.status = "draft".into();
                p.note = "rework".into();
            },
        ],
        &[|p| p.status = "published".into()],
    )
    .await;
    let pages = repo::<Page, _>(&store, "ann", 2_000);
    let merged = pages
        .resolve(&Page::key(1), &Resolve::merge())
        .await
        .unwrap();
    // The PC's publishing is merged, not dropped as the leftover of an earlier merge.
    assert_eq!(
        (merged.status.as_str(), merged.note.as_str()),
        ("published", "rework")
    );
    assert_eq!(merged.envelope().ver, 6);
    let copies: Vec<(u64, String)> = pages
        .revisions(&Page::key(1))
        .await
        .unwrap()
        .iter()
        .map(|copy| (copy.envelope().ver, copy.status.clone()))
        .collect();
    assert_eq!(
        copies,
        [
            (5, "published".into()),
            (4, "draft".into()),
            (3, "published".into()),
            (2, "review".into()),
            (1, "draft".into())
        ]
    );
}

/// The laptop sets the status twice, the PC the note twice, from one version 1 on two MemoryStores; then
/// only the PC's document reaches the laptop's store, in conflict with the laptop's (its copies travel
/// apart). The laptop's store holds the laptop's copies of 1 and 2 and none of the PC's.
async fn saved_twice_apart_documents_first() -> (Conflicted<MemoryStore>, MemoryStore) {
    let (laptop, pc, key) = forked(Page {
        id: 1,
        status: "draft".into(),
        note: String::new(),
    })
    .await;
    for (seconds, status) in [(100_000, "review"), (200_000, "published")] {
        repo::<Page, _>(&laptop, "ann", seconds)
            .update(&key, |page| page.status = status.into())
            .await
            .unwrap();
    }
    for (seconds, note) in [(150_000, "typo"), (250_000, "typo fixed")] {
        repo::<Page, _>(&pc, "bob", seconds)
            .update(&key, |page| page.note = note.into())
            .await
            .unwrap();
    }
    let theirs = pc.get(key.as_str()).await.unwrap().unwrap();
    laptop.add_conflict(key.as_str(), &theirs.bytes).await;
    (laptop, pc)
}

#[tokio::test]
async fn a_base_is_taken_only_where_both_sides_histories_reach_it() {
    let (laptop, pc) = saved_twice_apart_documents_first().await;
    let pages = repo::<Page, _>(&laptop, "ann", 300_000);
    // The laptop's copy of version 2 is the laptop's alone: taken for the base, the PC's note would be
    // merged against a version the PC never had. Refused, saying what is missing, and nothing written.
    let before = snapshot(&laptop).await;
    let err = pages
        .resolve(&Page::key(1), &Resolve::merge())
        .await
        .unwrap_err();
    let Error::MergeHistoryMissing {
        versions, missing, ..
    } = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!(
        (versions.as_slice(), missing.as_slice()),
        (&[3, 3][..], &[2][..])
    );
    assert_eq!(err.class(), docmodel::ErrorClass::Transient);
    assert_eq!(
        err.to_string(),
        "document `page::1`: the sides (at versions 3 and 3) are not yet shown to descend from one \
         version: this store holds no copy of version 2 that records the side above it as saved from it \
         (copies still replicating, or pruned); nothing was written: merge again once the copies have \
         replicated"
    );
    assert_eq!(snapshot(&laptop).await, before);

    // The PC's copies arrive: each side's history reaches version 1, the base, and both edits are merged.
    laptop.replicate_from(&pc, "page::1::v::", false).await;
    let merged = pages
        .resolve(&Page::key(1), &Resolve::merge())
        .await
        .unwrap();
    assert_eq!(
        (merged.status.as_str(), merged.note.as_str()),
        ("published", "typo fixed")
    );
    assert!(!merged.has_conflicts());
}

#[tokio::test]
async fn a_copy_records_every_version_saved_from_it_by_its_digest() {
    let store = MemoryStore::new();
    let pages = repo::<Page, _>(&store, "ann", 100_000);
    pages
        .insert(Page {
            id: 1,
            status: "draft".into(),
            note: String::new(),
        })
        .await
        .unwrap();
    // A form read at version 1, saved after another writer: its save fails, and records nothing.
    let mut form = pages.get(&Page::key(1)).await.unwrap().unwrap();
    pages
        .update(&Page::key(1), |page| page.status = "review".into())
        .await
        .unwrap();
    let copy_json = |store: &MemoryStore| {
        let store = store.clone();
        async move {
            let copy = store.get("page::1::v::1").await.unwrap().unwrap();
            serde_json::from_slice::<Value>(&copy.bytes).unwrap()
        }
    };
    let recorded = copy_json(&store).await;
    form.note = "stale".into();
    assert!(matches!(
        pages.save(&mut form).await,
        Err(Error::Conflict { .. })
    ));
    assert_eq!(
        copy_json(&store).await,
        recorded,
        "a save that failed records nothing"
    );
    // What the copy records is the digest of the version saved from it: 32 hex digits, the last member.
    let current = store.get("page::1").await.unwrap().unwrap();
    let next = recorded["_copyNext"].as_array().unwrap();
    assert_eq!(next.len(), 1, "{recorded}");
    let digest = next[0].as_str().unwrap();
    assert_eq!(
        digest,
        docmodel::__private::version_digest(&current.bytes),
        "the digest of the version saved from it, as stored"
    );
    let text = String::from_utf8(
        store
            .get("page::1::v::1")
            .await
            .unwrap()
            .unwrap()
            .bytes
            .to_vec(),
    )
    .unwrap();
    assert!(
        text.starts_with(r#"{"_copyOf":"page::1","_type":"page""#)
            && text.ends_with(&format!(r#","_copyNext":["{digest}"]}}"#)),
        "{text}"
    );
    // The version written is not a copy: it carries neither.
    let current: Value = serde_json::from_slice(&current.bytes).unwrap();
    assert!(current.get("_copyNext").is_none() && current.get("_copyOf").is_none());
}

#[tokio::test]
async fn a_base_only_one_side_still_keeps_is_no_base() {
    // Revisions = 2: the PC, at version 5, pruned its copies of versions 1 and 2; the laptop, at version 3,
    // keeps its own, in which `note` was set at version 2. Only the laptop's copy of 2 is left to see.
    let store = saved_apart(
        ShortPage {
            id: 1,
            status: "draft".into(),
            note: String::new(),
        },
        &[|p| p.note = "set".into(), |p| p.status = "review".into()],
        &[
            |p| p.status = "a".into(),
            |p| p.status = "b".into(),
            |p| p.status = "c".into(),
            |p| p.status = "d".into(),
        ],
    )
    .await;
    let err = repo::<ShortPage, _>(&store, "ann", 3_000)
        .resolve(&ShortPage::key(1), &Resolve::merge())
        .await
        .unwrap_err();
    let Error::NoMergeBase {
        versions, checked, ..
    } = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!(
        (versions.as_slice(), checked.as_slice()),
        (&[3, 5][..], &[3][..])
    );
}

#[tokio::test]
async fn two_documents_created_apart_under_one_key_have_no_base() {
    let laptop = Conflicted::new(MemoryStore::new());
    let pc = MemoryStore::new();
    let page = || Page {
        id: 1,
        status: "draft".into(),
        note: String::new(),
    };
    repo::<Page, _>(&laptop, "ann", 1_000)
        .insert(page())
        .await
        .unwrap();
    repo::<Page, _>(&pc, "ann", 100_000_000)
        .insert(page())
        .await
        .unwrap();
    repo::<Page, _>(&laptop, "ann", 200_000_000)
        .update(&Page::key(1), |p| p.status = "a".into())
        .await
        .unwrap();
    repo::<Page, _>(&pc, "ann", 200_000_000)
        .update(&Page::key(1), |p| p.status = "b".into())
        .await
        .unwrap();
    laptop.replicate_from(&pc, "", true).await;
    let err = repo::<Page, _>(&laptop, "ann", 300_000_000)
        .resolve(&Page::key(1), &Resolve::merge())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::NoMergeBase { checked, .. } if checked.is_empty()),
        "{err:?}"
    );
}

#[tokio::test]
async fn the_models_own_merge_keeps_fields_the_model_does_not_know() {
    let store = MemoryStore::new();
    let users = repo::<Unkept, _>(&store, "form", 1_000);
    users
        .insert(Unkept {
            id: 1,
            name: "Joe".into(),
            city: "Leeds".into(),
        })
        .await
        .unwrap();
    let mut form = users.get(&Unkept::key(1)).await.unwrap().unwrap();
    // Another program adds a field this model does not know, and moves Joe.
    let stored = store.get("user::1").await.unwrap().unwrap();
    let mut value: Value = serde_json::from_slice(&stored.bytes).unwrap();
    value["city"] = json!("York");
    value["_ver"] = json!(2);
    value["extra"] = json!("keep me");
    store
        .replace("user::1", &serde_json::to_vec(&value).unwrap(), &stored.cas)
        .await
        .unwrap();
    form.name = "Joseph".into();
    let single =
        repo::<Unkept, _>(&store, "form", 2_000).retry(RetryPolicy::default().with_attempts(1));
    single
        .save_merging_with(&mut form, |_, ours, theirs| Unkept {
            city: theirs.city.clone(),
            ..ours.clone()
        })
        .await
        .unwrap();
    assert_eq!((form.name.as_str(), form.city.as_str()), ("Joseph", "York"));
    let saved = stored_json(&store, "user::1").await;
    assert_eq!(saved["extra"], "keep me");
    assert_eq!(saved["_ver"], 3);
}

/// A generic model whose generic field merges by the model's function: the derive bounds the parameter
/// as the function's wrapper reads and writes it.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(type = "boxed", schema = "1.0", key = "boxed::{id}")]
struct Boxed<P> {
    id: u64,
    #[docmodel(merge = keep_ours)]
    payload: P,
    label: String,
}

fn keep_ours<P>(_: Option<P>, ours: P, _: P) -> P {
    ours
}

#[tokio::test]
async fn a_generic_field_merges_by_the_models_function() {
    let store = MemoryStore::new();
    let boxes = repo::<Boxed<Vec<u32>>, _>(&store, "a", 1_000);
    boxes
        .insert(Boxed {
            id: 1,
            payload: vec![1],
            label: "a".into(),
        })
        .await
        .unwrap();
    let mut held = boxes
        .get(&Boxed::<Vec<u32>>::key(1))
        .await
        .unwrap()
        .unwrap();
    boxes
        .update(&Boxed::<Vec<u32>>::key(1), |b| {
            b.payload = vec![2];
            b.label = "theirs".into();
        })
        .await
        .unwrap();
    held.payload = vec![3];
    boxes.save_merging(&mut held).await.unwrap();
    assert_eq!(
        (held.payload.as_slice(), held.label.as_str()),
        (&[3][..], "theirs")
    );
}

/// Tags by name, kept five versions back: an object, which merges name by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "tagged", schema = "1.0", key = "tagged::{id}", revisions = 5)]
struct Tagged {
    id: u64,
    tags: std::collections::BTreeMap<String, u64>,
}

/// A merge keeps the other side's version renumbered (the PC's version 2 becomes the laptop's copy of 3); a
/// later merge with the PC, which saved on from its version 2, must meet that version in both histories at
/// two numbers (the renumbered copy records the digest it had): compared version by version alone, the base
/// would be version 1, and the tag the PC removed since would come back.
#[tokio::test]
async fn a_version_a_merge_renumbered_is_the_base_of_the_next_merge() {
    let (laptop, pc, key) = forked(Tagged {
        id: 1,
        tags: Default::default(),
    })
    .await;
    repo::<Tagged, _>(&laptop, "ann", 2_000)
        .update(&key, |doc| {
            doc.tags.insert("x".into(), 1);
        })
        .await
        .unwrap();
    repo::<Tagged, _>(&pc, "bob", 2_500)
        .update(&key, |doc| {
            doc.tags.insert("y".into(), 1);
        })
        .await
        .unwrap();
    laptop.replicate_from(&pc, "", true).await;
    let merged = repo::<Tagged, _>(&laptop, "ann", 3_000)
        .resolve(&key, &Resolve::merge())
        .await
        .unwrap();
    assert_eq!(merged.tags.keys().collect::<Vec<_>>(), ["x", "y"]);
    // Meanwhile the PC removes its tag, and replicates again.
    repo::<Tagged, _>(&pc, "bob", 3_500)
        .update(&key, |doc| doc.tags.clear())
        .await
        .unwrap();
    laptop.replicate_from(&pc, "", false).await;
    let merged = repo::<Tagged, _>(&laptop, "ann", 4_000)
        .resolve(&key, &Resolve::merge())
        .await
        .unwrap();
    assert_eq!(
        merged.tags.keys().collect::<Vec<_>>(),
        ["x"],
        "the PC's removal of `y` is kept"
    );
}
