//! Revision copies: the protocol is in the [repository's docs](crate::Repo#revision-copies).

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::records::{COPY_ATTEMPTS, inheriting, joined_record};
pub(super) use super::records::{Kept, record_next};
use crate::codec::{self, Peeked, marked, records_next, same_copy};
use crate::keyshape::{revision_key, revision_number, revision_prefix};
use crate::revision::RevisionWindow;
use crate::store::{Cas, KeyPages, Store, Stored, Write, WriteOptions};

use crate::{DocModel, Error, StoreErrorKind, Timestamp};

/// Whether `peeked` is the copy of `version` of the document created at `created`.
pub(super) fn is_copy(peeked: &Peeked, version: u64, created: Option<Timestamp>) -> bool {
    peeked.own_type && is_copy_of(peeked.ver, peeked.created, version, created)
}

/// Whether a document of the model's own type at `ver`, created at `copy_created`, is the copy of
/// `version` of the document created at `created`.
pub(super) fn is_copy_of(
    ver: u64,
    copy_created: Option<Timestamp>,
    version: u64,
    created: Option<Timestamp>,
) -> bool {
    ver == version
        && match (copy_created, created) {
            (Some(copy), Some(document)) => copy == document,
            _ => true,
        }
}

/// Whether the stored `bytes` are the copy of `version` of the document under `key` created at `created`, by
/// their envelope as [`codec::copy_header`] reads it.
fn recognise<T: DocModel>(
    bytes: &[u8],
    key: &str,
    version: u64,
    created: Option<Timestamp>,
) -> bool {
    codec::copy_header::<T>(bytes, key).is_some_and(|peeked| is_copy(&peeked, version, created))
}

/// Whether the stored `bytes` are this document's copy of `version` by their whole envelope: for a copy
/// [`recognise`] took by its beginning that then did not read, to tell a copy that is broken (an error)
/// from bytes that are not a copy after all (another envelope field further on, or not JSON).
pub(super) fn recognise_whole<T: DocModel>(
    bytes: &[u8],
    version: u64,
    created: Option<Timestamp>,
) -> bool {
    codec::peek::<T>(bytes).is_some_and(|peeked| is_copy(&peeked, version, created))
}

/// The error for a copy key that holds something that is not a copy of this model's.
pub(super) fn foreign<T: DocModel>(copy_key: String, bytes: &[u8]) -> Error {
    Error::WrongType {
        key: Some(copy_key),
        field: T::ENVELOPE.type_field_label(),
        expected: T::TYPE,
        found: codec::peek::<T>(bytes).and_then(|peeked| peeked.found_type),
    }
}

/// Step 1 of a save: puts the copy of `version` (the stored `bytes` the save read, with token `read`) in
/// place, recording `next`, the digest of the version the save writes. A `conflicted` document (one with
/// revisions in conflict) never writes over another copy of `version`; otherwise a copy of another version
/// there is written over, and what it records is inherited ([`inheriting`]).
pub(super) async fn keep<T: DocModel + Serialize + DeserializeOwned, S: Store>(
    store: &S,
    key: &str,
    version: u64,
    bytes: &[u8],
    read: &Cas,
    next: &str,
    conflicted: bool,
) -> Result<Kept, Error> {
    let copy_key = revision_key::<T>(key, version);
    let bytes = &marked::<T>(bytes, key, next)[..];
    for _ in 0..COPY_ATTEMPTS {
        match store.insert(&copy_key, bytes).await {
            Ok(cas) => return Ok(Kept::Written(cas)),
            Err(Error::AlreadyExists { .. }) => {}
            Err(err) => return Err(err),
        }
        let Some(existing) = store.get(&copy_key).await? else {
            // Removed since the insert: the next attempt inserts it.
            continue;
        };
        if !codec::peek::<T>(&existing.bytes).is_some_and(|peeked| peeked.own_type) {
            return Err(foreign::<T>(copy_key, &existing.bytes));
        }
        if same_copy::<T>(&existing.bytes, bytes) {
            return Ok(match records_next::<T>(&existing.bytes, next) {
                true => Kept::Found,
                false => Kept::Unrecorded,
            });
        }
        if conflicted {
            // Another side of a replication may have saved from `version` too: this is its copy, not an orphan.
            return Err(Error::store(
                key,
                format!(
                    "the document has revisions in conflict (written on servers that replicate), and the copy \
                     `{copy_key}` holds another side's version {version}: merge them with `Repo::resolve` \
                     before saving"
                ),
            ));
        }
        // Another copy of `version`: an orphan only if no save from `version` has committed, which the
        // current document proves by still carrying the token this save read.
        unchanged(store, key, read).await?;
        let inherited = inheriting::<T>(key, &existing.bytes, bytes);
        match store.replace(&copy_key, &inherited, &existing.cas).await {
            Ok(cas) => return Ok(Kept::Written(cas)),
            Err(Error::Conflict { .. } | Error::NotFound { .. }) => {}
            Err(err) => return Err(err),
        }
    }
    Err(Error::Conflict {
        key: key.to_owned(),
    })
}

/// A save that [`save_atomic`] committed.
pub(super) struct Committed {
    /// The document's new token.
    pub(super) cas: Cas,
    /// Whether the batch dealt with the copy leaving the window: removed it, or found none to remove.
    /// Otherwise the prune after the commit does.
    pub(super) pruned: bool,
}

/// A save from `version` as one atomic batch, on a store that makes one
/// ([`Capabilities::atomic_writes`](crate::store::Capabilities::atomic_writes)): the copy of `version`
/// inserted from the bytes the document was `read` with, the document replaced by its token with `bytes`,
/// and, with `prune`, the copy leaving the window removed by the token it is read with now (one read
/// before the batch; a copy that cannot be read is left to the prune after the commit). What committed; `None` when nothing was written because the copy's key is taken, the copy to
/// prune changed since it was read, or the store turned out not to make batches after all (a wrapper that
/// forwards [`Store::capabilities`] but not [`Store::write_atomic`]): the save step by step handles those.
/// Any other error is the save's, and nothing was written.
pub(super) async fn save_atomic<T: DocModel, S: Store>(
    store: &S,
    key: &str,
    version: u64,
    read: &Stored,
    bytes: &[u8],
    created: Option<Timestamp>,
    prune: bool,
) -> Result<Option<Committed>, Error> {
    let copy_key = revision_key::<T>(key, version);
    // The copy leaving the window, and whether this batch deals with it (removes it, or found none).
    let pruned_version =
        RevisionWindow::of::<T>(version).and_then(|window| window.pruned_by_next_save());
    let (pruned, prunes) = match pruned_version {
        Some(pruned) if prune => match self::read::<T, S>(store, key, pruned, created).await {
            Ok(copy) => (
                copy.map(|copy| (revision_key::<T>(key, pruned), copy.cas)),
                true,
            ),
            Err(_) => (None, false),
        },
        _ => (None, prune),
    };
    let copy = marked::<T>(
        &read.bytes,
        key,
        &crate::lineage::version_digest::<T>(bytes),
    );
    let mut writes = vec![
        Write::Insert {
            key: &copy_key,
            value: &copy,
        },
        Write::Replace {
            key,
            value: bytes,
            cas: &read.cas,
        },
    ];
    if let Some((pruned_key, cas)) = &pruned {
        writes.push(Write::Remove {
            key: pruned_key,
            cas: Some(cas),
        });
    }
    let pruned_key = pruned.as_ref().map(|(pruned_key, _)| pruned_key.as_str());
    match store.write_atomic(&writes, &WriteOptions::DEFAULT).await {
        Ok(tokens) => match tokens.into_iter().nth(1).flatten() {
            Some(cas) => Ok(Some(Committed {
                cas,
                pruned: prunes,
            })),
            // The batch committed, but the store did not say with which token: as good as a write whose
            // outcome is unknown.
            None => Err(Error::store_with(
                StoreErrorKind::Ambiguous,
                key,
                "the store's atomic batch returned no token for the document's replace",
            )),
        },
        Err(Error::AlreadyExists { key: taken }) if taken == copy_key => Ok(None),
        Err(Error::Store {
            kind: StoreErrorKind::Unsupported,
            ..
        }) => Ok(None),
        Err(Error::Conflict { key: changed } | Error::NotFound { key: changed })
            if Some(changed.as_str()) == pruned_key =>
        {
            Ok(None)
        }
        Err(err) => Err(err),
    }
}

/// Whether the document under `key` still carries the token `read`: [`Error::NotFound`] if it is gone,
/// [`Error::Conflict`] if it changed.
async fn unchanged<S: Store>(store: &S, key: &str, read: &Cas) -> Result<(), Error> {
    match store.get(key).await? {
        None => Err(Error::NotFound {
            key: key.to_owned(),
        }),
        Some(current) if current.cas != *read => Err(Error::Conflict {
            key: key.to_owned(),
        }),
        Some(_) => Ok(()),
    }
}

/// Puts `bytes` at `copy_key`, a version above the document's, for a merge
/// ([`Repo::resolve`](crate::Repo::resolve)) of the document under `key` read with token `read`. Another
/// copy of this model there (an orphan, what a merge that did not commit left, or another side's copy
/// replicated ahead of its document) is written over only while the document still carries `read`, which
/// proves no merge of it has committed since; what it records is inherited ([`inheriting`]).
pub(super) async fn place<T: DocModel + Serialize + DeserializeOwned, S: Store>(
    store: &S,
    key: &str,
    read: &Cas,
    copy_key: &str,
    bytes: &[u8],
) -> Result<Cas, Error> {
    for _ in 0..COPY_ATTEMPTS {
        match store.insert(copy_key, bytes).await {
            Ok(cas) => return Ok(cas),
            Err(Error::AlreadyExists { .. }) => {}
            Err(err) => return Err(err),
        }
        let Some(existing) = store.get(copy_key).await? else {
            continue;
        };
        if !codec::peek::<T>(&existing.bytes).is_some_and(|peeked| peeked.own_type) {
            return Err(foreign::<T>(copy_key.to_owned(), &existing.bytes));
        }
        if same_copy::<T>(&existing.bytes, bytes) {
            // Another merge of the same revisions placed it (or this one, tried again): it must record the
            // version this merge writes above it too, or that merge's history stops here.
            let Some(joined) = joined_record::<T>(&existing.bytes, bytes) else {
                return Ok(existing.cas);
            };
            match store.replace(copy_key, &joined, &existing.cas).await {
                Ok(cas) => return Ok(cas),
                Err(Error::Conflict { .. } | Error::NotFound { .. }) => continue,
                Err(err) => return Err(err),
            }
        }
        unchanged(store, key, read).await?;
        let inherited = inheriting::<T>(key, &existing.bytes, bytes);
        match store.replace(copy_key, &inherited, &existing.cas).await {
            Ok(cas) => return Ok(cas),
            Err(Error::Conflict { .. } | Error::NotFound { .. }) => {}
            Err(err) => return Err(err),
        }
    }
    Err(Error::Conflict {
        key: key.to_owned(),
    })
}

/// After a merge of the document under `key` committed: puts its copy `bytes` back at `copy_key`, over what
/// another merge of the same revisions wrote there before the commit (inheriting what that records). Whether
/// the copy is in place now.
pub(super) async fn put_back<T: DocModel + Serialize + DeserializeOwned, S: Store>(
    store: &S,
    key: &str,
    copy_key: &str,
    bytes: &[u8],
) -> bool {
    for _ in 0..COPY_ATTEMPTS {
        let written = match store.get(copy_key).await {
            Ok(None) => store.insert(copy_key, bytes).await.map(drop),
            Ok(Some(existing)) if same_copy::<T>(&existing.bytes, bytes) => {
                match joined_record::<T>(&existing.bytes, bytes) {
                    None => return true,
                    Some(joined) => store
                        .replace(copy_key, &joined, &existing.cas)
                        .await
                        .map(drop),
                }
            }
            Ok(Some(existing))
                if codec::peek::<T>(&existing.bytes).is_some_and(|peeked| peeked.own_type) =>
            {
                let inherited = inheriting::<T>(key, &existing.bytes, bytes);
                store
                    .replace(copy_key, &inherited, &existing.cas)
                    .await
                    .map(drop)
            }
            // Another model's document, or a store that fails: the copy is not in place.
            Ok(Some(_)) | Err(_) => return false,
        };
        match written {
            Ok(()) => return true,
            Err(Error::AlreadyExists { .. } | Error::Conflict { .. } | Error::NotFound { .. }) => {}
            Err(_) => return false,
        }
    }
    false
}

/// After a save from `version` of the document created at `created` failed with `error`: removes the copy
/// of `version` that this save wrote, or may have written, once no committed save can rely on it
/// ([`orphaned`], the document read again; at once when the save found it gone). Otherwise it stays, at a
/// version a concurrent save from `version` may have committed relying on it.
///
/// `copy` is the token the save wrote the copy with, which removes it; `None` when the write's outcome is
/// unknown. When that token has changed (a save that committed with the copy recorded itself in it since,
/// [`record_next`], or a writer left behind put it back) or was never known, the copy is removed as
/// [`Repo::sweep`](crate::Repo::sweep) removes one: read first, then the document read again, then removed by
/// the token just read, so that a save committing with it after these reads (which writes it) keeps it.
pub(super) async fn after_failed_save<T: DocModel, S: Store>(
    store: &S,
    key: &str,
    version: u64,
    created: Option<Timestamp>,
    copy: Option<&Cas>,
    error: &Error,
    now: Timestamp,
) {
    let orphan = || async {
        orphaned::<T, S>(store, key, version, created, now)
            .await
            .unwrap_or(false)
    };
    let stale = matches!(error, Error::NotFound { .. }) || orphan().await;
    if !stale {
        return;
    }
    // A failure leaves a copy no listing shows, which `Repo::sweep` removes (a later save only if its prune
    // reaches that version).
    let copy_key = revision_key::<T>(key, version);
    if let Some(token) = copy {
        match store.remove(&copy_key, Some(token)).await {
            Err(Error::Conflict { .. }) => {}
            _ => return,
        }
    }
    for _ in 0..COPY_ATTEMPTS {
        let Ok(Some(held)) = store.get(&copy_key).await else {
            return;
        };
        if !recognise::<T>(&held.bytes, key, version, created) || !orphan().await {
            return;
        }
        match store.remove(&copy_key, Some(&held.cas)).await {
            Err(Error::Conflict { .. }) => {}
            _ => return,
        }
    }
}

/// Whether no committed save can rely on the copy of `version` of the document created at `created` any
/// more, by the document under `key` read now: it is gone; it is a later document (created again since),
/// whose saves replace such a copy rather than use it; or it has moved past `version` so far that its window
/// no longer keeps it ([`kept`]: by count, or with an age at `now`). A document with revisions in conflict
/// (written on servers that replicate) keeps every copy: a losing revision's window may hold it.
async fn orphaned<T: DocModel, S: Store>(
    store: &S,
    key: &str,
    version: u64,
    created: Option<Timestamp>,
    now: Timestamp,
) -> Result<bool, Error> {
    let Some(current) = store.get(key).await? else {
        return Ok(true);
    };
    let Some(peeked) = codec::peek::<T>(&current.bytes).filter(|_| current.conflicts.is_empty())
    else {
        return Ok(false);
    };
    let earlier_document = matches!(
        (created, peeked.created),
        (Some(copy), Some(document)) if copy != document
    );
    if earlier_document {
        return Ok(true);
    }
    if version >= peeked.ver {
        return Ok(false);
    }
    Ok(match RevisionWindow::of::<T>(peeked.ver) {
        None => true,
        Some(window) => {
            let modified = codec::modified::<T>(&current.bytes);
            !kept::<T, S>(store, key, window, version, modified, peeked.created, now).await?
        }
    })
}

/// Step 3 of a save: removes the copy of `version`, now outside the window, if it is this document's.
pub(super) async fn prune<T: DocModel, S: Store>(
    store: &S,
    key: &str,
    version: u64,
    created: Option<Timestamp>,
) {
    let copy_key = revision_key::<T>(key, version);
    // The save has committed: a failure here leaves a copy below the window, never listed and removed by
    // `Repo::sweep`.
    if let Ok(Some(copy)) = store.get(&copy_key).await
        && recognise::<T>(&copy.bytes, key, version, created)
    {
        let _removed = store.remove(&copy_key, Some(&copy.cas)).await;
        crate::trace::event!(tracing::Level::DEBUG, {
            docmodel.key = %crate::trace::Private(&copy_key),
            version,
            removed = _removed.is_ok(),
        }, "revision copy pruned");
    }
}

/// What the store holds under the copy keys of the window of a document at version `current`, newest first,
/// with their versions: one batch read. Not yet recognised: the caller reads each and keeps this document's
/// copies ([`is_copy_of`]), once, rather than reading its envelope first and then the whole of it.
///
/// With an age, the copies past the count follow while each is kept ([`RevisionWindow::keeps`], its time
/// from the copy listed before it), read in batches of the count's size: one more batch read for every
/// `N` copies the age keeps. A copy missing ends the listing.
pub(super) async fn fetch<T: DocModel, S: Store>(
    store: &S,
    key: &str,
    window: RevisionWindow,
    now: Timestamp,
) -> Result<Vec<(u64, Stored)>, Error> {
    let versions: Vec<u64> = window.versions().collect();
    let mut found = stored_at::<T, S>(store, key, &versions).await?;
    let (Some(mut next), true) = (window.past_count(), window.ages()) else {
        return Ok(found);
    };
    // The copies past the count continue the count's only when its oldest is there.
    let batch = versions.len().max(1) as u64;
    while found
        .last()
        .is_some_and(|(version, _)| *version == next + 1)
    {
        let end = next.saturating_sub(batch - 1).max(1);
        let versions: Vec<u64> = (end..=next).rev().collect();
        for (version, stored) in stored_at::<T, S>(store, key, &versions).await? {
            let displaced = match found.last() {
                Some((above, copy)) if *above == version + 1 => codec::modified::<T>(&copy.bytes),
                // A gap: the listing ends above it.
                _ => return Ok(found),
            };
            if !window.keeps(version, displaced, now) {
                return Ok(found);
            }
            found.push((version, stored));
        }
        if end == 1 {
            break;
        }
        next = end - 1;
    }
    Ok(found)
}

/// When the copy of `version` stopped being current: the `_modified` of the version after it, from its copy
/// (one read) or, when that is the current version `current`, from the document's `modified`. `None` when
/// the copy after it is missing or keeps no time.
async fn displaced<T: DocModel, S: Store>(
    store: &S,
    key: &str,
    version: u64,
    current: (u64, Option<Timestamp>),
    created: Option<Timestamp>,
) -> Result<Option<Timestamp>, Error> {
    let (current, modified) = current;
    if version.checked_add(1) == Some(current) {
        return Ok(modified);
    }
    let Some(next) = version.checked_add(1) else {
        return Ok(None);
    };
    Ok(read::<T, S>(store, key, next, created)
        .await?
        .and_then(|copy| codec::modified::<T>(&copy.bytes)))
}

/// Whether the copy of `version` is kept for the document at `window`'s version, modified at `modified`
/// ([`RevisionWindow::keeps`]): no read by count, one (the copy after it) past the count with an age.
pub(super) async fn kept<T: DocModel, S: Store>(
    store: &S,
    key: &str,
    window: RevisionWindow,
    version: u64,
    modified: Option<Timestamp>,
    created: Option<Timestamp>,
    now: Timestamp,
) -> Result<bool, Error> {
    if window.contains(version) || !window.ages() || version >= window.current() {
        return Ok(window.contains(version));
    }
    let current = (window.current(), modified);
    let displaced = displaced::<T, S>(store, key, version, current, created).await?;
    Ok(window.keeps(version, displaced, now))
}

/// The oldest copy in the unbroken run of copies down from `top`, with what it holds (`None` when `top`'s is
/// not there): a galloping search over which copies are there, so a run of `k` copies costs about
/// `2 log2 k` reads, and two when the copy below `top` is gone already (a save's usual case).
async fn oldest_held<T: DocModel, S: Store>(
    store: &S,
    key: &str,
    top: u64,
    created: Option<Timestamp>,
) -> Result<Option<(u64, Stored)>, Error> {
    let held = |version| read::<T, S>(store, key, version, created);
    if top == 0 {
        return Ok(None);
    }
    let Some(copy) = held(top).await? else {
        return Ok(None);
    };
    // `there` is held; `gone` (below it) is not, once found.
    let (mut there, mut step) = ((top, copy), 1u64);
    let mut gone = loop {
        if there.0 == 1 {
            return Ok(Some(there));
        }
        let probe = there.0.saturating_sub(step).max(1);
        match held(probe).await? {
            Some(copy) => {
                there = (probe, copy);
                step = step.saturating_mul(2);
            }
            None => break probe,
        }
    };
    while there.0 - gone > 1 {
        let middle = gone + (there.0 - gone) / 2;
        match held(middle).await? {
            Some(copy) => there = (middle, copy),
            None => gone = middle,
        }
    }
    Ok(Some(there))
}

/// The oldest version whose copy a document at version `highest` keeps at `now`: `highest - N` (1 at the
/// least) by count alone, and below that, with an age, the oldest of the run of copies past the count still
/// kept ([`RevisionWindow::keeps`]). No read by count; with an age, the search [`prune_aged`] makes and one
/// read per copy past the count it judges, oldest first, until one is kept.
pub(super) async fn deepest_kept<T: DocModel, S: Store>(
    store: &S,
    key: &str,
    highest: u64,
    created: Option<Timestamp>,
    now: Timestamp,
) -> Result<u64, Error> {
    let Some(window) = RevisionWindow::of::<T>(highest) else {
        return Ok(highest.max(1));
    };
    let by_count = window.versions().last().unwrap_or(highest).max(1);
    let Some(top) = window.past_count().filter(|_| window.ages()) else {
        return Ok(by_count);
    };
    let Some((oldest, _)) = oldest_held::<T, S>(store, key, top, created).await? else {
        return Ok(by_count);
    };
    for version in oldest..=top {
        let displaced = read::<T, S>(store, key, version + 1, created)
            .await?
            .and_then(|copy| codec::modified::<T>(&copy.bytes));
        if window.keeps(version, displaced, now) {
            return Ok(version);
        }
    }
    Ok(by_count)
}

/// Step 3 of a save of a model with an age, after the document committed at version `current` (modified at
/// `modified`): removes the copies past the count whose time is over ([`RevisionWindow::keeps`]),
/// starting at the oldest held and stopping at the first one kept: every copy above that one is younger.
/// The usual cost is three reads (the copy leaving the count, the one below it, gone, and the one after it
/// for its time: two more than a prune by count) and a remove; a run of `k` copies the age kept costs a
/// search of about `2 log2 k` reads, and one read and a remove for each copy pruned. Copies kept young are
/// pruned so by a later save, once old.
///
/// Nothing, and no read, for a model that keeps copies by count alone: its save prunes the one copy
/// leaving the count ([`RevisionWindow::pruned_by_next_save`]).
pub(super) async fn prune_aged<T: DocModel, S: Store>(
    store: &S,
    key: &str,
    current: u64,
    modified: Option<Timestamp>,
    created: Option<Timestamp>,
    now: Timestamp,
) {
    let Some(window) = RevisionWindow::of::<T>(current).filter(RevisionWindow::ages) else {
        return;
    };
    // The save has committed: a failure here leaves copies past the count, pruned by the next save or by
    // `Repo::sweep`.
    let _ = prune_aged_steps::<T, S>(store, key, window, modified, created, now).await;
}

/// [`prune_aged`]'s reads and removes, stopping at the first error.
async fn prune_aged_steps<T: DocModel, S: Store>(
    store: &S,
    key: &str,
    window: RevisionWindow,
    modified: Option<Timestamp>,
    created: Option<Timestamp>,
    now: Timestamp,
) -> Result<(), Error> {
    let Some(top) = window.past_count() else {
        return Ok(());
    };
    let Some((oldest, copy)) = oldest_held::<T, S>(store, key, top, created).await? else {
        return Ok(());
    };
    let mut copy = Some(copy);
    for version in oldest..=top {
        let next = version + 1;
        let (displaced, next_copy) = if next == window.current() {
            (modified, None)
        } else {
            let next_copy = read::<T, S>(store, key, next, created).await?;
            let displaced = next_copy
                .as_ref()
                .and_then(|copy| codec::modified::<T>(&copy.bytes));
            (displaced, next_copy)
        };
        if window.keeps(version, displaced, now) {
            break;
        }
        if let Some(copy) = &copy {
            match store
                .remove(&revision_key::<T>(key, version), Some(&copy.cas))
                .await
            {
                Ok(()) | Err(Error::NotFound { .. } | Error::Conflict { .. }) => {}
                Err(err) => return Err(err),
            }
        }
        copy = next_copy;
    }
    Ok(())
}

/// What the store holds under the copy keys of `versions` of the document under `key`, with their versions:
/// one batch read.
async fn stored_at<T: DocModel, S: Store>(
    store: &S,
    key: &str,
    versions: &[u64],
) -> Result<Vec<(u64, Stored)>, Error> {
    let keys: Vec<String> = versions
        .iter()
        .map(|version| revision_key::<T>(key, *version))
        .collect();
    let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
    let found = store.get_many(&refs).await?;
    Ok(versions
        .iter()
        .zip(found)
        .filter_map(|(version, stored)| Some((*version, stored?)))
        .collect())
}

/// The copy of `version` of the document created at `created`, if it is there: one read.
pub(super) async fn read<T: DocModel, S: Store>(
    store: &S,
    key: &str,
    version: u64,
    created: Option<Timestamp>,
) -> Result<Option<Stored>, Error> {
    Ok(store
        .get(&revision_key::<T>(key, version))
        .await?
        .filter(|copy| recognise::<T>(&copy.bytes, key, version, created)))
}

/// The copies of `versions` that are this document's, with their versions.
async fn read_copies<T: DocModel, S: Store>(
    store: &S,
    key: &str,
    versions: &[u64],
    created: Option<Timestamp>,
) -> Result<Vec<(u64, Stored)>, Error> {
    let mut found = stored_at::<T, S>(store, key, versions).await?;
    found.retain(|(version, stored)| recognise::<T>(&stored.bytes, key, *version, created));
    Ok(found)
}

/// After the document (at version `current`) was removed: removes its copies in the window and the one at
/// `current` a failed save may have left, each by the token read now.
pub(super) async fn remove_all<T: DocModel, S: Store>(
    store: &S,
    key: &str,
    window: RevisionWindow,
    created: Option<Timestamp>,
) -> Result<(), Error> {
    let mut versions: Vec<u64> = std::iter::once(window.current())
        .chain(window.versions())
        .collect();
    // With an age, the run of copies past the count it kept.
    if let (true, Some(top)) = (window.ages(), window.past_count())
        && let Some((oldest, _)) = oldest_held::<T, S>(store, key, top, created).await?
    {
        versions.extend((oldest..=top).rev());
    }
    for (version, copy) in read_copies::<T, S>(store, key, &versions, created).await? {
        match store
            .remove(&revision_key::<T>(key, version), Some(&copy.cas))
            .await
        {
            // Rewritten meanwhile: by a new document under the key, whose copy it now is.
            Ok(()) | Err(Error::NotFound { .. } | Error::Conflict { .. }) => {}
            Err(err) => return Err(err),
        }
    }
    Ok(())
}

/// Removes the copies under `key`'s revision prefix that no document keeps: those of a document that is
/// gone, and those the current one does not keep at `now` ([`RevisionWindow::keeps`]). Needs a store that
/// can scan.
///
/// With `typed_only`, a value without a type field is left even for a model that accepts untyped documents
/// (an adopted document's first copy holds its untyped bytes): for a sweep nobody asked for by name.
pub(super) async fn sweep<T: DocModel, S: Store>(
    store: &S,
    key: &str,
    typed_only: bool,
    now: Timestamp,
) -> Result<usize, Error> {
    let mut removed = 0;
    let mut listing = KeyPages::prefix(store, revision_prefix::<T>(key));
    while let Some(page) = listing.next_page().await? {
        removed += sweep_page::<T, S>(store, key, typed_only, now, page).await?;
    }
    Ok(removed)
}

/// [`sweep`]'s work on one page of the copy keys listed under `key`'s revision prefix: how many it removed.
async fn sweep_page<T: DocModel, S: Store>(
    store: &S,
    key: &str,
    typed_only: bool,
    now: Timestamp,
    copy_keys: Vec<String>,
) -> Result<usize, Error> {
    let mut removed = 0;
    for copy_key in copy_keys {
        let Some(version) = revision_number::<T>(key, &copy_key) else {
            continue;
        };
        // The copy first, then the document: a save that commits with this copy after these reads has
        // written it, so the token read here no longer removes it.
        let Some(copy) = store.get(&copy_key).await? else {
            continue;
        };
        let Some(peeked) = codec::peek::<T>(&copy.bytes)
            .filter(|peeked| peeked.own_type && (peeked.typed || !typed_only))
        else {
            continue;
        };
        if peeked.ver != version {
            continue;
        }
        let orphan = orphaned::<T, S>(store, key, version, peeked.created, now).await?;
        if orphan {
            match store.remove(&copy_key, Some(&copy.cas)).await {
                Ok(()) => removed += 1,
                Err(Error::NotFound { .. } | Error::Conflict { .. }) => {}
                Err(err) => return Err(err),
            }
        }
    }
    Ok(removed)
}
