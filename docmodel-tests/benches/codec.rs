//! The performance floor: reading and writing a document, and building a key, against serde_json and
//! `format!` on a hand-written struct holding the same fields. Compare the pairs in one run; the ratios are
//! what count (DESIGN.md: at most 1.10x for decode and encode, 1.0x for keys).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use docmodel::Doc;

mod common;
use common::{HandWritten, User, documents};

fn codec(c: &mut Criterion) {
    let (doc, hand, bytes) = documents();

    let mut group = c.benchmark_group("decode");
    group.bench_function("serde_json", |b| {
        b.iter(|| serde_json::from_slice::<HandWritten>(black_box(&bytes)).unwrap())
    });
    group.bench_function("docmodel", |b| {
        b.iter(|| Doc::<User>::from_slice(black_box(&bytes)).unwrap())
    });
    group.finish();

    let mut group = c.benchmark_group("encode");
    group.bench_function("serde_json", |b| {
        b.iter(|| serde_json::to_vec(black_box(&hand)).unwrap())
    });
    group.bench_function("docmodel", |b| b.iter(|| black_box(&doc).to_vec().unwrap()));
    group.finish();

    let mut group = c.benchmark_group("key");
    group.bench_function("format", |b| {
        b.iter(|| format!("user::{}", black_box(123_456u64)))
    });
    group.bench_function("docmodel", |b| b.iter(|| User::key(black_box(123_456))));
    group.finish();
}

criterion_group!(benches, codec);
criterion_main!(benches);
