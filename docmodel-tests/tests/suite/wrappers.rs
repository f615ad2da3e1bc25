//! Stores around stores: a user's [`Layer`] passes on every operation and capability of the store it wraps,
//! [`DynStore`] does too, and a key listing read page by page lists what one read lists, on every store
//! that can list keys.

use std::future::Future;
use std::sync::Mutex;

use docmodel::store::{
    Call, Capabilities, CouchDb, DynStore, KeyPages, Layer, MemoryStore, Operation, Redb, Reply,
    ScanPage, Store, Write, WriteOptions,
};
use docmodel::{Error, StoreErrorKind};
use docmodel_tests::Fresh;

/// A wrapper as a user writes one: it records the operation of every call, and changes nothing.
struct Recorded<S> {
    inner: S,
    seen: Mutex<Vec<Operation>>,
}

impl<S> Recorded<S> {
    fn new(inner: S) -> Self {
        Recorded {
            inner,
            seen: Mutex::new(Vec::new()),
        }
    }

    fn seen(&self) -> Vec<Operation> {
        std::mem::take(&mut *self.seen.lock().unwrap())
    }
}

impl<S: Store> Layer for Recorded<S> {
    type Inner = S;

    fn inner(&self) -> &S {
        &self.inner
    }

    fn around<'a, F>(
        &'a self,
        call: Call<'a>,
        operation: impl FnOnce() -> F + Send + 'a,
    ) -> impl Future<Output = F::Output> + Send + 'a
    where
        F: Future + Send + 'a,
        F::Output: Reply,
    {
        self.seen.lock().unwrap().push(call.operation());
        operation()
    }
}

/// Each operation of `store` once, in the order of [`Operation::ALL`], each outcome as text: what a wrapper
/// must give as its store gives it.
async fn every_operation<S: Store>(store: &S) -> Vec<String> {
    fn text<T: std::fmt::Debug>(outcome: Result<T, Error>) -> String {
        match outcome {
            Ok(value) => format!("ok {value:?}"),
            Err(error) => format!("error {error}"),
        }
    }
    let mut outcomes = Vec::new();
    outcomes.push(text(store.get("a::1").await));
    outcomes.push(text(store.get_many(&["a::1", "a::2"]).await));
    let cas = store.insert("a::1", b"{\"n\":1}").await.unwrap();
    outcomes.push(text(
        store
            .get_revision("a::1", &cas)
            .await
            .map(|found| found.is_some()),
    ));
    let values: [(&str, &[u8]); 2] = [("a::2", b"{}"), ("a::1", b"{}")];
    let bulk = store.insert_many(&values, &WriteOptions::DEFAULT).await;
    outcomes.push(format!(
        "{:?}",
        bulk.iter().map(Result::is_ok).collect::<Vec<_>>()
    ));
    let cas = store.replace("a::1", b"{\"n\":2}", &cas).await.unwrap();
    outcomes.push(text(store.remove("a::2", None).await));
    let batch = [Write::Replace {
        key: "a::1",
        value: b"{\"n\":3}",
        cas: &cas,
    }];
    let atomic = store.write_atomic(&batch, &WriteOptions::DEFAULT).await;
    outcomes.push(text(atomic.map(|tokens| tokens.len())));
    outcomes.push(text(store.counter("a::count", 2).await));
    outcomes.push(text(store.scan("a::", ScanPage::first(10)).await));
    outcomes.push(text(
        store.scan_range("a::1", "a::2", ScanPage::first(10)).await,
    ));
    outcomes.push(text(store.query(b"{}").await.map(|rows| rows.len())));
    outcomes.push(text(store.create_index(b"{}").await));
    outcomes.push(text(
        store
            .ensure_validation("docmodel_a", "function () {}")
            .await,
    ));
    outcomes
}

/// The operations [`every_operation`] calls, as a store sees them: `insert`, `replace` and `remove` as their
/// `_with` forms.
const CALLED: [Operation; 14] = [
    Operation::Get,
    Operation::GetMany,
    Operation::Insert,
    Operation::GetRevision,
    Operation::InsertMany,
    Operation::Replace,
    Operation::Remove,
    Operation::WriteAtomic,
    Operation::Counter,
    Operation::Scan,
    Operation::ScanRange,
    Operation::Query,
    Operation::CreateIndex,
    Operation::EnsureValidation,
];

#[test]
fn every_operation_is_called() {
    let mut called = CALLED.to_vec();
    let mut all = Operation::ALL.to_vec();
    called.sort_by_key(|operation| operation.name());
    all.sort_by_key(|operation| operation.name());
    assert_eq!(called, all);
}

#[tokio::test]
async fn a_layer_passes_on_every_operation_and_capability() {
    let plain = every_operation(&MemoryStore::new()).await;
    let recorded = Recorded::new(MemoryStore::new());
    assert_eq!(every_operation(&recorded).await, plain);
    assert_eq!(recorded.seen(), CALLED);
    assert_eq!(recorded.capabilities(), MemoryStore::new().capabilities());
    assert_eq!(recorded.system(), "memory");

    // The same on a store whose capabilities differ (no expiry, no atomic batches on CouchDB; none but
    // atomic batches and scan here).
    let redb = Recorded::new(Redb::in_memory().unwrap());
    assert_eq!(
        every_operation(&redb).await,
        every_operation(&Redb::in_memory().unwrap()).await
    );
    assert_eq!(redb.seen(), CALLED);
    assert!(redb.capabilities().atomic_writes && redb.capabilities().scan);
}

#[tokio::test]
async fn a_dyn_store_passes_on_every_operation_and_capability() {
    let recorded = std::sync::Arc::new(Recorded::new(MemoryStore::new()));
    let store = DynStore::new(std::sync::Arc::clone(&recorded));
    let plain = every_operation(&MemoryStore::new()).await;
    assert_eq!(every_operation(&store).await, plain);
    assert_eq!(recorded.seen(), CALLED);
    assert_eq!(store.capabilities(), MemoryStore::new().capabilities());
    assert_eq!(store.system(), "memory");
}

/// A layer that refuses every write: its store is read-only.
struct ReadOnly<S>(S);

impl<S: Store> Layer for ReadOnly<S> {
    type Inner = S;

    fn inner(&self) -> &S {
        &self.0
    }

    async fn around<'a, F>(
        &'a self,
        call: Call<'a>,
        operation: impl FnOnce() -> F + Send + 'a,
    ) -> F::Output
    where
        F: Future + Send + 'a,
        F::Output: Reply,
    {
        let writes = matches!(
            call.operation(),
            Operation::Insert
                | Operation::InsertMany
                | Operation::Replace
                | Operation::Remove
                | Operation::WriteAtomic
                | Operation::Counter
        );
        if writes {
            let key = docmodel_tests::first_key(&call);
            let error = Error::store_with(StoreErrorKind::Permanent, key, "read-only");
            return F::Output::refused(&call, error);
        }
        operation().await
    }

    fn capabilities_from(&self, inner: Capabilities) -> Capabilities {
        inner.with_atomic_writes(false)
    }
}

#[tokio::test]
async fn a_layer_refuses_a_call_before_it_reaches_the_store() {
    let inner = MemoryStore::new();
    inner.insert("a::1", b"{}").await.unwrap();
    let store = ReadOnly(&inner);
    let err = store.insert("a::2", b"{}").await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "document `a::2`: the store failed: read-only"
    );
    // A bulk insert refused whole: each value's error names its key.
    let values: [(&str, &[u8]); 2] = [("a::3", b"{}"), ("a::4", b"{}")];
    let outcomes = store.insert_many(&values, &WriteOptions::DEFAULT).await;
    let keys: Vec<&str> = outcomes
        .iter()
        .map(|outcome| match outcome {
            Err(Error::Store {
                kind: StoreErrorKind::Permanent,
                key,
                ..
            }) => key.as_deref().unwrap_or_default(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(keys, ["a::3", "a::4"]);
    assert!(store.get("a::1").await.unwrap().is_some(), "reads pass");
    assert!(!store.capabilities().atomic_writes);
    assert_eq!(inner.keys(), ["a::1"], "nothing written");
}

// ---- Key listings in pages ---------------------------------------------------------------------------

/// The keys a listing test stores: under the prefix `k::` (numbers that sort as text, not as numbers, and
/// text past ASCII, in and out of the Basic Multilingual Plane), and around it.
fn listing_keys() -> Vec<String> {
    let mut keys: Vec<String> = (1..=23).map(|n| format!("k::{n}")).collect();
    keys.extend(
        [
            "k::é",
            "k::\u{FFFD}",
            "k::\u{1F600}",
            "k::~",
            "k:",
            "k:;",
            "j::9",
            "l::1",
            "k",
        ]
        .map(str::to_owned),
    );
    keys
}

/// Every page of `prefix` (or of the range `start..end`) with pages of `size`, joined.
async fn paged<S: Store>(store: &S, prefix: &str, range: Option<&str>, size: usize) -> Vec<String> {
    let mut listing = match range {
        None => KeyPages::prefix(store, prefix),
        Some(end) => KeyPages::range(store, prefix, end),
    }
    .page_size(size);
    let mut keys = Vec::new();
    let mut pages = 0;
    while let Some(page) = listing.next_page().await.unwrap() {
        assert!(
            !page.is_empty() && page.len() <= size,
            "{page:?} in pages of {size}"
        );
        keys.extend(page);
        pages += 1;
        assert!(pages <= 64, "the listing ends");
    }
    assert_eq!(listing.cursor(), keys.last().map(String::as_str));
    keys
}

/// What one listing in one page gives, a listing in pages of any size gives too; and a listing is what was
/// stored under the prefix (or in the range), each key once.
async fn listings_in_pages<S: Fresh>() {
    let store = S::fresh().await;
    for key in listing_keys() {
        store.insert(&key, b"{}").await.unwrap();
    }
    let mut wanted: Vec<String> = listing_keys()
        .into_iter()
        .filter(|key| key.starts_with("k::"))
        .collect();
    wanted.sort();
    let whole = store.scan("k::", ScanPage::first(1000)).await.unwrap();
    let mut sorted = whole.clone();
    sorted.sort();
    assert_eq!(sorted, wanted, "the listing is the keys under the prefix");
    for size in [1, 2, 3, 7, wanted.len() - 1, wanted.len(), wanted.len() + 1] {
        assert_eq!(
            paged(&store, "k::", None, size).await,
            whole,
            "pages of {size}"
        );
    }

    // A range, byte order: `k::1` to `k::2` holds k::1 and k::10 to k::19.
    let range: Vec<String> = wanted
        .iter()
        .filter(|key| key.as_str() >= "k::1" && key.as_str() < "k::2")
        .cloned()
        .collect();
    assert_eq!(range.len(), 11);
    for size in [1, 4, 11, 12] {
        let mut listed = paged(&store, "k::1", Some("k::2"), size).await;
        listed.sort();
        assert_eq!(listed, range, "the range in pages of {size}");
    }

    // A page starting after a key that has gone since: the listing goes on from where that key was.
    let first = store.scan("k::", ScanPage::first(3)).await.unwrap();
    assert_eq!(first, whole[..3]);
    store.remove(&first[2], None).await.unwrap();
    let next = store
        .scan("k::", ScanPage::after(&first[2], 3))
        .await
        .unwrap();
    assert_eq!(next, whole[3..6]);
    // After the last key, and after a key past the prefix: nothing; a page of none lists none.
    let last = whole.last().unwrap();
    assert!(
        store
            .scan("k::", ScanPage::after(last, 5))
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        store
            .scan("k::", ScanPage::after("l", 5))
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        store
            .scan("k::", ScanPage::first(0))
            .await
            .unwrap()
            .is_empty()
    );
    // After a key below the prefix: from its start.
    assert_eq!(
        store.scan("k::", ScanPage::after("j", 2)).await.unwrap(),
        whole[..2]
    );
}

#[tokio::test]
async fn memory_lists_keys_in_pages() {
    listings_in_pages::<MemoryStore>().await;
}

#[tokio::test]
async fn redb_lists_keys_in_pages() {
    listings_in_pages::<Redb>().await;
}

#[tokio::test]
async fn couchdb_lists_keys_in_pages() {
    listings_in_pages::<CouchDb>().await;
}
