//! Indexes kept by the repository on stores that list keys (`#[docmodel(index = "...")]`): the entries each
//! write keeps, what an indexed find reads, `ensure_indexes` over documents written before an index, and a
//! failure at every store operation of a write leaving every document found by its values.

use docmodel::store::{MemoryStore, Redb, Store};
use docmodel::{DocModel, Error, Filter, JsonObject, MigrationError, Query, Repo};
use docmodel_tests::{CountingStore, FailingStore, Op, Operation};
use serde::{Deserialize, Serialize};

/// The seeds' order, found by customer and by state and total.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(
    type = "order",
    schema = "2.0",
    key = "order::{order_id}",
    revisions = 1
)]
#[docmodel(migrate_from("1.0" = from_1_0), lookup = "order_no::{number}")]
#[docmodel(index = "customer_no", index = "status, total_cents")]
struct Order {
    #[docmodel(get)]
    order_id: u64,
    #[docmodel(get, set)]
    #[docmodel(allow(reserved_word))]
    number: String,
    #[docmodel(get, set)]
    customer_no: u64,
    #[docmodel(get, set)]
    status: String,
    total_cents: i64,
}

fn from_1_0(_: &mut JsonObject) -> Result<(), MigrationError> {
    Ok(())
}

/// The same documents written by a program that declares no index (or an older schema).
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "order", schema = "1.0", key = "order::{order_id}")]
struct OrderWithoutIndexes {
    order_id: u64,
    #[docmodel(allow(reserved_word))]
    number: String,
    customer_no: u64,
    status: String,
    total_cents: i64,
}

fn order(order_id: u64, customer_no: u64, status: &str, total_cents: i64) -> Order {
    Order {
        order_id,
        number: format!("N{order_id}"),
        customer_no,
        status: status.into(),
        total_cents,
    }
}

async fn ids<S: Store>(repo: &Repo<Order, S>, filter: Filter<Order>) -> Vec<u64> {
    let page = repo.find(&Query::new(filter).limit(10_000)).await.unwrap();
    let mut ids: Vec<u64> = page.docs.iter().map(|doc| doc.order_id()).collect();
    ids.sort_unstable();
    ids
}

/// `customer_no` 12345 as its entry writes it: a number (`3`), its `f64` bits made to sort, `!`.
const C12345: &str = "3c0c81c8000000000!";
/// `"open"` as hex of its bytes.
const OPEN: &str = "46f70656e!";

#[tokio::test]
async fn each_write_keeps_the_entries_of_its_values() {
    let store = MemoryStore::new();
    let orders = Repo::<Order>::new(&store);
    orders.ensure_indexes().await.unwrap();
    let markers = [
        "index::order::@schema",
        "index::order::customer_no",
        "index::order::status,total_cents",
    ];
    assert_eq!(store.keys(), markers);
    assert_eq!(
        docmodel_tests::text(&store, "index::order::customer_no")
            .await
            .unwrap(),
        r#"{"complete":true,"index":"customer_no","paths":[["customerNo"]]}"#
    );

    orders.insert(order(1, 12345, "open", 1_000)).await.unwrap();
    let schema_2_0 = "000000000000000200000000000000000000000000000000!";
    let entries = |status: &str, total: &str| {
        let mut keys: Vec<String> = markers.iter().map(|key| (*key).to_owned()).collect();
        keys.extend([
            format!("index::order::@schema::{schema_2_0}order::1"),
            format!("index::order::customer_no::{C12345}order::1"),
            format!("index::order::status,total_cents::{status}{total}order::1"),
            "order::1".to_owned(),
            "order_no::N1".to_owned(),
        ]);
        keys.sort();
        keys
    };
    let total_1000 = "3c08f400000000000!";
    assert_eq!(store.keys(), entries(OPEN, total_1000));
    assert_eq!(
        docmodel_tests::text(
            &store,
            &format!("index::order::customer_no::{C12345}order::1")
        )
        .await
        .unwrap(),
        r#"{"ref":"order::1"}"#
    );

    // A save that changes an indexed field moves that entry only; one that changes none touches none.
    let paid = "470616964!";
    orders
        .update(&Order::key(1), |order| order.set_status("paid"))
        .await
        .unwrap();
    let mut expected = entries(paid, total_1000);
    expected.push("order::1::v::1".into());
    expected.sort();
    assert_eq!(store.keys(), expected);
    let counted = CountingStore::new(&store);
    let mut doc = Repo::<Order>::new(&counted)
        .get(&Order::key(1))
        .await
        .unwrap()
        .unwrap();
    doc.set_number("N1");
    counted.take();
    Repo::<Order>::new(&counted).save(&mut doc).await.unwrap();
    assert_eq!(
        counted.take(),
        [
            Op::Insert("order::1::v::2".into()),
            Op::Replace("order::1".into()),
            Op::Get("order::1::v::1".into()),
            Op::Remove("order::1::v::1".into()),
        ]
    );

    orders.remove(&Order::key(1)).await.unwrap();
    assert_eq!(store.keys(), markers);
}

/// An equality on an indexed field reads its entries and the documents they name, nothing else; the results
/// are what reading every document gives.
#[tokio::test]
async fn an_indexed_find_reads_only_the_documents_it_returns() {
    let store = CountingStore::new(Redb::in_memory().unwrap());
    let orders = Repo::<Order>::new(&store);
    orders.ensure_indexes().await.unwrap();
    for id in 1..=300 {
        let status = ["open", "paid", "shipped"][(id % 3) as usize];
        orders
            .insert(order(id, id % 30, status, (id as i64) * 10))
            .await
            .unwrap();
    }
    store.take();
    let f = Order::fields();
    let found = ids(&orders, f.customer_no.eq(7)).await;
    assert_eq!(found, (0..10).map(|n| n * 30 + 7).collect::<Vec<_>>());
    let ops = store.take();
    let read: Vec<&Vec<String>> = ops
        .iter()
        .filter_map(|op| match op {
            Op::GetMany(keys) if keys[0].starts_with("order::") => Some(keys),
            _ => None,
        })
        .collect();
    assert_eq!(read.len(), 1, "{ops:?}");
    assert_eq!(read[0].len(), 10);
    assert!(!ops.iter().any(|op| matches!(op, Op::Scan(_))), "{ops:?}");
    assert!(ops.contains(&Op::ScanRange(
        "index::order::customer_no::3c01c000000000000!".into(),
        "index::order::customer_no::3c01c000000000000\"".into()
    )));

    // A range on the second field of a compound index, after an equality on the first.
    let filter = f.status.eq("paid").and(f.total_cents.lt(1_000));
    let expected: Vec<u64> = (1..=99).filter(|id| id % 3 == 1).collect();
    assert_eq!(ids(&orders, filter).await, expected);
    let ops = store.take();
    assert!(!ops.iter().any(|op| matches!(op, Op::Scan(_))), "{ops:?}");

    // Filters no index serves read the model's documents, and agree with the indexed ones.
    let scanned = ids(&orders, f.customer_no.eq(7).or(f.customer_no.eq(7))).await;
    assert_eq!(scanned, found);
    assert!(store.take().contains(&Op::Scan("order::".into())));
    assert_eq!(orders.count(&f.customer_no.eq(7)).await.unwrap(), 10);
}

/// Documents written before an index was declared are not in it: a find reads every document until
/// `ensure_indexes` has built the index, and finds the same after.
#[tokio::test]
async fn ensure_indexes_builds_what_earlier_writes_left_out() {
    let store = CountingStore::new(MemoryStore::new());
    let before = Repo::<OrderWithoutIndexes>::new(&store);
    for id in 1..=20 {
        before
            .insert(OrderWithoutIndexes {
                order_id: id,
                number: format!("N{id}"),
                customer_no: id % 4,
                status: "open".into(),
                total_cents: 100,
            })
            .await
            .unwrap();
    }
    let orders = Repo::<Order>::new(&store);
    // Written with the index declared, before it is built: its own entries are kept already.
    orders.insert(order(21, 1, "open", 5)).await.unwrap();
    store.take();
    let f = Order::fields();
    let expected = vec![1, 5, 9, 13, 17, 21];
    let page = orders
        .find(&Query::new(f.customer_no.eq(1)).limit(100))
        .await
        .unwrap();
    let mut found: Vec<u64> = page.docs.iter().map(|doc| doc.order_id()).collect();
    found.sort_unstable();
    assert_eq!(found, expected);
    assert_eq!(page.older_schema, 20, "the documents written at 1.0");
    assert!(
        store.take().contains(&Op::Scan("order::".into())),
        "not built: every document is read"
    );

    orders.ensure_indexes().await.unwrap();
    store.take();
    let page = orders
        .find(&Query::new(f.customer_no.eq(1)).limit(100))
        .await
        .unwrap();
    let mut found: Vec<u64> = page.docs.iter().map(|doc| doc.order_id()).collect();
    found.sort_unstable();
    assert_eq!(found, expected);
    assert_eq!(page.older_schema, 20, "counted through the schema index");
    let ops = store.take();
    assert!(!ops.iter().any(|op| matches!(op, Op::Scan(_))), "{ops:?}");

    // Built once: a second call reads the markers only.
    orders.ensure_indexes().await.unwrap();
    assert_eq!(store.take().len(), 1);

    // A document migrated by a save leaves the schema index's older range.
    orders
        .update(&Order::key(1), |order| order.set_customer_no(2u64))
        .await
        .unwrap();
    let page = orders
        .find(&Query::new(f.customer_no.eq(1)).limit(100))
        .await
        .unwrap();
    assert_eq!(page.docs.len(), 5);
    assert_eq!(page.older_schema, 19);
}

/// The state every find relies on: each document has the entries of its values, so an indexed find returns
/// what reading every document returns.
async fn assert_indexed_finds_agree<S: Store>(store: &S, context: &str) {
    let orders = Repo::<Order>::new(store);
    let f = Order::fields();
    for customer in 0..4 {
        let indexed = ids(&orders, f.customer_no.eq(customer)).await;
        let scanned = ids(&orders, f.customer_no.in_([customer])).await;
        assert_eq!(indexed, scanned, "{context}: customer {customer}");
    }
    for status in ["open", "paid"] {
        let indexed = ids(&orders, f.status.eq(status).and(f.total_cents.ge(0))).await;
        let scanned = ids(&orders, f.status.in_([status])).await;
        assert_eq!(indexed, scanned, "{context}: status {status}");
    }
}

async fn seeded() -> FailingStore<MemoryStore> {
    let store = FailingStore::new(MemoryStore::new());
    let orders = Repo::<Order>::new(&store);
    orders.ensure_indexes().await.unwrap();
    orders.insert(order(1, 1, "open", 10)).await.unwrap();
    orders.insert(order(2, 1, "open", 20)).await.unwrap();
    store
}

/// A failure at each store operation of an insert, a save that moves indexed values and a lookup, and a
/// removal: every document is found by its values afterwards, and the retry completes.
#[tokio::test]
async fn a_failure_at_any_step_leaves_every_document_found_by_its_values() {
    let mut points = 0;
    for write in ["insert", "save", "remove"] {
        for k in 1.. {
            let store = seeded().await;
            let orders = Repo::<Order>::new(&store);
            let mut doc = orders.get(&Order::key(2)).await.unwrap().unwrap();
            store.fail_at(k);
            let result = match write {
                "insert" => orders.insert(order(3, 2, "paid", 30)).await.map(drop),
                "save" => {
                    doc.set_customer_no(3u64);
                    doc.set_status("paid");
                    doc.set_number("M2");
                    orders.save(&mut doc).await
                }
                _ => orders.remove(&Order::key(2)).await,
            };
            let ran = store.count();
            store.fail_at(0);
            let context = format!("{write}, failure at {k}: {result:?}");
            assert_indexed_finds_agree(&store, &context).await;
            if ran < k {
                result.unwrap();
                break;
            }
            points += 1;
            // The retry completes, and the entries follow it.
            match write {
                "insert" if result.is_err() => {
                    orders.insert(order(3, 2, "paid", 30)).await.unwrap();
                }
                "save" if result.is_err() => {
                    let mut doc = orders.get(&Order::key(2)).await.unwrap().unwrap();
                    doc.set_customer_no(3u64);
                    doc.set_status("paid");
                    doc.set_number("M2");
                    orders.save(&mut doc).await.unwrap();
                }
                "remove" if result.is_err() => match orders.remove(&Order::key(2)).await {
                    // The failure came after the document was gone.
                    Ok(()) | Err(Error::NotFound { .. }) => {}
                    Err(err) => panic!("{context}: {err:?}"),
                },
                _ => {}
            }
            assert_indexed_finds_agree(&store, &format!("{context}, retried")).await;
            let f = Order::fields();
            let expected: &[u64] = match write {
                "insert" => &[3],
                "save" => &[2],
                _ => &[],
            };
            assert_eq!(
                ids(
                    &orders,
                    f.customer_no.eq(if write == "insert" { 2 } else { 3 })
                )
                .await,
                expected,
                "{context}"
            );
        }
    }
    // Each write's operations, each failed once.
    assert!(points >= 15, "{points}");
}

/// A compound index serves an equality on its leading field alone, and a document that lacks a later field
/// is found by it.
#[tokio::test]
async fn a_document_lacking_a_later_field_is_found_by_the_leading_one() {
    #[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
    #[docmodel(type = "ticket", schema = "1.0", key = "ticket::{id}")]
    #[docmodel(index = "queue, assignee")]
    struct Ticket {
        id: u64,
        queue: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        assignee: Option<String>,
    }
    let store = CountingStore::new(MemoryStore::new());
    let tickets = Repo::<Ticket>::new(&store);
    tickets.ensure_indexes().await.unwrap();
    for (id, assignee) in [(1, None), (2, Some("ann")), (3, None)] {
        tickets
            .insert(Ticket {
                id,
                queue: "support".into(),
                assignee: assignee.map(str::to_owned),
            })
            .await
            .unwrap();
    }
    store.take();
    let f = Ticket::fields();
    let page = tickets
        .find(&Query::new(f.queue.eq("support")))
        .await
        .unwrap();
    let ids: Vec<u64> = page.docs.iter().map(|doc| doc.id).collect();
    assert_eq!(ids, [1, 2, 3]);
    assert!(!store.take().iter().any(|op| matches!(op, Op::Scan(_))));
    let page = tickets
        .find(&Query::new(
            f.queue
                .eq("support")
                .and(f.assignee.eq(Some("ann".to_owned()))),
        ))
        .await
        .unwrap();
    assert_eq!(page.docs.len(), 1);
}

/// An insert that finds the entries of the document it replaces still there (written again, held) while a
/// removal of that document reads their tokens, removes it, and releases them: the new document keeps them.
#[tokio::test]
async fn an_insert_racing_the_removal_of_the_key_keeps_its_entries() {
    let store = std::sync::Arc::new(docmodel_tests::PauseStore::new(MemoryStore::new()));
    let orders = Repo::<Order>::new(std::sync::Arc::clone(&store));
    orders.ensure_indexes().await.unwrap();
    orders.insert(order(1, 5, "open", 10)).await.unwrap();

    // The insert claims its entries (held: the old document's are there), then waits before writing.
    let paused = store.pause(Operation::Insert, "order::1");
    let inserting = {
        let orders = Repo::<Order>::new(std::sync::Arc::clone(&store));
        tokio::spawn(async move { orders.insert(order(1, 5, "open", 10)).await })
    };
    paused.reached.notified().await;
    // The removal reads the entries' tokens after that, removes the document and releases them.
    orders.remove(&Order::key(1)).await.unwrap();
    paused.release.notify_one();
    inserting.await.unwrap().unwrap();

    let f = Order::fields();
    assert_eq!(ids(&orders, f.customer_no.eq(5)).await, [1]);
    assert_eq!(
        ids(&orders, f.status.eq("open").and(f.total_cents.ge(0))).await,
        [1]
    );
    let keys = docmodel_tests::keys(&store.inner).await;
    assert!(
        keys.iter()
            .any(|key| key.starts_with("index::order::@schema::") && key.ends_with("order::1")),
        "{keys:?}"
    );
}
