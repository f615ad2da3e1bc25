//! What is CouchDB's own: ids that need escaping, reserved ids and fields, requests per operation, bytes
//! that round-trip as through any store, paged scans, and every way a server can fail.
//!
//! Against a real CouchDB-protocol server (see `docmodel_tests::couchdb`), except where a server must
//! misbehave on purpose: there a few lines of HTTP on a loopback socket answer what a broken server or
//! proxy would.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{Ipv4Addr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use docmodel::store::{CouchDb, MemoryStore, Store, WriteOptions};
use docmodel::{DocModel, Error, ErrorClass, Query, Repo, StoreErrorKind};
use docmodel_tests::couchdb::{fresh, server};
use docmodel_tests::{CountingStore, Op, Operation, PauseStore, clock, keys_under};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}", revisions = 3)]
#[docmodel(envelope(layout = "meta", timestamps = "iso8601", created_by, modified_by))]
struct User {
    #[docmodel(get)]
    user_id: u64,
    #[docmodel(get, set)]
    name: String,
    score: f64,
    tags: Vec<String>,
}

/// The seeds' default layout: `_type`, `_schema`, ... at the top, which CouchDB refuses.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(type = "flat", schema = "1.0", key = "flat::{id}")]
struct Flat {
    id: u64,
}

/// A model whose key holds any text.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(type = "note", schema = "1.0", key = "note::{title}")]
#[docmodel(envelope(layout = "plain"))]
struct Note {
    title: String,
    text: String,
}

fn ada() -> User {
    User {
        user_id: 1,
        name: "Ada \"the first\" Lovelace ✓".into(),
        score: 2.5,
        tags: vec!["math".into(), "née King".into()],
    }
}

#[tokio::test]
async fn each_store_operation_is_one_request() {
    let couch = fresh().await;
    let store = CountingStore::new(couch.clone());
    let users = Repo::<User>::new(&store);
    let mut costs = Vec::new();
    let mut measure = |ops: Vec<Op>, before: u64| {
        let requests = couch.requests() - before;
        costs.push((ops.len() as u64, requests));
    };

    let before = couch.requests();
    users.insert(ada()).await.unwrap();
    measure(store.take(), before);
    let before = couch.requests();
    let mut doc = users.get(&User::key(1)).await.unwrap().unwrap();
    measure(store.take(), before);
    for n in 0..4 {
        doc.set_name(format!("Ada {n}"));
        let before = couch.requests();
        users.save(&mut doc).await.unwrap();
        measure(store.take(), before);
    }
    let before = couch.requests();
    users
        .update(&User::key(1), |user| user.set_name("Updated"))
        .await
        .unwrap();
    measure(store.take(), before);
    let before = couch.requests();
    let history = users.revisions(&User::key(1)).await.unwrap();
    assert_eq!(history.len(), 3);
    measure(store.take(), before);
    let before = couch.requests();
    let more: Vec<User> = (2..=4).map(|user_id| User { user_id, ..ada() }).collect();
    users.insert_many(more).await.unwrap();
    measure(store.take(), before);
    let before = couch.requests();
    let keys = [User::key(2), User::key(3), User::key(4)];
    assert_eq!(users.get_many(&keys).await.unwrap().len(), 3);
    measure(store.take(), before);
    users.ensure_indexes().await.unwrap();
    store.take();
    let before = couch.requests();
    let named = User::fields().name.eq("Updated");
    let page = users.find(&Query::new(named.clone())).await.unwrap();
    assert_eq!(page.docs.len(), 1);
    measure(store.take(), before);
    let before = couch.requests();
    assert_eq!(users.count(&named).await.unwrap(), 1);
    measure(store.take(), before);
    let before = couch.requests();
    users.remove(&User::key(1)).await.unwrap();
    measure(store.take(), before);

    // insert 1, get 1, saves 2 2 2 4 (the last prunes), update 1 + 4, revisions: get + one `_all_docs`,
    // insert_many one `_bulk_docs`, get_many one `_all_docs`, find three `_find`s (the page, then the
    // documents below and above the current schema, which the page counts), count one `_find`, remove: a get
    // and a remove of the document, one `_all_docs` of its window's copy keys, a remove of each of its 3 copies.
    assert_eq!(
        costs,
        [
            (1, 1),
            (1, 1),
            (2, 2),
            (2, 2),
            (2, 2),
            (4, 4),
            (5, 5),
            (2, 2),
            (1, 1),
            (1, 1),
            (3, 3),
            (1, 1),
            (6, 6),
        ],
        "(store operations, HTTP requests) per call"
    );
}

#[tokio::test]
async fn a_round_trip_gives_the_bytes_a_memory_store_gives() {
    let couch = fresh().await;
    let memory = MemoryStore::new();
    let mut written = Vec::new();
    let mut read = Vec::new();
    for store in [&couch as &dyn Probe, &memory] {
        let (stored, rewritten) = store.round_trip().await;
        written.push(stored);
        read.push(rewritten);
    }
    assert_eq!(
        written[0], written[1],
        "as stored, CouchDB's `_id`/`_rev` taken out"
    );
    assert_eq!(read[0], read[1], "as read and written again");
    assert!(
        written[0].starts_with(
            r#"{"meta":{"type":"user","schema":"3.0","ver":1,"created":"2018-12-14T03:45:24.478Z""#
        ),
        "{}",
        written[0]
    );
}

/// A store the round trip runs on, object-safe for the loop above.
trait Probe {
    fn round_trip(
        &self,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = (String, String)> + '_>>;
}

impl<S: Store> Probe for S {
    fn round_trip(
        &self,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = (String, String)> + '_>> {
        Box::pin(async move {
            let users = Repo::<User>::new(self).actor("admin").clock(clock);
            users.insert(ada()).await.unwrap();
            let stored = self.get("user::1").await.unwrap().unwrap();
            let doc = users.get(&User::key(1)).await.unwrap().unwrap();
            (
                String::from_utf8(stored.bytes.to_vec()).unwrap(),
                String::from_utf8(doc.to_vec().unwrap()).unwrap(),
            )
        })
    }
}

#[tokio::test]
async fn keys_that_need_escaping_work() {
    let store = fresh().await;
    let notes = Repo::<Note>::new(&store);
    let titles = [
        "a/b",
        "what?",
        "#1",
        "100%",
        "1+1",
        "two words",
        "café ☕",
        "x%2Fy",
    ];
    for title in titles {
        let note = Note {
            title: title.into(),
            text: format!("about {title}"),
        };
        let key = notes.insert(note).await.unwrap().key().clone();
        let mut doc = notes.get(&key).await.unwrap().unwrap();
        assert_eq!(doc.title, title);
        doc.text.push('!');
        notes.save(&mut doc).await.unwrap();
        assert_eq!(
            notes.get(&key).await.unwrap().unwrap().text,
            format!("about {title}!")
        );
    }
    let mut expected: Vec<String> = titles
        .iter()
        .map(|title| format!("note::{title}"))
        .collect();
    expected.sort();
    assert_eq!(keys_under(&store, "note::").await, expected);
    let found = store
        .get_many(&["note::a/b", "note::nothing", "note::café ☕"])
        .await
        .unwrap();
    assert_eq!(
        found.iter().map(Option::is_some).collect::<Vec<_>>(),
        [true, false, true]
    );
    for title in titles {
        notes.remove(&Note::key(title).unwrap()).await.unwrap();
    }
    assert!(keys_under(&store, "").await.is_empty());
}

#[tokio::test]
async fn reserved_ids_are_refused_before_any_request() {
    let store = fresh().await;
    let before = store.requests();
    let err = store.insert("_design/users", b"{}").await.unwrap_err();
    assert!(
        matches!(&err, Error::InvalidKey { key, .. } if key == "_design/users"),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains("reserves document ids starting with `_`"),
        "{err}"
    );
    for key in [".", ".."] {
        let err = store.remove(key, None).await.unwrap_err();
        assert!(
            matches!(&err, Error::InvalidKey { key: refused, .. } if refused == key),
            "{err:?}"
        );
    }
    let notes = Repo::<Note>::new(&store);
    notes
        .insert(Note {
            title: "_x".into(),
            text: String::new(),
        })
        .await
        .expect("`note::_x` does not start with `_`");
    assert!(
        notes
            .get(&Note::key("_x").unwrap())
            .await
            .unwrap()
            .is_some()
    );
    assert_eq!(
        store.get_many(&["a", "_b"]).await.unwrap_err().class(),
        ErrorClass::Permanent
    );
    assert_eq!(
        store.requests() - before,
        2,
        "only the insert of `note::_x` and the get"
    );
}

#[tokio::test]
async fn the_flat_layout_is_refused_naming_the_layouts_that_work() {
    let store = fresh().await;
    let err = Repo::<Flat>::new(&store)
        .insert(Flat { id: 1 })
        .await
        .unwrap_err();
    let message = err.to_string();
    assert!(message.contains("`_type`"), "{message}");
    assert!(
        message.contains("layout = \"plain\"") && message.contains("layout = \"meta\""),
        "{message}"
    );
    assert!(keys_under(&store, "").await.is_empty(), "nothing written");
}

/// A member at schema 2.0, whose 1.0 documents had `name` for `nick`; its email is unique.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "member",
    schema = "2.0",
    key = "member::{id}",
    lookup = "member_email::{email}"
)]
#[docmodel(envelope(layout = "plain"), migrate_from("1.0" = name_to_nick))]
struct Member {
    #[docmodel(get)]
    id: u64,
    email: String,
    nick: String,
}

fn name_to_nick(doc: &mut docmodel::JsonObject) -> Result<(), docmodel::MigrationError> {
    let name = doc
        .remove("name")
        .ok_or_else(|| docmodel::MigrationError::missing_field("name"))?;
    doc.insert("nick".into(), name);
    Ok(())
}

/// Whole-store jobs over 10 members in batches of 4 (3 batches): the requests each makes, by batch. The
/// members are in the model's form (type, schema, revision counter), as docmodel wrote them at 1.0, so that
/// a save claims only the lookups it moves (an adopted document's first save claims them all).
#[tokio::test]
async fn whole_store_jobs_requests_per_batch() {
    let store = fresh().await;
    let members: Vec<(String, String)> = (0..10)
        .map(|id| {
            let doc = format!(
                r#"{{"type":"member","schema":"1.0","ver":1,"id":{id},"email":"m{id}@x","name":"M{id}"}}"#
            );
            (format!("member::{id}"), doc)
        })
        .collect();
    let values: Vec<(&str, &[u8])> = members
        .iter()
        .map(|(key, doc)| (key.as_str(), doc.as_bytes()))
        .collect();
    for outcome in store.insert_many(&values, &WriteOptions::DEFAULT).await {
        outcome.unwrap();
    }
    let repo = Repo::<Member>::new(&store);
    repo.ensure_indexes().await.unwrap();

    // The walk: one listing of the keys (a page of 1,000), and one `_all_docs` of documents a batch.
    let before = store.requests();
    let mut all = repo.all().batch(4);
    let mut walked = 0;
    while let Some(member) = all.next().await.unwrap() {
        assert_eq!(member.nick, format!("M{}", member.id()), "migrated as read");
        walked += 1;
    }
    assert_eq!((walked, store.requests() - before), (10, 1 + 3));

    // reindex: the listing, then a batch's documents, its lookups, and one `_bulk_docs` of the lookups none
    // holds; ensure_indexes first (its indexes are there: one request each).
    let before = store.requests();
    repo.ensure_indexes().await.unwrap();
    let indexes = store.requests() - before;
    let before = store.requests();
    let report = repo.reindex().batch(4).await.unwrap();
    assert_eq!((report.visited, report.lookups), (10, 10));
    assert_eq!(store.requests() - before, indexes + 1 + 3 * 3);

    // migrate_all: the listing, a batch's documents, and a save of each (a `PUT`: no revisions kept, no
    // lookup moves).
    let before = store.requests();
    let report = repo.migrate_all().batch(4).await.unwrap();
    assert_eq!(report.migrated, 10);
    assert_eq!(store.requests() - before, 1 + 3 + 10);
}

#[tokio::test]
async fn a_scan_reads_page_by_page() {
    let server = server();
    let first = fresh().await;
    let store = CouchDb::builder(&server.url, first.db())
        .scan_page(3)
        .connect()
        .await
        .unwrap();
    for key in ["a", "p::1", "p::2", "p::3", "p::4", "p::5", "q"] {
        store.insert(key, b"{}").await.unwrap();
    }
    let before = store.requests();
    assert_eq!(
        keys_under(&store, "p::").await,
        ["p::1", "p::2", "p::3", "p::4", "p::5"]
    );
    assert_eq!(
        store.requests() - before,
        2,
        "pages of 3 new ids: p::1-3, then p::3-5 (a page starts at the last id of the one before, and asks \
         for one more row), which is short: the end"
    );
    assert_eq!(keys_under(&store, "").await.len(), 7);
    assert!(keys_under(&store, "zz").await.is_empty());
}

/// The ids of a prefix across the whole of Unicode: pouchdb-server compares ids as UTF-16 units, where
/// U+E000-U+FFFF (private use, fullwidth letters, U+FFFD) sort above every character past U+FFFF.
#[tokio::test]
async fn a_scan_lists_every_key_of_its_prefix_across_unicode() {
    let server = server();
    let first = fresh().await;
    let store = CouchDb::builder(&server.url, first.db())
        .scan_page(2)
        .connect()
        .await
        .unwrap();
    let under = [
        "hd::a",
        "hd::\u{E000}",
        "hd::\u{FF21}",
        "hd::\u{FFFD}",
        "hd::\u{FFFF}\u{FFFF}",
        "hd::\u{1F600}",
        "hd::\u{10FFFF}",
        "hd::",
    ];
    for key in under
        .iter()
        .chain(&["hd:", "hd:;", "he", "hc", "hd:\u{FFFD}"])
    {
        store.insert(key, b"{}").await.unwrap();
    }
    let mut listed = keys_under(&store, "hd::").await;
    listed.sort();
    let mut expected = under.map(String::from).to_vec();
    expected.sort();
    assert_eq!(listed, expected);
    assert_eq!(keys_under(&store, "").await.len(), 13);
}

#[tokio::test]
async fn a_missing_database_is_named() {
    let server = server();
    let store = CouchDb::connect(&server.url, "docmodel_never_created")
        .await
        .unwrap();
    let err = store.get("user::1").await.unwrap_err();
    assert_eq!(err.class(), ErrorClass::Permanent);
    let message = err.to_string();
    assert!(
        message.contains("database `docmodel_never_created` does not exist"),
        "{message}"
    );
    assert!(message.contains("create_db_if_missing"), "{message}");
    assert!(
        store.create_db_if_missing().await.unwrap(),
        "the first call creates it"
    );
    assert!(
        !store.create_db_if_missing().await.unwrap(),
        "the second call finds it"
    );
}

#[tokio::test]
async fn a_server_that_is_not_there_is_transient() {
    let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let err = CouchDb::connect(&format!("http://127.0.0.1:{port}"), "users")
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Store {
                kind: StoreErrorKind::Transient,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("CouchDB database `users`"),
        "{err}"
    );
}

/// A loopback HTTP server that answers every request with `response` (or, with `None`, never answers). With
/// `database_ok`, a request for the database itself (what `connect` sends) is answered as a healthy server
/// would. It stops when the test's process ends.
fn misbehaving(response: Option<&'static str>, database_ok: bool) -> String {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                loop {
                    let mut request = String::new();
                    if reader.read_line(&mut request).unwrap_or(0) == 0 {
                        return;
                    }
                    let mut length = 0;
                    let mut line = String::new();
                    loop {
                        line.clear();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        if let Some(value) =
                            line.to_ascii_lowercase().strip_prefix("content-length:")
                        {
                            length = value.trim().parse().unwrap_or(0);
                        }
                        if line == "\r\n" {
                            break;
                        }
                    }
                    let mut body = vec![0; length];
                    if reader.read_exact(&mut body).is_err() {
                        return;
                    }
                    let response = if database_ok && request.starts_with("GET /users ") {
                        Some(http("200 OK", r#"{"db_name":"users"}"#))
                    } else {
                        response
                    };
                    match response {
                        Some(response) => {
                            let _ = stream.write_all(response.as_bytes());
                        }
                        None => std::thread::sleep(Duration::from_secs(30)),
                    }
                }
            });
        }
    });
    format!("http://127.0.0.1:{port}")
}

fn http(status: &str, body: &str) -> &'static str {
    Box::leak(
        format!(
            "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_boxed_str(),
    )
}

fn kind(err: &Error) -> Option<StoreErrorKind> {
    match err {
        Error::Store { kind, .. } => Some(*kind),
        _ => None,
    }
}

#[tokio::test]
async fn every_way_a_server_fails_is_a_classed_store_error() {
    use StoreErrorKind::{Ambiguous, Transient};
    // (what, the answer to every request, the kind of a failed read, of a failed write)
    let cases = [
        (
            "a 500",
            Some(http(
                "500 Internal Server Error",
                r#"{"error":"unknown_error","reason":"boom"}"#,
            )),
            Transient,
            Ambiguous,
        ),
        (
            "a body that is not JSON",
            Some(http("200 OK", "<html>proxy</html>")),
            Transient,
            Ambiguous,
        ),
        (
            "an answer without `_rev`",
            Some(http("201 Created", r#"{"ok":true}"#)),
            Transient,
            Ambiguous,
        ),
        ("a timeout", None, Transient, Ambiguous),
    ];
    for (what, response, read, write) in cases {
        let url = misbehaving(response, true);
        let store = CouchDb::builder(&url, "users")
            .timeout(Duration::from_millis(500))
            .connect()
            .await
            .unwrap();
        let err = store.get("user::1").await.unwrap_err();
        assert_eq!(kind(&err), Some(read), "{what}: {err}");
        assert!(
            err.to_string().contains("CouchDB database `users`"),
            "{what}: {err}"
        );
        let err = store.insert("user::1", b"{}").await.unwrap_err();
        assert_eq!(kind(&err), Some(write), "{what}: {err}");
        let err = store.get_many(&["user::1", "user::2"]).await.unwrap_err();
        assert_eq!(kind(&err), Some(read), "{what}: {err}");
        // A bulk insert that fails whole fails each of its values, naming its key.
        let values: [(&str, &[u8]); 2] = [("user::1", b"{}"), ("user::2", b"{}")];
        let outcomes = store.insert_many(&values, &WriteOptions::DEFAULT).await;
        for ((key, _), outcome) in values.iter().zip(outcomes) {
            let err = outcome.unwrap_err();
            assert_eq!(kind(&err), Some(write), "{what}: {err}");
            assert!(
                err.to_string().starts_with(&format!("document `{key}`")),
                "{what}: {err}"
            );
        }
    }
}

#[tokio::test]
async fn refused_credentials_are_permanent_and_name_the_database() {
    let refusing = http(
        "401 Unauthorized",
        r#"{"error":"unauthorized","reason":"Name or password is incorrect."}"#,
    );
    let url = misbehaving(Some(refusing), false).replace("http://", "http://app:secret@");
    let err = CouchDb::connect(&url, "users").await.unwrap_err();
    assert_eq!(kind(&err), Some(StoreErrorKind::Permanent), "{err}");
    let message = err.to_string();
    assert!(
        message.contains("refused the credentials for database `users`"),
        "{message}"
    );
    assert!(
        message.contains("Name or password is incorrect."),
        "{message}"
    );
    assert!(!message.contains("secret"), "{message}");

    let url = misbehaving(Some(refusing), true);
    let store = CouchDb::connect(&url, "users").await.unwrap();
    let err = store.get("user::1").await.unwrap_err();
    assert_eq!(kind(&err), Some(StoreErrorKind::Permanent), "{err}");
    let err = store.insert("user::1", b"{}").await.unwrap_err();
    assert_eq!(
        kind(&err),
        Some(StoreErrorKind::Permanent),
        "a refused write did not happen: {err}"
    );
}

/// The server dies between the steps of a revision save (before each of its 4 requests in turn) and comes
/// back: the document is the old version or the new one, no revision copy is lost, and a retry completes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_between_the_steps_of_a_save() {
    let steps = [
        (Operation::Insert, "user::1::v::4"),
        (Operation::Replace, "user::1"),
        (Operation::Get, "user::1::v::1"),
        (Operation::Remove, "user::1::v::1"),
    ];
    for (k, (op, key)) in steps.into_iter().enumerate() {
        let mut server = docmodel_tests::couchdb::Private::start();
        let couch = CouchDb::builder(&server.url, "users")
            .timeout(Duration::from_secs(5))
            .connect()
            .await
            .unwrap();
        couch.create_db_if_missing().await.unwrap();
        let store = Arc::new(PauseStore::new(couch));
        let users = Repo::<User>::new(Arc::clone(&store));
        let mut doc = users.insert(ada()).await.unwrap();
        for n in 2..=4 {
            doc.set_name(format!("Ada {n}"));
            users.save(&mut doc).await.unwrap();
        }
        doc.set_name("New");

        let pause = store.pause(op, key);
        let saving = {
            let users = Repo::<User>::new(Arc::clone(&store));
            let mut doc = doc.clone();
            tokio::spawn(async move {
                let result = users.save(&mut doc).await;
                (result, doc)
            })
        };
        pause.reached.notified().await;
        server.kill();
        pause.release.notify_one();
        let (result, saved) = saving.await.unwrap();
        server.restart();

        let current = users.get(&User::key(1)).await.unwrap().unwrap();
        if k < 2 {
            let err = result.unwrap_err();
            assert_eq!(
                err.class(),
                ErrorClass::Transient,
                "step {k} ({op:?}): {err}"
            );
            assert!(
                err.to_string().contains("CouchDB database `users`"),
                "{err}"
            );
            assert_eq!(
                current.envelope().ver,
                4,
                "step {k} ({op:?}): the old version stays"
            );
            users.save(&mut doc).await.unwrap();
        } else {
            // The prune failed after the save committed: the save stands, a copy is left to the next prune.
            result.unwrap();
            assert_eq!(current.envelope().ver, 5, "step {k} ({op:?})");
            doc = saved;
        }
        let current = users.get(&User::key(1)).await.unwrap().unwrap();
        assert_eq!(
            (current.name(), current.envelope().ver),
            ("New", 5),
            "step {k} ({op:?})"
        );
        let history: Vec<(String, u64)> = users
            .revisions(&User::key(1))
            .await
            .unwrap()
            .iter()
            .map(|doc| (doc.name().to_owned(), doc.envelope().ver))
            .collect();
        assert_eq!(
            history,
            [
                ("Ada 4".into(), 4),
                ("Ada 3".into(), 3),
                ("Ada 2".into(), 2)
            ],
            "step {k} ({op:?}): no revision lost"
        );
        // And the document goes on: one more save after the crash.
        doc.set_name("After");
        users.save(&mut doc).await.unwrap();
    }
}

#[tokio::test]
async fn a_token_of_another_store_is_a_conflict_or_not_found() {
    let store = fresh().await;
    let numeric = docmodel::store::Cas::from_u64(1);
    store.insert("here", b"{}").await.unwrap();
    let err = store.replace("here", b"{}", &numeric).await.unwrap_err();
    assert!(
        matches!(&err, Error::Conflict { key } if key == "here"),
        "{err:?}"
    );
    let err = store.remove("here", Some(&numeric)).await.unwrap_err();
    assert!(
        matches!(&err, Error::Conflict { key } if key == "here"),
        "{err:?}"
    );
    let err = store.remove("gone", Some(&numeric)).await.unwrap_err();
    assert!(
        matches!(&err, Error::NotFound { key } if key == "gone"),
        "{err:?}"
    );
    store.remove("here", None).await.unwrap();
    assert!(store.get("here").await.unwrap().is_none());
}

#[tokio::test]
async fn a_bulk_insert_sends_what_couchdb_can_hold_and_refuses_the_rest_by_key() {
    let store = fresh().await;
    let values: [(&str, &[u8]); 4] = [
        ("_design/users", b"{}"),
        ("city::a", b"[1]"),
        ("city::b", br#"{"n":1}"#),
        ("city::c", b" { } "),
    ];
    let outcomes = store.insert_many(&values, &WriteOptions::DEFAULT).await;
    assert!(
        matches!(&outcomes[0], Err(Error::InvalidKey { key, .. }) if key == "_design/users"),
        "{:?}",
        outcomes[0]
    );
    let err = outcomes[1].as_ref().unwrap_err();
    assert!(
        err.to_string()
            .starts_with("document `city::a`: the store failed: CouchDB database"),
        "{err}"
    );
    assert!(err.to_string().contains("JSON objects only"), "{err}");
    assert!(outcomes[2].is_ok() && outcomes[3].is_ok(), "{outcomes:?}");
    let b = store.get("city::b").await.unwrap().unwrap();
    assert_eq!(&*b.bytes, br#"{"n":1}"#);
    assert_eq!(&b.cas, outcomes[2].as_ref().unwrap());
    assert_eq!(&*store.get("city::c").await.unwrap().unwrap().bytes, b"{}");
    assert_eq!(keys_under(&store, "").await, ["city::b", "city::c"]);
}

/// A write the database's `validate_doc_update` refuses is refused for good, whatever status the server
/// answers it with (pouchdb-server: 500): retrying it cannot succeed, and it wrote nothing.
#[tokio::test]
async fn a_write_the_database_validation_refuses_is_permanent_and_names_the_reason() {
    let store = fresh().await;
    let design = format!("{}/{}/_design/guard", server().url, store.db());
    let guard = serde_json::json!({
        "validate_doc_update": "function (doc) { if (doc.name === 'Mallory') { throw({forbidden: 'no Mallory here'}); } }"
    });
    let answer = reqwest::Client::new()
        .put(&design)
        .header("content-type", "application/json")
        .body(guard.to_string())
        .send()
        .await
        .unwrap();
    assert!(answer.status().is_success(), "{}", answer.status());

    let err = store
        .insert("user::1", br#"{"name":"Mallory"}"#)
        .await
        .unwrap_err();
    assert_eq!(kind(&err), Some(StoreErrorKind::Permanent), "{err}");
    assert!(err.to_string().contains("no Mallory here"), "{err}");
    assert_eq!(store.get("user::1").await.unwrap(), None);

    store.insert("user::2", br#"{"name":"Ada"}"#).await.unwrap();
    let current = store.get("user::2").await.unwrap().unwrap();
    let err = store
        .replace("user::2", br#"{"name":"Mallory"}"#, &current.cas)
        .await
        .unwrap_err();
    assert_eq!(kind(&err), Some(StoreErrorKind::Permanent), "{err}");
    assert_eq!(store.get("user::2").await.unwrap(), Some(current));

    // A field the server reserves (CouchDB: 400, pouchdb-server: 500 `doc_validation`).
    let err = store
        .insert("user::3", br#"{"_name":"Ada"}"#)
        .await
        .unwrap_err();
    assert_eq!(kind(&err), Some(StoreErrorKind::Permanent), "{err}");
    assert!(err.to_string().contains("doc_validation"), "{err}");
    assert_eq!(store.get("user::3").await.unwrap(), None);
}
