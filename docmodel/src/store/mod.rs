//! Where documents live: the async [`Store`] trait and its backends.
//!
//! A store keeps bytes under string keys with an opaque compare-and-swap token ([`Cas`]) per value. The
//! repository ([`Repo`](crate::Repo)) builds everything else (envelope, revisions, lookups) from get,
//! get_many, insert, replace, remove and counter, so a backend is small and every backend behaves the same;
//! what a store can do beyond them (list keys, query, atomic batches, expiry) or cannot hold (fields
//! starting with `_`) it declares in [`Capabilities`].
//!
//! # The four stores
//!
//! | operation | [`MemoryStore`] | `Redb` (feature `redb`) | `CouchDb` (feature `couchdb`) | `Couchbase` (feature `couchbase`) |
//! |---|---|---|---|---|
//! | `get`, `get_many` | a map under one lock | one read transaction | `GET`; one `_all_docs` for a batch | key-value get; 64 at a time |
//! | `get_revision` | the value, if it carries the token | the same | `GET` with `rev` (a conflict's revision) | the same as MemoryStore |
//! | `insert`, `replace`, `remove` | under the lock | one write transaction each | `PUT` / `DELETE` with `_rev` | key-value insert / replace / remove with CAS |
//! | `insert_many` | under one lock | one transaction | one `_bulk_docs` | 64 inserts at a time |
//! | `write_atomic` | yes, under one lock | yes, one transaction | no | no |
//! | `transact` (a read-modify-write: `Repo::update`) | yes, under one lock | yes, one write transaction | no | no |
//! | `counter` | under the lock | one transaction | a compare-and-swap loop on a document | Couchbase's binary counter |
//! | `scan`, `scan_range` (in pages) | the map's range | a table range | `_all_docs` from the prefix (ranges: the trait's default) | SQL++ keyset pages over `META().id` (the index `docmodel__keys`) |
//! | `query`, `create_index` | no | no | Mango: `_find`, `_index` | SQL++ on the collection |
//! | expiry | yes (the store's clock) | yes (the store's clock) | no | yes (the server's) |
//! | `ensure_validation` | no | no | a design document's `validate_doc_update` | no |
//!
//! Where a cell says "no", the trait's default refuses the operation with an
//! [`Unsupported`](StoreErrorKind::Unsupported) error and [`Capabilities`] says so; the repository never
//! calls it there. A store lists keys a page at a time ([`ScanPage`], [`KeyPages`]), never every key at once.
//!
//! # Stores around stores
//!
//! A wrapper (tracing, metrics, a test's hooks) is a [`Layer`]: it says what it does around each call
//! ([`Layer::around`], given a [`Call`]), and the one implementation of `Store` for every layer passes each
//! operation and capability on to the store it wraps, so none can be forgotten. A borrowed store, an
//! `Arc` and a `Box` are layers that do nothing; [`DynStore`] erases a store's type.

#[cfg(feature = "couchbase")]
mod couchbase;
#[cfg(feature = "couchdb")]
mod couchdb;
mod dynamic;
mod layer;
mod listing;
mod memory;
#[cfg(feature = "redb")]
mod redb;
pub(crate) mod write;

use std::fmt;
use std::future::Future;
use std::sync::Arc;

#[cfg(feature = "couchbase")]
pub use self::couchbase::{Couchbase, CouchbaseBuilder, QueryConsistency};
#[cfg(feature = "couchdb")]
pub use self::couchdb::{CouchDb, CouchDbBuilder};
pub use self::dynamic::DynStore;
pub use self::layer::{Call, Layer, Operation, Reply};
pub(crate) use self::listing::DEFAULT_PAGE;
pub use self::listing::{KeyPages, ScanPage};
pub use self::memory::MemoryStore;
#[cfg(feature = "redb")]
pub use self::redb::Redb;
pub use self::write::{Transaction, Write, WriteOptions};
#[cfg(doc)]
use crate::{Durability, Expiry};
use crate::{Error, StoreErrorKind};

/// A compare-and-swap token: what a store returned with a value, handed back to replace or remove exactly
/// that value. Opaque to the runtime: Couchbase's 64-bit CAS and CouchDB's `_rev` string both fit.
///
/// ```
/// use docmodel::store::Cas;
///
/// assert_eq!(Cas::from_u64(7).as_u64(), Some(7));
/// assert_eq!(Cas::from_revision("2-967a00dff5e02add41819138abb3284d").as_u64(), None);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Cas(CasValue);

#[derive(Clone, PartialEq, Eq, Hash)]
enum CasValue {
    Number(u64),
    Revision(Arc<str>),
}

impl Cas {
    /// A numeric token, as Couchbase and the embedded stores use.
    pub fn from_u64(value: u64) -> Self {
        Cas(CasValue::Number(value))
    }

    /// A revision string, as CouchDB's `_rev`.
    pub fn from_revision(revision: impl Into<Arc<str>>) -> Self {
        Cas(CasValue::Revision(revision.into()))
    }

    /// The numeric token, if it is one.
    pub fn as_u64(&self) -> Option<u64> {
        match &self.0 {
            CasValue::Number(value) => Some(*value),
            CasValue::Revision(_) => None,
        }
    }

    /// The revision string, if it is one.
    pub fn as_revision(&self) -> Option<&str> {
        match &self.0 {
            CasValue::Number(_) => None,
            CasValue::Revision(revision) => Some(revision),
        }
    }
}

impl fmt::Debug for Cas {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            CasValue::Number(value) => write!(f, "Cas({value})"),
            CasValue::Revision(revision) => write!(f, "Cas({revision:?})"),
        }
    }
}

/// A value as a store holds it: the bytes, their compare-and-swap token, and the revisions it is in conflict
/// with (only a store that replicates between servers has any).
///
/// ```
/// use docmodel::store::{Cas, Stored};
///
/// let stored = Stored::new(&b"{}"[..], Cas::from_u64(1));
/// assert!(stored.conflicts.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stored {
    /// The stored bytes.
    pub bytes: Arc<[u8]>,
    /// The token to replace or remove exactly these bytes.
    pub cas: Cas,
    /// The tokens of the other revisions of the value, when the store holds more than one: CouchDB's
    /// `_conflicts`, the revisions that lost to this one when two servers changed the value and replicated.
    /// Each can be read with [`Store::get_revision`] and removed with [`Store::remove`]. Empty on every store
    /// that keeps one value per key.
    pub conflicts: Vec<Cas>,
}

impl Stored {
    /// A value with no conflicting revisions.
    pub fn new(bytes: impl Into<Arc<[u8]>>, cas: Cas) -> Self {
        Stored {
            bytes: bytes.into(),
            cas,
            conflicts: Vec::new(),
        }
    }

    /// This value, in conflict with the revisions `conflicts`.
    pub fn with_conflicts(mut self, conflicts: Vec<Cas>) -> Self {
        self.conflicts = conflicts;
        self
    }
}

/// What a store can do beyond the operations every store has, and what it cannot hold.
///
/// ```
/// use docmodel::store::{Capabilities, MemoryStore, Store};
///
/// let caps = MemoryStore::new().capabilities();
/// assert!(caps.scan);
/// assert!(!caps.reserves_underscore_fields);
/// assert_eq!(Capabilities::MINIMAL.scan, false);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Capabilities {
    /// [`Store::scan`] lists the keys under a prefix. Reads and saves never need it (revision copies live at
    /// keys the repository computes); whole-store work does: [`Repo::sweep`](crate::Repo::sweep) and a
    /// `remove` that finds no document (leftover copies), [`Repo::migrate_all`](crate::Repo::migrate_all)
    /// without a key list, index entries on a store without a query language, and a `find` no index serves.
    pub scan: bool,
    /// The store refuses top-level fields starting with `_` (CouchDB: "Bad special document member"), so a
    /// model with the `flat` envelope layout cannot be kept in it.
    pub reserves_underscore_fields: bool,
    /// The query language [`Store::query`] and [`Store::create_index`] take, if the store has one. A
    /// repository on such a store finds documents through it ([`Repo::find`](crate::Repo::find)) and creates
    /// the model's indexes in it ([`Repo::ensure_indexes`](crate::Repo::ensure_indexes)), rather than keeping
    /// index entries of its own.
    pub query: Option<QueryLanguage>,
    /// The store keeps an [`Expiry`] other than [`Expiry::Keep`] and [`Expiry::Never`]: a value written
    /// with [`Expiry::After`] is gone after that long. A store without it refuses such a write.
    pub expiry: bool,
    /// [`Store::write_atomic`] makes a batch of writes all at once or not at all (an embedded store's
    /// transaction). A repository on such a store makes a save one batch (the revision copy, the
    /// compare-and-swap replace and the prune of the copy leaving the window), and migrates a whole batch of
    /// documents in one. A [`Layer`] passes this and [`write_atomic`](Store::write_atomic) on together; a
    /// store written by hand that passes this on but leaves `write_atomic` to the trait's default (which
    /// fails with [`Unsupported`](StoreErrorKind::Unsupported)) still works, each save made in steps after
    /// its batch is refused, at the cost of that refusal.
    pub atomic_writes: bool,
    /// [`Store::transact`] runs a read-modify-write in one write transaction, on the calling thread (an
    /// embedded store with one writer at a time: `MemoryStore`, `Redb`). A repository on such a store makes
    /// an [`update`](crate::Repo::update) there: another writer waits for it rather than making it conflict.
    /// A [`Layer`] passes this on; one that must see each operation a repository makes (a test's hooks)
    /// takes it away, and the repository then makes its updates with compare-and-swap, as on any store.
    pub transactions: bool,
}

/// A store's own query language: what [`Store::query`] and [`Store::create_index`] take, as bytes.
///
/// ```
/// use docmodel::store::{Capabilities, QueryLanguage};
///
/// let caps = Capabilities::MINIMAL.with_query(Some(QueryLanguage::Mango));
/// assert_eq!(caps.query, Some(QueryLanguage::Mango));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum QueryLanguage {
    /// CouchDB's Mango: a query is the JSON body of `POST /{db}/_find`, an index the JSON body of
    /// `POST /{db}/_index`.
    Mango,
    /// Couchbase's SQL++: a query or an index is the JSON object
    /// `{"statement": ["SELECT ... FROM ", " AS d WHERE ... $p1 ..."], "args": {"p1": 5}}`. The statement is
    /// in pieces, which the store joins with its keyspace (`` `bucket`.`scope`.`collection` ``: the
    /// repository writes the statement without knowing it, and a keyspace cannot be a parameter); every
    /// value travels in `args`, a named parameter each, never in the text. A query's rows are
    /// `{"id": key, "cas": cas, "doc": document}`. A query also names the index that serves it, `"index":
    /// "docmodel_order__type"`, which the model's [`Repo::ensure_indexes`](crate::Repo::ensure_indexes)
    /// creates: a store names it when no index serves the query.
    SqlPlusPlus,
}

impl Capabilities {
    /// What every store can do: the seven operations of [`Store`], no scan, any field name, no
    /// expiry, no atomic batches.
    pub const MINIMAL: Capabilities = Capabilities {
        scan: false,
        reserves_underscore_fields: false,
        query: None,
        expiry: false,
        atomic_writes: false,
        transactions: false,
    };

    /// These capabilities, with [`scan`](Capabilities::scan) set as given.
    pub const fn with_scan(mut self, scan: bool) -> Self {
        self.scan = scan;
        self
    }

    /// These capabilities, with [`reserves_underscore_fields`](Capabilities::reserves_underscore_fields) set
    /// as given.
    pub const fn with_reserved_underscore_fields(mut self, reserved: bool) -> Self {
        self.reserves_underscore_fields = reserved;
        self
    }

    /// These capabilities, with [`query`](Capabilities::query) set as given.
    pub const fn with_query(mut self, query: Option<QueryLanguage>) -> Self {
        self.query = query;
        self
    }

    /// These capabilities, with [`expiry`](Capabilities::expiry) set as given.
    pub const fn with_expiry(mut self, expiry: bool) -> Self {
        self.expiry = expiry;
        self
    }

    /// These capabilities, with [`atomic_writes`](Capabilities::atomic_writes) set as given.
    pub const fn with_atomic_writes(mut self, atomic: bool) -> Self {
        self.atomic_writes = atomic;
        self
    }

    /// These capabilities, with [`transactions`](Capabilities::transactions) set as given.
    pub const fn with_transactions(mut self, transactions: bool) -> Self {
        self.transactions = transactions;
        self
    }
}

/// A key-value store of documents, with compare-and-swap.
///
/// Methods are `async` and their futures are `Send`, so any executor can drive them. The built-in stores do
/// their work when a method is called (an embedded store has nothing to wait for); a network store does it
/// when the future is polled. Errors are [`Error::NotFound`], [`Error::AlreadyExists`], [`Error::Conflict`]
/// (a CAS mismatch) or [`Error::Store`] (the backend failed, classed by [`StoreErrorKind`]
/// so that a retry can act on it); each names the key.
///
/// The contract the repository relies on, and every backend keeps:
/// - `insert` fails if the key holds anything; `replace` and `remove` with a token act only if the value still
///   carries it, and every successful write gives the value a token it never had before under that key;
/// - `get` returns the bytes as docmodel wrote them, or the same JSON re-serialised (a store may add and must
///   strip its own bookkeeping fields, as CouchDB's `_id` and `_rev`);
/// - a value past its [`Expiry`] is gone for every operation: a read finds nothing, an insert succeeds, a
///   replace or removal is [`Error::NotFound`];
/// - a failed operation of kind [`Transient`](crate::StoreErrorKind::Transient),
///   [`Permanent`](crate::StoreErrorKind::Permanent) or [`Unsupported`](crate::StoreErrorKind::Unsupported)
///   did not happen; only
///   [`Ambiguous`](crate::StoreErrorKind::Ambiguous) may have.
///
/// A backend implements the three writes with [`WriteOptions`] (`insert_with`, `replace_with`,
/// `remove_with`); `insert`, `replace` and `remove` are those with [`WriteOptions::DEFAULT`], so a wrapper
/// that forwards the three sees every write.
///
/// A `Store` is used through generics; [`DynStore`] gives one that is chosen at run time.
pub trait Store: Send + Sync {
    /// The value under `key`, if any.
    fn get(&self, key: &str) -> impl Future<Output = Result<Option<Stored>, Error>> + Send;

    /// The values under `keys`, in the same order, `None` where there is none. The default calls
    /// [`get`](Store::get) for each key; a store with a batch read overrides it with one round trip.
    fn get_many(
        &self,
        keys: &[&str],
    ) -> impl Future<Output = Result<Vec<Option<Stored>>, Error>> + Send {
        async move {
            let mut found = Vec::with_capacity(keys.len());
            for key in keys {
                found.push(self.get(key).await?);
            }
            Ok(found)
        }
    }

    /// The revision of the value under `key` that carries the token `cas`, if the store still holds it: one
    /// of the [`conflicts`](Stored::conflicts) of a value, or the value itself. The default (for a store that
    /// keeps one value per key) returns the value if its token is `cas`.
    fn get_revision(
        &self,
        key: &str,
        cas: &Cas,
    ) -> impl Future<Output = Result<Option<Stored>, Error>> + Send {
        async move { Ok(self.get(key).await?.filter(|stored| stored.cas == *cas)) }
    }

    /// Stores `value` under `key`, which must be free: [`Error::AlreadyExists`] otherwise.
    fn insert(&self, key: &str, value: &[u8]) -> impl Future<Output = Result<Cas, Error>> + Send {
        self.insert_with(key, value, &WriteOptions::DEFAULT)
    }

    /// [`insert`](Store::insert), made as `options` say: a value that expires, a durability to wait for.
    /// A store refuses (with an [`Unsupported`](StoreErrorKind::Unsupported) [`Error::Store`], before
    /// writing) an expiry it cannot keep
    /// ([`Capabilities::expiry`]).
    fn insert_with(
        &self,
        key: &str,
        value: &[u8],
        options: &WriteOptions,
    ) -> impl Future<Output = Result<Cas, Error>> + Send;

    /// Inserts each of `values` (a key and its bytes) as [`insert_with`](Store::insert_with) would, each on
    /// its own: one that fails (its key taken: [`Error::AlreadyExists`]) fails alone, and the others are
    /// written. Returns each one's outcome, in the order of `values`; a failure of the whole request (the
    /// connection, the file) is each one's error, naming its key. It is the path for loading data: a store
    /// with a bulk operation makes them all in one ([`MemoryStore`] under one lock, [`Redb`] in one
    /// transaction, CouchDB in one `_bulk_docs` request); the default inserts them one after another. For
    /// all of a batch or none of it, see [`write_atomic`](Store::write_atomic).
    ///
    /// ```
    /// use docmodel::Error;
    /// use docmodel::store::{MemoryStore, Store, WriteOptions};
    ///
    /// # pollster::block_on(async {
    /// let store = MemoryStore::new();
    /// store.insert("user::2", b"{}").await?;
    /// let values: [(&str, &[u8]); 3] = [("user::1", b"{}"), ("user::2", b"{}"), ("user::3", b"{}")];
    /// let outcomes = store.insert_many(&values, &WriteOptions::DEFAULT).await;
    /// assert!(outcomes[0].is_ok() && outcomes[2].is_ok());
    /// assert!(matches!(&outcomes[1], Err(Error::AlreadyExists { key }) if key == "user::2"));
    /// assert_eq!(store.keys(), ["user::1", "user::2", "user::3"]);
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    fn insert_many(
        &self,
        values: &[(&str, &[u8])],
        options: &WriteOptions,
    ) -> impl Future<Output = Vec<Result<Cas, Error>>> + Send {
        async move {
            let mut outcomes = Vec::with_capacity(values.len());
            for (key, value) in values {
                outcomes.push(self.insert_with(key, value, options).await);
            }
            outcomes
        }
    }

    /// Replaces the value under `key` if its token is still `cas`: [`Error::Conflict`] if it changed,
    /// [`Error::NotFound`] if it is gone. The value's expiry, if it has one, is kept.
    fn replace(
        &self,
        key: &str,
        value: &[u8],
        cas: &Cas,
    ) -> impl Future<Output = Result<Cas, Error>> + Send {
        self.replace_with(key, value, cas, &WriteOptions::DEFAULT)
    }

    /// [`replace`](Store::replace), made as `options` say: [`Expiry::Keep`] keeps the value's expiry,
    /// [`Expiry::Never`] takes it away, [`Expiry::After`] sets it again.
    fn replace_with(
        &self,
        key: &str,
        value: &[u8],
        cas: &Cas,
        options: &WriteOptions,
    ) -> impl Future<Output = Result<Cas, Error>> + Send;

    /// Removes the value under `key`; with `cas`, only if its token is still that one. On a store with
    /// conflicting revisions, `cas` may name one of them: that revision is removed, and the others stay.
    fn remove(
        &self,
        key: &str,
        cas: Option<&Cas>,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        self.remove_with(key, cas, &WriteOptions::DEFAULT)
    }

    /// [`remove`](Store::remove), with the durability `options` ask for (their expiry means nothing here).
    fn remove_with(
        &self,
        key: &str,
        cas: Option<&Cas>,
        options: &WriteOptions,
    ) -> impl Future<Output = Result<(), Error>> + Send;

    /// Makes `writes` all at once, or none of them: only where
    /// [`capabilities().atomic_writes`](Capabilities::atomic_writes) says so. Each write is checked as its
    /// single form checks it, against the store as the writes before it leave it; the first that fails
    /// fails the batch with its error (naming its key), and nothing is written. Returns the new token of
    /// each insert and replace, `None` for each removal, in the order of `writes`. `options` apply to each
    /// write as they would to its single form. The default fails with an
    /// [`Unsupported`](StoreErrorKind::Unsupported) [`Error::Store`] and writes nothing.
    ///
    /// ```
    /// use docmodel::Error;
    /// use docmodel::store::{MemoryStore, Store, Write, WriteOptions};
    ///
    /// # pollster::block_on(async {
    /// let store = MemoryStore::new();
    /// let cas = store.insert("user::1", b"{\"v\":1}").await?;
    /// let stale = cas.clone();
    /// let tokens = store
    ///     .write_atomic(
    ///         &[
    ///             Write::Insert { key: "user::1::v::1", value: b"{\"v\":1}" },
    ///             Write::Replace { key: "user::1", value: b"{\"v\":2}", cas: &cas },
    ///         ],
    ///         &WriteOptions::DEFAULT,
    ///     )
    ///     .await?;
    /// assert!(tokens.iter().all(Option::is_some));
    ///
    /// // The same batch again: its copy insert would pass, its replace holds a stale token, so neither is made.
    /// let again = [
    ///     Write::Insert { key: "user::1::v::2", value: b"{\"v\":2}" },
    ///     Write::Replace { key: "user::1", value: b"{\"v\":3}", cas: &stale },
    /// ];
    /// let err = store.write_atomic(&again, &WriteOptions::DEFAULT).await.unwrap_err();
    /// assert!(matches!(err, Error::Conflict { ref key } if key == "user::1"));
    /// assert!(store.get("user::1::v::2").await?.is_none());
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    fn write_atomic(
        &self,
        writes: &[Write<'_>],
        options: &WriteOptions,
    ) -> impl Future<Output = Result<Vec<Option<Cas>>, Error>> + Send {
        let _ = options;
        std::future::ready(Err(Error::store_with(
            StoreErrorKind::Unsupported,
            writes.first().map_or("", Write::key),
            "this store cannot make a batch of writes atomically (`Capabilities::atomic_writes`)",
        )))
    }

    /// Runs `work` in one write transaction, on the calling thread: no other writer changes the store
    /// between its first read and its commit (they wait). What `work` wrote through the [`Transaction`] is
    /// committed when it returns `Ok`, with the durability `options` ask for (each write gives its own
    /// expiry; one with [`Expiry::After`] is refused by a store, with an
    /// [`Unsupported`](StoreErrorKind::Unsupported) error, unless `options` set one too); when it returns an
    /// error, nothing is written and that error is returned. `work` is called once, and must not use the store itself (it would wait for itself). Only
    /// where [`capabilities().transactions`](Capabilities::transactions) says so; the default fails with an
    /// [`Unsupported`](StoreErrorKind::Unsupported) [`Error::Store`] without calling `work`.
    ///
    /// ```
    /// use docmodel::store::{MemoryStore, Store, Transaction, Write, WriteOptions};
    ///
    /// # pollster::block_on(async {
    /// let store = MemoryStore::new();
    /// store.insert("hits", b"1").await?;
    /// store.transact(&WriteOptions::DEFAULT, &mut |tx: &mut dyn Transaction| {
    ///     let read = tx.get("hits")?.expect("inserted above");
    ///     let hits: u64 = std::str::from_utf8(&read.bytes).unwrap().parse().unwrap();
    ///     let value = (hits + 1).to_string();
    ///     let write = Write::Replace { key: "hits", value: value.as_bytes(), cas: &read.cas };
    ///     tx.write(&write, &WriteOptions::DEFAULT).map(drop)
    /// })?;
    /// assert_eq!(&*store.get("hits").await?.unwrap().bytes, b"2");
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    fn transact(
        &self,
        options: &WriteOptions,
        work: &mut dyn FnMut(&mut dyn Transaction) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let _ = (options, work);
        Err(Error::store_with(
            StoreErrorKind::Unsupported,
            "",
            "this store cannot run a read-modify-write in one transaction (`Capabilities::transactions`)",
        ))
    }

    /// Adds `delta` to the counter under `key` (created at 0) and returns its new value, atomically. The
    /// counter is stored as a JSON object, `{"value":1}`, which every document store can hold; Couchbase
    /// keeps its own binary counter there (bare digits).
    fn counter(&self, key: &str, delta: u64) -> impl Future<Output = Result<u64, Error>> + Send;

    /// What this store can do beyond the operations above. The default is [`Capabilities::MINIMAL`].
    ///
    /// A store that claims a capability implements the operations it names as well
    /// ([`scan`](Store::scan), [`query`](Store::query), [`write_atomic`](Store::write_atomic)...): the
    /// trait's defaults of those fail with [`Unsupported`](StoreErrorKind::Unsupported). A wrapper written
    /// as a [`Layer`] passes both on, and cannot leave one out.
    fn capabilities(&self) -> Capabilities {
        Capabilities::MINIMAL
    }

    /// The store's name in traces (feature `tracing`), OpenTelemetry's `db.system`: `couchdb` and
    /// `couchbase` as OpenTelemetry names them, `redb` and `memory` for docmodel's own. The default is
    /// `other`; a wrapper passes on its store's.
    fn system(&self) -> &'static str {
        "other"
    }

    /// One page of the keys that start with `prefix`, in the store's key order: those after
    /// [`page.after`](ScanPage::after), at most [`page.limit`](ScanPage::limit) of them, fewer only where the
    /// listing ends. Only where [`capabilities().scan`](Capabilities::scan) says so; [`KeyPages`] walks a
    /// whole listing. The default fails with an [`Unsupported`](StoreErrorKind::Unsupported)
    /// [`Error::Store`].
    fn scan(
        &self,
        prefix: &str,
        page: ScanPage<'_>,
    ) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        let _ = page;
        std::future::ready(Err(Error::store_with(
            StoreErrorKind::Unsupported,
            prefix,
            "this store cannot list keys by prefix (it has no scan)",
        )))
    }

    /// One page of the keys `k` with `start <= k < end`, paged as [`scan`](Store::scan) pages: only where
    /// [`capabilities().scan`](Capabilities::scan) says so. The default pages through the prefix `start`
    /// and `end` share and keeps the keys in the range (to the prefix's end: a store's key order need not
    /// be byte order); a store that can read a range directly should.
    fn scan_range(
        &self,
        start: &str,
        end: &str,
        page: ScanPage<'_>,
    ) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        async move {
            let mut keys = Vec::new();
            if page.limit == 0 || start >= end {
                return Ok(keys);
            }
            let shared = start
                .char_indices()
                .zip(end.chars())
                .find(|((_, a), b)| a != b)
                .map_or(start.len().min(end.len()), |((at, _), _)| at);
            let mut after = page.after.map(str::to_owned);
            loop {
                let listed = self
                    .scan(
                        &start[..shared],
                        ScanPage {
                            after: after.as_deref(),
                            limit: page.limit,
                        },
                    )
                    .await?;
                let more = listed.len() >= page.limit;
                after = listed.last().cloned();
                for key in listed {
                    if key.as_str() >= start && key.as_str() < end {
                        keys.push(key);
                        if keys.len() == page.limit {
                            return Ok(keys);
                        }
                    }
                }
                if !more {
                    return Ok(keys);
                }
            }
        }
    }

    /// The documents `query` selects, each with its key, in the order the query gives: only where
    /// [`capabilities().query`](Capabilities::query) names the language `query` is written in (the
    /// repository writes it). Each document is as [`get`](Store::get) returns it, its bookkeeping taken out.
    /// The default fails with an [`Unsupported`](StoreErrorKind::Unsupported) [`Error::Store`].
    fn query(
        &self,
        query: &[u8],
    ) -> impl Future<Output = Result<Vec<(String, Stored)>, Error>> + Send {
        let _ = query;
        std::future::ready(Err(Error::store_with(
            StoreErrorKind::Unsupported,
            "",
            "this store has no query language (`Capabilities::query`)",
        )))
    }

    /// Creates the index `definition` describes, in the language [`capabilities().query`](Capabilities::query)
    /// names, unless it exists: creating it again changes nothing. The default fails with an
    /// [`Unsupported`](StoreErrorKind::Unsupported) [`Error::Store`].
    fn create_index(&self, definition: &[u8]) -> impl Future<Output = Result<(), Error>> + Send {
        let _ = definition;
        std::future::ready(Err(Error::store_with(
            StoreErrorKind::Unsupported,
            "",
            "this store has no query language (`Capabilities::query`)",
        )))
    }

    /// Installs `function` as the `validate_doc_update` function of the design document `_design/{name}`,
    /// which the server runs on every write of every client, unless it is installed as it is already:
    /// `Ok(true)` when it wrote it, `Ok(false)` when there was nothing to change. Only CouchDB runs such
    /// functions; the default fails with an [`Unsupported`](StoreErrorKind::Unsupported) [`Error::Store`].
    fn ensure_validation(
        &self,
        name: &str,
        function: &str,
    ) -> impl Future<Output = Result<bool, Error>> + Send {
        let _ = function;
        std::future::ready(Err(Error::store_with(
            StoreErrorKind::Unsupported,
            name,
            format!(
                "{} runs no validation function of its own: docmodel validates every write it makes, and only \
                 CouchDB enforces a model's schema on other clients' writes",
                self.system()
            ),
        )))
    }
}

/// A counter's value as stored: `{"value":7}`. Bare digits, as Couchbase keeps counters and docmodel 0.1
/// wrote them, are read too.
pub(crate) fn parse_counter(key: &str, bytes: &[u8]) -> Result<u64, Error> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Counter {
        value: u64,
    }
    serde_json::from_slice::<Counter>(bytes)
        .map(|counter| counter.value)
        .or_else(|_| serde_json::from_slice::<u64>(bytes))
        .map_err(|_| {
            Error::store(
                key,
                format!(
                    "the value under `{key}` is not a counter (`{{\"value\": n}}`): {:?}",
                    String::from_utf8_lossy(bytes)
                ),
            )
        })
}

/// `error`, which failed a whole batch, as the error of one of its writes, under `key`: the same kind (a
/// failure that may have written stays ambiguous), its message that of the batch.
pub(crate) fn failed_with_batch(error: &Error, key: &str) -> Error {
    let kind = match error {
        Error::Store { kind, .. } => *kind,
        _ => StoreErrorKind::Permanent,
    };
    Error::store_with(
        kind,
        key,
        format!("the batch it was written in failed: {error}"),
    )
}

/// The stored form of a counter's value.
pub(crate) fn counter_bytes(value: u64) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(32);
    bytes.extend_from_slice(b"{\"value\":");
    bytes.extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
    bytes.push(b'}');
    bytes
}

pub(crate) fn add_counter(key: &str, current: u64, delta: u64) -> Result<u64, Error> {
    current
        .checked_add(delta)
        .ok_or_else(|| Error::store(key, format!("the counter `{key}` would overflow")))
}

/// The compare-and-swap rule every backend applies to `replace` and `remove`: the value must exist, and with
/// a token, still carry it.
pub(crate) fn check_cas(
    key: &str,
    current: Option<&Cas>,
    expected: Option<&Cas>,
) -> Result<(), Error> {
    match (current, expected) {
        (None, _) => Err(Error::NotFound {
            key: key.to_owned(),
        }),
        (Some(current), Some(expected)) if current != expected => Err(Error::Conflict {
            key: key.to_owned(),
        }),
        (Some(_), _) => Ok(()),
    }
}

/// What a write expects to find under its key: nothing (`insert`), or the value of a token (`replace`).
#[derive(Clone, Copy)]
pub(crate) enum Expect<'c> {
    Absent,
    Cas(&'c Cas),
}

impl Expect<'_> {
    /// The rule every backend applies before it writes: `insert` refuses an existing value, `replace` one that
    /// is gone or carries another token.
    pub(crate) fn check(self, key: &str, current: Option<&Cas>) -> Result<(), Error> {
        match self {
            Expect::Absent if current.is_some() => Err(Error::AlreadyExists {
                key: key.to_owned(),
            }),
            Expect::Absent => Ok(()),
            Expect::Cas(expected) => check_cas(key, current, Some(expected)),
        }
    }
}
