//! Two CouchDB databases replicating each other: the same document changed on both sides ends in a conflict,
//! which `Repo::get` reports and `Repo::resolve` merges, losing no version, with revision copies and lookups
//! consistent on both sides afterwards.
//!
//! On two `pouchdb-server`s the test starts (see `docmodel_tests::couchdb::Replicated`), or on two databases
//! of the CouchDB that `DOCMODEL_COUCHDB_URL` names.

mod bookmarks;
mod event_log;
mod random;

use std::collections::BTreeSet;
use std::sync::Arc;

use docmodel::store::{CouchDb, Store};
use docmodel::{Doc, DocModel, Error, Repo, Resolve, RetryPolicy, Timestamp};
use docmodel_tests::couchdb::{Replicated, eventually};
use docmodel_tests::{FailingStore, Operation, PauseStore, keys_under};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}", revisions = 10)]
#[docmodel(
    lookup = "email::{email}",
    envelope(layout = "plain", created_by, modified_by)
)]
struct User {
    #[docmodel(get)]
    id: u64,
    #[docmodel(get, set)]
    name: String,
    #[docmodel(get, set)]
    email: String,
}

/// A repository on `store` whose clock reads `seconds` and whose actor is `actor`.
fn users(store: &CouchDb, actor: &str, seconds: i64) -> Repo<User, CouchDb> {
    Repo::<User>::new(store.clone())
        .actor(actor)
        .clock(move || Timestamp::from_millis(seconds * 1000))
}

async fn rename(repo: &Repo<User, CouchDb>, name: &str, email: Option<&str>) {
    rename_user(repo, 1, name, email).await;
}

async fn rename_user<S: Store>(repo: &Repo<User, S>, id: u64, name: &str, email: Option<&str>) {
    repo.update(&User::key(id), |user| {
        user.set_name(name);
        if let Some(email) = email {
            user.set_email(email);
        }
    })
    .await
    .unwrap();
}

/// The name of every version kept: the document's, then its copies', newest first, with their versions.
async fn history(repo: &Repo<User, CouchDb>) -> Vec<(u64, String)> {
    history_of(repo, 1).await
}

async fn history_of<S: Store>(repo: &Repo<User, S>, id: u64) -> Vec<(u64, String)> {
    let current = repo.get(&User::key(id)).await.unwrap().unwrap();
    let mut names = vec![(current.envelope().ver, current.name().to_owned())];
    for copy in repo.revisions(&User::key(id)).await.unwrap() {
        names.push((copy.envelope().ver, copy.name().to_owned()));
    }
    names
}

/// The revisions in conflict under each key of the store.
async fn conflicted_keys(store: &CouchDb) -> Vec<String> {
    let mut conflicted = Vec::new();
    for key in keys_under(&store, "").await {
        if let Some(stored) = store.get(&key).await.unwrap()
            && !stored.conflicts.is_empty()
        {
            conflicted.push(key);
        }
    }
    conflicted
}

#[tokio::test]
async fn a_document_changed_on_both_sides_is_reported_and_merged_without_losing_a_version() {
    let servers = Replicated::start().await;
    let (a, b) = (&servers.a, &servers.b);
    let key = User::key(1);

    // Created on one side and copied to the other.
    users(a, "alice", 1_000)
        .insert(User {
            id: 1,
            name: "Ada".into(),
            email: "ada@example.com".into(),
        })
        .await
        .unwrap();
    servers.replicate_a_to_b().await;
    assert_eq!(
        users(b, "bob", 0).get(&key).await.unwrap().unwrap().name(),
        "Ada"
    );

    // Changed twice on each side while the two do not replicate: each side has versions 2 and 3 of its own,
    // and its own copies of 1 and 2. Side B moves the lookup.
    rename(
        &users(a, "alice", 2_000),
        "Ada Lovelace",
        Some("ada@lovelace.org"),
    )
    .await;
    rename(&users(a, "alice", 3_000), "Ada, Countess of Lovelace", None).await;
    rename(&users(b, "bob", 2_500), "Ada King", Some("ada@king.org")).await;
    rename(&users(b, "bob", 3_500), "Augusta Ada King", None).await;

    servers.replicate_continuously().await;
    for (side, store) in [("a", a), ("b", b)] {
        eventually(&format!("side {side} to see the conflict"), || async {
            users(store, "x", 0)
                .get(&key)
                .await
                .unwrap()
                .is_some_and(|doc| doc.has_conflicts())
        })
        .await;
    }

    // Both sides report the same winner and its one conflicting revision: nothing is hidden.
    let on_a = users(a, "x", 0).get(&key).await.unwrap().unwrap();
    let on_b = users(b, "x", 0).get(&key).await.unwrap().unwrap();
    assert_eq!(on_a.conflicts().len(), 1);
    assert_eq!(on_a.cas(), on_b.cas());
    assert_eq!(on_a.conflicts(), on_b.conflicts());
    assert_eq!(on_a.envelope().ver, 3);
    // The copy of version 2 is in conflict too (different JSON on each side).
    assert!(
        conflicted_keys(a)
            .await
            .contains(&"user::1::v::2".to_owned())
    );

    // Merged on side A: both candidates are at version 3, and B's was modified last. The merge is a save
    // from the revision the store ranks first: that one is kept as the copy of 3, and the other versions
    // displaced (the other side's 3, the version 2 that lost its key) go above it.
    let winner_picked = on_a.name() == "Augusta Ada King";
    let merged = users(a, "carol", 9_000)
        .resolve(&key, &Resolve::highest_version())
        .await
        .unwrap();
    assert!(!merged.has_conflicts());
    assert_eq!(merged.name(), "Augusta Ada King");
    assert_eq!(merged.email(), "ada@king.org");
    let top = if winner_picked { 6 } else { 5 };
    assert_eq!(merged.envelope().ver, top);
    assert_eq!(
        merged.envelope().modified,
        Some(Timestamp::from_millis(9_000_000))
    );
    assert_eq!(merged.envelope().modified_by.as_deref(), Some("carol"));
    assert_eq!(
        merged.envelope().created,
        Some(Timestamp::from_millis(1_000_000))
    );

    // The merge reaches side B through the continuous replication.
    eventually("side b to see the merge", || async {
        users(b, "x", 0)
            .get(&key)
            .await
            .unwrap()
            .is_some_and(|doc| doc.envelope().ver == top && !doc.has_conflicts())
    })
    .await;
    eventually("both sides to hold no conflict anywhere", || async {
        conflicted_keys(a).await.is_empty() && conflicted_keys(b).await.is_empty()
    })
    .await;

    // Every committed version is kept, on both sides, in the same order, at every version up to the merge.
    let on_a = history(&users(a, "x", 0)).await;
    assert_eq!(on_a, history(&users(b, "x", 0)).await);
    let versions: Vec<u64> = on_a.iter().map(|(ver, _)| *ver).collect();
    assert_eq!(versions, (1..=top).rev().collect::<Vec<_>>());
    assert_eq!(on_a[0].1, "Augusta Ada King");
    assert_eq!(on_a[top as usize - 1].1, "Ada");
    let kept: BTreeSet<&str> = on_a.iter().map(|(_, name)| name.as_str()).collect();
    assert_eq!(
        kept,
        [
            "Ada",
            "Ada Lovelace",
            "Ada, Countess of Lovelace",
            "Ada King",
            "Augusta Ada King"
        ]
        .into()
    );

    // Lookups: the value kept names the document on both sides; the one only side A held is released.
    for store in [a, b] {
        let repo = users(store, "x", 0);
        eventually("the released lookup to be gone on both sides", || async {
            store
                .get("email::ada@lovelace.org")
                .await
                .unwrap()
                .is_none()
        })
        .await;
        let found = repo.get_by_lookup("email::ada@king.org").await.unwrap();
        assert_eq!(found.map(|doc| doc.envelope().ver), Some(top));
        assert!(
            repo.get_by_lookup("email::ada@example.com")
                .await
                .unwrap()
                .is_none()
        );
    }

    // A merged document is an ordinary one again: a save on side B reaches A without a conflict.
    rename(&users(b, "bob", 10_000), "Ada", None).await;
    eventually("side a to see the save after the merge", || async {
        users(a, "x", 0)
            .get(&key)
            .await
            .unwrap()
            .is_some_and(|doc: Doc<User>| doc.envelope().ver == top + 1 && !doc.has_conflicts())
    })
    .await;
}

/// The names each side gives user `id` in [`conflict_on_both_sides`]: the first, A's two, B's two.
fn names(id: u64) -> [String; 5] {
    ["Ada", "A2", "A3", "B2", "B3"].map(|name| format!("{name} {id}"))
}

/// Users `ids`, inserted on side A and copied to B, then saved twice on each side (A at 2 000 and 3 000 s,
/// B at 2 500 and 3 500 s, B moving the lookup) before the two replicate continuously, until A sees every
/// conflict.
async fn conflict_on_both_sides(servers: &Replicated, ids: &[u64]) {
    let (a, b) = (&servers.a, &servers.b);
    for id in ids {
        users(a, "alice", 1_000)
            .insert(User {
                id: *id,
                name: names(*id)[0].clone(),
                email: format!("{id}@example.com"),
            })
            .await
            .unwrap();
    }
    servers.replicate_a_to_b().await;
    for id in ids {
        let [_, a2, a3, b2, b3] = names(*id);
        rename_user(&users(a, "alice", 2_000), *id, &a2, None).await;
        rename_user(&users(a, "alice", 3_000), *id, &a3, None).await;
        let moved = format!("{id}@b.example.com");
        rename_user(&users(b, "bob", 2_500), *id, &b2, Some(&moved)).await;
        rename_user(&users(b, "bob", 3_500), *id, &b3, None).await;
    }
    servers.replicate_continuously().await;
    eventually("side a to see every conflict", || async {
        let repo = users(a, "x", 0);
        for id in ids {
            let doc = repo.get(&User::key(*id)).await.unwrap().unwrap();
            if !doc.has_conflicts() {
                return false;
            }
        }
        true
    })
    .await;
}

/// The keys under user `id` (the document and its copies) whose value is in conflict.
async fn conflicts_of(store: &CouchDb, id: u64) -> Vec<String> {
    conflicts_in(store, &format!("user::{id}")).await
}

/// The keys of the document under `key` and its copies whose value is in conflict.
async fn conflicts_in(store: &CouchDb, key: &str) -> Vec<String> {
    conflicted_keys(store)
        .await
        .into_iter()
        .filter(|found| found == key || found.starts_with(&format!("{key}::")))
        .collect()
}

#[tokio::test]
async fn a_merge_that_fails_at_any_step_loses_nothing_and_completes_when_tried_again() {
    let servers = Replicated::start().await;
    let ids: Vec<u64> = (1..=24).collect();
    conflict_on_both_sides(&servers, &ids).await;
    let failing = FailingStore::new(servers.a.clone());
    let repo = Repo::<User>::new(&failing)
        .clock(|| Timestamp::from_millis(9_000_000))
        .retry(RetryPolicy::default().with_attempts(1));
    let mut steps = None;
    for id in ids {
        let key = User::key(id);
        failing.fail_at(usize::try_from(id).unwrap());
        let failed = repo.resolve(&key, &Resolve::highest_version()).await;
        let ran = failing.count();
        failing.fail_at(0);
        match failed {
            Err(err) => assert!(
                err.to_string().contains("injected failure"),
                "step {id}: {err}"
            ),
            // A failure after the commit, in tidying up, is not the caller's: what it leaves is merged again.
            Ok(_) if ran >= usize::try_from(id).unwrap() => {}
            // Past the last step: the merge ran whole.
            Ok(_) => {
                steps.get_or_insert(ran);
            }
        }
        // Whatever the failure left, a merge tried again completes, and every committed version is kept.
        let merged = repo
            .resolve(&key, &Resolve::highest_version())
            .await
            .unwrap();
        assert!(!merged.has_conflicts(), "step {id}");
        assert_eq!(merged.name(), names(id)[4], "step {id}");
        assert_eq!(
            conflicts_of(&servers.a, id).await,
            Vec::<String>::new(),
            "step {id}"
        );
        let kept: BTreeSet<String> = history_of(&repo, id)
            .await
            .into_iter()
            .map(|(_, name)| name)
            .collect();
        assert_eq!(kept, names(id).into_iter().collect(), "step {id}");
        // The value side B moved to is held, and found.
        let found = repo
            .get_by_lookup(&format!("email::{id}@b.example.com"))
            .await
            .unwrap();
        assert_eq!(found.map(|doc| doc.id()), Some(id), "step {id}");
    }
    let steps = steps.expect("a merge of these conflicts takes fewer than 24 store operations");
    assert!(steps > 10, "a merge took {steps} store operations");
    eprintln!("a merge of this two-sided conflict took {steps} store operations");
}

#[tokio::test]
async fn policies_pick_by_version_by_time_or_by_the_models_rule_and_a_removal_takes_every_revision()
{
    let servers = Replicated::start().await;
    conflict_on_both_sides(&servers, &[1, 2, 3, 4]).await;
    let repo = users(&servers.a, "carol", 9_000);

    // B's last save (3 500 s) is later than A's (3 000 s); both are at version 3.
    let latest = repo
        .resolve(&User::key(1), &Resolve::latest_modified())
        .await
        .unwrap();
    assert_eq!(latest.name(), "B3 1");

    // The model's own rule, over typed candidates: here, the one that kept the first email.
    let policy = Resolve::with(|candidates: &[Doc<User>]| {
        candidates
            .iter()
            .find(|doc| doc.email().ends_with("@example.com"))
            .unwrap_or(&candidates[0])
    });
    let picked = repo.resolve(&User::key(2), &policy).await.unwrap();
    assert_eq!((picked.name(), picked.email()), ("A3 2", "2@example.com"));
    // The value B moved to is released, and A's is held again.
    assert!(
        servers
            .a
            .get("email::2@b.example.com")
            .await
            .unwrap()
            .is_none()
    );
    let found = repo.get_by_lookup("email::2@example.com").await.unwrap();
    assert_eq!(
        found.map(|doc| doc.name().to_owned()).as_deref(),
        Some("A3 2")
    );
    let kept: BTreeSet<String> = history_of(&repo, 2)
        .await
        .into_iter()
        .map(|(_, name)| name)
        .collect();
    assert_eq!(kept, names(2).into_iter().collect());

    // A save writes over the winner and leaves the conflict; it is still reported.
    let mut doc = repo.get(&User::key(3)).await.unwrap().unwrap();
    doc.set_name("saved over the winner");
    repo.save(&mut doc).await.unwrap();
    assert!(doc.has_conflicts());
    let read = repo.get(&User::key(3)).await.unwrap().unwrap();
    assert_eq!(read.conflicts(), doc.conflicts());
    assert_eq!(read.name(), "saved over the winner");

    // Removing a conflicted document removes the revisions in conflict too: none comes back in its place.
    repo.remove(&User::key(4)).await.unwrap();
    assert!(repo.get(&User::key(4)).await.unwrap().is_none());
    assert!(servers.a.get("user::4").await.unwrap().is_none());
    // With the lookups of both revisions.
    for lookup in ["email::4@example.com", "email::4@b.example.com"] {
        assert!(servers.a.get(lookup).await.unwrap().is_none(), "{lookup}");
    }
}

/// A model that keeps one revision copy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "note", schema = "1.0", key = "note::{id}", revisions = 1)]
#[docmodel(envelope(layout = "plain"))]
struct Note {
    id: u64,
    text: String,
}

#[tokio::test]
async fn a_merge_keeps_the_versions_the_models_window_holds_as_a_save_does() {
    let servers = Replicated::start().await;
    let notes = |store: &CouchDb| Repo::<Note>::new(store.clone());
    for id in [1, 2] {
        notes(&servers.a)
            .insert(Note {
                id,
                text: "first".into(),
            })
            .await
            .unwrap();
    }
    servers.replicate_a_to_b().await;
    for (store, text) in [(&servers.a, "on a"), (&servers.b, "on b")] {
        for id in [1, 2] {
            notes(store)
                .update(&Note::key(id), |note| note.text = text.into())
                .await
                .unwrap();
        }
    }
    servers.replicate_continuously().await;
    eventually("side a to see both conflicts", || async {
        let mut both = true;
        for id in [1, 2] {
            both &= notes(&servers.a)
                .get(&Note::key(id))
                .await
                .unwrap()
                .is_some_and(|note| note.has_conflicts());
        }
        both
    })
    .await;

    // Keeping the revision read: the other version 2 becomes the copy of 3, the one copy the model keeps;
    // the revision read is the document (its copy at 2 would fall below the window, so it is not written).
    let key = Note::key(1);
    let before = notes(&servers.a).get(&key).await.unwrap().unwrap();
    let keep_read = Resolve::with(|candidates: &[Doc<Note>]| &candidates[0]);
    let merged = notes(&servers.a).resolve(&key, &keep_read).await.unwrap();
    assert_eq!((merged.envelope().ver, &merged.text), (4, &before.text));
    let copies = notes(&servers.a).revisions(&key).await.unwrap();
    let kept: Vec<(u64, &str)> = copies
        .iter()
        .map(|copy| (copy.envelope().ver, copy.text.as_str()))
        .collect();
    let other = if before.text == "on a" {
        "on b"
    } else {
        "on a"
    };
    assert_eq!(kept, [(3, other)]);
    assert!(servers.a.get("note::1::v::2").await.unwrap().is_none());
    assert!(conflicts_in(&servers.a, "note::1").await.is_empty());

    // Keeping the other: the revision read is the copy of its own version, 2.
    let key = Note::key(2);
    let before = notes(&servers.a).get(&key).await.unwrap().unwrap();
    let keep_other = Resolve::with(|candidates: &[Doc<Note>]| &candidates[1]);
    let merged = notes(&servers.a).resolve(&key, &keep_other).await.unwrap();
    assert_eq!(merged.envelope().ver, 3);
    assert_ne!(merged.text, before.text);
    let copy = notes(&servers.a).revision(&key, 2).await.unwrap().unwrap();
    assert_eq!(copy.text, before.text);
    assert!(conflicts_in(&servers.a, "note::2").await.is_empty());
}

#[tokio::test]
async fn a_removal_that_meets_a_save_of_the_other_revision_leaves_that_document_whole() {
    let servers = Replicated::start().await;
    conflict_on_both_sides(&servers, &[5]).await;
    let paused = Arc::new(PauseStore::new(servers.a.clone()));
    let key = User::key(5);
    // The removal's first `remove` is the revision read; hold its second, of the other revision.
    let first = paused.pause(Operation::Remove, key.as_str());
    let second = paused.pause(Operation::Remove, key.as_str());
    let removal = tokio::spawn({
        let paused = Arc::clone(&paused);
        async move { Repo::<User>::new(paused).remove(&User::key(5)).await }
    });
    first.reached.notified().await;
    first.release.notify_one();
    second.reached.notified().await;
    // The other revision is the document now: another writer saves it.
    let repo = users(&servers.a, "dave", 5_000);
    let saved = repo
        .update(&key, |user| user.set_name("saved meanwhile"))
        .await
        .unwrap();
    second.release.notify_one();
    let err = removal.await.unwrap().unwrap_err();
    assert!(
        matches!(&err, Error::Conflict { key } if key == "user::5"),
        "{err:?}"
    );

    // That document stands whole: its content, its lookup, its copies.
    let doc = repo.get(&key).await.unwrap().unwrap();
    assert_eq!((doc.name(), doc.cas()), ("saved meanwhile", saved.cas()));
    let found = repo
        .get_by_lookup(&format!("email::{}", doc.email()))
        .await
        .unwrap();
    assert_eq!(
        found.map(|found| found.name().to_owned()).as_deref(),
        Some("saved meanwhile")
    );
    let copies = repo.revisions(&key).await.unwrap();
    assert_eq!(copies.len() as u64, doc.envelope().ver - 1);
}

/// A unique value taken once on each side: each server refuses a third holder, as it should, but after
/// replicating both ways both documents hold it and the lookup is in conflict. Where it is read it names
/// both; `reindex` reports it; `settle_lookup` picks one, and after replicating again one document holds the
/// lookup on both sides while the other is named as having lost it, unchanged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_unique_value_taken_on_both_sides_is_reported_and_settled() {
    let servers = Replicated::start().await;
    let (a, b) = (users(&servers.a, "a", 1_000), users(&servers.b, "b", 2_000));
    let user = |id: u64, name: &str, email: &str| User {
        id,
        name: name.into(),
        email: email.into(),
    };
    a.insert(user(1, "Ada", "ada@example.com")).await.unwrap();
    b.insert(user(2, "Ada B", "ada@example.com")).await.unwrap();
    for (side, repo) in [("a", &a), ("b", &b)] {
        let err = repo
            .insert(user(3, "Ada C", "ada@example.com"))
            .await
            .unwrap_err();
        assert!(
            matches!(&err, Error::AlreadyExists { key } if key == "email::ada@example.com"),
            "{side}: {err}"
        );
    }
    servers.replicate_a_to_b().await;
    servers.replicate_b_to_a().await;

    for (side, repo) in [("a", &a), ("b", &b)] {
        let err = repo
            .get_by_lookup("email::ada@example.com")
            .await
            .unwrap_err();
        assert!(
            matches!(&err, Error::DuplicateValue { lookup, keys }
                if lookup == "email::ada@example.com" && keys == &["user::1", "user::2"]),
            "{side}: {err:?}"
        );
        assert_eq!(
            err.to_string(),
            "the lookup `email::ada@example.com` names more than one document holding its value (written on \
             servers that replicate each other): `user::1`, `user::2`; settle it with `Repo::settle_lookup`"
        );
    }
    let report = a.reindex().await.unwrap();
    assert_eq!(report.duplicates.len(), 1);
    assert_eq!(report.duplicates[0].keys, ["user::1", "user::2"]);

    // Settled on a, by the application's rule: the first registered (the lower id) keeps the address.
    let first = Resolve::<User>::with(|candidates: &[Doc<User>]| {
        candidates.iter().min_by_key(|doc| doc.id()).unwrap()
    });
    let settled = a
        .settle_lookup("email::ada@example.com", &first)
        .await
        .unwrap();
    assert_eq!(settled.kept.id(), 1);
    assert_eq!(
        settled.lost.iter().map(|doc| doc.id()).collect::<Vec<_>>(),
        [2]
    );
    servers.replicate_a_to_b().await;
    servers.replicate_b_to_a().await;
    for (side, repo, store) in [("a", &a, &servers.a), ("b", &b, &servers.b)] {
        let found = repo.get_by_lookup("email::ada@example.com").await.unwrap();
        assert_eq!(found.map(|doc| doc.id()), Some(1), "{side}");
        let lookup = store.get("email::ada@example.com").await.unwrap().unwrap();
        assert!(lookup.conflicts.is_empty(), "{side}: the lookup is settled");
        // The one that lost is as it was, value included.
        let lost = repo.get(&User::key(2)).await.unwrap().unwrap();
        assert_eq!(lost.email(), "ada@example.com", "{side}");
        assert_eq!(lost.envelope().ver, 1, "{side}");
    }
}

/// A memo without lookups: what two replicas edit apart, field by field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "memo", schema = "1.0", key = "memo::{id}", revisions = 10)]
#[docmodel(envelope(layout = "plain"))]
struct Memo {
    id: u64,
    title: String,
    text: String,
}

fn memos(store: &CouchDb, actor: &str, seconds: i64) -> Repo<Memo, CouchDb> {
    Repo::<Memo>::new(store.clone())
        .actor(actor)
        .clock(move || Timestamp::from_millis(seconds * 1000))
        .retry(RetryPolicy::default().with_attempts(1))
}

/// The first case: each side saves twice apart, then the documents replicate without their
/// revision copies (a filter), so each side holds its own copies of versions 1 and 2 only. A merge then
/// would take one side's version 2 for both; it is refused, on each side, until the copies arrive.
#[tokio::test]
async fn a_merge_waits_for_the_copies_that_show_the_base_on_both_sides() {
    let servers = Replicated::start().await;
    let (a, b) = (&servers.a, &servers.b);
    let key = Memo::key(1);
    memos(a, "alice", 1_000)
        .insert(Memo {
            id: 1,
            title: "Draft".into(),
            text: "Hello".into(),
        })
        .await
        .unwrap();
    servers.replicate_a_to_b().await;
    for (seconds, title) in [(2_000, "Plan"), (3_000, "The plan")] {
        memos(a, "alice", seconds)
            .update(&key, |memo| memo.title = title.into())
            .await
            .unwrap();
    }
    for (seconds, text) in [(2_500, "Hello, world"), (3_500, "Hello, world!")] {
        memos(b, "bob", seconds)
            .update(&key, |memo| memo.text = text.into())
            .await
            .unwrap();
    }
    let documents_only = "doc._id.indexOf('::v::') < 0";
    servers.replicate_where(true, documents_only).await;
    servers.replicate_where(false, documents_only).await;

    for (side, store) in [("a", a), ("b", b)] {
        let repo = memos(store, "merger", 4_000);
        assert!(
            repo.get(&key).await.unwrap().unwrap().has_conflicts(),
            "side {side}"
        );
        let before = keys_under(store, "memo::").await;
        let err = repo.resolve(&key, &Resolve::merge()).await.unwrap_err();
        assert!(
            matches!(&err, Error::MergeHistoryMissing { versions, missing, .. }
                if versions == &[3, 3] && missing == &[2]),
            "side {side}: {err:?}"
        );
        // Nothing written: the same keys, still in conflict.
        assert_eq!(keys_under(store, "memo::").await, before, "side {side}");
        assert!(repo.get(&key).await.unwrap().unwrap().has_conflicts());
    }

    // The copies replicate: a merge on either side now has the base both sides show, version 1.
    servers.replicate_a_to_b().await;
    servers.replicate_b_to_a().await;
    let merged = memos(a, "merger", 4_000)
        .resolve(&key, &Resolve::merge())
        .await
        .unwrap();
    assert_eq!(
        (
            merged.title.as_str(),
            merged.text.as_str(),
            merged.has_conflicts()
        ),
        ("The plan", "Hello, world!", false)
    );
    servers.replicate_a_to_b().await;
    let on_b = memos(b, "x", 0).get(&key).await.unwrap().unwrap();
    assert_eq!(
        (
            on_b.title.as_str(),
            on_b.text.as_str(),
            on_b.has_conflicts()
        ),
        ("The plan", "Hello, world!", false)
    );
}
