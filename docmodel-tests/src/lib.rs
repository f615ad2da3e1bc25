//! Integration tests and benchmarks of docmodel, and what they share: the stores of the
//! suites written once for every store ([`Fresh`]), the wrapper stores that count, fail, pause and hook store
//! operations ([`CountingStore`], [`FailingStore`], [`PauseStore`], [`Hooked`]), the seeds' models
//! ([`seeds`]) and fixtures ([`clock`], [`contents`], [`keys`], [`text`]).
//!
//! # Which test file covers what
//!
//! | behaviour | files |
//! |---|---|
//! | a model's stored JSON, keys, accessors, the derive's page | `model.rs`, `keys.rs` (property tests), `body.rs`, `seeds.rs` (the seeds' own documents), `rustdoc.rs`, `lints.rs` |
//! | the derive's diagnostics | the package `docmodel-compile-fail` (`compile-fail/tests/ui/<category>/`), apart so that trybuild builds its cases against docmodel and serde alone |
//! | reading older schemas; the whole store migrated | `migrate.rs`, `limits.rs`; `migrate_all.rs` |
//! | every store alike: documents, compare-and-swap, history, lookups, expiry, touch, bulk inserts | `stores.rs` (MemoryStore, Redb, CouchDB; Couchbase with the feature `couchbase`) |
//! | revision copies | `stores.rs` (listing and restoring), `repo.rs` (the store operations of a save, failures at each), `protocol.rs` (other models' keys under the copy prefix, earlier lives of a key, a dropped removal), `races.rs` and `interleavings.rs` (two writers), `replication.rs` (merged conflicts), `foreign.rs` (the copy marker other clients filter on) |
//! | lookups and their claims | `lookup.rs` (the protocol), `claims.rs` (failed and stale writes), `races.rs`, `interleavings.rs`, `stores.rs`, `replication.rs` (a value taken on two servers, settled), `foreign.rs` (`reindex`) |
//! | index entries and finds | `find.rs` (every store), `indexes.rs` (the entries a repository keeps) |
//! | write options: expiry, durability | `expiry.rs`, `stores.rs` (`expiry`) |
//! | validation, application errors, the envelope within reach | `validate.rs` |
//! | limits on what is read and written | `limits.rs` |
//! | what other programs stored: adopted documents found, indexed, reindexed and rewritten; a document that does not read, in a query | `foreign.rs` (every store), `seeds.rs` |
//! | CouchDB's own: ids, requests, failures; replication and conflicts | `couchdb.rs`, `replication.rs` |
//! | a damaged Redb file | `damaged.rs` |
//! | translucent (hashed) fields | `hashed.rs` |
//! | the key-space overlap check | `protocol.rs` (`keyspace`), and the runtime's unit tests |
//! | the public API list | `public_api.rs` |

mod conflicted;
#[cfg(feature = "couchbase")]
pub mod couchbase;
pub mod couchdb;
mod hooked;
pub mod schedule;
pub mod seeds;
mod wrappers;

pub use conflicted::Conflicted;
pub use docmodel::store::{Call, Operation};
pub use hooked::{Forgetting, Hooked, Hooks, required};
pub use wrappers::{
    Counting, CountingStore, Failing, FailingStore, Op, Pause, PauseStore, Pausing, first_key,
};

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use docmodel::Timestamp;
use docmodel::store::{CouchDb, MemoryStore, Redb, Store};

/// A store of the kind under test, new and empty: what the suites written once for every store are generic
/// over.
pub trait Fresh: Store + Sized + 'static {
    /// A new, empty store.
    fn fresh() -> impl Future<Output = Self> + Send;

    /// A new, empty store, and the time its values expire on: a clock the test moves on where the store
    /// takes one (MemoryStore, Redb), the real time elsewhere.
    fn fresh_timed() -> impl Future<Output = (Self, Elapse)> + Send {
        async { (Self::fresh().await, Elapse(None)) }
    }

    /// Every key the store holds, in order: [`keys`], but where the store cannot list its keys (Couchbase
    /// on a cluster without a query service) by reading every key the test wrote through it.
    fn listed_keys(&self) -> impl Future<Output = Vec<String>> + Send {
        keys(self)
    }
}

/// The time a store's values expire on, as a test moves it: a clock it sets, or the real time.
#[derive(Debug, Clone)]
pub struct Elapse(Option<Arc<AtomicI64>>);

impl Elapse {
    /// A clock at the present moment that moves only when [`Elapse::pass`] says, and the function reading it.
    pub fn set() -> (Self, impl Fn() -> Timestamp + Send + Sync + 'static) {
        let now = Arc::new(AtomicI64::new(Timestamp::now().as_millis()));
        let clock = Arc::clone(&now);
        (Elapse(Some(now)), move || {
            Timestamp::from_millis(clock.load(Ordering::SeqCst))
        })
    }

    /// Lets `duration` pass: moves the clock on, or waits that long (and a second more, since a server
    /// counts expiry in whole seconds).
    pub async fn pass(&self, duration: Duration) {
        match &self.0 {
            Some(now) => {
                let millis = i64::try_from(duration.as_millis()).unwrap();
                now.fetch_add(millis, Ordering::SeqCst);
            }
            None => tokio::time::sleep(duration + Duration::from_secs(1)).await,
        }
    }
}

impl Fresh for MemoryStore {
    async fn fresh() -> Self {
        MemoryStore::new()
    }

    async fn fresh_timed() -> (Self, Elapse) {
        let (elapse, clock) = Elapse::set();
        (MemoryStore::new().with_clock(clock), elapse)
    }
}

#[cfg(feature = "couchbase")]
impl Fresh for couchbase::Listed {
    async fn fresh() -> Self {
        couchbase::listed().await
    }

    async fn listed_keys(&self) -> Vec<String> {
        couchbase::listed_keys(self).await
    }
}

impl Fresh for Redb {
    async fn fresh() -> Self {
        Redb::in_memory().unwrap()
    }

    async fn fresh_timed() -> (Self, Elapse) {
        let (elapse, clock) = Elapse::set();
        (Redb::in_memory().unwrap().with_clock(clock), elapse)
    }
}

impl Fresh for CouchDb {
    async fn fresh() -> Self {
        couchdb::fresh().await
    }
}

/// The seeds' time, 2018-12-14 03:45:24.478 UTC, as a repository's clock: what the tests' `_created` and
/// `_modified` read.
pub fn clock() -> Timestamp {
    Timestamp::from_millis(1_544_759_124_478)
}

/// The value under `key` as text, as the store holds it.
pub async fn text<S: Store>(store: &S, key: &str) -> Option<String> {
    store
        .get(key)
        .await
        .unwrap()
        .map(|stored| String::from_utf8(stored.bytes.to_vec()).unwrap())
}

/// Every key the store holds with its text and token, in key order: two of them equal mean that nothing was
/// written in between (a value written again with the same bytes has a new token).
pub async fn contents<S: Store>(store: &S) -> Vec<(String, String, docmodel::store::Cas)> {
    let mut contents = Vec::new();
    for key in keys(store).await {
        let stored = store.get(&key).await.unwrap().unwrap();
        let text = String::from_utf8(stored.bytes.to_vec()).unwrap();
        contents.push((key, text, stored.cas));
    }
    contents
}

/// Every key the store holds, in order.
pub async fn keys<S: Store>(store: &S) -> Vec<String> {
    keys_under(store, "").await
}

/// Every key the store holds under `prefix`, in order, listed page by page.
pub async fn keys_under<S: Store>(store: &S, prefix: &str) -> Vec<String> {
    let mut listing = docmodel::store::KeyPages::prefix(store, prefix);
    let mut keys = Vec::new();
    while let Some(page) = listing.next_page().await.unwrap() {
        keys.extend(page);
    }
    keys
}

/// A path for a Redb file of a test, in the system's temporary directory: unique within the process (`name`
/// says which test) and across processes, and free (a file left by an earlier run is removed). The file is
/// removed when the returned [`TempFile`] is dropped: when the test ends, passing or failing.
pub fn redb_path(name: &str) -> TempFile {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    let path = std::env::temp_dir().join(format!(
        "docmodel-test-{}-{n}-{name}.redb",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    TempFile(path)
}

/// A test's file, removed when this is dropped. Keep it for as long as the file is used: a store opened on
/// it goes on working when it is removed (on Unix), but a second open would not find it.
#[derive(Debug)]
pub struct TempFile(std::path::PathBuf);

impl std::ops::Deref for TempFile {
    type Target = std::path::Path;

    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for TempFile {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
