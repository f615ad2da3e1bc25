//! Two writers interleaved step by step (a `PauseStore` holds one store operation of the first while the
//! second runs): no committed version is lost, a lookup never ends up missing or shared, and the copies left
//! by losers are only ever the stale ones, which are removed.

use std::sync::Mutex;

use docmodel::store::{Call, Capabilities, MemoryStore, Store};
use docmodel::{DocModel, Error, ErrorClass, Repo, StoreErrorKind, Timestamp};
use docmodel_tests::{Conflicted, FailingStore, Hooked, Hooks, Operation, PauseStore, keys_under};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{username}", revisions = 3)]
#[docmodel(lookup = "cref::{no}")]
struct Customer {
    #[docmodel(get)]
    username: String,
    #[docmodel(get, set)]
    #[docmodel(allow(reserved_word))]
    no: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "counter", schema = "1.0", key = "counter::{id}", revisions = 3)]
struct Counter {
    #[docmodel(get)]
    id: u64,
    #[docmodel(get, set)]
    n: u64,
}

fn customer(name: &str, no: u64) -> Customer {
    Customer {
        username: name.into(),
        no,
    }
}

fn max_key() -> docmodel::Key<Customer> {
    Customer::key("max").unwrap()
}

/// A store the spawned writer and the test share for the whole test.
fn store() -> &'static PauseStore<MemoryStore> {
    Box::leak(Box::new(PauseStore::new(MemoryStore::new())))
}

async fn lookup(store: &PauseStore<MemoryStore>, key: &str) -> Option<String> {
    store
        .inner
        .get(key)
        .await
        .unwrap()
        .map(|stored| String::from_utf8(stored.bytes.to_vec()).unwrap())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_save_while_revisions_are_listed_keeps_its_copy() {
    let store = store();
    let counters = Repo::<Counter>::new(store);
    counters.insert(Counter { id: 1, n: 0 }).await.unwrap();
    for _ in 0..4 {
        counters
            .update(&Counter::key(1), |c| c.set_n(c.n() + 1))
            .await
            .unwrap();
    }
    // `revisions` has read version 5 and is about to read its copies when a save makes version 6.
    let pause = store.pause(Operation::GetMany, "counter::1::v::4");
    let listing = tokio::spawn(async move {
        Repo::<Counter>::new(store)
            .revisions(&Counter::key(1))
            .await
            .map(|docs| {
                docs.iter()
                    .map(|doc| doc.envelope().ver)
                    .collect::<Vec<_>>()
            })
    });
    pause.reached.notified().await;
    counters
        .update(&Counter::key(1), |c| c.set_n(c.n() + 1))
        .await
        .unwrap();
    pause.release.notify_one();
    // The listing reads the window of the version it read: version 2's copy was pruned meanwhile.
    assert_eq!(listing.await.unwrap().unwrap(), [4, 3]);
    let versions: Vec<u64> = counters
        .revisions(&Counter::key(1))
        .await
        .unwrap()
        .iter()
        .map(|doc| doc.envelope().ver)
        .collect();
    assert_eq!(
        versions,
        [5, 4, 3],
        "the copy of version 5 the save committed is kept"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_losers_rollback_leaves_the_winners_lookup() {
    let store = store();
    let customers = Repo::<Customer>::new(store);
    customers.insert(customer("max", 1)).await.unwrap();
    let mut first = customers.get(&max_key()).await.unwrap().unwrap();
    let mut second = customers.get(&max_key()).await.unwrap().unwrap();
    first.set_no(2u64);
    second.set_no(2u64);
    // The first has claimed cref::2 and is held before its copy; the second saves the same change and wins.
    let pause = store.pause(Operation::Insert, "user::max::v::1");
    let losing = tokio::spawn(async move { Repo::<Customer>::new(store).save(&mut first).await });
    pause.reached.notified().await;
    customers.save(&mut second).await.unwrap();
    pause.release.notify_one();
    assert!(matches!(losing.await.unwrap(), Err(Error::Conflict { .. })));
    assert_eq!(
        lookup(store, "cref::2").await.as_deref(),
        Some(r#"{"ref":"user::max"}"#)
    );
    let err = customers.insert(customer("eve", 2)).await.unwrap_err();
    assert!(
        matches!(&err, Error::AlreadyExists { key } if key == "cref::2"),
        "{err:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn moving_a_lookup_back_before_the_old_one_is_released_keeps_it() {
    let store = store();
    let customers = Repo::<Customer>::new(store);
    customers.insert(customer("max", 1)).await.unwrap();
    // The first update has written no = 2 and is held before it releases cref::1; a second moves it back.
    let pause = store.pause(Operation::Remove, "cref::1");
    let moving = tokio::spawn(async move {
        Repo::<Customer>::new(store)
            .update(&max_key(), |c| c.set_no(2u64))
            .await
            .map(|_| ())
    });
    pause.reached.notified().await;
    customers
        .update(&max_key(), |c| c.set_no(1u64))
        .await
        .unwrap();
    pause.release.notify_one();
    moving.await.unwrap().unwrap();
    assert_eq!(
        customers
            .get_by_lookup("cref::1")
            .await
            .unwrap()
            .map(|doc| doc.no()),
        Some(1)
    );
    assert!(customers.get_by_lookup("cref::2").await.unwrap().is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn two_inserts_of_one_lookup_value_let_exactly_one_win() {
    let store = store();
    let customers = Repo::<Customer>::new(store);
    // The first has claimed cref::7 and is held before writing its document; the second sees a lookup whose
    // document does not exist, takes it over and writes.
    let pause = store.pause(Operation::Insert, "user::a");
    let first = tokio::spawn(async move {
        Repo::<Customer>::new(store)
            .insert(customer("a", 7))
            .await
            .map(|_| ())
    });
    pause.reached.notified().await;
    customers.insert(customer("b", 7)).await.unwrap();
    pause.release.notify_one();
    let err = first.await.unwrap().unwrap_err();
    assert!(
        matches!(&err, Error::AlreadyExists { key } if key == "cref::7"),
        "{err:?}"
    );
    assert_eq!(store.inner.inner.keys(), ["cref::7", "user::b"]);
    assert_eq!(
        customers
            .get_by_lookup("cref::7")
            .await
            .unwrap()
            .unwrap()
            .username(),
        "b"
    );
}

/// Counter 1 saved to version 3, then a removal that fails after the document is gone, as it reads the
/// copies (the get, the document's removal, then that read): the copies of versions 1 and 2 are left.
async fn remove_failing_after_the_document(store: &FailingStore<MemoryStore>) {
    let counters = Repo::<Counter>::new(store).clock(|| Timestamp::from_millis(1_000));
    counters.insert(Counter { id: 1, n: 0 }).await.unwrap();
    for n in 1..=2u64 {
        counters
            .update(&Counter::key(1), |c| c.set_n(n))
            .await
            .unwrap();
    }
    store.fail_at(3);
    assert!(matches!(
        counters.remove(&Counter::key(1)).await,
        Err(Error::Store { .. })
    ));
    store.fail_at(0);
}

#[tokio::test]
async fn a_failed_remove_leaves_copies_no_one_lists_and_sweep_removes_them() {
    let store = FailingStore::new(MemoryStore::new());
    remove_failing_after_the_document(&store).await;
    assert_eq!(
        keys_under(&store, "").await,
        ["counter::1::v::1", "counter::1::v::2"],
        "the copies of the removed document are left"
    );

    // They do not block the key, and the new document's history never shows them.
    let counters = Repo::<Counter>::new(&store).clock(|| Timestamp::from_millis(2_000));
    counters.insert(Counter { id: 1, n: 100 }).await.unwrap();
    let doc = counters
        .update(&Counter::key(1), |c| c.set_n(101u64))
        .await
        .unwrap();
    assert_eq!((doc.n(), doc.envelope().ver), (101, 2));
    let history: Vec<u64> = counters
        .revisions(&Counter::key(1))
        .await
        .unwrap()
        .iter()
        .map(|doc| doc.n())
        .collect();
    assert_eq!(history, [100], "the earlier document's copy 1 was replaced");

    // `sweep` removes what no document keeps: version 2 of the earlier document.
    assert_eq!(counters.sweep(&Counter::key(1)).await.unwrap(), 1);
    assert_eq!(
        keys_under(&store, "").await,
        ["counter::1", "counter::1::v::1"]
    );
}

#[tokio::test]
async fn a_failed_remove_called_again_removes_the_copies_it_left() {
    let store = FailingStore::new(MemoryStore::new());
    remove_failing_after_the_document(&store).await;
    let counters = Repo::<Counter>::new(&store);
    let err = counters.remove(&Counter::key(1)).await.unwrap_err();
    assert!(
        matches!(&err, Error::NotFound { key } if key == "counter::1"),
        "{err:?}"
    );
    assert_eq!(keys_under(&store, "").await, Vec::<String>::new());
}

#[tokio::test]
async fn a_writer_left_far_behind_does_not_bring_back_a_pruned_copy() {
    let store = MemoryStore::new();
    let counters = Repo::<Counter>::new(&store);
    counters.insert(Counter { id: 1, n: 0 }).await.unwrap();
    let mut stale = counters.get(&Counter::key(1)).await.unwrap().unwrap();
    for n in 1..=5u64 {
        counters
            .update(&Counter::key(1), |c| c.set_n(n))
            .await
            .unwrap();
    }
    stale.set_n(999u64);
    assert!(matches!(
        counters.save(&mut stale).await,
        Err(Error::Conflict { .. })
    ));
    assert_eq!(
        store.keys(),
        [
            "counter::1",
            "counter::1::v::3",
            "counter::1::v::4",
            "counter::1::v::5"
        ]
    );
    assert!(
        counters
            .revision(&Counter::key(1), 1)
            .await
            .unwrap()
            .is_none()
    );
    assert!(matches!(
        counters.restore(&Counter::key(1), 1).await,
        Err(Error::NotFound { .. })
    ));
}

/// The keys of counter 1 at version 5: the document and its copies of versions 4, 3 and 2.
const AT_VERSION_5: [&str; 4] = [
    "counter::1",
    "counter::1::v::2",
    "counter::1::v::3",
    "counter::1::v::4",
];

/// Counter 1 inserted and updated to version 5, and what a writer left behind at version 1 holds.
async fn left_behind_at_version_1<S: Store>(counters: &Repo<Counter, S>) -> docmodel::Doc<Counter> {
    let key = Counter::key(1);
    counters.insert(Counter { id: 1, n: 0 }).await.unwrap();
    let stale = counters.get(&key).await.unwrap().unwrap();
    for _ in 0..4 {
        counters.update(&key, |c| c.set_n(c.n() + 1)).await.unwrap();
    }
    stale
}

/// Counter 1's revision copies, newest first: each one's version and count.
async fn versions_and_counts<S: Store>(counters: &Repo<Counter, S>) -> Vec<(u64, u64)> {
    let copies = counters.revisions(&Counter::key(1)).await.unwrap();
    copies
        .iter()
        .map(|doc| (doc.envelope().ver, doc.n()))
        .collect()
}

/// A save held between its commit and recording itself in the copy it relied on, while the document moves
/// past that copy's window and a writer left behind puts the copy back: the late record lands in the stale
/// copy, and the writer that put it back still removes it (what CI once saw on Couchbase as a copy left far
/// below the window by eight tasks updating one document).
#[tokio::test(flavor = "multi_thread")]
async fn a_stale_copy_a_late_save_records_itself_in_is_still_removed() {
    let store = store();
    let counters = Repo::<Counter>::new(store);
    counters.insert(Counter { id: 1, n: 0 }).await.unwrap();
    let key = Counter::key(1);
    let (first, second, stale) = (
        counters.get(&key).await.unwrap().unwrap(),
        counters.get(&key).await.unwrap().unwrap(),
        counters.get(&key).await.unwrap().unwrap(),
    );
    let save = |mut doc: docmodel::Doc<Counter>, n: u64| {
        tokio::spawn(async move {
            doc.set_n(n);
            Repo::<Counter>::new(store).save(&mut doc).await
        })
    };
    // The first writes the copy of version 1 and is held before its replace; the second finds that copy
    // (which does not record it yet), commits version 2, and is held before it records itself in the copy.
    let first_replace = store.pause(Operation::Replace, "counter::1");
    let first = save(first, 10);
    first_replace.reached.notified().await;
    let second_replace = store.pause(Operation::Replace, "counter::1");
    let second = save(second, 20);
    second_replace.reached.notified().await;
    let second_records = store.pause(Operation::Get, "counter::1::v::1");
    second_replace.release.notify_one();
    second_records.reached.notified().await;
    first_replace.release.notify_one();
    assert!(matches!(first.await.unwrap(), Err(Error::Conflict { .. })));
    // Three more saves: version 5, whose window holds the copies of 4, 3 and 2; the copy of 1 is pruned.
    for _ in 0..3 {
        counters.update(&key, |c| c.set_n(c.n() + 1)).await.unwrap();
    }
    assert_eq!(keys_under(store, "").await, AT_VERSION_5);
    // The writer left behind puts a copy of version 1 back and is held before its replace; the second
    // records itself in that copy meanwhile, which changes its token.
    let stale_replace = store.pause(Operation::Replace, "counter::1");
    let stale = save(stale, 30);
    stale_replace.reached.notified().await;
    assert!(
        keys_under(store, "")
            .await
            .contains(&"counter::1::v::1".to_owned())
    );
    second_records.release.notify_one();
    second.await.unwrap().unwrap();
    stale_replace.release.notify_one();
    assert!(matches!(stale.await.unwrap(), Err(Error::Conflict { .. })));
    assert_eq!(
        keys_under(store, "").await,
        AT_VERSION_5,
        "the copy put back is removed"
    );
    let current = counters.get(&key).await.unwrap().unwrap();
    assert_eq!((current.n(), current.envelope().ver), (23, 5));
}

#[tokio::test]
async fn a_writer_left_behind_whose_replace_fails_removes_its_copy() {
    let store = FailingStore::new(MemoryStore::new());
    let counters = Repo::<Counter>::new(&store);
    let mut stale = left_behind_at_version_1(&counters).await;
    // The insert of the copy of version 1, then the replace, which fails before it reaches the store.
    store.fail_at(2);
    stale.set_n(99u64);
    let err = counters.save(&mut stale).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "document `counter::1`: the store failed: injected failure of operation 2"
    );
    assert_eq!(
        keys_under(&store, "").await,
        AT_VERSION_5,
        "the copy of version 1, below the window of version 5, is removed"
    );
}

/// A store whose insert of the armed key lands and is then answered as if the connection dropped first: an
/// ambiguous failure of a write that took effect. One operation per step, as on a network store.
#[derive(Default)]
struct LandsUnanswered(Mutex<Option<&'static str>>);

impl Hooks<MemoryStore> for LandsUnanswered {
    fn capabilities(&self, inner: &MemoryStore) -> Capabilities {
        inner
            .capabilities()
            .with_atomic_writes(false)
            .with_transactions(false)
    }

    async fn before(&self, inner: &MemoryStore, call: Call<'_>) -> Result<(), Error> {
        if let Call::Insert { key, value, .. } = call {
            let armed = *self.0.lock().unwrap() == Some(key);
            if armed {
                self.0.lock().unwrap().take();
                inner.insert(key, value).await?;
                return Err(Error::store_with(
                    StoreErrorKind::Ambiguous,
                    key,
                    "the connection dropped before the answer",
                ));
            }
        }
        Ok(())
    }
}

#[tokio::test]
async fn a_copy_whose_insert_went_unanswered_is_left_only_where_a_save_can_use_it() {
    let store = Hooked::with(MemoryStore::new(), LandsUnanswered::default());
    let counters = Repo::<Counter>::new(&store);
    let key = Counter::key(1);
    let mut stale = left_behind_at_version_1(&counters).await;
    // A writer left behind at version 1: its copy lands, far below the window of version 5, and is removed.
    *store.hooks.0.lock().unwrap() = Some("counter::1::v::1");
    stale.set_n(99u64);
    let err = counters.save(&mut stale).await.unwrap_err();
    assert_eq!(err.class(), ErrorClass::Ambiguous, "{err:?}");
    assert_eq!(store.inner.keys(), AT_VERSION_5);
    // A writer at version 5: the copy it cannot know it wrote stays, and the next save from 5 uses it.
    let mut current = counters.get(&key).await.unwrap().unwrap();
    *store.hooks.0.lock().unwrap() = Some("counter::1::v::5");
    current.set_n(10u64);
    let err = counters.save(&mut current).await.unwrap_err();
    assert_eq!(err.class(), ErrorClass::Ambiguous, "{err:?}");
    assert_eq!(current.envelope().ver, 5);
    assert!(store.inner.keys().contains(&"counter::1::v::5".to_owned()));
    counters.save(&mut current).await.unwrap();
    assert_eq!(
        store.inner.keys(),
        [
            "counter::1",
            "counter::1::v::3",
            "counter::1::v::4",
            "counter::1::v::5"
        ]
    );
    let history = versions_and_counts(&counters).await;
    assert_eq!(history, [(5, 4), (4, 3), (3, 2)]);
}

/// A save that found its document gone, held before it removes the copy it wrote, while the key is created
/// again with the same `_created` (a clock that does not move) and the new document's first save writes over
/// that copy and commits with it: the copy is judged again by the document read after it, which keeps it.
#[tokio::test(flavor = "multi_thread")]
async fn a_failed_saves_tidying_keeps_the_copy_a_new_document_under_the_key_wrote_over() {
    let store = store();
    let at_one_second = || Timestamp::from_millis(1_000);
    let counters = Repo::<Counter>::new(store).clock(at_one_second);
    let key = Counter::key(1);
    counters.insert(Counter { id: 1, n: 0 }).await.unwrap();
    let mut gone = counters.get(&key).await.unwrap().unwrap();
    let replace = store.pause(Operation::Replace, "counter::1");
    let tidying = store.pause(Operation::Remove, "counter::1::v::1");
    let failing = tokio::spawn(async move {
        gone.set_n(10u64);
        Repo::<Counter>::new(store)
            .clock(at_one_second)
            .save(&mut gone)
            .await
    });
    replace.reached.notified().await;
    // The document goes (by another program: its copy stays), and the save finds it gone.
    let removed = store.inner.get("counter::1").await.unwrap().unwrap();
    store
        .inner
        .remove("counter::1", Some(&removed.cas))
        .await
        .unwrap();
    replace.release.notify_one();
    tidying.reached.notified().await;
    counters.insert(Counter { id: 1, n: 5 }).await.unwrap();
    counters.update(&key, |c| c.set_n(6u64)).await.unwrap();
    tidying.release.notify_one();
    let err = failing.await.unwrap().unwrap_err();
    assert!(
        matches!(&err, Error::NotFound { key } if key == "counter::1"),
        "{err:?}"
    );
    let history = versions_and_counts(&counters).await;
    assert_eq!(
        history,
        [(1, 5)],
        "the new document's copy of version 1 stays"
    );
}

/// The bytes `store` holds under `key`, which must be there.
async fn raw(store: &impl Store, key: &str) -> Vec<u8> {
    store.get(key).await.unwrap().unwrap().bytes.to_vec()
}

/// A document whose winning revision has moved past the copy of version 1 but which holds a revision in
/// conflict at version 2 (another server's save from 1, replicated): that revision's window holds the copy,
/// which a merge reads as the two sides' common version. A writer left behind at version 1 puts the copy
/// back and fails; neither its tidying nor a sweep removes the copy while the conflict stands.
#[tokio::test]
async fn a_copy_a_revision_in_conflict_needs_is_kept_by_a_failed_save_and_a_sweep() {
    let store = Conflicted::new(MemoryStore::new());
    let counters = Repo::<Counter>::new(&store);
    let key = Counter::key(1);
    counters.insert(Counter { id: 1, n: 0 }).await.unwrap();
    let mut stale = counters.get(&key).await.unwrap().unwrap();
    counters.update(&key, |c| c.set_n(1u64)).await.unwrap();
    let mut theirs: serde_json::Value =
        serde_json::from_slice(&raw(&store, "counter::1").await).unwrap();
    theirs["n"] = 100.into();
    for n in 2..=4u64 {
        counters.update(&key, |c| c.set_n(n)).await.unwrap();
    }
    store
        .add_conflict("counter::1", &serde_json::to_vec(&theirs).unwrap())
        .await;
    assert_eq!(keys_under(&store, "").await, AT_VERSION_5);
    stale.set_n(99u64);
    let err = counters.save(&mut stale).await.unwrap_err();
    assert!(
        matches!(&err, Error::Conflict { key } if key == "counter::1"),
        "{err:?}"
    );
    let with_the_copy_of_1 = [
        "counter::1",
        "counter::1::v::1",
        "counter::1::v::2",
        "counter::1::v::3",
        "counter::1::v::4",
    ];
    assert_eq!(keys_under(&store, "").await, with_the_copy_of_1);
    assert_eq!(counters.sweep(&key).await.unwrap(), 0);
    assert_eq!(keys_under(&store, "").await, with_the_copy_of_1);
}

/// A counter with its history and a lookup, for updates from many tasks at once.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "tally", schema = "1.0", key = "tally::{id}", revisions = 3)]
#[docmodel(lookup = "tally_name::{name}")]
struct Tally {
    id: u64,
    name: String,
    count: u64,
}

/// `tasks` tasks each updating one tally `per_task` times on a Redb file: each update's read, change and
/// write are one transaction, so other writers make it wait, never fail, and every increment lands.
async fn contended(tasks: u64, per_task: u64) {
    let path = docmodel_tests::redb_path("contended");
    let store = docmodel::store::Redb::open(&*path).unwrap().eventual();
    let tallies = Repo::<Tally>::new(store);
    tallies
        .insert(Tally {
            id: 1,
            name: "hits".into(),
            count: 0,
        })
        .await
        .unwrap();
    let key = Tally::key(1);
    let runs: Vec<_> = (0..tasks)
        .map(|_| {
            let (tallies, key) = (tallies.clone(), key.clone());
            tokio::spawn(async move {
                for _ in 0..per_task {
                    tallies
                        .update(&key, |tally| {
                            // A busy machine: the update holds its read a while before it writes, as a
                            // task descheduled there would, so that the others read the same version.
                            std::thread::sleep(std::time::Duration::from_micros(200));
                            tally.count += 1;
                        })
                        .await
                        .unwrap();
                    // Let the other tasks in between this task's updates.
                    tokio::task::yield_now().await;
                }
            })
        })
        .collect();
    for run in runs {
        run.await.unwrap();
    }
    let tally = tallies.get(&key).await.unwrap().unwrap();
    let updates = tasks * per_task;
    assert_eq!(tally.body().count, updates, "every update applied");
    assert_eq!(tally.envelope().ver, updates + 1);
    let history = tallies.revisions(&key).await.unwrap();
    let versions: Vec<u64> = history.iter().map(|doc| doc.envelope().ver).collect();
    assert_eq!(versions, [updates, updates - 1, updates - 2]);
    let by_name = tallies
        .get_by_lookup("tally_name::hits")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(by_name.envelope().ver, updates + 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_tasks_updating_one_document_on_redb_never_conflict() {
    contended(8, 50).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn thirty_two_tasks_updating_one_document_on_redb_never_conflict() {
    contended(32, 50).await;
}

/// A transaction whose work fails or panics writes nothing, on both stores that run one; a panic goes on
/// to the caller and leaves the store working.
#[tokio::test]
async fn a_transaction_that_fails_writes_nothing() {
    use docmodel::store::{Transaction, Write, WriteOptions};
    let path = docmodel_tests::redb_path("transaction");
    let redb = docmodel::store::Redb::open(&*path).unwrap();
    let memory = MemoryStore::new();
    for store in [
        docmodel::store::DynStore::new(redb.clone()),
        docmodel::store::DynStore::new(memory.clone()),
    ] {
        assert!(store.capabilities().transactions);
        let cas = store.insert("a", b"1").await.unwrap();
        let failed = store.transact(&WriteOptions::DEFAULT, &mut |tx: &mut dyn Transaction| {
            tx.write(
                &Write::Insert {
                    key: "b",
                    value: b"2",
                },
                &WriteOptions::DEFAULT,
            )?;
            tx.write(
                &Write::Replace {
                    key: "a",
                    value: b"3",
                    cas: &cas,
                },
                &WriteOptions::DEFAULT,
            )?;
            // Its own writes are what it reads.
            assert_eq!(&*tx.get("a")?.unwrap().bytes, b"3");
            // A write that fails its check changes nothing, and the work may go on.
            let taken = tx.write(
                &Write::Insert {
                    key: "b",
                    value: b"4",
                },
                &WriteOptions::DEFAULT,
            );
            assert!(matches!(taken, Err(Error::AlreadyExists { .. })));
            Err(Error::Conflict { key: "a".into() })
        });
        assert!(matches!(failed, Err(Error::Conflict { .. })));
        assert_eq!(&*store.get("a").await.unwrap().unwrap().bytes, b"1");
        assert!(store.get("b").await.unwrap().is_none());

        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            store.transact(&WriteOptions::DEFAULT, &mut |tx: &mut dyn Transaction| {
                tx.write(
                    &Write::Insert {
                        key: "b",
                        value: b"2",
                    },
                    &WriteOptions::DEFAULT,
                )?;
                panic!("the caller's code");
            })
        }));
        assert!(panicked.is_err());
        assert!(store.get("b").await.unwrap().is_none());
        store.insert("c", b"5").await.unwrap();
    }
}
