//! [`Conflicted`]: a store that holds revisions in conflict as a replicating CouchDB does, made by hand, so
//! that what merges conflicts runs on MemoryStore and Redb too.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use docmodel::Error;
use docmodel::store::{Capabilities, Cas, ScanPage, Store, Stored, WriteOptions};

/// A store around `S` whose keys may hold revisions in conflict with the value `S` holds (the winner, as
/// CouchDB calls it), as after replication: a read lists their tokens ([`Stored::conflicts`]),
/// [`Store::get_revision`] reads one, and a removal by its token removes it. Removing the winner makes the
/// first of them the winner, as CouchDB does.
///
/// [`Conflicted::replicate_from`] makes them as replication would, from another store holding the other
/// side's history.
pub struct Conflicted<S> {
    inner: S,
    revisions: Mutex<Revisions>,
    next: AtomicU64,
}

/// The revisions in conflict under each key: each one's token and bytes.
type Revisions = BTreeMap<String, Vec<(Cas, Vec<u8>)>>;

impl<S: Store> Conflicted<S> {
    /// `inner`, with no revision in conflict.
    pub fn new(inner: S) -> Self {
        Conflicted {
            inner,
            revisions: Mutex::new(BTreeMap::new()),
            next: AtomicU64::new(1),
        }
    }

    /// The store around which this one holds conflicts.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// Adds `bytes` as a revision of `key` in conflict with the value the store holds there (or, with no
    /// value there, as the value).
    pub async fn add_conflict(&self, key: &str, bytes: &[u8]) {
        if self.inner.get(key).await.unwrap().is_none() {
            self.inner.insert(key, bytes).await.unwrap();
            return;
        }
        let cas = Cas::from_revision(format!(
            "hand-{}",
            self.next.fetch_add(1, Ordering::Relaxed)
        ));
        self.revisions
            .lock()
            .unwrap()
            .entry(key.to_owned())
            .or_default()
            .push((cas, bytes.to_vec()));
    }

    /// Brings the values under `prefix` of `other` here as replication would: a key only `other` holds is
    /// copied, and a value that differs from the one here is added in conflict with it. With
    /// `same_as_conflict`, a value equal to the one here is added in conflict too (pouchdb-server gives
    /// identical bodies written on two sides two revision ids).
    pub async fn replicate_from(&self, other: &impl Store, prefix: &str, same_as_conflict: bool) {
        let keys = crate::keys_under(other, prefix).await;
        for key in keys {
            let Some(theirs) = other.get(&key).await.unwrap() else {
                continue;
            };
            match self.inner.get(&key).await.unwrap() {
                Some(ours) if *ours.bytes == *theirs.bytes && !same_as_conflict => {}
                _ => self.add_conflict(&key, &theirs.bytes).await,
            }
        }
    }

    fn conflicts_of(&self, key: &str) -> Vec<Cas> {
        self.revisions
            .lock()
            .unwrap()
            .get(key)
            .map(|revisions| revisions.iter().map(|(cas, _)| cas.clone()).collect())
            .unwrap_or_default()
    }

    fn with_conflicts(&self, key: &str, stored: Option<Stored>) -> Option<Stored> {
        let stored = stored?;
        let conflicts = self.conflicts_of(key);
        Some(match conflicts.is_empty() {
            true => stored,
            false => stored.with_conflicts(conflicts),
        })
    }

    /// Takes the revision of `key` whose token is `cas` out of the conflicts, if it is one.
    fn take_revision(&self, key: &str, cas: &Cas) -> Option<Vec<u8>> {
        let mut revisions = self.revisions.lock().unwrap();
        let list = revisions.get_mut(key)?;
        let at = list.iter().position(|(own, _)| own == cas)?;
        let (_, bytes) = list.remove(at);
        if list.is_empty() {
            revisions.remove(key);
        }
        Some(bytes)
    }
}

impl<S: Store> Store for Conflicted<S> {
    async fn get(&self, key: &str) -> Result<Option<Stored>, Error> {
        let stored = self.inner.get(key).await?;
        Ok(self.with_conflicts(key, stored))
    }

    async fn get_many(&self, keys: &[&str]) -> Result<Vec<Option<Stored>>, Error> {
        let found = self.inner.get_many(keys).await?;
        Ok(keys
            .iter()
            .zip(found)
            .map(|(key, stored)| self.with_conflicts(key, stored))
            .collect())
    }

    async fn get_revision(&self, key: &str, cas: &Cas) -> Result<Option<Stored>, Error> {
        let conflict = self
            .revisions
            .lock()
            .unwrap()
            .get(key)
            .and_then(|list| list.iter().find(|(own, _)| own == cas).cloned());
        match conflict {
            Some((cas, bytes)) => Ok(Some(Stored::new(bytes, cas))),
            None => Ok(self.inner.get_revision(key, cas).await?),
        }
    }

    async fn insert_with(
        &self,
        key: &str,
        value: &[u8],
        options: &WriteOptions,
    ) -> Result<Cas, Error> {
        self.inner.insert_with(key, value, options).await
    }

    async fn replace_with(
        &self,
        key: &str,
        value: &[u8],
        cas: &Cas,
        options: &WriteOptions,
    ) -> Result<Cas, Error> {
        self.inner.replace_with(key, value, cas, options).await
    }

    async fn remove_with(
        &self,
        key: &str,
        cas: Option<&Cas>,
        options: &WriteOptions,
    ) -> Result<(), Error> {
        if let Some(cas) = cas
            && self.take_revision(key, cas).is_some()
        {
            return Ok(());
        }
        self.inner.remove_with(key, cas, options).await?;
        // The first revision in conflict takes the winner's place.
        let promoted = {
            let mut revisions = self.revisions.lock().unwrap();
            let promoted = revisions.get_mut(key).map(|list| list.remove(0));
            if revisions.get(key).is_some_and(Vec::is_empty) {
                revisions.remove(key);
            }
            promoted
        };
        if let Some((_, bytes)) = promoted {
            self.inner.insert(key, &bytes).await?;
        }
        Ok(())
    }

    async fn counter(&self, key: &str, delta: u64) -> Result<u64, Error> {
        self.inner.counter(key, delta).await
    }

    fn capabilities(&self) -> Capabilities {
        // Batches are the inner store's, which knows nothing of the conflicts: saves go step by step, as on
        // the stores that replicate.
        let mut capabilities = self.inner.capabilities();
        capabilities.atomic_writes = false;
        capabilities
    }

    fn system(&self) -> &'static str {
        self.inner.system()
    }

    async fn scan(&self, prefix: &str, page: ScanPage<'_>) -> Result<Vec<String>, Error> {
        self.inner.scan(prefix, page).await
    }

    async fn scan_range(
        &self,
        start: &str,
        end: &str,
        page: ScanPage<'_>,
    ) -> Result<Vec<String>, Error> {
        self.inner.scan_range(start, end, page).await
    }
}
