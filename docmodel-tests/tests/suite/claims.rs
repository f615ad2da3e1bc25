//! Lookup claims and failed writes, as new users meet them: a claim never takes what is not a lookup, a
//! write that fails leaves nothing behind, a retried request keeps what the first one did, and a restore
//! brings a version back whole.

use docmodel::store::{MemoryStore, Store};
use docmodel::{DocModel, Error, Repo};
use docmodel_tests::{Operation, PauseStore, contents, keys_under, text};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "subscriber", schema = "1.0", key = "email::{address}")]
struct Subscriber {
    address: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "login",
    schema = "1.0",
    key = "login::{id}",
    lookup = "email::{email}"
)]
struct Login {
    id: u64,
    #[docmodel(get, set)]
    email: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "member", schema = "1.0", key = "member::{name}", revisions = 3)]
#[docmodel(lookup = "mref::{no}")]
struct Member {
    #[docmodel(get)]
    name: String,
    #[docmodel(get, set)]
    #[docmodel(allow(reserved_word))]
    no: u64,
}

fn member(name: &str, no: u64) -> Member {
    Member {
        name: name.into(),
        no,
    }
}

fn key(name: &str) -> docmodel::Key<Member> {
    Member::key(name).unwrap()
}

/// A store the spawned writer and the test share for the whole test.
fn shared() -> &'static PauseStore<MemoryStore> {
    Box::leak(Box::new(PauseStore::new(MemoryStore::new())))
}

/// Who holds lookup `no`, as a reader sees it, and every member document holding it.
async fn holders<S: Store>(store: &S, no: u64) -> (Option<String>, Vec<String>) {
    let members = Repo::<Member>::new(store);
    let by_lookup = members
        .get_by_lookup(&format!("mref::{no}"))
        .await
        .unwrap()
        .map(|doc| doc.name().to_owned());
    let mut holding = Vec::new();
    for key in keys_under(&store, "member::").await {
        if let Ok(parsed) = docmodel::Key::<Member>::parse(&key)
            && let Some(doc) = members.get(&parsed).await.unwrap()
            && doc.no() == no
        {
            holding.push(doc.name().to_owned());
        }
    }
    (by_lookup, holding)
}

#[tokio::test]
async fn a_claim_never_takes_a_document_that_is_not_a_lookup() {
    let store = MemoryStore::new();
    let subscribers = Repo::<Subscriber>::new(&store);
    let logins = Repo::<Login>::new(&store);
    for address in ["joe@acme.com", "ann@acme.com"] {
        subscribers
            .insert(Subscriber {
                address: address.into(),
            })
            .await
            .unwrap();
    }
    let joe = text(&store, "email::joe@acme.com").await;
    let ann = text(&store, "email::ann@acme.com").await;

    let err = logins
        .insert(Login {
            id: 1,
            email: "joe@acme.com".into(),
        })
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::AlreadyExists { key } if key == "email::joe@acme.com"),
        "{err:?}"
    );

    logins
        .insert(Login {
            id: 2,
            email: "bob@acme.com".into(),
        })
        .await
        .unwrap();
    let err = logins
        .update(&Login::key(2), |l| l.set_email("ann@acme.com"))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::AlreadyExists { key } if key == "email::ann@acme.com"),
        "{err:?}"
    );

    assert_eq!(text(&store, "email::joe@acme.com").await, joe);
    assert_eq!(text(&store, "email::ann@acme.com").await, ann);
    assert_eq!(
        store.keys(),
        [
            "email::ann@acme.com",
            "email::bob@acme.com",
            "email::joe@acme.com",
            "login::2"
        ]
    );
    assert_eq!(
        logins.get(&Login::key(2)).await.unwrap().unwrap().email(),
        "bob@acme.com"
    );
}

#[tokio::test]
async fn a_stale_save_of_a_committed_move_keeps_the_winners_lookup() {
    let store = MemoryStore::new();
    let members = Repo::<Member>::new(&store);
    members.insert(member("max", 1)).await.unwrap();
    let mut first = members.get(&key("max")).await.unwrap().unwrap();
    let mut second = members.get(&key("max")).await.unwrap().unwrap();
    first.set_no(2u64);
    second.set_no(2u64);
    members.save(&mut first).await.unwrap();
    let before = contents(&store).await;

    let err = members.save(&mut second).await.unwrap_err();
    assert!(
        matches!(&err, Error::Conflict { key } if key == "member::max"),
        "{err:?}"
    );
    // Not even the lookup the winner wrote is written again (same bytes, a new token).
    assert_eq!(contents(&store).await, before);
    assert_eq!(
        text(&store, "mref::2").await.as_deref(),
        Some(r#"{"ref":"member::max"}"#)
    );
    assert_eq!(
        holders(&store, 2).await,
        (Some("max".into()), vec!["max".into()])
    );
    let err = members.insert(member("eve", 2)).await.unwrap_err();
    assert!(
        matches!(&err, Error::AlreadyExists { key } if key == "mref::2"),
        "{err:?}"
    );
}

/// A model whose index entries a repository keeps as documents on MemoryStore.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "badge", schema = "1.0", key = "badge::{id}", index = "rank")]
struct Badge {
    id: u64,
    rank: u64,
}

#[tokio::test]
async fn a_stale_save_of_a_committed_index_move_changes_nothing() {
    let store = MemoryStore::new();
    let badges = Repo::<Badge>::new(&store);
    badges.insert(Badge { id: 1, rank: 1 }).await.unwrap();
    let mut first = badges.get(&Badge::key(1)).await.unwrap().unwrap();
    let mut second = badges.get(&Badge::key(1)).await.unwrap().unwrap();
    first.rank = 2;
    second.rank = 2;
    badges.save(&mut first).await.unwrap();
    let before = contents(&store).await;
    assert!(
        before
            .iter()
            .any(|(key, text, _)| key.starts_with("index::badge::rank::")
                && text == r#"{"ref":"badge::1"}"#),
        "{before:?}"
    );

    let err = badges.save(&mut second).await.unwrap_err();
    assert!(
        matches!(&err, Error::Conflict { key } if key == "badge::1"),
        "{err:?}"
    );
    assert_eq!(contents(&store).await, before);
}

#[tokio::test(flavor = "multi_thread")]
async fn two_updates_to_the_same_value_keep_its_lookup() {
    let store = shared();
    let members = Repo::<Member>::new(store);
    members.insert(member("max", 1)).await.unwrap();
    // The first has claimed mref::42 and is held before it writes; the second makes the same change.
    let pause = store.pause(Operation::Replace, "member::max");
    let first = tokio::spawn(async move {
        Repo::<Member>::new(store)
            .update(&key("max"), |m| m.set_no(42u64))
            .await
            .map(|doc| doc.envelope().ver)
    });
    pause.reached.notified().await;
    let second = members
        .update(&key("max"), |m| m.set_no(42u64))
        .await
        .unwrap();
    pause.release.notify_one();
    // The first retries from the second's version, where nothing moves.
    assert_eq!(first.await.unwrap().unwrap(), 3);
    assert_eq!(second.envelope().ver, 2);
    assert_eq!(
        holders(store, 42).await,
        (Some("max".into()), vec!["max".into()])
    );
    assert_eq!(text(&store.inner, "mref::1").await, None);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_update_that_claims_after_the_winner_leaves_its_lookup() {
    let store = shared();
    let members = Repo::<Member>::new(store);
    members.insert(member("max", 1)).await.unwrap();
    // The first has read max at version 1 and is held before it claims mref::42; the second makes the
    // same change, start to end. Then the first claims a lookup that already names max, fails to write
    // (max is at version 2), and retries from version 2, where nothing moves.
    let pause = store.pause(Operation::Insert, "mref::42");
    let first = tokio::spawn(async move {
        Repo::<Member>::new(store)
            .update(&key("max"), |m| m.set_no(42u64))
            .await
            .map(|doc| doc.envelope().ver)
    });
    pause.reached.notified().await;
    let second = members
        .update(&key("max"), |m| m.set_no(42u64))
        .await
        .unwrap();
    pause.release.notify_one();
    assert_eq!(second.envelope().ver, 2);
    assert_eq!(first.await.unwrap().unwrap(), 3);
    assert_eq!(
        holders(store, 42).await,
        (Some("max".into()), vec!["max".into()]),
        "the lookup the second wrote is still there"
    );
    let err = members.insert(member("eve", 42)).await.unwrap_err();
    assert!(
        matches!(&err, Error::AlreadyExists { key } if key == "mref::42"),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_repeated_insert_keeps_the_first_ones_lookup() {
    let store = MemoryStore::new();
    let members = Repo::<Member>::new(&store);
    members.insert(member("max", 5)).await.unwrap();
    let err = members.insert(member("max", 5)).await.unwrap_err();
    assert!(
        matches!(&err, Error::AlreadyExists { key } if key == "member::max"),
        "{err:?}"
    );
    assert_eq!(
        holders(&store, 5).await,
        (Some("max".into()), vec!["max".into()])
    );
    let err = members.insert(member("eve", 5)).await.unwrap_err();
    assert!(
        matches!(&err, Error::AlreadyExists { key } if key == "mref::5"),
        "{err:?}"
    );
    assert_eq!(store.keys(), ["member::max", "mref::5"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn two_documents_moving_to_one_value_never_both_hold_it() {
    let store = shared();
    let members = Repo::<Member>::new(store);
    members.insert(member("a", 1)).await.unwrap();
    members.insert(member("b", 3)).await.unwrap();
    // A (moving a to 2) has claimed mref::2 and is held before it writes a.
    let writing_a = store.pause(Operation::Replace, "member::a");
    let moving_a = tokio::spawn(async move {
        Repo::<Member>::new(store)
            .update(&key("a"), |m| m.set_no(2u64))
            .await
            .map(|_| ())
    });
    writing_a.reached.notified().await;
    // B (moving b to 2) has checked the claim, found that a does not hold 2, and is held before it takes the
    // lookup over.
    let taking_over = store.pause(Operation::Replace, "mref::2");
    let moving_b = tokio::spawn(async move {
        Repo::<Member>::new(store)
            .update(&key("b"), |m| m.set_no(2u64))
            .await
            .map(|_| ())
    });
    taking_over.reached.notified().await;
    // A writes a and finishes; then B's takeover runs, on what it checked before A wrote.
    writing_a.release.notify_one();
    let moved_a = moving_a.await.unwrap();
    taking_over.release.notify_one();
    let moved_b = moving_b.await.unwrap();

    assert!(moved_a.is_ok(), "{moved_a:?}");
    assert!(
        matches!(&moved_b, Err(Error::AlreadyExists { key }) if key == "mref::2"),
        "{moved_b:?}"
    );
    assert_eq!(
        holders(store, 2).await,
        (Some("a".into()), vec!["a".into()])
    );
    assert_eq!(
        holders(store, 3).await,
        (Some("b".into()), vec!["b".into()])
    );
    assert_eq!(
        members
            .get(&key("b"))
            .await
            .unwrap()
            .unwrap()
            .envelope()
            .ver,
        1,
        "b was not written"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_takeover_that_wins_before_the_write_undoes_the_losers_write() {
    let store = shared();
    let members = Repo::<Member>::new(store);
    members.insert(member("a", 1)).await.unwrap();
    members.insert(member("b", 3)).await.unwrap();
    // A has claimed mref::2 and is held before it writes a; B takes the claim over (a does not hold 2 yet)
    // and writes b.
    let pause = store.pause(Operation::Replace, "member::a");
    let moving_a = tokio::spawn(async move {
        Repo::<Member>::new(store)
            .update(&key("a"), |m| m.set_no(2u64))
            .await
            .map(|_| ())
    });
    pause.reached.notified().await;
    let moved_b = members.update(&key("b"), |m| m.set_no(2u64)).await;
    pause.release.notify_one();
    let moved_a = moving_a.await.unwrap();

    assert!(moved_b.is_ok(), "{moved_b:?}");
    assert!(
        matches!(&moved_a, Err(Error::AlreadyExists { key }) if key == "mref::2"),
        "{moved_a:?}"
    );
    assert_eq!(
        holders(store, 2).await,
        (Some("b".into()), vec!["b".into()])
    );
    assert_eq!(
        holders(store, 1).await,
        (Some("a".into()), vec!["a".into()])
    );
    assert_eq!(
        members
            .get(&key("a"))
            .await
            .unwrap()
            .unwrap()
            .envelope()
            .ver,
        1,
        "a's version 1 is back"
    );
}

#[tokio::test]
async fn a_save_that_fails_its_checks_writes_no_copy() {
    let store = MemoryStore::new();
    let members = Repo::<Member>::new(&store);
    let mut stale = members.insert(member("max", 1)).await.unwrap();
    members.remove(&key("max")).await.unwrap();
    stale.set_no(2u64);
    let err = members.save(&mut stale).await.unwrap_err();
    assert!(
        matches!(&err, Error::NotFound { key } if key == "member::max"),
        "{err:?}"
    );
    assert_eq!(store.keys(), Vec::<String>::new(), "no copy, no lookup");

    members.insert(member("ann", 1)).await.unwrap();
    let err = members
        .update(&key("ann"), |m| m.name = "eve".into())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidKey { key, reason, .. }
            if key == "member::ann" && reason.contains("`member::eve`")),
        "{err:?}"
    );
    assert_eq!(store.keys(), ["member::ann", "mref::1"], "no copy");
}

#[tokio::test]
async fn a_restore_brings_a_version_back_as_it_was_stored() {
    let store = MemoryStore::new();
    // Version 1 was written by schema 1.1, which knows a `nick`; version 2 by this code (1.0).
    store
        .insert(
            "member::max::v::1",
            br#"{"_type":"member","_schema":"1.1","_ver":1,"_created":1000,"_modified":1000,"name":"max","no":1,"nick":"M"}"#,
        )
        .await
        .unwrap();
    store
        .insert(
            "member::max",
            br#"{"_type":"member","_schema":"1.0","_ver":2,"_created":1000,"_modified":2000,"name":"max","no":1}"#,
        )
        .await
        .unwrap();
    store
        .insert("mref::1", br#"{"ref":"member::max"}"#)
        .await
        .unwrap();
    let members = Repo::<Member>::new(&store).clock(|| docmodel::Timestamp::from_millis(3000));

    let restored = members.restore(&key("max"), 1).await.unwrap();
    assert_eq!(restored.envelope().ver, 3);
    assert_eq!(
        text(&store, "member::max").await.as_deref(),
        Some(
            r#"{"_type":"member","_schema":"1.1","_ver":3,"_created":1000,"_modified":3000,"name":"max","no":1,"nick":"M"}"#
        )
    );
    let saved = text(&store, "member::max").await.unwrap();
    assert_eq!(
        text(&store, "member::max::v::2").await,
        Some(format!(
            r#"{{"_copyOf":"member::max","_type":"member","_schema":"1.0","_ver":2,"_created":1000,"_modified":2000,"name":"max","no":1,"_copyNext":["{}"]}}"#,
            docmodel::__private::version_digest(saved.as_bytes())
        )),
        "the version replaced, marked as a copy of the document and recording the restore saved from it"
    );
}
