//! Lookup documents, the seeds' `customer_ref::12345 -> {"ref": "user::..."}`: claimed before the document
//! is written, rolled back when it is not, moved when the field changes, and never left pointing wrong.

use docmodel::store::{MemoryStore, Store};
use docmodel::{DocModel, Error, Repo};
use docmodel_tests::{FailingStore, text};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "1.0", key = "user::{username}", revisions = 2)]
#[docmodel(lookup = "customer_ref::{customer_no}")]
struct Customer {
    #[docmodel(get)]
    username: String,
    #[docmodel(get, set)]
    customer_no: u64,
}

fn max() -> Customer {
    Customer {
        username: "mmustermann".into(),
        customer_no: 12345,
    }
}

#[tokio::test]
async fn a_lookup_is_claimed_with_the_document_and_refuses_a_second_holder() {
    let store = MemoryStore::new();
    let customers = Repo::<Customer>::new(&store);
    customers.insert(max()).await.unwrap();
    assert_eq!(
        text(&store, "customer_ref::12345").await.as_deref(),
        Some(r#"{"ref":"user::mmustermann"}"#)
    );
    let found = customers
        .get_by_lookup("customer_ref::12345")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.username(), "mmustermann");

    let err = customers
        .insert(Customer {
            username: "other".into(),
            customer_no: 12345,
        })
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::AlreadyExists { key } if key == "customer_ref::12345"),
        "{err:?}"
    );
    assert_eq!(
        store.keys(),
        ["customer_ref::12345", "user::mmustermann"],
        "nothing written"
    );
    assert!(
        customers
            .get_by_lookup("customer_ref::99")
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn a_lookup_moves_with_its_field_and_goes_with_the_document() {
    let store = MemoryStore::new();
    let customers = Repo::<Customer>::new(&store);
    customers.insert(max()).await.unwrap();
    customers
        .update(&Customer::key("mmustermann").unwrap(), |c| {
            c.set_customer_no(777u64)
        })
        .await
        .unwrap();
    assert!(
        customers
            .get_by_lookup("customer_ref::12345")
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(
        customers
            .get_by_lookup("customer_ref::777")
            .await
            .unwrap()
            .unwrap()
            .customer_no(),
        777
    );
    assert_eq!(
        store.keys(),
        [
            "customer_ref::777",
            "user::mmustermann",
            "user::mmustermann::v::1"
        ]
    );

    // The freed value can be claimed by another document.
    customers
        .insert(Customer {
            username: "other".into(),
            customer_no: 12345,
        })
        .await
        .unwrap();
    customers
        .remove(&Customer::key("mmustermann").unwrap())
        .await
        .unwrap();
    assert_eq!(store.keys(), ["customer_ref::12345", "user::other"]);
}

#[tokio::test]
async fn a_stale_lookup_is_recognised_and_taken_over() {
    let store = MemoryStore::new();
    let customers = Repo::<Customer>::new(&store);
    // A lookup left behind by a crash: its document is gone.
    store
        .insert("customer_ref::12345", br#"{"ref":"user::gone"}"#)
        .await
        .unwrap();
    assert!(
        customers
            .get_by_lookup("customer_ref::12345")
            .await
            .unwrap()
            .is_none()
    );
    customers.insert(max()).await.unwrap();
    assert_eq!(
        customers
            .get_by_lookup("customer_ref::12345")
            .await
            .unwrap()
            .unwrap()
            .username(),
        "mmustermann"
    );
}

/// After any failure: the document is whole (old or new), each value's lookup finds it exactly when it
/// holds that value, and the same call again completes.
async fn consistent(store: &FailingStore<MemoryStore>, expected_no: Option<u64>) {
    let customers = Repo::<Customer>::new(store);
    let current = customers
        .get(&Customer::key("mmustermann").unwrap())
        .await
        .unwrap();
    assert_eq!(current.as_ref().map(|doc| doc.customer_no()), expected_no);
    for no in [12345, 777] {
        let found = customers
            .get_by_lookup(&format!("customer_ref::{no}"))
            .await
            .unwrap();
        assert_eq!(
            found.is_some(),
            expected_no == Some(no),
            "lookup of {no} with document at {expected_no:?}"
        );
    }
}

#[tokio::test]
async fn every_failure_of_a_lookup_claim_or_move_keeps_lookups_true() {
    let mut points = 0;
    // Insert: the claim, the document, then the confirm of the claim. A confirm that cannot be made undoes
    // the insert: another writer may be taking the value over on what it read before the document was there.
    for k in 1..=3 {
        let store = FailingStore::new(MemoryStore::new());
        let customers = Repo::<Customer>::new(&store);
        store.fail_at(k);
        let result = customers.insert(max()).await;
        store.fail_at(0);
        assert!(
            matches!(result, Err(Error::Store { .. })),
            "k={k}: {result:?}"
        );
        consistent(&store, None).await;
        customers.insert(max()).await.unwrap();
        consistent(&store, Some(12345)).await;
        points += 1;
    }
    // A save that moves the lookup: reading the old lookup's token, the claim, the revision copy, the
    // replace, the confirm (which, failing, puts the previous version back), then releasing the old lookup.
    for k in 1..=6 {
        let store = FailingStore::new(MemoryStore::new());
        let customers = Repo::<Customer>::new(&store);
        customers.insert(max()).await.unwrap();
        let mut doc = customers
            .get(&Customer::key("mmustermann").unwrap())
            .await
            .unwrap()
            .unwrap();
        doc.set_customer_no(777u64);
        store.fail_at(k);
        let result = customers.save(&mut doc).await;
        store.fail_at(0);
        if k <= 5 {
            assert!(
                matches!(result, Err(Error::Store { .. })),
                "k={k}: {result:?}"
            );
            consistent(&store, Some(12345)).await;
            if k == 5 {
                // The write was undone: the document is at its version again, by another token, so the
                // retry reads it first.
                doc = customers
                    .get(&Customer::key("mmustermann").unwrap())
                    .await
                    .unwrap()
                    .unwrap();
                assert_eq!(doc.envelope().ver, 1);
                doc.set_customer_no(777u64);
            }
            customers.save(&mut doc).await.unwrap();
        } else {
            // The save committed; a failed check or release leaves a lookup recognised as stale.
            result.unwrap();
        }
        consistent(&store, Some(777)).await;
        // The old value is free again.
        customers
            .insert(Customer {
                username: "other".into(),
                customer_no: 12345,
            })
            .await
            .unwrap();
        points += 1;
    }
    assert_eq!(points, 9, "injection points tested");
}

// ---------------------------------------------------------------------------------------------------------
// Document Modeling Basics, "Lookup Documents": `customer_ref::12345` holds `{"ref": "mmustermann@domain.com"}`,
// the bare id of `user::mmustermann@domain.com`. The guide's user does not print the customer number the
// lookup is built from; a lookup docmodel keeps is built from a field, so the user here holds it.

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "user",
    schema = "1.0",
    key = "user::{email}",
    unversioned = "1.0"
)]
#[docmodel(
    lookup("customer_ref::{customer_no}", ref_id),
    envelope(layout = "plain")
)]
struct User {
    #[docmodel(get)]
    email: String,
    first_name: String,
    last_name: String,
    #[docmodel(get, set)]
    customer_no: u64,
}

const SEED_USER: &str = r#"{"type":"user","first_name":"Max","last_name":"Mustermann","email":"mmustermann@domain.com","customer_no":12345}"#;

#[tokio::test]
async fn a_lookup_holding_the_bare_id_finds_its_document_and_is_kept_in_that_form() {
    let store = MemoryStore::new();
    store
        .insert(
            "customer_ref::12345",
            br#"{"ref":"mmustermann@domain.com"}"#,
        )
        .await
        .unwrap();
    store
        .insert("user::mmustermann@domain.com", SEED_USER.as_bytes())
        .await
        .unwrap();
    let users = Repo::<User>::new(&store);
    let mut max = users
        .get_by_lookup("customer_ref::12345")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (max.email(), max.first_name.as_str(), max.last_name.as_str()),
        ("mmustermann@domain.com", "Max", "Mustermann")
    );

    // A save holds the value still: the lookup is written again in its own form.
    max.first_name = "Maximilian".into();
    users.save(&mut max).await.unwrap();
    assert_eq!(
        text(&store, "customer_ref::12345").await.as_deref(),
        Some(r#"{"ref":"mmustermann@domain.com"}"#)
    );

    // Another user claiming the value is refused, naming the lookup; nothing is written.
    let err = users
        .insert(User {
            email: "erika@domain.com".into(),
            first_name: "Erika".into(),
            last_name: "Mustermann".into(),
            customer_no: 12345,
        })
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::AlreadyExists { key } if key == "customer_ref::12345"),
        "{err:?}"
    );
    assert!(store.get("user::erika@domain.com").await.unwrap().is_none());

    // A new value is claimed in the same form, and the old one released.
    max.set_customer_no(777u64);
    users.save(&mut max).await.unwrap();
    assert_eq!(
        text(&store, "customer_ref::777").await.as_deref(),
        Some(r#"{"ref":"mmustermann@domain.com"}"#)
    );
    assert!(store.get("customer_ref::12345").await.unwrap().is_none());
    let found = users.get_by_lookup("customer_ref::777").await.unwrap();
    assert_eq!(
        found.map(|doc| doc.first_name.clone()).as_deref(),
        Some("Maximilian")
    );
}

#[tokio::test]
async fn under_a_bare_id_lookup_a_whole_key_is_somebody_elses_document() {
    let store = MemoryStore::new();
    store
        .insert(
            "customer_ref::12345",
            br#"{"ref":"user::mmustermann@domain.com"}"#,
        )
        .await
        .unwrap();
    let users = Repo::<User>::new(&store);
    let err = users
        .insert(serde_json::from_str::<User>(SEED_USER).unwrap())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::AlreadyExists { key } if key == "customer_ref::12345"),
        "{err:?}"
    );
    assert_eq!(store.keys(), ["customer_ref::12345"], "nothing written");
}
