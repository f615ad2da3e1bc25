//! `store::Redb`: the embedded default, one file with ACID transactions (the `redb` crate).

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};

use super::{Capabilities, Cas, Expect, Store, Stored};
use crate::Error;

/// Every document, revision copy and counter: key -> (CAS token, bytes).
const VALUES: TableDefinition<&str, (u64, &[u8])> = TableDefinition::new("docmodel_values");
/// The last CAS token handed out, under one key.
const META: TableDefinition<&str, u64> = TableDefinition::new("docmodel_meta");
const LAST_CAS: &str = "last_cas";

/// A store in one file. Each operation is its own transaction: when it returns, its write is durable, and a
/// crash never leaves half of one. Reopening the file finds everything that was written.
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
#[derive(Clone)]
pub struct Redb {
    db: Arc<Database>,
    /// The file, or `None` for a store in memory.
    path: Option<Arc<PathBuf>>,
}

impl std::fmt::Debug for Redb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redb")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

fn backend(key: &str, err: impl Into<redb::Error>) -> Error {
    Error::store(key, err.into())
}

impl Redb {
    /// Opens the store in the file at `path`, creating it if it does not exist.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        let label = path.display().to_string();
        let db = Database::create(path).map_err(|err| backend(&label, err))?;
        Self::with_tables(db, &label, Some(path))
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
        const LABEL: &str = "redb in memory";
        let db = Database::builder()
            .create_with_backend(redb::backends::InMemoryBackend::new())
            .map_err(|err| backend(LABEL, err))?;
        Self::with_tables(db, LABEL, None)
    }

    fn with_tables(db: Database, label: &str, path: Option<&Path>) -> Result<Self, Error> {
        let txn = db.begin_write().map_err(|err| backend(label, err))?;
        txn.open_table(VALUES).map_err(|err| backend(label, err))?;
        txn.open_table(META).map_err(|err| backend(label, err))?;
        txn.commit().map_err(|err| backend(label, err))?;
        Ok(Redb {
            db: Arc::new(db),
            path: path.map(|path| Arc::new(path.to_owned())),
        })
    }

    /// The file the store lives in; `None` for a store [in memory](Redb::in_memory).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref().map(PathBuf::as_path)
    }

    /// Stores `value` under `key` with a new token, in one transaction, if what is there is what `expect`
    /// says.
    fn put(&self, key: &str, value: &[u8], expect: Expect<'_>) -> Result<Cas, Error> {
        self.write(key, |values, next_cas| {
            let current = values
                .get(key)
                .map_err(|err| backend(key, err))?
                .map(|found| Cas::from_u64(found.value().0));
            expect.check(key, current.as_ref())?;
            let cas = next_cas()?;
            values
                .insert(key, (stored_cas(&cas).unwrap_or_default(), value))
                .map_err(|err| backend(key, err))?;
            Ok(cas)
        })
    }

    /// Runs `write` in one write transaction, committed only when it returns `Ok`.
    fn write<T>(
        &self,
        key: &str,
        write: impl FnOnce(
            &mut redb::Table<&str, (u64, &[u8])>,
            &mut dyn FnMut() -> Result<Cas, Error>,
        ) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let txn = self.db.begin_write().map_err(|err| backend(key, err))?;
        let result = {
            let mut values = txn.open_table(VALUES).map_err(|err| backend(key, err))?;
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
            write(&mut values, &mut next_cas)?
        };
        txn.commit().map_err(|err| backend(key, err))?;
        Ok(result)
    }

    fn read(
        &self,
        key: &str,
    ) -> Result<redb::ReadOnlyTable<&'static str, (u64, &'static [u8])>, Error> {
        let txn = self.db.begin_read().map_err(|err| backend(key, err))?;
        txn.open_table(VALUES).map_err(|err| backend(key, err))
    }

    fn get_now(&self, key: &str) -> Result<Option<Stored>, Error> {
        let values = self.read(key)?;
        let found = values.get(key).map_err(|err| backend(key, err))?;
        Ok(found.map(|found| {
            let (cas, bytes) = found.value();
            Stored::new(bytes, Cas::from_u64(cas))
        }))
    }

    fn get_many_now(&self, keys: &[&str]) -> Result<Vec<Option<Stored>>, Error> {
        let Some(first) = keys.first() else {
            return Ok(Vec::new());
        };
        // One read transaction: the values are one consistent snapshot.
        let values = self.read(first)?;
        keys.iter()
            .map(|key| {
                let found = values.get(*key).map_err(|err| backend(key, err))?;
                Ok(found.map(|found| {
                    let (cas, bytes) = found.value();
                    Stored::new(bytes, Cas::from_u64(cas))
                }))
            })
            .collect()
    }

    fn scan_now(&self, prefix: &str) -> Result<Vec<String>, Error> {
        let values = self.read(prefix)?;
        let mut found = Vec::new();
        for entry in values.range(prefix..).map_err(|err| backend(prefix, err))? {
            let (key, _) = entry.map_err(|err| backend(prefix, err))?;
            let key = key.value();
            if !key.starts_with(prefix) {
                break;
            }
            found.push(key.to_owned());
        }
        Ok(found)
    }

    fn scan_range_now(&self, start: &str, end: &str) -> Result<Vec<String>, Error> {
        if start >= end {
            return Ok(Vec::new());
        }
        let values = self.read(start)?;
        let mut found = Vec::new();
        for entry in values
            .range(start..end)
            .map_err(|err| backend(start, err))?
        {
            let (key, _) = entry.map_err(|err| backend(start, err))?;
            found.push(key.value().to_owned());
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

    fn insert(&self, key: &str, value: &[u8]) -> impl Future<Output = Result<Cas, Error>> + Send {
        std::future::ready(self.put(key, value, Expect::Absent))
    }

    fn replace(
        &self,
        key: &str,
        value: &[u8],
        cas: &Cas,
    ) -> impl Future<Output = Result<Cas, Error>> + Send {
        std::future::ready(self.put(key, value, Expect::Cas(cas)))
    }

    fn remove(
        &self,
        key: &str,
        cas: Option<&Cas>,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        let result = self.write(key, |values, _| {
            let current = values
                .get(key)
                .map_err(|err| backend(key, err))?
                .map(|found| Cas::from_u64(found.value().0));
            super::check_cas(key, current.as_ref(), cas)?;
            values.remove(key).map_err(|err| backend(key, err))?;
            Ok(())
        });
        std::future::ready(result)
    }

    fn counter(&self, key: &str, delta: u64) -> impl Future<Output = Result<u64, Error>> + Send {
        let result = self.write(key, |values, next_cas| {
            let current = match values.get(key).map_err(|err| backend(key, err))? {
                None => 0,
                Some(found) => super::parse_counter(key, found.value().1)?,
            };
            let value = super::add_counter(key, current, delta)?;
            let cas = next_cas()?;
            let bytes = super::counter_bytes(value);
            values
                .insert(
                    key,
                    (stored_cas(&cas).unwrap_or_default(), bytes.as_slice()),
                )
                .map_err(|err| backend(key, err))?;
            Ok(value)
        });
        std::future::ready(result)
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::MINIMAL.with_scan(true)
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
