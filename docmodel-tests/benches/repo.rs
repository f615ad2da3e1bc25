//! Repository operations on MemoryStore (no disk, so that docmodel's own work is what is measured), each
//! against the store operations it makes, done by hand, as ratios within one run:
//!
//! - `repo get`: `Repo::get` of a current user, against `Store::get` and the hand-written struct's checked
//!   read (`HandWritten::read`).
//! - `repo save`: `Repo::save` of a user without revision copies, against `Store::replace` of the bytes it
//!   writes, after `serde_json::to_vec` of the hand-written struct.
//! - `repo save, 10 revisions`: `Repo::save` of the same user in a model keeping 10 revisions, its window
//!   full, against the same store operations by hand (`common::HandSaves::save`: `to_vec`, a get of the copy
//!   leaving the window, one batch of the new copy, the replace and the removal).
//! - `repo revisions`: `Repo::revisions` of that user's 10 copies, against a hand listing
//!   (`common::HandSaves::revisions`: the document read, its copies read in one batch, each read and checked).
//!
//! Run once as is (docmodel's default build) and once with `--features tracing` (the feature on, no
//! subscriber installed): what the feature costs an application that never installs one is the difference
//! between the two runs' ratios.
//!
//! ```sh
//! cargo bench -p docmodel-benches --bench repo && cargo run -p docmodel-tests --bin bench-ratios
//! cargo bench -p docmodel-benches --bench repo --features tracing && cargo run -p docmodel-tests --bin bench-ratios
//! ```

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use docmodel::Repo;
use docmodel::store::{MemoryStore, Store};

// Shared with the codec benchmarks, of which this one reads the user (and its revised twin) only.
#[allow(dead_code)]
mod common;
use common::{HandSaves, HandWritten, Revised, User, documents};

fn repository(c: &mut Criterion) {
    let (_, hand, bytes) = documents();
    let store = MemoryStore::new();
    let key = User::key(123_456);
    pollster::block_on(store.insert(key.as_str(), &bytes)).unwrap();
    let users = Repo::<User>::new(&store);

    let mut group = c.benchmark_group("repo get");
    group.bench_function("store get, hand-written read", |b| {
        b.iter(|| {
            let stored = pollster::block_on(store.get(black_box(key.as_str())))
                .unwrap()
                .unwrap();
            black_box(HandWritten::read(&stored.bytes).unwrap())
        });
    });
    group.bench_function("docmodel", |b| {
        b.iter(|| black_box(pollster::block_on(users.get(black_box(&key))).unwrap()));
    });
    group.finish();

    let mut group = c.benchmark_group("repo save");
    // Each replace with the token the last one gave, as a save holds the token of its document.
    let mut cas = pollster::block_on(store.get(key.as_str()))
        .unwrap()
        .unwrap()
        .cas;
    group.bench_function("to_vec, store replace", |b| {
        b.iter(|| {
            let bytes = serde_json::to_vec(black_box(&hand)).unwrap();
            cas = pollster::block_on(store.replace(key.as_str(), &bytes, &cas)).unwrap();
        });
    });
    let mut doc = pollster::block_on(users.get(&key)).unwrap().unwrap();
    group.bench_function("docmodel", |b| {
        b.iter(|| pollster::block_on(users.save(black_box(&mut doc))).unwrap());
    });
    group.finish();

    // Each saved past its window first, so that every measured save prunes a copy.
    let by_hand = MemoryStore::new();
    let mut hand = HandSaves::new(&by_hand);
    let kept = MemoryStore::new();
    let revised = Repo::<Revised>::new(&kept);
    let mut doc = pollster::block_on(revised.insert(Revised::new())).unwrap();
    for _ in 0..12 {
        hand.save();
        pollster::block_on(revised.save(&mut doc)).unwrap();
    }
    let mut group = c.benchmark_group("repo save, 10 revisions");
    group.bench_function("by hand", |b| b.iter(|| hand.save()));
    group.bench_function("docmodel", |b| {
        b.iter(|| pollster::block_on(revised.save(black_box(&mut doc))).unwrap());
    });
    group.finish();

    let mut group = c.benchmark_group("repo revisions");
    group.bench_function("by hand", |b| b.iter(|| black_box(hand.revisions())));
    let key = doc.key().clone();
    group.bench_function("docmodel", |b| {
        b.iter(|| black_box(pollster::block_on(revised.revisions(black_box(&key))).unwrap()));
    });
    group.finish();
}

criterion_group!(benches, repository);
criterion_main!(benches);
