//! The CouchDB guide's bookmarks scenario in its third design, an event log (`EventLog`): each change a
//! document of its own, the bookmarks the fold of the changes. On two replicating servers both end with the
//! list the guide expects, in order, with no conflict at all, not even where both sides changed one bookmark;
//! and a compaction on one side while the other is away leaves both, after replication, with the fold of
//! every event.

use docmodel::store::CouchDb;
use docmodel::{Error, EventLog, Fold, Timestamp};
use docmodel_tests::couchdb::Replicated;
use docmodel_tests::keys_under;

use super::conflicted_keys;
use crate::children::THE_GUIDES_MERGED_TREE;
use crate::event_log::{
    Bookmarks, Change, Clock, HOUR, added, changed, log, slashdot, the_guides_base,
};

async fn tree(log: &EventLog<Bookmarks, CouchDb>) -> Vec<String> {
    log.state().await.unwrap().state.tree()
}

#[tokio::test]
async fn the_guides_bookmarks_as_an_event_log_merge_on_both_servers_without_any_conflict() {
    let servers = Replicated::start().await;
    let (pc_time, laptop_time) = (Clock::at(100 * HOUR), Clock::at(100 * HOUR));
    let pc = log(servers.a.clone(), "pc1", &pc_time);
    let laptop = log(servers.b.clone(), "lap1", &laptop_time);
    for change in the_guides_base() {
        pc.append(&change).await.unwrap();
    }
    servers.replicate_a_to_b().await;
    let base = [
        "Weather http://www.bbc.co.uk/weather",
        "News http://news.bbc.co.uk/",
        "Tech/",
        "  Register http://www.theregister.co.uk/",
        "  CouchDB http://couchdb.apache.org/",
    ];
    assert_eq!(tree(&laptop).await, base);

    // The laptop: News to CNN, Register renamed, Slashdot just after it.
    laptop_time.set(101 * HOUR);
    laptop
        .append(&changed("news", None, Some("http://www.cnn.com/")))
        .await
        .unwrap();
    laptop
        .append(&changed("register", Some("The Register"), None))
        .await
        .unwrap();
    laptop.append(&slashdot()).await.unwrap();
    // The PC, meanwhile: Weather deleted, CNET added after CouchDB.
    pc_time.set(101 * HOUR + 60_000);
    pc.append(&Change::Deleted {
        id: "weather".into(),
    })
    .await
    .unwrap();
    pc.append(&added(
        "cnet",
        Some("tech"),
        Some("couchdb"),
        "CNET",
        Some("http://news.cnet.com/"),
    ))
    .await
    .unwrap();

    servers.replicate_a_to_b().await;
    servers.replicate_b_to_a().await;
    let expected = THE_GUIDES_MERGED_TREE;
    assert_eq!(tree(&pc).await, expected, "on the PC");
    assert_eq!(tree(&laptop).await, expected, "on the laptop");

    // Both sides change CouchDB, its name on one and its address on the other, and then both its name:
    // nothing conflicts; each change applies in the log's order, the later name winning on both.
    pc_time.set(102 * HOUR);
    laptop_time.set(102 * HOUR + 1);
    pc.append(&changed("couchdb", Some("Apache CouchDB"), None))
        .await
        .unwrap();
    laptop
        .append(&changed(
            "couchdb",
            Some("CouchDB 3"),
            Some("https://couchdb.apache.org/"),
        ))
        .await
        .unwrap();
    servers.replicate_a_to_b().await;
    servers.replicate_b_to_a().await;
    for (side, log) in [("PC", &pc), ("laptop", &laptop)] {
        assert_eq!(
            tree(log).await[4],
            "  CouchDB 3 https://couchdb.apache.org/",
            "on the {side}"
        );
    }
    assert_eq!(conflicted_keys(&servers.a).await, Vec::<String>::new());
    assert_eq!(conflicted_keys(&servers.b).await, Vec::<String>::new());
    // Twelve events, each its own document, and nothing else.
    assert_eq!(
        keys_under(&servers.a, "bookmarks::alice::e::").await.len(),
        12
    );
    assert_eq!(
        keys_under(&servers.b, "").await,
        keys_under(&servers.a, "").await
    );
}

#[tokio::test]
async fn a_compaction_while_the_other_replica_is_away_leaves_both_with_the_fold_of_every_event() {
    let servers = Replicated::start().await;
    let (pc_time, laptop_time) = (Clock::at(99 * HOUR), Clock::at(99 * HOUR));
    let pc = log(servers.a.clone(), "pc1", &pc_time);
    let laptop = log(servers.b.clone(), "lap1", &laptop_time);
    let mut every = Bookmarks::default();
    for change in the_guides_base() {
        pc.append(&change).await.unwrap();
        every.apply(&change);
    }
    servers.replicate_a_to_b().await;

    // The laptop goes away for 50 minutes, less than the hour declared, and adds Slashdot.
    laptop_time.set(100 * HOUR + 10 * 60_000);
    let slashdot = slashdot();
    laptop.append(&slashdot).await.unwrap();
    // The PC renames News, then compacts at 101:00: a horizon past 100:00 is refused, and one at 100:00
    // folds the base, written at 99:00.
    pc_time.set(100 * HOUR + 20 * 60_000);
    let news = changed("news", Some("BBC News"), None);
    pc.append(&news).await.unwrap();
    pc_time.set(101 * HOUR);
    let err = pc
        .compact(Timestamp::from_millis(100 * HOUR + 1))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::CompactionHorizon { .. }), "{err}");
    let done = pc
        .compact(Timestamp::from_millis(100 * HOUR))
        .await
        .unwrap();
    assert_eq!((done.folded, done.removed), (5, 0));

    // Back after 50 minutes: both ways. Both read the baseline, then the events stamped from 100:00 on in
    // their order, passing over the base's events, which stay until the baseline has had an hour.
    every.apply(&slashdot);
    every.apply(&news);
    servers.replicate_a_to_b().await;
    servers.replicate_b_to_a().await;
    for (side, log) in [("PC", &pc), ("laptop", &laptop)] {
        let folded = log.state().await.unwrap();
        assert_eq!(folded.state, every, "on the {side}");
        assert_eq!((folded.applied, folded.late.len()), (2, 0), "on the {side}");
    }

    // The laptop compacts too, to a later horizon, before it hears of the PC's next compaction; each writes
    // its own baseline, so nothing conflicts, and once an hour has passed each removes what it may.
    laptop_time.set(102 * HOUR);
    pc_time.set(102 * HOUR + 60_000);
    let done = laptop
        .compact(Timestamp::from_millis(101 * HOUR))
        .await
        .unwrap();
    assert_eq!(
        (done.folded, done.removed),
        (2, 5),
        "the laptop folds two, and removes the base"
    );
    let done = pc
        .compact(Timestamp::from_millis(100 * HOUR + 30 * 60_000))
        .await
        .unwrap();
    assert_eq!(
        (done.folded, done.removed),
        (2, 5),
        "the PC too, to an earlier horizon"
    );
    servers.replicate_a_to_b().await;
    servers.replicate_b_to_a().await;
    for (side, log, store) in [("PC", &pc, &servers.a), ("laptop", &laptop, &servers.b)] {
        let folded = log.state().await.unwrap();
        assert_eq!(folded.state, every, "on the {side}");
        assert_eq!(
            folded.horizon,
            Some(Timestamp::from_millis(101 * HOUR)),
            "on the {side}"
        );
        assert_eq!(
            keys_under(store, "bookmarks::").await,
            [
                "bookmarks::alice::base::0000360000000000::pc1",
                "bookmarks::alice::base::0000361800000000::pc1",
                "bookmarks::alice::base::0000363600000000::lap1",
                "bookmarks::alice::e::0000360600000000::lap1",
                "bookmarks::alice::e::0000361200000000::pc1",
            ],
            "on the {side}"
        );
        assert_eq!(
            conflicted_keys(store).await,
            Vec::<String>::new(),
            "on the {side}"
        );
    }
}
