//! `Repo::migrate_all` on a Redb file (each commit waits for the disk), as a ratio within one run: 1,000
//! users at the seeds' schema 1.0 brought to 3.0 by docmodel's migration chain, against the loop a user
//! would write without docmodel over the same store (list the keys; for each, get it, edit it as a
//! `serde_json::Value` with the same two steps, and replace it by its token). The model keeps no revisions,
//! so both write the same documents.
//!
//! `cargo bench -p docmodel-benches --bench migrate`, then `cargo run -p docmodel-tests --bin bench-ratios`.

use docmodel_tests::keys_under;
use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use docmodel::store::{Redb, Store, Write, WriteOptions};
use docmodel::{DocModel, Repo};
use docmodel_tests::seeds::{Phone, phone_to_phones, split_name};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}")]
#[docmodel(migrate_from("1.0" = split_name, "2.0" = phone_to_phones))]
struct User {
    user_id: u64,
    first_name: String,
    last_name: String,
    phones: Vec<Phone>,
}

const USERS: u64 = 1_000;

/// A Redb file, removed when the store is done with.
struct Seeded {
    store: Option<Redb>,
    path: std::path::PathBuf,
}

impl std::ops::Deref for Seeded {
    type Target = Redb;

    fn deref(&self) -> &Redb {
        self.store
            .as_ref()
            .expect("the store is there until the value is dropped")
    }
}

impl Drop for Seeded {
    fn drop(&mut self) {
        drop(self.store.take());
        let _ = std::fs::remove_file(&self.path);
    }
}

/// A new Redb file holding `USERS` users at schema 1.0, written in one transaction.
fn seeded() -> Seeded {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!(
        "docmodel-bench-migrate-{}-{n}.redb",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    let store = Redb::open(&path).unwrap();
    let docs: Vec<(String, Vec<u8>)> = (0..USERS)
        .map(|id| {
            let doc = format!(
                r#"{{"_type":"user","_schema":"1.0","_ver":1,"userId":{id},"name":"Joe Smith","phone":"12345{id}"}}"#
            );
            (format!("user::{id}"), doc.into_bytes())
        })
        .collect();
    let writes: Vec<Write<'_>> = docs
        .iter()
        .map(|(key, value)| Write::Insert { key, value })
        .collect();
    pollster::block_on(store.write_atomic(&writes, &WriteOptions::DEFAULT)).unwrap();
    Seeded {
        store: Some(store),
        path,
    }
}

/// The loop a user writes without docmodel: every key, read, edited as a `Value`, replaced by its token.
async fn by_hand(store: &Redb) -> usize {
    let mut migrated = 0;
    for key in keys_under(&store, "user::").await {
        let Some(stored) = store.get(&key).await.unwrap() else {
            continue;
        };
        let mut value: serde_json::Value = serde_json::from_slice(&stored.bytes).unwrap();
        let doc = value.as_object_mut().unwrap();
        if doc["_schema"] != "1.0" {
            continue;
        }
        split_name(doc).unwrap();
        phone_to_phones(doc).unwrap();
        doc.insert("_schema".into(), "3.0".into());
        let ver = doc["_ver"].as_u64().unwrap() + 1;
        doc.insert("_ver".into(), ver.into());
        let bytes = serde_json::to_vec(&value).unwrap();
        store.replace(&key, &bytes, &stored.cas).await.unwrap();
        migrated += 1;
    }
    migrated
}

fn migrate(c: &mut Criterion) {
    let mut group = c.benchmark_group("migrate_all");
    group.bench_function("by hand, 1000 users", |b| {
        b.iter_batched(
            seeded,
            |store| {
                assert_eq!(
                    pollster::block_on(by_hand(black_box(&*store))),
                    USERS as usize
                )
            },
            BatchSize::PerIteration,
        )
    });
    group.bench_function("migrate_all, 1000 users", |b| {
        b.iter_batched(
            seeded,
            |store| {
                let users = Repo::<User>::new(black_box(&*store));
                let report = pollster::block_on(users.migrate_all()).unwrap();
                assert_eq!(report.migrated, USERS);
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_secs(1));
    targets = migrate
}
criterion_main!(benches);
