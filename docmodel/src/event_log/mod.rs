//! [`EventLog`]: the CouchDB guide's third design for data that replicas change at once. Each change is a
//! document of its own that is never changed again, so replication never conflicts; the state is the fold of
//! the changes, in an order every replica computes alike; and [`EventLog::compact`] moves a baseline forward
//! no further than every replica has synchronised.

mod read;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

use self::read::{Baseline, Kind, Listing};
use crate::keyshape::{Chars, Piece, Role, Shape};
use crate::order_key::check_tag;
use crate::repo::Clock;
use crate::store::{Store, WriteOptions};
use crate::{Durability, Error, StoreErrorKind, Timestamp};

/// A state built by applying events in order: the fold of an [`EventLog`].
///
/// The events are the application's record of what was done ("bookmark added", "bookmark moved"), each
/// stored once and never changed; the state is what they add up to. `apply` must be a function of the state
/// and the event alone (no clock, no randomness), so that every replica that holds the same events computes
/// the same state.
///
/// Events and baselines are stored as serde writes `Event` and the state, and read back the same way. Events
/// are never rewritten, so every form an `Event` was ever written in stays readable for as long as the
/// events stand: add variants and fields with a default, never rename or remove one. An event that no
/// longer reads stops [`EventLog::state`] and [`EventLog::compact`] with an
/// [`Error::Codec`](crate::Error::Codec) naming its key. Once a compaction has folded an event and removed
/// it, only the baseline's form of the state has to read.
///
/// ```
/// use docmodel::Fold;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Default, Serialize, Deserialize)]
/// struct Tally { total: i64 }
///
/// #[derive(Serialize, Deserialize)]
/// enum Change { Add(i64), Reset }
///
/// impl Fold for Tally {
///     const LOG: &'static str = "tally";
///     type Event = Change;
///     fn apply(&mut self, event: &Change) {
///         match event {
///             Change::Add(n) => self.total += n,
///             Change::Reset => self.total = 0,
///         }
///     }
/// }
/// ```
pub trait Fold: Default + Serialize + DeserializeOwned + Send + Sync {
    /// The log's name: the first part of every key its logs write (`tally::{stream}::e::...`).
    const LOG: &'static str;
    /// What goes between the parts of the log's keys.
    const DELIMITER: &'static str = "::";
    /// One change.
    type Event: Serialize + DeserializeOwned + Send + Sync;

    /// The state after `event`.
    fn apply(&mut self, event: &Self::Event);
}

/// The events of one stream of a [`Fold`] (one user's bookmarks, one cart) in a store, written by one
/// replica: the CouchDB guide's "immutable history", with its traps taken care of.
///
/// - **No conflict.** [`append`](EventLog::append) writes each event as a new document, at
///   `<log><d><stream><d>e<d><stamp><d><replica>`: the stamp is the replica's clock in microseconds (one
///   more than its last where the clock has not moved on), and the replica's tag (as
///   [`OrderKey::after_on`](crate::OrderKey::after_on) takes it: one to 16 digits and lowercase letters,
///   each replica its own) keeps two replicas from ever writing one key.
/// - **One order everywhere.** [`state`](EventLog::state) applies the events by stamp, then by replica tag:
///   every replica holding the same events computes the same state, however replication delivered them.
/// - **A baseline that moves no further than every replica has synchronised.** [`compact`](EventLog::compact)
///   folds the events from before a horizon into a baseline document
///   (`<log><d><stream><d>base<d><stamp><d><replica>`) and removes them once that baseline has had time to
///   reach every replica. It refuses a horizon newer than the log's
///   [replication horizon](EventLog::replication_horizon) allows: the longest any replica goes without
///   synchronising, which the application declares.
///
/// ```
/// use std::time::Duration;
/// use docmodel::{Error, EventLog, Fold, Timestamp, store::MemoryStore};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Default, Serialize, Deserialize)]
/// struct Tally { total: i64 }
///
/// #[derive(Serialize, Deserialize)]
/// enum Change { Add(i64), Reset }
///
/// impl Fold for Tally {
///     const LOG: &'static str = "tally";
///     type Event = Change;
///     fn apply(&mut self, event: &Change) {
///         match event {
///             Change::Add(n) => self.total += n,
///             Change::Reset => self.total = 0,
///         }
///     }
/// }
///
/// # pollster::block_on(async {
/// let store = MemoryStore::new();
/// let log = EventLog::<Tally, _>::new(&store, "visits", "pc1")?
///     .replication_horizon(Duration::from_secs(7 * 24 * 3600));
/// log.append(&Change::Add(2)).await?;
/// log.append(&Change::Add(3)).await?;
/// let folded = log.state().await?;
/// assert_eq!((folded.state.total, folded.applied), (5, 2));
/// assert_eq!(store.keys().len(), 2); // `tally::visits::e::<stamp>::pc1`, two of them
///
/// // Events from before a week ago can be folded; a horizon newer than that is refused.
/// let err = log.compact(Timestamp::now()).await.unwrap_err();
/// assert!(matches!(err, Error::CompactionHorizon { .. }));
/// assert_eq!(store.keys().len(), 2);
/// # Ok::<(), docmodel::Error>(())
/// # }).unwrap();
/// ```
///
/// [`EventLog::compact`]'s page shows a compaction, with a clock that moves.
pub struct EventLog<F, S> {
    store: S,
    /// `<log><d><stream><d>`: every key of the log begins with it.
    prefix: String,
    replica: String,
    replication_horizon: Option<Duration>,
    clock: Clock,
    write: WriteOptions,
    /// The last stamp this log gave an event.
    last: AtomicU64,
    fold: PhantomData<fn() -> F>,
}

impl<F, S> std::fmt::Debug for EventLog<F, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventLog")
            .field("prefix", &self.prefix)
            .field("replica", &self.replica)
            .field("replication_horizon", &self.replication_horizon)
            .finish_non_exhaustive()
    }
}

/// What [`EventLog::state`] read: the state, and how it was reached.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Folded<F> {
    /// The fold of every event in the log.
    pub state: F,
    /// The horizon of the baseline the fold started from; `None` where the log has none yet.
    pub horizon: Option<Timestamp>,
    /// How many events were applied to the baseline.
    pub applied: usize,
    /// The keys of the events from before the baseline's horizon that the baseline did not fold: written on
    /// a replica that stayed away longer than the replication horizon. They are applied (after the
    /// baseline, in their order), and the next compaction to a horizon past them folds them in; a replica
    /// that compacted before they arrived computed its baseline without them, so the state may differ from
    /// a fold of every event in order. Empty unless the declared replication horizon was broken.
    ///
    /// A baseline records, for each replica, the newest of its events it folded, and counts every older
    /// event of that replica as folded. Where the horizon was broken *and* replication delivered one
    /// replica's events out of their order, an event older than one a baseline folded is passed over
    /// unreported, and removed by a later compaction.
    pub late: Vec<String>,
}

/// What [`EventLog::compact`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Compaction {
    /// The key of the baseline written; `None` where no event from before the horizon was left to fold
    /// (the log's newest baseline already at the horizon or past it, or no event since).
    pub baseline: Option<String>,
    /// How many events the new baseline folded in, on top of the baseline before it.
    pub folded: usize,
    /// How many events and older baselines were removed: those covered by the newest baseline written at
    /// least the replication horizon ago, which every replica holds by now.
    pub removed: usize,
}

impl<F: Fold, S: Store> EventLog<F, S> {
    /// The log of `stream` in `store`, written by `replica` (its tag: one to 16 digits and lowercase
    /// letters, not ending with `0`; each replica, and each process writing the same store, its own). Reads
    /// the system clock, and declares no replication horizon (so [`compact`](EventLog::compact) refuses
    /// every horizon until one is declared). An [`Error::InvalidKey`] names the stream or the tag refused.
    pub fn new(store: S, stream: &str, replica: &str) -> Result<Self, Error> {
        let refuse = |key: &str, reason: String| Error::InvalidKey {
            model: F::LOG,
            key: key.to_owned(),
            reason,
        };
        let d = F::DELIMITER;
        if d.is_empty() {
            return Err(refuse(
                F::LOG,
                "an event log's delimiter (`Fold::DELIMITER`) must not be empty".to_owned(),
            ));
        }
        for (what, text) in [("log name", F::LOG), ("stream", stream)] {
            // No character of the delimiter, as a model's key part: `a:` would put its keys under `a`'s.
            if text.is_empty() || text.contains(|c| d.contains(c)) {
                return Err(refuse(
                    text,
                    format!(
                        "an event log's {what} must not be empty or hold a character of its delimiter `{d}`"
                    ),
                ));
            }
        }
        check_tag(replica).map_err(|error| refuse(replica, error.to_string()))?;
        let prefix = [F::LOG, stream, ""].join(F::DELIMITER);
        Ok(EventLog {
            store,
            prefix,
            replica: replica.to_owned(),
            replication_horizon: None,
            clock: Arc::new(Timestamp::now),
            write: WriteOptions::DEFAULT,
            last: AtomicU64::new(0),
            fold: PhantomData,
        })
    }

    /// Declares the longest time a write made on any replica takes to reach every other replica, over every
    /// hop of the replication (through a hub: both legs), with room for the replicas' clocks to disagree:
    /// events stamped that long ago are held everywhere, so a baseline may fold them, and a baseline written
    /// that long ago is held everywhere, so its events may go. `Duration::ZERO` declares that no other
    /// replica exists.
    pub fn replication_horizon(mut self, within: Duration) -> Self {
        self.replication_horizon = Some(within);
        self
    }

    /// Reads the time for stamps and horizons from `clock` instead of the system clock.
    pub fn clock(mut self, clock: impl Fn() -> Timestamp + Send + Sync + 'static) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// Waits for each write to reach `durability` before it returns.
    pub fn durability(mut self, durability: Durability) -> Self {
        self.write = self.write.with_durability(durability);
        self
    }

    /// The text every key of the log begins with: `<log><d><stream><d>`.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The newest horizon [`compact`](EventLog::compact) accepts now: the log's clock less its replication
    /// horizon; `None` where it declares none.
    pub fn compaction_limit(&self) -> Option<Timestamp> {
        self.limit_at((self.clock)())
    }

    /// The newest horizon a compaction accepts at `now`.
    fn limit_at(&self, now: Timestamp) -> Option<Timestamp> {
        self.replication_horizon.map(|within| {
            Timestamp::from_millis(
                now.as_millis()
                    .saturating_sub(i64::try_from(within.as_millis()).unwrap_or(i64::MAX)),
            )
        })
    }

    /// Stores `event` as a new document and returns its key. Never conflicts: no other replica writes the
    /// key. Where another process writing with this replica's tag took the stamp first (give each its own),
    /// the next one is taken. An [`Ambiguous`](crate::StoreErrorKind::Ambiguous) store error may have
    /// stored the event. A clock past the year 2286 (a stamp of more than 16 digits) is refused.
    pub async fn append(&self, event: &F::Event) -> Result<String, Error> {
        let mut attempts = 0;
        loop {
            let stamp = self.next_stamp()?;
            let key = self.key(Kind::Event, stamp);
            let body = serde_json::to_vec(&read::EventDoc {
                log: F::LOG,
                stamp,
                replica: &self.replica,
                event,
            })
            .map_err(|source| Error::Codec {
                key: Some(key.clone()),
                field: None,
                source,
            })?;
            match self.store.insert_with(&key, &body, &self.write).await {
                Ok(_) => return Ok(key),
                Err(Error::AlreadyExists { .. }) if attempts < 16 => attempts += 1,
                Err(error) => return Err(error),
            }
        }
    }

    /// The fold of every event: the newest baseline (by horizon, then replica tag), then the events from its
    /// horizon on, by stamp and then replica tag. Events the baseline folded but that are not removed yet
    /// are passed over. Where a compaction elsewhere removes what the listing held before it is read, the
    /// log is listed again; after 8 times, a [`Transient`](crate::StoreErrorKind::Transient) store error.
    pub async fn state(&self) -> Result<Folded<F>, Error> {
        let (_, horizon, replay) = self.replayed(u64::MAX).await?;
        Ok(Folded {
            state: replay.state,
            horizon: horizon.map(timestamp),
            applied: replay.applied,
            late: replay.late,
        })
    }

    /// Folds the events stamped before `horizon` into a new baseline, then removes what the newest baseline
    /// written at least the replication horizon ago covers: its events, and the baselines before it. Until
    /// a baseline has had that long to reach every replica its events stay, so that no replica sees them
    /// go before it holds the baseline that folded them (replication need not deliver documents in the
    /// order they were written). With a replication horizon of zero, the events go at once.
    ///
    /// Refuses, with [`Error::CompactionHorizon`] and nothing changed, a horizon newer than
    /// [`compaction_limit`](EventLog::compaction_limit), or any horizon where no replication horizon is
    /// declared: a replica that last synchronised before it could still bring events from before it, which
    /// the baseline would not hold. A crash part way leaves the baseline and some events it folded, which
    /// [`state`](EventLog::state) passes over and the next compaction removes.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use std::sync::atomic::{AtomicI64, Ordering};
    /// use std::time::Duration;
    /// use docmodel::{EventLog, Fold, Timestamp, store::MemoryStore};
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Default, Serialize, Deserialize)]
    /// struct Tally { total: i64 }
    ///
    /// impl Fold for Tally {
    ///     const LOG: &'static str = "tally";
    ///     type Event = i64;
    ///     fn apply(&mut self, n: &i64) { self.total += n }
    /// }
    ///
    /// const HOUR: i64 = 3_600_000;
    /// # pollster::block_on(async {
    /// let store = MemoryStore::new();
    /// let now = Arc::new(AtomicI64::new(1_000 * HOUR));
    /// let clock = Arc::clone(&now);
    /// let log = EventLog::<Tally, _>::new(&store, "visits", "pc1")?
    ///     .clock(move || Timestamp::from_millis(clock.load(Ordering::SeqCst)))
    ///     .replication_horizon(Duration::from_secs(3_600)); // a write reaches every replica within the hour
    /// log.append(&2).await?;
    /// log.append(&3).await?;
    ///
    /// // Two hours on: both events fold into a baseline, which stays beside them for now.
    /// now.store(1_002 * HOUR, Ordering::SeqCst);
    /// log.append(&10).await?;
    /// assert_eq!(log.compaction_limit(), Some(Timestamp::from_millis(1_001 * HOUR)));
    /// let done = log.compact(Timestamp::from_millis(1_001 * HOUR)).await?;
    /// assert_eq!((done.folded, done.removed), (2, 0));
    /// assert_eq!(store.keys().len(), 4);
    /// let folded = log.state().await?;
    /// assert_eq!((folded.state.total, folded.applied), (15, 1));
    ///
    /// // An hour later every replica holds the baseline, and the next compaction removes its events.
    /// now.store(1_003 * HOUR, Ordering::SeqCst);
    /// let done = log.compact(Timestamp::from_millis(1_002 * HOUR)).await?;
    /// assert_eq!((done.folded, done.removed), (0, 2));
    /// assert_eq!(store.keys().len(), 2); // the baseline and the event of `10`
    /// assert_eq!(log.state().await?.state.total, 15);
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn compact(&self, horizon: Timestamp) -> Result<Compaction, Error> {
        // One reading of the clock: the baseline's `written` and the limit it is settled against agree.
        let now = (self.clock)();
        let limit = self.limit_at(now);
        let Some(limit) = limit.filter(|limit| horizon <= *limit) else {
            return Err(Error::CompactionHorizon {
                log: self.prefix[..self.prefix.len() - F::DELIMITER.len()].to_owned(),
                horizon,
                limit,
            });
        };
        let until = stamp(horizon)?;
        let (listing, _, replay) = self.replayed(until).await?;
        let mut heads = listing.heads::<S>(&self.store).await?;
        let mut done = Compaction {
            baseline: None,
            folded: 0,
            removed: 0,
        };
        if replay.applied > 0 {
            let key = self.key(Kind::Baseline, until);
            let body = Baseline {
                log: F::LOG,
                horizon: until,
                written: now.as_millis(),
                through: replay.through.clone(),
                state: replay.state,
            };
            let bytes = serde_json::to_vec(&body).map_err(|source| Error::Codec {
                key: Some(key.clone()),
                field: None,
                source,
            })?;
            match self.store.insert_with(&key, &bytes, &self.write).await {
                Ok(_) => {
                    heads.push(read::Head {
                        entry: read::Entry {
                            stamp: until,
                            tag_at: key.len() - self.replica.len(),
                            key: key.clone(),
                        },
                        written: now.as_millis(),
                        through: replay.through,
                    });
                    done.baseline = Some(key);
                    done.folded = replay.applied;
                }
                // Another process with this replica's tag compacted to the same horizon: its baseline
                // stands, and is removed by and removes only what its own bookkeeping says.
                Err(Error::AlreadyExists { .. }) => {}
                Err(error) => return Err(error),
            }
        }
        done.removed = self.remove_settled(&listing, heads, limit).await?;
        Ok(done)
    }

    /// The log listed and replayed up to `until`, listed again where a compaction elsewhere removed what
    /// the listing held before it was read; with the newest baseline's horizon stamp.
    async fn replayed(&self, until: u64) -> Result<(Listing, Option<u64>, read::Replay<F>), Error> {
        const READS: usize = 8;
        for _ in 0..READS {
            let listing = Listing::read::<F, S>(&self.store, &self.prefix).await?;
            let Ok(base) = listing.newest_baseline::<F, S>(&self.store).await? else {
                continue;
            };
            let horizon = base.as_ref().map(|base| base.horizon);
            if let Ok(replay) = listing.replay::<F, S>(&self.store, base, until).await? {
                return Ok((listing, horizon, replay));
            }
        }
        Err(Error::store_with(
            StoreErrorKind::Transient,
            &self.prefix,
            format!(
                "the event log changed under each of {READS} reads: a compaction elsewhere removed documents \
                 the listing held before they were read; try again"
            ),
        ))
    }

    /// Removes what the newest baseline written at or before `limit` covers, and the baselines before it.
    async fn remove_settled(
        &self,
        listing: &Listing,
        heads: Vec<read::Head>,
        limit: Timestamp,
    ) -> Result<usize, Error> {
        let Some(settled) = heads
            .iter()
            .filter(|head| head.written <= limit.as_millis())
            .max_by(|a, b| a.entry.order().cmp(&b.entry.order()))
        else {
            return Ok(0);
        };
        let covered = listing
            .events
            .iter()
            .filter(|event| settled.covers(event))
            .map(|event| &event.key);
        let older = heads
            .iter()
            .filter(|head| head.entry.order() < settled.entry.order())
            .map(|head| &head.entry.key);
        let mut removed = 0;
        for key in covered.chain(older) {
            match self.store.remove_with(key, None, &self.write).await {
                Ok(()) => removed += 1,
                // Removed by a compaction elsewhere on this store.
                Err(Error::NotFound { .. }) => {}
                Err(error) => return Err(error),
            }
        }
        Ok(removed)
    }

    /// The next stamp: the clock in microseconds, or one more than the last stamp where that is not past it.
    fn next_stamp(&self) -> Result<u64, Error> {
        let now = stamp((self.clock)())?;
        let last = self
            .last
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |last| {
                Some(now.max(last + 1))
            })
            .unwrap_or_else(|last| last);
        let next = now.max(last + 1);
        if next > MAX_STAMP {
            return Err(too_late(timestamp(next)));
        }
        Ok(next)
    }

    fn key(&self, kind: Kind, stamp: u64) -> String {
        let d = F::DELIMITER;
        format!(
            "{}{}{d}{stamp:016}{d}{}",
            self.prefix,
            kind.word(),
            self.replica
        )
    }
}

/// The two shapes of key a log of `F` writes, for [`keyspace::of_log`](crate::keyspace::of_log).
pub(crate) fn shapes<F: Fold>() -> Vec<Shape> {
    let d = F::DELIMITER;
    let text = |d| Chars::NotIn(d);
    [(Role::Event, Kind::Event), (Role::Baseline, Kind::Baseline)]
        .into_iter()
        .map(|(role, kind)| Shape {
            role,
            pieces: vec![
                Piece::Text(F::LOG),
                Piece::Text(d),
                Piece::Part {
                    name: "stream",
                    chars: text(d),
                },
                Piece::Text(d),
                Piece::Text(kind.word()),
                Piece::Text(d),
                Piece::Part {
                    name: "stamp",
                    chars: Chars::Digits { signed: false },
                },
                Piece::Text(d),
                Piece::Part {
                    name: "replica",
                    chars: text(d),
                },
            ],
        })
        .collect()
}

/// The largest stamp a key holds: 16 digits.
const MAX_STAMP: u64 = 9_999_999_999_999_999;

/// A time as a stamp: microseconds since the epoch, none before it; refused past 16 digits.
fn stamp(time: Timestamp) -> Result<u64, Error> {
    let stamp = u64::try_from(time.as_millis()).map_or(0, |millis| millis.saturating_mul(1000));
    if stamp > MAX_STAMP {
        return Err(too_late(time));
    }
    Ok(stamp)
}

fn too_late(time: Timestamp) -> Error {
    Error::InvalidKey {
        model: "",
        key: time.to_string(),
        reason: "an event log's stamp has 16 digits of microseconds: it ends in the year 2286"
            .to_owned(),
    }
}

/// A stamp as a time, to the millisecond.
fn timestamp(stamp: u64) -> Timestamp {
    Timestamp::from_millis(i64::try_from(stamp / 1000).unwrap_or(i64::MAX))
}

/// For each replica, its newest event a baseline folded.
type Through = BTreeMap<String, u64>;
