//! [`Repo::all`]: every document of a model, read a batch at a time in key order.

use std::collections::VecDeque;
use std::fmt;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::keys::ModelKeys;
use super::{Partition, Repo};
use crate::store::{Store, Stored};
use crate::trace::operation;
use crate::{Doc, DocModel, Error, Key, Unreadable};

/// How many documents a [`Walk`] reads at once unless [`Walk::batch`] says otherwise.
const BATCH: usize = 256;

/// Every document of a model, in key order, read as [`Repo::get`] reads it: [`Repo::all`].
///
/// Memory holds a page of keys and a batch of documents, whatever the store holds. The walk can stop
/// anywhere and resume after its [`cursor`](Walk::cursor), and split with the other parts of a
/// [`Partition`].
///
/// ```
/// # use docmodel::{DocModel, Repo, store::MemoryStore};
/// # #[derive(Debug, serde::Serialize, serde::Deserialize, DocModel)]
/// # #[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
/// # struct User { #[docmodel(get)] id: u64 }
/// # pollster::block_on(async {
/// let users = Repo::<User>::new(MemoryStore::new());
/// for id in [3, 1, 2] {
///     users.insert(User { id }).await?;
/// }
/// let mut all = users.all().batch(2);
/// let mut ids = Vec::new();
/// while let Some(user) = all.next().await? {
///     ids.push(user.id());
/// }
/// assert_eq!(ids, [1, 2, 3]);
/// assert_eq!(all.cursor(), Some("user::3"));
///
/// // Resumed after a key it stopped at.
/// let mut rest = users.all().resume_after("user::1");
/// assert_eq!(rest.next().await?.map(|user| user.id()), Some(2));
/// # Ok::<(), docmodel::Error>(())
/// # }).unwrap();
/// ```
#[must_use = "a walk reads nothing until `next` is awaited"]
pub struct Walk<'a, T, S> {
    repo: &'a Repo<T, S>,
    batch: usize,
    partition: Partition,
    skip_unreadable: bool,
    /// Where the walk starts, until its listing is made.
    resume_after: Option<String>,
    /// The model's keys, listed when the first batch is read.
    keys: Option<ModelKeys<'a, T, S>>,
    /// The keys listed for the next batch, until its documents are read.
    pending: Option<Vec<Key<T>>>,
    /// The batch read and not yet handed out.
    read: VecDeque<(Key<T>, Option<Stored>)>,
    /// The last key handed out, refused or passed over.
    cursor: Option<String>,
    /// The documents passed over since [`Walk::take_unreadable`] was last called.
    unreadable: Vec<Unreadable>,
}

impl<T, S> fmt::Debug for Walk<'_, T, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Walk")
            .field("batch", &self.batch)
            .field("partition", &self.partition)
            .field("skip_unreadable", &self.skip_unreadable)
            .field("cursor", &self.cursor)
            .finish_non_exhaustive()
    }
}

impl<'a, T, S> Walk<'a, T, S>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    /// Reads `size` documents at a time (one [`Store::get_many`] each; 0 is taken as 1).
    pub fn batch(mut self, size: usize) -> Self {
        self.batch = size.max(1);
        self
    }

    /// Starts after the key `cursor`: the [`cursor`](Walk::cursor) of a walk that stopped. Keys are walked in
    /// key order, so every key up to the cursor was handed out or passed over.
    pub fn resume_after(mut self, cursor: impl Into<String>) -> Self {
        let cursor = cursor.into();
        self.cursor = Some(cursor.clone());
        self.resume_after = Some(cursor);
        self
    }

    /// Walks one part of the model's documents split `partition.count()` ways ([`Partition::holds`]): the n
    /// parts of one count together walk every document once.
    pub fn partition(mut self, partition: Partition) -> Self {
        self.partition = partition;
        self
    }

    /// Passes over a document that does not read as the model (a failed migration, a broken rule with
    /// `validate_on_read`, JSON it cannot read), keeping its key and error for
    /// [`take_unreadable`](Walk::take_unreadable), instead of returning the error.
    pub fn skip_unreadable(mut self) -> Self {
        self.skip_unreadable = true;
        self
    }

    /// The next document, or `None` when every one was walked.
    ///
    /// A document that does not read is its error (unless [`skip_unreadable`](Walk::skip_unreadable)), and
    /// the walk goes on past it at the next call; a value of another model under the model's key shape is
    /// passed over, as [`Repo::migrate_all`] passes it over. A store's error, or a call dropped before it
    /// returns (a timeout), leaves the walk where it was: the next call reads the same batch again.
    pub async fn next(&mut self) -> Result<Option<Doc<T>>, Error> {
        loop {
            if self.read.is_empty() && !self.read_batch().await? {
                return Ok(None);
            }
            let Some((key, stored)) = self.read.pop_front() else {
                continue;
            };
            self.cursor = Some(key.as_str().to_owned());
            let Some(stored) = stored else { continue };
            match Repo::<T, S>::from_stored(&key, stored).and_then(Doc::checked_read) {
                Ok(doc) => return Ok(Some(doc)),
                Err(Error::WrongType { .. }) => {}
                Err(error) if self.skip_unreadable => {
                    self.unreadable.push(Unreadable::new(key.as_str(), error));
                }
                Err(error) => return Err(error),
            }
        }
    }

    /// The last key the walk handed out, refused or passed over: [`resume_after`](Walk::resume_after) it to
    /// go on from there. `None` before the first document (or the cursor it resumed after).
    pub fn cursor(&self) -> Option<&str> {
        self.cursor.as_deref()
    }

    /// The documents passed over by [`skip_unreadable`](Walk::skip_unreadable) since the last call, each
    /// with its key and why. They are kept until taken.
    pub fn take_unreadable(&mut self) -> Vec<Unreadable> {
        std::mem::take(&mut self.unreadable)
    }

    /// Reads the next batch of the listing into `read`; false when the listing is over. Traced as one
    /// `all` operation a batch (none for a listing known to be over).
    async fn read_batch(&mut self) -> Result<bool, Error> {
        if self.pending.is_none() && self.keys.as_ref().is_some_and(ModelKeys::is_exhausted) {
            return Ok(false);
        }
        operation!(self.repo, "all", T, { self.read_next_batch().await })
    }

    /// [`read_batch`](Walk::read_batch), untraced.
    async fn read_next_batch(&mut self) -> Result<bool, Error> {
        let keys = match &mut self.keys {
            Some(keys) => keys,
            None => {
                let hint = ": read its documents by key with `get_many`";
                let after = self.resume_after.as_deref();
                let listed = self
                    .repo
                    .model_keys("walking", hint, after, self.partition)?;
                self.keys.insert(listed)
            }
        };
        // Kept until its documents are read: a call dropped or failed while they are read (a timeout, the
        // store's error) leaves the batch for the next call, so no key is passed over.
        if self.pending.is_none() {
            match keys.next_batch(self.batch).await? {
                Some(batch) => self.pending = Some(batch),
                None => return Ok(false),
            }
        }
        let Some(batch) = &self.pending else {
            return Ok(false);
        };
        let texts: Vec<&str> = batch.iter().map(Key::as_str).collect();
        let found = self.repo.store.get_many(&texts).await?;
        let batch = self.pending.take().unwrap_or_default();
        self.read.extend(batch.into_iter().zip(found));
        Ok(true)
    }
}

impl<T, S> Repo<T, S>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    /// Every document of the model, read and migrated as [`Repo::get`] reads them, in key order and a batch
    /// at a time ([`Walk`]): an export, a pre-aggregation (the CouchDB guide's "walking the entire database
    /// and generating documents ... with a lower level of granularity"), a check. Revision copies, lookups and
    /// other models' documents are left out. Nothing is written.
    ///
    /// Needs a store that can list keys ([`Capabilities::scan`](crate::store::Capabilities::scan)); on
    /// another, the first [`next`](Walk::next) is [`Error::Store`] saying so.
    pub fn all(&self) -> Walk<'_, T, S> {
        Walk {
            repo: self,
            batch: BATCH,
            partition: Partition::WHOLE,
            skip_unreadable: false,
            resume_after: None,
            keys: None,
            pending: None,
            read: VecDeque::new(),
            cursor: None,
            unreadable: Vec::new(),
        }
    }
}
