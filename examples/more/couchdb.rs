//! The seeds' user on CouchDB: a typed model in a real document database, `_rev` as compare-and-swap, the
//! revision copies docmodel keeps (`_rev` is not history), and ids that stay unique under replication.
//!
//! It starts no server: it uses the one `DOCMODEL_COUCHDB_URL` names
//! (`http://user:password@127.0.0.1:5984`), and says how to get one when it is unset.
//!
//! Run with `DOCMODEL_COUCHDB_URL=http://admin:secret@127.0.0.1:5984 cargo run -p more-examples --example couchdb`.

use docmodel::store::{CouchDb, Store};
use docmodel::{DocModel, Error, Repo};
use serde::{Deserialize, Serialize};

/// CouchDB refuses top-level fields starting with `_`, so the envelope goes under `meta` (the CouchDB
/// seed's own layout); the key is a UUID v7, which two replicating servers never hand out twice.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{id}", revisions = 5)]
#[docmodel(envelope(layout = "meta", timestamps = "iso8601", modified_by))]
pub struct User {
    #[docmodel(get)]
    id: docmodel::uuid::Uuid,
    #[docmodel(get, set)]
    first_name: String,
    #[docmodel(get, set)]
    last_name: String,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let Some(url) = std::env::var("DOCMODEL_COUCHDB_URL")
        .ok()
        .filter(|url| !url.is_empty())
    else {
        eprintln!(
            "This example talks to a CouchDB; it starts none itself. Set DOCMODEL_COUCHDB_URL, e.g.\n\n  \
             docker run -d -p 5984:5984 -e COUCHDB_USER=admin -e COUCHDB_PASSWORD=secret couchdb:3\n  \
             DOCMODEL_COUCHDB_URL=http://admin:secret@127.0.0.1:5984 cargo run -p more-examples --example couchdb\n\n\
             or, with Node.js: `npx pouchdb-server --in-memory --port 5984` and \
             DOCMODEL_COUCHDB_URL=http://127.0.0.1:5984."
        );
        return Ok(());
    };
    let store = CouchDb::connect(&url, "docmodel_example").await?;
    if store.create_db_if_missing().await? {
        println!("created database `{}`", store.db());
    }
    let users = Repo::<User>::new(&store).actor("example");

    let id = docmodel::uuid::Uuid::now_v7();
    let mut doc = users
        .insert(User {
            id,
            first_name: "Joe".into(),
            last_name: "Smith".into(),
        })
        .await?;
    let rev = |doc: &docmodel::Doc<User>| {
        doc.cas()
            .and_then(|cas| cas.as_revision())
            .unwrap_or_default()
            .to_owned()
    };
    println!("inserted {} at _rev {}", doc.key(), rev(&doc));
    let stored = store.get(doc.key().as_str()).await?.expect("just inserted");
    println!("stored:   {}", String::from_utf8_lossy(&stored.bytes));

    doc.set_first_name("Joseph");
    users.save(&mut doc).await?;
    println!("saved _ver {} at _rev {}", doc.envelope().ver, rev(&doc));

    // A stale copy cannot overwrite the newer version: `_rev` is the compare-and-swap token.
    let mut stale = users.get(doc.key()).await?.expect("saved");
    doc.set_last_name("Smyth");
    users.save(&mut doc).await?;
    stale.set_last_name("Stale");
    match users.save(&mut stale).await {
        Err(err @ Error::Conflict { .. }) => println!("refused: {err}"),
        other => panic!("a stale save must be refused, got {other:?}"),
    }

    // `_rev` is not history (CouchDB compacts old revisions away); docmodel's revision copies are.
    for old in users.revisions(doc.key()).await? {
        println!(
            "version {}: {} {}",
            old.envelope().ver,
            old.first_name(),
            old.last_name()
        );
    }
    users.remove(doc.key()).await?;
    println!("removed {} and its copies", doc.key());
    Ok(())
}
