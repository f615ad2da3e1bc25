//! `MemoryStore`: the store for tests and examples, in a `BTreeMap` behind a mutex.

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::ops::Bound;
use std::sync::{Arc, Mutex, MutexGuard};

use super::{Capabilities, Cas, Expect, ScanPage, Store, Stored, Transaction, Write, WriteOptions};
use crate::{Error, Timestamp};

/// A store in memory. Cloning it shares the same data.
///
/// ```
/// use docmodel::store::{MemoryStore, Store};
///
/// # pollster::block_on(async {
/// let store = MemoryStore::new();
/// let cas = store.insert("user::1", b"{}").await?;
/// assert!(store.insert("user::1", b"{}").await.is_err(), "the key is taken");
/// store.replace("user::1", b"{\"a\":1}", &cas).await?;
/// assert!(store.replace("user::1", b"{}", &cas).await.is_err(), "a stale token is refused");
/// # Ok::<(), docmodel::Error>(())
/// # }).unwrap();
/// ```
///
/// Values written with an [`Expiry`](crate::Expiry) are gone once the store's clock passes it; the clock
/// is the system's unless [`MemoryStore::with_clock`] sets one.
#[derive(Clone, Default)]
pub struct MemoryStore {
    inner: Arc<Mutex<Inner>>,
    /// The clock expiry is measured on; the system clock when `None`.
    clock: Option<Arc<dyn Fn() -> Timestamp + Send + Sync>>,
}

impl std::fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryStore")
            .field("len", &self.lock().values.len())
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Default)]
struct Inner {
    values: BTreeMap<String, Entry>,
    /// Every value that expires, by when: (milliseconds since the epoch, key).
    deadlines: BTreeSet<(i64, String)>,
    next_cas: u64,
}

#[derive(Debug)]
struct Entry {
    stored: Stored,
    /// When the value expires, in milliseconds since the epoch.
    expires: Option<i64>,
}

impl Inner {
    /// Stores `bytes` under `key` with a new token, if what is there is what `expect` says, expiring as
    /// `options` say.
    fn put(
        &mut self,
        key: &str,
        bytes: &[u8],
        expect: Expect<'_>,
        options: &WriteOptions,
        now: Timestamp,
    ) -> Result<Cas, Error> {
        options.expiry.check(key)?;
        let current = self.values.get(key);
        expect.check(key, current.map(|entry| &entry.stored.cas))?;
        let expires = options
            .expiry
            .deadline(now, current.and_then(|entry| entry.expires));
        self.next_cas += 1;
        let cas = Cas::from_u64(self.next_cas);
        let entry = Entry {
            stored: Stored::new(bytes, cas.clone()),
            expires,
        };
        if let Some(old) = self.values.insert(key.to_owned(), entry)
            && let Some(deadline) = old.expires
        {
            self.deadlines.remove(&(deadline, key.to_owned()));
        }
        if let Some(deadline) = expires {
            self.deadlines.insert((deadline, key.to_owned()));
        }
        Ok(cas)
    }

    /// Takes the value under `key` out.
    fn remove(&mut self, key: &str) {
        if let Some(Entry {
            expires: Some(deadline),
            ..
        }) = self.values.remove(key)
        {
            self.deadlines.remove(&(deadline, key.to_owned()));
        }
    }

    /// Makes `writes` all at once or not at all: every check runs first, against the tokens the writes
    /// before it would leave, so that nothing is changed unless every write will succeed.
    fn write_atomic(
        &mut self,
        writes: &[Write<'_>],
        options: &WriteOptions,
        now: Timestamp,
    ) -> Result<Vec<Option<Cas>>, Error> {
        // The token each key would hold after the writes checked so far (`None`: removed).
        let mut after: Vec<(&str, Option<Cas>)> = Vec::new();
        let mut next_cas = self.next_cas;
        for write in writes {
            let key = write.key();
            let current = match after.iter().rev().find(|(written, _)| *written == key) {
                Some((_, cas)) => cas.clone(),
                None => self.values.get(key).map(|entry| entry.stored.cas.clone()),
            };
            let expect = match *write {
                Write::Insert { .. } => Some(Expect::Absent),
                Write::Replace { cas, .. } => Some(Expect::Cas(cas)),
                Write::Remove { cas, .. } => {
                    super::check_cas(key, current.as_ref(), cas)?;
                    None
                }
            };
            let cas = match expect {
                Some(expect) => {
                    options.expiry.check(key)?;
                    expect.check(key, current.as_ref())?;
                    next_cas += 1;
                    Some(Cas::from_u64(next_cas))
                }
                None => None,
            };
            after.push((key, cas));
        }
        // Every write passed its check against the state the writes before it leave, which is the state
        // this pass makes: none can fail now.
        const CHECKED: &str = "a write of an atomic batch that passed its check";
        let mut tokens = Vec::with_capacity(writes.len());
        for write in writes {
            tokens.push(match *write {
                Write::Insert { key, value } => Some(
                    self.put(key, value, Expect::Absent, options, now)
                        .expect(CHECKED),
                ),
                Write::Replace { key, value, cas } => Some(
                    self.put(key, value, Expect::Cas(cas), options, now)
                        .expect(CHECKED),
                ),
                Write::Remove { key, .. } => {
                    self.remove(key);
                    None
                }
            });
        }
        Ok(tokens)
    }

    /// Takes out every value that expired by `now`.
    fn purge(&mut self, now: Timestamp) {
        while let Some((deadline, _)) = self.deadlines.first()
            && *deadline <= now.as_millis()
        {
            let Some((_, key)) = self.deadlines.pop_first() else {
                break;
            };
            self.values.remove(&key);
        }
    }

    fn get(&self, key: &str) -> Option<Stored> {
        self.values.get(key).map(|entry| entry.stored.clone())
    }
}

/// A [`Store::transact`] on a [`MemoryStore`]: its reads see the map (under the store's lock, held
/// throughout) through the writes made so far, which are kept here and made on the map only at the commit,
/// so that a `work` that fails or panics leaves the map as it was.
struct MemoryTransaction<'i> {
    inner: &'i Inner,
    /// Each write so far, with the value and token it leaves (`None`: removed) and its expiry.
    writes: Vec<(String, Option<Stored>, WriteOptions)>,
    next_cas: u64,
}

impl MemoryTransaction<'_> {
    fn current(&self, key: &str) -> Option<Stored> {
        match self
            .writes
            .iter()
            .rev()
            .find(|(written, ..)| written == key)
        {
            Some((_, stored, _)) => stored.clone(),
            None => self.inner.get(key),
        }
    }
}

impl Transaction for MemoryTransaction<'_> {
    fn get(&mut self, key: &str) -> Result<Option<Stored>, Error> {
        Ok(self.current(key))
    }

    fn write(&mut self, write: &Write<'_>, options: &WriteOptions) -> Result<Option<Cas>, Error> {
        let key = write.key();
        let current = self.current(key).map(|stored| stored.cas);
        let (value, expect) = match *write {
            Write::Insert { value, .. } => (value, Expect::Absent),
            Write::Replace { value, cas, .. } => (value, Expect::Cas(cas)),
            Write::Remove { cas, .. } => {
                super::check_cas(key, current.as_ref(), cas)?;
                self.writes.push((key.to_owned(), None, *options));
                return Ok(None);
            }
        };
        options.expiry.check(key)?;
        expect.check(key, current.as_ref())?;
        // The token the commit gives it: the store's next, in the order of the writes.
        self.next_cas += 1;
        let cas = Cas::from_u64(self.next_cas);
        let stored = Stored::new(value, cas.clone());
        self.writes.push((key.to_owned(), Some(stored), *options));
        Ok(Some(cas))
    }
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        MemoryStore::default()
    }

    /// This store, with expiry measured on `clock` rather than the system clock: a test moves the clock on
    /// to see a session expire, without waiting for it.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use std::sync::atomic::{AtomicI64, Ordering};
    /// use std::time::Duration;
    /// use docmodel::Timestamp;
    /// use docmodel::Expiry;
    /// use docmodel::store::{MemoryStore, Store, WriteOptions};
    ///
    /// # pollster::block_on(async {
    /// let now = Arc::new(AtomicI64::new(0));
    /// let clock = Arc::clone(&now);
    /// let store = MemoryStore::new().with_clock(move || Timestamp::from_millis(clock.load(Ordering::SeqCst)));
    /// let in_a_minute = WriteOptions::new().with_expiry(Expiry::After(Duration::from_secs(60)));
    /// store.insert_with("session::1", b"{}", &in_a_minute).await?;
    /// now.store(59_999, Ordering::SeqCst);
    /// assert!(store.get("session::1").await?.is_some());
    /// now.store(60_000, Ordering::SeqCst);
    /// assert!(store.get("session::1").await?.is_none());
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn with_clock(mut self, clock: impl Fn() -> Timestamp + Send + Sync + 'static) -> Self {
        self.clock = Some(Arc::new(clock));
        self
    }

    /// How many values it holds, revision copies and counters included.
    pub fn len(&self) -> usize {
        self.lock().values.len()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every key it holds, in order.
    pub fn keys(&self) -> Vec<String> {
        self.lock().values.keys().cloned().collect()
    }

    fn now(&self) -> Timestamp {
        self.clock
            .as_ref()
            .map_or_else(Timestamp::now, |clock| clock())
    }

    /// The values, with those that expired by now taken out.
    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while the lock was held leaves the map itself consistent: each change is one insert or
        // remove, and an atomic batch checks all of its writes before it makes the first.
        let mut inner = self
            .inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !inner.deadlines.is_empty() {
            inner.purge(self.now());
        }
        inner
    }
}

impl Store for MemoryStore {
    fn get(&self, key: &str) -> impl Future<Output = Result<Option<Stored>, Error>> + Send {
        let found = self.lock().get(key);
        std::future::ready(Ok(found))
    }

    fn get_many(
        &self,
        keys: &[&str],
    ) -> impl Future<Output = Result<Vec<Option<Stored>>, Error>> + Send {
        let inner = self.lock();
        let found = keys.iter().map(|key| inner.get(key)).collect();
        std::future::ready(Ok(found))
    }

    fn insert_with(
        &self,
        key: &str,
        value: &[u8],
        options: &WriteOptions,
    ) -> impl Future<Output = Result<Cas, Error>> + Send {
        let now = self.now();
        std::future::ready(self.lock().put(key, value, Expect::Absent, options, now))
    }

    fn replace_with(
        &self,
        key: &str,
        value: &[u8],
        cas: &Cas,
        options: &WriteOptions,
    ) -> impl Future<Output = Result<Cas, Error>> + Send {
        let now = self.now();
        std::future::ready(self.lock().put(key, value, Expect::Cas(cas), options, now))
    }

    fn remove_with(
        &self,
        key: &str,
        cas: Option<&Cas>,
        _options: &WriteOptions,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        let mut inner = self.lock();
        let current = inner.values.get(key).map(|entry| &entry.stored.cas);
        let result = super::check_cas(key, current, cas).map(|()| inner.remove(key));
        std::future::ready(result)
    }

    fn write_atomic(
        &self,
        writes: &[Write<'_>],
        options: &WriteOptions,
    ) -> impl Future<Output = Result<Vec<Option<Cas>>, Error>> + Send {
        let now = self.now();
        std::future::ready(self.lock().write_atomic(writes, options, now))
    }

    /// Every insert under one lock.
    fn insert_many(
        &self,
        values: &[(&str, &[u8])],
        options: &WriteOptions,
    ) -> impl Future<Output = Vec<Result<Cas, Error>>> + Send {
        let now = self.now();
        let mut inner = self.lock();
        let outcomes = values
            .iter()
            .map(|(key, value)| inner.put(key, value, Expect::Absent, options, now))
            .collect();
        std::future::ready(outcomes)
    }

    /// Under the store's lock, held until the commit: every other operation on the store waits.
    fn transact(
        &self,
        _options: &WriteOptions,
        work: &mut dyn FnMut(&mut dyn Transaction) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let now = self.now();
        let mut inner = self.lock();
        let mut transaction = MemoryTransaction {
            inner: &inner,
            writes: Vec::new(),
            next_cas: inner.next_cas,
        };
        work(&mut transaction)?;
        let writes = transaction.writes;
        // Each write passed its check against what the writes before it leave: made in order, each holds.
        const CHECKED: &str = "a write of a transaction that passed its check";
        for (key, stored, options) in writes {
            match stored {
                Some(stored) => {
                    let current = inner.values.get(&key).map(|entry| entry.stored.cas.clone());
                    let expect = match &current {
                        Some(cas) => Expect::Cas(cas),
                        None => Expect::Absent,
                    };
                    let cas = inner
                        .put(&key, &stored.bytes, expect, &options, now)
                        .expect(CHECKED);
                    debug_assert_eq!(cas, stored.cas, "the token the write was given");
                }
                None => inner.remove(&key),
            }
        }
        Ok(())
    }

    fn counter(&self, key: &str, delta: u64) -> impl Future<Output = Result<u64, Error>> + Send {
        let now = self.now();
        let mut inner = self.lock();
        let mut count = || {
            let (current, cas) = match inner.values.get(key) {
                None => (0, None),
                Some(entry) => (
                    super::parse_counter(key, &entry.stored.bytes)?,
                    Some(entry.stored.cas.clone()),
                ),
            };
            let value = super::add_counter(key, current, delta)?;
            let expect = cas.as_ref().map_or(Expect::Absent, Expect::Cas);
            inner.put(
                key,
                &super::counter_bytes(value),
                expect,
                &WriteOptions::DEFAULT,
                now,
            )?;
            Ok(value)
        };
        std::future::ready(count())
    }

    fn system(&self) -> &'static str {
        "memory"
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
        let from = match page.after {
            Some(after) if after >= prefix => Bound::Excluded(after),
            _ => Bound::Included(prefix),
        };
        let found = self
            .lock()
            .values
            .range::<str, _>((from, Bound::Unbounded))
            .take_while(|(key, _)| key.starts_with(prefix))
            .take(page.limit)
            .map(|(key, _)| key.clone())
            .collect();
        std::future::ready(Ok(found))
    }

    fn scan_range(
        &self,
        start: &str,
        end: &str,
        page: ScanPage<'_>,
    ) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        let from = match page.after {
            Some(after) if after >= start => Bound::Excluded(after),
            _ => Bound::Included(start),
        };
        let found = if from_below(from, end) {
            self.lock()
                .values
                .range::<str, _>((from, Bound::Excluded(end)))
                .take(page.limit)
                .map(|(key, _)| key.clone())
                .collect()
        } else {
            Vec::new()
        };
        std::future::ready(Ok(found))
    }
}

/// Whether a range from `from` up to `end` (excluded) is one `BTreeMap::range` accepts and holds a key.
fn from_below(from: Bound<&str>, end: &str) -> bool {
    match from {
        Bound::Included(start) | Bound::Excluded(start) => start < end,
        Bound::Unbounded => true,
    }
}
