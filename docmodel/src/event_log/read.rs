//! What an [`EventLog`](super::EventLog) reads: the keys under its prefix, its baselines, and its events
//! replayed in their order.

use serde::{Deserialize, Serialize};

use super::{Fold, Through};
use crate::Error;
use crate::store::{KeyPages, Store};

/// How many documents a replay reads at once.
const PAGE: usize = 100;

/// The two kinds of document a log writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Event,
    Baseline,
}

impl Kind {
    /// The word after the log's prefix.
    pub(super) fn word(self) -> &'static str {
        match self {
            Kind::Event => "e",
            Kind::Baseline => "base",
        }
    }
}

/// An event's or a baseline's key, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Entry {
    pub(super) stamp: u64,
    pub(super) key: String,
    /// Where the replica's tag begins in `key`: its end.
    pub(super) tag_at: usize,
}

impl Entry {
    /// The tag of the replica that wrote it.
    pub(super) fn replica(&self) -> &str {
        &self.key[self.tag_at..]
    }

    /// Where it goes in the log's one order: by stamp, then by replica tag.
    pub(super) fn order(&self) -> (u64, &str) {
        (self.stamp, self.replica())
    }
}

/// An event as stored.
#[derive(Serialize)]
pub(super) struct EventDoc<'a, E> {
    pub(super) log: &'static str,
    pub(super) stamp: u64,
    pub(super) replica: &'a str,
    pub(super) event: &'a E,
}

/// An event as read: the rest of the document is its key's.
#[derive(Deserialize)]
struct EventBody<E> {
    event: E,
}

/// A baseline as stored.
#[derive(Serialize)]
pub(super) struct Baseline<F> {
    pub(super) log: &'static str,
    /// The stamp before which it folded every event.
    pub(super) horizon: u64,
    /// When it was written, in milliseconds since the epoch, by its replica's clock.
    pub(super) written: i64,
    /// For each replica, its newest event folded.
    pub(super) through: Through,
    pub(super) state: F,
}

/// A baseline as read: the rest of the document is its key's.
#[derive(Deserialize)]
struct BaselineBody<F> {
    through: Through,
    state: F,
}

/// A baseline's bookkeeping without its state.
#[derive(Deserialize)]
struct HeadBody {
    written: i64,
    through: Through,
}

/// A baseline's key and bookkeeping.
pub(super) struct Head {
    pub(super) entry: Entry,
    pub(super) written: i64,
    pub(super) through: Through,
}

impl Head {
    /// Whether the baseline folded `event`: from before its horizon, and no newer than the newest event of
    /// its replica it folded.
    pub(super) fn covers(&self, event: &Entry) -> bool {
        covers(self.entry.stamp, &self.through, event)
    }
}

fn covers(horizon: u64, through: &Through, event: &Entry) -> bool {
    event.stamp < horizon
        && through
            .get(event.replica())
            .is_some_and(|newest| event.stamp <= *newest)
}

/// A document the listing held was removed before it was read.
pub(super) struct Gone;

/// The baseline a replay starts from.
pub(super) struct Base<F> {
    pub(super) horizon: u64,
    through: Through,
    state: F,
}

/// What a replay reached.
pub(super) struct Replay<F> {
    pub(super) state: F,
    /// The baseline's `through`, with every event applied.
    pub(super) through: Through,
    pub(super) applied: usize,
    pub(super) late: Vec<String>,
}

/// The keys of one log, each kind in the log's order.
pub(super) struct Listing {
    pub(super) events: Vec<Entry>,
    pub(super) baselines: Vec<Entry>,
}

impl Listing {
    /// Lists every key under `prefix`. A key there that is not one a log writes is an
    /// [`Error::InvalidKey`] naming it.
    pub(super) async fn read<F: Fold, S: Store>(store: &S, prefix: &str) -> Result<Self, Error> {
        let mut listing = Listing {
            events: Vec::new(),
            baselines: Vec::new(),
        };
        let mut pages = KeyPages::prefix(store, prefix).page_size(1000);
        while let Some(page) = pages.next_page().await? {
            for key in page {
                let (kind, entry) = parse::<F>(prefix, key)?;
                match kind {
                    Kind::Event => listing.events.push(entry),
                    Kind::Baseline => listing.baselines.push(entry),
                }
            }
        }
        // A store's key order need not be byte order (CouchDB collates its ids).
        listing.events.sort_by(|a, b| a.order().cmp(&b.order()));
        listing.baselines.sort_by(|a, b| a.order().cmp(&b.order()));
        Ok(listing)
    }

    /// The newest baseline, whole (`None` where the log has none); `Err(Gone)` where the listing's newest is
    /// no longer stored: a compaction removed it, which it does only under a newer one, so the log must be
    /// listed again.
    pub(super) async fn newest_baseline<F: Fold, S: Store>(
        &self,
        store: &S,
    ) -> Result<Result<Option<Base<F>>, Gone>, Error> {
        let Some(entry) = self.baselines.last() else {
            return Ok(Ok(None));
        };
        let Some(stored) = store.get(&entry.key).await? else {
            return Ok(Err(Gone));
        };
        let baseline: BaselineBody<F> =
            serde_json::from_slice(&stored.bytes).map_err(|source| Error::Codec {
                key: Some(entry.key.clone()),
                field: None,
                source,
            })?;
        Ok(Ok(Some(Base {
            horizon: entry.stamp,
            through: baseline.through,
            state: baseline.state,
        })))
    }

    /// The bookkeeping of every baseline still stored.
    pub(super) async fn heads<S: Store>(&self, store: &S) -> Result<Vec<Head>, Error> {
        let keys: Vec<&str> = self
            .baselines
            .iter()
            .map(|entry| entry.key.as_str())
            .collect();
        let mut heads = Vec::with_capacity(keys.len());
        for (chunk, entries) in keys.chunks(PAGE).zip(self.baselines.chunks(PAGE)) {
            for (stored, entry) in store.get_many(chunk).await?.into_iter().zip(entries) {
                let Some(stored) = stored else { continue };
                let head: HeadBody =
                    serde_json::from_slice(&stored.bytes).map_err(|source| Error::Codec {
                        key: Some(entry.key.clone()),
                        field: None,
                        source,
                    })?;
                heads.push(Head {
                    entry: entry.clone(),
                    written: head.written,
                    through: head.through,
                });
            }
        }
        Ok(heads)
    }

    /// `base` (or the empty state) with the events stamped before `until` applied in the log's order,
    /// passing over those `base` folded; nothing where `base` is at `until` or past it. `Err(Gone)` where an
    /// event to apply is no longer stored: a compaction removed it under a baseline newer than `base`, so
    /// the log must be listed again.
    pub(super) async fn replay<F: Fold, S: Store>(
        &self,
        store: &S,
        base: Option<Base<F>>,
        until: u64,
    ) -> Result<Result<Replay<F>, Gone>, Error> {
        let (horizon, mut through, mut state) = match base {
            Some(base) => (base.horizon, base.through, base.state),
            None => (0, Through::new(), F::default()),
        };
        if until <= horizon {
            return Ok(Ok(Replay {
                state,
                through,
                applied: 0,
                late: Vec::new(),
            }));
        }
        let folded_before = through.clone();
        let pending: Vec<&Entry> = self
            .events
            .iter()
            .take_while(|event| event.stamp < until)
            .filter(|event| !covers(horizon, &folded_before, event))
            .collect();
        let mut replay_late = Vec::new();
        let mut applied = 0;
        for entries in pending.chunks(PAGE) {
            let keys: Vec<&str> = entries.iter().map(|entry| entry.key.as_str()).collect();
            for (stored, entry) in store.get_many(&keys).await?.into_iter().zip(entries) {
                let Some(stored) = stored else {
                    return Ok(Err(Gone));
                };
                let body: EventBody<F::Event> =
                    serde_json::from_slice(&stored.bytes).map_err(|source| Error::Codec {
                        key: Some(entry.key.clone()),
                        field: None,
                        source,
                    })?;
                state.apply(&body.event);
                applied += 1;
                if entry.stamp < horizon {
                    replay_late.push(entry.key.clone());
                }
                match through.get_mut(entry.replica()) {
                    Some(newest) => *newest = (*newest).max(entry.stamp),
                    None => {
                        through.insert(entry.replica().to_owned(), entry.stamp);
                    }
                }
            }
        }
        Ok(Ok(Replay {
            state,
            through,
            applied,
            late: replay_late,
        }))
    }
}

/// The kind and the entry of `key`, which begins with `prefix`.
fn parse<F: Fold>(prefix: &str, key: String) -> Result<(Kind, Entry), Error> {
    let d = F::DELIMITER;
    let parsed = key.strip_prefix(prefix).and_then(|rest| {
        let (word, rest) = rest.split_once(d)?;
        let kind = [Kind::Event, Kind::Baseline]
            .into_iter()
            .find(|kind| kind.word() == word)?;
        let (stamp, replica) = rest.split_once(d)?;
        let stamp = (stamp.len() == 16 && stamp.bytes().all(|byte| byte.is_ascii_digit()))
            .then(|| stamp.parse::<u64>().ok())
            .flatten()?;
        (!replica.is_empty() && !replica.contains(d))
            .then(|| (kind, stamp, key.len() - replica.len()))
    });
    match parsed {
        Some((kind, stamp, tag_at)) => Ok((kind, Entry { stamp, key, tag_at })),
        None => Err(Error::InvalidKey {
            model: F::LOG,
            reason: format!(
                "a key under the event log's prefix `{prefix}` that is neither an event's \
                 (`{prefix}e{d}<stamp>{d}<replica>`) nor a baseline's (`{prefix}base{d}<stamp>{d}<replica>`)"
            ),
            key,
        }),
    }
}
