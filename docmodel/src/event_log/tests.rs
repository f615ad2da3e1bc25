use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use proptest::prelude::*;
use serde::{Deserialize, Serialize};

use crate::store::{MemoryStore, Store};
use crate::{Error, EventLog, Fold, Timestamp};

/// The events in the order they were applied: a fold that any other order changes.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
struct Trail(Vec<u32>);

impl Fold for Trail {
    const LOG: &'static str = "trail";
    type Event = u32;
    fn apply(&mut self, event: &u32) {
        self.0.push(*event);
    }
}

const HOUR: i64 = 3_600_000;

/// A clock the test moves.
#[derive(Clone)]
struct Clock(Arc<AtomicI64>);

impl Clock {
    fn at(millis: i64) -> Self {
        Clock(Arc::new(AtomicI64::new(millis)))
    }
    fn set(&self, millis: i64) {
        self.0.store(millis, Ordering::SeqCst);
    }
    fn reader(&self) -> impl Fn() -> Timestamp + Send + Sync + 'static {
        let clock = Arc::clone(&self.0);
        move || Timestamp::from_millis(clock.load(Ordering::SeqCst))
    }
}

fn log<'s>(
    store: &'s MemoryStore,
    replica: &str,
    clock: &Clock,
    within: Option<Duration>,
) -> EventLog<Trail, &'s MemoryStore> {
    let log = EventLog::<Trail, _>::new(store, "s", replica)
        .unwrap()
        .clock(clock.reader());
    match within {
        Some(within) => log.replication_horizon(within),
        None => log,
    }
}

#[test]
fn an_event_is_a_new_document_at_its_stamp_and_replica() {
    pollster::block_on(async {
        let store = MemoryStore::new();
        let clock = Clock::at(1_700_000_000_123);
        let log = log(&store, "pc1", &clock, None);
        let first = log.append(&7).await.unwrap();
        let second = log.append(&8).await.unwrap();
        // The clock has not moved: the second stamp is one microsecond on.
        assert_eq!(first, "trail::s::e::1700000000123000::pc1");
        assert_eq!(second, "trail::s::e::1700000000123001::pc1");
        assert_eq!(store.keys(), [first.clone(), second]);
        let stored = store.get(&first).await.unwrap().unwrap();
        assert_eq!(
            std::str::from_utf8(&stored.bytes).unwrap(),
            r#"{"log":"trail","stamp":1700000000123000,"replica":"pc1","event":7}"#
        );
        assert_eq!(log.prefix(), "trail::s::");
    });
}

#[test]
fn events_apply_by_stamp_then_by_replica_whatever_order_they_were_written_in() {
    pollster::block_on(async {
        let store = MemoryStore::new();
        let (early, late) = (Clock::at(5 * HOUR), Clock::at(9 * HOUR));
        let a = log(&store, "a", &late, None);
        let b = log(&store, "b", &early, None);
        let c = log(&store, "c", &late, None);
        c.append(&3).await.unwrap();
        a.append(&2).await.unwrap();
        b.append(&1).await.unwrap();
        // Each reads the same: b's event is the oldest; a's and c's share a stamp, and `a` sorts first.
        for reader in [&a, &b, &c] {
            assert_eq!(reader.state().await.unwrap().state, Trail(vec![1, 2, 3]));
        }
    });
}

#[test]
fn a_stream_or_a_tag_that_cannot_be_a_key_part_is_refused() {
    let store = MemoryStore::new();
    let err = EventLog::<Trail, _>::new(&store, "a::b", "pc1")
        .err()
        .unwrap();
    assert_eq!(
        err.to_string(),
        "invalid key \"a::b\" for type `trail`: an event log's stream must not be empty or hold a character \
         of its delimiter `::`"
    );
    // Not even one: the keys of `a:` would lie under the prefix of `a`.
    assert!(matches!(
        EventLog::<Trail, _>::new(&store, "a:", "pc1"),
        Err(Error::InvalidKey { key, .. }) if key == "a:"
    ));
    let err = EventLog::<Trail, _>::new(&store, "s", "PC").err().unwrap();
    assert_eq!(
        err.to_string(),
        "invalid key \"PC\" for type `trail`: `PC` is not a replica's tag: one to 16 digits and lowercase \
         letters, not ending with `0`"
    );
}

#[test]
fn a_horizon_past_the_replication_horizon_or_with_none_declared_is_refused_and_nothing_changes() {
    pollster::block_on(async {
        let store = MemoryStore::new();
        let clock = Clock::at(100 * HOUR);
        let undeclared = log(&store, "pc1", &clock, None);
        undeclared.append(&1).await.unwrap();
        clock.set(200 * HOUR);
        let before = store.keys();
        let err = undeclared
            .compact(Timestamp::from_millis(150 * HOUR))
            .await
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "the event log `trail::s` cannot be compacted to 1970-01-07T06:00:00.000Z: the log declares no \
             replication horizon (`EventLog::replication_horizon`), so it cannot know which events every \
             replica holds; nothing was changed"
        );
        let day = log(&store, "pc1", &clock, Some(Duration::from_secs(24 * 3600)));
        let err = day
            .compact(Timestamp::from_millis(177 * HOUR))
            .await
            .unwrap_err();
        assert!(
            matches!(err, Error::CompactionHorizon { limit: Some(limit), .. } if limit.as_millis() == 176 * HOUR)
        );
        assert_eq!(
            err.to_string(),
            "the event log `trail::s` cannot be compacted to 1970-01-08T09:00:00.000Z: another replica may \
             not have synchronised the events from before it yet (the log's replication horizon allows \
             1970-01-08T08:00:00.000Z at the newest); nothing was changed"
        );
        assert_eq!(store.keys(), before);
        // At the limit it is taken.
        let done = day
            .compact(Timestamp::from_millis(176 * HOUR))
            .await
            .unwrap();
        assert_eq!(done.folded, 1);
    });
}

#[test]
fn events_the_baseline_did_not_fold_are_applied_and_reported_late_until_the_next_compaction() {
    pollster::block_on(async {
        let store = MemoryStore::new();
        let clock = Clock::at(10 * HOUR);
        let pc = log(&store, "pc1", &clock, Some(Duration::ZERO));
        pc.append(&1).await.unwrap();
        clock.set(20 * HOUR);
        pc.append(&3).await.unwrap();
        let done = pc.compact(Timestamp::from_millis(15 * HOUR)).await.unwrap();
        assert_eq!(
            done.baseline.as_deref(),
            Some("trail::s::base::0000054000000000::pc1")
        );
        assert_eq!((done.folded, done.removed), (1, 1));

        // A replica that stayed away longer than declared brings an event from before the horizon.
        let away = log(&store, "lap1", &Clock::at(12 * HOUR), None);
        let key = away.append(&2).await.unwrap();
        let folded = pc.state().await.unwrap();
        assert_eq!(folded.state, Trail(vec![1, 2, 3]));
        assert_eq!(folded.late, [key]);
        assert_eq!(folded.horizon, Some(Timestamp::from_millis(15 * HOUR)));

        // The next compaction folds it in, after what the baseline held.
        clock.set(30 * HOUR);
        let done = pc.compact(Timestamp::from_millis(25 * HOUR)).await.unwrap();
        assert_eq!((done.folded, done.removed), (2, 3));
        let folded = pc.state().await.unwrap();
        assert_eq!((folded.state, folded.applied), (Trail(vec![1, 2, 3]), 0));
        assert!(folded.late.is_empty());
        assert_eq!(store.keys(), ["trail::s::base::0000090000000000::pc1"]);
    });
}

#[test]
fn a_key_under_the_prefix_that_no_log_writes_is_named() {
    pollster::block_on(async {
        let store = MemoryStore::new();
        store.insert("trail::s::x", b"{}").await.unwrap();
        let log = log(&store, "pc1", &Clock::at(HOUR), None);
        let err = log.state().await.unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid key \"trail::s::x\" for type `trail`: a key under the event log's prefix `trail::s::` \
             that is neither an event's (`trail::s::e::<stamp>::<replica>`) nor a baseline's \
             (`trail::s::base::<stamp>::<replica>`)"
        );
    });
}

/// One step of a run: a replica appends, the time moves on, or a replica compacts to a horizon some way
/// back from the newest it may.
#[derive(Debug, Clone)]
enum Step {
    Append { replica: usize, event: u32 },
    Wait { minutes: i64 },
    Compact { replica: usize, back_minutes: i64 },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0..3usize, any::<u32>()).prop_map(|(replica, event)| Step::Append { replica, event }),
        2 => (0..90i64).prop_map(|minutes| Step::Wait { minutes }),
        1 => (0..3usize, 0..120i64).prop_map(|(replica, back_minutes)| Step::Compact { replica, back_minutes }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Compaction against no compaction: three replicas whose clocks disagree by up to 20 minutes, with a
    /// declared replication horizon of an hour, append and compact in any order; the state always equals
    /// the fold of every event appended, by stamp then replica, and none is late.
    #[test]
    fn compaction_never_changes_the_state(steps in proptest::collection::vec(step(), 1..60)) {
        pollster::block_on(async {
            let store = MemoryStore::new();
            let skews = [0, -20 * 60_000, 7 * 60_000];
            let clocks: Vec<Clock> = skews.iter().map(|skew| Clock::at(100 * HOUR + skew)).collect();
            let logs: Vec<_> = ["a", "b", "c"]
                .iter()
                .zip(&clocks)
                .map(|(replica, clock)| log(&store, replica, clock, Some(Duration::from_secs(3600))))
                .collect();
            let mut now = 100 * HOUR;
            let mut appended: Vec<(String, u32)> = Vec::new();
            for step in steps {
                match step {
                    Step::Append { replica, event } => {
                        let key = logs[replica].append(&event).await.unwrap();
                        appended.push((key, event));
                    }
                    Step::Wait { minutes } => {
                        now += minutes * 60_000;
                        for (clock, skew) in clocks.iter().zip(skews) {
                            clock.set(now + skew);
                        }
                    }
                    Step::Compact { replica, back_minutes } => {
                        let newest = now + skews[replica] - HOUR;
                        let horizon = Timestamp::from_millis(newest - back_minutes * 60_000);
                        logs[replica].compact(horizon).await.unwrap();
                    }
                }
                // The oracle: every event, by stamp and then replica (the key's order past its kind).
                let mut order: Vec<&(String, u32)> = appended.iter().collect();
                order.sort_by_key(|(key, _)| {
                    let (stamp, replica) = key["trail::s::e::".len()..].split_once("::").unwrap();
                    (stamp.to_owned(), replica.to_owned())
                });
                let expected = Trail(order.iter().map(|(_, event)| *event).collect());
                for log in &logs {
                    let folded = log.state().await.unwrap();
                    prop_assert_eq!(&folded.state, &expected);
                    prop_assert!(folded.late.is_empty(), "late: {:?}", folded.late);
                }
            }
            Ok(())
        })?;
    }
}

#[test]
fn a_clock_past_what_sixteen_digits_of_stamp_hold_is_refused() {
    pollster::block_on(async {
        let store = MemoryStore::new();
        // 2286-11-20T17:46:40Z is 10^16 microseconds.
        let clock = Clock::at(10_000_000_000_000);
        let log = log(&store, "pc1", &clock, Some(Duration::ZERO));
        let err = log.append(&1).await.unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid key \"2286-11-20T17:46:40.000Z\": an event log's stamp has 16 digits of microseconds: it \
             ends in the year 2286"
        );
        clock.set(9_999_999_999_999);
        log.append(&1).await.unwrap();
        assert_eq!(store.keys(), ["trail::s::e::9999999999999000::pc1"]);
    });
}

/// Three replicas, each its own store, replicating every write to the others after a random delay, in any
/// order (a removal may overtake the insert of the baseline it follows, or of the event it removes), always
/// within the 40 minutes that the declared replication horizon of an hour allows with clocks 20 minutes
/// apart. A simulated replicator: a document written is delivered where it was never removed; a removal
/// removes it and is remembered (CouchDB's tombstone).
struct Mesh {
    stores: Vec<MemoryStore>,
    /// Each store's keys as last seen, to find what an operation wrote and removed.
    seen: Vec<std::collections::BTreeSet<String>>,
    /// Deliveries not yet made: when, to which store, the key, and its bytes (`None`: a removal).
    pending: Vec<(i64, usize, String, Option<Vec<u8>>)>,
    removed: Vec<std::collections::BTreeSet<String>>,
    /// The events each store has held, with their value.
    known: Vec<std::collections::BTreeMap<String, u32>>,
    random: u64,
}

impl Mesh {
    fn new(replicas: usize, seed: u64) -> Self {
        Mesh {
            stores: (0..replicas).map(|_| MemoryStore::new()).collect(),
            seen: vec![Default::default(); replicas],
            pending: Vec::new(),
            removed: vec![Default::default(); replicas],
            known: vec![Default::default(); replicas],
            random: seed | 1,
        }
    }

    fn delay(&mut self) -> i64 {
        self.random ^= self.random << 13;
        self.random ^= self.random >> 7;
        self.random ^= self.random << 17;
        i64::try_from(self.random % 40).unwrap() * 60_000
    }

    /// Sends what store `from` wrote and removed since it was last seen, each to every other store.
    async fn sent(&mut self, from: usize, now: i64) {
        let keys: std::collections::BTreeSet<String> =
            self.stores[from].keys().into_iter().collect();
        let mut sends = Vec::new();
        for key in keys.difference(&self.seen[from]) {
            let bytes = self.stores[from]
                .get(key)
                .await
                .unwrap()
                .unwrap()
                .bytes
                .to_vec();
            sends.push((key.clone(), Some(bytes)));
        }
        for key in self.seen[from].difference(&keys) {
            sends.push((key.clone(), None));
        }
        self.seen[from] = keys;
        for (key, bytes) in sends {
            for to in (0..self.stores.len()).filter(|to| *to != from) {
                let at = now + self.delay();
                self.pending.push((at, to, key.clone(), bytes.clone()));
            }
        }
    }

    /// Makes every delivery due by `now`, in the order they fall due.
    async fn deliver(&mut self, now: i64) {
        self.pending.sort_by_key(|(at, ..)| *at);
        let due: Vec<_> = self
            .pending
            .iter()
            .take_while(|(at, ..)| *at <= now)
            .cloned()
            .collect();
        self.pending.drain(..due.len());
        for (_, to, key, bytes) in due {
            let store = &self.stores[to];
            match bytes {
                Some(bytes) if !self.removed[to].contains(&key) => {
                    if store.get(&key).await.unwrap().is_none() {
                        store.insert(&key, &bytes).await.unwrap();
                        if key.starts_with("trail::s::e::") {
                            let event: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
                            let value = u32::try_from(event["event"].as_u64().unwrap()).unwrap();
                            self.known[to].insert(key.clone(), value);
                        }
                    }
                }
                Some(_) => {}
                None => {
                    self.removed[to].insert(key.clone());
                    let _ = store.remove(&key, None).await;
                }
            }
            self.seen[to] = store.keys().into_iter().collect();
        }
    }

    /// The fold of the events store `at` has held, by stamp and then replica: the event keys' order past
    /// their prefix.
    fn expected(&self, at: usize) -> Trail {
        let mut events: Vec<(&String, &u32)> = self.known[at].iter().collect();
        events.sort_by_key(|(key, _)| {
            let (stamp, replica) = key["trail::s::e::".len()..].split_once("::").unwrap();
            (stamp.to_owned(), replica.to_owned())
        });
        Trail(events.into_iter().map(|(_, value)| *value).collect())
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Compaction on replicating stores against the fold of every event: at every step each replica reads
    /// the fold of every event it has held, none late; and at the end, with everything delivered and two
    /// more compactions an hour apart, each holds the fold of every event written anywhere in one baseline,
    /// and nothing else.
    #[test]
    fn replicas_compacting_apart_always_read_the_fold_of_every_event_they_hold(
        steps in proptest::collection::vec(step(), 1..50),
        seed in any::<u64>(),
    ) {
        pollster::block_on(async {
            let mut mesh = Mesh::new(3, seed);
            let skews = [0, -10 * 60_000, 10 * 60_000];
            let clocks: Vec<Clock> = skews.iter().map(|skew| Clock::at(100 * HOUR + skew)).collect();
            let stores = mesh.stores.clone();
            let logs: Vec<_> = ["a", "b", "c"]
                .iter()
                .zip(&clocks)
                .zip(&stores)
                .map(|((replica, clock), store)| log(store, replica, clock, Some(Duration::from_secs(3600))))
                .collect();
            let mut now = 100 * HOUR;
            let set = |now: i64| {
                for (clock, skew) in clocks.iter().zip(skews) {
                    clock.set(now + skew);
                }
            };
            for step in steps {
                match step {
                    Step::Append { replica, event } => {
                        let key = logs[replica].append(&event).await.unwrap();
                        mesh.known[replica].insert(key, event);
                        mesh.sent(replica, now).await;
                    }
                    Step::Wait { minutes } => {
                        now += minutes * 60_000;
                        set(now);
                        mesh.deliver(now).await;
                    }
                    Step::Compact { replica, back_minutes } => {
                        let limit = logs[replica].compaction_limit().unwrap().as_millis();
                        let horizon = Timestamp::from_millis(limit - back_minutes * 60_000);
                        logs[replica].compact(horizon).await.unwrap();
                        mesh.sent(replica, now).await;
                    }
                }
                for (at, log) in logs.iter().enumerate() {
                    let folded = log.state().await.unwrap();
                    prop_assert_eq!(&folded.state, &mesh.expected(at), "replica {}", at);
                    prop_assert!(folded.late.is_empty(), "late: {:?}", folded.late);
                }
            }
            // Everything delivered; then everything folded, and an hour on, removed.
            for _ in 0..2 {
                now += 2 * HOUR;
                set(now);
                mesh.deliver(now).await;
                let limit = logs[0].compaction_limit().unwrap();
                logs[0].compact(limit).await.unwrap();
                mesh.sent(0, now).await;
            }
            now += 2 * HOUR;
            mesh.deliver(now).await;
            let every: std::collections::BTreeMap<String, u32> =
                mesh.known.iter().flat_map(|known| known.clone()).collect();
            for (at, log) in logs.iter().enumerate() {
                prop_assert_eq!(&mesh.known[at], &every, "replica {} has held every event", at);
                let folded = log.state().await.unwrap();
                prop_assert_eq!(&folded.state, &mesh.expected(at));
                let keys = mesh.stores[at].keys();
                prop_assert!(
                    keys.len() == usize::from(!every.is_empty())
                        && keys.iter().all(|key| key.starts_with("trail::s::base::")),
                    "replica {}: {:?}",
                    at,
                    keys
                );
            }
            Ok(())
        })?;
    }
}

#[test]
fn an_event_that_no_longer_reads_stops_the_fold_naming_its_key() {
    pollster::block_on(async {
        let store = MemoryStore::new();
        let clock = Clock::at(HOUR);
        let log = log(&store, "pc1", &clock, Some(Duration::ZERO));
        log.append(&1).await.unwrap();
        clock.set(2 * HOUR);
        let key = "trail::s::e::0000003600000001::lap1";
        store
            .insert(
                key,
                br#"{"log":"trail","stamp":3600000001,"replica":"lap1","event":"seven"}"#,
            )
            .await
            .unwrap();
        for err in [
            log.state().await.unwrap_err(),
            log.compact(Timestamp::from_millis(2 * HOUR))
                .await
                .unwrap_err(),
        ] {
            assert!(
                matches!(&err, Error::Codec { key: Some(at), .. } if at == key),
                "{err:?}"
            );
        }
        assert_eq!(store.keys().len(), 2, "nothing written or removed");
    });
}
