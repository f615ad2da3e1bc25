//! `Repo::migrate_all`: the seeds' User 1.0 -> 2.0 -> 3.0 evolution applied to a whole store: what it writes,
//! what it leaves alone, failures, dry runs, stopping and resuming, a concurrent writer, and a store that
//! cannot list keys.

use docmodel::store::{Capabilities, MemoryStore, Redb, Store, Write};
use docmodel::{DocModel, Error, Repo, SchemaVersion};
use docmodel_tests::seeds::{Phone, phone_to_phones, split_name};
use docmodel_tests::{
    Call, CountingStore, Forgetting, Hooked, Hooks, Op, Operation, clock, keys_under, text,
};
use serde::{Deserialize, Serialize};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}", revisions = 3)]
#[docmodel(migrate_from("1.0" = split_name, "2.0" = phone_to_phones))]
struct User {
    #[docmodel(get)]
    user_id: u64,
    #[docmodel(get)]
    first_name: String,
    #[docmodel(get)]
    last_name: String,
    #[docmodel(get)]
    phones: Vec<Phone>,
}

/// Another model whose keys are keys of `User` too.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "badge", schema = "1.0", key = "user::{number}")]
struct Badge {
    #[docmodel(allow(reserved_word))]
    number: u64,
}

const V1: &str =
    r#"{"_type":"user","_schema":"1.0","userId":1,"name":"Joe Smith","phone":"1234567890"}"#;
const V2: &str = r#"{"_type":"user","_schema":"2.0","userId":2,"firstName":"Ann","lastName":"Lee","phone":"1112223333"}"#;
const V3: &str = r#"{"_type":"user","_schema":"3.0","_ver":4,"userId":3,"firstName":"Bo","lastName":"Ek","phones":[]}"#;
const BROKEN: &str =
    r#"{"_type":"user","_schema":"1.0","userId":4,"fullName":"No Name","phone":"0"}"#;
/// A revision copy at an old schema, an old user under a key that is not a `User` key (`user_id` is a
/// number), and another model's document: never touched.
const LEFT_ALONE: [(&str, &str); 3] = [
    (
        "user::3::v::3",
        r#"{"_type":"user","_schema":"2.0","_ver":3,"userId":3,"firstName":"Bo","lastName":"Ek","phone":"5"}"#,
    ),
    (
        "user::ann",
        r#"{"_type":"user","_schema":"1.0","userId":5,"name":"Ann Lee","phone":"7"}"#,
    ),
    (
        "user::77",
        r#"{"_type":"badge","_schema":"1.0","number":77}"#,
    ),
];

async fn seeded<S: Store>(store: &S, with_broken: bool) {
    for (key, bytes) in [("user::1", V1), ("user::2", V2), ("user::3", V3)] {
        store.insert(key, bytes.as_bytes()).await.unwrap();
    }
    if with_broken {
        store.insert("user::4", BROKEN.as_bytes()).await.unwrap();
    }
    for (key, bytes) in LEFT_ALONE {
        store.insert(key, bytes.as_bytes()).await.unwrap();
    }
}

async fn all_text<S: Store>(store: &S) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for key in keys_under(&store, "").await {
        let value = text(store, &key).await.unwrap();
        found.push((key, value));
    }
    found
}

#[tokio::test]
async fn every_older_document_is_written_at_the_current_schema_and_nothing_else_is_touched() {
    let store = Redb::in_memory().unwrap();
    seeded(&store, true).await;
    let users = Repo::<User>::new(&store).clock(clock);

    let mut seen = Vec::new();
    let report = users
        .migrate_all()
        .batch(2)
        .progress(|report| {
            seen.push((
                report.total,
                report.visited,
                report.migrated,
                report.cursor.clone(),
            ));
        })
        .await
        .unwrap();

    assert_eq!(
        text(&store, "user::1").await.unwrap(),
        r#"{"_type":"user","_schema":"3.0","_ver":2,"_modified":1544759124478,"userId":1,"firstName":"Joe","lastName":"Smith","phones":[{"type":"other","number":"1234567890"}]}"#
    );
    assert_eq!(
        text(&store, "user::2").await.unwrap(),
        r#"{"_type":"user","_schema":"3.0","_ver":2,"_modified":1544759124478,"userId":2,"firstName":"Ann","lastName":"Lee","phones":[{"type":"other","number":"1112223333"}]}"#
    );
    assert_eq!(text(&store, "user::3").await.unwrap(), V3, "at 3.0 already");
    assert_eq!(
        text(&store, "user::4").await.unwrap(),
        BROKEN,
        "a document that cannot be migrated is left as it was"
    );
    assert_eq!(
        text(&store, "user::1::v::1").await.unwrap(),
        copy_of("user::1", V1, &text(&store, "user::1").await.unwrap()),
        "the version migrated from is kept as a revision copy, marked as the document's"
    );
    assert_eq!(
        text(&store, "user::2::v::1").await.unwrap(),
        copy_of("user::2", V2, &text(&store, "user::2").await.unwrap())
    );
    for (key, bytes) in LEFT_ALONE {
        assert_eq!(text(&store, key).await.unwrap(), bytes, "{key}");
    }

    assert_eq!(
        (report.visited, report.migrated, report.skipped),
        (5, 2, 2),
        "user::1..4 and the badge; the badge and user::3 skipped"
    );
    assert_eq!(
        report.from_versions.into_iter().collect::<Vec<_>>(),
        [
            (SchemaVersion::parse("1.0").unwrap(), 1),
            (SchemaVersion::parse("2.0").unwrap(), 1)
        ]
    );
    assert_eq!(report.failed.len(), 1);
    assert_eq!(report.failed[0].key, "user::4");
    assert!(
        matches!(&report.failed[0].error, Error::Migration { .. }),
        "{:?}",
        report.failed[0].error
    );
    assert_eq!(
        report.failed[0].error.to_string(),
        Repo::<User>::new(&store)
            .get(&User::key(4))
            .await
            .unwrap_err()
            .to_string(),
        "the reason is the one a read gives"
    );
    assert!(report.done);
    assert_eq!(report.cursor.as_deref(), Some("user::77"));
    assert_eq!(
        seen,
        [
            (5, 0, 0, None),
            (5, 2, 2, Some("user::2".to_owned())),
            (5, 4, 2, Some("user::4".to_owned())),
            (5, 5, 2, Some("user::77".to_owned())),
        ],
        "a report before the first batch, with the total, then after each batch of two keys (user::1, user::2 \
         | user::3, user::4 | user::77), in key order"
    );

    let before = all_text(&store).await;
    let again = users.migrate_all().await.unwrap();
    assert_eq!(all_text(&store).await, before);
    assert_eq!(
        (
            again.visited,
            again.migrated,
            again.skipped,
            again.failed.len()
        ),
        (5, 0, 4, 1),
        "a second run writes nothing"
    );
}

#[tokio::test]
async fn a_dry_run_reports_what_it_would_write_and_writes_nothing() {
    let store = MemoryStore::new();
    seeded(&store, true).await;
    let before = all_text(&store).await;
    let report = Repo::<User>::new(&store)
        .migrate_all()
        .dry_run(true)
        .await
        .unwrap();
    assert_eq!(all_text(&store).await, before);
    assert_eq!(
        report.to_string(),
        "visited 5, would migrate 2 (1 from 1.0, 1 from 2.0), skipped 2, failed 1"
    );
}

#[tokio::test]
async fn a_run_stopped_after_some_keys_resumes_after_its_cursor() {
    let store = MemoryStore::new();
    seeded(&store, false).await;
    let users = Repo::<User>::new(&store).clock(clock);

    let first = users.migrate_all().limit(1).await.unwrap();
    assert_eq!((first.visited, first.migrated, first.done), (1, 1, false));
    assert_eq!(first.cursor.as_deref(), Some("user::1"));
    assert_eq!(
        first.to_string(),
        "visited 1, migrated 1 (1 from 1.0), skipped 0, failed 0; stopped after `user::1`"
    );
    assert_eq!(
        text(&store, "user::2").await.unwrap(),
        V2,
        "not reached yet"
    );

    let rest = users
        .migrate_all()
        .resume_after(first.cursor.unwrap())
        .await
        .unwrap();
    assert_eq!(
        (rest.visited, rest.migrated, rest.skipped, rest.done),
        (3, 1, 2, true),
        "user::2, user::3 and the badge: user::1 is not read again"
    );
    assert!(
        text(&store, "user::2")
            .await
            .unwrap()
            .contains(r#""_schema":"3.0""#)
    );
}

/// Hooks playing another writer: before the first write of `user::2` (on its own or in a batch), it changes
/// that document in the store.
#[derive(Default)]
struct Interfering {
    done: AtomicBool,
}

impl Hooks<MemoryStore> for Interfering {
    async fn before(&self, inner: &MemoryStore, call: Call<'_>) -> Result<(), Error> {
        let replaces = match call {
            Call::Replace { key, .. } => key == "user::2",
            Call::WriteAtomic { writes, .. } => writes
                .iter()
                .any(|write| matches!(write, Write::Replace { key: "user::2", .. })),
            _ => false,
        };
        if replaces && !self.done.swap(true, Ordering::SeqCst) {
            let current = inner.get("user::2").await?.unwrap();
            let changed = V2.replace("1112223333", "9998887777");
            inner
                .replace("user::2", changed.as_bytes(), &current.cas)
                .await?;
        }
        Ok(())
    }
}

#[tokio::test]
async fn a_document_changed_meanwhile_is_read_again_and_never_written_over() {
    let store = Hooked::with(MemoryStore::new(), Interfering::default());
    seeded(&store.inner, false).await;
    let report = Repo::<User>::new(&store).migrate_all().await.unwrap();
    assert_eq!((report.migrated, report.failed.len()), (2, 0));
    let user = Repo::<User>::new(&store)
        .get(&User::key(2))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        user.phones()[0].number,
        "9998887777",
        "the other writer's change is migrated, not lost"
    );
}

/// Hooks saying the store cannot list keys, as Couchbase.
struct Unlisted;

impl Hooks<MemoryStore> for Unlisted {
    fn capabilities(&self, _: &MemoryStore) -> Capabilities {
        Capabilities::MINIMAL
    }
}

#[tokio::test]
async fn a_store_that_cannot_list_keys_migrates_the_keys_it_is_given() {
    // Only what the trait requires, and the batch read: the trait's defaults do the rest, and cannot scan,
    // batch writes or query.
    let store = Forgetting::passing(Hooked::with(MemoryStore::new(), Unlisted), |operation| {
        operation == Operation::GetMany
    });
    seeded(&store.inner, false).await;
    let users = Repo::<User>::new(&store);
    let err = users.migrate_all().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "document `user`: the store does not support this: migrating every `user` document needs a store \
         that can list keys (`Capabilities::scan`), and this one cannot: give the keys with \
         `migrate_all().keys(..)`"
    );
    let report = users
        .migrate_all()
        .keys([User::key(2), User::key(1), User::key(9)])
        .await
        .unwrap();
    assert_eq!(
        (report.visited, report.migrated, report.done),
        (2, 2, true),
        "user::9 holds nothing and is not counted"
    );
    assert_eq!(report.cursor.as_deref(), Some("user::9"));
}

/// The progress callback may keep what it is given.
#[tokio::test]
async fn progress_sees_the_failures_so_far() {
    let store = MemoryStore::new();
    seeded(&store, true).await;
    let failures = Mutex::new(Vec::new());
    Repo::<User>::new(&store)
        .migrate_all()
        .batch(1)
        .progress(|report| {
            failures.lock().unwrap().push(report.failed.len());
        })
        .await
        .unwrap();
    assert_eq!(failures.into_inner().unwrap(), [0, 0, 0, 0, 1, 1]);
}

/// On a store with atomic batches, the documents of a batch are written in one: each one's copy, replace
/// and prune, after one read of the copies to prune.
#[tokio::test]
async fn the_documents_of_a_batch_are_written_in_one_atomic_batch() {
    const V2_AT_4: &str = r#"{"_type":"user","_schema":"2.0","_ver":4,"userId":5,"firstName":"Cy","lastName":"Fox","phone":"9"}"#;
    const COPY_1: &str = r#"{"_type":"user","_schema":"2.0","_ver":1,"userId":5,"firstName":"Cy","lastName":"Fox","phone":"8"}"#;
    let store = CountingStore::atomic(MemoryStore::new());
    seeded(&store, false).await;
    store.insert("user::5", V2_AT_4.as_bytes()).await.unwrap();
    store
        .insert("user::5::v::1", COPY_1.as_bytes())
        .await
        .unwrap();
    store.take();
    let users = Repo::<User>::new(&store).clock(clock);

    let report = users.migrate_all().await.unwrap();

    assert_eq!(
        report.to_string(),
        "visited 5, migrated 3 (1 from 1.0, 2 from 2.0), skipped 2, failed 0"
    );
    assert_eq!(
        store.take(),
        [
            Op::Scan("user::".into()),
            Op::GetMany(
                ["user::1", "user::2", "user::3", "user::5", "user::77"]
                    .map(String::from)
                    .to_vec()
            ),
            Op::GetMany(vec!["user::5::v::1".into()]),
            Op::WriteAtomic(
                [
                    "user::1::v::1",
                    "user::1",
                    "user::2::v::1",
                    "user::2",
                    "user::5::v::4",
                    "user::5",
                    "user::5::v::1"
                ]
                .map(String::from)
                .to_vec()
            ),
        ]
    );
    assert_eq!(text(&store, "user::5::v::1").await, None, "pruned");
    assert_eq!(
        text(&store, "user::5::v::4").await.unwrap(),
        copy_of("user::5", V2_AT_4, &text(&store, "user::5").await.unwrap())
    );
    assert!(
        text(&store, "user::5")
            .await
            .unwrap()
            .starts_with(r#"{"_type":"user","_schema":"3.0","_ver":5,"#)
    );
    assert_eq!(users.migrate_all().await.unwrap().migrated, 0);
}

/// `document` as a revision copy of the document under `key` holds it, `saved` having been saved from it:
/// with `"_copyOf": key` first and `"_copyNext"`, the digest of `saved`, last.
fn copy_of(key: &str, document: &str, saved: &str) -> String {
    format!(
        r#"{{"_copyOf":"{key}",{},"_copyNext":["{}"]}}"#,
        &document[1..document.len() - 1],
        docmodel::__private::version_digest(saved.as_bytes())
    )
}

/// A note of the seeds' kind, keyed by text, for a store of more than one page of keys.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "note", schema = "2.0", key = "note::{name}", migrate_from("1.0" = titled))]
struct Note {
    name: String,
    title: String,
}

fn titled(doc: &mut docmodel::JsonObject) -> Result<(), docmodel::MigrationError> {
    doc.insert("title".into(), "untitled".into());
    Ok(())
}

/// The keys are listed a page at a time while the run goes on: a document written meanwhile into a page not
/// yet read is visited too, and never takes the place of one that was there when the run began (a run
/// counted before its first batch stops at the end of the listing, not after as many keys as it counted).
#[tokio::test]
async fn a_key_written_into_a_later_page_during_a_run_takes_no_other_keys_place() {
    let store = MemoryStore::new();
    let names: Vec<String> = (0..1_005).map(|n| format!("n{n:04}")).collect();
    let values: Vec<(String, String)> = names
        .iter()
        .map(|name| {
            let key = format!("note::{name}");
            (
                key,
                format!(r#"{{"_type":"note","_schema":"1.0","name":"{name}"}}"#),
            )
        })
        .collect();
    let refs: Vec<(&str, &[u8])> = values
        .iter()
        .map(|(key, value)| (key.as_str(), value.as_bytes()))
        .collect();
    assert!(
        store
            .insert_many(&refs, &docmodel::store::WriteOptions::DEFAULT)
            .await
            .iter()
            .all(Result::is_ok)
    );
    let notes = Repo::<Note>::new(&store);
    let written = AtomicBool::new(false);
    let report = notes
        .migrate_all()
        .batch(500)
        .progress(|report| {
            // After the first batch: a note whose key sorts into the second page of the listing (`n1000` is
            // its first key), which nobody has read yet.
            if report.visited > 0 && !written.swap(true, Ordering::SeqCst) {
                let late = br#"{"_type":"note","_schema":"1.0","name":"n1000a"}"#;
                pollster::block_on(store.insert("note::n1000a", late)).unwrap();
            }
        })
        .await
        .unwrap();
    assert_eq!(report.total, 1_005, "counted before the first batch");
    assert_eq!((report.visited, report.migrated), (1_006, 1_006));
    assert!(report.done);
    assert_eq!(
        report.cursor.as_deref(),
        Some("note::n1004"),
        "the last key, reached"
    );
    for key in ["note::n1004", "note::n1000a"] {
        let stored = store.get(key).await.unwrap().unwrap();
        let stored = String::from_utf8(stored.bytes.to_vec()).unwrap();
        assert!(stored.contains(r#""_schema":"2.0""#), "{key}: {stored}");
    }
}

/// The seeds' user with its email kept as a lookup, in the seeds' own form (`type`, `schema`, no `_ver`),
/// under its alias `member` too.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(
    type = "user",
    schema = "3.0",
    key = "user::{user_id}",
    lookup = "email::{email}"
)]
#[docmodel(migrate_from("1.0" = split_name, "2.0" = phone_to_phones), aliases("member"))]
#[docmodel(envelope(layout = "plain"))]
struct Emailed {
    user_id: u64,
    email: String,
    first_name: String,
    last_name: String,
    phones: Vec<Phone>,
}

/// A user of the seeds at 1.0, as the seeds print it: no `ver`, so no lookup of it can be assumed.
fn seed_user(id: u64, email: &str) -> String {
    format!(
        r#"{{"type":"user","schema":"1.0","userId":{id},"email":"{email}","name":"Joe Smith","phone":"1{id}"}}"#
    )
}

/// Documents docmodel did not write (no `ver`, or under an alias) claim their lookups as an insert does,
/// and are migrated as docmodel's own are: the lookups of a batch read in one request and written with the
/// documents in one atomic batch. One whose value another document of the batch takes is saved on its own,
/// and fails naming the lookup.
#[tokio::test]
async fn adopted_documents_claim_their_lookups_a_batch_at_a_time() {
    let store = CountingStore::atomic(MemoryStore::new());
    for id in 1..=3 {
        let user = seed_user(id, &format!("u{id}@example.com"));
        store
            .insert(&format!("user::{id}"), user.as_bytes())
            .await
            .unwrap();
    }
    let member = r#"{"type":"member","schema":"3.0","userId":4,"email":"u4@example.com","firstName":"Al","lastName":"Ray","phones":[]}"#;
    store.insert("user::4", member.as_bytes()).await.unwrap();
    // Its lookup there already, naming it (a reindex ran): held, written again with it.
    let user5 = seed_user(5, "u5@example.com");
    store.insert("user::5", user5.as_bytes()).await.unwrap();
    store
        .insert("email::u5@example.com", br#"{"ref":"user::5"}"#)
        .await
        .unwrap();
    // The same email as user::1.
    let user6 = seed_user(6, "u1@example.com");
    store.insert("user::6", user6.as_bytes()).await.unwrap();
    store.take();
    let users = Repo::<Emailed>::new(&store).clock(clock);

    let report = users.migrate_all().rewrite_adopted(true).await.unwrap();

    assert_eq!(
        report.to_string(),
        "visited 6, migrated 4 (4 from 1.0), rewrote 1 adopted (1 under an alias), skipped 0, failed 1"
    );
    assert_eq!(report.failed[0].key, "user::6");
    assert!(
        matches!(&report.failed[0].error, Error::AlreadyExists { key } if key == "email::u1@example.com"),
        "{:?}",
        report.failed[0].error
    );
    let emails = |ids: &[u64]| {
        ids.iter()
            .map(|id| format!("email::u{id}@example.com"))
            .collect::<Vec<_>>()
    };
    let mut batch = Vec::new();
    for id in 1..=5 {
        batch.push(format!("email::u{id}@example.com"));
        batch.push(format!("user::{id}"));
    }
    assert_eq!(
        store.take(),
        [
            Op::Scan("user::".into()),
            Op::GetMany((1..=6).map(|id| format!("user::{id}")).collect()),
            Op::GetMany([emails(&[1, 2, 3, 4, 5]), emails(&[1])].concat()),
            Op::WriteAtomic(batch),
            // user::6, on its own: its claim finds the lookup naming user::1, which holds the value.
            Op::Insert("email::u1@example.com".into()),
            Op::Get("email::u1@example.com".into()),
            Op::Get("user::1".into()),
        ]
    );
    for id in 1..=5 {
        let found = users
            .get_by_lookup(&format!("email::u{id}@example.com"))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(found.key().as_str(), format!("user::{id}"));
        assert_eq!(found.envelope().ver, 2);
    }
    assert_eq!(
        text(&store, "user::6").await.unwrap(),
        user6,
        "left as it was"
    );
    let again = users.migrate_all().rewrite_adopted(true).await.unwrap();
    assert_eq!((again.migrated, again.adopted.len()), (0, 0));
}

/// Each batch of documents docmodel did not write costs the same three store calls, whatever the store
/// holds: a read of the documents, a read of their lookups, one atomic write.
#[tokio::test]
async fn each_batch_of_adopted_documents_is_three_store_calls() {
    let store = CountingStore::atomic(MemoryStore::new());
    for id in 1..=6 {
        let user = seed_user(id, &format!("u{id}@example.com"));
        store
            .insert(&format!("user::{id}"), user.as_bytes())
            .await
            .unwrap();
    }
    store.take();
    let users = Repo::<Emailed>::new(&store).clock(clock);

    let report = users.migrate_all().batch(2).await.unwrap();

    assert_eq!((report.migrated, report.failed.len()), (6, 0));
    let mut expected = vec![Op::Scan("user::".into())];
    for pair in [[1, 2], [3, 4], [5, 6]] {
        expected.push(Op::GetMany(
            pair.iter().map(|id| format!("user::{id}")).collect(),
        ));
        expected.push(Op::GetMany(
            pair.iter()
                .map(|id| format!("email::u{id}@example.com"))
                .collect(),
        ));
        expected.push(Op::WriteAtomic(
            pair.iter()
                .flat_map(|id| [format!("email::u{id}@example.com"), format!("user::{id}")])
                .collect(),
        ));
    }
    assert_eq!(store.take(), expected);
}
