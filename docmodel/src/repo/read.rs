//! The reads: [`Repo::get`] and its batch and lookup forms, and a document's history ([`Repo::revisions`],
//! [`Repo::revision`], [`Repo::restore`]).

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{Repo, RetryPolicy, copies};
use crate::keyshape::{lookup_keys, revision_key};
use crate::revision::RevisionWindow;
use crate::store::{Store, Stored};
use crate::trace::operation;
use crate::{Doc, DocModel, Error, Key, Ref, Timestamp};

impl<T, S> Repo<T, S>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    /// The document under `key`, migrated to the current schema if it is older; `None` if there is none.
    ///
    /// A document of another model under that key is [`Error::WrongType`]; with `validate_on_read`, one
    /// that breaks the model's rules is [`Error::Validation`].
    pub async fn get(&self, key: &Key<T>) -> Result<Option<Doc<T>>, Error> {
        operation!(self, "get", T, Self::about(key.as_str()), {
            self.read(key).await?.map(Doc::checked_read).transpose()
        })
    }

    /// [`Repo::get`] without the model's rules, for the reads of a write or a removal.
    pub(super) async fn read(&self, key: &Key<T>) -> Result<Option<Doc<T>>, Error> {
        let Some(stored) = self.store.get(key.as_str()).await? else {
            return Ok(None);
        };
        Self::from_stored(key, stored).map(Some)
    }

    /// The documents under `keys`, in the same order, each migrated to the current schema if it is older;
    /// `None` where there is none. One [`Store::get_many`]: one request on CouchDB, one read transaction on
    /// Redb.
    ///
    /// A document of another model under one of the keys is [`Error::WrongType`] naming that key.
    ///
    /// ```
    /// # use docmodel::{DocModel, Repo, store::MemoryStore};
    /// # #[derive(Debug, serde::Serialize, serde::Deserialize, DocModel)]
    /// # #[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
    /// # struct User { #[docmodel(get)] id: u64 }
    /// # pollster::block_on(async {
    /// let users = Repo::<User>::new(MemoryStore::new());
    /// users.insert(User { id: 1 }).await?;
    /// users.insert(User { id: 3 }).await?;
    /// let found = users.get_many(&[User::key(3), User::key(2), User::key(1)]).await?;
    /// let ids: Vec<Option<u64>> = found.iter().map(|doc| doc.as_ref().map(|doc| doc.id())).collect();
    /// assert_eq!(ids, [Some(3), None, Some(1)]);
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn get_many(&self, keys: &[Key<T>]) -> Result<Vec<Option<Doc<T>>>, Error> {
        operation!(self, "get_many", T, {
            if keys.is_empty() {
                return Ok(Vec::new());
            }
            let texts: Vec<&str> = keys.iter().map(Key::as_str).collect();
            let found = self.store.get_many(&texts).await?;
            keys.iter()
                .zip(found)
                .map(|(key, stored)| {
                    stored
                        .map(|stored| Self::from_stored(key, stored).and_then(Doc::checked_read))
                        .transpose()
                })
                .collect()
        })
    }

    /// The documents `references` point to, in the same order; `None` for each that is gone. One round
    /// trip, as [`Repo::get_many`]: a playlist's tracks are loaded with one request, not one per track.
    pub async fn load_many(&self, references: &[Ref<T>]) -> Result<Vec<Option<Doc<T>>>, Error> {
        let keys: Vec<Key<T>> = references
            .iter()
            .map(|reference| reference.key().clone())
            .collect();
        self.get_many(&keys).await
    }

    /// The document a lookup key refers to (`customer_ref::12345`), if the lookup document exists and the
    /// document it names still holds that value.
    ///
    /// Servers that replicate each other can each accept another document with a unique value; after the
    /// replication the lookup document is in conflict, one revision naming each. Where more than one of the
    /// documents it names still holds the value, this fails with [`Error::DuplicateValue`] naming them all
    /// (never one of them chosen by the server), until [`Repo::settle_lookup`] settles it.
    pub async fn get_by_lookup(&self, lookup: &str) -> Result<Option<Doc<T>>, Error> {
        operation!(
            self,
            "get_by_lookup",
            T,
            crate::trace::Subject::Lookup(lookup),
            {
                let Some((_, mut holders)) = self.lookup_holders(lookup).await? else {
                    return Ok(None);
                };
                match holders.len() {
                    0 => Ok(None),
                    1 => holders.pop().map(Doc::checked_read).transpose(),
                    _ => Err(Error::DuplicateValue {
                        lookup: lookup.to_owned(),
                        keys: holders
                            .iter()
                            .map(|doc| doc.key().as_str().to_owned())
                            .collect(),
                    }),
                }
            }
        )
    }

    /// The kept earlier versions of the document under `key`, newest first, each migrated to the current
    /// schema if it is older: with `revisions = N`, the copies of the `N` versions before the current one
    /// that are there. Two store operations (the document, then its copies in one batch); no scan. With
    /// `revisions(keep = N, for = "30d")`, the copies past those follow while they are kept (each displaced
    /// no longer than the age ago, by the repository's clock), one more batch for every `N` of them.
    pub async fn revisions(&self, key: &Key<T>) -> Result<Vec<Doc<T>>, Error> {
        operation!(self, "revisions", T, Self::about(key.as_str()), {
            if T::REVISIONS.is_none() {
                return Ok(Vec::new());
            }
            let Some(current) = self.read(key).await? else {
                return Ok(Vec::new());
            };
            let envelope = current.envelope();
            let Some(window) = RevisionWindow::of::<T>(envelope.ver) else {
                return Ok(Vec::new());
            };
            let created = envelope.created;
            let mut kept = Vec::new();
            for (version, stored) in
                copies::fetch::<T, _>(&self.docs(), key.as_str(), window, (self.clock)()).await?
            {
                kept.extend(Self::copy_from_stored(key, version, created, stored)?);
            }
            Ok(kept)
        })
    }

    /// The document a reference points to; `None` if it is gone. A document of another type under that key is
    /// [`Error::WrongType`].
    pub async fn load(&self, reference: &Ref<T>) -> Result<Option<Doc<T>>, Error> {
        self.get(reference.key()).await
    }

    /// Version `version` of the document under `key`, if a copy of it is kept: one of the last `N` versions
    /// before the current one, or with an age one past them displaced no longer than the age ago.
    pub async fn revision(&self, key: &Key<T>, version: u64) -> Result<Option<Doc<T>>, Error> {
        operation!(self, "revision", T, Self::about(key.as_str()), {
            Ok(self
                .current_and_revision(key, version)
                .await?
                .and_then(|(_, copy)| copy))
        })
    }

    /// The current document under `key` and its kept copy of `version`, if any.
    pub(super) async fn current_and_revision(
        &self,
        key: &Key<T>,
        version: u64,
    ) -> Result<Option<(Doc<T>, Option<Doc<T>>)>, Error> {
        let Some(current) = self.read(key).await? else {
            return Ok(None);
        };
        let envelope = current.envelope();
        let created = envelope.created;
        let Some(window) = RevisionWindow::of::<T>(envelope.ver) else {
            return Ok(Some((current, None)));
        };
        let (modified, now) = (envelope.modified, (self.clock)());
        let docs = self.docs();
        let kept =
            copies::kept::<T, _>(&docs, key.as_str(), window, version, modified, created, now);
        if !kept.await? {
            return Ok(Some((current, None)));
        }
        let copy_key = revision_key::<T>(key.as_str(), version);
        let copy = match self.docs().get(&copy_key).await? {
            Some(stored) => Self::copy_from_stored(key, version, created, stored)?,
            None => None,
        };
        Ok(Some((current, copy)))
    }

    /// The copy of `version` of the document under `key` (created at `created`) that `stored` holds, read:
    /// `None` when it is not one (another model's document, another version, a copy of an earlier document
    /// under the key, or bytes that do not read and whose envelope is not a copy's either). A copy of this
    /// document that does not read is an error.
    fn copy_from_stored(
        key: &Key<T>,
        version: u64,
        created: Option<Timestamp>,
        stored: Stored,
    ) -> Result<Option<Doc<T>>, Error> {
        let read = Doc::read_at(key.clone(), &stored.bytes)
            .and_then(|copy| Ok((lookup_keys(copy.body())?, copy)));
        match read {
            Ok((lookups, mut copy)) => {
                // Read at the current schema, the model's own reader took its type, `_ver` and `_created`;
                // through a migration chain, an older model or a step did, and the copy's envelope is
                // recognised as it is stored.
                let envelope = copy.envelope();
                let is_copy = match copy.migrated_from() {
                    None => copies::is_copy_of(envelope.ver, envelope.created, version, created),
                    Some(_) => copies::recognise_whole::<T>(&stored.bytes, version, created),
                };
                if !is_copy {
                    return Ok(None);
                }
                copy.set_stored(stored, lookups);
                Ok(Some(copy))
            }
            Err(_) if !copies::recognise_whole::<T>(&stored.bytes, version, created) => Ok(None),
            Err(err) => Err(err),
        }
    }

    /// Brings kept version `version` back, whole (its body, the fields this code does not know, its schema
    /// when a newer minor wrote it), as a new version: the current one is kept as a revision like on any save.
    /// Fails with [`Error::NotFound`] naming the key if there is no document, and naming the revision key if no
    /// copy of that version is kept.
    pub async fn restore(&self, key: &Key<T>, version: u64) -> Result<Doc<T>, Error> {
        operation!(self, "restore", T, Self::about(key.as_str()), {
            let mut attempt = 1;
            loop {
                let not_found = || Error::NotFound {
                    key: revision_key::<T>(key.as_str(), version),
                };
                let (mut current, old) = self
                    .current_and_revision(key, version)
                    .await?
                    .ok_or_else(|| Error::NotFound {
                        key: key.as_str().to_owned(),
                    })?;
                current.take_content(old.ok_or_else(not_found)?);
                match self.save(&mut current).await {
                    Ok(()) => return Ok(current),
                    Err(err) if RetryPolicy::retries(&err) && attempt < self.retry.attempts() => {
                        self.retry.pause(attempt, &err).await;
                        attempt += 1;
                    }
                    Err(err) => return Err(err),
                }
            }
        })
    }
}
