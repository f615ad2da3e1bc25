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
//! 2. Every call into redb runs under [`catch_unwind`], at this boundary ([`Engine::guard`]): what the
//!    check cannot see (a file changed under an open store, a redb assertion on data the checksums pass,
//!    the close) becomes a permanent [`Error::Store`] naming the file and saying it looks damaged, with
//!    redb's panic message. redb's state after a panic is not to be trusted, so the handle (and its clones)
//!    is marked damaged and every later operation fails at once with the same error, without calling into
//!    redb again. The guard is one atomic load and a `catch_unwind`: a get on a store in memory took 0.84 µs
//!    with it and without it (release build, a million gets).
//!
//! The panic hook still prints redb's panic message to stderr: a library does not replace the process's
//! hook. Under `panic = "abort"` nothing unwinds, and only the integrity check on open protects.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use redb::{Database, ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition};

use super::{Capabilities, Cas, Durability, Expect, Expiry, Store, Stored, Write, WriteOptions};
use crate::{Error, StoreErrorKind, Timestamp};

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
/// Values written with an [`Expiry`] are gone once the store's clock passes it (the system clock unless
/// [`Redb::with_clock`] sets one): no operation finds them, and the next write under the key, or
/// [`Redb::purge_expired`], takes them out of the file.
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

/// The database, shared by a handle's clones, and whether redb panicked on it.
struct Engine {
    /// Always `Some` until [`Engine`] is dropped, which closes it under `catch_unwind`.
    db: Option<Database>,
    /// The file, or `None` for a store in memory.
    path: Option<PathBuf>,
    /// `redb file `<path>``, or `redb store in memory`: what errors about the database as a whole name.
    label: String,
    /// What redb's panic said, once it panicked: the file looks damaged, and redb is not called again.
    damaged: OnceLock<String>,
}

impl Engine {
    fn db(&self) -> &Database {
        self.db
            .as_ref()
            .expect("the database is taken out only when the engine is dropped")
    }

    /// Runs `op`, which calls into redb, at the store's boundary: a panic inside it marks the engine
    /// damaged and is a typed error, as is any call once it is; an error of redb's saying the file is
    /// corrupted names the file.
    fn guard<T>(
        &self,
        key: Option<&str>,
        op: impl FnOnce() -> Result<T, Error>,
    ) -> Result<T, Error> {
        if let Some(panic) = self.damaged.get() {
            return Err(self.damaged_error(key, panic));
        }
        match catch(op) {
            Ok(result) => result.map_err(|err| self.name_file(err)),
            Err(panic) => {
                // Of two threads panicking at once, the first message is kept: either says the same.
                let panic = self.damaged.get_or_init(|| panic);
                Err(self.damaged_error(key, panic))
            }
        }
    }

    fn damaged_error(&self, key: Option<&str>, panic: &str) -> Error {
        file_error(
            key,
            FileError {
                label: self.label.clone(),
                problem: format!(
                    "looks damaged: redb panicked ({panic}); this handle no longer reads or writes it"
                ),
                source: None,
            },
        )
    }

    /// `err`, naming the file if redb reports it corrupted or failing to read or write it: a document's key
    /// alone would not say which file to look at.
    fn name_file(&self, err: Error) -> Error {
        let Error::Store { key, kind, source } = err else {
            return err;
        };
        let problem = match source.downcast_ref::<redb::Error>() {
            Some(redb::Error::Corrupted(_)) => "looks damaged",
            Some(redb::Error::Io(_) | redb::Error::PreviousIo) => "could not be read or written",
            _ => return Error::Store { key, kind, source },
        };
        Error::Store {
            key,
            kind,
            source: Box::new(FileError {
                label: self.label.clone(),
                problem: problem.to_owned(),
                source: source.downcast::<redb::Error>().ok().map(|source| *source),
            }),
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Some(db) = self.db.take() {
            // Closing writes to the file, and redb has panicked closing a damaged one (cberner/redb#1303);
            // a drop has no error to return. A close that panics is a crash to the file: the next open
            // recovers the last durable commit (an eventual handle's later writes are lost, as in a crash)
            // and its integrity check reports the damage.
            let _ = catch(move || drop(db));
        }
    }
}

/// Runs `op`, which calls into redb, giving back what a panic inside it said instead of unwinding further.
///
/// `AssertUnwindSafe`: what a panic leaves half done is redb's state, which the caller never touches again
/// (it marks the engine damaged), and nothing of the caller's.
fn catch<T>(op: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(op)).map_err(|payload| match payload.downcast::<String>() {
        Ok(message) => *message,
        Err(payload) => payload
            .downcast_ref::<&str>()
            .map_or("a panic without a message", |message| message)
            .to_owned(),
    })
}

/// What is wrong with the file as a whole (or the store in memory): what an [`Error::Store`] about it holds.
#[derive(Debug)]
struct FileError {
    /// `redb file `<path>``, or `redb store in memory`.
    label: String,
    problem: String,
    source: Option<redb::Error>,
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the {} {}", self.label, self.problem)?;
        match &self.source {
            Some(source) => write!(f, ": {source}"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for FileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_ref()
            .map(|source| source as &(dyn std::error::Error + 'static))
    }
}

/// A permanent store error about the file, for the document `key` (`None` at open: it is about no document).
fn file_error(key: Option<&str>, error: FileError) -> Error {
    Error::Store {
        key: key.map(str::to_owned),
        kind: StoreErrorKind::Permanent,
        source: Box::new(error),
    }
}

/// What opening the file (or making its tables) failed with, naming the file.
fn opening(label: &str, err: impl Into<redb::Error>) -> Error {
    let err = err.into();
    let problem = match err {
        redb::Error::DatabaseAlreadyOpen => {
            "is open elsewhere (by another `Redb` in this process, or by another process); close it there \
             first"
        }
        redb::Error::Corrupted(_) => "looks damaged",
        _ => "could not be opened",
    };
    file_error(
        None,
        FileError {
            label: label.to_owned(),
            problem: problem.to_owned(),
            source: Some(err),
        },
    )
}

/// The tables of one write transaction, as [`Redb::write`] hands them out.
struct Tables<'t> {
    values: redb::Table<'t, &'static str, (u64, &'static [u8])>,
    /// Open when a value may expire, or this write sets an expiry.
    expires: Option<redb::Table<'t, &'static str, i64>>,
    now: Timestamp,
}

impl Tables<'_> {
    /// The token of the value under `key` and when it expires; a value that expired is taken out, and
    /// is `None`.
    fn current(&mut self, key: &str) -> Result<Option<(u64, Option<i64>)>, Error> {
        let Some(cas) = self
            .values
            .get(key)
            .map_err(|err| backend(key, err))?
            .map(|found| found.value().0)
        else {
            return Ok(None);
        };
        let Some(expires) = &mut self.expires else {
            return Ok(Some((cas, None)));
        };
        let deadline = expires
            .get(key)
            .map_err(|err| backend(key, err))?
            .map(|found| found.value());
        match deadline {
            Some(deadline) if deadline <= self.now.as_millis() => {
                self.remove(key)?;
                Ok(None)
            }
            _ => Ok(Some((cas, deadline))),
        }
    }

    /// Writes `value` under `key` with token `cas`, expiring at `deadline`.
    fn put(
        &mut self,
        key: &str,
        cas: u64,
        value: &[u8],
        deadline: Option<i64>,
    ) -> Result<(), Error> {
        self.values
            .insert(key, (cas, value))
            .map_err(|err| backend(key, err))?;
        if let Some(expires) = &mut self.expires {
            match deadline {
                Some(deadline) => expires.insert(key, deadline).map(drop),
                None => expires.remove(key).map(drop),
            }
            .map_err(|err| backend(key, err))?;
        }
        Ok(())
    }

    fn remove(&mut self, key: &str) -> Result<(), Error> {
        self.values.remove(key).map_err(|err| backend(key, err))?;
        if let Some(expires) = &mut self.expires {
            expires.remove(key).map_err(|err| backend(key, err))?;
        }
        Ok(())
    }
}

/// The tables of one read transaction.
struct Snapshot {
    values: redb::ReadOnlyTable<&'static str, (u64, &'static [u8])>,
    /// Open when a value may expire.
    expires: Option<redb::ReadOnlyTable<&'static str, i64>>,
    now: Timestamp,
}

impl Snapshot {
    /// Whether the value under `key` (if any) has not expired.
    fn live(&self, key: &str) -> Result<bool, Error> {
        let Some(expires) = &self.expires else {
            return Ok(true);
        };
        let deadline = expires.get(key).map_err(|err| backend(key, err))?;
        Ok(deadline.is_none_or(|deadline| deadline.value() > self.now.as_millis()))
    }

    fn get(&self, key: &str) -> Result<Option<Stored>, Error> {
        let found = self.values.get(key).map_err(|err| backend(key, err))?;
        let Some(found) = found else {
            return Ok(None);
        };
        if !self.live(key)? {
            return Ok(None);
        }
        let (cas, bytes) = found.value();
        Ok(Some(Stored::new(bytes, Cas::from_u64(cas))))
    }
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
        let path = path.as_ref();
        let label = format!("redb file `{}`", path.display());
        let db = catch(|| {
            Database::builder()
                .set_check_integrity_on_open(true)
                .create(path)
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
    /// all or nothing. A write that asks for a [`Durability`](super::Durability) above
    /// [`None`](super::Durability::None) ([`WriteOptions::with_durability`], [`Repo::durability`](crate::Repo::durability))
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
    /// use docmodel::store::{Expiry, Redb, Store, WriteOptions};
    ///
    /// # pollster::block_on(async {
    /// let store = Redb::in_memory()?.with_clock(|| Timestamp::from_millis(0));
    /// let soon = WriteOptions::new().with_expiry(Expiry::After(Duration::from_secs(1)));
    /// store.insert_with("session::1", b"{}", &soon).await?;
    /// store.insert("user::1", b"{}").await?;
    /// let later = store.clone().with_clock(|| Timestamp::from_millis(1_000));
    /// assert_eq!(later.purge_expired()?, 1);
    /// assert_eq!(later.scan("").await?, ["user::1"]);
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

    /// Stores `value` under `key` with a new token, in one transaction, if what is there is what `expect`
    /// says, expiring as `options` say.
    fn put(
        &self,
        key: &str,
        value: &[u8],
        expect: Expect<'_>,
        options: &WriteOptions,
    ) -> Result<Cas, Error> {
        options.expiry.check(key)?;
        let sets_expiry = matches!(options.expiry, Expiry::After(_));
        self.write(key, sets_expiry, options.durability, |tables, next_cas| {
            let current = tables.current(key)?;
            let current_cas = current.map(|(cas, _)| Cas::from_u64(cas));
            expect.check(key, current_cas.as_ref())?;
            let deadline = options
                .expiry
                .deadline(tables.now, current.and_then(|(_, deadline)| deadline));
            let cas = next_cas()?;
            tables.put(key, stored_cas(&cas).unwrap_or_default(), value, deadline)?;
            Ok(cas)
        })
    }

    /// Makes `writes` in one transaction: an error in any of them aborts it, and nothing is written.
    fn write_all(
        &self,
        writes: &[Write<'_>],
        options: &WriteOptions,
    ) -> Result<Vec<Option<Cas>>, Error> {
        let Some(first) = writes.first() else {
            return Ok(Vec::new());
        };
        let sets_expiry = matches!(options.expiry, Expiry::After(_));
        self.write(
            first.key(),
            sets_expiry,
            options.durability,
            |tables, next_cas| {
                let mut tokens = Vec::with_capacity(writes.len());
                for write in writes {
                    let key = write.key();
                    let current = tables.current(key)?;
                    let current_cas = current.map(|(cas, _)| Cas::from_u64(cas));
                    let (value, expect) = match *write {
                        Write::Insert { value, .. } => (value, Expect::Absent),
                        Write::Replace { value, cas, .. } => (value, Expect::Cas(cas)),
                        Write::Remove { cas, .. } => {
                            super::check_cas(key, current_cas.as_ref(), cas)?;
                            tables.remove(key)?;
                            tokens.push(None);
                            continue;
                        }
                    };
                    options.expiry.check(key)?;
                    expect.check(key, current_cas.as_ref())?;
                    let deadline = options
                        .expiry
                        .deadline(tables.now, current.and_then(|(_, deadline)| deadline));
                    let cas = next_cas()?;
                    tables.put(key, stored_cas(&cas).unwrap_or_default(), value, deadline)?;
                    tokens.push(Some(cas));
                }
                Ok(tokens)
            },
        )
    }

    /// Makes each insert of `values` in one transaction; one that fails its check fails alone. A failure of
    /// the transaction itself is every insert's.
    fn insert_all(
        &self,
        values: &[(&str, &[u8])],
        options: &WriteOptions,
    ) -> Vec<Result<Cas, Error>> {
        let Some((first, _)) = values.first() else {
            return Vec::new();
        };
        let sets_expiry = matches!(options.expiry, Expiry::After(_));
        let written = self.write(
            first,
            sets_expiry,
            options.durability,
            |tables, next_cas| {
                let mut outcomes = Vec::with_capacity(values.len());
                for (key, value) in values {
                    if let Err(refused) = options.expiry.check(key) {
                        outcomes.push(Err(refused));
                        continue;
                    }
                    if tables.current(key)?.is_some() {
                        outcomes.push(Err(Error::AlreadyExists {
                            key: (*key).to_owned(),
                        }));
                        continue;
                    }
                    let cas = next_cas()?;
                    let deadline = options.expiry.deadline(tables.now, None);
                    tables.put(key, stored_cas(&cas).unwrap_or_default(), value, deadline)?;
                    outcomes.push(Ok(cas));
                }
                Ok(outcomes)
            },
        );
        written.unwrap_or_else(|failure| {
            values
                .iter()
                .map(|(key, _)| Err(super::failed_with_batch(&failure, key)))
                .collect()
        })
    }

    /// Runs `write` in one write transaction, committed only when it returns `Ok`. `sets_expiry`: the write
    /// may give a value an expiry, so the expiry table is opened even if no value had one yet. The commit
    /// waits for the disk unless this handle is [eventual](Redb::eventual) and `durability` asks for
    /// nothing more.
    fn write<T>(
        &self,
        key: &str,
        sets_expiry: bool,
        durability: Durability,
        write: impl FnOnce(&mut Tables<'_>, &mut dyn FnMut() -> Result<Cas, Error>) -> Result<T, Error>,
    ) -> Result<T, Error> {
        // Read outside the guard: a panic of the user's clock is no sign of a damaged file.
        let now = self.now();
        self.engine.guard(Some(key), || {
            self.write_at(key, sets_expiry, durability, now, write)
        })
    }

    fn write_at<T>(
        &self,
        key: &str,
        sets_expiry: bool,
        durability: Durability,
        now: Timestamp,
        write: impl FnOnce(&mut Tables<'_>, &mut dyn FnMut() -> Result<Cas, Error>) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let mut txn = self
            .engine
            .db()
            .begin_write()
            .map_err(|err| backend(key, err))?;
        if self.eventual && durability == Durability::None {
            txn.set_durability(redb::Durability::None)
                .map_err(|err| backend(key, err))?;
        }
        let result = {
            if sets_expiry {
                // Set before the commit: a reader that sees the value sees the flag, and checks its expiry.
                self.expiring.store(true, Ordering::Release);
            }
            let expires = if self.expiring.load(Ordering::Acquire) {
                Some(txn.open_table(EXPIRES).map_err(|err| backend(key, err))?)
            } else {
                None
            };
            let mut tables = Tables {
                values: txn.open_table(VALUES).map_err(|err| backend(key, err))?,
                expires,
                now,
            };
            let mut meta = txn.open_table(META).map_err(|err| backend(key, err))?;
            let mut next_cas = || {
                let last = meta
                    .get(LAST_CAS)
                    .map_err(|err| backend(key, err))?
                    .map_or(0, |last| last.value());
                let next = last.checked_add(1).ok_or_else(|| {
                    Error::store(
                        key,
                        "the store has handed out every CAS token a u64 can count",
                    )
                })?;
                meta.insert(LAST_CAS, next)
                    .map_err(|err| backend(key, err))?;
                Ok(Cas::from_u64(next))
            };
            write(&mut tables, &mut next_cas)?
        };
        txn.commit().map_err(|err| backend(key, err))?;
        Ok(result)
    }

    /// Runs `read` on one read transaction, at the store's boundary.
    fn read<T>(
        &self,
        key: &str,
        read: impl FnOnce(&Snapshot) -> Result<T, Error>,
    ) -> Result<T, Error> {
        // Read outside the guard: a panic of the user's clock is no sign of a damaged file.
        let now = self.now();
        self.engine
            .guard(Some(key), || read(&self.snapshot(key, now)?))
    }

    /// One read transaction: its values, and their expiry where a value may expire.
    fn snapshot(&self, key: &str, now: Timestamp) -> Result<Snapshot, Error> {
        let txn = self
            .engine
            .db()
            .begin_read()
            .map_err(|err| backend(key, err))?;
        let expires = if self.expiring.load(Ordering::Acquire) {
            Some(txn.open_table(EXPIRES).map_err(|err| backend(key, err))?)
        } else {
            None
        };
        Ok(Snapshot {
            values: txn.open_table(VALUES).map_err(|err| backend(key, err))?,
            expires,
            now,
        })
    }

    fn get_now(&self, key: &str) -> Result<Option<Stored>, Error> {
        self.read(key, |snapshot| snapshot.get(key))
    }

    fn get_many_now(&self, keys: &[&str]) -> Result<Vec<Option<Stored>>, Error> {
        let Some(first) = keys.first() else {
            return Ok(Vec::new());
        };
        // One read transaction: the values are one consistent snapshot.
        self.read(first, |snapshot| {
            keys.iter().map(|key| snapshot.get(key)).collect()
        })
    }

    fn scan_now(&self, prefix: &str) -> Result<Vec<String>, Error> {
        self.read(prefix, |snapshot| Self::scan_prefix(snapshot, prefix))
    }

    fn scan_prefix(snapshot: &Snapshot, prefix: &str) -> Result<Vec<String>, Error> {
        let mut found = Vec::new();
        for entry in snapshot
            .values
            .range(prefix..)
            .map_err(|err| backend(prefix, err))?
        {
            let (key, _) = entry.map_err(|err| backend(prefix, err))?;
            let key = key.value();
            if !key.starts_with(prefix) {
                break;
            }
            if snapshot.live(key)? {
                found.push(key.to_owned());
            }
        }
        Ok(found)
    }

    fn scan_range_now(&self, start: &str, end: &str) -> Result<Vec<String>, Error> {
        if start >= end {
            return Ok(Vec::new());
        }
        self.read(start, |snapshot| Self::scan_between(snapshot, start, end))
    }

    fn scan_between(snapshot: &Snapshot, start: &str, end: &str) -> Result<Vec<String>, Error> {
        let mut found = Vec::new();
        for entry in snapshot
            .values
            .range(start..end)
            .map_err(|err| backend(start, err))?
        {
            let (key, _) = entry.map_err(|err| backend(start, err))?;
            if snapshot.live(key.value())? {
                found.push(key.value().to_owned());
            }
        }
        Ok(found)
    }
}

/// The token as this store holds it; a token of another store never matches.
fn stored_cas(cas: &Cas) -> Option<u64> {
    cas.as_u64()
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

    fn capabilities(&self) -> Capabilities {
        Capabilities::MINIMAL
            .with_scan(true)
            .with_expiry(true)
            .with_atomic_writes(true)
    }

    fn scan(&self, prefix: &str) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        std::future::ready(self.scan_now(prefix))
    }

    fn scan_range(
        &self,
        start: &str,
        end: &str,
    ) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        std::future::ready(self.scan_range_now(start, end))
    }
}
