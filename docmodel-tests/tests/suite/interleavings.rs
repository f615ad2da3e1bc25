//! Two writers' store operations in every order (not a sample): after each order, at most one document
//! holds a lookup value, every value a document holds has its lookup naming it, no revision copy is left
//! that the document does not list, and the writers' results agree with what is stored.

use docmodel_tests::keys_under;
use std::cell::Cell;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use docmodel::store::{MemoryStore, Redb, Store};
use docmodel::{DocModel, Error, ErrorClass, Repo, RetryPolicy};
use docmodel_tests::schedule::{Gate, GatedStore, Writer, block_on, cancel_after, every_order};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "member", schema = "1.0", key = "member::{name}", revisions = 2)]
#[docmodel(lookup = "mref::{no}")]
struct Member {
    #[docmodel(get)]
    name: String,
    #[docmodel(get, set)]
    #[docmodel(allow(reserved_word))]
    no: u64,
}

/// Member's `revisions`.
const KEEP: u64 = 2;

fn member(name: &str, no: u64) -> Member {
    Member {
        name: name.into(),
        no,
    }
}

fn key(name: &str) -> docmodel::Key<Member> {
    Member::key(name).unwrap()
}

thread_local! {
    /// Whether this thread's writers pass on the store's atomic batches: a save is then one batch (the copy,
    /// the replace and, without a lookup to move, the prune), one operation at the gate.
    static ATOMIC: Cell<bool> = const { Cell::new(false) };
}

/// Writer `writer`'s repository; retries without pauses, so that only the order of operations varies.
fn repo<S: Store>(store: &Arc<S>, gate: &Arc<Gate>, writer: usize) -> Repo<Member, GatedStore<S>> {
    let (store, gate) = (Arc::clone(store), Arc::clone(gate));
    let gated = if ATOMIC.get() {
        GatedStore::atomic(store, gate, writer)
    } else {
        GatedStore::new(store, gate, writer)
    };
    Repo::<Member>::new(gated)
        .retry(RetryPolicy::default().with_delays(Duration::ZERO, Duration::ZERO))
}

/// The invariants every order must keep.
async fn invariants<S: Store>(store: &S, names: &[&str]) {
    invariants_after(store, names, false).await;
}

/// The invariants, where `crashed` allows the copies a crash leaves below the window (never listed,
/// removed by `Repo::sweep`).
async fn invariants_after<S: Store>(store: &S, names: &[&str], crashed: bool) {
    let members = Repo::<Member>::new(store);
    let mut held = Vec::new();
    for name in names {
        let Some(doc) = members.get(&key(name)).await.unwrap() else {
            let copies = keys_under(&store, &format!("member::{name}::v::")).await;
            if !crashed {
                assert_eq!(copies, Vec::<String>::new(), "copies of a removed document");
            }
            continue;
        };
        // The copies stored are exactly the versions the document lists.
        let listed: Vec<String> = members
            .revisions(&key(name))
            .await
            .unwrap()
            .iter()
            .map(|copy| format!("member::{name}::v::{}", copy.envelope().ver))
            .rev()
            .collect();
        // Beside them, only the copy of the version the document is at, holding that very document: left
        // by a save whose write was undone, and used by the next save from this version.
        let current = format!("member::{name}::v::{}", doc.envelope().ver);
        let mut stored = keys_under(&store, &format!("member::{name}::v::")).await;
        if let Some(at) = stored.iter().position(|copy| *copy == current) {
            let copy = store.get(&current).await.unwrap().unwrap();
            let document = store.get(key(name).as_str()).await.unwrap().unwrap();
            let mut copy = json(&copy.bytes);
            let marker = copy.as_object_mut().unwrap().remove("_copyOf");
            assert_eq!(
                marker,
                Some(key(name).as_str().into()),
                "{current} names its document"
            );
            // It records the version the undone save wrote, which no document holds.
            let next = copy.as_object_mut().unwrap().remove("_copyNext");
            assert!(
                next.as_ref().and_then(|next| next.as_array()).is_some_and(
                    |next| next.len() == 1 && next[0].as_str().is_some_and(|d| d.len() == 32)
                ),
                "{current} records what was saved from it: {next:?}"
            );
            assert_eq!(copy, json(&document.bytes), "{current} is not the document");
            stored.remove(at);
        }
        let ver = doc.envelope().ver;
        if crashed {
            stored.retain(|copy| {
                let version: u64 = copy.rsplit("::").next().unwrap().parse().unwrap();
                version >= ver.saturating_sub(KEEP)
            });
        }
        // And the window is whole: no committed version's copy is lost.
        let window: Vec<String> = (ver.saturating_sub(KEEP).max(1)..ver)
            .map(|version| format!("member::{name}::v::{version}"))
            .collect();
        assert_eq!(listed, window, "the window of {name} at version {ver}");
        assert_eq!(
            stored,
            listed,
            "copies of {name} at version {}",
            doc.envelope().ver
        );
        held.push((doc.no(), name.to_string()));
    }
    for (no, name) in &held {
        let holders: Vec<_> = held.iter().filter(|(other, _)| other == no).collect();
        assert_eq!(holders.len(), 1, "value {no} held by {holders:?}");
        let found = members
            .get_by_lookup(&format!("mref::{no}"))
            .await
            .unwrap()
            .map(|doc| doc.name().to_owned());
        assert_eq!(found.as_deref(), Some(name.as_str()), "lookup mref::{no}");
    }
}

fn json(bytes: &[u8]) -> serde_json::Value {
    serde_json::from_slice(bytes).unwrap()
}

/// A fresh store of kind `S` for each order.
trait Fresh: Store + Sized + 'static {
    fn fresh() -> Self;
}

impl Fresh for MemoryStore {
    fn fresh() -> Self {
        MemoryStore::new()
    }
}

impl Fresh for Redb {
    fn fresh() -> Self {
        Redb::in_memory().unwrap()
    }
}

fn seeded<S: Fresh>(members: &[(&str, u64)]) -> Arc<S> {
    let store = Arc::new(S::fresh());
    block_on(async {
        for (name, no) in members {
            Repo::<Member>::new(&*store)
                .insert(member(name, *no))
                .await
                .unwrap();
        }
    });
    store
}

/// One writer's operation.
type Op = std::pin::Pin<Box<dyn Future<Output = Result<(), Error>> + Send>>;

/// What a writer returned: `None` for Ok, else the error's class and text.
type Outcome = Option<(ErrorClass, String)>;

/// Runs two writers over a store seeded with `members` in every order, checks the invariants and then
/// `expect` on what the writers returned; returns the number of orders.
fn scenario<S: Fresh>(
    members: &'static [(&'static str, u64)],
    names: &'static [&'static str],
    writers: impl Fn(&Arc<S>, &Arc<Gate>) -> [Op; 2],
    expect: impl Fn(&[Outcome; 2]) + Clone + Send + 'static,
) -> usize {
    every_order(|gate| {
        let store = seeded::<S>(members);
        let outcomes: Arc<Mutex<[Outcome; 2]>> = Arc::default();
        let mut writer = 0;
        let ran = writers(&store, &gate).map(|op| {
            let outcomes = Arc::clone(&outcomes);
            let at = writer;
            writer += 1;
            Box::pin(async move {
                let result = op.await;
                outcomes.lock().unwrap()[at] =
                    result.err().map(|err| (err.class(), err.to_string()));
            }) as Writer
        });
        let expect = expect.clone();
        let check = Box::pin(async move {
            invariants(&*store, names).await;
            let outcomes = outcomes.lock().unwrap().clone();
            expect(&outcomes);
        }) as Writer;
        (ran, check)
    })
}

/// Exactly one writer succeeds, and the other fails with `loser`.
fn one_wins(outcomes: &[Outcome; 2], loser: ErrorClass) {
    let classes = outcomes.clone().map(|outcome| class(&outcome));
    assert!(
        classes == [None, Some(loser)] || classes == [Some(loser), None],
        "{outcomes:?}"
    );
}

fn class(outcome: &Outcome) -> Option<ErrorClass> {
    outcome.as_ref().map(|(class, _)| *class)
}

fn update<S: Store + 'static>(
    repo: Repo<Member, GatedStore<S>>,
    name: &'static str,
    no: u64,
) -> Op {
    Box::pin(async move { repo.update(&key(name), |m| m.set_no(no)).await.map(|_| ()) })
}

fn insert<S: Store + 'static>(
    repo: Repo<Member, GatedStore<S>>,
    name: &'static str,
    no: u64,
) -> Op {
    Box::pin(async move { repo.insert(member(name, no)).await.map(|_| ()) })
}

fn two_inserts_of_one_value<S: Fresh>() -> usize {
    scenario::<S>(
        &[],
        &["a", "b"],
        |store, gate| {
            [
                insert(repo(store, gate, 0), "a", 7),
                insert(repo(store, gate, 1), "b", 7),
            ]
        },
        |outcomes| one_wins(outcomes, ErrorClass::AlreadyExists),
    )
}

fn two_moves_to_one_value<S: Fresh>() -> usize {
    scenario::<S>(
        &[("a", 1), ("b", 3)],
        &["a", "b"],
        |store, gate| {
            [
                update(repo(store, gate, 0), "a", 2),
                update(repo(store, gate, 1), "b", 2),
            ]
        },
        |outcomes| one_wins(outcomes, ErrorClass::AlreadyExists),
    )
}

fn a_move_and_its_stale_duplicate<S: Fresh>() -> usize {
    scenario::<S>(
        &[("a", 1)],
        &["a"],
        |store, gate| {
            let read = || {
                let mut doc = block_on(Repo::<Member>::new(&**store).get(&key("a")))
                    .unwrap()
                    .unwrap();
                doc.set_no(2u64);
                doc
            };
            let save = |writer: usize, mut doc: docmodel::Doc<Member>| -> Op {
                let repo = repo(store, gate, writer);
                Box::pin(async move { repo.save(&mut doc).await })
            };
            [save(0, read()), save(1, read())]
        },
        |outcomes| one_wins(outcomes, ErrorClass::Conflict),
    )
}

fn a_move_and_a_remove<S: Fresh>() -> usize {
    scenario::<S>(
        &[("a", 1)],
        &["a"],
        |store, gate| {
            let removing = repo(store, gate, 1);
            [
                update(repo(store, gate, 0), "a", 2),
                Box::pin(async move { removing.remove(&key("a")).await }),
            ]
        },
        |outcomes| {
            // The remove may come first (the update is NotFound) or after (both Ok); it may also find the
            // document changed under it (Conflict), and then the update stands.
            let classes = outcomes.clone().map(|outcome| class(&outcome));
            assert!(
                matches!(
                    classes,
                    [None, None]
                        | [Some(ErrorClass::NotFound), None]
                        | [None, Some(ErrorClass::Conflict)]
                ),
                "{outcomes:?}"
            );
        },
    )
}

fn two_updates_to_one_value<S: Fresh>() -> usize {
    scenario::<S>(
        &[("a", 1)],
        &["a"],
        |store, gate| {
            [
                update(repo(store, gate, 0), "a", 42),
                update(repo(store, gate, 1), "a", 42),
            ]
        },
        |outcomes| assert_eq!(outcomes, &[None, None]),
    )
}

fn an_insert_repeated<S: Fresh>() -> usize {
    scenario::<S>(
        &[],
        &["a"],
        |store, gate| {
            [
                insert(repo(store, gate, 0), "a", 5),
                insert(repo(store, gate, 1), "a", 5),
            ]
        },
        |outcomes| one_wins(outcomes, ErrorClass::AlreadyExists),
    )
}

fn a_remove_and_an_insert_again<S: Fresh>() -> usize {
    scenario::<S>(
        &[("a", 1)],
        &["a"],
        |store, gate| {
            let removing = repo(store, gate, 0);
            [
                Box::pin(async move { removing.remove(&key("a")).await }),
                insert(repo(store, gate, 1), "a", 1),
            ]
        },
        |outcomes| {
            // The insert finds the document (AlreadyExists) or comes after the remove; the remove may find
            // the new document (Ok: it removes what it read as a, or Conflict/NotFound).
            assert!(
                !matches!(class(&outcomes[1]), Some(class) if class != ErrorClass::AlreadyExists),
                "{outcomes:?}"
            );
        },
    )
}

/// The number of orders, checked to show that the writers met, and printed for the record.
fn orders(store: &str, scenario: &str, count: usize) {
    println!("{store}: {scenario}: {count} orders");
    assert!(count > 1, "{scenario}: the writers never met");
}

macro_rules! every_order_of {
    ($($(#[heavy($($heavy:tt)*)])? $scenario:ident),* $(,)?) => {
        mod memory {
            $(
                #[test]
                $(#[$($heavy)*])?
                fn $scenario() {
                    super::orders("MemoryStore", stringify!($scenario), super::$scenario::<super::MemoryStore>());
                }
            )*
        }
        mod redb {
            $(
                #[test]
                $(#[$($heavy)*])?
                fn $scenario() {
                    super::orders("Redb", stringify!($scenario), super::$scenario::<super::Redb>());
                }
            )*
        }
        /// The same schedules with each save one atomic batch.
        mod memory_atomic {
            $(
                #[test]
                $(#[$($heavy)*])?
                fn $scenario() {
                    super::ATOMIC.set(true);
                    super::orders("MemoryStore, atomic", stringify!($scenario), super::$scenario::<super::MemoryStore>());
                }
            )*
        }
        mod redb_atomic {
            $(
                #[test]
                $(#[$($heavy)*])?
                fn $scenario() {
                    super::ATOMIC.set(true);
                    super::orders("Redb, atomic", stringify!($scenario), super::$scenario::<super::Redb>());
                }
            )*
        }
    };
}

// The two largest schedules, some 60,000 orders each on every store and over a minute of CPU together, are
// left to `.ci/run` (`cargo test -p docmodel-tests --test suite interleavings:: -- --ignored`); the README's
// test command runs the other five on every store, and `cancellation` below.
every_order_of!(
    two_inserts_of_one_value,
    #[heavy(
        ignore = "run by .ci/run: some 60,000 orders (a minute of CPU for the two largest schedules); \
                  `cargo test -p docmodel-tests --test suite interleavings:: -- --ignored`"
    )]
    two_moves_to_one_value,
    a_move_and_its_stale_duplicate,
    a_move_and_a_remove,
    #[heavy(
        ignore = "run by .ci/run: some 60,000 orders (a minute of CPU for the two largest schedules); \
                  `cargo test -p docmodel-tests --test suite interleavings:: -- --ignored`"
    )]
    two_updates_to_one_value,
    an_insert_repeated,
    a_remove_and_an_insert_again,
);

/// Runs `op` over a fresh store set up by `setup`, dropped after each number of store operations in turn
/// (as a cancelled future is dropped at an await point), checks the invariants after the drop, then runs
/// `op` again to its end and checks `done`. Returns the number of points it was dropped at.
fn cancelled_at_every_await<S: Fresh>(
    setup: impl Fn(&S),
    op: impl Fn(Repo<Member, GatedStore<S>>) -> Op,
    done: impl Fn(&S, Result<(), Error>),
) -> usize {
    let mut points = 0;
    loop {
        let store = Arc::new(S::fresh());
        setup(&store);
        let gate = Arc::new(Gate::default());
        let run = op(repo(&store, &gate, 0));
        let finished = cancel_after(Box::pin(async move { drop(run.await) }), &gate, points);
        block_on(invariants_after(&*store, &["a", "b"], true));
        if finished {
            return points;
        }
        points += 1;
        // A retry completes what the dropped one began.
        let gate = Arc::new(Gate::default());
        let result = cancel_after_none(op(repo(&store, &gate, 0)), &gate);
        block_on(invariants_after(&*store, &["a", "b"], true));
        done(&store, result);
    }
}

/// Runs a gated operation to its end.
fn cancel_after_none(op: Op, gate: &Gate) -> Result<(), Error> {
    let result = Arc::new(Mutex::new(None));
    let out = Arc::clone(&result);
    let finished = cancel_after(
        Box::pin(async move { *out.lock().unwrap() = Some(op.await) }),
        gate,
        usize::MAX,
    );
    assert!(finished);
    result.lock().unwrap().take().unwrap()
}

fn set_up<S: Store>(store: &S, versions: u64) {
    block_on(async {
        let members = Repo::<Member>::new(store);
        members.insert(member("a", 1)).await.unwrap();
        for no in 2..=versions {
            members
                .update(&key("a"), |m| m.set_no(no + 10))
                .await
                .unwrap();
        }
    });
}

fn holds<S: Store>(store: &S, name: &str, no: u64) {
    let doc = block_on(Repo::<Member>::new(store).get(&key(name)))
        .unwrap()
        .unwrap();
    assert_eq!(doc.no(), no);
}

fn cancellation<S: Fresh>(store: &str) {
    let points = [
        (
            "insert with a lookup",
            cancelled_at_every_await::<S>(
                |store| set_up(store, 1),
                |repo| insert(repo, "b", 7),
                |store, result| {
                    assert!(
                        matches!(result, Ok(()) | Err(Error::AlreadyExists { .. })),
                        "{result:?}"
                    );
                    holds(store, "b", 7);
                },
            ),
        ),
        (
            "a lookup move",
            cancelled_at_every_await::<S>(
                |store| set_up(store, 1),
                |repo| update(repo, "a", 2),
                |store, result| {
                    result.unwrap();
                    holds(store, "a", 2);
                },
            ),
        ),
        (
            "a move with the prune",
            cancelled_at_every_await::<S>(
                |store| set_up(store, 4),
                |repo| update(repo, "a", 2),
                |store, result| {
                    result.unwrap();
                    holds(store, "a", 2);
                },
            ),
        ),
        (
            "a remove",
            cancelled_at_every_await::<S>(
                |store| set_up(store, 4),
                |repo| Box::pin(async move { repo.remove(&key("a")).await }),
                |store, result| {
                    assert!(
                        matches!(result, Ok(()) | Err(Error::NotFound { .. })),
                        "{result:?}"
                    );
                    assert!(block_on(store.get("member::a")).unwrap().is_none());
                    // The retry removes what the dropped remove left, with no sweep.
                    assert_eq!(
                        block_on(keys_under(&store, "member::a")),
                        Vec::<String>::new()
                    );
                },
            ),
        ),
        (
            "a restore",
            cancelled_at_every_await::<S>(
                |store| set_up(store, 3),
                |repo| Box::pin(async move { repo.restore(&key("a"), 2).await.map(|_| ()) }),
                |store, result| {
                    result.unwrap();
                    holds(store, "a", 12);
                },
            ),
        ),
    ];
    for (operation, count) in points {
        println!("{store}: {operation}: dropped at {count} await points");
        assert!(count > 2, "{operation}");
    }
}

#[test]
fn a_dropped_operation_leaves_everything_consistent_on_memory() {
    cancellation::<MemoryStore>("MemoryStore");
}

#[test]
fn a_dropped_operation_leaves_everything_consistent_on_redb() {
    cancellation::<Redb>("Redb");
}

#[test]
fn a_dropped_atomic_operation_leaves_everything_consistent_on_memory() {
    ATOMIC.set(true);
    cancellation::<MemoryStore>("MemoryStore, atomic");
}

#[test]
fn a_dropped_atomic_operation_leaves_everything_consistent_on_redb() {
    ATOMIC.set(true);
    cancellation::<Redb>("Redb, atomic");
}
