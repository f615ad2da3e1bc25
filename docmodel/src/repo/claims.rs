//! Lookup claims: the protocol is in the [repository's docs](crate::Repo#lookup-claims).
//!
//! [`Claims`] is the one place its steps are taken, in order, for every write that gives a document values
//! another may hold (insert, save, merge), or leaves them (save, merge, remove): an operation names its
//! values, writes its document between the steps, and says how to undo that write.

use std::marker::PhantomData;

use crate::keyshape::lookup_keys;
use crate::lookup::{lookup_document, lookup_target};
use crate::store::{Cas, Store};
use crate::{Doc, DocModel, Error, ErrorClass, Key, StoreErrorKind};

/// How often a claim is tried again when its lookup document changes between two operations.
const CLAIM_ATTEMPTS: usize = 3;

/// The claims of one write to the document under `key`, with the steps of the [protocol](crate::Repo#lookup-claims)
/// as methods, in the order an operation takes them:
///
/// 0. [`Claims::leaving`]: the tokens of the lookups and index entries the document leaves, read before the
///    write, so that step 4 releases exactly these;
/// 1. [`Claims::claim`]: each new lookup, then each new index entry (on a failure, what was claimed is
///    released and nothing is left);
/// 2. the operation's own write; if it fails, [`Claims::abandon`] (nothing of it landed) or
///    [`Claims::write_failed`] (it may have landed) releases step 1's claims;
/// 3. [`Claims::confirm`]: each claim confirmed, or the write undone as the operation says ([`Undo`]);
/// 4. [`Claims::release_left`]: step 0's lookups and entries released by the tokens read then.
pub(super) struct Claims<'a, T, S> {
    /// The store, writing as lookups and entries are written: without expiry.
    store: &'a S,
    /// The model whose lookups these are: it says how each names its document.
    model: PhantomData<fn() -> T>,
    key: &'a str,
    /// Step 1's claims: released when the write fails, confirmed after it lands.
    claimed: Vec<Claim>,
    /// Step 0's: released after the write.
    leaving: Vec<Claim>,
}

/// What the write a claim serves stands on: a lookup this document holds already is written again only while
/// that holds (see [`Claims::claim`]).
#[derive(Clone, Copy)]
pub(super) enum Expect<'e> {
    /// A save or a merge: a compare-and-swap replace of the document as read, with this token. Once the
    /// document carries another token, and the one read is not among its conflicting revisions, the replace
    /// is bound to fail.
    At(&'e Cas),
    /// An insert, or a rebuild of index entries: nothing read. (An insert's key taken now may be free by the
    /// time it writes: a removal may be under way.)
    Any,
}

/// How [`Claims::confirm`] undoes a write whose claim was lost.
pub(super) enum Undo<'u> {
    /// An insert: the document is removed again, by the token it was written with.
    Remove { written: &'u Cas },
    /// A save or a merge: the previous version is put back over the one written.
    PutBack {
        previous: &'u [u8],
        written: &'u Cas,
    },
}

impl<'a, T, S> Claims<'a, T, S>
where
    T: DocModel + serde::de::DeserializeOwned,
    S: Store,
{
    /// No claims yet, for a write to the document under `key` through `store` (the repository's store
    /// writing without expiry: lookups and entries outlive any one document).
    pub(super) fn new(store: &'a S, key: &'a str) -> Self {
        Claims {
            store,
            model: PhantomData,
            key,
            claimed: Vec::new(),
            leaving: Vec::new(),
        }
    }

    /// Step 0: reads the token of each of `values` (lookups and index entries) that names the document now, to
    /// be released by that token after the write ([`Claims::release_left`]).
    pub(super) async fn leaving<'v>(
        &mut self,
        values: impl IntoIterator<Item = &'v String>,
    ) -> Result<(), Error> {
        for lookup in values {
            if let Some(existing) = self.store.get(lookup).await?
                && lookup_target::<T>(lookup, &existing.bytes).as_deref() == Some(self.key)
            {
                self.leaving.push(Claim {
                    lookup: lookup.clone(),
                    cas: existing.cas,
                    written: true,
                    unique: true,
                });
            }
        }
        Ok(())
    }

    /// Step 1: claims each of `lookups`, then each of `entries`. Lookups come first: a value another
    /// document holds stops the write before it writes anything. On a failure, every claim this call made
    /// is released and the error returned.
    ///
    /// A lookup or entry that names this document already is held: written again by its token, so that a
    /// token another operation read before no longer removes it. It is written again only while the
    /// document is as `expect` says: a write bound to fail (a save of a version another writer has
    /// replaced since) fails here, with the error its write would have, having changed nothing (unless that
    /// writer commits between this check and the claim: there is no transaction to close the gap).
    pub(super) async fn claim<'v>(
        &mut self,
        lookups: impl IntoIterator<Item = &'v String>,
        entries: impl IntoIterator<Item = &'v String>,
        expect: Expect<'_>,
    ) -> Result<(), Error> {
        self.claim_each(lookups, true, expect).await?;
        self.claim_each(entries, false, expect).await
    }

    /// [`Claims::claim`] of lookups (`unique`) or of index entries.
    async fn claim_each<'v>(
        &mut self,
        values: impl IntoIterator<Item = &'v String>,
        unique: bool,
        expect: Expect<'_>,
    ) -> Result<(), Error> {
        for value in values {
            match claim::<T, S>(self.store, value, self.key, unique, expect).await {
                Ok(claim) => self.claimed.push(claim),
                Err(err) => return Err(self.abandon(err).await),
            }
        }
        Ok(())
    }

    /// Whether step 1 claimed nothing.
    pub(super) fn is_empty(&self) -> bool {
        self.claimed.is_empty()
    }

    /// Step 2 failed before any of the write landed: releases every claim step 1 wrote, and returns `err`.
    pub(super) async fn abandon(&mut self, err: Error) -> Error {
        release(self.store, &self.claimed).await;
        self.claimed.clear();
        err
    }

    /// Step 2's write failed with `err`: releases step 1's claims unless the write may have landed
    /// (an ambiguous failure, whose document would hold these values), and returns `err`.
    pub(super) async fn write_failed(&mut self, err: Error) -> Error {
        if err.class() == ErrorClass::Ambiguous {
            crate::trace::event!(tracing::Level::WARN, {
                docmodel.key = %crate::trace::Private(self.key),
                reason = %crate::trace::ErrorText::of(&err),
            }, "the write may have landed: its lookups are kept, so that the document holding them keeps them");
            return err;
        }
        self.abandon(err).await
    }

    /// Step 3: confirms every claim. A claim lost to another writer, or that the store failed to confirm,
    /// undoes the write through `docs` (the store the document is written through) as `undo` says, releases
    /// the claims and fails with [`Error::AlreadyExists`] naming the lookup (or the store's error). If the
    /// undo fails too, the error is an [`Ambiguous`](StoreErrorKind::Ambiguous) one saying so: the document
    /// may stand, holding a value whose lookup names another.
    pub(super) async fn confirm<W: Store>(
        &mut self,
        docs: &W,
        undo: Undo<'_>,
    ) -> Result<(), Error> {
        let Err(unconfirmed) = confirm_all::<T, S>(self.store, &mut self.claimed, self.key).await
        else {
            return Ok(());
        };
        let (cause, error) = unconfirmed.into_cause_and_error();
        crate::trace::event!(tracing::Level::WARN, {
            docmodel.key = %crate::trace::Private(self.key),
            reason = %crate::trace::Private(&cause),
        }, "undoing a write whose lookup could not be kept");
        let (undone, how) = match undo {
            Undo::Remove { written } => (
                docs.remove(self.key, Some(written)).await,
                "removing it again",
            ),
            Undo::PutBack { previous, written } => (
                docs.replace(self.key, previous, written).await.map(drop),
                "putting the previous version back",
            ),
        };
        match undone {
            Ok(()) => Err(self.abandon(error).await),
            Err(err) => Err(undo_failed(self.key, &cause, how, &err)),
        }
    }

    /// Step 4: releases the lookups and entries of step 0, each by the token read then, so that one claimed
    /// again meanwhile (the value moved back) stays. Failures are left as stale lookups, which readers skip
    /// and the next claim takes over.
    pub(super) async fn release_left(&self) {
        release(self.store, &self.leaving).await;
    }

    /// Step 1 without a write to follow: the claims are kept as they are, unconfirmed (an index rebuilt for
    /// documents that hold its values already).
    pub(super) fn keep(self) {}
}

/// A lookup document this operation claimed, or will release: its key and the token it was written or read
/// with.
struct Claim {
    lookup: String,
    cas: Cas,
    /// Whether this operation wrote it (inserted or took it over), so that a failure removes it again.
    written: bool,
    /// A lookup (one document holds its value, confirmed after the write), or an index entry (its key names
    /// the document: nobody else can hold it; confirmed only when it was there already).
    unique: bool,
}

/// Step 1 for one lookup key, or (not `unique`) one index entry.
async fn claim<T, S>(
    store: &S,
    lookup: &str,
    key: &str,
    unique: bool,
    expect: Expect<'_>,
) -> Result<Claim, Error>
where
    T: DocModel + serde::de::DeserializeOwned,
    S: Store,
{
    let document = lookup_document::<T>(lookup, key);
    for _ in 0..CLAIM_ATTEMPTS {
        match store.insert(lookup, &document).await {
            Ok(cas) => {
                return Ok(Claim {
                    lookup: lookup.to_owned(),
                    cas,
                    written: true,
                    unique,
                });
            }
            Err(Error::AlreadyExists { .. }) => {}
            Err(err) => return Err(err),
        }
        let Some(existing) = store.get(lookup).await? else {
            // Released between the two calls: the next attempt inserts it.
            continue;
        };
        let target = lookup_target::<T>(lookup, &existing.bytes)
            .filter(|target| Key::<T>::parse(target).is_ok())
            .ok_or_else(|| Error::AlreadyExists {
                key: lookup.to_owned(),
            })?;
        if target == key {
            // Held already (an earlier attempt, or another operation on this document). Written again, so
            // that a token another operation read before this claim no longer removes it; never released
            // by this operation, since the document may hold the value already. Not by a write that is
            // bound to fail: it would change the token of a lookup it has no part in.
            if let Some(refused) = refused_write(store, key, expect).await? {
                return Err(refused);
            }
            match store.replace(lookup, &document, &existing.cas).await {
                Ok(cas) => {
                    return Ok(Claim {
                        lookup: lookup.to_owned(),
                        cas,
                        written: false,
                        unique,
                    });
                }
                Err(Error::Conflict { .. } | Error::NotFound { .. }) => continue,
                Err(err) => return Err(err),
            }
        }
        // An index entry's key names its document: one naming another is somebody else's document.
        if !unique || holds::<T, S>(store, &target, lookup).await? {
            return Err(Error::AlreadyExists {
                key: lookup.to_owned(),
            });
        }
        match store.replace(lookup, &document, &existing.cas).await {
            Ok(cas) => {
                crate::trace::event!(tracing::Level::INFO, {
                    docmodel.key = %crate::trace::Private(lookup),
                }, "lookup taken over: the document it named no longer holds its value");
                return Ok(Claim {
                    lookup: lookup.to_owned(),
                    cas,
                    written: true,
                    unique,
                });
            }
            Err(Error::Conflict { .. } | Error::NotFound { .. }) => {}
            Err(err) => return Err(err),
        }
    }
    Err(Error::Conflict {
        key: lookup.to_owned(),
    })
}

/// The error the write of the document under `key` is bound to fail with, found before a held claim is
/// written again: [`Error::Conflict`] for a save of a version replaced since it was read, [`Error::NotFound`]
/// if the document is gone.
async fn refused_write<S: Store>(
    store: &S,
    key: &str,
    expect: Expect<'_>,
) -> Result<Option<Error>, Error> {
    let key_owned = || key.to_owned();
    Ok(match expect {
        Expect::Any => None,
        Expect::At(read) => match store.get(key).await? {
            None => Some(Error::NotFound { key: key_owned() }),
            // The revision read is still there as one in conflict with the winner (CouchDB after a
            // replication): a replace of it succeeds, so the claim goes on.
            Some(current) if current.cas != *read && !current.conflicts.contains(read) => {
                Some(Error::Conflict { key: key_owned() })
            }
            Some(_) => None,
        },
    })
}

/// Whether the document under `target` exists and still holds the lookup key `lookup`.
async fn holds<T, S>(store: &S, target: &str, lookup: &str) -> Result<bool, Error>
where
    T: DocModel + serde::de::DeserializeOwned,
    S: Store,
{
    let Ok(target) = Key::<T>::parse(target) else {
        return Ok(false);
    };
    match store.get(target.as_str()).await? {
        None => Ok(false),
        Some(stored) => {
            // Read without the model's rules: whether a document holds a value is not theirs to say (a holder
            // that breaks them still holds it).
            let doc = Doc::read_at(target, &stored.bytes)?;
            Ok(lookup_keys(doc.body())?.iter().any(|held| held == lookup))
        }
    }
}

/// Why step 3 could not confirm a claim; the write must be undone.
enum Unconfirmed {
    /// Another document took the lookup (its key) over before this write.
    Lost(String),
    /// The store failed confirming the lookup `lookup`: it may yet be taken over on what was read before
    /// this write.
    Failed { lookup: String, error: Error },
}

/// Step 3: confirms every claim for the document under `key`.
async fn confirm_all<T: DocModel, S: Store>(
    store: &S,
    claims: &mut [Claim],
    key: &str,
) -> Result<(), Unconfirmed> {
    // An index entry this operation inserted needs no confirming: no other document can hold it, and an
    // operation that read it before it existed cannot remove it. One it held (found there, written again) may
    // have been read by a removal of an earlier document under the key after that, and be released by it
    // once this write lands: confirmed, it carries a token that removal no longer holds.
    for claim in claims
        .iter_mut()
        .filter(|claim| claim.unique || !claim.written)
    {
        let document = lookup_document::<T>(&claim.lookup, key);
        match store.replace(&claim.lookup, &document, &claim.cas).await {
            Ok(cas) => claim.cas = cas,
            Err(Error::Conflict { .. }) => {
                // Rewritten since step 1: kept if it still names this document (another operation on it
                // confirmed it too), lost if another document took it over.
                let current =
                    store
                        .get(&claim.lookup)
                        .await
                        .map_err(|error| Unconfirmed::Failed {
                            lookup: claim.lookup.clone(),
                            error,
                        })?;
                match current {
                    Some(current)
                        if lookup_target::<T>(&claim.lookup, &current.bytes).as_deref()
                            == Some(key) =>
                    {
                        claim.cas = current.cas;
                        claim.written = false;
                    }
                    _ => return Err(Unconfirmed::Lost(claim.lookup.clone())),
                }
            }
            Err(Error::NotFound { .. }) => {
                // Released by an operation on this document that failed after this one held it: claim it
                // again.
                match store.insert(&claim.lookup, &document).await {
                    Ok(cas) => {
                        claim.cas = cas;
                        claim.written = true;
                    }
                    Err(Error::AlreadyExists { .. }) => {
                        return Err(Unconfirmed::Lost(claim.lookup.clone()));
                    }
                    Err(error) => {
                        return Err(Unconfirmed::Failed {
                            lookup: claim.lookup.clone(),
                            error,
                        });
                    }
                }
            }
            Err(error) => {
                return Err(Unconfirmed::Failed {
                    lookup: claim.lookup.clone(),
                    error,
                });
            }
        }
    }
    Ok(())
}

/// Removes exactly the lookup documents this operation wrote, by their tokens; one rewritten since is
/// someone else's and stays. Failures are left for [`claim`] and [`Repo::get_by_lookup`] to recognise as
/// stale.
///
/// [`Repo::get_by_lookup`]: crate::Repo::get_by_lookup
async fn release<S: Store>(store: &S, claims: &[Claim]) {
    for claim in claims.iter().filter(|claim| claim.written) {
        // A lookup left behind names a document that does not hold its value: readers skip it and the
        // next claim takes it over.
        let _released = store.remove(&claim.lookup, Some(&claim.cas)).await;
        crate::trace::event!(tracing::Level::DEBUG, {
            docmodel.key = %crate::trace::Private(&claim.lookup),
            released = _released.is_ok(),
        }, "lookup released");
    }
}

impl Unconfirmed {
    /// Why a write is undone (for [`undo_failed`]), and the error the caller gets once it is.
    fn into_cause_and_error(self) -> (String, Error) {
        match self {
            Unconfirmed::Lost(lookup) => (
                format!("another document took the lookup `{lookup}` meanwhile"),
                Error::AlreadyExists { key: lookup },
            ),
            Unconfirmed::Failed { lookup, error } => (
                format!("the lookup `{lookup}` could not be confirmed ({error})"),
                error,
            ),
        }
    }
}

/// The error of a write that could not keep a lookup and could not be undone: the caller must know that
/// its document may stand, holding a value whose lookup names another.
fn undo_failed(key: &str, cause: &str, undo: &str, err: &Error) -> Error {
    Error::store_with(
        StoreErrorKind::Ambiguous,
        key,
        format!(
            "the document was written, but {cause}, and {undo} failed ({err}); read the document before \
             writing it again"
        ),
    )
}
