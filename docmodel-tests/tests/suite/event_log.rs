//! An event log (`EventLog`, the CouchDB guide's third design) on every store: events from two replicas
//! folded in one order, a compaction into a baseline that keeps its events until the replication horizon
//! has passed, and a compaction stopped at each of its store operations, which leaves the state as it was
//! and is finished by the next. The guide's scenario on two replicating servers is in
//! `replication::event_log`.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use docmodel::store::{MemoryStore, Store};
use docmodel::{EventLog, Fold, Timestamp};
use docmodel_tests::{FailingStore, Fresh, Operation, PauseStore, keys_under};
use serde::{Deserialize, Serialize};

/// The bookmarks: folders and links, each folder's entries in their order.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bookmarks {
    entries: Vec<Entry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    id: String,
    folder: Option<String>,
    name: String,
    url: Option<String>,
}

/// The guide's change records: "Bookmark added", "Bookmark changed", "Bookmark deleted".
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "snake_case")]
pub enum Change {
    /// Added to `folder`, just after the entry `after` (first where `None`, last where `after` is gone).
    Added {
        id: String,
        folder: Option<String>,
        after: Option<String>,
        name: String,
        url: Option<String>,
    },
    Changed {
        id: String,
        name: Option<String>,
        url: Option<String>,
    },
    Deleted {
        id: String,
    },
}

impl Fold for Bookmarks {
    const LOG: &'static str = "bookmarks";
    type Event = Change;

    fn apply(&mut self, change: &Change) {
        match change {
            Change::Added {
                id,
                folder,
                after,
                name,
                url,
            } => {
                let entry = Entry {
                    id: id.clone(),
                    folder: folder.clone(),
                    name: name.clone(),
                    url: url.clone(),
                };
                let at = match after {
                    None => self.entries.iter().position(|e| e.folder == *folder),
                    Some(after) => self
                        .entries
                        .iter()
                        .position(|e| e.id == *after)
                        .map(|at| at + 1),
                };
                let at = at.unwrap_or(self.entries.len());
                self.entries.insert(at, entry);
            }
            Change::Changed { id, name, url } => {
                if let Some(entry) = self.entries.iter_mut().find(|e| e.id == *id) {
                    if let Some(name) = name {
                        entry.name = name.clone();
                    }
                    if let Some(url) = url {
                        entry.url = Some(url.clone());
                    }
                }
            }
            Change::Deleted { id } => self
                .entries
                .retain(|e| e.id != *id && e.folder.as_deref() != Some(id)),
        }
    }
}

impl Bookmarks {
    /// The tree as the guide writes it, one line per entry, a folder's entries indented under it.
    pub fn tree(&self) -> Vec<String> {
        let mut lines = Vec::new();
        self.level(None, 0, &mut lines);
        lines
    }

    fn level(&self, folder: Option<&str>, depth: usize, lines: &mut Vec<String>) {
        for entry in self
            .entries
            .iter()
            .filter(|e| e.folder.as_deref() == folder)
        {
            let indent = "  ".repeat(depth);
            match &entry.url {
                Some(url) => lines.push(format!("{indent}{} {url}", entry.name)),
                None => {
                    lines.push(format!("{indent}{}/", entry.name));
                    self.level(Some(&entry.id), depth + 1, lines);
                }
            }
        }
    }
}

pub fn added(
    id: &str,
    folder: Option<&str>,
    after: Option<&str>,
    name: &str,
    url: Option<&str>,
) -> Change {
    Change::Added {
        id: id.into(),
        folder: folder.map(Into::into),
        after: after.map(Into::into),
        name: name.into(),
        url: url.map(Into::into),
    }
}

pub fn changed(id: &str, name: Option<&str>, url: Option<&str>) -> Change {
    Change::Changed {
        id: id.into(),
        name: name.map(Into::into),
        url: url.map(Into::into),
    }
}

/// The laptop's addition in the guide: Slashdot, just after Register.
pub fn slashdot() -> Change {
    added(
        "slashdot",
        Some("tech"),
        Some("register"),
        "Slashdot",
        Some("http://www.slashdot.new/"),
    )
}

/// The guide's bookmarks before either machine changes them.
pub fn the_guides_base() -> Vec<Change> {
    vec![
        added(
            "weather",
            None,
            None,
            "Weather",
            Some("http://www.bbc.co.uk/weather"),
        ),
        added(
            "news",
            None,
            Some("weather"),
            "News",
            Some("http://news.bbc.co.uk/"),
        ),
        added("tech", None, Some("news"), "Tech", None),
        added(
            "register",
            Some("tech"),
            None,
            "Register",
            Some("http://www.theregister.co.uk/"),
        ),
        added(
            "couchdb",
            Some("tech"),
            Some("register"),
            "CouchDB",
            Some("http://couchdb.apache.org/"),
        ),
    ]
}

pub const HOUR: i64 = 3_600_000;

/// A clock the test moves, in milliseconds.
#[derive(Clone)]
pub struct Clock(Arc<AtomicI64>);

impl Clock {
    pub fn at(millis: i64) -> Self {
        Clock(Arc::new(AtomicI64::new(millis)))
    }
    pub fn set(&self, millis: i64) {
        self.0.store(millis, Ordering::SeqCst);
    }

    /// The clock as an `EventLog` reads it.
    pub fn reader(&self) -> impl Fn() -> Timestamp + Send + Sync + 'static {
        let time = Arc::clone(&self.0);
        move || Timestamp::from_millis(time.load(Ordering::SeqCst))
    }
}

/// The log of `alice`'s bookmarks in `store`, written by `replica`, reading `clock`; every replica
/// synchronises at least hourly.
pub fn log<S: Store>(store: S, replica: &str, clock: &Clock) -> EventLog<Bookmarks, S> {
    EventLog::new(store, "alice", replica)
        .unwrap()
        .clock(clock.reader())
        .replication_horizon(Duration::from_secs(3600))
}

/// The guide's base written by the PC at 99:00, Slashdot added by the laptop at 100:10 and News renamed by
/// the PC at 100:20, into one store; and the fold of them all.
async fn the_guides_changes<S: Store>(
    pc: &EventLog<Bookmarks, S>,
    laptop: &EventLog<Bookmarks, S>,
    times: (&Clock, &Clock),
) -> Bookmarks {
    let mut every = Bookmarks::default();
    times.0.set(99 * HOUR);
    for change in the_guides_base() {
        pc.append(&change).await.unwrap();
        every.apply(&change);
    }
    times.1.set(100 * HOUR + 10 * 60_000);
    let slashdot = slashdot();
    laptop.append(&slashdot).await.unwrap();
    every.apply(&slashdot);
    times.0.set(100 * HOUR + 20 * 60_000);
    let news = changed("news", Some("BBC News"), None);
    pc.append(&news).await.unwrap();
    every.apply(&news);
    every
}

async fn a_log_folds_two_replicas_events_in_one_order_and_compacts<S: Fresh>() {
    let store = S::fresh().await;
    let (pc_time, laptop_time) = (Clock::at(0), Clock::at(0));
    let pc = log(&store, "pc1", &pc_time);
    let laptop = log(&store, "lap1", &laptop_time);
    let every = the_guides_changes(&pc, &laptop, (&pc_time, &laptop_time)).await;
    assert_eq!(
        every.tree(),
        [
            "Weather http://www.bbc.co.uk/weather",
            "BBC News http://news.bbc.co.uk/",
            "Tech/",
            "  Register http://www.theregister.co.uk/",
            "  Slashdot http://www.slashdot.new/",
            "  CouchDB http://couchdb.apache.org/",
        ]
    );
    for log in [&pc, &laptop] {
        let folded = log.state().await.unwrap();
        assert_eq!(
            (&folded.state, folded.applied, folded.horizon),
            (&every, 7, None)
        );
    }
    let base = |n: u64| format!("bookmarks::alice::e::{:016}::pc1", 356_400_000_000 + n);
    let mut keys: Vec<String> = (0..5).map(base).collect();
    keys.extend([
        "bookmarks::alice::e::0000360600000000::lap1".to_owned(),
        "bookmarks::alice::e::0000361200000000::pc1".to_owned(),
    ]);
    assert_eq!(keys_under(&store, "bookmarks::").await, keys);

    // At 101:00 the base folds into a baseline, and stays beside it for the hour.
    pc_time.set(101 * HOUR);
    let done = pc
        .compact(Timestamp::from_millis(100 * HOUR))
        .await
        .unwrap();
    let baseline = "bookmarks::alice::base::0000360000000000::pc1";
    assert_eq!(done.baseline.as_deref(), Some(baseline));
    assert_eq!((done.folded, done.removed), (5, 0));
    let folded = laptop.state().await.unwrap();
    assert_eq!((&folded.state, folded.applied), (&every, 2));
    assert_eq!(folded.horizon, Some(Timestamp::from_millis(100 * HOUR)));
    keys.insert(0, baseline.to_owned());
    assert_eq!(keys_under(&store, "bookmarks::").await, keys);

    // At 102:00 the laptop folds the rest; the baseline of 101:00 has had its hour, and its events go.
    laptop_time.set(102 * HOUR);
    let done = laptop
        .compact(Timestamp::from_millis(101 * HOUR))
        .await
        .unwrap();
    assert_eq!((done.folded, done.removed), (2, 5));
    let folded = pc.state().await.unwrap();
    assert_eq!((&folded.state, folded.applied), (&every, 0));
    assert_eq!(
        keys_under(&store, "bookmarks::").await,
        [
            baseline,
            "bookmarks::alice::base::0000363600000000::lap1",
            "bookmarks::alice::e::0000360600000000::lap1",
            "bookmarks::alice::e::0000361200000000::pc1",
        ]
    );
    // And at 103:00 only the newest baseline is left.
    pc_time.set(103 * HOUR);
    let done = pc
        .compact(Timestamp::from_millis(101 * HOUR))
        .await
        .unwrap();
    assert_eq!((done.baseline, done.folded, done.removed), (None, 0, 3));
    assert_eq!(
        keys_under(&store, "bookmarks::").await,
        ["bookmarks::alice::base::0000363600000000::lap1"]
    );
    assert_eq!(laptop.state().await.unwrap().state, every);
}

on_every_store!(sqlpp[a_log_folds_two_replicas_events_in_one_order_and_compacts]);

/// A compaction stopped at each of its store operations in turn: the state reads the same after each stop,
/// and the next compaction finishes it, leaving what a compaction never stopped leaves.
#[tokio::test]
async fn a_compaction_stopped_at_any_step_leaves_the_state_and_is_finished_by_the_next() {
    async fn run(stop_at: usize) -> (usize, Vec<String>, Bookmarks) {
        let store = FailingStore::new(MemoryStore::new());
        let (pc_time, laptop_time) = (Clock::at(0), Clock::at(0));
        let pc = log(&store, "pc1", &pc_time);
        let laptop = log(&store, "lap1", &laptop_time);
        let every = the_guides_changes(&pc, &laptop, (&pc_time, &laptop_time)).await;
        pc_time.set(101 * HOUR);
        pc.compact(Timestamp::from_millis(100 * HOUR))
            .await
            .unwrap();
        pc_time.set(102 * HOUR);
        store.fail_at(stop_at);
        let result = pc.compact(Timestamp::from_millis(101 * HOUR)).await;
        let ran = store.count();
        store.fail_at(0);
        let context = format!("stopped at operation {stop_at}: {result:?}");
        if stop_at > 0 && ran >= stop_at {
            assert!(result.is_err(), "{context}");
            let folded = pc.state().await.unwrap();
            assert_eq!(folded.state, every, "{context}");
            assert!(folded.late.is_empty(), "{context}");
            pc.compact(Timestamp::from_millis(101 * HOUR))
                .await
                .unwrap();
        } else {
            result.unwrap();
        }
        assert_eq!(pc.state().await.unwrap().state, every, "{context}");
        (ran, keys_under(&store, "bookmarks::").await, every)
    }
    let (operations, whole, _) = run(0).await;
    assert_eq!(
        whole,
        [
            "bookmarks::alice::base::0000360000000000::pc1",
            "bookmarks::alice::base::0000363600000000::pc1",
            "bookmarks::alice::e::0000360600000000::lap1",
            "bookmarks::alice::e::0000361200000000::pc1",
        ]
    );
    assert!(operations > 5, "{operations}");
    for stop_at in 1..=operations {
        let (_, keys, _) = run(stop_at).await;
        assert_eq!(keys, whole, "stopped at operation {stop_at}");
    }
}

/// A compaction elsewhere that removes the events a reader listed before it read them: the reader lists the
/// log again, and reads the state whole from the new baseline, rather than pass over what it could not read.
#[tokio::test]
async fn a_read_that_a_compaction_overtakes_lists_the_log_again() {
    let store = PauseStore::new(MemoryStore::new());
    let clock = Clock::at(10 * HOUR);
    let alone = |replica| {
        EventLog::<Bookmarks, _>::new(&store, "alice", replica)
            .unwrap()
            .clock(clock.reader())
            .replication_horizon(Duration::ZERO)
    };
    let (pc, reader) = (alone("pc1"), alone("pc2"));
    let mut every = Bookmarks::default();
    let mut first = None;
    for change in the_guides_base() {
        let key = pc.append(&change).await.unwrap();
        first.get_or_insert(key);
        every.apply(&change);
    }
    clock.set(11 * HOUR);
    let pause = store.pause(Operation::GetMany, &first.unwrap());
    let (read, compacted) = tokio::join!(reader.state(), async {
        pause.reached.notified().await;
        let done = pc.compact(Timestamp::from_millis(11 * HOUR)).await.unwrap();
        pause.release.notify_one();
        done
    });
    assert_eq!((compacted.folded, compacted.removed), (5, 5));
    let read = read.unwrap();
    assert_eq!(read.state, every);
    assert_eq!(
        (read.applied, read.horizon),
        (0, Some(Timestamp::from_millis(11 * HOUR)))
    );
}
