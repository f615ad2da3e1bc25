//! The saves of a batch of documents in one atomic write ([`Repo::migrate_all`] on a store with
//! [`Capabilities::atomic_writes`](crate::store::Capabilities::atomic_writes)), their lookups and index
//! entries with them.
//!
//! The order of store operations for one batch:
//!
//! 1. **get** (one batch) every lookup and index entry the batch's saves claim or release, and the copy each
//!    save prunes. A save whose claims or releases are not plain is left out, to be made on its own with the
//!    [claims protocol](crate::Repo#lookup-claims): a value another document's lookup names, a key two saves
//!    of the batch touch, or a claim on a repository whose documents expire (one batch writes with one
//!    expiry, and lookups never expire).
//! 2. **write_atomic** (one transaction) of, for each save: the insert of each lookup and entry it claims
//!    that is absent, and the replace (by the token got in step 1) of each that names it already (*held*:
//!    written again, as a claim does); the insert of its revision copy; the compare-and-swap replace of the
//!    document; the removal (by token) of the copy leaving its window; the removal (by token) of each lookup
//!    and entry it leaves that names it.
//!
//! There is nothing to confirm, undo or release after step 2: the claims and the document are one
//! transaction, so no other writer can see a claim without the document that holds it, or take it over in
//! between. A crash before step 2 commits leaves every document as it was and nothing written; after it,
//! every save of the batch whole. When step 2 fails (a document or a lookup changed since it was read, a
//! copy's key taken), nothing was written (or, ambiguous, all of it), and each save is made on its own:
//! it then finds its document saved already, or conflicts and reads it again.

use std::collections::HashSet;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::Repo;
use super::copies;
use super::indexes;
use super::save::Prepared;
use crate::codec;
use crate::keyshape::revision_key;
use crate::lookup::{lookup_document, lookup_target};
use crate::revision::RevisionWindow;
use crate::store::{Cas, Store, Write, WriteOptions};
use crate::{DocModel, Error, Expiry};

/// One save of a batch: what [`Repo::prepare_save`] computed, and what the batch writes of its claims.
pub(super) struct Batched {
    pub(super) prepared: Prepared,
    plan: Plan,
}

/// What a batch writes of one save's claims.
struct Plan {
    /// Each lookup or entry claimed: its key, its document, and the token it holds now if it names this
    /// document already (written again), `None` if absent (inserted).
    claims: Vec<(String, Vec<u8>, Option<Cas>)>,
    /// Each lookup or entry released: its key and the token it was got with.
    releases: Vec<(String, Cas)>,
    /// The copy leaving the window, if it is there and is this document's: its key and token.
    prune: Option<(String, Cas)>,
}

impl<T, S> Repo<T, S>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    /// Step 1: sorts `saves` into those the batch writes and those (`alone`) made on their own, after one
    /// read of every lookup, entry and copy they touch.
    /// A store error reading them leaves them all to be made on their own.
    pub(super) async fn plan_together<D>(
        &self,
        saves: Vec<(D, Prepared)>,
    ) -> (Vec<(D, Batched)>, Vec<D>) {
        // One batch writes with the documents' options: a claim there would expire with them.
        let expiring = matches!(self.write.expiry, Expiry::After(_));
        // What each save claims and releases, as its save on its own would: (claimed, released).
        let touched: Vec<(Vec<&String>, Vec<&String>)> = saves
            .iter()
            .map(|(_, prepared)| claims_of(prepared))
            .collect();
        let pruned: Vec<Option<(u64, String)>> = saves
            .iter()
            .map(|(_, prepared)| {
                let pruned = RevisionWindow::of::<T>(prepared.version)?.pruned_by_next_save()?;
                Some((pruned, revision_key::<T>(&prepared.key, pruned)))
            })
            .collect();
        let mut keys: Vec<&str> = Vec::new();
        for ((claimed, released), pruned) in touched.iter().zip(&pruned) {
            keys.extend(claimed.iter().chain(released).map(|key| key.as_str()));
            keys.extend(pruned.iter().map(|(_, key)| key.as_str()));
        }
        let found = if keys.is_empty() {
            Ok(Vec::new())
        } else {
            self.store.get_many(&keys).await
        };
        let Ok(found) = found else {
            return (Vec::new(), saves.into_iter().map(|(doc, _)| doc).collect());
        };
        let mut found = found.into_iter();
        // The keys a save of the batch writes: a second save touching one is made on its own.
        let mut used: HashSet<&str> = HashSet::new();
        let mut plans = Vec::with_capacity(saves.len());
        for (((_, prepared), (claimed, released)), pruned) in
            saves.iter().zip(&touched).zip(&pruned)
        {
            let mut plan = Some(Plan {
                claims: Vec::with_capacity(claimed.len()),
                releases: Vec::new(),
                prune: None,
            });
            for lookup in claimed.iter() {
                let existing = found.next().flatten();
                let fresh = used.insert(lookup.as_str());
                let Some(batched) = plan.as_mut().filter(|_| fresh && !expiring) else {
                    plan = None;
                    continue;
                };
                let document = lookup_document::<T>(lookup, &prepared.key);
                match existing {
                    None => batched.claims.push(((*lookup).clone(), document, None)),
                    Some(existing)
                        if lookup_target::<T>(lookup, &existing.bytes).as_deref()
                            == Some(prepared.key.as_str()) =>
                    {
                        batched
                            .claims
                            .push(((*lookup).clone(), document, Some(existing.cas)));
                    }
                    // Another document's, or somebody else's value: the claim says which, on its own.
                    Some(_) => plan = None,
                }
            }
            for lookup in released.iter() {
                let existing = found.next().flatten();
                let fresh = used.insert(lookup.as_str());
                let Some(batched) = plan.as_mut().filter(|_| fresh) else {
                    plan = None;
                    continue;
                };
                // Only one naming this document is released, by the token got.
                if let Some(existing) = existing
                    && lookup_target::<T>(lookup, &existing.bytes).as_deref()
                        == Some(prepared.key.as_str())
                {
                    batched.releases.push(((*lookup).clone(), existing.cas));
                }
            }
            if let Some((version, key)) = pruned {
                let copy = found.next().flatten().filter(|copy| {
                    codec::peek::<T>(&copy.bytes).is_some_and(|peeked| {
                        copies::is_copy(&peeked, *version, prepared.envelope.created)
                    })
                });
                if let Some(batched) = &mut plan {
                    batched.prune = copy.map(|copy| (key.clone(), copy.cas));
                }
            }
            plans.push(plan);
        }
        drop((used, touched));
        let mut batched = Vec::with_capacity(saves.len());
        let mut alone = Vec::new();
        for ((doc, prepared), plan) in saves.into_iter().zip(plans) {
            match plan {
                Some(plan) => batched.push((doc, Batched { prepared, plan })),
                None => alone.push(doc),
            }
        }
        (batched, alone)
    }

    /// Step 2: the writes of the saves `batched` in one atomic batch.
    pub(super) async fn write_together<D>(&self, batched: &[(D, Batched)]) -> Result<(), Error> {
        let copies: Vec<Option<(String, Vec<u8>)>> = batched
            .iter()
            .map(|(_, batch)| {
                let prepared = &batch.prepared;
                T::REVISIONS.map(|_| {
                    (
                        revision_key::<T>(&prepared.key, prepared.version),
                        codec::marked::<T>(
                            &prepared.stored.bytes,
                            &prepared.key,
                            &crate::lineage::version_digest::<T>(&prepared.bytes),
                        ),
                    )
                })
            })
            .collect();
        let mut writes = Vec::with_capacity(batched.len() * 3);
        for ((_, batch), copy) in batched.iter().zip(&copies) {
            let prepared = &batch.prepared;
            for (key, value, held) in &batch.plan.claims {
                writes.push(match held {
                    None => Write::Insert { key, value },
                    Some(cas) => Write::Replace { key, value, cas },
                });
            }
            if let Some((key, value)) = copy {
                writes.push(Write::Insert { key, value });
            }
            writes.push(Write::Replace {
                key: &prepared.key,
                value: &prepared.bytes,
                cas: &prepared.stored.cas,
            });
            if let Some((key, cas)) = &batch.plan.prune {
                writes.push(Write::Remove {
                    key,
                    cas: Some(cas),
                });
            }
            for (key, cas) in &batch.plan.releases {
                writes.push(Write::Remove {
                    key,
                    cas: Some(cas),
                });
            }
        }
        self.docs()
            .write_atomic(&writes, &WriteOptions::DEFAULT)
            .await
            .map(drop)
    }
}

/// The lookups and entries a save claims, and those it releases, as [`Repo::save_claiming`] takes them.
fn claims_of(prepared: &Prepared) -> (Vec<&String>, Vec<&String>) {
    let mut released: Vec<&String> = prepared.moved.iter().map(|(old, _)| old).collect();
    released.extend(indexes::changed(
        &prepared.old_entries,
        &prepared.new_entries,
    ));
    let mut claimed: Vec<&String> = if prepared.adopted {
        prepared.lookups.iter().collect()
    } else {
        prepared.moved.iter().map(|(_, new)| new).collect()
    };
    if prepared.adopted {
        claimed.extend(prepared.new_entries.iter());
    } else {
        claimed.extend(indexes::changed(
            &prepared.new_entries,
            &prepared.old_entries,
        ));
    }
    (claimed, released)
}
