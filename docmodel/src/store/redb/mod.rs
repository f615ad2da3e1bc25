//! `store::Redb`: the embedded default, one file with ACID transactions (the `redb` crate).
//!
//! **A damaged file.** redb trusts a file it closed cleanly, and may panic on one damaged since (bytes
//! changed by a disk, a copy or another program): an `unreachable` or an `assert!` deep in its B-tree code.
//! Two defences keep that from being a crash of the user's program:
//!
//! 1. [`Redb::open`] opens with redb's integrity check
//!    ([`Builder::set_check_integrity_on_open`](redb::Builder::set_check_integrity_on_open)), which verifies
//!    the checksum of every page the file's trees hold and reports a damaged file as
//!    [`StorageError::Corrupted`](redb::StorageError::Corrupted) rather than panicking. It runs on every
//!    open, not only when redb says the file needs repair: redb finds that a crash needs repair and then
//!    verifies the file anyway, but a file damaged after a clean close looks clean to it, and that is the
//!    case that panics. The check reads the whole file: on a file of 10,000 small documents (4 MiB) an open
//!    took 16 ms with it and 4 ms without (warm page cache; 32 ms against 3 ms at 100,000 documents,
//!    33 MiB). A store is opened once a process, so that is paid once.
//! 2. Every call into redb runs under [`catch_unwind`](std::panic::catch_unwind), at this boundary
//!    ([`Engine::guard`]): what the check cannot see (a file changed under an open store, a redb assertion
//!    on data the checksums pass, the close) becomes a permanent [`Error::Store`] naming the file and
//!    saying it looks damaged, with redb's panic message. redb's state after a panic is not to be trusted,
//!    so the handle (and its clones) is marked damaged and every later operation fails at once with the
//!    same error, without calling into redb again. The guard is one atomic load and a `catch_unwind`: a get
//!    on a store in memory took 0.84 µs with it and without it (release build, a million gets).
//!
//! The panic hook still prints redb's panic message to stderr: a library does not replace the process's
//! hook. Under `panic = "abort"` nothing unwinds, and only the integrity check on open protects.
//!
//! Where things are: this file holds [`Redb`], its tables, opening it (a file or in memory), its settings,
//! flush and purge, and its [`Store`] impl; `guard` the damaged-file guard ([`Engine`], the `catch_unwind`
//! boundary and the errors naming the file); `writes` the write transactions ([`Tables`](writes::Tables));
//! `reads` the read transactions and the reads and scans made on them.

mod guard;
mod reads;
mod writes;

use std::future::Future;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use redb::{Database, ReadableTable, ReadableTableMetadata, TableDefinition};

use self::guard::{Engine, FileError, catch, file_error, opening};
use super::{Capabilities, Cas, Expect, ScanPage, Store, Stored, Transaction, Write, WriteOptions};
use crate::Durability;
use crate::{Error, Timestamp};

/// Every document, revision copy and counter: key -> (CAS token, bytes).
const VALUES: TableDefinition<&str, (u64, &[u8])> = TableDefinition::new("docmodel_values");
/// The last CAS token handed out, under one key.
const META: TableDefinition<&str, u64> = TableDefinition::new("docmodel_meta");
const LAST_CAS: &str = "last_cas";
/// When each value that expires does: key -> milliseconds since the Unix epoch.
const EXPIRES: TableDefinition<&str, i64> = TableDefinition::new("docmodel_expires");

/// A store in one file. Each operation is its own transaction (a [`write_atomic`](Store::write_atomic) batch
/// is one too): when it returns, its write is durable, and a crash never leaves half of one. Reopening the
/// file finds everything that was written. (A handle made [`eventual`](Redb::eventual) trades the first of
/// those for speed: a crash loses its writes since the last durable one.)
///
/// Operations run on the calling thread (an embedded store has nothing to wait for but the disk). Cloning it
/// shares the same database.
///
/// ```
/// use docmodel::store::{Redb, Store};
///
/// # pollster::block_on(async {
/// let path = std::env::temp_dir().join(format!("docmodel-doctest-{}.redb", std::process::id()));
/// # let _ = std::fs::remove_file(&path);
/// {
///     let store = Redb::open(&path)?;
///     store.insert("user::1", b"{}").await?;
/// }
/// let store = Redb::open(&path)?;
/// assert_eq!(&*store.get("user::1").await?.unwrap().bytes, b"{}");
/// # std::fs::remove_file(&path).unwrap();
/// # Ok::<(), docmodel::Error>(())
/// # }).unwrap();
/// ```
///
/// Values written with an [`Expiry`](crate::Expiry) are gone once the store's clock passes it (the system
/// clock unless [`Redb::with_clock`] sets one): no operation finds them, and the next write under the key,
/// or [`Redb::purge_expired`], takes them out of the file.
///
/// A damaged file (bytes changed by a disk, a copy or another program) is a permanent [`Error::Store`]
/// naming it and saying it looks damaged, never a panic: [`Redb::open`] checks the file's integrity, and a
/// panic inside redb on damage it cannot see (made while the store is open) is caught and becomes that
/// error, after which every operation of the handle and its clones fails with it at once, without calling
/// redb again. The process's panic hook still prints redb's panic message; under `panic = "abort"` only the
/// check on open protects.
#[derive(Clone)]
pub struct Redb {
    engine: Arc<Engine>,
    /// Whether any value may expire: until one is written with an expiry, no operation reads `EXPIRES`.
    expiring: Arc<AtomicBool>,
    /// The clock expiry is measured on; the system clock when `None`.
    clock: Option<Arc<dyn Fn() -> Timestamp + Send + Sync>>,
    /// Whether this handle's writes commit without waiting for the disk ([`Redb::eventual`]).
    eventual: bool,
}

impl std::fmt::Debug for Redb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redb")
            .field("path", &self.engine.path)
            .field("eventual", &self.eventual)
            .finish_non_exhaustive()
    }
}

fn backend(key: &str, err: impl Into<redb::Error>) -> Error {
    Error::store(key, err.into())
}

/// The token as this store holds it; a token of another store never matches.
fn stored_cas(cas: &Cas) -> Option<u64> {
    cas.as_u64()
}

impl Redb {
    /// Opens the store in the file at `path`, creating it if it does not exist.
    ///
    /// The open checks the file's integrity, reading all of it (on a file of 10,000 small documents, an open
    /// takes about 16 ms rather than 4): a damaged file is a permanent [`Error::Store`] saying so, and a file
    /// another `Redb` or process has open is one saying that. Either names the file.
    ///
    /// ```
    /// use docmodel::store::Redb;
    ///
    /// let path = std::env::temp_dir().join(format!("docmodel-doctest-open-{}.redb", std::process::id()));
    /// # let _ = std::fs::remove_file(&path);
    /// let store = Redb::open(&path)?;
    /// let err = Redb::open(&path).unwrap_err();
    /// assert!(err.to_string().contains("is open elsewhere"));
    /// # drop(store);
    /// # std::fs::remove_file(&path).unwrap();
    /// # Ok::<(), docmodel::Error>(())
    /// ```
    pub fn open(path: impl AsRef<Path>) -> Result<Self, Error> {
        Self::open_with(path.as_ref(), None)
    }

    /// [`Redb::open`], with redb's page cache held to `bytes` (redb's default is 1 GiB): a process that
    /// walks a large file keeps at most that much of it in memory.
    ///
    /// ```
    /// use docmodel::store::Redb;
    ///
    /// let path = std::env::temp_dir().join(format!("docmodel-doctest-cache-{}.redb", std::process::id()));
    /// # let _ = std::fs::remove_file(&path);
    /// let store = Redb::open_with_cache(&path, 16 << 20)?;
    /// # drop(store);
    /// # std::fs::remove_file(&path).unwrap();
    /// # Ok::<(), docmodel::Error>(())
    /// ```
    pub fn open_with_cache(path: impl AsRef<Path>, bytes: usize) -> Result<Self, Error> {
        Self::open_with(path.as_ref(), Some(bytes))
    }

    fn open_with(path: &Path, cache: Option<usize>) -> Result<Self, Error> {
        let label = format!("redb file `{}`", path.display());
        let db = catch(|| {
            let mut builder = Database::builder();
            builder.set_check_integrity_on_open(true);
            if let Some(bytes) = cache {
                builder.set_cache_size(bytes);
            }
            builder.create(path)
        });
        let db = match db {
            Ok(opened) => opened.map_err(|err| opening(&label, err))?,
            // The database was never made: there is no engine to mark, and the next open panics or fails
            // the same way.
            Err(panic) => {
                return Err(file_error(
                    None,
                    FileError {
                        label,
                        problem: format!("looks damaged: redb panicked opening it ({panic})"),
                        source: None,
                    },
                ));
            }
        };
        Self::with_tables(db, label, Some(path))
    }

    /// A store in memory, with the same transactions as a file but nothing written to disk: for tests, and
    /// for data that need not outlive the process.
    ///
    /// ```
    /// use docmodel::store::{Redb, Store};
    ///
    /// # pollster::block_on(async {
    /// let store = Redb::in_memory()?;
    /// store.insert("user::1", b"{}").await?;
    /// assert_eq!(store.path(), None);
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn in_memory() -> Result<Self, Error> {
        const LABEL: &str = "redb store in memory";
        let db = Database::builder()
            .create_with_backend(redb::backends::InMemoryBackend::new())
            .map_err(|err| opening(LABEL, err))?;
        Self::with_tables(db, LABEL.to_owned(), None)
    }

    fn with_tables(db: Database, label: String, path: Option<&Path>) -> Result<Self, Error> {
        // Made first, so that a panic making the tables marks it, and the database is closed under its guard.
        let engine = Engine {
            db: Some(db),
            path: path.map(Path::to_owned),
            label,
            damaged: OnceLock::new(),
        };
        let expiring = engine.guard(None, || {
            let tables = || -> Result<bool, redb::Error> {
                let txn = engine.db().begin_write()?;
                txn.open_table(VALUES)?;
                txn.open_table(META)?;
                let expiring = !txn.open_table(EXPIRES)?.is_empty()?;
                txn.commit()?;
                Ok(expiring)
            };
            tables().map_err(|err| opening(&engine.label, err))
        })?;
        Ok(Redb {
            engine: Arc::new(engine),
            expiring: Arc::new(AtomicBool::new(expiring)),
            clock: None,
            eventual: false,
        })
    }

    /// This store, with expiry measured on `clock` rather than the system clock: a test moves the clock on
    /// to see a value expire, without waiting for it (see [`MemoryStore::with_clock`](super::MemoryStore::with_clock)).
    pub fn with_clock(mut self, clock: impl Fn() -> Timestamp + Send + Sync + 'static) -> Self {
        self.clock = Some(Arc::new(clock));
        self
    }

    /// This store, with its writes durable eventually rather than when they return: each commits to the
    /// file's pages in memory without waiting for the disk, and reaches the disk with the next write that
    /// waits for it, with [`Redb::flush`], or when the last handle on the file is dropped.
    ///
    /// **What a crash may lose:** if the process is killed or the machine loses power, every write made
    /// through such a handle since the last of those is lost, whole (the file opens at the last durable
    /// commit, and no write is ever half there: each is still one transaction). Nothing else changes: readers
    /// in the process see every write at once, compare-and-swap works as before, and an atomic batch is still
    /// all or nothing. A write that asks for a [`Durability`](crate::Durability) above
    /// [`None`](crate::Durability::None) ([`WriteOptions::with_durability`], [`Repo::durability`](crate::Repo::durability))
    /// waits for the disk all the same, and makes the writes before it durable too.
    ///
    /// For loading or migrating data that can be loaded again (it makes small writes several times
    /// faster: see `BENCHMARKS.md`); the default stays durable writes. It applies to this handle and the
    /// clones made from it; other handles on the file keep their own.
    ///
    /// ```
    /// use docmodel::store::{Redb, Store};
    ///
    /// # pollster::block_on(async {
    /// let path = std::env::temp_dir().join(format!("docmodel-doctest-eventual-{}.redb", std::process::id()));
    /// # let _ = std::fs::remove_file(&path);
    /// let store = Redb::open(&path)?.eventual();
    /// for n in 0..100 {
    ///     store.insert(&format!("user::{n}"), b"{}").await?;
    /// }
    /// store.flush()?; // on the disk now
    /// # drop(store);
    /// # std::fs::remove_file(&path).unwrap();
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn eventual(mut self) -> Self {
        self.eventual = true;
        self
    }

    /// Makes every write committed so far durable: one commit that waits for the disk. A store whose writes
    /// are all durable ([`Redb::eventual`] not used) has nothing to flush, and this is a cheap commit.
    pub fn flush(&self) -> Result<(), Error> {
        const LABEL: &str = "flush";
        self.engine.guard(Some(LABEL), || {
            let txn = self
                .engine
                .db()
                .begin_write()
                .map_err(|err| backend(LABEL, err))?;
            txn.commit().map_err(|err| backend(LABEL, err))
        })
    }

    /// Takes every value that has expired out of the file, in one transaction, and says how many there were.
    /// Nothing needs it to be correct (no operation finds an expired value); it gives back the space of
    /// values whose keys are not written again.
    ///
    /// ```
    /// use std::time::Duration;
    /// use docmodel::Timestamp;
    /// use docmodel::Expiry;
    /// use docmodel::store::{ScanPage, Redb, Store, WriteOptions};
    ///
    /// # pollster::block_on(async {
    /// let store = Redb::in_memory()?.with_clock(|| Timestamp::from_millis(0));
    /// let soon = WriteOptions::new().with_expiry(Expiry::After(Duration::from_secs(1)));
    /// store.insert_with("session::1", b"{}", &soon).await?;
    /// store.insert("user::1", b"{}").await?;
    /// let later = store.clone().with_clock(|| Timestamp::from_millis(1_000));
    /// assert_eq!(later.purge_expired()?, 1);
    /// assert_eq!(later.scan("", ScanPage::first(10)).await?, ["user::1"]);
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn purge_expired(&self) -> Result<usize, Error> {
        const LABEL: &str = "expired values";
        if !self.expiring.load(Ordering::Acquire) {
            return Ok(0);
        }
        let now = self.now().as_millis();
        self.engine
            .guard(Some(LABEL), || self.purge_expired_at(now))
    }

    fn purge_expired_at(&self, now: i64) -> Result<usize, Error> {
        const LABEL: &str = "expired values";
        let txn = self
            .engine
            .db()
            .begin_write()
            .map_err(|err| backend(LABEL, err))?;
        let purged = {
            let mut values = txn.open_table(VALUES).map_err(|err| backend(LABEL, err))?;
            let mut expires = txn.open_table(EXPIRES).map_err(|err| backend(LABEL, err))?;
            let mut expired = Vec::new();
            for entry in expires.iter().map_err(|err| backend(LABEL, err))? {
                let (key, deadline) = entry.map_err(|err| backend(LABEL, err))?;
                if deadline.value() <= now {
                    expired.push(key.value().to_owned());
                }
            }
            for key in &expired {
                values
                    .remove(key.as_str())
                    .map_err(|err| backend(key, err))?;
                expires
                    .remove(key.as_str())
                    .map_err(|err| backend(key, err))?;
            }
            expired.len()
        };
        txn.commit().map_err(|err| backend(LABEL, err))?;
        Ok(purged)
    }

    fn now(&self) -> Timestamp {
        self.clock
            .as_ref()
            .map_or_else(Timestamp::now, |clock| clock())
    }

    /// The file the store lives in; `None` for a store [in memory](Redb::in_memory).
    pub fn path(&self) -> Option<&Path> {
        self.engine.path.as_deref()
    }
}

impl Store for Redb {
    fn get(&self, key: &str) -> impl Future<Output = Result<Option<Stored>, Error>> + Send {
        std::future::ready(self.get_now(key))
    }

    fn get_many(
        &self,
        keys: &[&str],
    ) -> impl Future<Output = Result<Vec<Option<Stored>>, Error>> + Send {
        std::future::ready(self.get_many_now(keys))
    }

    fn insert_with(
        &self,
        key: &str,
        value: &[u8],
        options: &WriteOptions,
    ) -> impl Future<Output = Result<Cas, Error>> + Send {
        std::future::ready(self.put(key, value, Expect::Absent, options))
    }

    fn replace_with(
        &self,
        key: &str,
        value: &[u8],
        cas: &Cas,
        options: &WriteOptions,
    ) -> impl Future<Output = Result<Cas, Error>> + Send {
        std::future::ready(self.put(key, value, Expect::Cas(cas), options))
    }

    fn remove_with(
        &self,
        key: &str,
        cas: Option<&Cas>,
        options: &WriteOptions,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        let result = self.write(key, false, options.durability, |tables, _| {
            let current = tables.current(key)?.map(|(cas, _)| Cas::from_u64(cas));
            super::check_cas(key, current.as_ref(), cas)?;
            tables.remove(key)
        });
        std::future::ready(result)
    }

    fn write_atomic(
        &self,
        writes: &[Write<'_>],
        options: &WriteOptions,
    ) -> impl Future<Output = Result<Vec<Option<Cas>>, Error>> + Send {
        std::future::ready(self.write_all(writes, options))
    }

    /// Every insert in one transaction.
    fn insert_many(
        &self,
        values: &[(&str, &[u8])],
        options: &WriteOptions,
    ) -> impl Future<Output = Vec<Result<Cas, Error>>> + Send {
        std::future::ready(self.insert_all(values, options))
    }

    /// In one write transaction: redb has one writer at a time, and every other write waits for it.
    fn transact(
        &self,
        options: &WriteOptions,
        work: &mut dyn FnMut(&mut dyn Transaction) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.transact_now(options, work)
    }

    fn counter(&self, key: &str, delta: u64) -> impl Future<Output = Result<u64, Error>> + Send {
        let result = self.write(key, false, Durability::None, |tables, next_cas| {
            let (current, deadline) = match tables.current(key)? {
                None => (0, None),
                Some((_, deadline)) => {
                    let found = tables.values.get(key).map_err(|err| backend(key, err))?;
                    let bytes = found.as_ref().map_or(&[][..], |found| found.value().1);
                    (super::parse_counter(key, bytes)?, deadline)
                }
            };
            let value = super::add_counter(key, current, delta)?;
            let cas = next_cas()?;
            let bytes = super::counter_bytes(value);
            // A counter keeps the expiry it was given, as a replace does by default.
            tables.put(key, stored_cas(&cas).unwrap_or_default(), &bytes, deadline)?;
            Ok(value)
        });
        std::future::ready(result)
    }

    fn system(&self) -> &'static str {
        "redb"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::MINIMAL
            .with_scan(true)
            .with_expiry(true)
            .with_atomic_writes(true)
            .with_transactions(true)
    }

    fn scan(
        &self,
        prefix: &str,
        page: ScanPage<'_>,
    ) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        std::future::ready(self.scan_now(prefix, page))
    }

    fn scan_range(
        &self,
        start: &str,
        end: &str,
        page: ScanPage<'_>,
    ) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        std::future::ready(self.scan_range_now(start, end, page))
    }
}
