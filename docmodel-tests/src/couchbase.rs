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

use std::sync::atomic::{AtomicUsize, Ordering};

use couchbase::authenticator::PasswordAuthenticator;
use couchbase::cluster::Cluster;
use couchbase::options::cluster_options::ClusterOptions;
use docmodel::store::Couchbase;

use docmodel::store::Store;

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
    let store = Couchbase::builder(&settings.url, &settings.bucket)
        .credentials(settings.user, settings.password)
        .collection(name.clone())
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

/// The hooks of [`Listed`]: none but the collection's, dropped with the store.
#[derive(Debug)]
pub struct Collection {
    name: String,
}

impl Drop for Collection {
    fn drop(&mut self) {
        drop_collection(std::mem::take(&mut self.name));
    }
}

impl Hooks<Couchbase> for Collection {}

/// The statement creating the key index, as the repository's `ensure_indexes` sends it.
const KEY_INDEX: &[u8] =
    br#"{"statement": ["CREATE INDEX IF NOT EXISTS `docmodel__keys` ON ", "(META().id)"]}"#;

/// The store on a new, empty collection with its key index, dropped with it.
pub async fn listed() -> Listed {
    let (inner, name) = fresh().await;
    let store = Hooked::with(inner, Collection { name });
    store
        .create_index(KEY_INDEX)
        .await
        .unwrap_or_else(|err| panic!("cannot create the key index: {err}"));
    store
}

/// A second collection beside `store`'s, new and empty, reached through `store`'s connection
/// ([`Couchbase::collection`]), with its key index; dropped with the store returned.
pub async fn beside(store: &Listed) -> Listed {
    let settings = settings();
    let name = unique_name();
    create_collection(&settings, &name).await;
    let other = Hooked::with(store.inner.collection(name.clone()), Collection { name });
    other
        .create_index(KEY_INDEX)
        .await
        .unwrap_or_else(|err| panic!("cannot create the key index: {err}"));
    other
}
