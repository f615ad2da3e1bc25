//! Write options through the repository: which writes carry a repository's expiry and durability, expiry
//! kept by a Redb file across a reopen, values a store refuses to expire, and `DynStore` passing options on.
//! How each store honours an expiry is in `stores.rs` (`expiry`), run on every store.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::time::Duration;

use docmodel::store::{DynStore, MemoryStore, Redb, Store, WriteOptions};
use docmodel::{DocModel, Error, Repo, StoreErrorKind, Timestamp};
use docmodel::{Durability, Expiry};
use docmodel_tests::{Call, Hooked, Hooks, keys_under};
use serde::{Deserialize, Serialize};

/// A session with a lookup (its token) and an index: every kind of write a repository makes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "session", schema = "1.0", key = "session::{id}", revisions = 2)]
#[docmodel(lookup = "session_token::{token}", index = "user")]
struct Session {
    #[docmodel(get)]
    id: u64,
    #[docmodel(get, set)]
    token: String,
    #[docmodel(allow(reserved_word))]
    user: String,
}

fn session(id: u64, token: &str) -> Session {
    Session {
        id,
        token: token.into(),
        user: "joe".into(),
    }
}

/// One write as the store was asked for it.
#[derive(Debug, Clone, PartialEq)]
struct Write {
    op: &'static str,
    key: String,
    options: WriteOptions,
}

/// Hooks recording the options of every write.
#[derive(Default)]
struct Recording(Mutex<Vec<Write>>);

impl Recording {
    fn record(&self, op: &'static str, key: &str, options: Option<&WriteOptions>) {
        self.0.lock().unwrap().push(Write {
            op,
            key: key.to_owned(),
            options: options.copied().unwrap_or_default(),
        });
    }

    fn take(&self) -> Vec<Write> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

impl Hooks<MemoryStore> for Recording {
    async fn before(&self, _: &MemoryStore, call: Call<'_>) -> Result<(), Error> {
        match call {
            Call::Insert { key, options, .. } => self.record("insert", key, Some(options)),
            Call::InsertMany {
                values, options, ..
            } => {
                for (key, _) in values {
                    self.record("insert", key, Some(options));
                }
            }
            Call::Replace { key, options, .. } => self.record("replace", key, Some(options)),
            Call::Remove { key, options, .. } => self.record("remove", key, Some(options)),
            Call::WriteAtomic {
                writes, options, ..
            } => {
                for write in writes {
                    let op = match write {
                        docmodel::store::Write::Insert { .. } => "insert",
                        docmodel::store::Write::Replace { .. } => "replace",
                        _ => "remove",
                    };
                    self.record(op, write.key(), Some(options));
                }
            }
            _ => {}
        }
        Ok(())
    }
}

#[tokio::test]
async fn the_document_and_its_copies_carry_the_expiry_and_every_write_the_durability() {
    let store = Hooked::with(MemoryStore::new(), Recording::default());
    let hour = Expiry::After(Duration::from_secs(3600));
    let sessions = Repo::<Session>::new(&store)
        .expiry(hour)
        .durability(Durability::PersistToMajority);
    sessions.insert(session(1, "abc")).await.unwrap();
    let mut doc = sessions.get(&Session::key(1)).await.unwrap().unwrap();
    doc.set_token("def");
    sessions.save(&mut doc).await.unwrap();
    sessions.remove(&Session::key(1)).await.unwrap();

    let durable = WriteOptions::new().with_durability(Durability::PersistToMajority);
    let expiring = durable.with_expiry(hour);
    let write = |op, key: &str, options| Write {
        op,
        key: key.to_owned(),
        options,
    };
    let entry = "index::session::user::46a6f65!session::1";
    let schema =
        "index::session::@schema::000000000000000100000000000000000000000000000000!session::1";
    assert_eq!(
        store.hooks.take(),
        [
            // insert: claim the lookup and the index entries, write the document, confirm the lookup
            write("insert", "session_token::abc", durable),
            write("insert", entry, durable),
            write("insert", schema, durable),
            write("insert", "session::1", expiring),
            write("replace", "session_token::abc", durable),
            // save: claim the new lookup, copy version 1, write the document, confirm, release the old one
            write("insert", "session_token::def", durable),
            write("insert", "session::1::v::1", expiring),
            write("replace", "session::1", expiring),
            write("replace", "session_token::def", durable),
            write("remove", "session_token::abc", durable),
            // remove: the document, its entries and lookup, its copy
            write("remove", "session::1", expiring),
            write("remove", schema, durable),
            write("remove", entry, durable),
            write("remove", "session_token::def", durable),
            write("remove", "session::1::v::1", expiring),
        ],
        "lookups and index entries never expire: a document saved later would outlive them"
    );
}

/// A clock the test moves, in milliseconds, and the function reading it.
fn manual_clock(
    start: i64,
) -> (
    Arc<AtomicI64>,
    impl Fn() -> Timestamp + Send + Sync + 'static,
) {
    let now = Arc::new(AtomicI64::new(start));
    let clock = Arc::clone(&now);
    (now, move || {
        Timestamp::from_millis(clock.load(Ordering::SeqCst))
    })
}

fn expires_in(millis: u64) -> WriteOptions {
    WriteOptions::new().with_expiry(Expiry::After(Duration::from_millis(millis)))
}

#[tokio::test]
async fn a_redb_file_keeps_each_expiry_across_a_reopen_and_purges_what_expired() {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let path = std::env::temp_dir().join(format!(
        "docmodel-expiry-{}-{}.redb",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_file(&path);
    {
        let store = Redb::open(&path)
            .unwrap()
            .with_clock(|| Timestamp::from_millis(0));
        store.insert("user::1", b"{}").await.unwrap();
        store
            .insert_with("session::1", b"{}", &expires_in(1_000))
            .await
            .unwrap();
        store
            .insert_with("session::2", b"{}", &expires_in(5_000))
            .await
            .unwrap();
    }
    let (now, clock) = manual_clock(999);
    let store = Redb::open(&path).unwrap().with_clock(clock);
    assert_eq!(
        keys_under(&store, "").await,
        ["session::1", "session::2", "user::1"]
    );
    now.store(1_000, Ordering::SeqCst);
    assert_eq!(
        keys_under(&store, "").await,
        ["session::2", "user::1"],
        "an expiry written before the reopen holds after it"
    );
    assert!(store.get("session::1").await.unwrap().is_none());
    assert_eq!(
        store
            .get_many(&["session::1", "session::2"])
            .await
            .unwrap()
            .iter()
            .map(Option::is_some)
            .collect::<Vec<_>>(),
        [false, true]
    );
    assert_eq!(store.purge_expired().unwrap(), 1);
    assert_eq!(store.purge_expired().unwrap(), 0);

    // A replace keeps the expiry; Never takes it away; a counter keeps it.
    let cas = store.get("session::2").await.unwrap().unwrap().cas;
    store
        .replace("session::2", b"{\"a\":1}", &cas)
        .await
        .unwrap();
    store
        .insert_with("count::x", b"{\"value\":1}", &expires_in(1_000))
        .await
        .unwrap();
    assert_eq!(store.counter("count::x", 1).await.unwrap(), 2);
    now.store(2_000, Ordering::SeqCst);
    assert!(
        store.get("count::x").await.unwrap().is_none(),
        "the counter kept its expiry"
    );
    assert_eq!(
        store.counter("count::x", 1).await.unwrap(),
        1,
        "an expired counter starts again"
    );
    now.store(5_000, Ordering::SeqCst);
    assert!(
        store.get("session::2").await.unwrap().is_none(),
        "the replace kept the expiry"
    );
    drop(store);
    std::fs::remove_file(&path).unwrap();
}

#[tokio::test]
async fn an_expired_value_is_gone_for_every_operation_of_a_memory_store() {
    let (now, clock) = manual_clock(0);
    let store = MemoryStore::new().with_clock(clock);
    let cas = store
        .insert_with("session::1", b"{}", &expires_in(10))
        .await
        .unwrap();
    let other = store
        .insert_with("session::2", b"{}", &expires_in(10))
        .await
        .unwrap();
    store
        .replace_with(
            "session::2",
            b"{}",
            &other,
            &WriteOptions::new().with_expiry(Expiry::Never),
        )
        .await
        .unwrap();
    assert_eq!(store.keys(), ["session::1", "session::2"]);
    now.store(10, Ordering::SeqCst);
    assert_eq!(store.keys(), ["session::2"]);
    assert_eq!(store.len(), 1);
    let err = store.remove("session::1", Some(&cas)).await.unwrap_err();
    assert!(
        matches!(&err, Error::NotFound { key } if key == "session::1"),
        "{err:?}"
    );
    let err = store.replace("session::1", b"{}", &cas).await.unwrap_err();
    assert!(
        matches!(&err, Error::NotFound { key } if key == "session::1"),
        "{err:?}"
    );
    store.insert("session::1", b"{\"new\":1}").await.unwrap();
    assert_eq!(
        &*store.get("session::1").await.unwrap().unwrap().bytes,
        b"{\"new\":1}"
    );
}

#[tokio::test]
async fn a_zero_expiry_is_refused_naming_the_key_and_nothing_is_written() {
    let zero = WriteOptions::new().with_expiry(Expiry::After(Duration::ZERO));
    let message = "document `session::1`: the store failed: an expiry of zero (`Expiry::After` needs a \
                   duration above zero; `Expiry::Never` is a value that does not expire)";
    let memory = MemoryStore::new();
    let redb = Redb::in_memory().unwrap();
    for store in [DynStore::new(memory.clone()), DynStore::new(redb.clone())] {
        let err = store
            .insert_with("session::1", b"{}", &zero)
            .await
            .unwrap_err();
        assert!(
            matches!(
                &err,
                Error::Store {
                    kind: StoreErrorKind::Permanent,
                    ..
                }
            ),
            "{err:?}"
        );
        assert_eq!(err.to_string(), message);
        assert!(keys_under(&store, "").await.is_empty());
    }
    let sessions = Repo::<Session>::new(&memory).expiry(Expiry::After(Duration::ZERO));
    let err = sessions.insert(session(1, "abc")).await.unwrap_err();
    assert!(
        err.to_string().ends_with("an expiry of zero (`Expiry::After` needs a duration above zero; `Expiry::Never` is a value that does not expire)"),
        "{err}"
    );
    assert_eq!(
        memory.keys(),
        Vec::<String>::new(),
        "the claims were released"
    );
}

#[tokio::test]
async fn a_dyn_store_passes_the_options_on() {
    let (now, clock) = manual_clock(0);
    let store = DynStore::new(MemoryStore::new().with_clock(clock));
    assert!(store.capabilities().expiry);
    let cas = store
        .insert_with("session::1", b"{}", &expires_in(1_000))
        .await
        .unwrap();
    store
        .replace_with("session::1", b"{}", &cas, &expires_in(5_000))
        .await
        .unwrap();
    now.store(4_999, Ordering::SeqCst);
    assert!(store.get("session::1").await.unwrap().is_some());
    now.store(5_000, Ordering::SeqCst);
    assert!(store.get("session::1").await.unwrap().is_none());
}
