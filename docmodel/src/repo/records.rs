//! What each revision copy records of the versions saved from it ([`crate::lineage`]): the outcome of
//! keeping a copy ([`Kept`]), the record a save adds once it has committed ([`record_next`]), and what one copy
//! records that another of the same version lacks ([`joined_record`]). The copies themselves are
//! `copies.rs`'s.

use crate::codec::{self, records_next, with_next};
use crate::keyshape::revision_key;
use crate::store::{Cas, Store};
use crate::{DocModel, Error};

/// How often a copy's key is tried again when it changes under a write of it (removed or rewritten between
/// two operations): then the save is a [`Error::Conflict`].
pub(super) const COPY_ATTEMPTS: usize = 3;

/// What [`keep`](super::copies::keep) found or did at the copy's key.
pub(super) enum Kept {
    /// This call wrote the copy, with this token.
    Written(Cas),
    /// The same copy was there, recording the version this save writes as saved from it.
    Found,
    /// The same copy was there, written by another save from the version (one that lost its race, or the
    /// other side of a replication), without the version this save writes: once the save has committed,
    /// [`record_next`] adds it.
    Unrecorded,
}

impl Kept {
    /// The token of the copy this call wrote.
    pub(super) fn written(&self) -> Option<&Cas> {
        match self {
            Kept::Written(cas) => Some(cas),
            Kept::Found | Kept::Unrecorded => None,
        }
    }
}

/// After a save from `version` committed: adds `next`, the digest of the version it wrote, to the versions
/// the copy of `version` records as saved from it, where [`keep`](super::copies::keep) found it without ([`Kept::Unrecorded`]).
/// Best effort: a copy that changes under it each time it is tried keeps what it records, and a merge that
/// needs the record then fails with [`Error::MergeHistoryMissing`], never with a wrong base.
pub(super) async fn record_next<T: DocModel, S: Store>(
    store: &S,
    key: &str,
    version: u64,
    next: &str,
) {
    let copy_key = revision_key::<T>(key, version);
    for _ in 0..COPY_ATTEMPTS {
        let Ok(Some(copy)) = store.get(&copy_key).await else {
            return;
        };
        if records_next::<T>(&copy.bytes, next) {
            return;
        }
        let joined = with_next::<T>(&copy.bytes, next);
        if !records_next::<T>(&joined, next) {
            return;
        }
        match store.replace(&copy_key, &joined, &copy.cas).await {
            Err(Error::Conflict { .. }) => {}
            _ => return,
        }
    }
}

/// `existing`, the same copy as `ours`, with what `ours` records as saved from it added ([`with_next`]);
/// `None` when it records all of it already.
pub(super) fn joined_record<T: DocModel>(existing: &[u8], ours: &[u8]) -> Option<Vec<u8>> {
    let recorded = codec::peek_copy_next::<T>(ours);
    let missing: Vec<&String> = recorded
        .iter()
        .filter(|next| !records_next::<T>(existing, next))
        .collect();
    if missing.is_empty() {
        return None;
    }
    Some(missing.into_iter().fold(existing.to_vec(), |bytes, next| {
        with_next::<T>(&bytes, next)
    }))
}
