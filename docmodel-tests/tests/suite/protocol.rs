//! The repository's protocol where docmodel meets other models, earlier lives of a key and stored values it
//! did not write: a repository writes over or removes only what it has read as its own, a conflicting save
//! changes nothing, and no stored value panics.

use docmodel_tests::redb_path;

use docmodel::store::{Capabilities, DynStore, MemoryStore, Redb, Store};
use docmodel::{DocModel, Error, ErrorClass, Repo, StoreErrorKind, Timestamp};
use docmodel_tests::{CountingStore, Forgetting, Hooked, Hooks, Operation, PauseStore, keys, text};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}", revisions = 3)]
struct User {
    #[docmodel(get)]
    id: u64,
    #[docmodel(get, set)]
    name: String,
}

/// Another model whose keys fall under `User`'s revision-copy prefix `user::{id}::v::`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "stamp", schema = "1.0", key = "user::{id}::v::{n}")]
struct Stamp {
    id: u64,
    n: u64,
}

/// A model keyed like `User`, by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "profile", schema = "1.0", key = "user::{name}", revisions = 3)]
struct Profile {
    #[docmodel(get)]
    name: String,
    #[docmodel(get, set)]
    bio: String,
}

/// A model whose key `Sub::key("x", "v", 1)` is `Profile` x's copy key `user::x::v::1`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "sub", schema = "1.0", key = "user::{a}::{b}::{n}")]
struct Sub {
    a: String,
    b: String,
    n: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "customer",
    schema = "1.0",
    key = "customer::{name}",
    revisions = 3
)]
#[docmodel(lookup = "cref::{no}")]
struct Customer {
    #[docmodel(get)]
    name: String,
    #[docmodel(get, set, allow(reserved_word))]
    no: u64,
}

/// A model whose timestamps are seconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "event", schema = "1.0", key = "event::{id}")]
#[docmodel(envelope(timestamps = "epoch_s"))]
struct Event {
    id: u64,
}

/// The same document with the plain layout, which a store reserving `_` fields can hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}", revisions = 3)]
#[docmodel(envelope(layout = "plain"))]
struct PlainUser {
    id: u64,
    name: String,
}

fn user(id: u64, name: &str) -> User {
    User {
        id,
        name: name.into(),
    }
}

fn names(docs: &[docmodel::Doc<User>]) -> Vec<(u64, String)> {
    docs.iter()
        .map(|doc| (doc.envelope().ver, doc.name().to_owned()))
        .collect()
}

/// Hooks saying the store reserves top-level fields beginning with `_`, as CouchDB does.
struct Reserving;

impl<S> Hooks<S> for Reserving {
    fn capabilities(&self, _: &S) -> Capabilities {
        Capabilities::MINIMAL.with_reserved_underscore_fields(true)
    }
}

// ---- Another model's documents under the copy prefix ------------------------------------------------

async fn another_models_document_under_the_copy_prefix_is_left_alone<S: Store>(store: S) {
    let users = Repo::<User>::new(&store);
    let stamps = Repo::<Stamp>::new(&store);
    stamps.insert(Stamp { id: 1, n: 7 }).await.unwrap();
    let stamp = text(&store, "user::1::v::7").await.unwrap();

    users.insert(user(1, "Joe")).await.unwrap();
    for name in ["Joey", "Joseph"] {
        users
            .update(&User::key(1), |u| u.set_name(name))
            .await
            .unwrap();
    }
    assert_eq!(
        names(&users.revisions(&User::key(1)).await.unwrap()),
        [(2, "Joey".to_owned()), (1, "Joe".to_owned())],
        "the stamp is not listed as a revision"
    );
    assert!(users.revision(&User::key(1), 7).await.unwrap().is_none());

    users.remove(&User::key(1)).await.unwrap();
    assert_eq!(keys(&store).await, ["user::1::v::7"]);
    assert_eq!(text(&store, "user::1::v::7").await, Some(stamp));
    assert_eq!(
        users.sweep(&User::key(1)).await.unwrap(),
        0,
        "a sweep leaves it too"
    );
    assert!(stamps.get(&Stamp::key(1, 7)).await.unwrap().is_some());
}

/// A revision copy is recognised by the envelope fields it begins with, as docmodel writes it. One that begins
/// as a copy but is not one by its whole envelope (the rest gives `_ver` again, or is not JSON) is left out of
/// the listing, as it was when every copy was recognised by its whole envelope; a copy of this document whose
/// body does not read is an error naming its key.
#[tokio::test]
async fn a_copy_that_begins_as_one_but_is_not_one_whole_is_left_out() {
    let store = MemoryStore::new();
    let users = Repo::<User>::new(&store);
    users.insert(user(1, "Joe")).await.unwrap();
    for name in ["Joey", "Joseph"] {
        users
            .update(&User::key(1), |u| u.set_name(name))
            .await
            .unwrap();
    }
    let copy = text(&store, "user::1::v::1").await.unwrap();
    assert!(copy.starts_with(r#"{"_copyOf":"user::1","_type":"user","_schema":"1.0","_ver":1,"#));
    let put = |bytes: String| {
        let store = &store;
        async move {
            let stored = store.get("user::1::v::1").await.unwrap().unwrap();
            store
                .replace("user::1::v::1", bytes.as_bytes(), &stored.cas)
                .await
                .unwrap();
        }
    };

    let again = format!(r#"{},"_ver":2}}"#, copy.strip_suffix('}').unwrap());
    let cut = copy[..copy.len() - 3].to_owned();
    for not_a_copy in [again, cut] {
        put(not_a_copy.clone()).await;
        assert_eq!(
            names(&users.revisions(&User::key(1)).await.unwrap()),
            [(2, "Joey".to_owned())],
            "{not_a_copy}"
        );
        assert!(users.revision(&User::key(1), 1).await.unwrap().is_none());
    }

    put(copy.replace(r#""name":"Joe""#, r#""name":7"#)).await;
    let err = users.revisions(&User::key(1)).await.unwrap_err();
    assert!(matches!(err, Error::Codec { .. }), "{err:?}");
    assert!(err.to_string().contains("`user::1`"), "{err}");
    let err = users.revision(&User::key(1), 1).await.unwrap_err();
    assert!(matches!(err, Error::Codec { .. }), "{err:?}");
}

#[tokio::test]
async fn another_models_document_under_the_copy_prefix_is_left_alone_in_memory() {
    another_models_document_under_the_copy_prefix_is_left_alone(MemoryStore::new()).await;
}

#[tokio::test]
async fn another_models_document_under_the_copy_prefix_is_left_alone_in_redb() {
    let path = redb_path("prefix");
    another_models_document_under_the_copy_prefix_is_left_alone(Redb::open(&path).unwrap()).await;
}

// ---- A conflicting save changes nothing ---------------------------------------------------------------

async fn a_stale_doc_of_an_earlier_life_changes_nothing<S: Store>(store: S) {
    let users = Repo::<User>::new(&store).clock(|| Timestamp::from_millis(1_000));
    let mut stale = users.insert(user(123, "Joe")).await.unwrap();
    users.remove(&User::key(123)).await.unwrap();
    let users = Repo::<User>::new(&store).clock(|| Timestamp::from_millis(2_000));
    users.insert(user(123, "Ann")).await.unwrap();
    users
        .update(&User::key(123), |u| u.set_name("Annie"))
        .await
        .unwrap();
    let before = (
        text(&store, "user::123").await,
        text(&store, "user::123::v::1").await,
    );

    stale.set_name("Joseph");
    let err = users.save(&mut stale).await.unwrap_err();
    assert!(
        matches!(&err, Error::Conflict { key } if key == "user::123"),
        "{err:?}"
    );
    assert_eq!(
        (
            text(&store, "user::123").await,
            text(&store, "user::123::v::1").await
        ),
        before,
        "the new life's document and its copy of version 1 are untouched"
    );
    assert_eq!(keys(&store).await, ["user::123", "user::123::v::1"]);
    assert_eq!(
        names(&users.revisions(&User::key(123)).await.unwrap()),
        [(1, "Ann".to_owned())]
    );
}

#[tokio::test]
async fn a_stale_doc_of_an_earlier_life_changes_nothing_in_memory() {
    a_stale_doc_of_an_earlier_life_changes_nothing(MemoryStore::new()).await;
}

#[tokio::test]
async fn a_stale_doc_of_an_earlier_life_changes_nothing_in_redb() {
    let path = redb_path("stale");
    a_stale_doc_of_an_earlier_life_changes_nothing(Redb::open(&path).unwrap()).await;
}

#[tokio::test]
async fn a_stale_save_against_a_new_life_at_version_1_leaves_its_copy_to_the_new_life() {
    // A save in one batch, and the same in steps.
    stale_save_against_a_new_life(MemoryStore::new()).await;
    stale_save_against_a_new_life(CountingStore::new(MemoryStore::new())).await;
}

async fn stale_save_against_a_new_life<S: Store>(store: S) {
    let users = Repo::<User>::new(&store).clock(|| Timestamp::from_millis(1_000));
    let mut stale = users.insert(user(123, "Joe")).await.unwrap();
    users.remove(&User::key(123)).await.unwrap();
    let users = Repo::<User>::new(&store).clock(|| Timestamp::from_millis(2_000));
    users.insert(user(123, "Ann")).await.unwrap();

    // In one batch, the stale save's refused replace refuses its copy of version 1 (Joe) with it. In steps,
    // it copies version 1 before its replace is refused; the copy is of no life the current document keeps,
    // so it is removed again.
    stale.set_name("Joseph");
    let err = users.save(&mut stale).await.unwrap_err();
    assert!(matches!(err, Error::Conflict { .. }), "{err:?}");
    assert_eq!(keys(&store).await, ["user::123"]);

    // A copy an earlier life left behind (a crash between its copy and its replace) is replaced by the new
    // life's save: the current document proves it is not its own.
    store
        .insert(
            "user::123::v::1",
            br#"{"_type":"user","_schema":"1.0","_ver":1,"_created":1000,"_modified":1000,"id":123,"name":"Joe"}"#,
        )
        .await
        .unwrap();
    users
        .update(&User::key(123), |u| u.set_name("Annie"))
        .await
        .unwrap();
    assert_eq!(
        names(&users.revisions(&User::key(123)).await.unwrap()),
        [(1, "Ann".to_owned())]
    );
}

// ---- Keys of different models that meet -------------------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn a_dropped_remove_called_again_removes_the_copies_it_left() {
    let store: &'static PauseStore<MemoryStore> =
        Box::leak(Box::new(PauseStore::new(MemoryStore::new())));
    let users = Repo::<User>::new(store);
    // Another model's document under the copy prefix.
    Repo::<Stamp>::new(store)
        .insert(Stamp { id: 1, n: 9 })
        .await
        .unwrap();
    users.insert(user(1, "Joe")).await.unwrap();
    users
        .update(&User::key(1), |u| u.set_name("Joey"))
        .await
        .unwrap();
    users
        .update(&User::key(1), |u| u.set_name("Joseph"))
        .await
        .unwrap();
    assert_eq!(
        keys(store).await,
        ["user::1", "user::1::v::1", "user::1::v::2", "user::1::v::9"]
    );

    // The removal is dropped once the document is gone, as it reads the copies to remove.
    let pause = store.pause(Operation::GetMany, "user::1::v::3");
    let removal = tokio::spawn(async move { Repo::<User>::new(store).remove(&User::key(1)).await });
    pause.reached.notified().await;
    removal.abort();
    assert!(removal.await.unwrap_err().is_cancelled());
    assert_eq!(
        keys(store).await,
        ["user::1::v::1", "user::1::v::2", "user::1::v::9"],
        "the document is gone, its copies are left"
    );

    // Called again, it finds no document: it says so, and removes what the first call left.
    let err = users.remove(&User::key(1)).await.unwrap_err();
    assert!(
        matches!(&err, Error::NotFound { key } if key == "user::1"),
        "{err:?}"
    );
    assert_eq!(
        keys(store).await,
        ["user::1::v::9"],
        "the copies are gone, the stamp stays"
    );
}

#[tokio::test]
async fn a_save_never_replaces_another_models_document_at_its_copy_key() {
    let store = MemoryStore::new();
    let subs = Repo::<Sub>::new(&store);
    let profiles = Repo::<Profile>::new(&store);
    subs.insert(Sub {
        a: "x".into(),
        b: "v".into(),
        n: 1,
    })
    .await
    .unwrap();
    assert_eq!(Sub::key("x", "v", 1u64).unwrap().as_str(), "user::x::v::1");
    let sub = text(&store, "user::x::v::1").await;
    let mut doc = profiles
        .insert(Profile {
            name: "x".into(),
            bio: "first".into(),
        })
        .await
        .unwrap();
    let profile = text(&store, "user::x").await;

    doc.set_bio("second");
    let err = profiles.save(&mut doc).await.unwrap_err();
    assert!(
        matches!(
            &err,
            Error::WrongType { key: Some(key), expected: "profile", found: Some(found), .. }
                if key == "user::x::v::1" && found == "sub"
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        r#"document `user::x::v::1`: expected `_type` to be "profile", found "sub""#
    );
    assert_eq!(text(&store, "user::x::v::1").await, sub);
    assert_eq!(text(&store, "user::x").await, profile, "nothing was saved");
    assert_eq!(keys(&store).await, ["user::x", "user::x::v::1"]);
}

#[tokio::test]
async fn a_remove_refuses_another_models_document() {
    let store = MemoryStore::new();
    Repo::<Profile>::new(&store)
        .insert(Profile {
            name: "5".into(),
            bio: "mine".into(),
        })
        .await
        .unwrap();
    Repo::<Profile>::new(&store)
        .update(&Profile::key("5").unwrap(), |p| p.set_bio("still mine"))
        .await
        .unwrap();
    let before = keys(&store).await;

    let err = Repo::<User>::new(&store)
        .remove(&User::key(5))
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            Error::WrongType { key: Some(key), expected: "user", found: Some(found), .. }
                if key == "user::5" && found == "profile"
        ),
        "{err:?}"
    );
    assert_eq!(keys(&store).await, before);
    assert_eq!(before, ["user::5", "user::5::v::1"]);
}

// ---- No stored value panics -------------------------------------------------------------------------

const LAST: &str = r#"{"_type":"user","_schema":"1.0","_ver":18446744073709551615,"_created":1000,"_modified":1000,"id":1,"name":"Joe"}"#;

#[tokio::test]
async fn a_version_that_cannot_advance_is_an_error_not_a_panic() {
    let store = MemoryStore::new();
    store.insert("user::1", LAST.as_bytes()).await.unwrap();
    store
        .insert(
            "user::1::v::18446744073709551614",
            br#"{"_type":"user","_schema":"1.0","_ver":18446744073709551614,"_created":1000,"_modified":1000,"id":1,"name":"Jo"}"#,
        )
        .await
        .unwrap();
    let users = Repo::<User>::new(&store);

    let err = users
        .update(&User::key(1), |u| u.set_name("Joey"))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::VersionLimit { key, ver: u64::MAX } if key == "user::1"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "document `user::1` is at version 18446744073709551615, the last one `_ver` can count; nothing was written"
    );
    assert_eq!(text(&store, "user::1").await.as_deref(), Some(LAST));

    assert_eq!(
        names(&users.revisions(&User::key(1)).await.unwrap()),
        [(u64::MAX - 1, "Jo".to_owned())]
    );
    assert!(
        users
            .revision(&User::key(1), u64::MAX)
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(users.sweep(&User::key(1)).await.unwrap(), 0);
}

#[tokio::test]
async fn copy_keys_at_the_edge_of_u64_do_not_panic() {
    let store = MemoryStore::new();
    let users = Repo::<User>::new(&store);
    users.insert(user(1, "Joe")).await.unwrap();
    for key in [
        "user::1::v::18446744073709551615",
        "user::1::v::18446744073709551616",
        "user::1::v::0",
    ] {
        store.insert(key, LAST.as_bytes()).await.unwrap();
    }
    assert!(users.revisions(&User::key(1)).await.unwrap().is_empty());
    assert!(
        users
            .revision(&User::key(1), u64::MAX)
            .await
            .unwrap()
            .is_none()
    );
    // Each copy key holds a version this document never reached: none is this life's, and none is
    // recognised as a copy by its content either (its `_ver` is not the number in its key but one).
    let swept = users.sweep(&User::key(1)).await.unwrap();
    assert_eq!(
        swept, 1,
        "only `::v::18446744073709551615` holds its own `_ver`"
    );
    assert_eq!(
        keys(&store).await,
        [
            "user::1",
            "user::1::v::0",
            "user::1::v::18446744073709551616"
        ]
    );
}

#[tokio::test]
async fn an_epoch_value_out_of_the_formats_range_names_the_field() {
    let store = MemoryStore::new();
    // Written while the model's timestamps were milliseconds.
    store
        .insert(
            "event::1",
            br#"{"_type":"event","_schema":"1.0","_ver":1,"_created":1544759124478,"_modified":1544759124,"id":1}"#,
        )
        .await
        .unwrap();
    let err = Repo::<Event>::new(&store)
        .get(&Event::key(1))
        .await
        .unwrap_err();
    assert_eq!(err.class(), ErrorClass::Permanent);
    assert!(
        matches!(&err, Error::Codec { key: Some(key), .. } if key == "event::1"),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains("`_created` = 1544759124478 is out of range for `epoch_s`"),
        "{message}"
    );
}

// ---- Undo that fails --------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn a_lost_lookup_whose_undo_fails_is_reported_as_ambiguous() {
    let store: &'static PauseStore<MemoryStore> =
        Box::leak(Box::new(PauseStore::new(MemoryStore::new())));
    let customers = Repo::<Customer>::new(store);
    let customer = |name: &str, no| Customer {
        name: name.into(),
        no,
    };
    customers.insert(customer("a", 1)).await.unwrap();
    customers.insert(customer("b", 3)).await.unwrap();
    let a = Customer::key("a").unwrap();
    let b = Customer::key("b").unwrap();

    // A moves a to 2: it claims cref::2 and is held before it writes a.
    let writing = store.pause(Operation::Replace, "customer::a");
    let moving = tokio::spawn(async move {
        Repo::<Customer>::new(store)
            .update(&a, |c| c.set_no(2u64))
            .await
            .map(|_| ())
    });
    writing.reached.notified().await;
    // B takes cref::2 over (a does not hold 2 yet) and wins.
    customers.update(&b, |c| c.set_no(2u64)).await.unwrap();
    // A writes a, and is held before it confirms its claim; C changes a meanwhile, so A cannot undo.
    let confirming = store.pause(Operation::Replace, "cref::2");
    writing.release.notify_one();
    confirming.reached.notified().await;
    customers
        .update(&Customer::key("a").unwrap(), |c| c.set_no(5u64))
        .await
        .unwrap();
    confirming.release.notify_one();

    let err = moving.await.unwrap().unwrap_err();
    assert!(
        matches!(
            &err,
            Error::Store { key: Some(key), kind: StoreErrorKind::Ambiguous, .. } if key == "customer::a"
        ),
        "{err:?}"
    );
    assert_eq!(err.class(), ErrorClass::Ambiguous);
    assert!(
        err.to_string()
            .contains("another document took the lookup `cref::2` meanwhile"),
        "{err}"
    );
    // The truth, as the error said: C's write stands, and the lookups name what holds them.
    assert_eq!(
        text(&store.inner, "cref::2").await.as_deref(),
        Some(r#"{"ref":"customer::b"}"#)
    );
    assert_eq!(
        customers
            .get_by_lookup("cref::5")
            .await
            .unwrap()
            .unwrap()
            .name(),
        "a"
    );
    assert_eq!(
        customers
            .get_by_lookup("cref::2")
            .await
            .unwrap()
            .unwrap()
            .name(),
        "b"
    );
}

// ---- Stores chosen at run time and what they can hold -----------------------------------------------

#[tokio::test]
async fn a_store_chosen_at_run_time_keeps_the_history() {
    let store = if std::env::var_os("DOCMODEL_TEST_NEVER_SET").is_some() {
        DynStore::new(Redb::open(redb_path("never")).unwrap())
    } else {
        DynStore::new(MemoryStore::new())
    };
    let users = Repo::<User>::new(store.clone());
    users.insert(user(123, "Joe")).await.unwrap();
    for name in ["Joey", "Joseph", "Jo", "J"] {
        users
            .update(&User::key(123), |u| u.set_name(name))
            .await
            .unwrap();
    }
    assert_eq!(
        names(&users.revisions(&User::key(123)).await.unwrap()),
        [
            (4, "Jo".to_owned()),
            (3, "Joseph".to_owned()),
            (2, "Joey".to_owned())
        ]
    );
    assert!(store.capabilities().scan);
    assert_eq!(
        keys(&store).await,
        [
            "user::123",
            "user::123::v::2",
            "user::123::v::3",
            "user::123::v::4"
        ]
    );
    users.restore(&User::key(123), 2).await.unwrap();
    assert_eq!(
        users.get(&User::key(123)).await.unwrap().unwrap().name(),
        "Joey"
    );
}

#[tokio::test]
async fn a_store_that_reserves_underscore_fields_refuses_the_flat_layout() {
    // Only what the trait requires: the trait's defaults do the rest, and cannot scan, batch or query.
    let store = Forgetting::passing(Hooked::with(MemoryStore::new(), Reserving), |_| false);
    let err = Repo::<User>::new(&store)
        .insert(user(1, "Joe"))
        .await
        .unwrap_err();
    assert_eq!(err.class(), ErrorClass::Permanent);
    let message = err.to_string();
    assert!(
        message.contains("model `user` writes the top-level field `_type`, and this store refuses"),
        "{message}"
    );
    assert!(message.contains(r#"layout = "plain""#), "{message}");
    assert!(message.contains(r#"layout = "meta""#), "{message}");
    assert!(store.inner.inner.is_empty(), "nothing written");

    let plain = Repo::<PlainUser>::new(&store).clock(|| Timestamp::from_millis(1_000));
    plain
        .insert(PlainUser {
            id: 1,
            name: "Joe".into(),
        })
        .await
        .unwrap();
    assert_eq!(
        text(&store.inner, "user::1").await.as_deref(),
        Some(
            r#"{"type":"user","schema":"1.0","ver":1,"created":1000,"modified":1000,"id":1,"name":"Joe"}"#
        )
    );
}

// ---- Seeing overlaps before they happen -------------------------------------------------------------

#[test]
fn the_keyspace_check_names_every_pair_of_patterns_that_meet() {
    use docmodel::keyspace::{self, Role};

    assert_eq!(keyspace::check(&[keyspace::of::<Customer>()]), Ok(()));

    let overlaps = keyspace::check(&[
        keyspace::of::<User>(),
        keyspace::of::<Stamp>(),
        keyspace::of::<Customer>(),
        keyspace::of::<Profile>(),
        keyspace::of::<Sub>(),
    ])
    .unwrap_err();
    let pairs: Vec<_> = overlaps
        .0
        .iter()
        .map(|overlap| {
            (
                (overlap.first.model(), overlap.first.role()),
                (overlap.second.model(), overlap.second.role()),
                overlap.example.as_str(),
            )
        })
        .collect();
    assert_eq!(
        pairs,
        [
            (("user", Role::Key), ("profile", Role::Key), "user::0"),
            (
                ("user", Role::RevisionCopy),
                ("stamp", Role::Key),
                "user::0::v::0"
            ),
            (
                ("user", Role::RevisionCopy),
                ("profile", Role::RevisionCopy),
                "user::0::v::0"
            ),
            (
                ("user", Role::RevisionCopy),
                ("sub", Role::Key),
                "user::0::v::0"
            ),
            (
                ("stamp", Role::Key),
                ("profile", Role::RevisionCopy),
                "user::0::v::0"
            ),
            (("stamp", Role::Key), ("sub", Role::Key), "user::0::v::0"),
            (
                ("profile", Role::RevisionCopy),
                ("sub", Role::Key),
                "user::0::v::0"
            ),
        ]
    );
    assert!(overlaps.to_string().starts_with(
        "7 pairs of key patterns can produce the same key:\n  \
         the key of `user` (user::{id}) and the key of `profile` (user::{name}) both produce `user::0`\n"
    ));
}

/// Orders kept under their customer's number, the counter of a model typed `orders` beside them: `count:orders`
/// is not a key of `{customer_id}:orders` with an integer part, and is one with a text part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "orders", schema = "1.0", key = "{customer_id}:orders")]
struct CustomerOrders {
    customer_id: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "orders", schema = "1.0", key = "{customer}:orders")]
struct NamedOrders {
    customer: String,
}

/// A model with an index: a repository keeps its entries as documents on MemoryStore and Redb.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "order",
    schema = "1.0",
    key = "order::{id}",
    index = "customer_no"
)]
struct Order {
    id: u64,
    customer_no: u64,
}

/// A model whose keys look like index entries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "audit", schema = "1.0", key = "index::{a}::{b}::{c}::{d}")]
struct Audit {
    a: String,
    b: String,
    c: String,
    d: String,
}

#[test]
fn an_integer_part_meets_only_keys_of_digits() {
    use docmodel::keyspace::{self, Role};

    assert_eq!(keyspace::check(&[keyspace::of::<CustomerOrders>()]), Ok(()));
    let overlaps = keyspace::check(&[keyspace::of::<NamedOrders>()]).unwrap_err();
    assert_eq!(overlaps.0.len(), 1, "{overlaps}");
    assert_eq!(
        (overlaps.0[0].first.role(), overlaps.0[0].second.role()),
        (Role::Key, Role::Counter)
    );
    assert_eq!(overlaps.0[0].example, "count:orders");
    // An integer part still meets a text part where a key of digits fits both; of the two models' counters
    // (both typed `orders`), only the text part's key meets them.
    let overlaps = keyspace::check(&[
        keyspace::of::<CustomerOrders>(),
        keyspace::of::<NamedOrders>(),
    ])
    .unwrap_err();
    let pairs: Vec<_> = overlaps
        .0
        .iter()
        .map(|overlap| {
            (
                overlap.first.as_str(),
                overlap.first.role(),
                overlap.second.as_str(),
                overlap.second.role(),
                overlap.example.as_str(),
            )
        })
        .collect();
    assert_eq!(
        pairs,
        [
            (
                "{customer_id}:orders",
                Role::Key,
                "{customer}:orders",
                Role::Key,
                "0:orders"
            ),
            (
                "count:orders",
                Role::Counter,
                "{customer}:orders",
                Role::Key,
                "count:orders"
            ),
            (
                "count:orders",
                Role::Counter,
                "count:orders",
                Role::Counter,
                "count:orders"
            ),
            (
                "{customer}:orders",
                Role::Key,
                "count:orders",
                Role::Counter,
                "count:orders"
            ),
        ]
    );
}

#[test]
fn the_keyspace_check_sees_index_entries() {
    use docmodel::keyspace::{self, Role};

    let patterns = keyspace::of::<Order>();
    let shapes: Vec<(Role, &str)> = patterns
        .iter()
        .map(|pattern| (pattern.role(), pattern.as_str()))
        .collect();
    assert_eq!(
        shapes,
        [
            (Role::Key, "order::{id}"),
            (Role::Counter, "count::order"),
            (Role::IndexMarker, "index::order::customer_no"),
            (
                Role::IndexEntry,
                "index::order::customer_no::{values}order::{id}"
            ),
            (Role::IndexMarker, "index::order::@schema"),
            (
                Role::IndexEntry,
                "index::order::@schema::{values}order::{id}"
            ),
        ]
    );
    assert_eq!(keyspace::check(std::slice::from_ref(&patterns)), Ok(()));

    let overlaps = keyspace::check(&[patterns, keyspace::of::<Audit>()]).unwrap_err();
    let pairs: Vec<_> = overlaps
        .0
        .iter()
        .map(|overlap| {
            (
                overlap.first.role(),
                overlap.second.role(),
                overlap.example.as_str(),
            )
        })
        .collect();
    assert_eq!(
        pairs,
        [
            (
                Role::IndexEntry,
                Role::Key,
                "index::order::customer_no::0order::0"
            ),
            (
                Role::IndexEntry,
                Role::Key,
                "index::order::@schema::0order::0"
            ),
        ]
    );
    assert!(
        overlaps.to_string().contains(
            "the index entries of `order` (index::order::customer_no::{values}order::{id}) and the key of \
             `audit` (index::{a}::{b}::{c}::{d})"
        ),
        "{overlaps}"
    );
}
