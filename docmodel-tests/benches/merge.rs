//! The cost of a three-way merge against reading its three documents: `Merge::json` of a base and two sides,
//! each side with small edits at places of its own (ours at both ends of the list, theirs in its middle, so
//! that the whole list is aligned), against `serde_json::from_slice` of the same three
//! documents (the floor: a merge reads them at least). Lists of objects with an identity (`merge(by = "id")`,
//! aligned by it) and without one (aligned by equality and similarity), at about 1 KB, 100 KB and 1 MB a
//! document. The throughput is the three documents' bytes: criterion reports the cost per byte.
//!
//! `cargo bench -p docmodel-benches --bench merge`, then `cargo run -p docmodel-tests --bin bench-ratios`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use docmodel::merge::{FieldMerge, Merge, MergeRules};
use serde_json::{Value, json};

/// The rules of the lists with an identity.
const BY_ID: MergeRules = MergeRules::NONE.fields(&[FieldMerge::new("items").by("id")]);

/// A document of `count` objects under `items`, each of 20 fields holding a list of 31 numbers (the issue's
/// 1 MB document at 256), and an `id` where `ids`.
fn document(count: u64, ids: bool) -> Value {
    let items: Vec<Value> = (0..count)
        .map(|n| {
            let mut object = serde_json::Map::new();
            if ids {
                object.insert("id".into(), json!(n));
            }
            for field in 0..20 {
                let numbers: Vec<u64> = (0..31).map(|k| n * 1_000 + field * 31 + k).collect();
                object.insert(format!("f{field}"), json!(numbers));
            }
            Value::Object(object)
        })
        .collect();
    json!({ "items": items })
}

/// The base and two sides: ours edits a number of the first object and of the last (so that the whole list
/// is one stretch to align), theirs a number of the middle one.
fn three(count: u64, ids: bool) -> [Vec<u8>; 3] {
    let base = document(count, ids);
    let last = count as usize - 1;
    let mut ours = base.clone();
    ours["items"][0]["f0"][0] = json!(-1);
    ours["items"][last]["f1"][0] = json!(-3);
    let mut theirs = base.clone();
    theirs["items"][last / 2]["f19"][30] = json!(-2);
    [base, ours, theirs].map(|value| serde_json::to_vec(&value).unwrap())
}

fn merge(c: &mut Criterion) {
    let mut group = c.benchmark_group("merge");
    // About 1 KB, 100 KB and 1 MB a document.
    for (size, count) in [("1KB", 1), ("100KB", 26), ("1MB", 256)] {
        for (lists, ids) in [("ids", true), ("no ids", false)] {
            let docs = three(count, ids);
            let bytes: usize = docs.iter().map(Vec::len).sum();
            group.throughput(Throughput::Bytes(bytes as u64));
            let rules = if ids { &BY_ID } else { &MergeRules::NONE };
            let values: Vec<Value> = docs
                .iter()
                .map(|doc| serde_json::from_slice(doc).unwrap())
                .collect();
            // Both edits kept: the merge this measures is the one a user gets.
            let merged = Merge::new(rules)
                .json(&values[0], &values[1], &values[2])
                .unwrap();
            let last = count as usize - 1;
            assert_eq!(merged["items"][0]["f0"][0], json!(-1));
            assert_eq!(merged["items"][last]["f1"][0], json!(-3));
            assert_eq!(merged["items"][last / 2]["f19"][30], json!(-2));
            let name = format!("{size}, {lists}");
            group.bench_function(BenchmarkId::new("read three", &name), |b| {
                b.iter(|| {
                    for doc in &docs {
                        black_box(serde_json::from_slice::<Value>(black_box(doc)).unwrap());
                    }
                })
            });
            group.bench_function(BenchmarkId::new("read three and merge", &name), |b| {
                b.iter(|| {
                    let values: Vec<Value> = docs
                        .iter()
                        .map(|doc| serde_json::from_slice(black_box(doc)).unwrap())
                        .collect();
                    black_box(Merge::new(rules).json(&values[0], &values[1], &values[2]))
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, merge);
criterion_main!(benches);
