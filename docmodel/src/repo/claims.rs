//! Lookup claims: the protocol is in the [repository's docs](super#lookup-claims).

use crate::lookup::{lookup_document, lookup_keys, lookup_target};
use crate::store::{Cas, Store};
use crate::{Doc, DocModel, Error, Key, StoreErrorKind};

/// How often a claim is tried again when its lookup document changes between two operations.
const CLAIM_ATTEMPTS: usize = 3;

/// A lookup document this operation claimed, or will release: its key and the token it was written or read
/// with.
pub(super) struct Claim {
    pub(super) lookup: String,
    pub(super) cas: Cas,
    /// Whether this operation wrote it (inserted or took it over), so that a failure removes it again.
    written: bool,
    /// A lookup (one document holds its value, confirmed after the write), or an index entry (its key names
    /// the document: nobody else can hold it; confirmed only when it was there already).
    unique: bool,
}

/// Step 1 for each lookup key; on a failure, releases what it claimed and returns the error.
pub(super) async fn claim_all<'k, T, S>(
    store: &S,
    lookups: impl Iterator<Item = &'k String>,
    key: &str,
) -> Result<Vec<Claim>, Error>
where
    T: DocModel + serde::de::DeserializeOwned,
    S: Store,
{
    claim_each::<T, S>(store, lookups, key, true).await
}

/// Step 1 for each index entry of the document under `key` (see the [repository's docs](super#index-entries));
/// on a failure, releases what it claimed and returns the error.
pub(super) async fn claim_entries<'k, T, S>(
    store: &S,
    entries: impl Iterator<Item = &'k String>,
    key: &str,
) -> Result<Vec<Claim>, Error>
where
    T: DocModel + serde::de::DeserializeOwned,
    S: Store,
{
    claim_each::<T, S>(store, entries, key, false).await
}

async fn claim_each<'k, T, S>(
    store: &S,
    lookups: impl Iterator<Item = &'k String>,
    key: &str,
    unique: bool,
) -> Result<Vec<Claim>, Error>
where
    T: DocModel + serde::de::DeserializeOwned,
    S: Store,
{
    let mut claims = Vec::new();
    for lookup in lookups {
        match claim::<T, S>(store, lookup, key, unique).await {
            Ok(claim) => claims.push(claim),
            Err(err) => {
                release(store, &claims).await;
                return Err(err);
            }
        }
    }
    Ok(claims)
}

/// Step 1 for one lookup key, or (not `unique`) one index entry.
async fn claim<T, S>(store: &S, lookup: &str, key: &str, unique: bool) -> Result<Claim, Error>
where
    T: DocModel + serde::de::DeserializeOwned,
    S: Store,
{
    let document = lookup_document(key);
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
        let target = lookup_target(&existing.bytes)
            .filter(|target| Key::<T>::parse(target).is_ok())
            .ok_or_else(|| Error::AlreadyExists {
                key: lookup.to_owned(),
            })?;
        if target == key {
            // Held already (an earlier attempt, or another operation on this document). Written again, so
            // that a token another operation read before this claim no longer removes it; never released
            // by this operation, since the document may hold the value already.
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

/// Whether the document under `target` exists and still holds the lookup key `lookup`.
pub(super) async fn holds<T, S>(store: &S, target: &str, lookup: &str) -> Result<bool, Error>
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
            let doc = Doc::from_slice_at(target, &stored.bytes)?;
            Ok(lookup_keys(doc.body())?.iter().any(|held| held == lookup))
        }
    }
}

/// Why step 3 could not confirm a claim; the write must be undone.
pub(super) enum Unconfirmed {
    /// Another document took the lookup (its key) over before this write.
    Lost(String),
    /// The store failed confirming the lookup `lookup`: it may yet be taken over on what was read before
    /// this write.
    Failed { lookup: String, error: Error },
}

/// Step 3: confirms every claim for the document under `key`.
pub(super) async fn confirm_all<S: Store>(
    store: &S,
    claims: &mut [Claim],
    key: &str,
) -> Result<(), Unconfirmed> {
    let document = lookup_document(key);
    // An index entry this operation inserted needs no confirming: no other document can hold it, and an
    // operation that read it before it existed cannot remove it. One it held (found there, written again) may
    // have been read by a removal of an earlier document under the key after that, and be released by it
    // once this write lands: confirmed, it carries a token that removal no longer holds.
    for claim in claims
        .iter_mut()
        .filter(|claim| claim.unique || !claim.written)
    {
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
                    Some(current) if lookup_target(&current.bytes).as_deref() == Some(key) => {
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
pub(super) async fn release<S: Store>(store: &S, claims: &[Claim]) {
    for claim in claims.iter().filter(|claim| claim.written) {
        // A lookup left behind names a document that does not hold its value: readers skip it and the
        // next claim takes it over.
        let _ = store.remove(&claim.lookup, Some(&claim.cas)).await;
    }
}

/// Step 4's tokens: each of `lookups` that names the document under `key` now, to be released after the
/// write by that token.
pub(super) async fn owned<S: Store>(
    store: &S,
    lookups: impl Iterator<Item = &String>,
    key: &str,
) -> Result<Vec<Claim>, Error> {
    let mut owned = Vec::new();
    for lookup in lookups {
        if let Some(existing) = store.get(lookup).await?
            && lookup_target(&existing.bytes).as_deref() == Some(key)
        {
            owned.push(Claim {
                lookup: lookup.clone(),
                cas: existing.cas,
                written: true,
                unique: true,
            });
        }
    }
    Ok(owned)
}

/// Why a write is undone (for [`undo_failed`]), and the error the caller gets once it is.
pub(super) fn unconfirmed_error(unconfirmed: Unconfirmed) -> (String, Error) {
    match unconfirmed {
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

/// The error of a write that could not keep a lookup and could not be undone: the caller must know that
/// its document may stand, holding a value whose lookup names another.
pub(super) fn undo_failed(key: &str, cause: &str, undo: &str, err: &Error) -> Error {
    Error::store_with(
        StoreErrorKind::Ambiguous,
        key,
        format!(
            "the document was written, but {cause}, and {undo} failed ({err}); read the document before \
             writing it again"
        ),
    )
}
