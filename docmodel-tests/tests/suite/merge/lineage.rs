//! What a copy records of the versions saved from it survives the copy being written over or moved: a save
//! over another side's copy replicated ahead of its document, and a merge that renumbers a copy revision in
//! conflict. Each test fails before the change that keeps the record (issue 62).

use docmodel::__private::version_digest;
use docmodel::store::{MemoryStore, Store};
use docmodel::{DocModel, Error, Resolve};
use docmodel_tests::{Conflicted, keys_under};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{Page, forked, repo, snapshot, stored_json};

/// The laptop and the PC save apart from one version 1; the PC's copy of version 2 reaches the laptop before
/// the PC's document, and the laptop saves from its own version 2 over it. The copy then holds the laptop's
/// version, and records that the PC's version 3 was saved from the PC's version 2; once the PC's copy of
/// version 1 has arrived too, the merge follows the PC's history through both to version 1 and keeps both
/// sides' edits.
#[tokio::test]
async fn a_save_over_a_copy_replicated_ahead_of_its_document_keeps_the_other_sides_history() {
    let (laptop, pc, key) = forked(Page {
        id: 1,
        status: "draft".into(),
        note: String::new(),
    })
    .await;
    let mut pc_versions = Vec::new();
    for (seconds, note) in [(150_000, "typo"), (250_000, "typo fixed")] {
        repo::<Page, _>(&pc, "bob", seconds)
            .update(&key, |page| page.note = note.into())
            .await
            .unwrap();
        pc_versions.push(pc.get(key.as_str()).await.unwrap().unwrap().bytes);
    }
    repo::<Page, _>(&laptop, "ann", 100_000)
        .update(&key, |page| page.status = "review".into())
        .await
        .unwrap();
    // Only the PC's copy of version 2 has replicated: the laptop holds no copy of version 2 yet.
    let ahead = pc.get("page::1::v::2").await.unwrap().unwrap();
    laptop
        .inner()
        .insert("page::1::v::2", &ahead.bytes)
        .await
        .unwrap();
    repo::<Page, _>(&laptop, "ann", 200_000)
        .update(&key, |page| page.status = "published".into())
        .await
        .unwrap();
    let laptop_v3 = laptop.get(key.as_str()).await.unwrap().unwrap().bytes;
    let copy = stored_json(&laptop, "page::1::v::2").await;
    assert_eq!(
        (&copy["status"], &copy["note"], &copy["_ver"]),
        (&json!("review"), &json!(""), &json!(2)),
        "the laptop's own version 2"
    );
    let (pc_v2, pc_v3) = (
        version_digest(&pc_versions[0]),
        version_digest(&pc_versions[1]),
    );
    assert_eq!(
        copy["_copyNext"],
        json!([version_digest(&laptop_v3), format!("{pc_v3}<{pc_v2}")]),
        "the laptop's version 3 saved from it, and the PC's version 3 from the PC's version 2"
    );

    // The PC's document arrives before the PC's copy of version 1, which records the PC's version 2: the
    // PC's history stops there, and the merge waits for it, writing nothing.
    laptop.add_conflict(key.as_str(), &pc_versions[1]).await;
    let pages = repo::<Page, _>(&laptop, "ann", 300_000);
    let before = snapshot(&laptop).await;
    let err = pages.resolve(&key, &Resolve::merge()).await.unwrap_err();
    let Error::MergeHistoryMissing {
        versions, missing, ..
    } = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!((&versions[..], &missing[..]), (&[3, 3][..], &[1][..]));
    assert_eq!(snapshot(&laptop).await, before);

    // Once it has: the merge follows the PC's history through the copy written over to version 1, and keeps
    // both sides' edits.
    laptop.replicate_from(&pc, "page::1::v::1", false).await;
    let merged = pages.resolve(&key, &Resolve::merge()).await.unwrap();
    assert_eq!(
        (merged.status.as_str(), merged.note.as_str()),
        ("published", "typo fixed")
    );
    assert!(!merged.has_conflicts());
}

/// The PC's copies reach the laptop without the PC's document, in conflict with the laptop's; the laptop
/// resolves them (each copy revision holding another version is kept renumbered above). The PC's version 2,
/// renumbered to 4, is history the merge did not take: it keeps what it recorded (the PC's version 3 saved
/// from it), and the merge records nothing on it. When the PC's document arrives, the base is version 1, not
/// the PC's version 2, which the merge never held: the PC's note is kept, not taken for removed.
#[tokio::test]
async fn a_copy_revision_a_merge_renumbers_keeps_its_record_and_is_not_taken_for_merged() {
    let (laptop, pc, key) = forked(Page {
        id: 1,
        status: "draft".into(),
        note: String::new(),
    })
    .await;
    for (seconds, status) in [(100_000, "review"), (200_000, "published")] {
        repo::<Page, _>(&laptop, "ann", seconds)
            .update(&key, |page| page.status = status.into())
            .await
            .unwrap();
    }
    let mut pc_versions = Vec::new();
    // The PC writes its note, then saves again without a change.
    for seconds in [150_000, 250_000] {
        repo::<Page, _>(&pc, "bob", seconds)
            .update(&key, |page| page.note = "typo".into())
            .await
            .unwrap();
        pc_versions.push(pc.get(key.as_str()).await.unwrap().unwrap().bytes);
    }
    laptop.replicate_from(&pc, "page::1::v::", false).await;
    let pages = repo::<Page, _>(&laptop, "ann", 300_000);
    let resolved = pages.resolve(&key, &Resolve::merge()).await.unwrap();
    assert_eq!(
        (
            resolved.status.as_str(),
            resolved.note.as_str(),
            resolved.envelope().ver
        ),
        ("published", "", 5)
    );
    let renumbered = stored_json(&laptop, "page::1::v::4").await;
    let pc_v2 = version_digest(&pc_versions[0]);
    assert_eq!(
        (&renumbered["note"], &renumbered["_copyNext"]),
        (
            &json!("typo"),
            &json!([format!("={pc_v2}"), version_digest(&pc_versions[1])])
        ),
        "the PC's version 2, known by its digest, with the PC's version 3 saved from it and not the merge"
    );

    laptop.add_conflict(key.as_str(), &pc_versions[1]).await;
    let merged = pages.resolve(&key, &Resolve::merge()).await.unwrap();
    assert_eq!(
        (merged.status.as_str(), merged.note.as_str()),
        ("published", "typo")
    );
}

/// A page whose reads are recorded (`_accessed`, written in place by a touch).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "visit", schema = "1.0", key = "visit::{id}", revisions = 5)]
#[docmodel(envelope(accessed, timestamps = "epoch_day"))]
struct Visit {
    id: u64,
    status: String,
    note: String,
}

/// A touch writes `_accessed` into the version in place: the version is the one its copy below recorded as
/// saved from it, and a merge still steps from it to the version both sides share.
#[tokio::test]
async fn a_version_touched_in_place_is_still_the_version_its_copy_recorded() {
    let (laptop, pc, key) = forked(Visit {
        id: 1,
        status: "draft".into(),
        note: String::new(),
    })
    .await;
    let visits = |store, seconds| repo::<Visit, _>(store, "ann", seconds);
    visits(&laptop, 100_000)
        .update(&key, |visit| visit.status = "review".into())
        .await
        .unwrap();
    let saved = laptop.get(key.as_str()).await.unwrap().unwrap().bytes;
    let touched = visits(&laptop, 400_000).touch(&key).await.unwrap();
    assert_eq!(touched.envelope().ver, 2);
    let now = laptop.get(key.as_str()).await.unwrap().unwrap().bytes;
    assert_ne!(now, saved, "the touch wrote `_accessed` in place");
    repo::<Visit, _>(&pc, "bob", 150_000)
        .update(&key, |visit| visit.note = "typo".into())
        .await
        .unwrap();
    laptop.replicate_from(&pc, "visit::1", false).await;

    let merged = visits(&laptop, 500_000)
        .resolve(&key, &Resolve::merge())
        .await
        .unwrap();
    assert_eq!(
        (merged.status.as_str(), merged.note.as_str()),
        ("review", "typo")
    );
}

/// A merge is saved from both revisions it merged; a replica that holds the merge and the copy of one of them,
/// but not yet the other's, waits rather than take a base older than the one that copy shows. The laptop
/// merges its version 2 with the PC's (the PC's kept renumbered as 3); a third replica saved from the PC's
/// version 2, and receives the merge ahead of the laptop's copy 3.
#[tokio::test]
async fn a_merge_waits_for_the_copy_of_every_revision_a_merge_it_holds_was_saved_from() {
    let (laptop, pc, key) = forked(Page {
        id: 1,
        status: "draft".into(),
        note: String::new(),
    })
    .await;
    repo::<Page, _>(&laptop, "ann", 100_000)
        .update(&key, |page| page.status = "review".into())
        .await
        .unwrap();
    repo::<Page, _>(&pc, "bob", 150_000)
        .update(&key, |page| page.note = "typo".into())
        .await
        .unwrap();
    laptop.replicate_from(&pc, "page::1", false).await;
    let merged = repo::<Page, _>(&laptop, "ann", 200_000)
        .resolve(&key, &Resolve::merge())
        .await
        .unwrap();
    assert_eq!(merged.envelope().ver, 4);

    // The third replica holds what the PC held, and saves from the PC's version 2.
    let third = Conflicted::new(MemoryStore::new());
    for copied in keys_under(&pc, "").await {
        let stored = pc.get(&copied).await.unwrap().unwrap();
        third.inner().insert(&copied, &stored.bytes).await.unwrap();
    }
    let pages = repo::<Page, _>(&third, "cy", 250_000);
    pages
        .update(&key, |page| page.note = "typo fixed".into())
        .await
        .unwrap();
    // The laptop's merge and its copies of 1 and 2 arrive; its copy of 3 (the PC's version 2) has not.
    for copied in [key.as_str(), "page::1::v::1", "page::1::v::2"] {
        let stored = laptop.get(copied).await.unwrap().unwrap();
        third.add_conflict(copied, &stored.bytes).await;
    }
    let before = snapshot(&third).await;
    let err = pages.resolve(&key, &Resolve::merge()).await.unwrap_err();
    let Error::MergeHistoryMissing { missing, .. } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(missing, &[3]);
    assert_eq!(snapshot(&third).await, before);

    // Once it has: the base is the PC's version 2, and the third replica's fix of the note is kept.
    let copy = laptop.get("page::1::v::3").await.unwrap().unwrap();
    third.add_conflict("page::1::v::3", &copy.bytes).await;
    let merged = pages.resolve(&key, &Resolve::merge()).await.unwrap();
    assert_eq!(
        (merged.status.as_str(), merged.note.as_str()),
        ("review", "typo fixed")
    );
}
