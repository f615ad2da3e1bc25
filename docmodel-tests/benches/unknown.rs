//! Fields a model does not know: documents of 10 and 100 body fields stored with 10, 100 or 1,000 fields
//! the model does not know (a newer version's, say), interleaved with its own. docmodel keeps every one of
//! them (as raw JSON, written back unchanged); the hand-written serde struct ignores them. (A body of 1,000
//! fields is left out: serde_derive's code for one takes over ten CPU-minutes to compile in release.)
//!
//! - `decode, B+U`: `Doc::from_slice` of B body and U unknown fields, against `serde_json::from_slice` of a
//!   struct with the same fields. The throughput is the document's bytes, so criterion's report gives the
//!   cost per byte at each width: it should not grow with the number of fields.
//! - `round trip, B+U`: read and write back unchanged, against the same through a `serde_json::Value`, the
//!   other way to keep fields one does not know.
//!
//! `cargo bench -p docmodel-benches --bench unknown`, then `cargo run -p docmodel-tests --bin bench-ratios`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use docmodel::Doc;
use serde::de::DeserializeOwned;

mod wide {
    include!(concat!(env!("OUT_DIR"), "/wide.rs"));
}
use wide::{HandWide10, HandWide100, Wide10, Wide100};

/// A stored document of `body` body fields (`id`, `field0001`...) and `unknown` fields the model does not
/// know, spread evenly among them.
fn document(body: usize, unknown: usize) -> Vec<u8> {
    let mut text = String::from(r#"{"_type":"wide","_schema":"1.0","_ver":1,"id":7"#);
    let mut written = 0;
    for i in 0..body {
        if i > 0 {
            text.push_str(&format!(r#","field{i:04}":"the value of field {i:04}""#));
        }
        // The unknown fields due by the end of this body field.
        while written < unknown * (i + 1) / body {
            text.push_str(&format!(
                r#","extra{written:04}":"a value this code does not know""#
            ));
            written += 1;
        }
    }
    text.push('}');
    text.into_bytes()
}

fn width<Model, Hand>(c: &mut Criterion, body: usize, unknown: usize)
where
    Model: docmodel::DocModel + docmodel::KeyInBody + serde::Serialize + DeserializeOwned,
    Hand: DeserializeOwned,
{
    let bytes = document(body, unknown);
    let doc = Doc::<Model>::from_slice(&bytes).unwrap();
    assert_eq!(
        doc.unknown_fields().count(),
        unknown,
        "every unknown field kept"
    );
    let value = |bytes: &[u8]| serde_json::from_slice::<serde_json::Value>(bytes).unwrap();
    assert_eq!(
        value(&doc.to_vec().unwrap()),
        value(&bytes),
        "written back with every field"
    );

    let mut group = c.benchmark_group("unknown fields");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    let n = format!("{body}+{unknown}");
    group.bench_function(BenchmarkId::new("decode, serde_json", &n), |b| {
        b.iter(|| serde_json::from_slice::<Hand>(black_box(&bytes)).unwrap())
    });
    group.bench_function(BenchmarkId::new("decode, docmodel", &n), |b| {
        b.iter(|| Doc::<Model>::from_slice(black_box(&bytes)).unwrap())
    });
    group.bench_function(BenchmarkId::new("round trip, serde_json Value", &n), |b| {
        b.iter(|| {
            let value: serde_json::Value = serde_json::from_slice(black_box(&bytes)).unwrap();
            serde_json::to_vec(&value).unwrap()
        })
    });
    group.bench_function(BenchmarkId::new("round trip, docmodel", &n), |b| {
        b.iter(|| {
            Doc::<Model>::from_slice(black_box(&bytes))
                .unwrap()
                .to_vec()
                .unwrap()
        })
    });
    group.finish();
}

fn unknown(c: &mut Criterion) {
    width::<Wide10, HandWide10>(c, 10, 10);
    width::<Wide100, HandWide100>(c, 100, 100);
    width::<Wide100, HandWide100>(c, 100, 1000);
}

criterion_group!(benches, unknown);
criterion_main!(benches);
