//! [`Repo::remove`] and [`Repo::sweep`]: a document goes with its conflicting revisions, lookups, index
//! entries and revision copies (the order is in the [repository's docs](crate::Repo#the-repository-protocol)).

use crate::trace::operation;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::claims::Claims;
use super::{Repo, copies};
use crate::revision::RevisionWindow;
use crate::store::Store;
use crate::{Doc, DocModel, Error, Key};

impl<T, S> Repo<T, S>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    /// Removes the document under `key`, its lookups and its revision copies, and any revisions in conflict
    /// with it ([`Doc::conflicts`]) with their lookups.
    ///
    /// Fails with [`Error::NotFound`] if there is none, [`Error::WrongType`] if the key holds another model's
    /// document, [`Error::Conflict`] if the document changed while it was being removed; nothing is removed
    /// then, but for a document with conflicting revisions: its revision read is removed, and another writer
    /// saved one of the others meanwhile (that document stands, with its lookups and copies).
    ///
    /// A removal that stopped after the document was gone (a store failure, or its future dropped) is
    /// finished by calling it again. For a model with revisions, on a store that can scan
    /// ([`Capabilities::scan`](crate::store::Capabilities): every store docmodel has), a `remove` that
    /// finds no document removes the copies left under the key that no document keeps (recognised by what
    /// they hold, as [`Repo::sweep`] does: this model's type field and the version their key names), and is
    /// still [`Error::NotFound`]: it cannot tell a removal that stopped from one still running, so it never
    /// says that it removed the document. That costs a scan of the key's copy prefix (one `_all_docs` request
    /// on CouchDB, one SQL++ statement on Couchbase, which needs the key index
    /// [`Repo::ensure_indexes`](super::Repo::ensure_indexes) creates); a failure of it is left for the next
    /// `remove` or `sweep`, and the call is `NotFound` all
    /// the same. The lookups and index entries such a removal left name a document that is gone: readers
    /// skip them, and the next claim of their values takes them over.
    pub async fn remove(&self, key: &Key<T>) -> Result<(), Error> {
        operation!(self, "remove", T, Self::about(key.as_str()), {
            self.check_store()?;
            let Some(doc) = self.read(key).await? else {
                return self.finish_removal(key).await;
            };
            // Revisions a replicating server wrote beside this one would take its place: they go too, once read
            // as this model's (another model's revision stops the removal before it starts).
            let mut conflicts = Vec::new();
            for cas in doc.conflicts() {
                if let Some(stored) = self.store.get_revision(key.as_str(), cas).await? {
                    conflicts.push(Self::from_stored(key, stored)?);
                }
            }
            let mut values: Vec<&String> = doc
                .stored_lookups()
                .iter()
                .chain(
                    conflicts
                        .iter()
                        .flat_map(|conflict| conflict.stored_lookups()),
                )
                .collect();
            let entries: Vec<String> = doc
                .stored()
                .into_iter()
                .chain(conflicts.iter().filter_map(Doc::stored))
                .flat_map(|stored| self.entries(&stored.bytes, key.as_str()))
                .collect();
            values.extend(&entries);
            values.sort_unstable();
            values.dedup();
            // The lookups' and entries' tokens are read before the document goes: one a new document under the
            // key claims afterwards is written again, so these tokens no longer remove it.
            let aux = self.aux();
            let mut claims = Claims::<T, _>::new(&aux, key.as_str());
            claims.leaving(values).await?;
            self.docs().remove(key.as_str(), doc.cas()).await?;
            for conflict in &conflicts {
                match self.docs().remove(key.as_str(), conflict.cas()).await {
                    Ok(()) => {}
                    // Written over or removed by another writer meanwhile: if a document stands under the key
                    // now, it is that writer's, and its lookups and copies stay.
                    Err(Error::NotFound { .. } | Error::Conflict { .. }) => {
                        if self.store.get(key.as_str()).await?.is_some() {
                            return Err(Error::Conflict {
                                key: key.as_str().to_owned(),
                            });
                        }
                    }
                    Err(err) => return Err(err),
                }
            }
            claims.release_left().await;
            let envelope = doc.envelope();
            if let Some(window) = RevisionWindow::of::<T>(envelope.ver) {
                copies::remove_all::<T, _>(&self.docs(), key.as_str(), window, envelope.created)
                    .await?;
            }
            Ok(())
        })
    }

    /// [`Repo::remove`] of a key without a document: the copies an earlier removal left are removed, and the
    /// call is [`Error::NotFound`].
    async fn finish_removal(&self, key: &Key<T>) -> Result<(), Error> {
        if T::REVISIONS.is_some() && self.store.capabilities().scan {
            // Tidying: copies no document keeps are never listed; a failure here leaves them for the next
            // `remove` or `sweep` of the key.
            let _ = copies::sweep::<T, _>(&self.docs(), key.as_str(), true, (self.clock)()).await;
        }
        Err(Error::NotFound {
            key: key.as_str().to_owned(),
        })
    }

    /// Removes the revision copies under `key` that no document keeps: those left by failures (a prune that
    /// failed after its save, a remove that failed after its document), kept by an earlier document under
    /// the key, or (with `revisions(keep = N, for = ...)`) past the count and older than the age by the
    /// repository's clock. Returns how many it removed. Needs a store that can scan
    /// ([`Capabilities::scan`](crate::store::Capabilities); on Couchbase, the key index
    /// [`Repo::ensure_indexes`](super::Repo::ensure_indexes) creates); other values under the prefix are left
    /// alone, and so are all the copies of a document with revisions in conflict (written on servers that
    /// replicate): a losing revision's window may hold them, and [`Repo::resolve`](super::Repo::resolve)
    /// reads them.
    pub async fn sweep(&self, key: &Key<T>) -> Result<usize, Error> {
        operation!(self, "sweep", T, Self::about(key.as_str()), {
            copies::sweep::<T, _>(&self.docs(), key.as_str(), false, (self.clock)()).await
        })
    }
}
