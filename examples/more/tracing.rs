//! What docmodel tells a `tracing` subscriber (feature `tracing`), printed by `tracing-subscriber`'s fmt layer:
//! an insert, an update that loses a race to another writer and retries, a migration on read, a find with its
//! query, and an operation slower than its repository's threshold. Each span is printed when it closes, with
//! its fields; the store calls are the spans one level down. Keys and values are hidden, as by default.
//!
//! Run with `cargo run -p more-examples --example tracing`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use docmodel::store::{Capabilities, Layer, MemoryStore, Store};
use docmodel::{DocModel, JsonObject, MigrationError, Query, Repo};
use serde::{Deserialize, Serialize};
use tracing_subscriber::fmt::format::FmtSpan;

#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "2.0", key = "user::{id}", revisions = 3)]
#[docmodel(migrate_from("1.0" = name_to_full_name))]
struct User {
    #[docmodel(get)]
    id: u64,
    full_name: String,
    status: String,
}

/// 1.0 -> 2.0: `name` becomes `full_name`.
fn name_to_full_name(doc: &mut JsonObject) -> Result<(), MigrationError> {
    let name = doc
        .remove("name")
        .ok_or_else(|| MigrationError::missing_field("name"))?;
    doc.insert("full_name".into(), name);
    Ok(())
}

fn main() -> Result<(), docmodel::Error> {
    tracing_subscriber::fmt()
        .with_max_level(tracing_subscriber::filter::LevelFilter::DEBUG)
        .with_span_events(FmtSpan::CLOSE)
        .without_time()
        .with_target(false)
        .init();
    pollster::block_on(run())
}

/// The store as a server shared with other programs (CouchDB, Couchbase) is: no transactions, so an update
/// reads, then saves with compare-and-swap, and another writer can come between. (On MemoryStore or Redb
/// themselves, an update is one transaction that other writers wait for: it never loses a race.)
struct Shared<'s>(&'s MemoryStore);

impl Layer for Shared<'_> {
    type Inner = MemoryStore;

    fn inner(&self) -> &MemoryStore {
        self.0
    }

    fn capabilities_from(&self, inner: Capabilities) -> Capabilities {
        inner.with_transactions(false)
    }
}

async fn run() -> Result<(), docmodel::Error> {
    let store = MemoryStore::new();
    let users = Repo::<User>::new(Shared(&store));

    println!("== an insert");
    users
        .insert(User {
            id: 1,
            full_name: "Ada Lovelace".into(),
            status: "active".into(),
        })
        .await?;

    println!(
        "\n== an update that loses a race: another program saves the user between its read and its save"
    );
    // The other program's repository: its update is one transaction of the MemoryStore, made before this
    // one's save.
    let other = Repo::<User>::new(&store);
    let raced = AtomicBool::new(false);
    users
        .update(&User::key(1), |user| {
            if !raced.swap(true, Ordering::SeqCst) {
                // The other program's save, made while this update holds what it read (MemoryStore answers
                // at once, so it can be waited for here).
                pollster::block_on(other.update(&User::key(1), |user| user.status = "away".into()))
                    .expect("the other program's save");
            }
            user.full_name = "Augusta Ada King".into();
        })
        .await?;

    println!("\n== a document stored at schema 1.0, migrated as it is read");
    store
        .insert(
            "user::2",
            br#"{"_type":"user","_schema":"1.0","_ver":1,"id":2,"name":"Charles Babbage","status":"active"}"#,
        )
        .await?;
    users.get(&User::key(2)).await?;

    println!("\n== a find, its filter shown without its values");
    users
        .find(&Query::new(User::fields().status.eq("active")))
        .await?;

    println!("\n== a repository that reports every operation taking 0 ms or longer as slow");
    let watched = Repo::<User>::new(&store).slow_threshold(Duration::ZERO);
    watched.get(&User::key(1)).await?;
    Ok(())
}
