//! `Repo<T>`: a model's documents in a store, with envelope upkeep, revision history and compare-and-swap.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::lookup::{lookup_document, lookup_keys, lookup_target};
use crate::revision::{revision_key, revision_number, revision_prefix};
use crate::store::{Cas, Store, Stored};
use crate::{Doc, DocModel, Error, Key, Ref, Timestamp};

/// Where a repository reads the time for `_created` and `_modified`.
pub type Clock = Arc<dyn Fn() -> Timestamp + Send + Sync>;

/// How many times [`Repo::update`] reads, changes and saves before it gives up with [`Error::Conflict`].
pub const DEFAULT_UPDATE_ATTEMPTS: u32 = 100;

/// The documents of model `T` in store `S`.
///
/// ```
/// use docmodel::{DocModel, Repo, store::MemoryStore};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
/// #[docmodel(type = "user", schema = "1.0", key = "user::{id}", revisions = 3)]
/// struct User {
///     #[docmodel(get)]
///     id: u64,
///     #[docmodel(get, set)]
///     name: String,
/// }
///
/// # pollster::block_on(async {
/// let store = MemoryStore::new();
/// let users = Repo::<User>::new(&store).actor("admin");
/// users.insert(User { id: 1, name: "Joe".into() }).await?;
///
/// let mut doc = users.get(&User::key(1)).await?.unwrap();
/// doc.set_name("Joseph");
/// users.save(&mut doc).await?;
/// assert_eq!(doc.envelope().ver, 2);
///
/// let history = users.revisions(&User::key(1)).await?;
/// assert_eq!(history[0].name(), "Joe");
/// assert_eq!(store.keys(), ["user::1", "user::1::v::1"]);
/// # Ok::<(), docmodel::Error>(())
/// # }).unwrap();
/// ```
pub struct Repo<T, S = NoStore> {
    store: S,
    actor: Option<String>,
    clock: Clock,
    update_attempts: u32,
    model: PhantomData<fn() -> T>,
}

impl<T, S: Clone> Clone for Repo<T, S> {
    fn clone(&self) -> Self {
        Repo {
            store: self.store.clone(),
            actor: self.actor.clone(),
            clock: Arc::clone(&self.clock),
            update_attempts: self.update_attempts,
            model: PhantomData,
        }
    }
}

/// The store type of [`Repo::new`] before it is given one; never used as a store.
#[derive(Debug, Clone, Copy)]
pub struct NoStore;

impl<T> Repo<T> {
    /// A repository over `store` (a store, or a reference to one), with the system clock and no actor:
    /// `Repo::<User>::new(&store)`.
    pub fn new<S: Store>(store: S) -> Repo<T, S> {
        Repo {
            store,
            actor: None,
            clock: Arc::new(Timestamp::now),
            update_attempts: DEFAULT_UPDATE_ATTEMPTS,
            model: PhantomData,
        }
    }
}

impl<T, S> Repo<T, S>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    /// Writes `actor` as `_createdBy` and `_modifiedBy` (where the model's envelope keeps them).
    pub fn actor(mut self, actor: impl Into<String>) -> Self {
        self.actor = Some(actor.into());
        self
    }

    /// Reads `_created` and `_modified` from `clock` instead of the system clock.
    pub fn clock(mut self, clock: impl Fn() -> Timestamp + Send + Sync + 'static) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// How many times [`Repo::update`] tries before it gives up ([`DEFAULT_UPDATE_ATTEMPTS`] unless set).
    pub fn update_attempts(mut self, attempts: u32) -> Self {
        self.update_attempts = attempts.max(1);
        self
    }

    /// A document as the store holds it under `key` (a current document or a revision copy), with what the
    /// store holds and the lookup keys of its body.
    fn from_stored(key: &Key<T>, stored: Stored) -> Result<Doc<T>, Error> {
        let mut doc = Doc::from_slice_at(key.clone(), &stored.bytes)?;
        let lookups = lookup_keys(doc.body())?;
        doc.set_stored(stored, lookups);
        Ok(doc)
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// The next number of the model's atomic counter `count<d><type>` (the seeds' `count::user`), starting
    /// at 1: an id no other caller gets, for a key built from a counter.
    ///
    /// ```
    /// # use docmodel::{DocModel, Repo, store::MemoryStore};
    /// # #[derive(Debug, serde::Serialize, serde::Deserialize, DocModel)]
    /// # #[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
    /// # struct User { id: u64 }
    /// # pollster::block_on(async {
    /// let store = MemoryStore::new();
    /// let users = Repo::<User>::new(&store);
    /// let id = users.next_id().await?;
    /// users.insert(User { id }).await?;
    /// assert_eq!(store.keys(), ["count::user", "user::1"]);
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn next_id(&self) -> Result<u64, Error> {
        self.store.counter(&counter_key::<T>(), 1).await
    }

    /// Stores a new document: version 1, created and modified now, by the actor. Fails with
    /// [`Error::AlreadyExists`] if its key is taken; nothing is written then.
    pub async fn insert(&self, body: T) -> Result<Doc<T>, Error> {
        let mut doc = Doc::new(body)?;
        let now = (self.clock)();
        let mut envelope = doc.envelope().clone();
        envelope.ver = 1;
        envelope.created = Some(now);
        envelope.modified = Some(now);
        envelope.created_by.clone_from(&self.actor);
        envelope.modified_by.clone_from(&self.actor);
        let bytes = doc.to_vec_with(&envelope)?;
        let key = doc.key().as_str().to_owned();
        let lookups = lookup_keys(doc.body())?;
        // Lookups are claimed first: a value another document holds stops the insert before it writes.
        let claims = self.claim_all(lookups.iter(), &key).await?;
        let cas = match self.store.insert(&key, &bytes).await {
            Ok(cas) => cas,
            Err(err) => {
                self.release_all(&claims).await;
                return Err(err);
            }
        };
        if let Some(lost) = self.lost_claim(&claims).await {
            // Another insert took the value over while this document was not written yet, and won.
            let _ = self.store.remove(&key, Some(&cas)).await;
            self.release_all(&claims).await;
            return Err(Error::AlreadyExists { key: lost });
        }
        doc.written(
            envelope,
            Stored {
                bytes: bytes.into(),
                cas,
            },
            lookups,
        );
        Ok(doc)
    }

    /// The document under `key`, migrated to the current schema if it is older; `None` if there is none.
    pub async fn get(&self, key: &Key<T>) -> Result<Option<Doc<T>>, Error> {
        let Some(stored) = self.store.get(key.as_str()).await? else {
            return Ok(None);
        };
        Self::from_stored(key, stored).map(Some)
    }

    /// The document a lookup key refers to (`customer_ref::12345`), if the lookup document exists and the
    /// document it names still holds that value.
    pub async fn get_by_lookup(&self, lookup: &str) -> Result<Option<Doc<T>>, Error> {
        let Some(stored) = self.store.get(lookup).await? else {
            return Ok(None);
        };
        let target = lookup_target(&stored.bytes).ok_or_else(|| Error::InvalidKey {
            model: T::TYPE,
            key: lookup.to_owned(),
            reason: "the document under it is not a lookup document (`{\"ref\": key}`)".to_owned(),
        })?;
        let Some(doc) = self.get(&Key::parse(&target)?).await? else {
            return Ok(None);
        };
        Ok(doc
            .stored_lookups()
            .iter()
            .any(|held| held == lookup)
            .then_some(doc))
    }
    ///
    /// With `revisions = N`, the version being replaced is first copied to `<key><d>v<d><n>` from the bytes
    /// the document already holds; then the document is replaced with `_ver = n + 1` if nobody changed it
    /// since it was read ([`Error::Conflict`] otherwise, and nothing is changed); then the copy that falls
    /// out of the last `N` is removed. Three store operations (two before the first prune, one for a model
    /// without revisions); a failure at any point leaves the stored document old or new, never lost, and a
    /// retry completes.
    ///
    /// A lookup whose field changed is claimed before all this, and the old one released after it: one more
    /// insert, and a get and a remove, per moved lookup.
    pub async fn save(&self, doc: &mut Doc<T>) -> Result<(), Error> {
        let Some(stored) = doc.stored().cloned() else {
            return Err(Error::NotFound {
                key: doc.key().as_str().to_owned(),
            });
        };
        let key = doc.key().as_str().to_owned();
        let version = doc.envelope().ver;
        let lookups = lookup_keys(doc.body())?;
        let moved: Vec<(String, String)> = doc
            .stored_lookups()
            .iter()
            .zip(&lookups)
            .filter(|(old, new)| old != new)
            .map(|(old, new)| (old.clone(), new.clone()))
            .collect();
        // The old lookups as they are before this save: releasing exactly these tokens afterwards cannot
        // remove a lookup another save of this document claims again in between.
        let mut released = Vec::new();
        for (old, _) in &moved {
            if let Some(existing) = self.store.get(old).await?
                && lookup_target(&existing.bytes).as_deref() == Some(key.as_str())
            {
                released.push(Claim {
                    lookup: old.clone(),
                    cas: existing.cas,
                });
            }
        }
        let claims = self
            .claim_all(moved.iter().map(|(_, new)| new), &key)
            .await?;
        let (envelope, written, _) = match self.write_version(doc, &key, version, &stored).await {
            Ok(written) => written,
            Err(failure) => {
                self.release_all(&claims).await;
                if let (Error::Conflict { .. }, Some(copy)) = (&failure.error, failure.copy) {
                    self.drop_stale_copy(&key, version, copy).await;
                }
                return Err(failure.error);
            }
        };
        if let Some(lost) = self.lost_claim(&claims).await {
            // Another document took the value over before this save was written: put the previous version back.
            let _ = self.store.replace(&key, &stored.bytes, &written.cas).await;
            self.release_all(&claims).await;
            return Err(Error::AlreadyExists { key: lost });
        }
        doc.written(envelope, written, lookups);
        // The save has committed: what follows only tidies up, and what it leaves behind is recognised as stale
        // (`revisions`, `get_by_lookup`, `claim`).
        if let Some(keep) = T::REVISIONS
            && let Some(dropped) = version.checked_sub(keep).filter(|dropped| *dropped > 0)
        {
            let _ = self
                .store
                .remove(&revision_key::<T>(&key, dropped), None)
                .await;
        }
        self.release_all(&released).await;
        Ok(())
    }

    /// The copy of the version being replaced, then the compare-and-swap replace: the two steps of a save
    /// that must happen, in this order. Returns the new envelope, what the store now holds, and the token of
    /// the copy when this call wrote it.
    async fn write_version(
        &self,
        doc: &Doc<T>,
        key: &str,
        version: u64,
        stored: &Stored,
    ) -> Result<(crate::Envelope, Stored, Option<Cas>), WriteFailure> {
        let copy = match T::REVISIONS {
            Some(_) => self
                .keep_copy(key, version, &stored.bytes)
                .await
                .map_err(WriteFailure::from)?,
            None => None,
        };
        let mut envelope = doc.envelope().clone();
        envelope.ver = version + 1;
        envelope.modified = Some((self.clock)());
        envelope.modified_by.clone_from(&self.actor);
        let replaced = match doc.to_vec_with(&envelope) {
            Ok(bytes) => self
                .store
                .replace(key, &bytes, &stored.cas)
                .await
                .map(|cas| Stored {
                    bytes: bytes.into(),
                    cas,
                }),
            Err(err) => Err(err),
        };
        match replaced {
            Ok(written) => Ok((envelope, written, copy)),
            Err(error) => Err(WriteFailure { error, copy }),
        }
    }

    /// Copies version `version` of the document to its revision key; returns the copy's token when this call
    /// wrote it. A copy already there with the same bytes is the same copy (left by a save that failed later,
    /// or written by a concurrent save from the same version); one with other bytes is left from an earlier
    /// document under this key, and is replaced.
    async fn keep_copy(&self, key: &str, version: u64, bytes: &[u8]) -> Result<Option<Cas>, Error> {
        let copy_key = revision_key::<T>(key, version);
        match self.store.insert(&copy_key, bytes).await {
            Ok(cas) => Ok(Some(cas)),
            Err(Error::AlreadyExists { .. }) => match self.store.get(&copy_key).await? {
                Some(existing) if &*existing.bytes == bytes => Ok(None),
                Some(existing) => self
                    .store
                    .replace(&copy_key, bytes, &existing.cas)
                    .await
                    .map(Some),
                None => Err(Error::Conflict {
                    key: key.to_owned(),
                }),
            },
            Err(err) => Err(err),
        }
    }

    /// After a lost race: removes the copy this save wrote of version `version` if the document has moved
    /// on so far that the copy is outside the last `N` (a winner has already pruned that version).
    async fn drop_stale_copy(&self, key: &str, version: u64, copy: Cas) {
        let Some(keep) = T::REVISIONS else { return };
        let Ok(Some(current)) = self.store.get(key).await else {
            return;
        };
        let Ok(current) = Doc::<T>::from_slice(&current.bytes) else {
            return;
        };
        if version + keep < current.envelope().ver {
            let _ = self
                .store
                .remove(&revision_key::<T>(key, version), Some(&copy))
                .await;
        }
    }

    /// Claims each lookup key for the document under `key`; on a failure, releases the ones it claimed and
    /// returns the error.
    async fn claim_all<'k>(
        &self,
        lookups: impl Iterator<Item = &'k String>,
        key: &str,
    ) -> Result<Vec<Claim>, Error> {
        let mut claims = Vec::new();
        for lookup in lookups {
            match self.claim(lookup, key).await {
                Ok(cas) => claims.push(Claim {
                    lookup: lookup.clone(),
                    cas,
                }),
                Err(err) => {
                    self.release_all(&claims).await;
                    return Err(err);
                }
            }
        }
        Ok(claims)
    }

    /// Claims lookup key `lookup` for the document under `key` and returns the token of the lookup document
    /// it wrote: a new one, or one rewritten over a lookup that names `key` already (left by an attempt that
    /// failed later, or another save of this document) or names a document that no longer holds the value.
    /// Writing it in every case gives this claim a token of its own, so releasing it cannot remove another's.
    /// [`Error::AlreadyExists`] names the lookup key when another document holds it.
    async fn claim(&self, lookup: &str, key: &str) -> Result<Cas, Error> {
        let document = lookup_document(key);
        match self.store.insert(lookup, &document).await {
            Err(Error::AlreadyExists { .. }) => {}
            other => return other,
        }
        let Some(existing) = self.store.get(lookup).await? else {
            // Released between the two calls: the next attempt inserts it.
            return Err(Error::Conflict {
                key: lookup.to_owned(),
            });
        };
        match lookup_target(&existing.bytes) {
            Some(target) if target != key && self.holds(&target, lookup).await? => {
                Err(Error::AlreadyExists {
                    key: lookup.to_owned(),
                })
            }
            _ => self.store.replace(lookup, &document, &existing.cas).await,
        }
    }

    /// Whether the document under `target` exists and still holds the lookup key `lookup`.
    async fn holds(&self, target: &str, lookup: &str) -> Result<bool, Error> {
        let Ok(target) = Key::<T>::parse(target) else {
            return Ok(false);
        };
        match self.store.get(target.as_str()).await? {
            None => Ok(false),
            Some(stored) => {
                let doc = Doc::from_slice_at(target, &stored.bytes)?;
                Ok(lookup_keys(doc.body())?.iter().any(|held| held == lookup))
            }
        }
    }

    /// The first claim another writer has rewritten since it was made, if any. A check that fails counts as
    /// kept: the document is written, and its lookups name it.
    async fn lost_claim(&self, claims: &[Claim]) -> Option<String> {
        for claim in claims {
            match self.store.get(&claim.lookup).await {
                Ok(Some(current)) if current.cas == claim.cas => {}
                Ok(_) => return Some(claim.lookup.clone()),
                Err(_) => {}
            }
        }
        None
    }

    /// Removes exactly the lookup documents claimed (or read) with these tokens; a lookup rewritten since is
    /// someone else's and stays. Failures are left for `claim` and `get_by_lookup` to recognise as stale.
    async fn release_all(&self, claims: &[Claim]) {
        for claim in claims {
            let _ = self.store.remove(&claim.lookup, Some(&claim.cas)).await;
        }
    }

    /// Reads the document under `key`, applies `change` and saves it, again and again while another writer
    /// got there first (at most [`Repo::update_attempts`] times). `change` may return `()` or
    /// `Result<(), Error>`; an error stops the update and nothing is written.
    ///
    /// Fails with [`Error::NotFound`] if there is no document under `key`.
    pub async fn update<R: UpdateResult>(
        &self,
        key: &Key<T>,
        mut change: impl FnMut(&mut T) -> R,
    ) -> Result<Doc<T>, Error> {
        for attempt in 0..self.update_attempts {
            let mut doc = self.get(key).await?.ok_or_else(|| Error::NotFound {
                key: key.as_str().to_owned(),
            })?;
            change(&mut doc).into_result()?;
            match self.save(&mut doc).await {
                Ok(()) => return Ok(doc),
                Err(Error::Conflict { .. }) if attempt + 1 < self.update_attempts => {
                    YieldNow(false).await
                }
                Err(err) => return Err(err),
            }
        }
        Err(Error::Conflict {
            key: key.as_str().to_owned(),
        })
    }

    /// Removes the document under `key` and its revision copies. Fails with [`Error::NotFound`] if there is
    /// none.
    pub async fn remove(&self, key: &Key<T>) -> Result<(), Error> {
        let removed = if T::LOOKUPS.is_empty() {
            self.store.remove(key.as_str(), None).await
        } else {
            match self.get(key).await? {
                None => Err(Error::NotFound {
                    key: key.as_str().to_owned(),
                }),
                Some(doc) => {
                    let removed = self.store.remove(key.as_str(), doc.cas()).await;
                    if removed.is_ok() {
                        let mut released = Vec::new();
                        for lookup in doc.stored_lookups() {
                            if let Some(existing) = self.store.get(lookup).await?
                                && lookup_target(&existing.bytes).as_deref() == Some(key.as_str())
                            {
                                released.push(Claim {
                                    lookup: lookup.clone(),
                                    cas: existing.cas,
                                });
                            }
                        }
                        self.release_all(&released).await;
                    }
                    removed
                }
            }
        };
        // Also when the document is already gone: a retry after a failure sweeps the copies left behind.
        match removed {
            Ok(()) | Err(Error::NotFound { .. }) => {
                for (copy_key, _) in self.store.scan(&revision_prefix::<T>(key.as_str())).await? {
                    match self.store.remove(&copy_key, None).await {
                        Ok(()) | Err(Error::NotFound { .. }) => {}
                        Err(err) => return Err(err),
                    }
                }
                removed
            }
            Err(err) => Err(err),
        }
    }

    /// The kept earlier versions of the document under `key`, newest first, each migrated to the current
    /// schema if it is older.
    ///
    /// With `revisions = N` these are at most the `N` versions before the current one: a copy outside them
    /// (left by a save that failed after its copy, or by a writer that lost a race by several versions) is
    /// removed here.
    pub async fn revisions(&self, key: &Key<T>) -> Result<Vec<Doc<T>>, Error> {
        let current = match T::REVISIONS {
            Some(_) => self
                .store
                .get(key.as_str())
                .await?
                .map(|stored| Doc::from_slice_at(key.clone(), &stored.bytes)),
            None => None,
        };
        let current = current.transpose()?.map(|doc| doc.envelope().ver);
        let mut copies: Vec<(u64, String, Stored)> = self
            .store
            .scan(&revision_prefix::<T>(key.as_str()))
            .await?
            .into_iter()
            .filter_map(|(copy_key, stored)| {
                Some((
                    revision_number::<T>(key.as_str(), &copy_key)?,
                    copy_key,
                    stored,
                ))
            })
            .collect();
        copies.sort_by_key(|(version, ..)| std::cmp::Reverse(*version));
        if let Some(keep) = T::REVISIONS {
            let current = current.unwrap_or(0);
            // Only copies below the window are stale for good; a copy at or above the version read here belongs
            // to a save that committed meanwhile, and is only left out.
            for (_, copy_key, _) in copies
                .iter()
                .filter(|(version, ..)| version + keep < current)
            {
                let _ = self.store.remove(copy_key, None).await;
            }
            copies.retain(|(version, ..)| in_window(*version, current, keep));
        }
        copies
            .into_iter()
            .map(|(_, _, stored)| Self::from_stored(key, stored))
            .collect()
    }

    /// The document a reference points to; `None` if it is gone. A document of another type under that key is
    /// [`Error::WrongType`].
    pub async fn load(&self, reference: &Ref<T>) -> Result<Option<Doc<T>>, Error> {
        self.get(reference.key()).await
    }

    /// Version `version` of the document under `key`, if a copy of it is kept: one of the last `N` versions
    /// before the current one (a copy outside them, left by a failure, is not a kept version).
    pub async fn revision(&self, key: &Key<T>, version: u64) -> Result<Option<Doc<T>>, Error> {
        let Some(keep) = T::REVISIONS else {
            return Ok(None);
        };
        let Some(current) = self.get(key).await? else {
            return Ok(None);
        };
        if !in_window(version, current.envelope().ver, keep) {
            return Ok(None);
        }
        let Some(stored) = self
            .store
            .get(&revision_key::<T>(key.as_str(), version))
            .await?
        else {
            return Ok(None);
        };
        Self::from_stored(key, stored).map(Some)
    }

    /// Makes the body of kept version `version` the current one, as a new version (the current one is kept
    /// as a revision like on any save). Fails with [`Error::NotFound`] naming the revision key if no copy of
    /// that version is kept.
    pub async fn restore(&self, key: &Key<T>, version: u64) -> Result<Doc<T>, Error> {
        for attempt in 0..self.update_attempts {
            // The copy never changes; reading it again on a retry costs less than requiring `T: Clone`.
            let old = self
                .revision(key, version)
                .await?
                .ok_or_else(|| Error::NotFound {
                    key: revision_key::<T>(key.as_str(), version),
                })?;
            let mut current = self.get(key).await?.ok_or_else(|| Error::NotFound {
                key: key.as_str().to_owned(),
            })?;
            *current = old.into_inner();
            match self.save(&mut current).await {
                Ok(()) => return Ok(current),
                Err(Error::Conflict { .. }) if attempt + 1 < self.update_attempts => {
                    YieldNow(false).await
                }
                Err(err) => return Err(err),
            }
        }
        Err(Error::Conflict {
            key: key.as_str().to_owned(),
        })
    }
}

/// Whether a copy of `version` is one of the `keep` versions before `current`.
fn in_window(version: u64, current: u64, keep: u64) -> bool {
    version < current && version + keep >= current
}

/// A lookup document a save or insert wrote (or found naming its document), with the token to remove exactly
/// that document.
struct Claim {
    lookup: String,
    cas: Cas,
}

/// A save step that failed, with the token of the revision copy it wrote before, if it did.
struct WriteFailure {
    error: Error,
    copy: Option<Cas>,
}

impl From<Error> for WriteFailure {
    fn from(error: Error) -> Self {
        WriteFailure { error, copy: None }
    }
}

/// The key of a model's id counter: `count<d><type>`.
fn counter_key<T: DocModel>() -> String {
    format!("count{}{}", T::KEY.delimiter, T::TYPE)
}

/// What an [`Repo::update`] closure returns: `()` or `Result<(), Error>`.
pub trait UpdateResult {
    /// As a `Result`.
    fn into_result(self) -> Result<(), Error>;
}

impl UpdateResult for () {
    fn into_result(self) -> Result<(), Error> {
        Ok(())
    }
}

impl UpdateResult for Result<(), Error> {
    fn into_result(self) -> Result<(), Error> {
        self
    }
}

/// Lets other tasks run before a retry, on any executor.
struct YieldNow(bool);

impl Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}
