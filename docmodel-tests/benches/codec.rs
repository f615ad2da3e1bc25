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
use docmodel_tests::seeds::{Phone, phone_to_phones, split_name};
use serde::{Deserialize, Serialize};

mod common;
use common::{HandWritten, User, documents};

/// The seeds' user at 3.0, read from 1.0 through the two JSON steps.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}")]
#[docmodel(migrate_from("1.0" = split_name, "2.0" = phone_to_phones))]
struct Migrated {
    user_id: u64,
    first_name: String,
    last_name: String,
    phones: Vec<Phone>,
}

/// The same 3.0 user as a hand-written struct, with the envelope fields.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct HandMigrated {
    #[serde(rename = "_type")]
    doc_type: String,
    #[serde(rename = "_schema")]
    schema: String,
    #[serde(rename = "_ver")]
    ver: u64,
    user_id: u64,
    first_name: String,
    last_name: String,
    phones: Vec<Phone>,
}

/// The seeds' user at 2.0 as its own model, with its own chain from 1.0.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "2.0", key = "user::{user_id}", migrate_from("1.0" = split_name))]
struct UserV2 {
    user_id: u64,
    first_name: String,
    last_name: String,
    phone: String,
}

/// The 3.0 user read from 2.0 by a typed step: the 2.0 model, then `From`.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}", migrate_from("2.0" = UserV2))]
struct TypedUser {
    user_id: u64,
    first_name: String,
    last_name: String,
    phones: Vec<Phone>,
}

impl From<UserV2> for TypedUser {
    fn from(old: UserV2) -> Self {
        TypedUser {
            user_id: old.user_id,
            first_name: old.first_name,
            last_name: old.last_name,
            phones: vec![Phone {
                kind: "other".into(),
                number: old.phone,
            }],
        }
    }
}

/// The same 2.0 user as a hand-written struct, with the envelope fields.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct HandV2 {
    #[serde(rename = "_type")]
    doc_type: String,
    #[serde(rename = "_schema")]
    schema: String,
    #[serde(rename = "_ver")]
    ver: u64,
    user_id: u64,
    first_name: String,
    last_name: String,
    phone: String,
}

impl From<HandV2> for HandMigrated {
    fn from(old: HandV2) -> Self {
        HandMigrated {
            doc_type: old.doc_type,
            schema: "3.0".into(),
            ver: old.ver,
            user_id: old.user_id,
            first_name: old.first_name,
            last_name: old.last_name,
            phones: vec![Phone {
                kind: "other".into(),
                number: old.phone,
            }],
        }
    }
}

/// What a user writes without docmodel who knows the document is at 2.0: the 2.0 struct, its checks, `From`,
/// and the key. docmodel does not know the version before it reads it.
fn convert_by_hand(bytes: &[u8]) -> (String, HandMigrated) {
    let old: HandV2 = serde_json::from_slice(bytes).unwrap();
    assert!(old.doc_type == "user" && old.schema == "2.0");
    let key = format!("user::{}", old.user_id);
    (key, old.into())
}

const V2: &[u8] = br#"{"_type":"user","_schema":"2.0","_ver":1,"userId":123,"firstName":"Joe","lastName":"Smith","phone":"1234567890"}"#;

const V1: &[u8] =
    br#"{"_type":"user","_schema":"1.0","_ver":1,"userId":123,"name":"Joe Smith","phone":"1234567890"}"#;

/// What a user writes without docmodel: parse to a `Value`, apply the same steps, read the struct from it.
fn migrate_by_hand(bytes: &[u8]) -> HandMigrated {
    let mut value: serde_json::Value = serde_json::from_slice(bytes).unwrap();
    let doc = value.as_object_mut().unwrap();
    if doc["_schema"] == "1.0" {
        split_name(doc).unwrap();
    }
    if doc["_schema"] == "1.0" || doc["_schema"] == "2.0" {
        phone_to_phones(doc).unwrap();
    }
    doc.insert("_schema".into(), "3.0".into());
    serde_json::from_value(value).unwrap()
}

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
}

criterion_group!(benches, codec);
criterion_main!(benches);
