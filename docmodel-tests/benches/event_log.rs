//! The cost of reading an event log's state (`EventLog::state`) against reading the same events by hand from
//! the same store: the keys under the log's prefix listed a page at a time (`KeyPages`), the documents read
//! 100 at a time (`Store::get_many`), each parsed with `serde_json` into the event and applied (the floor: a
//! fold reads every event at least). And against `serde_json::from_slice` of the same event documents held in
//! memory, with no store. Logs of 1,000 and 10,000 events from two replicas on a MemoryStore, no baseline.
//!
//! `cargo bench -p docmodel-benches --bench event_log`, then `cargo run -p docmodel-tests --bin bench-ratios`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use docmodel::store::{KeyPages, MemoryStore, Store};
use docmodel::{EventLog, Fold};
use serde::{Deserialize, Serialize};

/// A tally of page views: the state.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Views {
    total: u64,
    last_page: String,
}

/// One page viewed.
#[derive(Debug, Serialize, Deserialize)]
struct Viewed {
    page: String,
    seconds: u32,
}

impl Fold for Views {
    const LOG: &'static str = "views";
    type Event = Viewed;
    fn apply(&mut self, event: &Viewed) {
        self.total += u64::from(event.seconds);
        self.last_page.clone_from(&event.page);
    }
}

/// The part of an event document the hand-written reader reads.
#[derive(Deserialize)]
struct Body {
    event: Viewed,
}

/// A store holding `count` events of the stream `ann`, half from each of two replicas.
fn store_with(count: u32) -> MemoryStore {
    let store = MemoryStore::new();
    pollster::block_on(async {
        let logs = ["pc1", "lap1"]
            .map(|replica| EventLog::<Views, _>::new(&store, "ann", replica).unwrap());
        for n in 0..count {
            let event = Viewed {
                page: format!("/docs/page/{n}"),
                seconds: n % 60,
            };
            logs[(n % 2) as usize].append(&event).await.unwrap();
        }
    });
    store
}

/// The fold as a hand-written reader makes it: list, read, parse, apply.
async fn by_hand(store: &MemoryStore) -> Views {
    let mut state = Views::default();
    let mut pages = KeyPages::prefix(store, "views::ann::").page_size(1000);
    let mut keys = Vec::new();
    while let Some(page) = pages.next_page().await.unwrap() {
        keys.extend(page);
    }
    for chunk in keys.chunks(100) {
        let chunk: Vec<&str> = chunk.iter().map(String::as_str).collect();
        for stored in store.get_many(&chunk).await.unwrap().into_iter().flatten() {
            let body: Body = serde_json::from_slice(&stored.bytes).unwrap();
            state.apply(&body.event);
        }
    }
    state
}

fn event_log(c: &mut Criterion) {
    let mut group = c.benchmark_group("event_log");
    for count in [1_000u32, 10_000] {
        let store = store_with(count);
        let log = EventLog::<Views, _>::new(&store, "ann", "pc1").unwrap();
        let docs: Vec<Vec<u8>> = pollster::block_on(async {
            let keys = store.keys();
            let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
            let stored = store.get_many(&keys).await.unwrap();
            stored
                .into_iter()
                .map(|doc| doc.unwrap().bytes.to_vec())
                .collect()
        });
        let expected = pollster::block_on(by_hand(&store)).total;
        assert_eq!(
            pollster::block_on(log.state()).unwrap().state.total,
            expected
        );
        group.throughput(Throughput::Elements(u64::from(count)));
        group.bench_function(BenchmarkId::new("state", count), |b| {
            b.iter(|| black_box(pollster::block_on(log.state()).unwrap().state.total));
        });
        group.bench_function(BenchmarkId::new("by hand", count), |b| {
            b.iter(|| black_box(pollster::block_on(by_hand(&store)).total));
        });
        group.bench_function(BenchmarkId::new("serde_json", count), |b| {
            b.iter(|| {
                let mut state = Views::default();
                for doc in &docs {
                    let body: Body = serde_json::from_slice(doc).unwrap();
                    state.apply(&body.event);
                }
                black_box(state.total)
            });
        });
    }
    group.finish();
}

criterion_group!(benches, event_log);
criterion_main!(benches);
