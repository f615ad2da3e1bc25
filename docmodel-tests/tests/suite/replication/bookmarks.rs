//! The CouchDB guide's bookmarks scenario in its second design, each bookmark a document of its own
//! (`Child`, with an `OrderKey` for its place), on two replicating servers: the PC's bookmarks replicated to
//! the laptop; on the laptop, News pointed to CNN, Register renamed "The Register" and Slashdot added just
//! after it; on the PC, Weather removed and CNET added to the Tech folder. After replication both servers
//! hold the list the guide expects, in order, with no conflict. Only a bookmark both sides changed conflicts,
//! and that is reported on both.

use docmodel::{Child, OrderKey, Repo};
use docmodel_tests::couchdb::Replicated;

use super::conflicted_keys;
use crate::children::{Bookmark, key, the_guides_bookmarks, tree};

#[tokio::test]
async fn the_guides_bookmarks_as_documents_merge_on_both_servers_without_a_conflict() {
    let servers = Replicated::start().await;
    let (on_pc, on_laptop) = (&servers.a, &servers.b);
    let pc = Repo::<Bookmark>::new(on_pc.clone());
    let laptop = Repo::<Bookmark>::new(on_laptop.clone());
    for entry in the_guides_bookmarks() {
        pc.insert(entry).await.unwrap();
    }
    pc.ensure_indexes().await.unwrap();
    servers.replicate_a_to_b().await;
    laptop.ensure_indexes().await.unwrap();
    assert_eq!(
        tree(&laptop).await,
        [
            "Weather http://www.bbc.co.uk/weather",
            "News http://news.bbc.co.uk/",
            "Tech/",
            "  Register http://www.theregister.co.uk/",
            "  CouchDB http://couchdb.apache.org/",
        ]
    );

    // The laptop: News to CNN, Register renamed, Slashdot just after it.
    laptop
        .update(&key("news"), |entry| {
            entry.url = Some("http://www.cnn.com/".into());
        })
        .await
        .unwrap();
    let register = laptop
        .update(&key("register"), |entry| {
            entry.name = "The Register".into();
        })
        .await
        .unwrap();
    let couchdb = laptop.get(&key("couchdb")).await.unwrap().unwrap();
    let after_register = OrderKey::between_on(&register.place, &couchdb.place, "lap1").unwrap();
    laptop
        .insert(Bookmark::link(
            "slashdot",
            Some("tech"),
            &after_register,
            "Slashdot",
            "http://www.slashdot.new/",
        ))
        .await
        .unwrap();

    // The PC: Weather removed, CNET added at the end of Tech.
    pc.remove(&key("weather")).await.unwrap();
    let couchdb = pc.get(&key("couchdb")).await.unwrap().unwrap();
    assert_eq!(couchdb.parent_key(), Some(&key("tech")));
    let last_in_tech = pc
        .children(&key("tech"))
        .next()
        .await
        .unwrap()
        .unwrap()
        .docs
        .last()
        .unwrap()
        .place
        .clone();
    pc.insert(Bookmark::link(
        "cnet",
        Some("tech"),
        &last_in_tech.after_on("pc1").unwrap(),
        "CNET",
        "http://news.cnet.com/",
    ))
    .await
    .unwrap();

    servers.replicate_a_to_b().await;
    servers.replicate_b_to_a().await;
    let expected = [
        "News http://www.cnn.com/",
        "Tech/",
        "  The Register http://www.theregister.co.uk/",
        "  Slashdot http://www.slashdot.new/",
        "  CouchDB http://couchdb.apache.org/",
        "  CNET http://news.cnet.com/",
    ];
    assert_eq!(tree(&pc).await, expected, "on the PC");
    assert_eq!(tree(&laptop).await, expected, "on the laptop");
    assert_eq!(conflicted_keys(on_pc).await, Vec::<String>::new());
    assert_eq!(conflicted_keys(on_laptop).await, Vec::<String>::new());

    // Both sides change the same bookmark: that one conflicts, and each side reports it; the list still
    // shows it once, in its place.
    pc.update(&key("couchdb"), |entry| {
        entry.name = "Apache CouchDB".into();
    })
    .await
    .unwrap();
    laptop
        .update(&key("couchdb"), |entry| {
            entry.url = Some("https://couchdb.apache.org/".into());
        })
        .await
        .unwrap();
    servers.replicate_a_to_b().await;
    servers.replicate_b_to_a().await;
    for (side, repo, store) in [("PC", &pc, on_pc), ("laptop", &laptop, on_laptop)] {
        let doc = repo.get(&key("couchdb")).await.unwrap().unwrap();
        assert!(doc.has_conflicts(), "on the {side}");
        assert_eq!(
            conflicted_keys(store).await,
            ["bookmark::couchdb"],
            "on the {side}"
        );
        let lines = tree(repo).await;
        assert_eq!(lines.len(), expected.len(), "on the {side}: {lines:?}");
        assert!(lines[4].contains("CouchDB"), "on the {side}: {lines:?}");
    }
}
