//! `MemoryStore`: the store for tests and examples, in a `BTreeMap` behind a mutex.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};

use super::{Capabilities, Cas, Expect, Store, Stored};
use crate::Error;

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
#[derive(Debug, Clone, Default)]
pub struct MemoryStore {
    inner: Arc<Mutex<Inner>>,
}

#[derive(Debug, Default)]
struct Inner {
    values: BTreeMap<String, Stored>,
    next_cas: u64,
}

impl Inner {
    /// Stores `bytes` under `key` with a new token, if what is there is what `expect` says.
    fn put(&mut self, key: &str, bytes: &[u8], expect: Expect<'_>) -> Result<Cas, Error> {
        expect.check(key, self.values.get(key).map(|stored| &stored.cas))?;
        self.next_cas += 1;
        let cas = Cas::from_u64(self.next_cas);
        let stored = Stored::new(bytes, cas.clone());
        self.values.insert(key.to_owned(), stored);
        Ok(cas)
    }
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        MemoryStore::default()
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

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while the lock was held leaves the map itself consistent: every operation is one insert or
        // remove.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Store for MemoryStore {
    fn get(&self, key: &str) -> impl Future<Output = Result<Option<Stored>, Error>> + Send {
        let found = self.lock().values.get(key).cloned();
        std::future::ready(Ok(found))
    }

    fn get_many(
        &self,
        keys: &[&str],
    ) -> impl Future<Output = Result<Vec<Option<Stored>>, Error>> + Send {
        let inner = self.lock();
        let found = keys
            .iter()
            .map(|key| inner.values.get(*key).cloned())
            .collect();
        std::future::ready(Ok(found))
    }

    fn insert(&self, key: &str, value: &[u8]) -> impl Future<Output = Result<Cas, Error>> + Send {
        std::future::ready(self.lock().put(key, value, Expect::Absent))
    }

    fn replace(
        &self,
        key: &str,
        value: &[u8],
        cas: &Cas,
    ) -> impl Future<Output = Result<Cas, Error>> + Send {
        std::future::ready(self.lock().put(key, value, Expect::Cas(cas)))
    }

    fn remove(
        &self,
        key: &str,
        cas: Option<&Cas>,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        let mut inner = self.lock();
        let current = inner.values.get(key).map(|stored| &stored.cas);
        let result = super::check_cas(key, current, cas).map(|()| {
            inner.values.remove(key);
        });
        std::future::ready(result)
    }

    fn counter(&self, key: &str, delta: u64) -> impl Future<Output = Result<u64, Error>> + Send {
        let mut inner = self.lock();
        let mut count = || {
            let (current, cas) = match inner.values.get(key) {
                None => (0, None),
                Some(stored) => (
                    super::parse_counter(key, &stored.bytes)?,
                    Some(stored.cas.clone()),
                ),
            };
            let value = super::add_counter(key, current, delta)?;
            let expect = cas.as_ref().map_or(Expect::Absent, Expect::Cas);
            inner.put(key, &super::counter_bytes(value), expect)?;
            Ok(value)
        };
        std::future::ready(count())
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::MINIMAL.with_scan(true)
    }

    fn scan(&self, prefix: &str) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        let found = self
            .lock()
            .values
            .range::<str, _>((
                std::ops::Bound::Included(prefix),
                std::ops::Bound::Unbounded,
            ))
            .take_while(|(key, _)| key.starts_with(prefix))
            .map(|(key, _)| key.clone())
            .collect();
        std::future::ready(Ok(found))
    }

    fn scan_range(
        &self,
        start: &str,
        end: &str,
    ) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        let found = if start < end {
            self.lock()
                .values
                .range::<str, _>((
                    std::ops::Bound::Included(start),
                    std::ops::Bound::Excluded(end),
                ))
                .map(|(key, _)| key.clone())
                .collect()
        } else {
            Vec::new()
        };
        std::future::ready(Ok(found))
    }
}
