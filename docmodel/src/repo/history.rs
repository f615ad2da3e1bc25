//! Each side's history as a merge follows it ([`History`]), and the base a three-way merge takes from the
//! histories of its sides ([`base`]): [`Repo::merge_base`](super::Repo) reads the copies, these decide.
//!
//! A history is a graph, not a line: a merge is saved from every revision it merged, so the copy of each
//! records it ([`crate::lineage`]), and a version reached from a merge has every merged side above it.

use serde::Serialize;

use super::records::version_digests;
use crate::lineage::{WAS, parse_link};
use crate::{Doc, DocModel, Envelope, Error, JsonValue};

/// One version of a side's history: its number, its digests ([`version_digests`]), the digests it had before
/// a merge renumbered it (`=<digest>` in its record), its content, the copy holding it (its place among the
/// copies read; `None`: the side itself), and the versions it was saved from (their places in the history).
/// A version known only from a copy written over it ([`crate::lineage::FROM`]) has its digests alone.
pub(super) struct Reached {
    pub(super) ver: u64,
    digests: Vec<String>,
    was: Vec<String>,
    pub(super) content: Option<JsonValue>,
    pub(super) copy: Option<usize>,
    saved_from: Vec<usize>,
}

impl Reached {
    fn of<T: DocModel + Serialize>(
        doc: &Doc<T>,
        neutral: &Envelope,
        copy: Option<usize>,
    ) -> Result<Self, Error> {
        Ok(Reached {
            ver: doc.envelope().ver,
            digests: version_digests(doc)?.to_vec(),
            was: doc
                .envelope()
                .copy_next
                .iter()
                .filter_map(|next| next.strip_prefix(WAS))
                .map(str::to_owned)
                .collect(),
            content: Some(content(doc, neutral)?),
            copy,
            saved_from: Vec::new(),
        })
    }

    /// Version `ver`, known by `digests` from what a copy written over its copy inherited.
    fn written_over(ver: u64, digests: Vec<String>) -> Self {
        Reached {
            ver,
            digests,
            was: Vec::new(),
            content: None,
            copy: None,
            saved_from: Vec::new(),
        }
    }

    /// Every digest this version is known by.
    fn identities(&self) -> impl Iterator<Item = &str> {
        self.digests.iter().chain(&self.was).map(String::as_str)
    }

    /// Whether this is `other`'s version: at the same number with the same content, or known by a digest
    /// `other` is known by.
    pub(super) fn holds(&self, other: &Reached) -> bool {
        let same_content = matches!(
            (&self.content, &other.content),
            (Some(ours), Some(theirs)) if self.ver == other.ver && ours == theirs
        );
        same_content
            || self
                .identities()
                .any(|id| other.identities().any(|theirs| theirs == id))
    }
}

/// A side's history: the side first, then every version it descends from that the copies show, each after
/// one it was reached from.
pub(super) struct History {
    pub(super) reached: Vec<Reached>,
}

impl History {
    /// The history of `side`, followed through `copies` (every revision of the copies kept): from each
    /// version to every copy that records one of its digests as saved from it, wherever the copy is (a merge
    /// keeps the versions it displaces renumbered, with what they recorded), and through a copy written over
    /// to the version it held. Each version reached that shows nothing it was saved from, above `deepest` (the
    /// oldest copy kept), is pushed to `missing`, one below its number: a copy still to arrive.
    pub(super) fn follow<T: DocModel + Serialize>(
        side: &Doc<T>,
        copies: &[Doc<T>],
        neutral: &Envelope,
        deepest: u64,
        missing: &mut Vec<u64>,
    ) -> Result<Self, Error> {
        let mut reached = vec![Reached::of(side, neutral, None)?];
        let mut at = 0;
        while at < reached.len() {
            let ids: Vec<String> = reached[at].identities().map(str::to_owned).collect();
            let saved = |next: &str| ids.iter().any(|id| id == next);
            let mut from = Vec::new();
            for (index, copy) in copies.iter().enumerate() {
                let record = &copy.envelope().copy_next;
                if record.iter().any(|next| saved(next)) {
                    let node = match reached.iter().position(|seen| seen.copy == Some(index)) {
                        Some(node) => node,
                        None => {
                            reached.push(Reached::of(copy, neutral, Some(index))?);
                            reached.len() - 1
                        }
                    };
                    from.push(node);
                }
                // The copy that held a version this one was saved from was written over: the copy there now
                // inherited what it recorded, and the history steps through the number without its content.
                let mut held: Vec<String> = Vec::new();
                for (next, version) in record.iter().filter_map(|entry| parse_link(entry)) {
                    if saved(next) && !held.iter().any(|known| known == version) {
                        held.push(version.to_owned());
                    }
                }
                if held.is_empty() {
                    continue;
                }
                let known = reached.iter().position(|seen| {
                    seen.identities()
                        .any(|id| held.iter().any(|version| version == id))
                });
                from.push(known.unwrap_or_else(|| {
                    reached.push(Reached::written_over(copy.envelope().ver, held));
                    reached.len() - 1
                }));
            }
            from.sort_unstable();
            from.dedup();
            from.retain(|node| *node != at);
            if from.is_empty() && reached[at].ver > deepest {
                missing.push(reached[at].ver - 1);
            }
            reached[at].saved_from = from;
            at += 1;
        }
        Ok(History { reached })
    }

    /// Whether the version at `ancestor` is one the version at `at` descends from (not itself).
    fn descends(&self, at: usize, ancestor: usize) -> bool {
        let mut seen = vec![false; self.reached.len()];
        let mut stack = self.reached[at].saved_from.clone();
        while let Some(node) = stack.pop() {
            if node == ancestor {
                return true;
            }
            if !std::mem::replace(&mut seen[node], true) {
                stack.extend(&self.reached[node].saved_from);
            }
        }
        false
    }
}

/// What [`base`] found.
pub(super) enum Base {
    /// The base, with its content: where it is in which history.
    Found { history: usize, at: usize },
    /// Every history holds version `ver`, but none with its content (each stepped through it only by a copy
    /// written over it).
    WithoutContent(u64),
    /// No version every history holds; `checked`: the versions the first history holds at or below the
    /// lowest side that every other history holds a version of the same number of (another content).
    None { checked: Vec<u64> },
}

/// The base of a merge of the sides `histories` follow: a version of the first side's history that every
/// other history holds, and that no other such version descends from (the newest version they share: one
/// older would take what was changed since as changed on one side only). Where several qualify (sides that
/// merged apart across each other), the one nearest the first side. `lowest`: the lowest side's number.
pub(super) fn base(histories: &[History], lowest: u64) -> Base {
    let Some((first, others)) = histories.split_first() else {
        return Base::None {
            checked: Vec::new(),
        };
    };
    let shared: Vec<usize> = (0..first.reached.len())
        .filter(|at| {
            others.iter().all(|other| {
                other
                    .reached
                    .iter()
                    .any(|theirs| theirs.holds(&first.reached[*at]))
            })
        })
        .collect();
    let newest = shared.iter().copied().find(|candidate| {
        !shared
            .iter()
            .any(|other| other != candidate && first.descends(*other, *candidate))
    });
    let Some(newest) = newest else {
        let checked = first
            .reached
            .iter()
            .filter(|reached| {
                reached.ver <= lowest
                    && others
                        .iter()
                        .all(|other| other.reached.iter().any(|theirs| theirs.ver == reached.ver))
            })
            .map(|reached| reached.ver)
            .collect();
        return Base::None { checked };
    };
    let base = &first.reached[newest];
    histories
        .iter()
        .enumerate()
        .find_map(|(history, followed)| {
            followed
                .reached
                .iter()
                .position(|reached| reached.content.is_some() && reached.holds(base))
                .map(|at| Base::Found { history, at })
        })
        .unwrap_or(Base::WithoutContent(base.ver))
}

/// `doc` as stored JSON under the envelope `neutral`: what a merge compares and merges.
pub(super) fn content<T: DocModel + Serialize>(
    doc: &Doc<T>,
    neutral: &Envelope,
) -> Result<JsonValue, Error> {
    let bytes = doc.to_vec_as_read(neutral)?;
    serde_json::from_slice(&bytes).map_err(Error::codec)
}
