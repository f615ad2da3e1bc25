//! Lookups that servers replicating each other left in conflict: [`Repo::get_by_lookup`] names every holder,
//! [`Repo::settle_lookup`] settles them.

use crate::trace::operation;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{Repo, Resolve, RetryPolicy};
use crate::lookup::{lookup_document, lookup_target};
use crate::store::{Store, Stored};
use crate::{Doc, DocModel, Error, Key};

/// A lookup [`Repo::settle_lookup`] settled.
#[non_exhaustive]
pub struct SettledLookup<T> {
    /// The document the lookup names from now on.
    pub kept: Doc<T>,
    /// The other documents holding the value, as they are: neither changed nor removed. Each still holds the
    /// value, which is no longer unique until the application changes it or removes the document.
    pub lost: Vec<Doc<T>>,
}

impl<T: DocModel + std::fmt::Debug> std::fmt::Debug for SettledLookup<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SettledLookup")
            .field("kept", &self.kept)
            .field("lost", &self.lost)
            .finish()
    }
}

impl<T, S> Repo<T, S>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    /// The lookup document under `lookup` as the store holds it, and the documents it names that still hold
    /// its value, in key order: the one its revision names and, on a store that keeps revisions in conflict
    /// (CouchDB after a replication), the ones its conflicting revisions name. `None` when there is no lookup
    /// document.
    pub(super) async fn lookup_holders(
        &self,
        lookup: &str,
    ) -> Result<Option<(Stored, Vec<Doc<T>>)>, Error> {
        let Some(stored) = self.store.get(lookup).await? else {
            return Ok(None);
        };
        let named = lookup_target::<T>(lookup, &stored.bytes).ok_or_else(|| Error::InvalidKey {
            model: T::TYPE,
            key: lookup.to_owned(),
            reason: "the document under it is not a lookup document of this model (`{\"ref\": key}`, or \
                     `{\"ref\": id}` for a lookup declared `ref_id`)"
                .to_owned(),
        })?;
        let mut targets = vec![Key::<T>::parse(&named)?];
        for cas in &stored.conflicts {
            // A conflicting revision that is not a lookup of this model's names no holder.
            let other = self.store.get_revision(lookup, cas).await?;
            if let Some(key) = other
                .and_then(|other| lookup_target::<T>(lookup, &other.bytes))
                .and_then(|target| Key::<T>::parse(&target).ok())
            {
                targets.push(key);
            }
        }
        targets.sort_by(|a, b| a.as_str().cmp(b.as_str()));
        targets.dedup_by(|a, b| a.as_str() == b.as_str());
        let mut holders = Vec::with_capacity(targets.len());
        for key in targets {
            if let Some(doc) = self.read(&key).await?
                && doc.stored_lookups().iter().any(|held| held == lookup)
            {
                holders.push(doc);
            }
        }
        Ok(Some((stored, holders)))
    }

    /// Settles a lookup that servers replicating each other left in conflict, each having accepted another
    /// document holding the unique value ([`Error::DuplicateValue`] says so where it is read): `policy` picks
    /// the document the lookup names from now on, among those that still hold the value (read as
    /// [`Repo::get`] reads them), as [`Repo::resolve`] picks among a document's revisions. The lookup is
    /// written naming it over the revision read, then its conflicting revisions are removed, by their
    /// tokens; replicated, the settlement reaches the other servers. The documents that lost are returned as
    /// they are, neither changed nor removed: the value stays theirs until the application changes it (a save
    /// of theirs then releases nothing it does not hold) or removes them.
    ///
    /// A lookup without conflicting revisions, naming the one document that holds the value, is returned
    /// settled with nothing written. Tried again under the [`RetryPolicy`] when another writer changed the
    /// lookup meanwhile. Fails with [`Error::NotFound`] naming the lookup when there is no lookup document, or
    /// no document holds its value any more.
    ///
    /// ```
    /// # use docmodel::{DocModel, Repo, Resolve, store::MemoryStore};
    /// # #[derive(Debug, serde::Serialize, serde::Deserialize, DocModel)]
    /// # #[docmodel(type = "user", schema = "1.0", key = "user::{id}", lookup = "email::{email}")]
    /// # struct User { id: u64, email: String }
    /// # pollster::block_on(async {
    /// let users = Repo::<User>::new(MemoryStore::new());
    /// users.insert(User { id: 1, email: "ada@example.com".into() }).await?;
    /// // One server keeps one value per key: nothing to settle.
    /// let settled = users.settle_lookup("email::ada@example.com", &Resolve::highest_version()).await?;
    /// assert_eq!(settled.kept.body().id, 1);
    /// assert!(settled.lost.is_empty());
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn settle_lookup(
        &self,
        lookup: &str,
        policy: &Resolve<T>,
    ) -> Result<SettledLookup<T>, Error> {
        operation!(
            self,
            "settle_lookup",
            T,
            crate::trace::Subject::Lookup(lookup),
            {
                self.check_store()?;
                let mut attempt = 1;
                loop {
                    match self.settle_once(lookup, policy).await {
                        Err(err)
                            if RetryPolicy::retries(&err) && attempt < self.retry.attempts() =>
                        {
                            self.retry.pause(attempt, &err).await;
                            attempt += 1;
                        }
                        settled => return settled,
                    }
                }
            }
        )
    }

    async fn settle_once(
        &self,
        lookup: &str,
        policy: &Resolve<T>,
    ) -> Result<SettledLookup<T>, Error> {
        let not_found = || Error::NotFound {
            key: lookup.to_owned(),
        };
        let (stored, mut holders) = self.lookup_holders(lookup).await?.ok_or_else(not_found)?;
        if holders.is_empty() {
            return Err(not_found());
        }
        let at = if holders.len() == 1 {
            0
        } else {
            policy.pick(&holders)
        };
        let kept = holders.remove(at);
        let aux = self.aux();
        let names_kept =
            lookup_target::<T>(lookup, &stored.bytes).as_deref() == Some(kept.key().as_str());
        if !names_kept || !stored.conflicts.is_empty() {
            let document = lookup_document::<T>(lookup, kept.key().as_str());
            aux.replace(lookup, &document, &stored.cas).await?;
        }
        for conflict in &stored.conflicts {
            match aux.remove(lookup, Some(conflict)).await {
                // Removed meanwhile, by another settlement or a replication of one.
                Ok(()) | Err(Error::NotFound { .. } | Error::Conflict { .. }) => {}
                Err(err) => return Err(err),
            }
        }
        Ok(SettledLookup {
            kept,
            lost: holders,
        })
    }
}
