//! Integration tests, compile-fail cases and benchmarks of docmodel, and what they share: the stores of the
//! suites written once for every store ([`Fresh`]), the wrapper stores that count, fail, pause and hook store
//! operations ([`CountingStore`], [`FailingStore`], [`PauseStore`], [`Hooked`]), the seeds' models
//! ([`seeds`]) and fixtures ([`clock`], [`contents`], [`keys`], [`text`]).
//!
//! # Which test file covers what
//!
//! | behaviour | files |
//! |---|---|
//! | a model's stored JSON, keys, accessors, the derive's page | `model.rs`, `keys.rs` (property tests), `body.rs`, `seeds.rs` (the seeds' own documents), `rustdoc.rs`, `lints.rs` |
//! | the derive's diagnostics | `ui.rs` (`tests/ui/<category>/`) |
//! | reading older schemas; the whole store migrated | `migrate.rs`, `limits.rs`; `migrate_all.rs` |
//! | every store alike: documents, compare-and-swap, history, lookups, expiry, touch, bulk inserts | `stores.rs` (MemoryStore, Redb, CouchDB, Couchbase) |
//! | revision copies | `stores.rs` (listing and restoring), `repo.rs` (the store operations of a save, failures at each), `protocol.rs` (other models' keys under the copy prefix, earlier lives of a key, a dropped removal), `races.rs` and `interleavings.rs` (two writers), `replication.rs` (merged conflicts) |
//! | lookups and their claims | `lookup.rs` (the protocol), `claims.rs` (failed and stale writes), `races.rs`, `interleavings.rs`, `stores.rs` |
//! | index entries and finds | `find.rs` (every store), `indexes.rs` (the entries a repository keeps) |
//! | write options: expiry, durability | `expiry.rs`, `stores.rs` (`expiry`) |
//! | validation, application errors, the envelope within reach | `validate.rs` |
//! | limits on what is read and written | `limits.rs` |
//! | CouchDB's own: ids, requests, failures; replication and conflicts | `couchdb.rs`, `replication.rs` |
//! | a damaged Redb file | `damaged.rs` |
//! | translucent (hashed) fields | `hashed.rs` |
//! | the key-space overlap check | `protocol.rs` (`keyspace`), and the runtime's unit tests |
//! | the public API list | `public_api.rs` |

pub mod couchbase;
pub mod couchdb;
mod hooked;
pub mod schedule;
pub mod seeds;

pub use hooked::{Call, Hooked, Hooks, Operation};

use std::future::Future;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use docmodel::store::{
    Capabilities, Cas, CouchDb, MemoryStore, Redb, Store, Stored, Write, WriteOptions,
};
use docmodel::{Error, Timestamp};

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

impl Fresh for couchbase::Listed {
    async fn fresh() -> Self {
        couchbase::listed().await
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
    store.scan("").await.unwrap()
}

/// One store operation, as a [`CountingStore`] records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    Get(String),
    GetMany(Vec<String>),
    GetRevision(String),
    Insert(String),
    /// A bulk insert, its keys.
    InsertMany(Vec<String>),
    Replace(String),
    Remove(String),
    Counter(String),
    /// An atomic batch, the keys it writes.
    WriteAtomic(Vec<String>),
    Scan(String),
    ScanRange(String, String),
    /// A query, its text.
    Query(String),
    /// An index created, its definition.
    CreateIndex(String),
}

/// A store that records every operation before passing it on.
///
/// It says it has no atomic batches ([`Capabilities::atomic_writes`]) unless made with
/// [`CountingStore::atomic`], so that a repository over it takes the steps a network store takes, and a test
/// sees each of them.
#[derive(Debug, Default)]
pub struct CountingStore<S> {
    inner: S,
    ops: Mutex<Vec<Op>>,
    atomic: bool,
}

impl<S> CountingStore<S> {
    pub fn new(inner: S) -> Self {
        CountingStore {
            inner,
            ops: Mutex::new(Vec::new()),
            atomic: false,
        }
    }

    /// A counting store that passes on the atomic batches of `inner`, if it makes them.
    pub fn atomic(inner: S) -> Self {
        CountingStore {
            atomic: true,
            ..CountingStore::new(inner)
        }
    }

    /// The operations so far, and forget them.
    pub fn take(&self) -> Vec<Op> {
        std::mem::take(&mut *self.ops.lock().unwrap())
    }

    fn record(&self, op: Op) {
        self.ops.lock().unwrap().push(op);
    }
}

impl<S: Store> Store for CountingStore<S> {
    fn get(&self, key: &str) -> impl Future<Output = Result<Option<Stored>, Error>> + Send {
        self.record(Op::Get(key.to_owned()));
        self.inner.get(key)
    }

    fn get_many(
        &self,
        keys: &[&str],
    ) -> impl Future<Output = Result<Vec<Option<Stored>>, Error>> + Send {
        self.record(Op::GetMany(
            keys.iter().map(|key| (*key).to_owned()).collect(),
        ));
        self.inner.get_many(keys)
    }

    fn get_revision(
        &self,
        key: &str,
        cas: &Cas,
    ) -> impl Future<Output = Result<Option<Stored>, Error>> + Send {
        self.record(Op::GetRevision(key.to_owned()));
        self.inner.get_revision(key, cas)
    }

    fn insert_with(
        &self,
        key: &str,
        value: &[u8],
        options: &WriteOptions,
    ) -> impl Future<Output = Result<Cas, Error>> + Send {
        self.record(Op::Insert(key.to_owned()));
        self.inner.insert_with(key, value, options)
    }

    fn insert_many(
        &self,
        values: &[(&str, &[u8])],
        options: &WriteOptions,
    ) -> impl Future<Output = Vec<Result<Cas, Error>>> + Send {
        self.record(Op::InsertMany(
            values.iter().map(|(key, _)| (*key).to_owned()).collect(),
        ));
        self.inner.insert_many(values, options)
    }

    fn replace_with(
        &self,
        key: &str,
        value: &[u8],
        cas: &Cas,
        options: &WriteOptions,
    ) -> impl Future<Output = Result<Cas, Error>> + Send {
        self.record(Op::Replace(key.to_owned()));
        self.inner.replace_with(key, value, cas, options)
    }

    fn remove_with(
        &self,
        key: &str,
        cas: Option<&Cas>,
        options: &WriteOptions,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        self.record(Op::Remove(key.to_owned()));
        self.inner.remove_with(key, cas, options)
    }

    fn write_atomic(
        &self,
        writes: &[Write<'_>],
        options: &WriteOptions,
    ) -> impl Future<Output = Result<Vec<Option<Cas>>, Error>> + Send {
        self.record(Op::WriteAtomic(
            writes.iter().map(|write| write.key().to_owned()).collect(),
        ));
        self.inner.write_atomic(writes, options)
    }

    fn counter(&self, key: &str, delta: u64) -> impl Future<Output = Result<u64, Error>> + Send {
        self.record(Op::Counter(key.to_owned()));
        self.inner.counter(key, delta)
    }

    fn capabilities(&self) -> Capabilities {
        let capabilities = self.inner.capabilities();
        capabilities.with_atomic_writes(self.atomic && capabilities.atomic_writes)
    }

    fn scan(&self, prefix: &str) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        self.record(Op::Scan(prefix.to_owned()));
        self.inner.scan(prefix)
    }

    fn scan_range(
        &self,
        start: &str,
        end: &str,
    ) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        self.record(Op::ScanRange(start.to_owned(), end.to_owned()));
        self.inner.scan_range(start, end)
    }

    fn query(
        &self,
        query: &[u8],
    ) -> impl Future<Output = Result<Vec<(String, Stored)>, Error>> + Send {
        self.record(Op::Query(String::from_utf8_lossy(query).into_owned()));
        self.inner.query(query)
    }

    fn create_index(&self, definition: &[u8]) -> impl Future<Output = Result<(), Error>> + Send {
        self.record(Op::CreateIndex(
            String::from_utf8_lossy(definition).into_owned(),
        ));
        self.inner.create_index(definition)
    }
}

/// A store whose `k`-th operation (counting from 1) fails without being carried out, as if the process
/// died or the connection dropped just before it; every other operation passes through.
///
/// It says it has no atomic batches ([`Capabilities::atomic_writes`]) unless made with
/// [`FailingStore::atomic`], so that a repository over it takes one step per operation, each of which can
/// fail.
#[derive(Debug)]
pub struct FailingStore<S> {
    inner: S,
    fail_at: AtomicUsize,
    count: AtomicUsize,
    atomic: bool,
}

impl<S> FailingStore<S> {
    pub fn new(inner: S) -> Self {
        FailingStore {
            inner,
            fail_at: AtomicUsize::new(0),
            count: AtomicUsize::new(0),
            atomic: false,
        }
    }

    /// A failing store that passes on the atomic batches of `inner` (if it makes them), each one
    /// operation: it fails whole, or is carried out whole.
    pub fn atomic(inner: S) -> Self {
        FailingStore {
            atomic: true,
            ..FailingStore::new(inner)
        }
    }

    /// Makes the `k`-th operation from now fail (0: none).
    pub fn fail_at(&self, k: usize) {
        self.count.store(0, Ordering::SeqCst);
        self.fail_at.store(k, Ordering::SeqCst);
    }

    /// How many operations ran since the last `fail_at`.
    pub fn count(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }

    fn fails(&self, key: &str) -> Result<(), Error> {
        let n = self.count.fetch_add(1, Ordering::SeqCst) + 1;
        if n == self.fail_at.load(Ordering::SeqCst) {
            return Err(Error::store(
                key,
                format!("injected failure of operation {n}"),
            ));
        }
        Ok(())
    }
}

/// Counts the operation now, and carries it out only if it is not the one to fail.
macro_rules! fail_or {
    ($self:ident, $key:expr, $call:expr) => {{
        let failed = $self.fails($key);
        async move {
            failed?;
            $call.await
        }
    }};
}

impl<S: Store> Store for FailingStore<S> {
    fn get(&self, key: &str) -> impl Future<Output = Result<Option<Stored>, Error>> + Send {
        fail_or!(self, key, self.inner.get(key))
    }

    fn get_many(
        &self,
        keys: &[&str],
    ) -> impl Future<Output = Result<Vec<Option<Stored>>, Error>> + Send {
        fail_or!(
            self,
            keys.first().copied().unwrap_or(""),
            self.inner.get_many(keys)
        )
    }

    fn get_revision(
        &self,
        key: &str,
        cas: &Cas,
    ) -> impl Future<Output = Result<Option<Stored>, Error>> + Send {
        fail_or!(self, key, self.inner.get_revision(key, cas))
    }

    fn insert_with(
        &self,
        key: &str,
        value: &[u8],
        options: &WriteOptions,
    ) -> impl Future<Output = Result<Cas, Error>> + Send {
        fail_or!(self, key, self.inner.insert_with(key, value, options))
    }

    fn replace_with(
        &self,
        key: &str,
        value: &[u8],
        cas: &Cas,
        options: &WriteOptions,
    ) -> impl Future<Output = Result<Cas, Error>> + Send {
        fail_or!(self, key, self.inner.replace_with(key, value, cas, options))
    }

    fn remove_with(
        &self,
        key: &str,
        cas: Option<&Cas>,
        options: &WriteOptions,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        fail_or!(self, key, self.inner.remove_with(key, cas, options))
    }

    fn counter(&self, key: &str, delta: u64) -> impl Future<Output = Result<u64, Error>> + Send {
        fail_or!(self, key, self.inner.counter(key, delta))
    }

    fn write_atomic(
        &self,
        writes: &[Write<'_>],
        options: &WriteOptions,
    ) -> impl Future<Output = Result<Vec<Option<Cas>>, Error>> + Send {
        fail_or!(
            self,
            writes.first().map_or("", Write::key),
            self.inner.write_atomic(writes, options)
        )
    }

    fn capabilities(&self) -> Capabilities {
        let capabilities = self.inner.capabilities();
        capabilities.with_atomic_writes(self.atomic && capabilities.atomic_writes)
    }

    fn scan(&self, prefix: &str) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        fail_or!(self, prefix, self.inner.scan(prefix))
    }

    fn scan_range(
        &self,
        start: &str,
        end: &str,
    ) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        fail_or!(self, start, self.inner.scan_range(start, end))
    }

    fn query(
        &self,
        query: &[u8],
    ) -> impl Future<Output = Result<Vec<(String, Stored)>, Error>> + Send {
        fail_or!(self, "", self.inner.query(query))
    }

    fn create_index(&self, definition: &[u8]) -> impl Future<Output = Result<(), Error>> + Send {
        fail_or!(self, "", self.inner.create_index(definition))
    }
}

/// A store that holds one chosen operation until the test lets it go, to play two writers' steps in a
/// chosen order.
#[derive(Debug)]
pub struct PauseStore<S> {
    inner: S,
    pauses: Mutex<Vec<(&'static str, String, std::sync::Arc<Pause>)>>,
}

/// One held operation: `reached` fires when it is held, `release` lets it run.
#[derive(Debug, Default)]
pub struct Pause {
    pub reached: tokio::sync::Notify,
    pub release: tokio::sync::Notify,
}

impl<S> PauseStore<S> {
    pub fn new(inner: S) -> Self {
        PauseStore {
            inner,
            pauses: Mutex::new(Vec::new()),
        }
    }

    /// The wrapped store.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// Holds the next `op` (`"get"`, `"get_many"`, `"insert"`, `"replace"`, `"remove"`, `"scan"`) on `key`,
    /// once.
    pub fn pause(&self, op: &'static str, key: &str) -> std::sync::Arc<Pause> {
        let pause = std::sync::Arc::new(Pause::default());
        self.pauses
            .lock()
            .unwrap()
            .push((op, key.to_owned(), std::sync::Arc::clone(&pause)));
        pause
    }

    fn take(&self, op: &str, key: &str) -> Option<std::sync::Arc<Pause>> {
        let mut pauses = self.pauses.lock().unwrap();
        let at = pauses
            .iter()
            .position(|(paused, paused_key, _)| *paused == op && paused_key == key)?;
        Some(pauses.remove(at).2)
    }
}

async fn hold(pause: Option<std::sync::Arc<Pause>>) {
    if let Some(pause) = pause {
        pause.reached.notify_one();
        pause.release.notified().await;
    }
}

impl<S: Store> Store for PauseStore<S> {
    fn get(&self, key: &str) -> impl Future<Output = Result<Option<Stored>, Error>> + Send {
        let pause = self.take("get", key);
        async move {
            hold(pause).await;
            self.inner.get(key).await
        }
    }

    /// Paused as `"get_many"` on its first key.
    fn get_many(
        &self,
        keys: &[&str],
    ) -> impl Future<Output = Result<Vec<Option<Stored>>, Error>> + Send {
        let pause = self.take("get_many", keys.first().copied().unwrap_or(""));
        async move {
            hold(pause).await;
            self.inner.get_many(keys).await
        }
    }

    fn get_revision(
        &self,
        key: &str,
        cas: &Cas,
    ) -> impl Future<Output = Result<Option<Stored>, Error>> + Send {
        let pause = self.take("get_revision", key);
        async move {
            hold(pause).await;
            self.inner.get_revision(key, cas).await
        }
    }

    fn insert_with(
        &self,
        key: &str,
        value: &[u8],
        options: &WriteOptions,
    ) -> impl Future<Output = Result<Cas, Error>> + Send {
        let pause = self.take("insert", key);
        async move {
            hold(pause).await;
            self.inner.insert_with(key, value, options).await
        }
    }

    fn replace_with(
        &self,
        key: &str,
        value: &[u8],
        cas: &Cas,
        options: &WriteOptions,
    ) -> impl Future<Output = Result<Cas, Error>> + Send {
        let pause = self.take("replace", key);
        async move {
            hold(pause).await;
            self.inner.replace_with(key, value, cas, options).await
        }
    }

    fn remove_with(
        &self,
        key: &str,
        cas: Option<&Cas>,
        options: &WriteOptions,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        let pause = self.take("remove", key);
        async move {
            hold(pause).await;
            self.inner.remove_with(key, cas, options).await
        }
    }

    fn counter(&self, key: &str, delta: u64) -> impl Future<Output = Result<u64, Error>> + Send {
        let pause = self.take("counter", key);
        async move {
            hold(pause).await;
            self.inner.counter(key, delta).await
        }
    }

    /// No atomic batches: a repository over it takes one step per operation, each of which can be held.
    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities().with_atomic_writes(false)
    }

    fn scan(&self, prefix: &str) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        let pause = self.take("scan", prefix);
        async move {
            hold(pause).await;
            self.inner.scan(prefix).await
        }
    }

    fn scan_range(
        &self,
        start: &str,
        end: &str,
    ) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        let pause = self.take("scan_range", start);
        async move {
            hold(pause).await;
            self.inner.scan_range(start, end).await
        }
    }

    fn query(
        &self,
        query: &[u8],
    ) -> impl Future<Output = Result<Vec<(String, Stored)>, Error>> + Send {
        let pause = self.take("query", "");
        async move {
            hold(pause).await;
            self.inner.query(query).await
        }
    }

    fn create_index(&self, definition: &[u8]) -> impl Future<Output = Result<(), Error>> + Send {
        let pause = self.take("create_index", "");
        async move {
            hold(pause).await;
            self.inner.create_index(definition).await
        }
    }
}

/// A path for a Redb file of a test, in the system's temporary directory: unique within the process (`name`
/// says which test) and across processes, and free (a file left by an earlier run is removed).
pub fn redb_path(name: &str) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    let path = std::env::temp_dir().join(format!(
        "docmodel-test-{}-{n}-{name}.redb",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    path
}
