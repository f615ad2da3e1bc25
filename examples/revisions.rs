//! Document revisions, the seeds' way (`user::123::v::1`): every save keeps a copy of the version it
//! replaces, up to `revisions = N`; a stale copy of a document cannot overwrite a newer one; any kept version
//! can be restored, as a new version.
//!
//! Run with `cargo run --example revisions`.

use docmodel::store::MemoryStore;
use docmodel::{DocModel, Error, Repo, Timestamp};
use serde::{Deserialize, Serialize};

/// A wiki page keeping its last 3 versions.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(type = "page", schema = "1.0", key = "page::{slug}", revisions = 3)]
#[docmodel(envelope(modified_by))]
pub struct Page {
    #[docmodel(get)]
    slug: String,
    #[docmodel(get, set)]
    text: String,
}

fn main() -> Result<(), Error> {
    pollster::block_on(run())
}

async fn run() -> Result<(), Error> {
    let store = MemoryStore::new();
    // A fixed clock keeps the output the same from run to run.
    let pages = Repo::<Page>::new(&store)
        .actor("ann")
        .clock(|| Timestamp::from_millis(1_544_759_124_478));
    let key = Page::key("home")?;

    pages
        .insert(Page {
            slug: "home".into(),
            text: "Hello".into(),
        })
        .await?;
    for text in ["Hello, world", "Hello, docmodel", "Hello again", "Goodbye"] {
        pages.update(&key, |page| page.set_text(text)).await?;
    }
    let current = pages.get(&key).await?.expect("just written");
    println!(
        "{key} is at version {}: {:?}",
        current.envelope().ver,
        current.text()
    );
    println!("keys in the store: {:?}", store.keys());
    for old in pages.revisions(&key).await? {
        println!("  kept version {}: {:?}", old.envelope().ver, old.text());
    }

    // Two editors read version 5; the first to save wins, the second gets a conflict and loses nothing.
    let mut first = pages.get(&key).await?.expect("stored");
    let mut second = pages.get(&key).await?.expect("stored");
    first.set_text("Goodbye, cruel world");
    pages.save(&mut first).await?;
    second.set_text("Goodbye!");
    match pages.save(&mut second).await {
        Err(err @ Error::Conflict { .. }) => println!("\nsecond editor: {err}"),
        other => println!("\nunexpected: {other:?}"),
    }
    // The second editor starts again from what is stored now.
    let doc = pages
        .update(&key, |page| {
            page.set_text(format!("{} (and goodbye!)", page.text()))
        })
        .await?;
    println!(
        "after a retry, version {}: {:?}",
        doc.envelope().ver,
        doc.text()
    );

    // Restoring version 5 makes it current again, as version 8; version 7 is kept like any replaced version.
    let restored = pages.restore(&key, 5).await?;
    println!(
        "\nrestored version 5 as version {}: {:?}",
        restored.envelope().ver,
        restored.text()
    );
    for old in pages.revisions(&key).await? {
        println!("  kept version {}: {:?}", old.envelope().ver, old.text());
    }
    // The window keeps the last versions only: version 1 has left it, and cannot be restored.
    match pages.restore(&key, 1).await {
        Err(err) => println!("restoring version 1, which left the window: {err} (as it should)"),
        Ok(_) => println!("unexpected: version 1 restored"),
    }
    Ok(())
}
