//! Writes on a Redb file (each commit waits for the disk), as ratios within one run:
//!
//! - `save`: `Repo::save` of a model keeping 10 revisions, its window full (a copy, the replace and a prune
//!   each save). `one batch` is the save as it runs on Redb, one transaction; `in steps` is the same save on
//!   the same store with its atomic batches hidden, one transaction per store operation, as every save ran
//!   before them; the floor is one bare `Store::replace` of the same bytes, one transaction.
//!
//! - `save, eventual Redb`: the user of the codec benchmarks in a model keeping 10 revisions, its window
//!   full, saved on a [`Redb::eventual`] handle (a commit does not wait for the disk, so docmodel's own work
//!   shows), against the same store operations by hand (`common::HandSaves::save`).
//!
//! - `load`: 1,000 new users, by `Repo::insert` one at a time (a transaction each) and by
//!   `Repo::insert_many` (one transaction), on a durable handle and on a [`Redb::eventual`] one.
//!
//! `cargo bench -p docmodel-benches --bench writes`, then `cargo run -p docmodel-tests --bin bench-ratios`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use docmodel::store::{Capabilities, Redb, Store};
use docmodel::{DocModel, Repo};
use docmodel_tests::{Hooked, Hooks};
use serde::{Deserialize, Serialize};

// Shared with the codec benchmarks, of which this one reads the saves with revisions only.
#[allow(dead_code)]
mod common;
use common::{HandSaves, Revised};

#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}", revisions = 10)]
struct User {
    #[docmodel(get)]
    user_id: u64,
    name: String,
    #[docmodel(get, set)]
    logins: u64,
}

/// Hooks hiding a Redb store's atomic batches: a repository over it saves in steps.
struct Steps;

impl Hooks<Redb> for Steps {
    fn capabilities(&self, inner: &Redb) -> Capabilities {
        inner.capabilities().with_atomic_writes(false)
    }
}

/// A Redb file in the temporary directory, new for this benchmark.
fn file(name: &str) -> Redb {
    let path =
        std::env::temp_dir().join(format!("docmodel-bench-{name}-{}.redb", std::process::id()));
    let _ = std::fs::remove_file(&path);
    Redb::open(path).unwrap()
}

/// A user saved until its window of 10 copies is full, and the save each iteration measures.
fn saves<S: Store>(store: &S) -> impl FnMut() + '_ {
    let users = Repo::<User>::new(store);
    let mut doc = pollster::block_on(users.insert(User {
        user_id: 1,
        name: "Joseph Smith".into(),
        logins: 0,
    }))
    .unwrap();
    let mut save = move || {
        let logins = doc.logins() + 1;
        doc.set_logins(logins);
        pollster::block_on(users.save(black_box(&mut doc))).unwrap();
    };
    for _ in 0..11 {
        save();
    }
    save
}

fn save(c: &mut Criterion) {
    let mut group = c.benchmark_group("save");
    let floor = file("replace");
    let mut cas = pollster::block_on(floor.insert("user::1", b"{}")).unwrap();
    let bytes = serde_json::to_vec(&User {
        user_id: 1,
        name: "Joseph Smith".into(),
        logins: 0,
    })
    .unwrap();
    group.bench_function("one replace", |b| {
        b.iter(|| {
            cas = pollster::block_on(floor.replace("user::1", black_box(&bytes), &cas)).unwrap()
        })
    });
    let atomic = file("atomic");
    {
        let mut save = saves(&atomic);
        group.bench_function("one batch", |b| b.iter(&mut save));
    }
    let steps = Hooked::with(file("steps"), Steps);
    {
        let mut save = saves(&steps);
        group.bench_function("in steps", |b| b.iter(&mut save));
    }
    group.finish();

    let mut group = c.benchmark_group("save, eventual Redb");
    let by_hand = file("hand-eventual").eventual();
    let mut hand = HandSaves::new(&by_hand);
    let kept = file("docmodel-eventual").eventual();
    let revised = Repo::<Revised>::new(&kept);
    let mut doc = pollster::block_on(revised.insert(Revised::new())).unwrap();
    for _ in 0..12 {
        hand.save();
        pollster::block_on(revised.save(&mut doc)).unwrap();
    }
    group.bench_function("by hand", |b| b.iter(|| hand.save()));
    group.bench_function("docmodel", |b| {
        b.iter(|| pollster::block_on(revised.save(black_box(&mut doc))).unwrap());
    });
    group.finish();
    drop((hand, revised));
    for store in [floor, atomic, steps.inner, by_hand, kept] {
        if let Some(path) = store.path().map(std::path::Path::to_owned) {
            drop(store);
            let _ = std::fs::remove_file(path);
        }
    }
}

/// How many users each `load` iteration inserts.
const LOAD: u64 = 1_000;

/// The next `LOAD` users, new to the store: each iteration takes ids after the last one's.
fn next_users(next: &mut u64) -> Vec<User> {
    let users = (*next..*next + LOAD)
        .map(|user_id| User {
            user_id,
            name: "Joseph Smith".into(),
            logins: 0,
        })
        .collect();
    *next += LOAD;
    users
}

fn load(c: &mut Criterion) {
    let mut group = c.benchmark_group("load");
    let durable = file("load");
    let eventual = file("load-eventual").eventual();
    for (name, store) in [("durable", &durable), ("eventual", &eventual)] {
        let users = Repo::<User>::new(store);
        let mut next = 0;
        group.bench_function(format!("insert, {name}, {LOAD} users"), |b| {
            b.iter(|| {
                for user in next_users(&mut next) {
                    pollster::block_on(users.insert(user)).unwrap();
                }
            })
        });
        group.bench_function(format!("insert_many, {name}, {LOAD} users"), |b| {
            b.iter(|| {
                let outcomes =
                    pollster::block_on(users.insert_many(next_users(&mut next))).unwrap();
                assert!(outcomes.iter().all(Result::is_ok));
            })
        });
    }
    eventual.flush().unwrap();
    group.finish();
    for store in [durable, eventual] {
        if let Some(path) = store.path().map(std::path::Path::to_owned) {
            drop(store);
            let _ = std::fs::remove_file(path);
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    targets = save
}
criterion_group! {
    name = loads;
    config = Criterion::default()
        .sample_size(10)
        .measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_secs(1));
    targets = load
}
criterion_main!(benches, loads);
