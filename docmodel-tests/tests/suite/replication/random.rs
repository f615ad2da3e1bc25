//! Random saves on two replicating pouchdb-servers, with documents replicated ahead of their revision copies,
//! in random directions and at random moments, and merges whenever a side finds a conflict: at the
//! end both sides hold one document, and it holds every edit either side made (an oracle keeps them). The
//! edits never overlap (each side adds, changes and removes items of its own, and counts its own saves, merged
//! by `max`), so a merge has nothing to report: an edit missing from the result is one a merge dropped, which
//! is what a base taken from one side alone does (an item the other side added since looks removed), and an
//! item removed that comes back is what a base older than the newest shared version does (two sides that
//! merged apart across each other share two newest versions, whose merge is the base).
//!
//! Then the same with copies replicated ahead of their documents too: a save writes its own copy over the
//! other side's copy of the same number, and the copy it writes carries on what the other recorded.

use std::collections::BTreeMap;

use docmodel::store::CouchDb;
use docmodel::{DocModel, Error, Repo, Resolve, RetryPolicy, Timestamp};
use docmodel_tests::couchdb::Replicated;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "board", schema = "1.0", key = "board::{id}", revisions = 100)]
#[docmodel(envelope(layout = "plain"))]
struct Board {
    id: u64,
    /// Every item either side added, by a name unique to the edit.
    items: BTreeMap<String, u64>,
    /// How many times side A saved; only A changes it. A count only grows: two sides that merged the same
    /// revisions apart, then went on, may each hold a later count than the version both hold (a criss-cross
    /// merge), which `max` decides.
    #[docmodel(merge = "max")]
    a_saves: u64,
    /// The same for side B.
    #[docmodel(merge = "max")]
    b_saves: u64,
}

/// splitmix64: a seeded stream of numbers, so that a failing run is the same run again.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A save's edit: an item added, or one of the side's own changed or removed.
#[derive(Debug)]
enum Edit {
    Add(String, u64),
    Change(String, u64),
    Remove(String),
}

/// What each side did, and what the document must hold in the end.
#[derive(Default)]
struct Oracle {
    items: BTreeMap<String, u64>,
    saves: [u64; 2],
}

/// A side's repository at the run's clock (each step one second on).
fn boards(store: &CouchDb, side: usize, step: u64) -> Repo<Board, CouchDb> {
    Repo::<Board>::new(store.clone())
        .actor(["a", "b"][side])
        .clock(move || Timestamp::from_millis(1_000_000 + i64::try_from(step).unwrap() * 1_000))
        .retry(RetryPolicy::default().with_attempts(1))
}

/// Merges the document's conflicts on `store`, as often as it takes; `false` when the history that shows a
/// base has not arrived yet (the copies are still to replicate). Any other failure fails the test.
async fn settle(store: &CouchDb, side: usize, step: u64, log: &mut Vec<String>) -> bool {
    let repo = boards(store, side, step);
    let key = Board::key(1);
    for _ in 0..4 {
        let doc = repo.get(&key).await.unwrap().unwrap();
        if !doc.has_conflicts() {
            return true;
        }
        match repo.resolve(&key, &Resolve::merge()).await {
            Ok(_) => log.push(format!("{step}: merged on {side}")),
            Err(err @ Error::MergeHistoryMissing { .. }) => {
                log.push(format!("{step}: not yet on {side}: {err}"));
                return false;
            }
            Err(err) => panic!("step {step}, side {side}: {err}\n{}", log.join("\n")),
        }
    }
    panic!(
        "step {step}, side {side}: conflicts after 4 merges\n{}",
        log.join("\n")
    );
}

async fn run(seed: u64, steps: u64, copies_ahead: bool) {
    let servers = Replicated::start().await;
    let sides = [&servers.a, &servers.b];
    let mut random = Random(seed);
    let mut oracle = Oracle::default();
    let mut log = Vec::new();
    boards(sides[0], 0, 0)
        .insert(Board {
            id: 1,
            items: BTreeMap::new(),
            a_saves: 0,
            b_saves: 0,
        })
        .await
        .unwrap();
    servers.replicate_a_to_b().await;
    let documents = "doc._id.indexOf('::v::') < 0";
    for step in 1..=steps {
        let side = usize::from(random.below(2) == 1);
        match random.below(10) {
            // A save on one side (after merging what it holds, when it can).
            0..=4 => {
                if !settle(sides[side], side, step, &mut log).await {
                    continue;
                }
                // The side adds an item, or changes or removes one of its own (only the side that added an
                // item edits it, so no two sides change one thing).
                let own = ["a", "b"][side];
                let mine: Vec<String> = oracle
                    .items
                    .keys()
                    .filter(|item| item.starts_with(own))
                    .cloned()
                    .collect();
                let picked = match mine.len() {
                    0 => None,
                    len => {
                        let at = random.below(u64::try_from(len).unwrap());
                        Some(mine[usize::try_from(at).unwrap()].clone())
                    }
                };
                let value = random.below(1_000);
                let edit = match (random.below(4), picked) {
                    (0, Some(item)) => Edit::Remove(item),
                    (1, Some(item)) => Edit::Change(item, value),
                    _ => Edit::Add(format!("{own}{step}"), value),
                };
                match &edit {
                    Edit::Remove(item) => oracle.items.remove(item),
                    Edit::Change(item, value) | Edit::Add(item, value) => {
                        oracle.items.insert(item.clone(), *value)
                    }
                };
                oracle.saves[side] += 1;
                let count = oracle.saves[side];
                boards(sides[side], side, step)
                    .update(&Board::key(1), |board| {
                        // An item of its own the side holds no longer was dropped by a merge.
                        if let Edit::Remove(item) | Edit::Change(item, _) = &edit {
                            assert!(
                                board.items.contains_key(item),
                                "step {step}: {item} is gone from side {side}\n{}",
                                log.join("\n")
                            );
                        }
                        match &edit {
                            Edit::Remove(item) => board.items.remove(item),
                            Edit::Change(item, value) | Edit::Add(item, value) => {
                                board.items.insert(item.clone(), *value)
                            }
                        };
                        match side {
                            0 => board.a_saves = count,
                            _ => board.b_saves = count,
                        }
                    })
                    .await
                    .unwrap_or_else(|err| panic!("step {step}: {err}\n{}", log.join("\n")));
                log.push(format!("{step}: {edit:?} on {side}"));
            }
            // The documents alone, one way: their copies follow later, with everything.
            5 | 6 => {
                servers.replicate_where(side == 0, documents).await;
                log.push(format!("{step}: documents from {side}"));
            }
            // The copies alone, one way, ahead of their documents; or, without that, the documents.
            7 if copies_ahead => {
                servers
                    .replicate_where(side == 0, "doc._id.indexOf('::v::') >= 0")
                    .await;
                log.push(format!("{step}: copies from {side}"));
            }
            7 => {
                servers.replicate_where(side == 0, documents).await;
                log.push(format!("{step}: documents from {side}"));
            }
            // Everything, one way.
            8 => {
                match side {
                    0 => servers.replicate_a_to_b().await,
                    _ => servers.replicate_b_to_a().await,
                }
                log.push(format!("{step}: everything from {side}"));
            }
            // A merge where a conflict is.
            _ => {
                settle(sides[side], side, step, &mut log).await;
            }
        }
    }
    // Both ways until both sides hold one document, merged.
    for round in 0..4 {
        servers.replicate_a_to_b().await;
        servers.replicate_b_to_a().await;
        let settled = settle(sides[0], 0, steps + 1 + round, &mut log).await;
        servers.replicate_a_to_b().await;
        servers.replicate_b_to_a().await;
        if settled && settle(sides[1], 1, steps + 1 + round, &mut log).await {
            break;
        }
    }
    let mut ends = Vec::new();
    for (side, store) in sides.iter().enumerate() {
        let doc = boards(store, side, 0)
            .get(&Board::key(1))
            .await
            .unwrap()
            .unwrap();
        assert!(
            !doc.has_conflicts(),
            "seed {seed} side {side}\n{}",
            log.join("\n")
        );
        ends.push((doc.items.clone(), doc.a_saves, doc.b_saves));
    }
    assert_eq!(ends[0], ends[1], "both sides end equal\n{}", log.join("\n"));
    assert_eq!(
        ends[0],
        (oracle.items, oracle.saves[0], oracle.saves[1]),
        "seed {seed}: every edit of either side is in the result\n{}",
        log.join("\n")
    );
}

#[tokio::test]
async fn random_saves_replicated_apart_merge_to_every_edit_on_both_sides() {
    for seed in 1..=3 {
        run(seed, 40, false).await;
    }
}

/// Copies replicated ahead of their documents as well: a save from a version whose copy the other side's
/// replication brought first writes its own copy over it, inheriting what it recorded, and the other side's
/// history goes on through it (with seed 2, before that, a merge failed with `MergeHistoryMissing` for good).
#[tokio::test]
async fn copies_replicated_ahead_of_their_documents_converge() {
    for seed in 1..=4 {
        run(seed, 40, true).await;
    }
}

/// The same, on 40 more seeds of 60 steps each (about two minutes): in `.ci/run`. One seed (with items only
/// added, before changes and removals were in the run) found a merge that took a copy revision it renumbered
/// for one it had merged, and so a version only the other side had, as the base: an item that side added
/// was dropped.
#[tokio::test]
#[ignore = "in .ci/run: 40 seeds of 60 steps, about two minutes"]
async fn copies_replicated_ahead_converge_on_many_seeds() {
    for seed in 5..=44 {
        run(seed, 60, true).await;
    }
}
