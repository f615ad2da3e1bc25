//! The repository in the `flat` layout: envelope upkeep, updates, failures at every store operation of
//! every write. What every store must do alike (history, compare-and-swap, lookups, concurrent updates) is
//! in `stores.rs`, run on each store.

use docmodel_tests::redb_path;
use std::sync::{Arc, Mutex};

use docmodel::Durability;
use docmodel::store::{MemoryStore, Redb, Store, Write, WriteOptions};

use docmodel::{DocModel, Error, Repo, StoreErrorKind};
use docmodel_tests::schedule::{Gate, GatedStore, Writer, block_on, run_for};
use docmodel_tests::{
    CountingStore, FailingStore, Forgetting, Op, Operation, clock, keys, keys_under,
};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}", revisions = 3)]
#[docmodel(envelope(created_by, modified_by))]
struct User {
    #[docmodel(get)]
    user_id: u64,
    #[docmodel(get, set)]
    name: String,
    #[docmodel(get, set)]
    logins: u64,
}

/// A model that keeps no revision copies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "setting", schema = "1.0", key = "setting::{name}")]
struct Setting {
    name: String,
    #[docmodel(allow(reserved_word))]
    value: u64,
}

fn joe() -> User {
    User {
        user_id: 123,
        name: "Joe".into(),
        logins: 0,
    }
}

#[tokio::test]
async fn the_flat_envelope_as_stored() {
    let store = MemoryStore::new();
    let users = Repo::<User>::new(&store).actor("admin").clock(clock);
    let doc = users.insert(joe()).await.unwrap();
    let stored = store.get("user::123").await.unwrap().unwrap();
    assert_eq!(
        std::str::from_utf8(&stored.bytes).unwrap(),
        r#"{"_type":"user","_schema":"3.0","_ver":1,"_created":1544759124478,"_createdBy":"admin","_modified":1544759124478,"_modifiedBy":"admin","userId":123,"name":"Joe","logins":0}"#
    );
    assert_eq!(doc.cas(), Some(&stored.cas));
}

#[tokio::test]
async fn redb_keeps_its_data_when_reopened() {
    let path = redb_path("reopen");
    {
        let store = Redb::open(&path).unwrap();
        let users = Repo::<User>::new(&store);
        let mut doc = users.insert(joe()).await.unwrap();
        doc.set_name("Joseph");
        users.save(&mut doc).await.unwrap();
    }
    let store = Redb::open(&path).unwrap();
    let users = Repo::<User>::new(&store);
    let doc = users.get(&User::key(123)).await.unwrap().unwrap();
    assert_eq!((doc.name(), doc.envelope().ver), ("Joseph", 2));
    assert_eq!(
        users.revisions(&User::key(123)).await.unwrap()[0].name(),
        "Joe"
    );
    drop(store);
    std::fs::remove_file(&*path).unwrap();
}

/// Set in the child process [`an_eventual_redb_loses_on_a_crash_only_its_writes_since_the_last_durable_one`]
/// starts: the file it writes to before it aborts.
const CRASH_FILE: &str = "DOCMODEL_TEST_CRASH_FILE";

#[test]
fn an_eventual_redb_loses_on_a_crash_only_its_writes_since_the_last_durable_one() {
    if let Some(path) = std::env::var_os(CRASH_FILE) {
        // The child: writes, then dies as a killed process does, the store still open.
        let store = Redb::open(&path).unwrap().eventual();
        block_on(async {
            let users = Repo::<User>::new(&store);
            users.insert(joe()).await.unwrap();
            store.flush().unwrap();
            store.insert("kept::1", b"{}").await.unwrap();
            let durable = WriteOptions::new().with_durability(Durability::Majority);
            store.insert_with("kept::2", b"{}", &durable).await.unwrap();
            users
                .update(&User::key(123), |user| user.set_name("Lost"))
                .await
                .unwrap();
            store.insert("lost::1", b"{}").await.unwrap();
            assert!(store.get("lost::1").await.unwrap().is_some());
        });
        let _open = &store;
        std::process::abort();
    }
    let path = redb_path("crash");
    // This test's name as the harness knows it: its module path without the crate's name.
    let (_crate, name) = concat!(
        module_path!(),
        "::an_eventual_redb_loses_on_a_crash_only_its_writes_since_the_last_durable_one"
    )
    .split_once("::")
    .unwrap();
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture"])
        .env(CRASH_FILE, path.as_os_str())
        .output()
        .unwrap();
    assert!(
        !child.status.success(),
        "the child was to abort: {}",
        String::from_utf8_lossy(&child.stderr)
    );
    block_on(async {
        let store = Redb::open(&path).unwrap();
        // What was flushed, what a durable write made durable with it, and nothing after.
        assert_eq!(
            keys(&store).await,
            ["kept::1", "kept::2", "user::123"],
            "child: {}",
            String::from_utf8_lossy(&child.stderr)
        );
        let users = Repo::<User>::new(&store);
        let doc = users.get(&User::key(123)).await.unwrap().unwrap();
        assert_eq!((doc.name(), doc.envelope().ver), ("Joe", 1));
        drop(store);
    });
    std::fs::remove_file(path).unwrap();
}

#[tokio::test]
async fn a_stale_document_cannot_overwrite_newer_data() {
    let store = MemoryStore::new();
    let users = Repo::<User>::new(&store);
    users.insert(joe()).await.unwrap();
    let mut first = users.get(&User::key(123)).await.unwrap().unwrap();
    let mut second = users.get(&User::key(123)).await.unwrap().unwrap();
    first.set_name("First");
    users.save(&mut first).await.unwrap();
    second.set_name("Second");
    let err = users.save(&mut second).await.unwrap_err();
    assert!(
        matches!(&err, Error::Conflict { key } if key == "user::123"),
        "{err:?}"
    );
    assert_eq!(
        users.get(&User::key(123)).await.unwrap().unwrap().name(),
        "First"
    );
    assert_eq!(
        second.envelope().ver,
        1,
        "the refused document is left as it was"
    );
    assert_eq!(keys(&store).await, ["user::123", "user::123::v::1"]);
}

#[tokio::test]
async fn update_takes_plain_and_validated_changes() {
    let store = MemoryStore::new();
    let users = Repo::<User>::new(&store);
    users.insert(joe()).await.unwrap();
    users
        .update(&User::key(123), |user| user.set_logins(1u64))
        .await
        .unwrap();
    let doc = users
        .update(&User::key(123), |user| {
            user.set_name("Joe Smith");
            Ok(())
        })
        .await
        .unwrap();
    assert_eq!(
        (doc.logins(), doc.name(), doc.envelope().ver),
        (1, "Joe Smith", 3)
    );
    let err = users
        .update(&User::key(123), |_| Err(Error::validation("name", "no")))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Validation { .. }));
    assert_eq!(
        users
            .get(&User::key(123))
            .await
            .unwrap()
            .unwrap()
            .envelope()
            .ver,
        3,
        "nothing written"
    );
    let err = users.update(&User::key(9), |_| ()).await.unwrap_err();
    assert!(
        matches!(&err, Error::NotFound { key } if key == "user::9"),
        "{err:?}"
    );
}

#[tokio::test]
async fn store_operations_per_save() {
    let store = CountingStore::new(MemoryStore::new());
    let users = Repo::<User>::new(&store);
    let settings = Repo::<Setting>::new(&store);
    users.insert(joe()).await.unwrap();
    settings
        .insert(Setting {
            name: "theme".into(),
            value: 1,
        })
        .await
        .unwrap();
    assert_eq!(
        store.take(),
        [
            Op::Insert("user::123".into()),
            Op::Insert("setting::theme".into())
        ]
    );

    let mut doc = users.get(&User::key(123)).await.unwrap().unwrap();
    assert_eq!(store.take(), [Op::Get("user::123".into())]);
    let mut saves = Vec::new();
    for _ in 0..4 {
        let logins = doc.logins() + 1;
        doc.set_logins(logins);
        users.save(&mut doc).await.unwrap();
        saves.push(store.take());
    }
    // Versions 1 to 3 are copied and kept; saving version 5 prunes the copy of version 1.
    assert_eq!(
        saves[0],
        [
            Op::Insert("user::123::v::1".into()),
            Op::Replace("user::123".into())
        ]
    );
    // The copy falling out of the window is read first: only a copy of this document is removed, never
    // another model's document whose key looks like one.
    assert_eq!(
        saves[3],
        [
            Op::Insert("user::123::v::4".into()),
            Op::Replace("user::123".into()),
            Op::Get("user::123::v::1".into()),
            Op::Remove("user::123::v::1".into())
        ]
    );

    // Listing the history reads the document and its window of copies in one batch: no scan.
    users.revisions(&User::key(123)).await.unwrap();
    assert_eq!(
        store.take(),
        [
            Op::Get("user::123".into()),
            Op::GetMany(vec![
                "user::123::v::4".into(),
                "user::123::v::3".into(),
                "user::123::v::2".into()
            ])
        ]
    );

    let mut setting = settings
        .get(&Setting::key("theme").unwrap())
        .await
        .unwrap()
        .unwrap();
    store.take();
    setting.value = 2;
    settings.save(&mut setting).await.unwrap();
    assert_eq!(
        store.take(),
        [Op::Replace("setting::theme".into())],
        "no revisions: one replace"
    );
}

/// The stored state after a failure: the current version, and every revision copy there is.
async fn state<S: Store>(store: &S) -> (u64, Vec<String>) {
    let users = Repo::<User>::new(store);
    let ver = users
        .get(&User::key(123))
        .await
        .unwrap()
        .map_or(0, |doc| doc.envelope().ver);
    let copies = keys(store)
        .await
        .into_iter()
        .filter(|key| key.contains("::v::"))
        .collect();
    (ver, copies)
}

/// A user saved to version 3 (copies of 1 and 2) or 4 (copies of 1, 2, 3: the next save prunes).
async fn seeded(versions: u64) -> FailingStore<MemoryStore> {
    seeded_in(FailingStore::new(MemoryStore::new()), versions).await
}

/// `store`, seeded as [`seeded`] does.
async fn seeded_in<S: Store>(store: FailingStore<S>, versions: u64) -> FailingStore<S> {
    let users = Repo::<User>::new(&store);
    let mut doc = users.insert(joe()).await.unwrap();
    for _ in 1..versions {
        let logins = doc.logins() + 1;
        doc.set_logins(logins);
        users.save(&mut doc).await.unwrap();
    }
    store
}

#[tokio::test]
async fn every_failure_leaves_old_or_new_loses_nothing_and_a_retry_completes() {
    let mut points = 0;

    // Insert: one operation.
    let store = FailingStore::new(MemoryStore::new());
    store.fail_at(1);
    let users = Repo::<User>::new(&store);
    assert!(matches!(
        users.insert(joe()).await,
        Err(Error::Store { .. })
    ));
    assert_eq!(state(&store).await, (0, vec![]));
    store.fail_at(0);
    users.insert(joe()).await.unwrap();
    points += 1;

    // Save without pruning (2 operations) and with pruning (4): the copy, the replace, then the prune's get
    // and remove.
    for (versions, operations) in [(3, 2), (4, 4)] {
        for k in 1..=operations {
            let store = seeded(versions).await;
            let users = Repo::<User>::new(&store);
            let (before, copies_before) = state(&store).await;
            let mut doc = users.get(&User::key(123)).await.unwrap().unwrap();
            doc.set_name("New");
            store.fail_at(k);
            let result = users.save(&mut doc).await;
            let (after, copies) = state(&store).await;
            if k <= 2 {
                assert!(
                    matches!(result, Err(Error::Store { .. })),
                    "k={k}: {result:?}"
                );
                assert_eq!(after, before, "k={k}: the old version stays");
                assert!(
                    copies_before.iter().all(|copy| copies.contains(copy)),
                    "k={k}: a revision was lost"
                );
                store.fail_at(0);
                users.save(&mut doc).await.unwrap();
            } else {
                // The prune failed after the save committed: the save stands, one extra copy is left.
                result.unwrap();
                assert_eq!(after, before + 1, "k={k}");
            }
            let names: Vec<u64> = users
                .revisions(&User::key(123))
                .await
                .unwrap()
                .iter()
                .map(|d| d.envelope().ver)
                .collect();
            assert_eq!(
                names,
                (before.saturating_sub(2)..=before)
                    .rev()
                    .collect::<Vec<_>>(),
                "k={k}: retry completes"
            );
            assert_eq!(
                users.get(&User::key(123)).await.unwrap().unwrap().name(),
                "New"
            );
            points += 1;
        }
    }

    // Update: the get, then the save's operations.
    for k in 1..=5 {
        let store = seeded(4).await;
        let users = Repo::<User>::new(&store);
        store.fail_at(k);
        let result = users
            .update(&User::key(123), |user| user.set_name("Updated"))
            .await;
        let (after, _) = state(&store).await;
        if k <= 3 {
            assert!(
                matches!(result, Err(Error::Store { .. })),
                "k={k}: {result:?}"
            );
            assert_eq!(after, 4, "k={k}");
            store.fail_at(0);
            users
                .update(&User::key(123), |user| user.set_name("Updated"))
                .await
                .unwrap();
        } else {
            result.unwrap();
        }
        let doc = users.get(&User::key(123)).await.unwrap().unwrap();
        assert_eq!((doc.name(), doc.envelope().ver), ("Updated", 5), "k={k}");
        points += 1;
    }

    // Restore: the current version, its window of copies (one batch), then the save's operations.
    for k in 1..=6 {
        let store = seeded(4).await;
        let users = Repo::<User>::new(&store);
        store.fail_at(k);
        let result = users.restore(&User::key(123), 2).await;
        let (after, _) = state(&store).await;
        if k <= 4 {
            assert!(
                matches!(result, Err(Error::Store { .. })),
                "k={k}: {result:?}"
            );
            assert_eq!(after, 4, "k={k}");
            store.fail_at(0);
            users.restore(&User::key(123), 2).await.unwrap();
        } else {
            result.unwrap();
        }
        let doc = users.get(&User::key(123)).await.unwrap().unwrap();
        assert_eq!(
            (doc.logins(), doc.envelope().ver),
            (1, 5),
            "k={k}: version 2 had one login"
        );
        points += 1;
    }
    assert_eq!(points, 18, "injection points tested");
}

/// The copies under the user's revision prefix, in key order.
async fn copies<S: Store>(store: &S) -> Vec<String> {
    keys_under(&store, "user::123::v::").await
}

/// Fails each store operation of a save with revisions on the atomic `fresh()` store in turn, and returns
/// the number of points failed at.
async fn atomic_failures<S: Store>(name: &str, fresh: impl Fn() -> FailingStore<S>) -> usize {
    let window = |ver: u64| -> Vec<String> {
        (ver.saturating_sub(3).max(1)..ver)
            .map(|v| format!("user::123::v::{v}"))
            .collect()
    };
    let mut points = 0;
    // Window not full: the batch (copy, replace) is the one operation. Full: the get of the copy to prune,
    // then the batch (copy, replace, prune).
    for (versions, operations) in [(3, 1), (4, 2)] {
        for k in 1..=operations {
            let store = seeded_in(fresh(), versions).await;
            let users = Repo::<User>::new(&store);
            let before = copies(&store).await;
            assert_eq!(before, window(versions));
            let mut doc = users.get(&User::key(123)).await.unwrap().unwrap();
            doc.set_name("New");
            store.fail_at(k);
            let result = users.save(&mut doc).await;
            let at = format!("{name}, {versions} versions, operation {k}");
            if k == operations {
                // The batch failed: nothing of it was written, not even the copy a save in steps leaves
                // behind.
                let err = result.unwrap_err();
                assert!(err.to_string().contains("injected failure"), "{at}: {err}");
                assert_eq!(state(&store).await.0, versions, "{at}");
                assert_eq!(
                    copies(&store).await,
                    before,
                    "{at}: the copies are as they were"
                );
                store.fail_at(0);
                users.save(&mut doc).await.unwrap();
            } else {
                // The read of the copy to prune failed: the save commits without the prune, and the prune
                // after the commit removes the copy.
                result.unwrap();
            }
            assert_eq!(state(&store).await.0, versions + 1, "{at}");
            assert_eq!(copies(&store).await, window(versions + 1), "{at}");
            assert_eq!(
                users.get(&User::key(123)).await.unwrap().unwrap().name(),
                "New",
                "{at}"
            );
            points += 1;
        }
    }
    points
}

#[tokio::test]
async fn a_failed_atomic_save_leaves_the_old_version_whole_and_a_retry_completes() {
    let files = Mutex::new(Vec::new());
    let points = atomic_failures("MemoryStore", || FailingStore::atomic(MemoryStore::new())).await
        + atomic_failures("Redb", || {
            // Kept until the test ends, when each file goes.
            let path = redb_path("atomic-failure");
            let store = FailingStore::atomic(Redb::open(&path).unwrap());
            files.lock().unwrap().push(path);
            store
        })
        .await;
    assert_eq!(points, 6, "injection points tested");
}

/// A session refers to its user; its own key is a dash-less UUID v7.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(type = "session", schema = "1.0", key = "session::{id}")]
struct Session {
    id: docmodel::uuid::Uuid,
    #[docmodel(allow(reserved_word))]
    user: docmodel::Ref<User>,
}

#[tokio::test]
async fn counter_ids_uuid_keys_and_typed_references() {
    let store = MemoryStore::new();
    let users = Repo::<User>::new(&store);
    let sessions = Repo::<Session>::new(&store);
    let first = users.next_id().await.unwrap();
    let second = users.next_id().await.unwrap();
    assert_eq!((first, second), (1, 2));
    assert_eq!(
        &*store.get("count::user").await.unwrap().unwrap().bytes,
        br#"{"value":2}"#,
        "a counter is a JSON object, which every document store can hold"
    );
    users
        .insert(User {
            user_id: second,
            ..joe()
        })
        .await
        .unwrap();

    let id = docmodel::uuid::Uuid::now_v7();
    let session = sessions
        .insert(Session {
            id,
            user: User::key(2).into(),
        })
        .await
        .unwrap();
    assert_eq!(session.key().as_str(), format!("session::{}", id.simple()));
    assert_eq!(
        session.key().as_str().len(),
        "session::".len() + 32,
        "no dashes"
    );
    let stored = store.get(session.key().as_str()).await.unwrap().unwrap();
    assert!(
        std::str::from_utf8(&stored.bytes)
            .unwrap()
            .contains(r#""user":"user::2""#)
    );

    let session = sessions.get(session.key()).await.unwrap().unwrap();
    assert_eq!(
        users.load(&session.user).await.unwrap().unwrap().user_id(),
        2
    );
    assert_eq!(
        keys(&store).await.first().map(String::as_str),
        Some("count::user")
    );

    // A reference whose key now holds a document of another type is refused when loaded.
    store.remove("user::2", None).await.unwrap();
    store
        .insert(
            "user::2",
            br#"{"_type":"admin","_schema":"3.0","userId":2}"#,
        )
        .await
        .unwrap();
    let err = users.load(&session.user).await.unwrap_err();
    assert!(
        matches!(&err, Error::WrongType { found: Some(found), .. } if found == "admin"),
        "{err:?}"
    );
}

#[test]
fn a_copy_to_prune_that_changes_before_the_batch_is_pruned_after_a_save_in_steps() {
    let store = Arc::new(CountingStore::atomic(MemoryStore::new()));
    block_on(seeded_in(FailingStore::atomic(&*store), 4));
    let users = Repo::<User>::new(&*store);
    let mut doc = block_on(users.get(&User::key(123))).unwrap().unwrap();
    doc.set_name("New");
    store.take();

    let gate = Arc::new(Gate::default());
    let saver = Repo::<User>::new(GatedStore::atomic(Arc::clone(&store), Arc::clone(&gate), 0));
    let saved = Arc::new(Mutex::new(None));
    let out = Arc::clone(&saved);
    let mut save: Option<Writer> = Some(Box::pin(async move {
        *out.lock().unwrap() = Some(saver.save(&mut doc).await);
    }));
    // The save reads the copy leaving the window, then waits before its batch; meanwhile the copy is
    // written again (the same bytes, a new token).
    assert!(!run_for(&mut save, &gate, 1));
    let copy = block_on(store.get("user::123::v::1")).unwrap().unwrap();
    block_on(store.replace("user::123::v::1", &copy.bytes, &copy.cas)).unwrap();
    assert!(run_for(&mut save, &gate, usize::MAX));
    saved.lock().unwrap().take().unwrap().unwrap();

    // The batch is refused whole on the removal's token, and the save is made in steps, whose prune reads
    // the copy again and removes it.
    let batch = vec![
        "user::123::v::4".to_owned(),
        "user::123".to_owned(),
        "user::123::v::1".to_owned(),
    ];
    assert_eq!(
        store.take(),
        [
            Op::Get("user::123::v::1".into()),
            Op::Get("user::123::v::1".into()),
            Op::Replace("user::123::v::1".into()),
            Op::WriteAtomic(batch),
            Op::Insert("user::123::v::4".into()),
            Op::Replace("user::123".into()),
            Op::Get("user::123::v::1".into()),
            Op::Remove("user::123::v::1".into()),
        ]
    );
    assert_eq!(
        block_on(keys_under(&store, "user::123::v::")),
        ["user::123::v::2", "user::123::v::3", "user::123::v::4"]
    );
    let doc = block_on(users.get(&User::key(123))).unwrap().unwrap();
    assert_eq!((doc.name(), doc.envelope().ver), ("New", 5));
}

#[tokio::test]
async fn a_wrapper_that_claims_batches_it_does_not_pass_on_still_saves_in_steps() {
    // A user's store written by hand, passing on its store's capabilities but not its atomic batches: its
    // `write_atomic` is the trait's default.
    let store = Forgetting::passing(MemoryStore::new(), |operation| {
        operation != Operation::WriteAtomic
    });
    assert!(store.capabilities().atomic_writes);
    let err = store
        .write_atomic(
            &[Write::Insert {
                key: "a",
                value: b"{}",
            }],
            &WriteOptions::DEFAULT,
        )
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

    let users = Repo::<User>::new(&store);
    let mut doc = users.insert(joe()).await.unwrap();
    for logins in 1..=4 {
        doc.set_logins(logins);
        users.save(&mut doc).await.unwrap();
    }
    assert_eq!(doc.envelope().ver, 5);
    assert_eq!(
        keys_under(&store, "user::123::v::").await,
        ["user::123::v::2", "user::123::v::3", "user::123::v::4"]
    );
}
