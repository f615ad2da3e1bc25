//! Retention by age as well as count (`revisions(keep = N, for = "30d")`): a copy goes only when it is both
//! past the count and older than the age, its age counted from when its version stopped being current.
//! On every store (the keys each save leaves), and on two replicating `pouchdb-server`s, where replicas
//! apart for more saves than the count still merge, which `revisions = N` alone cannot.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use docmodel::store::{CouchDb, MemoryStore, Redb, Store};
use docmodel::{DocModel, Error, Repo, Resolve, Timestamp};
use docmodel_tests::couchdb::{Replicated, eventually};
use docmodel_tests::{CountingStore, Fresh, Op};
use serde::{Deserialize, Serialize};

const MINUTE: i64 = 60_000;
const DAY: i64 = 24 * 60 * MINUTE;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "note", schema = "1.0", key = "note::{id}")]
#[docmodel(revisions(keep = 3, for = "1d"), envelope(layout = "plain"))]
struct Note {
    id: u64,
    text: String,
}

/// A clock the test moves, and a repository reading it.
fn notes<S: Store>(store: &S) -> (Repo<Note, &S>, Arc<AtomicI64>) {
    let now = Arc::new(AtomicI64::new(0));
    let clock = Arc::clone(&now);
    let repo = Repo::<Note>::new(store)
        .clock(move || Timestamp::from_millis(clock.load(Ordering::SeqCst)));
    (repo, now)
}

async fn save<S: Store>(repo: &Repo<Note, &S>, text: &str) {
    repo.update(&Note::key(1), |note| note.text = text.into())
        .await
        .unwrap();
}

/// The keys the store holds: the document's and its copies' of `versions`.
fn note_and_copies(versions: impl IntoIterator<Item = u64>) -> Vec<String> {
    let mut keys: Vec<String> = std::iter::once("note::1".to_owned())
        .chain(
            versions
                .into_iter()
                .map(|version| format!("note::1::v::{version}")),
        )
        .collect();
    keys.sort();
    keys
}

async fn history<S: Store>(repo: &Repo<Note, &S>) -> Vec<u64> {
    let copies = repo.revisions(&Note::key(1)).await.unwrap();
    copies.iter().map(|copy| copy.envelope().ver).collect()
}

/// Ten saves within an hour keep every copy, young; two days on, the next save prunes to the count.
async fn young_copies_are_kept_past_the_count_until_old<S: Fresh>() {
    let store = S::fresh().await;
    let (repo, now) = notes(&store);
    now.store(100 * DAY, Ordering::SeqCst);
    repo.insert(Note {
        id: 1,
        text: "0".into(),
    })
    .await
    .unwrap();
    for save_no in 1..=10 {
        now.fetch_add(5 * MINUTE, Ordering::SeqCst);
        save(&repo, &save_no.to_string()).await;
    }
    assert_eq!(docmodel_tests::keys(&store).await, note_and_copies(1..=10));
    assert_eq!(history(&repo).await, (1..=10).rev().collect::<Vec<_>>());
    let first = repo.revision(&Note::key(1), 1).await.unwrap().unwrap();
    assert_eq!(first.text, "0");
    if store.capabilities().scan {
        assert_eq!(
            repo.sweep(&Note::key(1)).await.unwrap(),
            0,
            "young copies are kept"
        );
    }

    now.fetch_add(2 * DAY, Ordering::SeqCst);
    // Read before the save: at the new time, only the count keeps copies.
    assert_eq!(history(&repo).await, [10, 9, 8]);
    assert!(repo.revision(&Note::key(1), 7).await.unwrap().is_none());
    save(&repo, "11").await;
    assert_eq!(docmodel_tests::keys(&store).await, note_and_copies(9..=11));
    assert_eq!(history(&repo).await, [11, 10, 9]);
}

/// A document untouched for 60 days, then saved 11 times: version 1 stopped being current today, so it is
/// kept for a day from today, not pruned because it was written 60 days ago.
async fn a_copys_age_counts_from_when_it_was_replaced<S: Fresh>() {
    let store = S::fresh().await;
    let (repo, now) = notes(&store);
    now.store(DAY, Ordering::SeqCst);
    repo.insert(Note {
        id: 1,
        text: "0".into(),
    })
    .await
    .unwrap();
    now.fetch_add(60 * DAY, Ordering::SeqCst);
    for save_no in 1..=11 {
        now.fetch_add(MINUTE, Ordering::SeqCst);
        save(&repo, &save_no.to_string()).await;
    }
    assert_eq!(docmodel_tests::keys(&store).await, note_and_copies(1..=11));
    // Exactly a day after version 1 was replaced (at the first of the 11 saves): still kept.
    now.store(62 * DAY + MINUTE, Ordering::SeqCst);
    save(&repo, "12").await;
    assert_eq!(docmodel_tests::keys(&store).await, note_and_copies(1..=12));
    // A minute later, version 1 and the next are older than a day: the save prunes those, oldest first,
    // and stops at the first copy still young.
    now.fetch_add(2 * MINUTE, Ordering::SeqCst);
    save(&repo, "13").await;
    assert_eq!(docmodel_tests::keys(&store).await, note_and_copies(3..=13));
    // Removing the document takes every copy it keeps, past the count too.
    repo.remove(&Note::key(1)).await.unwrap();
    assert!(docmodel_tests::keys(&store).await.is_empty());
}

/// A writer left behind at version 1 after its copy was pruned by age: the copy it puts back, below the
/// window with no copy after it (so no time keeps it), is removed when its save fails; no later prune would
/// reach it (each starts at the unbroken run of copies below the count).
#[tokio::test]
async fn a_writer_left_behind_removes_the_copy_it_put_back_below_the_window_with_an_age() {
    let store = CountingStore::new(MemoryStore::new());
    let (repo, now) = notes(&store);
    now.store(100 * DAY, Ordering::SeqCst);
    repo.insert(Note {
        id: 1,
        text: "0".into(),
    })
    .await
    .unwrap();
    let mut stale = repo.get(&Note::key(1)).await.unwrap().unwrap();
    for save_no in 1..=10 {
        now.fetch_add(5 * MINUTE, Ordering::SeqCst);
        save(&repo, &save_no.to_string()).await;
    }
    now.fetch_add(2 * DAY, Ordering::SeqCst);
    save(&repo, "11").await;
    assert_eq!(docmodel_tests::keys(&store).await, note_and_copies(9..=11));
    stale.text = "stale".into();
    let err = repo.save(&mut stale).await.unwrap_err();
    assert!(
        matches!(&err, Error::Conflict { key } if key == "note::1"),
        "{err:?}"
    );
    assert_eq!(docmodel_tests::keys(&store).await, note_and_copies(9..=11));
    assert_eq!(repo.sweep(&Note::key(1)).await.unwrap(), 0);
}

/// What a save costs with an age: by count's get and remove of the copy leaving the count, two gets more
/// (the copy below it, gone, and the one after it, for its time); while young, no remove.
#[tokio::test]
async fn store_operations_per_save_with_an_age() {
    let store = CountingStore::new(MemoryStore::new());
    let (repo, now) = notes(&store);
    repo.insert(Note {
        id: 1,
        text: "0".into(),
    })
    .await
    .unwrap();
    let mut doc = repo.get(&Note::key(1)).await.unwrap().unwrap();
    let mut saves = Vec::new();
    for save_no in 1..=5 {
        now.fetch_add(2 * DAY, Ordering::SeqCst);
        doc.text = save_no.to_string();
        store.take();
        repo.save(&mut doc).await.unwrap();
        saves.push(store.take());
    }
    let get = |version: u64| Op::Get(format!("note::1::v::{version}"));
    let insert = |version: u64| Op::Insert(format!("note::1::v::{version}"));
    let remove = |version: u64| Op::Remove(format!("note::1::v::{version}"));
    let replace = Op::Replace("note::1".into());
    assert_eq!(saves[2], [insert(3), replace.clone()]);
    // The first copy past the count: it is the oldest (nothing below to look for), old, removed.
    assert_eq!(
        saves[3],
        [insert(4), replace.clone(), get(1), get(2), remove(1)]
    );
    assert_eq!(
        saves[4],
        [
            insert(5),
            replace.clone(),
            get(2),
            get(1),
            get(3),
            remove(2)
        ]
    );
    // Saves a minute apart: two more copies old (replaced two days before), then one young, which stays.
    let mut quick = Vec::new();
    for save_no in 6..=8 {
        now.fetch_add(MINUTE, Ordering::SeqCst);
        doc.text = save_no.to_string();
        repo.save(&mut doc).await.unwrap();
        quick.push(store.take());
    }
    assert_eq!(
        quick[1],
        [
            insert(7),
            replace.clone(),
            get(4),
            get(3),
            get(5),
            remove(4)
        ]
    );
    assert_eq!(quick[2], [insert(8), replace, get(5), get(4), get(6)]);
}

macro_rules! suite {
    ($($store:ident: $ty:ty),* $(,)?) => {$(
        mod $store {
            use super::*;

            #[tokio::test]
            async fn young_copies_are_kept_past_the_count_until_old() {
                super::young_copies_are_kept_past_the_count_until_old::<$ty>().await;
            }

            #[tokio::test]
            async fn a_copys_age_counts_from_when_it_was_replaced() {
                super::a_copys_age_counts_from_when_it_was_replaced::<$ty>().await;
            }
        }
    )*};
}

suite!(memory: MemoryStore, redb: Redb, couchdb: CouchDb);

/// Two fields, one each side changes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "aged", schema = "1.0", key = "aged::{id}")]
#[docmodel(revisions(keep = 3, for = "30d"), envelope(layout = "plain"))]
struct Aged {
    id: u64,
    north: String,
    south: String,
}

/// [`Aged`], kept by count alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "counted", schema = "1.0", key = "counted::{id}")]
#[docmodel(revisions = 3, envelope(layout = "plain"))]
struct Counted {
    id: u64,
    north: String,
    south: String,
}

/// What both models share for the test: their two fields.
trait Sides: DocModel + Serialize + serde::de::DeserializeOwned + Send + Sync {
    fn new(id: u64) -> Self;
    fn sides(&mut self) -> (&mut String, &mut String);
}

macro_rules! sides {
    ($($model:ident),*) => {$(
        impl Sides for $model {
            fn new(id: u64) -> Self {
                $model { id, north: "north".into(), south: "south".into() }
            }
            fn sides(&mut self) -> (&mut String, &mut String) {
                (&mut self.north, &mut self.south)
            }
        }
    )*};
}
sides!(Aged, Counted);

fn at<T: Sides>(store: &CouchDb, seconds: i64) -> Repo<T, CouchDb> {
    Repo::<T>::new(store.clone()).clock(move || Timestamp::from_millis(seconds * 1000))
}

/// Created on A, copied to B; then 11 saves on each side while they do not replicate (A the north field, B
/// the south), within an hour; then replicating, and merged on A an hour later.
async fn apart_for_eleven_saves<T: Sides>(
    key: &docmodel::Key<T>,
) -> Result<docmodel::Doc<T>, Error> {
    let servers = Replicated::start().await;
    let (a, b) = (&servers.a, &servers.b);
    at::<T>(a, 1_000).insert(T::new(1)).await.unwrap();
    servers.replicate_a_to_b().await;
    for save_no in 1..=11 {
        at::<T>(a, 1_000 + save_no * 60)
            .update(key, |doc| *doc.sides().0 = format!("a{save_no}"))
            .await
            .unwrap();
        at::<T>(b, 1_030 + save_no * 60)
            .update(key, |doc| *doc.sides().1 = format!("b{save_no}"))
            .await
            .unwrap();
    }
    servers.replicate_continuously().await;
    eventually("side a to see the conflict", || async {
        at::<T>(a, 0)
            .get(key)
            .await
            .unwrap()
            .is_some_and(|doc| doc.has_conflicts())
    })
    .await;
    at::<T>(a, 5_000).resolve(key, &Resolve::merge()).await
}

#[tokio::test]
async fn replicas_apart_for_more_saves_than_the_count_merge_when_the_age_keeps_their_fork() {
    let merged = apart_for_eleven_saves(&Aged::key(1)).await.unwrap();
    assert!(!merged.has_conflicts());
    assert_eq!(
        (merged.north.as_str(), merged.south.as_str()),
        ("a11", "b11")
    );
}

#[tokio::test]
async fn by_count_alone_replicas_apart_for_more_saves_than_the_count_have_no_merge_base() {
    let err = apart_for_eleven_saves(&Counted::key(1)).await.unwrap_err();
    let Error::NoMergeBase {
        versions, checked, ..
    } = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!(versions.as_slice(), [12, 12]);
    assert_eq!(checked.as_slice(), [12, 11, 10, 9]);
    assert_eq!(
        err.to_string(),
        "document `counted::1`: no version both sides descend from is kept: the sides are at versions 12 and \
         12, and versions 12, 11, 10 and 9 are each held differently by the sides or kept by only one, and \
         none older by every side; nothing was written: resolve a conflict with a pick, such as \
         `Resolve::highest_version()`, or make a stale edit again on the document read anew"
    );
}
