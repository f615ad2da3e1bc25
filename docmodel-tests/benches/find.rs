//! Finding documents on Redb, as ratios within one run:
//!
//! - `indexed`: an equality on an indexed field returning one page of 10 orders, from a store of 10,000
//!   orders and from one of 100,000; the floor is reading those 10 orders by key (`Repo::get_many`). The
//!   same find at both sizes: its growth.
//! - `unindexed`: a filter no index serves, over 1,000 orders, in a store holding only them and in one that
//!   also holds 100,000 documents of another model: the scan reads the model's key range only.
//! - `unindexed growth`: that filter over 10,000 orders and over 100,000, per order the store holds: the scan
//!   reads each order once.
//!
//! `cargo bench -p docmodel-benches --bench find`

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use docmodel::store::Redb;
use docmodel::{DocModel, Query, Repo};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "order", schema = "1.0", key = "order::{order_id}")]
#[docmodel(index = "customer_no")]
struct Order {
    order_id: u64,
    customer_no: u64,
    status: String,
    total_cents: i64,
}

/// Another model's documents, under another key prefix.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(type = "event", schema = "1.0", key = "event::{id}")]
struct Event {
    id: u64,
    payload: String,
}

fn order(order_id: u64, customers: u64) -> Order {
    Order {
        order_id,
        customer_no: order_id % customers,
        status: ["open", "paid", "shipped"][(order_id % 3) as usize].to_owned(),
        total_cents: (order_id % 997) as i64 * 10,
    }
}

/// A Redb store of `orders` orders, 10 to each customer, with its index built, and `events` other documents.
fn store(orders: u64, events: u64) -> Redb {
    let store = Redb::in_memory().unwrap();
    pollster::block_on(async {
        let repo = Repo::<Order>::new(&store);
        repo.ensure_indexes().await.unwrap();
        for id in 0..orders {
            repo.insert(order(id, orders / 10)).await.unwrap();
        }
        let other = Repo::<Event>::new(&store);
        for id in 0..events {
            other
                .insert(Event {
                    id,
                    payload: "x".repeat(64),
                })
                .await
                .unwrap();
        }
    });
    store
}

fn find(c: &mut Criterion) {
    let query = Query::new(Order::fields().customer_no.eq(7)).limit(10);

    let scanned = Query::new(Order::fields().status.eq("paid")).limit(10);
    let stores = [10_000u64, 100_000].map(|orders| (orders, store(orders, 0)));
    let mut group = c.benchmark_group("indexed");
    for (orders, store) in &stores {
        let repo = Repo::<Order>::new(store);
        let page = pollster::block_on(repo.find(&query)).unwrap();
        assert_eq!(page.docs.len(), 10);
        let keys: Vec<_> = page.docs.iter().map(|doc| doc.key().clone()).collect();
        group.bench_function(format!("get_many of the 10, {orders} orders"), |b| {
            b.iter(|| pollster::block_on(repo.get_many(black_box(&keys))).unwrap())
        });
        group.bench_function(format!("find, {orders} orders"), |b| {
            b.iter(|| pollster::block_on(repo.find(black_box(&query))).unwrap())
        });
    }
    group.finish();

    let mut group = c.benchmark_group("unindexed growth");
    for (orders, store) in &stores {
        let repo = Repo::<Order>::new(store);
        group.throughput(Throughput::Elements(*orders));
        group.bench_function(format!("find, {orders} orders"), |b| {
            b.iter(|| pollster::block_on(repo.find(black_box(&scanned))).unwrap())
        });
    }
    group.finish();

    let mut group = c.benchmark_group("unindexed");
    for events in [0u64, 100_000] {
        let store = store(1_000, events);
        let repo = Repo::<Order>::new(&store);
        group.bench_function(format!("find, 1000 orders and {events} events"), |b| {
            b.iter(|| pollster::block_on(repo.find(black_box(&scanned))).unwrap())
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    targets = find
}
criterion_main!(benches);
