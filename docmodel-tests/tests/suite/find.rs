//! Finding documents, the same cases on every store (`MemoryStore`, `Redb`, `CouchDb` against a real
//! CouchDB-protocol server, and `Couchbase` through SQL++ where a cluster is given, with the feature
//! `couchbase`): typed field paths, every filter operator, keyset pages in both directions, and only the
//! model's own documents.

use std::collections::BTreeSet;

use docmodel::store::{CouchDb, MemoryStore, Redb, Store};
use docmodel::{
    Direction, DocModel, Embedded, Error, Filter, JsonObject, MigrationError, Query, Repo,
    Timestamp,
};
use docmodel_tests::Fresh;
#[cfg(feature = "couchbase")]
use docmodel_tests::couchbase::Listed;
use serde::{Deserialize, Serialize};

/// The seeds' order, found by customer: what a unique lookup cannot do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(
    type = "order",
    schema = "2.0",
    key = "order::{order_id}",
    revisions = 2
)]
#[docmodel(migrate_from("1.0" = total_to_cents), envelope(layout = "plain"))]
#[docmodel(index = "customer_no", index = "status, total_cents")]
// CouchDB sorts only through an index on the order field alone.
#[docmodel(index = "total_cents", index = "order_id", index = "status")]
struct Order {
    #[docmodel(get)]
    order_id: u64,
    #[docmodel(get, set)]
    customer_no: u64,
    #[serde(rename = "state")]
    status: String,
    total_cents: i64,
    tags: Vec<String>,
    #[serde(default)]
    coupon: Option<String>,
}

fn total_to_cents(doc: &mut JsonObject) -> Result<(), MigrationError> {
    let total = doc
        .remove("total")
        .and_then(|total| total.as_f64())
        .unwrap_or(0.0);
    doc.insert("totalCents".into(), ((total * 100.0).round() as i64).into());
    Ok(())
}

/// Another model whose keys look like orders': its documents are never an order's.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(type = "invoice", schema = "1.0", key = "order::{order_id}::invoice")]
#[docmodel(envelope(layout = "plain"))]
struct Invoice {
    order_id: u64,
}

fn order(order_id: u64, customer_no: u64, status: &str, total_cents: i64, tags: &[&str]) -> Order {
    Order {
        order_id,
        customer_no,
        status: status.into(),
        total_cents,
        tags: tags.iter().map(|tag| (*tag).to_owned()).collect(),
        coupon: None,
    }
}

/// Ten orders of three customers, one with a `null` coupon and one with a coupon.
fn orders() -> Vec<Order> {
    let mut orders = vec![
        order(1, 12345, "open", 1_000, &["gift"]),
        order(2, 777, "paid", 2_500, &[]),
        order(3, 12345, "paid", 500, &["gift", "express"]),
        order(4, 12345, "shipped", 12_000, &["express"]),
        order(5, 999, "open", 750, &[]),
        order(6, 777, "cancelled", 0, &["gift"]),
        order(7, 12345, "open", 3_000, &[]),
        order(8, 999, "shipped", 3_000, &["bulk"]),
        order(9, 777, "open", 4_200, &[]),
        order(10, 12345, "paid", 50, &[]),
    ];
    orders[4].coupon = Some("WELCOME".into());
    orders
}

/// A store holding the ten orders (two of them saved twice, so with revision copies), an invoice under a
/// key of the same shape, another model's document under an order key, and a counter.
async fn stocked<S: Fresh>() -> S {
    stocked_with(&[]).await
}

/// [`stocked`], with the documents `written` before as well (as an earlier program wrote them), all there
/// before the indexes are created.
async fn stocked_with<S: Fresh>(written: &[(&str, &str)]) -> S {
    let store = S::fresh().await;
    for (key, document) in written {
        store.insert(key, document.as_bytes()).await.unwrap();
    }
    let repo = Repo::<Order>::new(&store).clock(|| Timestamp::from_millis(1_000));
    for order in orders() {
        repo.insert(order).await.unwrap();
    }
    for order_id in [2, 3] {
        repo.update(&Order::key(order_id), |order| {
            order.tags.push("saved".into())
        })
        .await
        .unwrap();
        repo.update(&Order::key(order_id), |order| {
            order.tags.pop();
        })
        .await
        .unwrap();
    }
    Repo::<Invoice>::new(&store)
        .insert(Invoice { order_id: 1 })
        .await
        .unwrap();
    store
        .insert(
            "order::11",
            br#"{"type":"track","schema":"1.0","ver":1,"orderId":11,"customerNo":12345}"#,
        )
        .await
        .unwrap();
    // The model's type under a key of its shape that is not one of its keys (a part is not written as
    // docmodel writes it): never a document of the model.
    store
        .insert(
            "order::01",
            br#"{"type":"order","schema":"2.0","ver":1,"orderId":1,"customerNo":777,"state":"open","totalCents":1,"tags":[]}"#,
        )
        .await
        .unwrap();
    repo.next_id().await.unwrap();
    repo.ensure_indexes().await.unwrap();
    store
}

async fn ids<S: Store>(repo: &Repo<Order, &S>, filter: Filter<Order>) -> Vec<u64> {
    let page = repo.find(&Query::new(filter).limit(1000)).await.unwrap();
    assert!(page.next.is_none());
    page.docs.iter().map(|doc| doc.order_id()).collect()
}

/// Every operator, on the same ten orders, gives the same orders on every store.
async fn every_operator<S: Fresh>() {
    let store = stocked::<S>().await;
    let repo = Repo::<Order>::new(&store);
    let f = Order::fields();
    let sorted = |mut ids: Vec<u64>| {
        ids.sort_unstable();
        ids
    };
    let cases: Vec<(&str, Filter<Order>, Vec<u64>)> = vec![
        ("all", Filter::all(), (1..=10).collect()),
        ("eq", f.customer_no.eq(12345), vec![1, 3, 4, 7, 10]),
        ("ne", f.customer_no.ne(12345), vec![2, 5, 6, 8, 9]),
        ("lt", f.total_cents.lt(750), vec![3, 6, 10]),
        ("le", f.total_cents.le(750), vec![3, 5, 6, 10]),
        ("gt", f.total_cents.gt(3_000), vec![4, 9]),
        ("ge", f.total_cents.ge(3_000), vec![4, 7, 8, 9]),
        (
            "in",
            f.status.in_(["paid", "shipped"]),
            vec![2, 3, 4, 8, 10],
        ),
        ("in none", f.status.in_(Vec::<String>::new()), vec![]),
        ("exists", f.coupon.exists(), (1..=10).collect()),
        (
            "is_null",
            f.coupon.is_null(),
            vec![1, 2, 3, 4, 6, 7, 8, 9, 10],
        ),
        ("eq some", f.coupon.eq(Some("WELCOME".to_owned())), vec![5]),
        // `$in: [null]` does not match a stored null on CouchDB; `find` must, as every store does.
        (
            "in with none",
            f.coupon.in_([None, Some("WELCOME".to_owned())]),
            (1..=10).collect(),
        ),
        (
            "in only none",
            f.coupon.in_([None::<String>]),
            vec![1, 2, 3, 4, 6, 7, 8, 9, 10],
        ),
        ("missing", f.coupon.missing(), vec![]),
        ("starts_with", f.status.starts_with("sh"), vec![4, 8]),
        ("contains", f.tags.contains("gift"), vec![1, 3, 6]),
        (
            "and",
            f.customer_no.eq(12345).and(f.status.eq("open")),
            vec![1, 7],
        ),
        (
            "or",
            f.status.eq("cancelled").or(f.total_cents.gt(4_000)),
            vec![4, 6, 9],
        ),
        (
            "not",
            f.tags.contains("gift").not(),
            vec![2, 4, 5, 7, 8, 9, 10],
        ),
        (
            "indexed range",
            f.status.eq("open").and(f.total_cents.ge(1_000)),
            vec![1, 7, 9],
        ),
        (
            "indexed range, bound excluded",
            f.status.eq("paid").and(f.total_cents.lt(500)),
            vec![10],
        ),
        (
            "indexed, and more",
            f.customer_no
                .eq(12345)
                .and(f.tags.contains("express"))
                .and(f.total_cents.le(500)),
            vec![3],
        ),
        (
            "envelope",
            f.envelope().ver.gt(1).and(f.envelope().type_.eq("order")),
            vec![2, 3],
        ),
        (
            "two negations",
            f.customer_no.eq(12345).not().and(f.status.eq("open").not()),
            vec![2, 6, 8],
        ),
        (
            "not in",
            f.status.in_(["paid", "shipped"]).not(),
            vec![1, 5, 6, 7, 9],
        ),
        (
            "in and in",
            f.customer_no.in_([777, 999]).and(f.status.in_(["open"])),
            vec![5, 9],
        ),
        (
            "a range over text",
            f.status.ge("paid").and(f.status.lt("s")),
            vec![2, 3, 10],
        ),
    ];
    for (name, filter, expected) in cases {
        assert_eq!(sorted(ids(&repo, filter.clone()).await), expected, "{name}");
        assert_eq!(
            repo.count(&filter).await.unwrap(),
            expected.len() as u64,
            "count {name}"
        );
    }
}

/// Pages follow each other by the order's value, then the key, in both directions, and a document written
/// between two pages neither repeats one nor pushes one out.
async fn keyset_pages<S: Fresh>() {
    let store = stocked::<S>().await;
    let repo = Repo::<Order>::new(&store);
    let f = Order::fields();
    for (direction, expected) in [
        (Direction::Ascending, vec![6, 10, 3, 5, 1, 2, 7, 8, 9, 4]),
        (Direction::Descending, vec![4, 9, 8, 7, 2, 1, 5, 3, 10, 6]),
    ] {
        let query = Query::new(Filter::all())
            .order_by_dir(&f.total_cents, direction)
            .limit(3);
        let mut seen = Vec::new();
        let mut page = repo.find(&query).await.unwrap();
        let mut pages = 1;
        loop {
            assert!(page.docs.len() <= 3);
            seen.extend(page.docs.iter().map(|doc| doc.order_id()));
            let Some(next) = page.next else { break };
            if pages == 1 {
                // Written after the first page, before the cursor: not on a later page.
                Repo::<Order>::new(&store)
                    .insert(order(20, 1, "open", -5, &[]))
                    .await
                    .unwrap();
            }
            page = repo.find(&query.clone().after(next)).await.unwrap();
            pages += 1;
        }
        let without_20: Vec<u64> = seen.iter().copied().filter(|id| *id != 20).collect();
        assert_eq!(without_20, expected, "{direction:?}");
        assert_eq!(pages, 4, "{direction:?}");
        repo.remove(&Order::key(20)).await.unwrap();
    }
    // By text, a page of one at a time: every order once, by state, then key.
    let by_state = Query::new(Filter::all()).order_by(&f.status).limit(1);
    let mut pages = repo.pages(by_state);
    let mut seen = Vec::new();
    while let Some(page) = pages.next().await.unwrap() {
        seen.extend(page.docs.iter().map(|doc| doc.order_id()));
        assert!(seen.len() <= 10, "{seen:?}");
    }
    assert_eq!(seen, [6, 1, 5, 7, 9, 10, 2, 3, 4, 8]);
    // In key order without `order_by`, through a cursor's text.
    let query = Query::new(Order::fields().customer_no.eq(777)).limit(2);
    let first = repo.find(&query).await.unwrap();
    let text = first.next.unwrap().as_str().to_owned();
    let second = repo
        .find(&query.after(docmodel::Cursor::from_text(text)))
        .await
        .unwrap();
    let keys: Vec<&str> = first
        .docs
        .iter()
        .chain(&second.docs)
        .map(|doc| doc.key().as_str())
        .collect();
    assert_eq!(keys, ["order::2", "order::6", "order::9"]);
    // Every page, through the pager.
    let mut pages = repo.pages(
        Query::new(Filter::all())
            .order_by_dir(&Order::fields().order_id, Direction::Descending)
            .limit(4),
    );
    let mut all = Vec::new();
    while let Some(page) = pages.next().await.unwrap() {
        all.push(
            page.docs
                .iter()
                .map(|doc| doc.order_id())
                .collect::<Vec<_>>(),
        );
    }
    assert_eq!(all, [vec![10, 9, 8, 7], vec![6, 5, 4, 3], vec![2, 1]]);
    let err = repo
        .find(&Query::new(Filter::all()).after(docmodel::Cursor::from_text("nonsense")))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Codec { .. }), "{err:?}");
}

/// Only the model's documents: no revision copies, no invoice, no other model's document under an order
/// key, no counter; a document stored at an older schema is counted and returned migrated.
async fn only_the_models_own_documents<S: Fresh>() {
    let store = stocked_with::<S>(&[(
        "order::30",
        r#"{"type":"order","schema":"1.0","ver":1,"orderId":30,"customerNo":12345,"state":"open","total":12.5,"tags":[]}"#,
    )])
    .await;
    let repo = Repo::<Order>::new(&store);
    let page = repo
        .find(&Query::new(Filter::all()).limit(100))
        .await
        .unwrap();
    let keys: BTreeSet<&str> = page.docs.iter().map(|doc| doc.key().as_str()).collect();
    let mut expected: BTreeSet<String> = (1..=10).map(|id| format!("order::{id}")).collect();
    expected.insert("order::30".into());
    assert_eq!(
        keys,
        expected.iter().map(String::as_str).collect::<BTreeSet<_>>()
    );
    assert_eq!(page.older_schema, 1);
    let old = page.docs.iter().find(|doc| doc.order_id() == 30).unwrap();
    assert_eq!(old.total_cents, 1_250, "migrated as `get` migrates it");
    // A filter on a current field cannot match the 1.0 document, which stores `total`: the page says so.
    let page = repo
        .find(&Query::new(Order::fields().total_cents.gt(1_000)))
        .await
        .unwrap();
    assert!(page.docs.iter().all(|doc| doc.order_id() != 30));
    assert_eq!(page.older_schema, 1);
}

/// A note whose envelope keeps its times as ISO-8601 text, in the `meta` layout.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(type = "note", schema = "1.0", key = "note::{id}")]
#[docmodel(envelope(layout = "meta", timestamps = "iso8601"), index = "id")]
struct Note {
    #[docmodel(get)]
    id: u64,
}

/// `_created` and `_modified` compare with `Timestamp`s as each model's envelope stores them (milliseconds
/// for orders, ISO-8601 text for notes), and order pages.
async fn envelope_times<S: Fresh>() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicI64, Ordering};

    let store = S::fresh().await;
    let now = Arc::new(AtomicI64::new(1_000));
    let clock = {
        let now = now.clone();
        move || Timestamp::from_millis(now.load(Ordering::SeqCst))
    };
    let orders = Repo::<Order>::new(&store).clock(clock.clone());
    let notes = Repo::<Note>::new(&store).clock(clock);
    orders.ensure_indexes().await.unwrap();
    notes.ensure_indexes().await.unwrap();
    for (at, id) in [(1_000, 1), (2_000, 2), (3_000, 3)] {
        now.store(at, Ordering::SeqCst);
        orders.insert(order(id, 1, "open", 0, &[])).await.unwrap();
        notes.insert(Note { id }).await.unwrap();
    }
    now.store(4_000, Ordering::SeqCst);
    orders
        .update(&Order::key(1), |order| order.total_cents = 5)
        .await
        .unwrap();
    notes.update(&Note::key(1), |_| {}).await.unwrap();
    let at = Timestamp::from_millis;
    let o = Order::fields().envelope();
    let n = Note::fields().envelope();
    assert_eq!(n.created.path(), ["meta", "created"]);
    let order_ids = |page: docmodel::Page<Order>| -> Vec<u64> {
        page.docs.iter().map(|doc| doc.order_id()).collect()
    };
    let note_ids =
        |page: docmodel::Page<Note>| -> Vec<u64> { page.docs.iter().map(|doc| doc.id()).collect() };
    let by_modified =
        Query::new(o.created.lt(at(2_500))).order_by_dir(&o.modified, Direction::Descending);
    assert_eq!(order_ids(orders.find(&by_modified).await.unwrap()), [1, 2]);
    let query = Query::new(o.created.ge(at(2_000)).and(o.modified.le(at(3_000))));
    assert_eq!(order_ids(orders.find(&query).await.unwrap()), [2, 3]);
    let query = Query::new(n.modified.gt(at(3_000))).order_by(&n.created);
    assert_eq!(note_ids(notes.find(&query).await.unwrap()), [1]);
    let query = Query::new(n.created.in_([at(2_000), at(3_000)]));
    assert_eq!(note_ids(notes.find(&query).await.unwrap()), [2, 3]);
    let stored = docmodel_tests::text(&store, "note::2").await.unwrap();
    assert!(
        stored.contains(r#""created":"1970-01-01T00:00:02.000Z""#),
        "{stored}"
    );
}

/// Where a customer lives, stored inside the customer's body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Embedded)]
#[serde(rename_all = "camelCase")]
struct Address {
    city: String,
    postal_code: String,
    #[docmodel(nested)]
    #[serde(default)]
    geo: Option<Geo>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Embedded)]
struct Geo {
    #[serde(rename = "lat")]
    latitude: f64,
    #[serde(rename = "lon")]
    longitude: f64,
}

/// A customer with a home address and perhaps a work address: filters reach into both.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "customer", schema = "1.0", key = "customer::{customer_no}")]
#[docmodel(envelope(layout = "plain"), index = "customer_no")]
struct Customer {
    #[docmodel(get)]
    customer_no: u64,
    #[docmodel(nested)]
    home: Address,
    #[docmodel(nested)]
    #[serde(default)]
    work_address: Option<Address>,
}

fn address(city: &str, postal_code: &str, latitude: Option<f64>) -> Address {
    Address {
        city: city.into(),
        postal_code: postal_code.into(),
        geo: latitude.map(|latitude| Geo {
            latitude,
            longitude: 10.0,
        }),
    }
}

/// Paths into embedded structs: a member of one, of one inside it, of one that may be absent, and the struct
/// as a whole.
async fn nested_paths<S: Fresh>() {
    let store = S::fresh().await;
    let repo = Repo::<Customer>::new(&store);
    repo.ensure_indexes().await.unwrap();
    let customers = [
        (1, address("Oslo", "0150", Some(59.9)), None),
        (
            2,
            address("Bergen", "5003", Some(60.4)),
            Some(address("Oslo", "0151", None)),
        ),
        (
            3,
            address("Oslo", "0152", None),
            Some(address("Tromsø", "9008", Some(69.6))),
        ),
        (4, address("Tromsø", "9009", Some(69.7)), None),
    ];
    for (customer_no, home, work_address) in customers {
        repo.insert(Customer {
            customer_no,
            home,
            work_address,
        })
        .await
        .unwrap();
    }
    // Customer 5 was written by another program, which leaves out what it does not know.
    store
        .insert(
            "customer::5",
            br#"{"type":"customer","schema":"1.0","ver":1,"customerNo":5,"home":{"city":"Bergen","postalCode":"5004"}}"#,
        )
        .await
        .unwrap();
    let f = Customer::fields();
    let found = |filter: Filter<Customer>| {
        let repo = &repo;
        async move {
            let query = Query::new(filter).order_by(&Customer::fields().customer_no);
            let page = repo.find(&query).await.unwrap();
            page.docs
                .iter()
                .map(|doc| doc.customer_no())
                .collect::<Vec<u64>>()
        }
    };
    assert_eq!(found(f.home.city.eq("Oslo")).await, [1, 3]);
    assert_eq!(found(f.home.geo.latitude.gt(60.0)).await, [2, 4]);
    // serde writes a `None` as `null`; customer 5 was written without these fields.
    assert_eq!(found(f.home.geo.whole().is_null()).await, [3]);
    assert_eq!(found(f.home.geo.whole().missing()).await, [5]);
    assert_eq!(found(f.work_address.whole().is_null()).await, [1, 4]);
    assert_eq!(found(f.work_address.whole().missing()).await, [5]);
    assert_eq!(found(f.work_address.city.eq("Oslo")).await, [2]);
    assert_eq!(found(f.work_address.geo.latitude.ge(69.0)).await, [3]);
    assert_eq!(
        found(
            f.work_address
                .whole()
                .missing()
                .or(f.work_address.whole().is_null())
        )
        .await,
        [1, 4, 5]
    );
    assert_eq!(
        found(f.home.city.eq("Oslo").or(f.work_address.city.eq("Oslo"))).await,
        [1, 2, 3]
    );
    assert_eq!(
        found(f.home.whole().eq(address("Tromsø", "9009", Some(69.7)))).await,
        [4]
    );
    assert_eq!(found(f.home.postal_code.starts_with("01")).await, [1, 3]);
    assert_eq!(repo.count(&f.home.city.ne("Oslo")).await.unwrap(), 3);
}

/// Filters built at random over every operator and the orders' fields (a fixed seed: a failure repeats), each
/// found on the store and on MemoryStore, whose evaluator is the reference: the same documents, in the same
/// order. On CouchDB they go through Mango and the repository's matching; on Couchbase, through SQL++.
async fn random_filters_agree_with_the_evaluator<S: Fresh>() {
    let reference = stocked::<MemoryStore>().await;
    let store = stocked::<S>().await;
    let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
    for round in 0..60 {
        let filter = random_filter(&mut seed, 2);
        let query = Query::new(filter.clone()).limit(100);
        let keys = |page: docmodel::Page<Order>| -> Vec<String> {
            page.docs.iter().map(|doc| doc.key().to_string()).collect()
        };
        let expected = keys(Repo::<Order>::new(&reference).find(&query).await.unwrap());
        let found = keys(Repo::<Order>::new(&store).find(&query).await.unwrap());
        assert_eq!(found, expected, "round {round}: {filter:?}");
    }
}

/// The next number of a xorshift sequence.
fn next(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

fn pick<T: Copy>(seed: &mut u64, items: &[T]) -> T {
    items[usize::try_from(next(seed) % items.len() as u64).unwrap()]
}

/// A filter of at most `depth` levels of `and`, `or` and `not` over [`random_leaf`]s.
fn random_filter(seed: &mut u64, depth: u32) -> Filter<Order> {
    if depth == 0 {
        return random_leaf(seed);
    }
    match next(seed) % 4 {
        0 => random_leaf(seed),
        1 => random_filter(seed, depth - 1).and(random_filter(seed, depth - 1)),
        2 => random_filter(seed, depth - 1).or(random_filter(seed, depth - 1)),
        _ => random_filter(seed, depth - 1).not(),
    }
}

/// One comparison on one of the orders' fields, with values inside and outside the ones stored.
fn random_leaf(seed: &mut u64) -> Filter<Order> {
    let f = Order::fields();
    let customers = [777_u64, 999, 12345, 5];
    let statuses = ["open", "paid", "shipped", "cancelled", "o", "", "zz"];
    let totals = [0_i64, 50, 750, 3_000, 12_000, -1];
    let tags = ["gift", "express", "bulk", "none"];
    match next(seed) % 16 {
        0 => f.customer_no.eq(pick(seed, &customers)),
        1 => f.customer_no.ne(pick(seed, &customers)),
        2 => f
            .customer_no
            .in_([pick(seed, &customers), pick(seed, &customers)]),
        3 => f.total_cents.lt(pick(seed, &totals)),
        4 => f.total_cents.ge(pick(seed, &totals)),
        5 => f.total_cents.le(pick(seed, &totals)),
        6 => f.status.eq(pick(seed, &statuses)),
        7 => f.status.ne(pick(seed, &statuses)),
        8 => f.status.starts_with(pick(seed, &statuses)),
        9 => f.status.gt(pick(seed, &statuses)),
        10 => f.status.in_([pick(seed, &statuses), pick(seed, &statuses)]),
        11 => f.tags.contains(pick(seed, &tags)),
        12 => f.coupon.exists(),
        13 => f.coupon.missing(),
        14 => f.coupon.is_null(),
        _ => f.order_id.gt(next(seed) % 12),
    }
}

macro_rules! suite {
    ($($(#[$attr:meta])* $store:ident: $ty:ty),* $(,)?) => {$(
        mod $store {
            use super::*;

            #[tokio::test]
            $(#[$attr])*
            async fn every_operator() {
                super::every_operator::<$ty>().await;
            }

            #[tokio::test]
            $(#[$attr])*
            async fn keyset_pages() {
                super::keyset_pages::<$ty>().await;
            }

            #[tokio::test]
            $(#[$attr])*
            async fn only_the_models_own_documents() {
                super::only_the_models_own_documents::<$ty>().await;
            }

            #[tokio::test]
            $(#[$attr])*
            async fn envelope_times() {
                super::envelope_times::<$ty>().await;
            }

            #[tokio::test]
            $(#[$attr])*
            async fn random_filters_agree_with_the_evaluator() {
                super::random_filters_agree_with_the_evaluator::<$ty>().await;
            }

            #[tokio::test]
            $(#[$attr])*
            async fn nested_paths() {
                super::nested_paths::<$ty>().await;
            }
        }
    )*};
}

suite!(memory: MemoryStore, redb: Redb, couchdb: CouchDb);

// Through SQL++, only where a cluster is given; otherwise each test is reported as ignored, naming the
// variables to set; and only where the cluster has a query service (`DOCMODEL_COUCHBASE_QUERY=none` says it
// has none: reported as ignored, not run).
#[cfg(feature = "couchbase")]
suite!(
    #[cfg_attr(not(couchbase_cluster), ignore = "not run: no Couchbase cluster; set DOCMODEL_COUCHBASE_URL, \
        DOCMODEL_COUCHBASE_USER, DOCMODEL_COUCHBASE_PASSWORD and DOCMODEL_COUCHBASE_BUCKET")]
    #[cfg_attr(all(couchbase_cluster, not(couchbase_query)), ignore = "not run on this cluster: no query service \
        (SQL++ answered 501; DOCMODEL_COUCHBASE_QUERY=none)")]
    couchbase: Listed,
);

#[test]
fn paths_carry_the_stored_names_under_each_layout() {
    let f = Order::fields();
    assert_eq!(f.customer_no.path(), ["customerNo"]);
    assert_eq!(f.status.path(), ["state"], "serde's rename");
    assert_eq!(f.envelope().ver.path(), ["ver"]);

    #[derive(Serialize, Deserialize, DocModel)]
    #[docmodel(type = "flat", schema = "1.0", key = "flat::{id}")]
    struct Flat {
        id: u64,
    }
    assert_eq!(Flat::fields().envelope().type_.path(), ["_type"]);
    assert_eq!(Flat::fields().id.path(), ["id"]);

    #[derive(Serialize, Deserialize, DocModel)]
    #[docmodel(type = "nested", schema = "1.0", key = "nested::{id}")]
    #[docmodel(envelope(layout = "meta"))]
    struct Nested {
        id: u64,
    }
    let envelope = Nested::fields().envelope();
    assert_eq!(envelope.schema.path().len(), 2);
    assert_eq!(envelope.schema.path()[1], "schema");

    // A raw identifier holding a nested struct.
    #[derive(Serialize, Deserialize, DocModel)]
    #[docmodel(type = "vehicle", schema = "1.0", key = "vehicle::{id}")]
    struct Vehicle {
        id: u64,
        #[docmodel(nested)]
        r#type: Geo,
    }
    assert_eq!(Vehicle::fields().r#type.latitude.path(), ["type", "lat"]);

    let c = Customer::fields();
    assert_eq!(c.home.postal_code.path(), ["home", "postalCode"]);
    assert_eq!(c.home.geo.latitude.path(), ["home", "geo", "lat"]);
    assert_eq!(c.work_address.geo.whole().path(), ["workAddress", "geo"]);
    assert_eq!(c.work_address.whole().path(), ["workAddress"]);
}

/// A stored form serde writes its own way: the number as text.
mod as_text {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &u64, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&value.to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
        String::deserialize(deserializer)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

/// A user type already named as the paths struct would be: the derive adds no name beside the model.
#[allow(dead_code)]
struct TreeFields;

/// A model with an accessor named `fields`, a field of its own type, and one serde writes its own way.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(type = "tree", schema = "1.0", key = "tree::{id}")]
#[docmodel(envelope(layout = "plain"))]
struct Tree {
    id: u64,
    #[docmodel(get)]
    fields: Vec<String>,
    children: Vec<Self>,
    #[serde(with = "as_text")]
    amount: u64,
}

#[tokio::test]
async fn paths_of_fields_serde_writes_its_own_way_compare_as_stored() {
    // The model's own `fields` accessor keeps its name; the paths are the trait's.
    let paths = <Tree as DocModel>::fields();
    let _: &docmodel::Field<Tree, Vec<Tree>> = &paths.children;
    let store = MemoryStore::new();
    let trees = Repo::<Tree>::new(&store);
    for (id, amount) in [(1, 7), (2, 70)] {
        let tree = Tree {
            id,
            fields: vec!["leaf".into()],
            children: Vec::new(),
            amount,
        };
        assert_eq!(tree.fields(), ["leaf"]);
        trees.insert(tree).await.unwrap();
    }
    let found = trees
        .find(&Query::new(paths.amount.eq(serde_json::json!("7"))))
        .await
        .unwrap();
    let ids: Vec<u64> = found.docs.iter().map(|doc| doc.id).collect();
    assert_eq!(ids, [1]);
    assert_eq!(
        trees
            .count(&paths.amount.eq(serde_json::json!(7)))
            .await
            .unwrap(),
        0
    );
}

/// On CouchDB a find is Mango's: `_find` requests through the model's indexes, which `ensure_indexes`
/// creates (and creates again without harm); no index entries are written; a find before them, or ordered
/// by a field without an index of its own, fails naming what is missing.
#[tokio::test]
async fn couchdb_finds_through_mango_and_its_own_indexes() {
    let store = CouchDb::fresh().await;
    let repo = Repo::<Order>::new(&store);
    for order in orders() {
        repo.insert(order).await.unwrap();
    }
    let query = Query::new(Order::fields().customer_no.eq(777));
    let err = repo.find(&query).await.unwrap_err();
    assert!(matches!(err, Error::Store { .. }), "{err:?}");
    assert!(
        err.to_string().contains("has no index for this query")
            && err.to_string().contains("`Repo::ensure_indexes`"),
        "{err}"
    );
    // A marker an earlier docmodel wrote, which a program of it would still trust: taken away.
    let marker = "index::order::customer_no";
    store
        .insert(
            marker,
            br#"{"complete":true,"index":"customer_no","paths":[["customerNo"]]}"#,
        )
        .await
        .unwrap();
    repo.ensure_indexes().await.unwrap();
    assert_eq!(store.get(marker).await.unwrap(), None);
    let before = store.requests();
    repo.ensure_indexes().await.unwrap();
    // The type, schema, created and modified indexes, and the model's five; one read of the markers
    // an earlier docmodel left.
    assert_eq!(store.requests() - before, 10);
    let keys = docmodel_tests::keys(&store).await;
    assert_eq!(keys.len(), 10, "{keys:?}");
    assert!(
        keys.iter().all(|key| key.starts_with("order::")),
        "{keys:?}"
    );
    let before = store.requests();
    let page = repo.find(&query.clone().limit(2)).await.unwrap();
    let keys: Vec<&str> = page.docs.iter().map(|doc| doc.key().as_str()).collect();
    assert_eq!(keys, ["order::2", "order::6"]);
    // The page, then the documents below and above the current schema's text.
    assert_eq!(store.requests() - before, 3);
    let next = repo
        .find(&query.limit(2).after(page.next.unwrap()))
        .await
        .unwrap();
    assert_eq!(next.docs[0].key().as_str(), "order::9");
    assert!(next.next.is_none());
    let err = repo
        .find(&Query::new(Filter::all()).order_by(&Order::fields().coupon))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "document `order`: the store failed: cannot find `order` documents on CouchDB: `coupon`: CouchDB \
         sorts only through an index: declare one on this field alone (`#[docmodel(index = \"<field>\")]`), \
         or one on fields the filter fixes with `eq` and then this one, and create it with \
         `Repo::ensure_indexes`"
    );
    assert_eq!(
        repo.count(&Order::fields().status.eq("open"))
            .await
            .unwrap(),
        4
    );
}

/// A model without indexes: every `find` reads the model's keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "reading", schema = "1.0", key = "reading::{id}")]
struct Reading {
    #[docmodel(get)]
    id: u64,
    reading: i64,
}

/// Pages of 3 over 200 readings whose readings repeat, both ways, read without an index (the repository keeps
/// no more than twice a page of matches in memory as it reads): together, every reading once, in the order
/// a sort of them all gives.
#[tokio::test]
async fn unindexed_pages_over_many_matches_are_the_whole_sort() {
    let store = MemoryStore::new();
    let readings = Repo::<Reading>::new(&store);
    let all: Vec<Reading> = (0..200)
        .map(|id| Reading {
            id,
            reading: (id * 7919 % 13) as i64,
        })
        .collect();
    readings.insert_many(all.clone()).await.unwrap();
    for direction in [Direction::Ascending, Direction::Descending] {
        let query = Query::new(Reading::fields().reading.ge(2))
            .order_by_dir(&Reading::fields().reading, direction)
            .limit(3);
        let mut pages = readings.pages(query);
        let mut seen = Vec::new();
        while let Some(page) = pages.next().await.unwrap() {
            assert!(page.docs.len() <= 3);
            seen.extend(page.docs.iter().map(|doc| (doc.reading, doc.id())));
        }
        let mut want: Vec<(i64, u64)> = all
            .iter()
            .filter(|reading| reading.reading >= 2)
            .map(|reading| (reading.reading, reading.id))
            .collect();
        // By reading, then by key (text: "reading::10" before "reading::9").
        want.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| a.1.to_string().cmp(&b.1.to_string()))
        });
        if direction == Direction::Descending {
            want.reverse();
        }
        assert_eq!(seen, want, "{direction:?}");
    }
}
