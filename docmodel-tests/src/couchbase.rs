//! The Couchbase cluster the behavioural suite runs against, when one is given: `DOCMODEL_COUCHBASE_URL`
//! (a connection string, `couchbase://host`), `DOCMODEL_COUCHBASE_USER`, `DOCMODEL_COUCHBASE_PASSWORD` and
//! `DOCMODEL_COUCHBASE_BUCKET`. No Couchbase server can be installed on the machines CI runs on: without the
//! variables, the suite's Couchbase tests are compiled and reported as ignored, each with the line
//! [`NOT_RUN`], which names the variables.
//!
//! Each test gets a collection of its own, created in the bucket's `_default` scope and named
//! `docmodel_<process>_<n>`, and dropped when the test's store goes (a collection a failed drop leaves is
//! named on stderr).
//!
//! [`Listed`] is the store on that collection with the collection's key index made (`docmodel__keys`, what
//! `Repo::ensure_indexes` creates), so that it lists its keys as a user's store does, through SQL++, for the
//! repository's whole-store work and the suite's checks of which keys a store holds.
//!
//! # A cluster without a query service
//!
//! Couchbase's mock cluster (CAVES, which `.ci/run` starts) has no query service and answers SQL++ with 501:
//! the store says so ([`Couchbase`]'s `Unsupported` error naming the query service), and [`listed`] finds it
//! out from the key index it creates. Then:
//! - the suite's key-value tests still run, and check which keys the collection holds
//!   ([`Fresh::listed_keys`](crate::Fresh::listed_keys)) by reading, key by key, every key the test wrote
//!   through the store (the collection is new, and nothing else writes to it): what a listing would give,
//!   without SQL++;
//! - the tests that need SQL++ (`find`, `count`, indexes, the key listing through `META().id`, whole-store
//!   jobs) are reported as ignored, "not run on this cluster: no query service", when the suite is built
//!   with `DOCMODEL_COUCHBASE_QUERY=none` (cfg `couchbase_query` off; `.ci/run` sets it from what the
//!   program `couchbase-probe` finds out from the store); built without it on such a cluster, they fail
//!   with the store's error naming the query service.

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use couchbase::authenticator::PasswordAuthenticator;
use couchbase::cluster::Cluster;
use couchbase::options::cluster_options::ClusterOptions;
use docmodel::store::Couchbase;

use docmodel::store::{Call, Store};
use docmodel::{Error, StoreErrorKind};

use crate::{Hooked, Hooks};

/// Why the Couchbase tests did not run.
pub const NOT_RUN: &str = "not run: no Couchbase cluster; set DOCMODEL_COUCHBASE_URL, DOCMODEL_COUCHBASE_USER, \
                           DOCMODEL_COUCHBASE_PASSWORD and DOCMODEL_COUCHBASE_BUCKET to run it";

struct Settings {
    url: String,
    user: String,
    password: String,
    bucket: String,
}

fn settings() -> Settings {
    let var =
        |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set; {NOT_RUN}"));
    Settings {
        url: var("DOCMODEL_COUCHBASE_URL"),
        user: var("DOCMODEL_COUCHBASE_USER"),
        password: var("DOCMODEL_COUCHBASE_PASSWORD"),
        bucket: var("DOCMODEL_COUCHBASE_BUCKET"),
    }
}

async fn cluster(settings: &Settings) -> Cluster {
    let options = ClusterOptions::new(
        PasswordAuthenticator::new(settings.user.clone(), settings.password.clone()).into(),
    );
    Cluster::connect(&settings.url, options)
        .await
        .unwrap_or_else(|err| panic!("cannot connect to {}: {err}", settings.url))
}

/// Creates the collection `name` in the bucket's `_default` scope.
async fn create_collection(settings: &Settings, name: &str) {
    cluster(settings)
        .await
        .bucket(&settings.bucket)
        .collections()
        .create_collection("_default", name, None, None)
        .await
        .unwrap_or_else(|err| panic!("cannot create the collection {name}: {err}"));
}

/// A name no other test's collection has: `docmodel_<process>_<n>`.
fn unique_name() -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!(
        "docmodel_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// A store on a new, empty collection of the given cluster, and the collection's name.
async fn fresh() -> (Couchbase, String) {
    let settings = settings();
    let name = unique_name();
    create_collection(&settings, &name).await;
    // 30 s, not the store's 10 s: CAVES, the mock cluster CI runs these against, has left an operation
    // unanswered for over 10 s under load (a counter increment, in one CI run of 2026-11-29; copy inserts in
    // an earlier one). A real cluster answers well within either.
    let store = Couchbase::builder(&settings.url, &settings.bucket)
        .credentials(settings.user, settings.password)
        .collection(name.clone())
        .timeout(std::time::Duration::from_secs(30))
        .connect()
        .await
        .unwrap();
    (store, name)
}

/// Drops the collection `name`, on a thread of its own (a `Drop` cannot wait for a future, and may run
/// inside the test's runtime).
fn drop_collection(name: String) {
    let dropped = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|err| err.to_string())?;
        runtime.block_on(async {
            let settings = settings();
            cluster(&settings)
                .await
                .bucket(&settings.bucket)
                .collections()
                .drop_collection("_default", &name, None)
                .await
                .map_err(|err| format!("cannot drop the collection {name}: {err}"))
        })
    })
    .join();
    match dropped {
        Ok(Ok(())) => {}
        Ok(Err(message)) => eprintln!("{message}"),
        Err(_) => eprintln!("dropping a test collection panicked"),
    }
}

/// A Couchbase store on a collection of its own, listing its keys through SQL++: see the module docs.
pub type Listed = Hooked<Couchbase, Collection>;

/// The hooks of [`Listed`]: the collection's, dropped with the store, whether the cluster answers SQL++, and
/// every key a write through the store named (what [`listed_keys`] reads where there is no query service).
#[derive(Debug)]
pub struct Collection {
    name: String,
    /// Whether the cluster has a query service: the key index was created.
    query: bool,
    written: Mutex<BTreeSet<String>>,
}

impl Collection {
    fn new(name: String) -> Self {
        Collection {
            name,
            query: true,
            written: Mutex::default(),
        }
    }

    /// Whether the cluster answers SQL++ (the key index could be created).
    pub fn has_query_service(&self) -> bool {
        self.query
    }

    /// Every key a write through the store named, whether or not the write succeeded (one that failed
    /// without an answer may have landed), in byte order.
    pub fn written(&self) -> Vec<String> {
        self.written
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .cloned()
            .collect()
    }
}

impl Drop for Collection {
    fn drop(&mut self) {
        drop_collection(std::mem::take(&mut self.name));
    }
}

impl Hooks<Couchbase> for Collection {
    fn after(&self, call: Call<'_>, _succeeded: bool) {
        let mut written = self
            .written
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match call {
            Call::Insert { key, .. }
            | Call::Replace { key, .. }
            | Call::Remove { key, .. }
            | Call::Counter { key, .. } => {
                written.insert(key.to_owned());
            }
            Call::InsertMany { values, .. } => {
                written.extend(values.iter().map(|(key, _)| (*key).to_owned()));
            }
            Call::WriteAtomic { writes, .. } => {
                written.extend(writes.iter().map(|write| write.key().to_owned()));
            }
            _ => {}
        }
    }
}

/// Whether `err` is the store's answer of a cluster without a query service.
pub fn no_query_service(err: &Error) -> bool {
    matches!(
        err,
        Error::Store {
            kind: StoreErrorKind::Unsupported,
            ..
        }
    ) && err.to_string().contains("no query service")
}

/// The keys of `store`'s collection, in byte order: listed through SQL++ where the cluster has a query
/// service; elsewhere read, key by key, from every key a write through the store named (see the module
/// docs).
pub async fn listed_keys(store: &Listed) -> Vec<String> {
    if store.hooks.query {
        return crate::keys(store).await;
    }
    let written = store.hooks.written();
    let written: Vec<&str> = written.iter().map(String::as_str).collect();
    let found = store.inner.get_many(&written).await.unwrap();
    written
        .iter()
        .zip(found)
        .filter(|(_, stored)| stored.is_some())
        .map(|(key, _)| (*key).to_owned())
        .collect()
}

/// The statement creating the key index, as the repository's `ensure_indexes` sends it.
const KEY_INDEX: &[u8] =
    br#"{"statement": ["CREATE INDEX IF NOT EXISTS `docmodel__keys` ON ", "(META().id)"]}"#;

/// The store on a new, empty collection with its key index, dropped with it; on a cluster without a query
/// service, without the index (see the module docs).
pub async fn listed() -> Listed {
    let store = probed().await;
    // Built to report the SQL++ tests as not run, on a cluster that could run them: they would not be tested.
    if cfg!(all(couchbase_cluster, not(couchbase_query))) && store.hooks.query {
        panic!(
            "DOCMODEL_COUCHBASE_QUERY=none, but this cluster has a query service: build the suite without it, \
             so that its SQL++ tests run"
        );
    }
    store
}

/// The store on a new, empty collection, with its key index where the cluster has a query service.
async fn probed() -> Listed {
    let (inner, name) = fresh().await;
    with_key_index(Hooked::with(inner, Collection::new(name))).await
}

/// `store` with its collection's key index, or marked as on a cluster without a query service.
async fn with_key_index(mut store: Listed) -> Listed {
    match store.create_index(KEY_INDEX).await {
        Ok(()) => {}
        Err(err) if no_query_service(&err) => store.hooks.query = false,
        Err(err) => panic!("cannot create the key index: {err}"),
    }
    store
}

/// Whether the cluster the variables name has a query service, as the store finds it out: what the
/// program `couchbase-probe` prints for `.ci/run`.
pub async fn has_query_service() -> bool {
    probed().await.hooks.query
}

/// A second collection beside `store`'s, new and empty, reached through `store`'s connection
/// ([`Couchbase::collection`]), with its key index; dropped with the store returned.
pub async fn beside(store: &Listed) -> Listed {
    let settings = settings();
    let name = unique_name();
    create_collection(&settings, &name).await;
    with_key_index(Hooked::with(
        store.inner.collection(name.clone()),
        Collection::new(name),
    ))
    .await
}
