//! The history of the sides of a merge as the copies show it ([`Graph`]), and the base a three-way merge
//! takes from it ([`base`]): [`Repo::merge_base`](super::Repo) reads the copies, these decide.
//!
//! A history is a graph, not a line: a merge is saved from every revision it merged, so the copy of each
//! records it ([`crate::lineage`]), and a version reached from a merge has every merged side above it. Two
//! sides that merged apart across each other (each merged the other's version, differently) share two
//! newest versions, neither above the other: their base is those two merged in turn, from their own base
//! (what git calls a recursive merge), so that what either changed since is seen as changed.

use std::collections::HashMap;

use serde::Serialize;

use super::records::version_digests;
use crate::codec;
use crate::lineage::{WAS, parse_link};
use crate::{Doc, DocModel, Envelope, Error, JsonValue};

/// One version the sides' histories reach: its number, its digests ([`version_digests`]), the digests it had
/// before a merge renumbered it (`=<digest>` in its record), its content, where it is held (a copy, by its
/// place among the copies read, or a side, by its place among the sides), and the versions it was saved from
/// (their places in the graph). A version known only from a copy written over it
/// ([`crate::lineage::FROM`]) has its digests alone.
pub(super) struct Reached {
    pub(super) ver: u64,
    digests: Vec<String>,
    was: Vec<String>,
    content: Option<JsonValue>,
    pub(super) held: Held,
    saved_from: Vec<usize>,
}

/// Where a version reached is held.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Held {
    /// The side at this place among the sides.
    Side(usize),
    /// The copy at this place among the copies read.
    Copy(usize),
    /// Nowhere: known only from a copy written over it.
    Gone,
}

impl Reached {
    /// `doc`, held at `held`, known also by `was` (what a copy's record says it had been known by).
    fn of<T: DocModel + Serialize>(
        doc: &Doc<T>,
        neutral: &Envelope,
        held: Held,
        was: Vec<String>,
    ) -> Result<Self, Error> {
        Ok(Reached {
            ver: doc.envelope().ver,
            digests: version_digests(doc)?.to_vec(),
            was,
            content: Some(content(doc, neutral)?),
            held,
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
            held: Held::Gone,
            saved_from: Vec::new(),
        }
    }

    /// Every digest this version is known by.
    fn identities(&self) -> impl Iterator<Item = &str> {
        self.digests.iter().chain(&self.was).map(String::as_str)
    }
}

/// What the copies read record, by digest: which copies record a version as saved from them, and which
/// inherited, from a copy they were written over, that a version was saved from another ([`FROM`](crate::lineage::FROM)).
pub(super) struct Records {
    saved: HashMap<String, Vec<usize>>,
    links: HashMap<String, Vec<(usize, String)>>,
    /// For each copy, the digests its version had before a merge renumbered it (`=` entries).
    was: Vec<Vec<String>>,
}

impl Records {
    /// What `copies` record (read from their stored bytes), each by its place among them.
    pub(super) fn of<T: DocModel>(copies: &[Doc<T>]) -> Self {
        let mut records = Records {
            saved: HashMap::new(),
            links: HashMap::new(),
            was: vec![Vec::new(); copies.len()],
        };
        for (index, copy) in copies.iter().enumerate() {
            let Some(stored) = copy.stored() else {
                continue;
            };
            for entry in codec::peek_copy_next::<T>(&stored.bytes) {
                if let Some(was) = entry.strip_prefix(WAS) {
                    records.was[index].push(was.to_owned());
                    continue;
                }
                match parse_link(&entry) {
                    Some((next, version)) => records
                        .links
                        .entry(next.to_owned())
                        .or_default()
                        .push((index, version.to_owned())),
                    None => records.saved.entry(entry).or_default().push(index),
                }
            }
        }
        records
    }
}

/// The versions the sides' histories reach, each once: the sides first, in their order, then every version
/// they descend from that the copies show, each after one it was reached from.
pub(super) struct Graph {
    pub(super) reached: Vec<Reached>,
}

impl Graph {
    /// The histories of `sides`, followed through `copies` (every revision of the copies kept, with
    /// `records`, what they record): from each version to every copy that records one of its digests as saved
    /// from it, wherever the copy is (a merge keeps the versions it displaces renumbered, with what they
    /// recorded), and through a copy written over to the version it held. For each version reached whose
    /// number above `deepest` (the oldest copy kept) has no copy below it here, or that shows nothing it was
    /// saved from, the number below is pushed to `missing`: a copy still to arrive.
    pub(super) fn follow<T: DocModel + Serialize>(
        sides: &[Doc<T>],
        copies: &[Doc<T>],
        records: &Records,
        neutral: &Envelope,
        deepest: u64,
        missing: &mut Vec<u64>,
    ) -> Result<Self, Error> {
        // The numbers of the copies read.
        let numbers: std::collections::HashSet<u64> =
            copies.iter().map(|copy| copy.envelope().ver).collect();
        let mut reached = Vec::with_capacity(sides.len());
        for (at, side) in sides.iter().enumerate() {
            // A document carries no record: only a copy was known by other digests.
            reached.push(Reached::of(side, neutral, Held::Side(at), Vec::new())?);
        }
        // Where each copy, and each digest, is in the graph.
        let mut by_copy: HashMap<usize, usize> = HashMap::new();
        let mut by_digest: HashMap<String, usize> = HashMap::new();
        let mut at = 0;
        while at < reached.len() {
            for id in reached[at].identities() {
                by_digest.entry(id.to_owned()).or_insert(at);
            }
            let ids: Vec<String> = reached[at].identities().map(str::to_owned).collect();
            let mut from = Vec::new();
            for id in &ids {
                for &index in records.saved.get(id.as_str()).into_iter().flatten() {
                    let node = match by_copy.get(&index) {
                        Some(node) => *node,
                        None => {
                            let was = records.was[index].clone();
                            reached.push(Reached::of(
                                &copies[index],
                                neutral,
                                Held::Copy(index),
                                was,
                            )?);
                            by_copy.insert(index, reached.len() - 1);
                            reached.len() - 1
                        }
                    };
                    from.push(node);
                }
            }
            // The copy that held a version this one was saved from was written over: the copy there now
            // inherited what it recorded, and the history steps through the number without its content.
            let mut held: Vec<(usize, Vec<&str>)> = Vec::new();
            for id in &ids {
                for (index, version) in records.links.get(id.as_str()).into_iter().flatten() {
                    let (index, version) = (*index, version.as_str());
                    match held.iter_mut().find(|(copy, _)| *copy == index) {
                        Some((_, versions)) if !versions.contains(&version) => {
                            versions.push(version)
                        }
                        Some(_) => {}
                        None => held.push((index, vec![version])),
                    }
                }
            }
            for (index, versions) in held {
                let known = versions
                    .iter()
                    .find_map(|version| by_digest.get(*version).copied());
                from.push(match known {
                    Some(node) => node,
                    None => {
                        let digests = versions.iter().map(|version| (*version).to_owned());
                        let ver = copies[index].envelope().ver;
                        reached.push(Reached::written_over(ver, digests.collect()));
                        for version in versions {
                            by_digest.insert(version.to_owned(), reached.len() - 1);
                        }
                        reached.len() - 1
                    }
                });
            }
            from.sort_unstable();
            from.dedup();
            from.retain(|node| *node != at);
            // Every save and every merge keeps a copy at the number below its own: where none is here, one of
            // the versions it was saved from is still to arrive (a merge saved from two may show one of them),
            // and a base found without it could be older than the one it shows. A version a merge renumbered
            // had another number below it, which is not known here.
            let renumbered = !reached[at].was.is_empty();
            if let Some(below) = reached[at].ver.checked_sub(1)
                && below >= deepest
                && !renumbered
                && (from.is_empty() || !numbers.contains(&below))
            {
                missing.push(below);
            }
            reached[at].saved_from = from;
            at += 1;
        }
        Ok(Graph { reached })
    }

    /// Which versions reached are one version: each version's class, the place of one of them. A copy and
    /// the same version renumbered by a merge (known by the digest it had, `=<digest>`) are reached as two,
    /// and so are two merges of the same revisions made apart (the same number and content, saved from the
    /// same versions).
    fn classes(&self) -> Vec<usize> {
        fn root(parent: &mut [usize], mut at: usize) -> usize {
            while parent[at] != at {
                parent[at] = parent[parent[at]];
                at = parent[at];
            }
            at
        }
        fn join(parent: &mut [usize], a: usize, b: usize) {
            let (a, b) = (root(parent, a), root(parent, b));
            parent[a.max(b)] = a.min(b);
        }
        let mut parent: Vec<usize> = (0..self.reached.len()).collect();
        let mut first_known: HashMap<&str, usize> = HashMap::new();
        for (at, reached) in self.reached.iter().enumerate() {
            for id in reached.identities() {
                let known = *first_known.entry(id).or_insert(at);
                join(&mut parent, known, at);
            }
        }
        // Two merges of the same revisions: the same number, the same content, saved from the same versions.
        // (Two sides that made one edit apart are two versions: what came before them differs.)
        let mut made_alike: HashMap<(u64, Vec<usize>), Vec<usize>> = HashMap::new();
        for (at, reached) in self.reached.iter().enumerate() {
            let Some(content) = &reached.content else {
                continue;
            };
            if reached.saved_from.is_empty() {
                continue;
            }
            let mut from: Vec<usize> = reached
                .saved_from
                .iter()
                .map(|from| root(&mut parent, *from))
                .collect();
            from.sort_unstable();
            from.dedup();
            let same = made_alike.entry((reached.ver, from)).or_default();
            match same
                .iter()
                .copied()
                .find(|other| self.reached[*other].content.as_ref() == Some(content))
            {
                Some(other) => join(&mut parent, other, at),
                None => same.push(at),
            }
        }
        (0..self.reached.len())
            .map(|at| root(&mut parent, at))
            .collect()
    }
}

/// What [`base`] found.
#[derive(Debug, PartialEq)]
pub(super) enum Base {
    /// The base: the version at this place in the graph.
    Found(usize),
    /// No one version: the sides merged apart across each other, and share these versions (places in the
    /// graph), none above another; the base is their merge from `base`, their own.
    Merged { sides: Vec<usize>, base: Box<Base> },
    /// The sides share version `ver`, whose content is gone (known only from a copy written over it, which
    /// replicates over the copy that held it everywhere: it never comes back).
    WithoutContent(u64),
    /// No version is shared; `checked`: the numbers of the versions the first side reaches at or below the
    /// lowest side that every other side reaches a version of the same number of (another content).
    None { checked: Vec<u64> },
}

/// Version numbers newest first, each once: the order every list of them a merge reports is in.
pub(super) fn newest_first(numbers: &mut Vec<u64>) {
    numbers.sort_unstable_by(|a, b| b.cmp(a));
    numbers.dedup();
}

/// The base of a merge of the versions at `sides` in `graph`: the newest version every one of them
/// descends from (or is), one no other such version descends from; where several are (sides that merged
/// apart across each other), their merge ([`Base::Merged`]). `lowest`: the lowest side's number.
pub(super) fn base(graph: &Graph, sides: &[usize], lowest: u64) -> Base {
    let classes = graph.classes();
    let count = graph.reached.len();
    // What each class was saved from: what any version of it was.
    let mut saved_from: Vec<Vec<usize>> = vec![Vec::new(); count];
    for (at, reached) in graph.reached.iter().enumerate() {
        saved_from[classes[at]].extend(reached.saved_from.iter().map(|from| classes[*from]));
    }
    let reach = |starts: Vec<usize>| {
        let mut seen = vec![false; count];
        let mut stack = starts;
        while let Some(class) = stack.pop() {
            if !std::mem::replace(&mut seen[class], true) {
                stack.extend(&saved_from[class]);
            }
        }
        seen
    };
    let reaches: Vec<Vec<bool>> = sides
        .iter()
        .map(|side| reach(vec![classes[*side]]))
        .collect();
    let shared: Vec<bool> = (0..count)
        .map(|class| reaches.iter().all(|reached| reached[class]))
        .collect();
    // A shared version another shared version descends from is older than the base.
    let below = reach(
        (0..count)
            .filter(|class| shared[*class])
            .flat_map(|class| saved_from[class].iter().copied())
            .collect(),
    );
    // The newest shared, each once, by the first version of its class reached, with its content.
    let mut newest: Vec<usize> = Vec::new();
    for at in 0..count {
        let class = classes[at];
        if !shared[class] || below[class] || newest.iter().any(|seen| classes[*seen] == class) {
            continue;
        }
        let with_content = (0..count)
            .find(|other| classes[*other] == class && graph.reached[*other].content.is_some());
        match with_content {
            Some(other) => newest.push(other),
            None => return Base::WithoutContent(graph.reached[at].ver),
        }
    }
    match newest.len() {
        0 => {
            let numbers = |reached: &Vec<bool>| -> Vec<u64> {
                (0..count)
                    .filter(|at| reached[classes[*at]])
                    .map(|at| graph.reached[at].ver)
                    .collect()
            };
            let first = reaches.first().map(numbers).unwrap_or_default();
            let others: Vec<Vec<u64>> = reaches.iter().skip(1).map(numbers).collect();
            let mut checked: Vec<u64> = first
                .into_iter()
                .filter(|ver| *ver <= lowest && others.iter().all(|other| other.contains(ver)))
                .collect();
            newest_first(&mut checked);
            Base::None { checked }
        }
        1 => Base::Found(newest[0]),
        _ => {
            let lowest = newest
                .iter()
                .map(|at| graph.reached[*at].ver)
                .min()
                .unwrap_or(lowest);
            let base = base(graph, &newest, lowest);
            Base::Merged {
                sides: newest,
                base: Box::new(base),
            }
        }
    }
}

/// `doc` as stored JSON under the envelope `neutral`: what a merge compares and merges.
pub(super) fn content<T: DocModel + Serialize>(
    doc: &Doc<T>,
    neutral: &Envelope,
) -> Result<JsonValue, Error> {
    let bytes = doc.to_vec_as_read(neutral)?;
    serde_json::from_slice(&bytes).map_err(Error::codec)
}

#[cfg(test)]
mod tests {
    use super::{Base, Graph, Held, Reached, base};

    /// A version known by `digests`, at `ver`, saved from the versions at `from` in the graph; its content
    /// is its first digest.
    fn version(ver: u64, digests: &[&str], from: &[usize]) -> Reached {
        Reached {
            ver,
            digests: digests.iter().map(|digest| (*digest).to_owned()).collect(),
            was: Vec::new(),
            content: Some(serde_json::json!(digests[0])),
            held: Held::Gone,
            saved_from: from.to_vec(),
        }
    }

    /// Three replicas: L merged Y with P's U (keeping U renumbered), then that with P's Z2 (keeping U and Z
    /// renumbered again); Q saved Z3 from Z. The newest version both hold is Z, not U, which L's history
    /// reaches first through the first merge: U at two numbers is one version, below Z.
    #[test]
    fn a_version_reached_at_two_numbers_is_one_version_below_the_newer_one_shared() {
        let graph = Graph {
            reached: vec![
                version(7, &["m2"], &[2, 3]),
                version(4, &["z3"], &[8]),
                version(6, &["m1"], &[4, 5]),
                version(5, &["z2"], &[6]),
                version(2, &["y"], &[9]),
                version(3, &["u@3", "u"], &[9]),
                version(4, &["z@4", "z"], &[7]),
                version(5, &["u@5", "u"], &[9]),
                version(3, &["z"], &[10]),
                version(1, &["v1"], &[]),
                version(2, &["u"], &[9]),
            ],
        };
        assert_eq!(base(&graph, &[0, 1], 4), Base::Found(6));
    }

    /// A and B each merged X and Y, differently, then saved on: both share X and Y, neither above the other,
    /// and the base is their merge from O, their own base.
    #[test]
    fn sides_that_merged_apart_across_each_other_have_the_merge_of_what_they_share_as_base() {
        let graph = Graph {
            reached: vec![
                version(5, &["a"], &[2]),
                version(5, &["b"], &[3]),
                version(4, &["merged on a"], &[4, 5]),
                version(4, &["merged on b"], &[4, 5]),
                version(2, &["x"], &[6]),
                version(3, &["y"], &[6]),
                version(1, &["o"], &[]),
            ],
        };
        assert_eq!(
            base(&graph, &[0, 1], 5),
            Base::Merged {
                sides: vec![4, 5],
                base: Box::new(Base::Found(6))
            }
        );
        // Two merges of the same content at one number are one version: the base.
        let mut same = graph;
        same.reached[3].content = same.reached[2].content.clone();
        assert_eq!(base(&same, &[0, 1], 5), Base::Found(2));
    }

    /// Two sides apart since version 1: the base is version 1; with no version shared there is none, and a
    /// version shared whose content is gone is reported as such.
    #[test]
    fn the_base_is_the_newest_version_shared() {
        let mut graph = Graph {
            reached: vec![
                version(3, &["a3"], &[2]),
                version(2, &["b2"], &[3]),
                version(2, &["a2"], &[3]),
                version(1, &["v1"], &[]),
            ],
        };
        assert_eq!(base(&graph, &[0, 1], 2), Base::Found(3));
        graph.reached[3].content = None;
        assert_eq!(base(&graph, &[0, 1], 2), Base::WithoutContent(1));
        // B's version 2 not saved from version 1: both reach a version 2, of other contents.
        graph.reached[1].saved_from.clear();
        assert_eq!(base(&graph, &[0, 1], 2), Base::None { checked: vec![2] });
    }
}
