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
//! Couchbase cannot list keys through its key-value API, and the suite checks which keys a store holds:
//! [`Listed`] is the store with a log of the keys written to it (the collection is the test's own, so the
//! log is all of it). It answers `scan` from the log ([`Forgetting::listing`]) and declares no more capabilities than Couchbase, so
//! every repository operation goes to Couchbase as it would without it.

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use couchbase::authenticator::PasswordAuthenticator;
use couchbase::cluster::Cluster;
use couchbase::options::cluster_options::ClusterOptions;
use docmodel::store::Couchbase;

use crate::{Call, Forgetting, Hooked, Hooks, Operation};

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

/// A store on a new, empty collection of the given cluster, and the collection's name.
async fn fresh() -> (Couchbase, String) {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let settings = settings();
    let name = format!(
        "docmodel_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    cluster(&settings)
        .await
        .bucket(&settings.bucket)
        .collections()
        .create_collection("_default", &name, None, None)
        .await
        .unwrap_or_else(|err| panic!("cannot create the collection {name}: {err}"));
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

/// A Couchbase store with a log of its keys, for the suite's listings: see the module docs.
pub type Listed = Forgetting<Hooked<Couchbase, KeyLog>>;

/// The hooks of [`Listed`]: the keys written, and the collection, dropped with them.
#[derive(Debug)]
pub struct KeyLog {
    collection: String,
    keys: Mutex<BTreeSet<String>>,
}

impl Drop for KeyLog {
    fn drop(&mut self) {
        drop_collection(std::mem::take(&mut self.collection));
    }
}

/// The store on a new, empty collection, dropped with it.
pub async fn listed() -> Listed {
    let (inner, collection) = fresh().await;
    let log = KeyLog {
        collection,
        keys: Mutex::new(BTreeSet::new()),
    };
    // A bulk insert is made one insert at a time, each logged.
    Forgetting::passing(Hooked::with(inner, log), |operation| {
        operation != Operation::InsertMany
    })
    .listing(|store, prefix| store.hooks.keys_under(prefix))
}

impl Hooks<Couchbase> for KeyLog {
    fn after(&self, call: Call<'_>, succeeded: bool) {
        let mut keys = self.keys.lock().unwrap();
        match call.operation {
            Operation::Insert | Operation::Counter if succeeded => {
                keys.insert(call.key.to_owned());
            }
            Operation::Remove if succeeded => {
                keys.remove(call.key);
            }
            _ => {}
        }
    }
}

impl KeyLog {
    /// The keys logged under `prefix`, for the suite's checks (the repository cannot list them: the
    /// capabilities say there is no scan).
    pub fn keys_under(&self, prefix: &str) -> Vec<String> {
        self.keys
            .lock()
            .unwrap()
            .iter()
            .filter(|key| key.starts_with(prefix))
            .cloned()
            .collect()
    }
}
