//! Order keys ([`OrderKey`]) sort the same in Rust and on every store: a find ordered by a field holding one
//! (Redb and MemoryStore through their index entries, CouchDB through Mango `sort`, Couchbase through SQL++
//! `ORDER BY`), and keys built from them listed in key order (Redb's and MemoryStore's key order, CouchDB's
//! `_all_docs`).

use docmodel::store::KeyPages;
use docmodel::{DocModel, Filter, OrderKey, Query, Repo};
use docmodel_tests::Fresh;
use serde::{Deserialize, Serialize};

/// A bookmark of one list, placed by its order key (the CouchDB guide's bookmarks as one document each).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "bookmark", schema = "1.0", key = "bookmark::{id}")]
#[docmodel(index = "place", envelope(layout = "plain"))]
struct Bookmark {
    id: u64,
    place: OrderKey,
}

/// 240 keys made as a list is edited: appended, prepended, put between random neighbours, put again and
/// again at one place, and put at one place by two replicas apart (tags `a1` and `b1`).
fn keys() -> Vec<OrderKey> {
    let mut state = 5_u64;
    let mut below = |n: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from((state >> 33) % n as u64).unwrap()
    };
    let mut keys = vec![OrderKey::first()];
    for step in 0..240 - 1 {
        let at = match step % 6 {
            0 => keys.len(),
            1 => 0,
            2 => 1,
            _ => below(keys.len() + 1),
        };
        let low = at.checked_sub(1).map(|low| keys[low].clone());
        let high = keys.get(at).cloned();
        let tag = ["a1", "b1"][step % 2];
        let new = match (&low, &high, step % 5 == 0) {
            (Some(low), Some(high), false) => OrderKey::between(low, high).unwrap(),
            (Some(low), Some(high), true) => OrderKey::between_on(low, high, tag).unwrap(),
            (Some(low), None, _) => low.after(),
            (None, Some(high), _) => high.before(),
            (None, None, _) => OrderKey::first(),
        };
        keys.insert(at, new);
    }
    keys
}

async fn order_keys_sort_the_same_on_every_store<S: Fresh>() {
    let store = S::fresh().await;
    let made = keys();
    let mut sorted = made.clone();
    sorted.sort();
    assert_eq!(made, sorted, "each key was made between its neighbours");
    // Inserted in an order apart from theirs, under ids apart from it too.
    let bookmarks = Repo::<Bookmark>::new(&store);
    let count = made.len() as u64;
    for (n, place) in made.iter().enumerate() {
        let id = (n as u64 * 97) % count;
        bookmarks
            .insert(Bookmark {
                id,
                place: place.clone(),
            })
            .await
            .unwrap();
    }
    bookmarks.ensure_indexes().await.unwrap();
    let query = Query::new(Filter::all())
        .order_by(&Bookmark::fields().place)
        .limit(50);
    let mut pages = bookmarks.pages(query);
    let mut found = Vec::new();
    while let Some(page) = pages.next().await.unwrap() {
        found.extend(page.docs.iter().map(|doc| doc.place.clone()));
    }
    assert_eq!(found, sorted, "found in order of the key");

    // Keys built from them list in their order.
    for place in &made {
        store
            .insert(&format!("place::{place}"), br#"{"x":1}"#)
            .await
            .unwrap();
    }
    let mut listing = KeyPages::prefix(&store, "place::");
    let mut listed = Vec::new();
    while let Some(page) = listing.next_page().await.unwrap() {
        listed.extend(page);
    }
    let expected: Vec<String> = sorted
        .iter()
        .map(|place| format!("place::{place}"))
        .collect();
    assert_eq!(listed, expected, "listed in key order");
}

on_every_store!(sqlpp[order_keys_sort_the_same_on_every_store]);
