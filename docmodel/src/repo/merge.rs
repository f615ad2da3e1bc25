//! Three-way merges of whole documents: the base found in the revision copies, the sides merged by the
//! model's rules ([`crate::merge`]) or the model's own function, and [`Repo::save_merging`].

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::history::{self, Base, Graph, Held, Records, content};
use super::{Repo, copies};
use crate::keyshape::revision_key;
use crate::merge::Merge;
use crate::store::Store;
use crate::{Doc, DocModel, Error, JsonValue, Key, Timestamp, codec};

/// The model's own merge: base, ours, theirs, and the merged body.
pub(super) type TypedMerge<'a, T> = dyn Fn(&T, &T, &T) -> T + Send + Sync + 'a;

/// How the sides of a merge are put together.
pub(super) enum Merger<'a, T> {
    /// By the model's rules, on the stored JSON.
    Rules,
    /// By the model's function, on the bodies.
    Typed(&'a TypedMerge<'a, T>),
}

impl<T> Clone for Merger<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Merger<'_, T> {}

impl<T, S> Repo<T, S>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    /// Saves `doc` as [`Repo::save`] does; when another writer saved the document since `doc` was read,
    /// merges the two three ways instead of failing with [`Error::Conflict`], and saves the merge. The base
    /// is the version `doc` was read at, ours is `doc` as edited, theirs is the version stored now: each
    /// side's changes are applied, and what both changed differently is decided by the model's merge
    /// rules ([`crate::merge`], `#[docmodel(merge = ...)]`; [`MergeRule::Newer`](crate::merge::MergeRule::Newer)
    /// takes ours as modified now). A long-lived edit (a form held open) keeps both writers' changes.
    ///
    /// The merge is saved from the version stored now, as any save from it: that version is kept as its
    /// revision copy where the model keeps them, and lookups move. A merge is made whatever the
    /// [`RetryPolicy`](crate::RetryPolicy) (it is not a retry of the same save); another writer saving again
    /// meanwhile is merged again as the policy allows. On success `doc` holds the merged document as saved.
    ///
    /// Fails with [`Error::MergeConflict`] listing every place both sides changed differently that no rule
    /// decides, with the three values of each; nothing is written then. Fails as [`Repo::save`] does
    /// otherwise, with [`Error::NotFound`] when the document was removed meanwhile, and with
    /// [`Error::NoMergeBase`] when it was removed and created again (another `_created`, or a `_ver` below
    /// the one `doc` was read at): that is another document, which the edit is not merged into. On any
    /// failure `doc` is left as the caller edited it.
    ///
    /// ```
    /// # use docmodel::{DocModel, Repo, store::MemoryStore};
    /// # use serde::{Deserialize, Serialize};
    /// #[derive(Serialize, Deserialize, DocModel)]
    /// #[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
    /// struct User { id: u64, name: String, city: String }
    ///
    /// # pollster::block_on(async {
    /// let users = Repo::<User>::new(MemoryStore::new());
    /// users.insert(User { id: 1, name: "Joe".into(), city: "Leeds".into() }).await?;
    /// // A form holds the document open...
    /// let mut form = users.get(&User::key(1)).await?.unwrap();
    /// // ...while another writer moves Joe.
    /// users.update(&User::key(1), |user| user.city = "York".into()).await?;
    ///
    /// form.name = "Joseph".into();
    /// users.save_merging(&mut form).await?;
    /// assert_eq!((form.name.as_str(), form.city.as_str()), ("Joseph", "York"));
    /// assert_eq!(form.envelope().ver, 3);
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn save_merging(&self, doc: &mut Doc<T>) -> Result<(), Error> {
        crate::trace::operation!(self, "save_merging", T, Self::about(doc.key().as_str()), {
            self.save_merged(doc, Merger::Rules).await
        })
    }

    /// [`Repo::save_merging`], with the model's own merge: `merge` is given the base, ours and theirs as
    /// bodies whenever another writer saved meanwhile, and returns the body to save. Its key fields must
    /// give the document's key.
    ///
    /// ```
    /// # use docmodel::{DocModel, Repo, store::MemoryStore};
    /// # use serde::{Deserialize, Serialize};
    /// #[derive(Clone, Serialize, Deserialize, DocModel)]
    /// #[docmodel(type = "counter", schema = "1.0", key = "counter::{id}")]
    /// struct Counter { id: u64, hits: u64 }
    ///
    /// # pollster::block_on(async {
    /// let counters = Repo::<Counter>::new(MemoryStore::new());
    /// counters.insert(Counter { id: 1, hits: 10 }).await?;
    /// let mut mine = counters.get(&Counter::key(1)).await?.unwrap();
    /// counters.update(&Counter::key(1), |counter| counter.hits += 5).await?;
    /// mine.hits += 1;
    /// // Both sides' increments count.
    /// let add = |base: &Counter, ours: &Counter, theirs: &Counter| Counter {
    ///     hits: ours.hits + theirs.hits - base.hits,
    ///     ..ours.clone()
    /// };
    /// counters.save_merging_with(&mut mine, add).await?;
    /// assert_eq!(mine.hits, 16);
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn save_merging_with(
        &self,
        doc: &mut Doc<T>,
        merge: impl Fn(&T, &T, &T) -> T + Send + Sync,
    ) -> Result<(), Error> {
        crate::trace::operation!(self, "save_merging", T, Self::about(doc.key().as_str()), {
            self.save_merged(doc, Merger::Typed(&merge)).await
        })
    }

    async fn save_merged(&self, doc: &mut Doc<T>, merger: Merger<'_, T>) -> Result<(), Error> {
        let err = match self.save_claiming(doc, false).await {
            Err(err @ Error::Conflict { .. }) => err,
            done => return done,
        };
        // Merged and saved until a save lands, `doc` untouched until then: on any error it is as the caller
        // left it. A merge is not a retry of the same save, so one is made whatever the retry policy; more
        // (another writer saving again meanwhile) as it allows.
        let rounds = self.retry.attempts().max(2) - 1;
        let mut err = err;
        let mut merged: Option<Doc<T>> = None;
        for round in 1..=rounds {
            if round > 1 {
                self.retry.pause(round - 1, &err).await;
            }
            let ours = merged.as_ref().unwrap_or(doc);
            let key = ours.key().clone();
            let not_found = || Error::NotFound {
                key: key.as_str().to_owned(),
            };
            let theirs = self.read(&key).await?.ok_or_else(not_found)?;
            let base = Self::from_stored(&key, ours.stored().cloned().ok_or_else(not_found)?)?;
            // A document removed and created again since `doc` was read is another document: nothing of the
            // one read is in it to merge into (as `resolve` refuses sides created apart).
            let (was, now) = (base.envelope(), theirs.envelope());
            if was.created != now.created || now.ver < was.ver {
                return Err(Error::NoMergeBase {
                    key: key.as_str().to_owned(),
                    versions: vec![ours.envelope().ver, now.ver],
                    checked: Vec::new(),
                });
            }
            // Ours is modified now, by this save.
            let modified = [Some((self.clock)()), theirs.envelope().modified];
            let content = merged_content(&key, merger, &base, &[ours, &theirs], modified)?;
            let mut next = theirs;
            next.take_content(content);
            match self.save_claiming(&mut next, false).await {
                Ok(()) => {
                    *doc = next;
                    return Ok(());
                }
                Err(again @ Error::Conflict { .. }) => {
                    err = again;
                    merged = Some(next);
                }
                Err(other) => return Err(other),
            }
        }
        Err(err)
    }

    /// The newest version every one of `sides` (the revisions in conflict of one document) descends from,
    /// shown by the sides' own histories ([`crate::lineage`], [`Graph`]): from each side, through every copy
    /// that records a version reached as saved from it. A version counts as one wherever it is reached: at
    /// the same number with the same content (body and fields the model does not know: two sides that merged
    /// the same revisions apart hold one merge, written at two times), or at any number by a digest it is
    /// known by (a merge keeps the versions it displaces renumbered, each recording the digest it had). The
    /// base is a version every side reaches that no other such version descends from; where several are (the
    /// sides merged apart across each other, differently), their merge by `merger` from their own base, so
    /// that a change either side made since one of them is not taken for the other's undoing.
    ///
    /// A copy only one side wrote is never taken for the other side's: where no version is shared and a
    /// side's history stops at a copy not here (still replicating, or pruned), the merge fails with
    /// [`Error::MergeHistoryMissing`] rather than guess; where the version shared is known only from a copy
    /// written over it (its content gone), or the versions shared do not merge, with [`Error::NoMergeBase`].
    pub(super) async fn merge_base(
        &self,
        key: &Key<T>,
        sides: &[Doc<T>],
        merger: Merger<'_, T>,
    ) -> Result<Doc<T>, Error> {
        let versions: Vec<u64> = sides.iter().map(|side| side.envelope().ver).collect();
        let lowest = versions.iter().copied().min().unwrap_or(1);
        let highest = versions.iter().copied().max().unwrap_or(1);
        let created = sides.first().and_then(|side| side.envelope().created);
        let not_found = || Error::NotFound {
            key: key.as_str().to_owned(),
        };
        // Sides created apart are two documents under one key, with no version in common.
        if sides.iter().any(|side| side.envelope().created != created) {
            return Err(Error::NoMergeBase {
                key: key.as_str().to_owned(),
                versions,
                checked: Vec::new(),
            });
        }
        let neutral = sides
            .first()
            .map(|side| side.envelope().clone())
            .unwrap_or_default();
        // Below the oldest copy the model still keeps (by count, or by age), copies are pruned: a history
        // that would step further has no base, where one that stops above it is waiting for copies.
        let deepest = copies::deepest_kept::<T, _>(
            &self.store,
            key.as_str(),
            highest,
            created,
            (self.clock)(),
        )
        .await?;
        let copies = self.copy_revisions(key, deepest..highest, created).await?;
        let records = Records::of(&copies);
        let mut missing = Vec::new();
        let graph = Graph::follow(sides, &copies, &records, &neutral, deepest, &mut missing)?;
        history::newest_first(&mut missing);
        let roots: Vec<usize> = (0..sides.len()).collect();
        let no_base = |checked| Error::NoMergeBase {
            key: key.as_str().to_owned(),
            versions: versions.clone(),
            checked,
        };
        let found = history::base(&graph, &roots, lowest);
        // A copy still to arrive above the base found may show a newer one: wait for it.
        if !matches!(found, Base::None { .. }) {
            let newest_shared = shared_numbers(&graph, &found).first().copied().unwrap_or(0);
            missing.retain(|number| *number >= newest_shared);
        }
        match found {
            _ if !missing.is_empty() => Err(Error::MergeHistoryMissing {
                key: key.as_str().to_owned(),
                versions,
                missing,
            }),
            found => {
                let at = |held: Held| match held {
                    Held::Side(side) => sides[side].stored(),
                    Held::Copy(copy) => copies[copy].stored(),
                    Held::Gone => None,
                };
                let version = |node: usize| {
                    let stored = at(graph.reached[node].held)
                        .cloned()
                        .ok_or_else(not_found)?;
                    Self::from_stored(key, stored)
                };
                built_base(key, merger, &found, &version).map_err(|err| match err {
                    // The shared versions do not merge themselves: there is no one base to take.
                    Error::MergeConflict { .. } | Error::NoMergeBase { .. } => {
                        no_base(shared_numbers(&graph, &found))
                    }
                    other => other,
                })
            }
        }
    }

    /// Every revision of the copies of `versions` of the document under `key` (created at `created`): at each
    /// key the one the store ranks first and those in conflict with it, each read as the model. A revision
    /// that is not this document's copy of the version at its key, or does not read, is left out.
    async fn copy_revisions(
        &self,
        key: &Key<T>,
        versions: std::ops::Range<u64>,
        created: Option<Timestamp>,
    ) -> Result<Vec<Doc<T>>, Error> {
        let copy_keys: Vec<(u64, String)> = versions
            .map(|version| (version, revision_key::<T>(key.as_str(), version)))
            .collect();
        let refs: Vec<&str> = copy_keys
            .iter()
            .map(|(_, copy_key)| copy_key.as_str())
            .collect();
        let found = self.store.get_many(&refs).await?;
        let mut revisions = Vec::new();
        for ((version, copy_key), kept) in copy_keys.iter().zip(found) {
            let Some(kept) = kept else { continue };
            let mut all = Vec::with_capacity(1 + kept.conflicts.len());
            for cas in &kept.conflicts {
                if let Some(other) = self.store.get_revision(copy_key, cas).await? {
                    all.push(other);
                }
            }
            all.insert(0, kept);
            revisions.extend(
                all.into_iter()
                    .filter(|stored| {
                        codec::peek::<T>(&stored.bytes)
                            .is_some_and(|peeked| copies::is_copy(&peeked, *version, created))
                    })
                    .filter_map(|stored| Self::from_stored(key, stored).ok()),
            );
        }
        Ok(revisions)
    }
}

/// The base [`history::base`] found, as a document: the version itself, or the merge of the versions the
/// sides share (made as the merge of the sides is, by `merger`, from their own base, in turn). `version`
/// reads the version at a place in the graph. Fails with [`Error::NoMergeBase`] where the base is gone or not
/// there, and with the merge's error where the shared versions do not merge.
fn built_base<T>(
    key: &Key<T>,
    merger: Merger<'_, T>,
    found: &Base,
    version: &dyn Fn(usize) -> Result<Doc<T>, Error>,
) -> Result<Doc<T>, Error>
where
    T: DocModel + Serialize + DeserializeOwned,
{
    match found {
        Base::Found(node) => version(*node),
        Base::Merged { sides, base } => {
            let base = built_base(key, merger, base, version)?;
            let sides = sides
                .iter()
                .map(|node| version(*node))
                .collect::<Result<Vec<_>, _>>()?;
            let refs: Vec<&Doc<T>> = sides.iter().collect();
            let modified = [
                sides.first().and_then(|side| side.envelope().modified),
                sides.get(1).and_then(|side| side.envelope().modified),
            ];
            merged_content(key, merger, &base, &refs, modified)
        }
        Base::WithoutContent(ver) => Err(Error::NoMergeBase {
            key: key.as_str().to_owned(),
            versions: Vec::new(),
            checked: vec![*ver],
        }),
        Base::None { checked } => Err(Error::NoMergeBase {
            key: key.as_str().to_owned(),
            versions: Vec::new(),
            checked: checked.clone(),
        }),
    }
}

/// The numbers of the versions a base is made of, newest first: what a merge that has none reports.
fn shared_numbers(graph: &Graph, found: &Base) -> Vec<u64> {
    let mut numbers = match found {
        Base::Found(node) => vec![graph.reached[*node].ver],
        Base::Merged { sides, base } => sides
            .iter()
            .map(|node| graph.reached[*node].ver)
            .chain(shared_numbers(graph, base))
            .collect(),
        Base::WithoutContent(ver) => vec![*ver],
        Base::None { checked } => checked.clone(),
    };
    history::newest_first(&mut numbers);
    numbers
}

/// The content of `sides` (ours first, then each other side) merged three ways from `base`: a document
/// read as the model from the merged JSON (or the model's merged body), whose body, unknown fields and
/// schema a caller takes. `modified` is when ours and theirs were modified (for two sides; with more, each
/// further side's own time stands for theirs).
pub(super) fn merged_content<T>(
    key: &Key<T>,
    merger: Merger<'_, T>,
    base: &Doc<T>,
    sides: &[&Doc<T>],
    modified: [Option<Timestamp>; 2],
) -> Result<Doc<T>, Error>
where
    T: DocModel + Serialize + DeserializeOwned,
{
    let [first, rest @ ..] = sides else {
        return Err(Error::NotFound {
            key: key.as_str().to_owned(),
        });
    };
    // Every side written with one envelope, so that only bodies and unknown fields differ.
    let neutral = first.envelope().clone();
    // Where the body's fields are: what the rules and the typed merge's fields are found in.
    let body_at = crate::envelope::body_attribute(&T::ENVELOPE, T::TYPE);
    let base_json = content(base, &neutral)?;
    let mut merged = content(first, &neutral)?;
    let mut body: Option<T> = None;
    let mut ours_modified = modified[0];
    for (at, side) in rest.iter().enumerate() {
        let theirs_modified = match at {
            0 => modified[1],
            _ => side.envelope().modified,
        };
        let theirs = content(side, &neutral)?;
        let undecided = match merger {
            Merger::Rules => {
                let merge = Merge::new(&T::MERGE)
                    .modified(ours_modified, theirs_modified)
                    .body_under(body_at);
                let (value, undecided) = merge.parts(&base_json, &merged, &theirs);
                merged = value;
                undecided
            }
            // The model's function merges the body; the fields it does not know (another program's) merge
            // three ways as JSON, and what both sides changed differently there is reported.
            Merger::Typed(merge) => {
                let ours = body.as_ref().unwrap_or(first.body());
                body = Some(merge(base.body(), ours, side.body()));
                let (value, undecided) = Merge::new(&crate::merge::MergeRules::NONE)
                    .body_under(body_at)
                    .parts(&base_json, &merged, &theirs);
                merged = value;
                undecided
                    .into_iter()
                    .filter(|(field, _)| !T::BODY_FIELDS.contains(&field.as_str()))
                    .collect()
            }
        };
        if !undecided.is_empty() {
            return Err(Error::MergeConflict {
                key: key.as_str().to_owned(),
                conflicts: undecided
                    .into_iter()
                    .map(|(_, conflict)| conflict)
                    .collect(),
            });
        }
        ours_modified = ours_modified.max(theirs_modified);
    }
    if body.is_some() {
        // The body is the function's: the document is read with ours's body fields, then given it.
        let ours = content(first, &neutral)?;
        let merged = match body_at {
            Some(attribute) => merged.get_mut(attribute),
            None => Some(&mut merged),
        };
        let ours = match body_at {
            Some(attribute) => ours.get(attribute),
            None => Some(&ours),
        };
        if let (Some(JsonValue::Object(merged)), Some(JsonValue::Object(ours))) = (merged, ours) {
            for name in T::BODY_FIELDS {
                match ours.get(*name) {
                    Some(value) => merged.insert((*name).to_owned(), value.clone()),
                    None => merged.remove(*name),
                };
            }
        }
    }
    let bytes = serde_json::to_vec(&merged).map_err(Error::codec)?;
    let mut doc = Doc::read_at(key.clone(), &bytes).map_err(|err| err.with_key(key.as_str()))?;
    if let Some(body) = body {
        *doc = body;
    }
    Ok(doc)
}
