//! The performance floor: reading and writing a document, and building a key, against serde_json and
//! `format!` on a hand-written struct holding the same fields. Compare the pairs in one run; the ratios are
//! what count (DESIGN.md: at most 1.10x for decode and encode, 1.0x for keys).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use docmodel::{Doc, DocModel, Timestamp};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Phone {
    #[serde(rename = "type")]
    kind: String,
    number: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}")]
struct User {
    user_id: u64,
    first_name: String,
    last_name: String,
    email: String,
    active: bool,
    phones: Vec<Phone>,
}

/// What a careful hand-written model of the same document looks like without docmodel.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct HandWritten {
    #[serde(rename = "_type")]
    doc_type: String,
    #[serde(rename = "_schema")]
    schema: String,
    #[serde(rename = "_ver")]
    ver: u64,
    #[serde(rename = "_created")]
    created: i64,
    #[serde(rename = "_modified")]
    modified: i64,
    user_id: u64,
    first_name: String,
    last_name: String,
    email: String,
    active: bool,
    phones: Vec<Phone>,
}

fn user() -> User {
    User {
        user_id: 123_456,
        first_name: "Joseph".into(),
        last_name: "Smith".into(),
        email: "joseph.smith@example.com".into(),
        active: true,
        phones: vec![
            Phone {
                kind: "mobile".into(),
                number: "1234567890".into(),
            },
            Phone {
                kind: "home".into(),
                number: "1112223333".into(),
            },
        ],
    }
}

fn codec(c: &mut Criterion) {
    let mut doc = Doc::new(user()).unwrap();
    doc.envelope_mut().created = Some(Timestamp::from_millis(1_544_759_124_478));
    doc.envelope_mut().modified = Some(Timestamp::from_millis(1_544_759_200_000));
    let bytes = doc.to_vec().unwrap();
    let hand: HandWritten = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(
        serde_json::to_vec(&hand).unwrap(),
        bytes,
        "both write the same document"
    );

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
