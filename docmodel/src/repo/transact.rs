//! [`Repo::update`] on a store that runs a read-modify-write in one write transaction
//! ([`Capabilities::transactions`](crate::store::Capabilities::transactions): `MemoryStore`, `Redb`).
//!
//! The update's store operations, all in one [`Store::transact`], in order: get the document; apply the
//! change and compute the save ([`Repo::prepare_save`]: the encoding, the model's rules, the limits); for
//! each lookup, then each index entry, the save takes: get it, and insert it if absent, write it again by its
//! token if it names this document (held), or take it over by its token if it names one that no longer holds
//! the value (another holder fails the update with [`Error::AlreadyExists`]); insert the copy of the version
//! read (where the model keeps revisions; one of the same JSON there is used as it is, another copy of this
//! model's written over: the document is as read, so no save from that version has committed); replace the
//! document by its token; get the copy leaving the window and remove it if it is this document's; get each
//! lookup and entry the document leaves and remove it if it names this document.
//!
//! No other writer comes between the first read and the commit, so the update never conflicts, claims need
//! no confirming, and nothing is undone: an error anywhere (the change's, the rules', a value another
//! document holds) writes nothing, and a crash leaves the old version whole or the new one with its
//! lookups and copies.

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::save::Prepared;
use super::{Repo, copies, indexes, records};
use crate::codec;
use crate::keyshape::{lookup_keys, revision_key};
use crate::lookup::{lookup_document, lookup_target};
use crate::revision::RevisionWindow;
use crate::store::{Store, Stored, Transaction, Write, WriteOptions};
use crate::{Doc, DocModel, Error, Expiry, Key};

impl<T, S> Repo<T, S>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    /// Reads the document under `key`, applies `change` and saves it, in one transaction of the store.
    /// `None` when the store did not run the transaction at all (a store written by hand that passes
    /// [`Capabilities::transactions`](crate::store::Capabilities::transactions) on from another but leaves
    /// [`Store::transact`] to the trait's default): the update is then made with compare-and-swap.
    pub(super) fn update_in_transaction(
        &self,
        key: &Key<T>,
        change: &mut dyn FnMut(&mut Doc<T>) -> Result<(), Error>,
    ) -> Result<Option<Doc<T>>, Error> {
        let mut ran = false;
        let mut updated = None;
        let result = self.store.transact(&self.write, &mut |tx| {
            ran = true;
            updated = Some(self.update_within(tx, key, change)?);
            Ok(())
        });
        match result {
            Ok(()) => Ok(updated),
            Err(_) if !ran => Ok(None),
            Err(err) => Err(err),
        }
    }

    fn update_within(
        &self,
        tx: &mut dyn Transaction,
        key: &Key<T>,
        change: &mut dyn FnMut(&mut Doc<T>) -> Result<(), Error>,
    ) -> Result<Doc<T>, Error> {
        let stored = tx.get(key.as_str())?.ok_or_else(|| Error::NotFound {
            key: key.as_str().to_owned(),
        })?;
        let mut doc = Self::from_stored(key, stored)?;
        let (ver, created) = (doc.envelope().ver, doc.envelope().created);
        change(&mut doc)?;
        // The version read and its creation time are what the save stands on: a change to them is not kept.
        (doc.envelope_mut().ver, doc.envelope_mut().created) = (ver, created);
        let Prepared {
            key: text,
            stored,
            version,
            envelope,
            bytes,
            lookups,
            moved,
            old_entries,
            new_entries,
            adopted,
        } = self.prepare_save(&doc, false)?;
        // Lookups and entries are written without expiry: they outlive any one document.
        let aux = self.write.with_expiry(Expiry::Keep);
        let (taken, claimed): (Vec<&String>, Vec<&String>) = if adopted {
            (lookups.iter().collect(), new_entries.iter().collect())
        } else {
            (
                moved.iter().map(|(_, new)| new).collect(),
                indexes::changed(&new_entries, &old_entries),
            )
        };
        for lookup in taken {
            self.claim_within(tx, lookup, &text, true, &aux)?;
        }
        for entry in claimed {
            self.claim_within(tx, entry, &text, false, &aux)?;
        }
        if T::REVISIONS.is_some() {
            let copy_key = revision_key::<T>(&text, version);
            let next = crate::lineage::version_digest::<T>(&bytes);
            let copy = codec::marked::<T>(&stored.bytes, &text, &next);
            match tx.get(&copy_key)? {
                None => {
                    tx.write(
                        &Write::Insert {
                            key: &copy_key,
                            value: &copy,
                        },
                        &self.write,
                    )?;
                }
                Some(existing)
                    if !codec::peek::<T>(&existing.bytes).is_some_and(|peeked| peeked.own_type) =>
                {
                    return Err(copies::foreign::<T>(copy_key, &existing.bytes));
                }
                Some(existing) if codec::records_next::<T>(&existing.bytes, &next) => {}
                // Written by a save from this version that did not commit: the version saved now is recorded
                // beside what that one wrote.
                Some(existing) if codec::same_copy::<T>(&existing.bytes, &copy) => {
                    tx.write(
                        &Write::Replace {
                            key: &copy_key,
                            value: &codec::with_next::<T>(&existing.bytes, &next),
                            cas: &existing.cas,
                        },
                        &self.write,
                    )?;
                }
                // Another version's copy: the document is as read, so no save from this version has
                // committed here; what it records is inherited.
                Some(existing) => {
                    tx.write(
                        &Write::Replace {
                            key: &copy_key,
                            value: &records::inheriting::<T>(&text, &existing.bytes, &copy),
                            cas: &existing.cas,
                        },
                        &self.write,
                    )?;
                }
            }
        }
        let cas = tx
            .write(
                &Write::Replace {
                    key: &text,
                    value: &bytes,
                    cas: &stored.cas,
                },
                &self.write,
            )?
            .expect("a replace gives a token");
        if let Some(pruned) =
            RevisionWindow::of::<T>(version).and_then(|window| window.pruned_by_next_save())
        {
            let pruned_key = revision_key::<T>(&text, pruned);
            if let Some(copy) = tx.get(&pruned_key)?
                && copies::recognise_whole::<T>(&copy.bytes, pruned, envelope.created)
            {
                tx.write(
                    &Write::Remove {
                        key: &pruned_key,
                        cas: Some(&copy.cas),
                    },
                    &self.write,
                )?;
            }
        }
        let mut leaving: Vec<&String> = moved.iter().map(|(old, _)| old).collect();
        leaving.extend(indexes::changed(&old_entries, &new_entries));
        for lookup in leaving {
            if let Some(existing) = tx.get(lookup)?
                && lookup_target::<T>(lookup, &existing.bytes).as_deref() == Some(text.as_str())
            {
                tx.write(
                    &Write::Remove {
                        key: lookup,
                        cas: Some(&existing.cas),
                    },
                    &aux,
                )?;
            }
        }
        doc.written(envelope, Stored::new(bytes, cas), lookups);
        Ok(doc)
    }

    /// Claims the lookup (`unique`) or index entry `lookup` for the document under `key`, inside the
    /// transaction, as [claims](crate::Repo#lookup-claims) take one.
    fn claim_within(
        &self,
        tx: &mut dyn Transaction,
        lookup: &str,
        key: &str,
        unique: bool,
        aux: &WriteOptions,
    ) -> Result<(), Error> {
        let document = lookup_document::<T>(lookup, key);
        let Some(existing) = tx.get(lookup)? else {
            tx.write(
                &Write::Insert {
                    key: lookup,
                    value: &document,
                },
                aux,
            )?;
            return Ok(());
        };
        let taken = || Error::AlreadyExists {
            key: lookup.to_owned(),
        };
        let target = lookup_target::<T>(lookup, &existing.bytes)
            .filter(|target| Key::<T>::parse(target).is_ok())
            .ok_or_else(taken)?;
        // Held already, written again; or named by a document that no longer holds it, taken over. An index
        // entry's key names its document: one naming another is somebody else's.
        if target != key && (!unique || holds_within::<T>(tx, &target, lookup)?) {
            return Err(taken());
        }
        tx.write(
            &Write::Replace {
                key: lookup,
                value: &document,
                cas: &existing.cas,
            },
            aux,
        )?;
        Ok(())
    }
}

/// Whether the document under `target` exists and still holds the lookup key `lookup`, read inside the
/// transaction.
fn holds_within<T: DocModel + DeserializeOwned>(
    tx: &mut dyn Transaction,
    target: &str,
    lookup: &str,
) -> Result<bool, Error> {
    let Ok(target) = Key::<T>::parse(target) else {
        return Ok(false);
    };
    let Some(stored) = tx.get(target.as_str())? else {
        return Ok(false);
    };
    // Read without the model's rules: whether a document holds a value is not theirs to say.
    let doc = Doc::read_at(target, &stored.bytes)?;
    Ok(lookup_keys(doc.body())?.iter().any(|held| held == lookup))
}
