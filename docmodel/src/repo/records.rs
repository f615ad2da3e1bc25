//! What each revision copy records of the versions saved from it ([`crate::lineage`]): the outcome of
//! keeping a copy ([`Kept`]), the record a save adds once it has committed ([`record_next`]), and what one copy
//! records that another of the same version lacks ([`joined_record`]), what a copy written over another
//! version's copy inherits from it ([`inheriting`]), and the digests a version is known by
//! ([`version_digests`]). The copies themselves are `copies.rs`'s.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::codec::{self, records_next, with_next};
use crate::keyshape::revision_key;
use crate::lineage::{WAS, digest, link, parse_link};
use crate::store::{Cas, Store};
use crate::{Doc, DocModel, Error, Key};

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

/// `ours`, a copy about to be written over `existing`, a copy under the same key that holds another version
/// (another side's, replicated ahead of its document, or what a save or merge that did not commit left),
/// with what `existing` records carried over, so that no history that stepped through it stops there: each
/// version recorded as saved from it, as saved from the version it held ([`link`], by every digest that
/// version is known by: its [`version_digests`] and the `=` ones it had before a merge renumbered it), and
/// the entries it inherited itself. `key` is the document's key.
///
/// Only the lineage is carried, not the content: a merge follows a side's history through the number, and
/// takes a version known only this way as the base only where another history holds its content.
pub(super) fn inheriting<T>(key: &str, existing: &[u8], ours: &[u8]) -> Vec<u8>
where
    T: DocModel + Serialize + DeserializeOwned,
{
    let recorded = codec::peek_copy_next::<T>(existing);
    if recorded.is_empty() {
        return ours.to_vec();
    }
    // Every digest the version it holds is known by: its own, and those it had before a merge renumbered it
    // (by which the copy below it recorded it). Where it does not read as the model, the digest of its text.
    let mut held: Vec<String> = match Doc::<T>::read_at(Key::from_checked(key.to_owned()), existing)
        .ok()
        .and_then(|doc| digests_of(&doc, Some(existing)).ok())
    {
        Some(digests) => digests.to_vec(),
        None => codec::unmarked::<T>(existing)
            .map(|version| digest(&version))
            .into_iter()
            .collect(),
    };
    held.extend(
        recorded
            .iter()
            .filter_map(|next| next.strip_prefix(WAS))
            .map(str::to_owned),
    );
    let mut entries = Vec::new();
    for next in &recorded {
        if next.starts_with(WAS) {
            // Known by the version it holds, which is not the one written over it.
            continue;
        }
        if parse_link(next).is_some() {
            entries.push(next.clone());
            continue;
        }
        for version in &held {
            let entry = link(next, version);
            if !entries.contains(&entry) {
                entries.push(entry);
            }
        }
    }
    entries
        .iter()
        .fold(ours.to_vec(), |bytes, entry| with_next::<T>(&bytes, entry))
}

/// The digests a version may have been recorded under by the save that wrote it ([`crate::lineage`]): of its
/// text as stored, without the copy's markers and `_accessed` (where the store kept the text it was given), and of the
/// version as the repository writes it again (where the store rewrote the text: a server that re-serialises
/// JSON).
pub(super) fn version_digests<T: DocModel + Serialize>(doc: &Doc<T>) -> Result<[String; 2], Error> {
    digests_of(doc, doc.stored().map(|stored| &stored.bytes[..]))
}

/// [`version_digests`] of `doc`, read from the stored `bytes`.
fn digests_of<T: DocModel + Serialize>(
    doc: &Doc<T>,
    bytes: Option<&[u8]>,
) -> Result<[String; 2], Error> {
    let mut envelope = doc.envelope().clone();
    // A copy carries its marker (and its record, which no envelope holds); `_accessed` is left out.
    let marked = envelope.copy_of.is_some() || T::ENVELOPE.keeps(crate::EnvelopeField::Accessed);
    envelope.copy_of = None;
    // Not of the version: a touch writes it in place ([`crate::lineage::version_digest`]).
    envelope.accessed = None;
    let written = digest(&doc.to_vec_as_read(&envelope)?);
    let stored = match bytes {
        Some(bytes) if marked => {
            codec::unmarked::<T>(bytes).map_or_else(|| written.clone(), |bytes| digest(&bytes))
        }
        Some(bytes) => digest(bytes),
        None => written.clone(),
    };
    Ok([stored, written])
}

#[cfg(test)]
mod tests {
    use super::inheriting;
    use crate::codec::{peek_copy_next, unmarked};
    use crate::lineage::digest;

    #[derive(serde::Serialize, serde::Deserialize, crate::DocModel)]
    #[docmodel(crate = crate, type = "user", schema = "1.0", key = "user::{id}", revisions = 5)]
    struct User {
        id: u64,
        name: String,
    }

    /// A copy written over passes on each version saved from the one it held, as saved from every digest that
    /// one is known by (its own, and the one it had before a merge renumbered it), and what it inherited;
    /// not the digests it was known by itself.
    #[test]
    fn a_copy_written_over_passes_on_what_it_recorded() {
        let existing = br#"{"_copyOf":"user::1","_type":"user","_schema":"1.0","_ver":4,"id":1,"name":"Joe","_copyNext":["=was","next","a<b"]}"#;
        let ours = br#"{"_copyOf":"user::1","_type":"user","_schema":"1.0","_ver":4,"id":1,"name":"Jo","_copyNext":["mine"]}"#;
        let own = digest(&unmarked::<User>(existing).unwrap());
        assert_eq!(
            peek_copy_next::<User>(&inheriting::<User>("user::1", existing, ours)),
            ["mine", &format!("next<{own}"), "next<was", "a<b"]
        );
        // Nothing recorded: nothing to pass on.
        let bare =
            br#"{"_copyOf":"user::1","_type":"user","_schema":"1.0","_ver":4,"id":1,"name":"Joe"}"#;
        assert_eq!(inheriting::<User>("user::1", bare, ours), ours);
        // Not a copy the model reads: the digest of its text stands for it.
        let unread = br#"{"_copyOf":"user::1","_type":"user","_schema":"1.0","_ver":4,"id":"one","_copyNext":["next"]}"#;
        let text = digest(&unmarked::<User>(unread).unwrap());
        assert_eq!(
            peek_copy_next::<User>(&inheriting::<User>("user::1", unread, ours)),
            ["mine", &format!("next<{text}")]
        );
    }
}
