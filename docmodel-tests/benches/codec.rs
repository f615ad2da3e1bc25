//! The performance floor: reading and writing a document, and building a key, against serde_json and
//! `format!` on a hand-written struct holding the same fields. Compare the pairs in one run; the ratios are
//! what count (DESIGN.md: at most 1.05x for decode and encode, 1.0x for keys). The floor of a read is
//! `serde_json with checks`, which checks what docmodel checks and builds the key a `Doc` holds;
//! `serde_json` alone is the struct without them. `migrate 1.0 to 3.0` reads
//! the seeds' 1.0 user as the 3.0 model through its two JSON steps, against the same steps on a
//! `serde_json::Value` and `from_value`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use docmodel::{Doc, DocModel};
use serde::{Deserialize, Serialize};

// Shared with the instruction counts and the repository benchmarks, whose saves with revisions this one
// does not measure.
#[allow(dead_code)]
mod common;
use common::{
    HandWritten, Migrated, TypedUser, User, V1, V2, convert_by_hand, documents, migrate_by_hand,
};

fn codec(c: &mut Criterion) {
    let (doc, hand, bytes) = documents();

    let mut group = c.benchmark_group("decode");
    group.bench_function("serde_json", |b| {
        b.iter(|| serde_json::from_slice::<HandWritten>(black_box(&bytes)).unwrap())
    });
    group.bench_function("serde_json with checks", |b| {
        b.iter(|| HandWritten::read(black_box(&bytes)).unwrap())
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

    let mut group = c.benchmark_group("migrate 1.0 to 3.0");
    group.bench_function("serde_json Value", |b| {
        b.iter(|| migrate_by_hand(black_box(V1)))
    });
    group.bench_function("docmodel", |b| {
        b.iter(|| Doc::<Migrated>::from_slice(black_box(V1)).unwrap())
    });
    group.finish();

    let mut group = c.benchmark_group("typed step 2.0 to 3.0");
    group.bench_function("serde_json From", |b| {
        b.iter(|| convert_by_hand(black_box(V2)))
    });
    group.bench_function("docmodel", |b| {
        b.iter(|| Doc::<TypedUser>::from_slice(black_box(V2)).unwrap())
    });
    group.finish();

    let mut group = c.benchmark_group("key");
    group.bench_function("format", |b| {
        b.iter(|| format!("user::{}", black_box(123_456u64)))
    });
    group.bench_function("docmodel", |b| b.iter(|| User::key(black_box(123_456))));
    group.finish();

    let mut group = c.benchmark_group("key, one string part");
    group.bench_function("format", |b| {
        b.iter(|| format!("profile::{}", black_box("copilotmarks61569")))
    });
    group.bench_function("docmodel", |b| {
        b.iter(|| Profile::key(black_box("copilotmarks61569")).unwrap())
    });
    group.finish();

    let mut group = c.benchmark_group("key, string and u64");
    group.bench_function("format", |b| {
        b.iter(|| format!("member::{}::{}", black_box("acme"), black_box(123_456u64)))
    });
    group.bench_function("docmodel", |b| {
        b.iter(|| Member::key(black_box("acme"), black_box(123_456)).unwrap())
    });
    group.finish();
}

/// A key of one string part, the seeds' `userProfile::{username}`.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "profile", schema = "1.0", key = "profile::{username}")]
struct Profile {
    username: String,
}

/// A key of a string part and an integer part.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "member", schema = "1.0", key = "member::{org}::{id}")]
struct Member {
    org: String,
    id: u64,
}

criterion_group!(benches, codec);
criterion_main!(benches);
