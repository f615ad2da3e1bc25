//! The CouchDB guide's bookmarks scenario in its second design, each bookmark a document of its own
//! (`Child`, with an `OrderKey` for its place), on two replicating servers: the PC's bookmarks replicated to
//! the laptop; on the laptop, News pointed to CNN, Register renamed "The Register" and Slashdot added just
//! after it; on the PC, Weather removed and CNET added to the Tech folder. After replication both servers
//! hold the list the guide expects, in order, with no conflict. Only a bookmark both sides changed conflicts,
//! and that is reported on both.

use docmodel::store::CouchDb;
use docmodel::{Child, OrderKey, Orphans, Repo};
use docmodel_tests::couchdb::Replicated;

use super::conflicted_keys;
use crate::children::{
    Bookmark, THE_GUIDES_MERGED_TREE, THE_GUIDES_TREE, key, the_guides_bookmarks, tree,
};

/// Two replicating servers: the PC (`a`) holding the guide's bookmarks, replicated to the laptop (`b`), the
/// indexes built on both; and a repository on each.
async fn the_guides_bookmarks_on_both()
-> (Replicated, Repo<Bookmark, CouchDb>, Repo<Bookmark, CouchDb>) {
    let servers = Replicated::start().await;
    let pc = Repo::<Bookmark>::new(servers.a.clone());
    let laptop = Repo::<Bookmark>::new(servers.b.clone());
    for entry in the_guides_bookmarks() {
        pc.insert(entry).await.unwrap();
    }
    pc.ensure_indexes().await.unwrap();
    servers.replicate_a_to_b().await;
    laptop.ensure_indexes().await.unwrap();
    (servers, pc, laptop)
}

#[tokio::test]
async fn the_guides_bookmarks_as_documents_merge_on_both_servers_without_a_conflict() {
    let (servers, pc, laptop) = the_guides_bookmarks_on_both().await;
    let (on_pc, on_laptop) = (&servers.a, &servers.b);
    assert_eq!(tree(&laptop).await, THE_GUIDES_TREE);

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
    let expected = THE_GUIDES_MERGED_TREE;
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

/// The guide's trap: "Some care is needed when deleting a list or sub-list, to ensure that all associated
/// bookmarks are also deleted, otherwise they will become orphaned." The PC removes the Tech folder with its
/// bookmarks while the laptop adds one to it: after replication the laptop's bookmark is an orphan, which
/// `orphans()` finds on both servers, and removing it there leaves none on either.
#[tokio::test]
async fn an_entry_added_to_a_folder_the_other_side_removed_is_found_as_an_orphan_on_both() {
    let (servers, pc, laptop) = the_guides_bookmarks_on_both().await;
    let (on_pc, on_laptop) = (&servers.a, &servers.b);

    pc.remove_with_items(&key("tech")).await.unwrap();
    let couchdb = laptop.get(&key("couchdb")).await.unwrap().unwrap();
    laptop
        .insert(Bookmark::link(
            "cnet",
            Some("tech"),
            &couchdb.place.after_on("lap1").unwrap(),
            "CNET",
            "http://news.cnet.com/",
        ))
        .await
        .unwrap();
    servers.replicate_a_to_b().await;
    servers.replicate_b_to_a().await;

    let top = &THE_GUIDES_TREE[..2];
    for (side, repo) in [("PC", &pc), ("laptop", &laptop)] {
        assert_eq!(tree(repo).await, top, "on the {side}");
        let orphans: Vec<(String, Option<String>)> = repo
            .orphans()
            .await
            .unwrap()
            .iter()
            .map(|doc| {
                (
                    doc.id.clone(),
                    doc.parent_key().map(|key| key.as_str().to_owned()),
                )
            })
            .collect();
        assert_eq!(
            orphans,
            [("cnet".to_owned(), Some("bookmark::tech".to_owned()))],
            "on the {side}"
        );
    }
    // The application's rule here: an orphan is removed.
    assert_eq!(laptop.settle_orphans(&Orphans::Remove).await.unwrap(), 1);
    servers.replicate_b_to_a().await;
    for (side, repo) in [("PC", &pc), ("laptop", &laptop)] {
        assert!(repo.orphans().await.unwrap().is_empty(), "on the {side}");
    }
    assert_eq!(conflicted_keys(on_pc).await, Vec::<String>::new());
    assert_eq!(conflicted_keys(on_laptop).await, Vec::<String>::new());
}
