//! Conflicts between replicated revisions, and [`Repo::resolve`], which merges them. The protocol is in the
//! [repository's docs](crate::Repo#conflicting-revisions).

use crate::trace::operation;
use std::cmp::Ordering;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::claims::{Claims, Expect, Undo};
use super::merge::{Merger, TypedMerge, merged_content};
use super::{Repo, RetryPolicy, copies};
use crate::codec;
use crate::keyshape::{lookup_keys, revision_key};
use crate::revision::RevisionWindow;
use crate::store::{Cas, Store, Stored};
use crate::{Doc, DocModel, Error, Key, StoreErrorKind};

/// How [`Repo::resolve`] settles a conflicted document: by picking the version it keeps among the
/// candidates (the revision the store ranks first, the one [`Repo::get`] returns, then each conflicting
/// revision in the store's order), every other one kept as a revision copy; or by merging them three ways
/// ([`Resolve::merge`]), every candidate kept as a copy.
///
/// ```
/// use docmodel::{Doc, DocModel, Resolve};
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Serialize, Deserialize, DocModel)]
/// # #[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
/// # struct User { id: u64, #[docmodel(get)] name: String }
///
/// // The default: the highest `_ver`, then the latest `_modified`.
/// let policy = Resolve::<User>::highest_version();
/// // Or the model's own rule: here, the longest name.
/// let policy = Resolve::<User>::with(|candidates: &[Doc<User>]| {
///     candidates.iter().max_by_key(|doc| doc.name().len()).unwrap_or(&candidates[0])
/// });
/// ```
pub struct Resolve<T>(Policy<T>);

/// A user's choice among the candidates.
type Pick<T> = Box<dyn for<'a> Fn(&'a [Doc<T>]) -> &'a Doc<T> + Send + Sync>;

enum Policy<T> {
    HighestVersion,
    LatestModified,
    Custom(Pick<T>),
    Merge(Option<Box<TypedMerge<'static, T>>>),
}

impl<T: DocModel> Resolve<T> {
    /// The candidate with the highest `_ver` (the one saved most often), and among those the one modified
    /// last, and among those the first.
    pub fn highest_version() -> Self {
        Resolve(Policy::HighestVersion)
    }

    /// The candidate modified last (`_modified`: the clocks of the servers' writers decide), and among those
    /// the one with the highest `_ver`, and among those the first. A candidate without `_modified` comes
    /// before any with one.
    pub fn latest_modified() -> Self {
        Resolve(Policy::LatestModified)
    }

    /// The candidate `pick` returns, from the candidates it is given (two or more, typed and migrated to
    /// the current schema, each with its envelope). Returning a document that is not one of them picks the
    /// first.
    pub fn with(pick: impl for<'a> Fn(&'a [Doc<T>]) -> &'a Doc<T> + Send + Sync + 'static) -> Self {
        Resolve(Policy::Custom(Box::new(pick)))
    }

    /// A three-way merge of the candidates: each side's changes since the newest version they all descend
    /// from (the base, found among the model's revision copies) applied, and what they changed differently
    /// decided by the model's merge rules ([`crate::merge`], `#[docmodel(merge = ...)]`). This is what the
    /// CouchDB guide asks of an application that replicates: "links which were changed, added or deleted on
    /// one side are also changed, added or deleted on the other side".
    ///
    /// The merged document is read as the model and validated as every write is, and saved above every
    /// candidate, each kept as a revision copy. [`Repo::resolve`] fails with nothing written with
    /// [`Error::MergeConflict`](crate::Error::MergeConflict) when a place is left undecided (every such
    /// place listed with its three values), and with [`Error::NoMergeBase`](crate::Error::NoMergeBase)
    /// when no version the candidates share is kept (a model without `revisions`, or copies pruned past
    /// where the sides went apart): a pick such as [`Resolve::highest_version`] still resolves it then.
    ///
    /// The revision the store ranks first is ours ([`MergeRule::Ours`](crate::merge::MergeRule::Ours)),
    /// the other theirs; with more than two, each further one is merged into the result in turn.
    pub fn merge() -> Self {
        Resolve(Policy::Merge(None))
    }

    /// A three-way merge by the model's own function: `merge` is given the base, ours and theirs as bodies
    /// (found as for [`Resolve::merge`]) and returns the body kept. Its key fields must give the document's
    /// key.
    ///
    /// ```
    /// use docmodel::{DocModel, Resolve};
    /// # use serde::{Deserialize, Serialize};
    /// #[derive(Clone, Serialize, Deserialize, DocModel)]
    /// #[docmodel(type = "counter", schema = "1.0", key = "counter::{id}", revisions = 5)]
    /// struct Counter { id: u64, hits: u64 }
    ///
    /// // Both sides' increments count.
    /// let policy = Resolve::<Counter>::merge_with(|base, ours, theirs| Counter {
    ///     hits: ours.hits + theirs.hits - base.hits,
    ///     ..ours.clone()
    /// });
    /// ```
    pub fn merge_with(merge: impl Fn(&T, &T, &T) -> T + Send + Sync + 'static) -> Self {
        Resolve(Policy::Merge(Some(Box::new(merge))))
    }

    /// How the candidates are merged, for a policy that merges them.
    pub(super) fn merger(&self) -> Option<Merger<'_, T>> {
        match &self.0 {
            Policy::Merge(None) => Some(Merger::Rules),
            Policy::Merge(Some(merge)) => Some(Merger::Typed(&**merge)),
            _ => None,
        }
    }

    /// The index of the candidate kept.
    pub(super) fn pick(&self, candidates: &[Doc<T>]) -> usize {
        let by = |order: fn(&Doc<T>, &Doc<T>) -> Ordering| {
            // The first of the greatest: `max_by` would give the last.
            (1..candidates.len()).fold(0, |best, at| {
                if order(&candidates[at], &candidates[best]) == Ordering::Greater {
                    at
                } else {
                    best
                }
            })
        };
        match &self.0 {
            Policy::HighestVersion => by(|a, b| by_version(a).cmp(&by_version(b))),
            Policy::LatestModified => by(|a, b| by_modified(a).cmp(&by_modified(b))),
            Policy::Custom(pick) => {
                let chosen = pick(candidates);
                candidates
                    .iter()
                    .position(|candidate| std::ptr::eq(candidate, chosen))
                    .unwrap_or(0)
            }
            // A merge keeps none of them as it is.
            Policy::Merge(_) => usize::MAX,
        }
    }
}

impl<T: DocModel> Default for Resolve<T> {
    /// [`Resolve::highest_version`].
    fn default() -> Self {
        Resolve::highest_version()
    }
}

impl<T> std::fmt::Debug for Resolve<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.0 {
            Policy::HighestVersion => "Resolve::highest_version",
            Policy::LatestModified => "Resolve::latest_modified",
            Policy::Custom(_) => "Resolve::with(..)",
            Policy::Merge(None) => "Resolve::merge",
            Policy::Merge(Some(_)) => "Resolve::merge_with(..)",
        })
    }
}

fn by_version<T: DocModel>(doc: &Doc<T>) -> (u64, Option<crate::Timestamp>) {
    (doc.envelope().ver, doc.envelope().modified)
}

/// A version's JSON without its `_ver`, copy marker and record of what was saved from it: what a copy a merge
/// renumbered shares with the revision it keeps.
fn fingerprint<T: DocModel + Serialize>(doc: &Doc<T>) -> Result<Vec<u8>, Error> {
    let mut envelope = doc.envelope().clone();
    envelope.ver = 0;
    envelope.copy_of = None;
    doc.to_vec_as_read(&envelope)
}

fn by_modified<T: DocModel>(doc: &Doc<T>) -> (Option<crate::Timestamp>, u64) {
    (doc.envelope().modified, doc.envelope().ver)
}

/// A revision of a copy holding the same version as the revision kept at its key: removed, once the kept one
/// records `next`, the versions saved from it on its side that the kept one does not.
struct Duplicate {
    copy_key: String,
    cas: Cas,
    next: Vec<String>,
}

/// A version that loses the merge, to be kept as a revision copy, and the revision it is read from, removed
/// once the copy is in place.
struct Displaced<T> {
    doc: Doc<T>,
    /// The store key and token of the losing revision holding it; `None` for the revision the merge is
    /// written over, which stays in the store's history.
    source: Option<(String, Cas)>,
    /// Whether it is one of the revisions the merge is of (the merge is saved from it), rather than a copy
    /// revision displaced from its key.
    candidate: bool,
}

impl<T, S> Repo<T, S>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    /// Merges the conflicting revisions of the document under `key` (see [`Doc::conflicts`]) into one new
    /// version, losing none: `policy` picks the candidate kept, and every other one is kept as a revision copy.
    ///
    /// The merge is a save from the revision read (the one [`Repo::get`] returns): the document keeps its
    /// `_created`, and when that revision is at the highest version `m` of the candidates, it is kept as the
    /// copy of `m`, byte for byte, as any save from it would keep it. The other versions displaced (the
    /// candidates not picked, and the conflicting revisions of the window's copies that differ from the copy
    /// kept at their key) become the copies of the versions after it, in order of `_ver` then `_modified`
    /// (each with its new `_ver` and the document's `_created`, the rest as stored), and the document is saved
    /// above them with the picked content, modified now by the actor. Lookups move as on a save: every value
    /// of the picked candidate is claimed, and the values only the others held are released. Only then is each
    /// losing revision removed, by its token, once its copy is verified in place.
    ///
    /// Returns the document as saved, or as read when neither it nor its copies in the window have conflicting
    /// revisions (then nothing is written but the removal of copy revisions identical to the one kept). Tried
    /// again under the [`RetryPolicy`] when another writer changed the document meanwhile. Fails, with nothing
    /// written, with [`Error::NotFound`] if there is no document under `key`, and the error of any candidate
    /// that cannot be read as the model. A failure after the merge is written that leaves one of its copies
    /// out of place is an [`Ambiguous`](crate::StoreErrorKind::Ambiguous) [`Error::Store`] naming the copy.
    ///
    /// The merged document keeps the copies of its window, as after any save: with `revisions = N`, a
    /// displaced version that falls below the last `N` is dropped as a save's prune drops one (all of them, for
    /// a model without revisions, which keeps the picked version only).
    ///
    /// On a store that replicates, a copy that replication brought ahead of its document (the other side
    /// saved past the candidates, and its document revision has not arrived yet) may sit where the merge
    /// keeps a displaced version: the merge writes over it, and the copy it writes carries on what that one
    /// recorded, so the other side's history still goes through that number.
    ///
    /// ```
    /// # use docmodel::{DocModel, Repo, Resolve, store::MemoryStore};
    /// # #[derive(Debug, serde::Serialize, serde::Deserialize, DocModel)]
    /// # #[docmodel(type = "user", schema = "1.0", key = "user::{id}", revisions = 5)]
    /// # struct User { id: u64 }
    /// # pollster::block_on(async {
    /// let store = MemoryStore::new();
    /// let users = Repo::<User>::new(&store);
    /// users.insert(User { id: 1 }).await?;
    /// // A store that keeps one value per key has no conflicts: nothing to merge, nothing written.
    /// let doc = users.resolve(&User::key(1), &Resolve::highest_version()).await?;
    /// assert_eq!((doc.envelope().ver, doc.has_conflicts()), (1, false));
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn resolve(&self, key: &Key<T>, policy: &Resolve<T>) -> Result<Doc<T>, Error> {
        operation!(self, "resolve", T, Self::about(key.as_str()), {
            let mut attempt = 1;
            loop {
                match self.resolve_once(key, policy).await {
                    Err(err) if RetryPolicy::retries(&err) && attempt < self.retry.attempts() => {
                        self.retry.pause(attempt, &err).await;
                        attempt += 1;
                    }
                    // Leftovers of an earlier merge were removed: read again (each pass removes one or more
                    // revisions, so this ends).
                    Ok(None) => {}
                    Ok(Some(doc)) => return Ok(doc),
                    Err(err) => return Err(err),
                }
            }
        })
    }

    /// One attempt: the document as merged; `None` when it found and removed the leftovers of an earlier
    /// merge, to be read again.
    async fn resolve_once(
        &self,
        key: &Key<T>,
        policy: &Resolve<T>,
    ) -> Result<Option<Doc<T>>, Error> {
        self.check_store()?;
        let not_found = || Error::NotFound {
            key: key.as_str().to_owned(),
        };
        let current = self.read(key).await?.ok_or_else(not_found)?;
        let read = current.stored().cloned().ok_or_else(not_found)?;
        let mut held_before = current.stored_lookups().to_vec();
        held_before.extend(self.entries(&read.bytes, key.as_str()));
        let mut candidates = vec![current];
        for cas in &read.conflicts {
            if let Some(stored) = self.store.get_revision(key.as_str(), cas).await? {
                candidates.push(Self::from_stored(key, stored)?);
            }
        }
        if candidates.len() == 1 && !read.conflicts.is_empty() {
            // Merged by another writer since the read: read again.
            return Err(Error::Conflict {
                key: key.as_str().to_owned(),
            });
        }
        // A merge is worked out before anything is written: a conflict it cannot decide, or no base, leaves
        // the store as it is.
        let merged = match policy.merger() {
            Some(merger) if candidates.len() > 1 => {
                let base = self.merge_base(key, &candidates, merger).await?;
                let sides: Vec<&Doc<T>> = candidates.iter().collect();
                let modified = [
                    candidates[0].envelope().modified,
                    candidates[1].envelope().modified,
                ];
                let content = merged_content(key, merger, &base, &sides, modified)?;
                let mut doc = Self::from_stored(key, read.clone())?;
                doc.take_content(content);
                Some(doc)
            }
            _ => None,
        };
        let chosen = match candidates.len() {
            1 => 0,
            _ => policy.pick(&candidates),
        };
        // When the outcome is the revision read as it is (picked, or what the merge gives), a losing revision
        // an earlier merge kept as a copy and then failed to remove is removed now, rather than kept twice
        // under a merge written twice. One that the outcome would change is merged as any other.
        let keeps_read = match &merged {
            Some(merged) => fingerprint(merged)? == fingerprint(&candidates[0])?,
            None => chosen == 0,
        };
        if keeps_read {
            let leftovers = self.leftovers(key, &candidates).await?;
            if !leftovers.is_empty() {
                for at in leftovers {
                    if let Some(cas) = candidates[at].cas() {
                        self.docs().remove(key.as_str(), Some(cas)).await?;
                    }
                }
                return Ok(None);
            }
        }
        let top = candidates
            .iter()
            .map(|candidate| candidate.envelope().ver)
            .max()
            .unwrap_or(1);
        // A merge is a save from the revision read: the document keeps its `_created`, and when it is at the
        // highest version, its copy at that version is its own bytes, as any save from it writes them.
        let read_ver = candidates[0].envelope().ver;
        let created = candidates[0].envelope().created;
        // The copies in the window may be in conflict too: both sides saved from the same versions. (Also
        // when the document is not: a merge that failed after its commit may have left them.)
        let (more, duplicates) = match RevisionWindow::of::<T>(top) {
            Some(window) => self.conflicting_copies(key, window, created).await?,
            None => (Vec::new(), Vec::new()),
        };
        if candidates.len() == 1 && more.is_empty() {
            // Nothing to merge: the document is as read.
            self.remove_duplicates(&duplicates).await;
            return Ok(Some(candidates.swap_remove(0)));
        }
        let own_copy = read_ver == top;
        let mut chosen_doc = None;
        let mut displaced = Vec::new();
        let mut lost_values: Vec<String> = Vec::new();
        for (at, candidate) in candidates.into_iter().enumerate() {
            // The first candidate is the revision read, which the merge is written over; every other one
            // is a losing revision, removed once its content is kept.
            let source = match (at, candidate.cas()) {
                (0, _) | (_, None) => None,
                (_, Some(cas)) => Some((key.as_str().to_owned(), cas.clone())),
            };
            if at == chosen {
                chosen_doc = Some((candidate, source));
                continue;
            }
            lost_values.extend(candidate.stored_lookups().iter().cloned());
            if let Some(stored) = candidate.stored() {
                lost_values.extend(self.entries(&stored.bytes, key.as_str()));
            }
            if at == 0 && own_copy {
                // Kept as the copy of its own version, below.
                continue;
            }
            displaced.push(Displaced {
                doc: candidate,
                source,
                candidate: true,
            });
        }
        let (mut doc, chosen_source) = match merged {
            Some(merged) => (merged, None),
            None => chosen_doc.ok_or_else(not_found)?,
        };
        displaced.extend(more);
        displaced.sort_by_key(|lost| by_version(&lost.doc));

        // Everything that can refuse the merge is checked before the first write.
        let too_many = || Error::VersionLimit {
            key: key.as_str().to_owned(),
            ver: top,
        };
        let first = top.checked_add(u64::from(own_copy)).ok_or_else(too_many)?;
        let count = u64::try_from(displaced.len()).map_err(|_| too_many())?;
        let next = first.checked_add(count).ok_or_else(too_many)?;
        // The merged document keeps the copies of its window, as after any save: a displaced version below
        // it is dropped as a save's prune drops one (all of them, for a model without revisions). Each is
        // displaced now, by the merge: with an age, one past the count is kept, and a later save prunes it
        // once it is old.
        let window = RevisionWindow::of::<T>(next);
        let now = (self.clock)();
        let in_window =
            |version: u64| window.is_some_and(|window| window.keeps(version, Some(now), now));
        // Each displaced version as its copy holds it, and what its copy records beside the merge: a version
        // renumbered records the digests it had, by which another side's history that holds it at its first
        // number meets it, and what it recorded as a copy (the versions saved from it, and what it had been
        // known by), by which the histories through it go on.
        let mut displaced_versions = Vec::with_capacity(displaced.len());
        for (version, lost) in (first..next).zip(&displaced) {
            let own = lost.doc.envelope();
            let (bytes, record) = match lost.doc.stored() {
                Some(stored) if own.ver == version && own.created == created => {
                    (stored.bytes.to_vec(), Vec::new())
                }
                _ => {
                    let mut envelope = own.clone();
                    envelope.ver = version;
                    envelope.created = created;
                    envelope.copy_of = None;
                    let mut record: Vec<String> = super::records::version_digests(&lost.doc)?
                        .iter()
                        .map(|digest| format!("{}{digest}", crate::lineage::WAS))
                        .collect();
                    let recorded = lost
                        .doc
                        .stored()
                        .map(|stored| codec::peek_copy_next::<T>(&stored.bytes))
                        .unwrap_or_default();
                    for entry in &recorded {
                        if !record.contains(entry) {
                            record.push(entry.clone());
                        }
                    }
                    record.dedup();
                    (lost.doc.to_vec_as_read(&envelope)?, record)
                }
            };
            displaced_versions.push((version, bytes, record, lost.candidate));
        }
        let mut envelope = doc.envelope().clone();
        envelope.ver = next;
        envelope.created = created;
        envelope.modified = Some(now);
        envelope.modified_by.clone_from(&self.actor);
        let bytes = self.encode(&doc, &envelope)?;
        // The merge is saved from every candidate: the copy of each records it. A copy revision displaced from
        // its key is history, not a candidate: it records only what it did.
        let merged_digest = crate::lineage::version_digest::<T>(&bytes);
        let mut copies_to_write = Vec::with_capacity(displaced_versions.len());
        for (version, bytes, record, candidate) in &displaced_versions {
            if !in_window(*version) {
                continue;
            }
            let record: Vec<&str> = candidate
                .then_some(merged_digest.as_str())
                .into_iter()
                .chain(record.iter().map(String::as_str))
                .collect();
            let bytes = codec::marked_recording::<T>(bytes, key.as_str(), &record);
            copies_to_write.push((*version, revision_key::<T>(key.as_str(), *version), bytes));
        }
        let lookups = lookup_keys(doc.body())?;
        let entries = self.entries(&bytes, key.as_str());
        let released_values: Vec<String> = held_before
            .iter()
            .chain(&lost_values)
            .filter(|value| !lookups.contains(value) && !entries.contains(value))
            .cloned()
            .collect();

        let aux = self.aux();
        let mut claims = Claims::<T, _>::new(&aux, key.as_str());
        claims.leaving(&released_values).await?;
        // Every value the merged document holds is claimed, held ones too: a lookup the read revision held
        // may have been released on the other side (which moved the value) and be gone after replication.
        claims
            .claim(&lookups, &entries, Expect::At(&read.cas))
            .await?;
        let mut record_own = false;
        if own_copy && in_window(top) {
            match copies::keep::<T, _>(
                &self.docs(),
                key.as_str(),
                top,
                &read.bytes,
                &read.cas,
                &merged_digest,
                false,
            )
            .await
            {
                Ok(copies::Kept::Unrecorded) => record_own = true,
                Ok(_) => {}
                Err(err) => return Err(claims.abandon(err).await),
            }
        }
        // A copy placed stays when the merge fails: it sits above the document's version, never listed, and
        // the merge or save that reaches its key writes over it. (Removing it could take away the copy a
        // concurrent merge of the same revisions found in place and committed with.)
        let mut placed = Vec::with_capacity(copies_to_write.len());
        for (version, copy_key, copy) in &copies_to_write {
            match copies::place::<T, _>(&self.docs(), key.as_str(), &read.cas, copy_key, copy).await
            {
                Ok(cas) => placed.push((*version, cas)),
                Err(err) => return Err(claims.abandon(err).await),
            }
        }
        let cas = match self.docs().replace(key.as_str(), &bytes, &read.cas).await {
            Ok(cas) => cas,
            // An ambiguous replace may have landed, holding these lookups.
            Err(err) => return Err(claims.write_failed(err).await),
        };
        if record_own {
            copies::record_next::<T, _>(&self.docs(), key.as_str(), top, &merged_digest).await;
        }
        // As in a save: put the revision read back; the losing revisions were not touched.
        claims
            .confirm(
                &self.docs(),
                Undo::PutBack {
                    previous: &read.bytes,
                    written: &cas,
                },
            )
            .await?;

        // The merge has committed: the copies are the merged document's history. One that another merge of
        // the same revisions wrote over before this commit (with another policy) is put back; a losing
        // revision goes only once its content is kept (its copy in place, or dropped below the window as a
        // prune drops it).
        let copy_keys: Vec<String> = placed
            .iter()
            .map(|(version, _)| revision_key::<T>(key.as_str(), *version))
            .collect();
        let refs: Vec<&str> = copy_keys.iter().map(String::as_str).collect();
        let found = match self.store.get_many(&refs).await {
            Ok(found) => found,
            Err(_) => vec![None; placed.len()],
        };
        let mut kept = std::collections::BTreeSet::new();
        let mut unkept = None;
        for (((version, cas), stored), (_, copy_key, copy)) in
            placed.iter().zip(found).zip(&copies_to_write)
        {
            let in_place = stored.is_some_and(|stored| stored.cas == *cas)
                || copies::put_back::<T, _>(&self.docs(), key.as_str(), copy_key, copy).await;
            if in_place {
                kept.insert(*version);
            } else {
                unkept.get_or_insert(copy_key.clone());
            }
        }
        let mut remaining = Vec::new();
        let sources = (first..next)
            .zip(&displaced)
            .map(|(version, lost)| {
                let kept = kept.contains(&version) || !in_window(version);
                (&lost.source, kept)
            })
            // The picked revision, when it is not the one written over: its content is the document now.
            .chain(std::iter::once((&chosen_source, true)));
        for (source, kept) in sources {
            let Some((source_key, source_cas)) = source else {
                continue;
            };
            // A revision left in place is merged again by the next `resolve`.
            let removed = kept
                && self
                    .docs()
                    .remove(source_key, Some(source_cas))
                    .await
                    .is_ok();
            if !removed && source_key == key.as_str() {
                remaining.push(source_cas.clone());
            }
        }
        self.remove_duplicates(&duplicates).await;
        claims.release_left().await;
        if let Some(copy_key) = unkept {
            // The version it holds is in no losing revision (it is the revision written over) or still in
            // one: either way the caller must hear of it.
            return Err(Error::store_with(
                StoreErrorKind::Ambiguous,
                key.as_str(),
                format!(
                    "the merge was written, but its copy `{copy_key}` could not be put in place; read the \
                     document and its revisions before writing it again"
                ),
            ));
        }
        doc.written(
            envelope,
            Stored::new(bytes, cas).with_conflicts(remaining),
            lookups,
        );
        Ok(Some(doc))
    }

    /// The candidates after the first that an earlier merge already keeps as copies: a copy above the
    /// candidate's own version holds it whole (body, unknown fields and envelope but `_ver`, which the merge
    /// renumbered). Such a revision is what a merge leaves when removing it failed after its commit.
    async fn leftovers(&self, key: &Key<T>, candidates: &[Doc<T>]) -> Result<Vec<usize>, Error> {
        let Some(lowest) = candidates.iter().skip(1).map(|c| c.envelope().ver).min() else {
            return Ok(Vec::new());
        };
        let Some(window) = RevisionWindow::of::<T>(candidates[0].envelope().ver) else {
            return Ok(Vec::new());
        };
        let versions: Vec<u64> = window.versions().filter(|v| *v > lowest).collect();
        if versions.is_empty() {
            return Ok(Vec::new());
        }
        let copy_keys: Vec<String> = versions
            .iter()
            .map(|version| revision_key::<T>(key.as_str(), *version))
            .collect();
        let refs: Vec<&str> = copy_keys.iter().map(String::as_str).collect();
        let created = candidates[0].envelope().created;
        let mut kept = Vec::new();
        for (version, stored) in versions.into_iter().zip(self.store.get_many(&refs).await?) {
            let Some(stored) = stored.filter(|stored| {
                codec::peek::<T>(&stored.bytes)
                    .is_some_and(|peeked| copies::is_copy(&peeked, version, created))
            }) else {
                continue;
            };
            if let Ok(copy) = Self::from_stored(key, stored) {
                kept.push((version, fingerprint(&copy)?));
            }
        }
        let mut leftovers = Vec::new();
        for (at, candidate) in candidates.iter().enumerate().skip(1) {
            let own = fingerprint(candidate)?;
            let ver = candidate.envelope().ver;
            if kept
                .iter()
                .any(|(version, copy)| *version > ver && *copy == own)
            {
                leftovers.push(at);
            }
        }
        Ok(leftovers)
    }

    /// The conflicting revisions of the copies in the window of version `top`: those that hold another
    /// version than the revision kept at their key (to be kept as copies of their own), and those that hold
    /// the same JSON (to be removed).
    async fn conflicting_copies(
        &self,
        key: &Key<T>,
        window: RevisionWindow,
        created: Option<crate::Timestamp>,
    ) -> Result<(Vec<Displaced<T>>, Vec<Duplicate>), Error> {
        let versions: Vec<u64> = window.versions().collect();
        let copy_keys: Vec<String> = versions
            .iter()
            .map(|version| revision_key::<T>(key.as_str(), *version))
            .collect();
        let refs: Vec<&str> = copy_keys.iter().map(String::as_str).collect();
        let found = self.store.get_many(&refs).await?;
        let mut displaced = Vec::new();
        let mut duplicates = Vec::new();
        for ((version, copy_key), kept) in versions.into_iter().zip(copy_keys).zip(found) {
            let Some(kept) = kept.filter(|kept| !kept.conflicts.is_empty()) else {
                continue;
            };
            for cas in &kept.conflicts {
                let Some(other) = self.store.get_revision(&copy_key, cas).await? else {
                    continue;
                };
                // Only this document's copies: anything else at the key is somebody else's.
                let ours = codec::peek::<T>(&other.bytes)
                    .is_some_and(|peeked| copies::is_copy(&peeked, version, created));
                if !ours {
                    continue;
                }
                if codec::same_copy::<T>(&other.bytes, &kept.bytes) {
                    // What the other side saved from the version: recorded on the copy kept before this one goes.
                    let next = codec::peek_copy_next::<T>(&other.bytes)
                        .into_iter()
                        .filter(|next| !codec::records_next::<T>(&kept.bytes, next))
                        .collect();
                    duplicates.push(Duplicate {
                        copy_key: copy_key.clone(),
                        cas: cas.clone(),
                        next,
                    });
                } else {
                    displaced.push(Displaced {
                        doc: Self::from_stored(key, other)?,
                        source: Some((copy_key.clone(), cas.clone())),
                        candidate: false,
                    });
                }
            }
        }
        Ok((displaced, duplicates))
    }

    /// Removes copy revisions that hold the same version as the revision kept at their key, once the kept one
    /// records every version saved from theirs too ([`crate::lineage`]).
    async fn remove_duplicates(&self, duplicates: &[Duplicate]) {
        for duplicate in duplicates {
            if !duplicate.next.is_empty() {
                let Ok(Some(kept)) = self.store.get(&duplicate.copy_key).await else {
                    continue;
                };
                let joined = duplicate
                    .next
                    .iter()
                    .fold(kept.bytes.to_vec(), |bytes, next| {
                        codec::with_next::<T>(&bytes, next)
                    });
                let recorded = duplicate
                    .next
                    .iter()
                    .all(|next| codec::records_next::<T>(&joined, next));
                // Left, it is found again by the next merge.
                if !recorded
                    || (*joined != *kept.bytes
                        && self
                            .docs()
                            .replace(&duplicate.copy_key, &joined, &kept.cas)
                            .await
                            .is_err())
                {
                    continue;
                }
            }
            let _ = self
                .docs()
                .remove(&duplicate.copy_key, Some(&duplicate.cas))
                .await;
        }
    }
}
