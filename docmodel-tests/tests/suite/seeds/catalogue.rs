//! Every document the seeds print, on every store: MemoryStore, Redb and CouchDB. Each shape is stored under
//! its printed key as printed, read with its exact values, found by `find`, written in its model's form by one
//! `migrate_all` (`rewrite_adopted`), and found again; a second run writes nothing.
//!
//! CouchDB keeps top-level names beginning with `_` to itself and refuses a document holding one, so a
//! document printed with `_type` reaches it as its model writes it (`type`, through `legacy_names`), read on a
//! MemoryStore first: what a team moving such a bucket to CouchDB does. The models here are the ones a team
//! on CouchDB declares (`plain`, `meta` or `root` layouts); the sections of `seeds.rs` read the same documents
//! through `flat` models too.
//!
//! | shape (seed) | what declares it |
//! |---|---|
//! | users 1.0, 2.0, 3.0 (Document Management Strategies) | `migrate_from`, `legacy_names(type = "_type", ...)`, `timestamps = "epoch_s"` |
//! | the revision example `user:123`, `user:123:v:1` (Document Revisions) | `revisions`, the same model |
//! | the `meta` layout (Document Management Strategies) | `layout = "meta"` |
//! | user profiles, both forms (Data Modeling Guide) | `aliases`, `unversioned`, `zoneless`, `names(modified = "updated")` |
//! | the track with `_type` (Data Modeling Guide) | `legacy_names(type = "_type")`, `names(ver = "revision")` |
//! | the track under its root attribute (Data Modeling Guide) | `layout = "root"` |
//! | playlists, both forms (Data Modeling Guide) | `unversioned`, an untagged enum |
//! | orders, both forms (Data Modeling Guide) | `untyped = "accept"`, `unversioned` |
//! | countries, three timestamp forms (Data Modeling Guide) | `zoneless = "utc"` |
//! | `1001:orders`, `1001:orders:value` (Data Modeling Guide) | a key with the part first |
//! | the user and session pair (Document Modeling Basics) | `from_key` |
//! | `customer_ref::12345` (Document Modeling Basics) | `lookup(..., ref_id)` |

use docmodel::store::{MemoryStore, Store};
use docmodel::{Doc, DocModel, Filter, Key, Query, Repo};
use docmodel_tests::Fresh;
use docmodel_tests::keys_under;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::*;

/// Stores `printed` under `key`: as printed, or, where the store refuses its `_` names, as `M` writes it,
/// read on a MemoryStore first.
async fn load<M, S>(store: &S, key: &str, model_key: Key<M>, printed: &str)
where
    M: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    match store.insert(key, printed.as_bytes()).await {
        Ok(_) => {}
        Err(err) if store.capabilities().reserves_underscore_fields => {
            assert!(err.to_string().contains("_"), "{err}");
            let scratch = MemoryStore::new();
            scratch
                .insert(model_key.as_str(), printed.as_bytes())
                .await
                .unwrap();
            let read = Repo::<M>::new(&scratch)
                .get(&model_key)
                .await
                .unwrap()
                .unwrap();
            store.insert(key, &read.to_vec().unwrap()).await.unwrap();
        }
        Err(err) => panic!("{key}: {err}"),
    }
}

/// A repository of `M` over `store`, with its indexes created (what CouchDB's queries read).
async fn repo<M, S>(store: &S) -> Repo<M, &S>
where
    M: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    let repo = Repo::<M>::new(store);
    repo.ensure_indexes().await.unwrap();
    repo
}

/// The stored JSON under `key`.
async fn json_at<S: Store>(store: &S, key: &str) -> Value {
    serde_json::from_str(&docmodel_tests::text(store, key).await.unwrap()).unwrap()
}

/// One run writes every document of `repo` that is not in its form, a second writes nothing.
async fn rewrite_all<M, S>(repo: &Repo<M, &S>, expected: &str)
where
    M: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    assert_eq!(
        repo.migrate_all()
            .rewrite_adopted(true)
            .await
            .unwrap()
            .to_string(),
        expected
    );
    let again = repo.migrate_all().rewrite_adopted(true).await.unwrap();
    assert_eq!((again.migrated, again.adopted.len()), (0, 0), "{again}");
}

// ---------------------------------------------------------------------------------------------------------
// Document Management Strategies: the user at 1.0, 2.0 and 3.0, `_created` in epoch seconds; and Document
// Revisions: `user:123` at `_ver` 2 with its copy `user:123:v:1`. (The 1.0 document is printed split across
// two code blocks; it is joined here.)

const USER_1_0: &str = r#"{
  "_type": "user",
  "_schema": "1.0",
  "_created": 1544759124,
  "userId": 123,
  "name": "Joe Smith",
  "phone": "1234567890",
  "email": "joe.smith@acme.com"
}"#;

const USER_2_0: &str = r#"{
  "_type": "user",
  "_schema": "2.0",
  "_created": 1544759124,
  "userId": 123,
  "firstName": "Joe",
  "lastName": "Smith",
  "phone": "1234567890",
  "email": "joe.smith@acme.com"
}"#;

const USER_3_0: &str = r#"{
  "_type": "user",
  "_schema": "3.0",
  "_created": 1544759124,
  "userId": 123,
  "firstName": "Joe",
  "lastName": "Smith",
  "phones": [
    {
      "type": "mobile",
      "number": "1234567890"
    }
  ]
}"#;

const REVISED_USER: &str = r#"{
  "_type":"user",
  "_schema": "3.0",
  "_ver": 2,
  "_created": 1544759124,
  "userId": 123,
  "firstName": "Joe",
  "lastName": "Smith",
  "phones": [
    {
      "type": "mobile",
      "number": "1234567890"
    },
    {
      "type": "home",
      "number": "1234445555"
    }
  ]
}"#;

const REVISION_1: &str = r#"{
  "_type":"user",
  "_schema": "3.0",
  "_ver": 1,
  "_created": 1544759124,
  "userId": 123,
  "firstName": "Joe",
  "lastName": "Smith",
  "phones": [
    {
      "type": "mobile",
      "number": "1234567890"
    }
  ]
}"#;

/// The seed's user as a team on CouchDB declares it: `plain` names, reading the guide's `_` names.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user:{user_id}", revisions = 10)]
#[docmodel(migrate_from("1.0" = docmodel_tests::seeds::split_name, "2.0" = docmodel_tests::seeds::phone_to_phones))]
#[docmodel(envelope(
    layout = "plain",
    timestamps = "epoch_s",
    legacy_names(type = "_type", schema = "_schema", ver = "_ver", created = "_created")
))]
struct SeedUser {
    #[docmodel(get)]
    user_id: u64,
    first_name: String,
    last_name: String,
    phones: Vec<docmodel_tests::seeds::Phone>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    email: Option<String>,
}

async fn users_at_each_schema<S: Fresh>() {
    for (printed, from) in [(USER_1_0, "1.0"), (USER_2_0, "2.0"), (USER_3_0, "3.0")] {
        let store = S::fresh().await;
        load(&store, "user:123", SeedUser::key(123), printed).await;
        let users = repo::<SeedUser, _>(&store).await;
        let joe = users.get(&SeedUser::key(123)).await.unwrap().unwrap();
        assert_eq!(
            (
                joe.first_name.as_str(),
                joe.last_name.as_str(),
                joe.phones[0].number.as_str()
            ),
            ("Joe", "Smith", "1234567890"),
            "{from}"
        );
        assert_eq!(
            joe.envelope().created.map(|t| t.as_millis()),
            Some(1_544_759_124_000)
        );
        let email = (from != "3.0").then_some("joe.smith@acme.com");
        assert_eq!(joe.email.as_deref(), email);
        let by_id = users
            .find(&Query::new(SeedUser::fields().user_id.eq(123u64)))
            .await
            .unwrap();
        assert_eq!(by_id.docs.len(), 1, "{from}");

        let expected = match from {
            "3.0" if !store.capabilities().reserves_underscore_fields => {
                "visited 1, migrated 0, rewrote 1 adopted (1 under legacy envelope names), skipped 0, failed 0"
                    .to_owned()
            }
            // On CouchDB it arrived in the model's names, at 3.0 already.
            "3.0" => "visited 1, migrated 0, skipped 1, failed 0".to_owned(),
            _ if store.capabilities().reserves_underscore_fields => {
                // Written by the model as read, at 3.0: nothing is older.
                "visited 1, migrated 0, skipped 1, failed 0".to_owned()
            }
            _ => format!("visited 1, migrated 1 (1 from {from}), skipped 0, failed 0"),
        };
        rewrite_all(&users, &expected).await;
        let written = json_at(&store, "user:123").await;
        assert_eq!(
            (&written["type"], &written["schema"], &written["created"]),
            (&json!("user"), &json!("3.0"), &json!(1_544_759_124)),
            "{from}: {written}"
        );
        assert_eq!(written.get("_type"), None);
        let smiths = users
            .count(&SeedUser::fields().last_name.eq("Smith"))
            .await
            .unwrap();
        assert_eq!(smiths, 1, "{from}");
    }
}

async fn the_revision_example<S: Fresh>() {
    let store = S::fresh().await;
    load(&store, "user:123", SeedUser::key(123), REVISED_USER).await;
    // The copy as printed, or as the model writes its version 1.
    match store.insert("user:123:v:1", REVISION_1.as_bytes()).await {
        Ok(_) => {}
        Err(_) => {
            let read =
                Doc::<SeedUser>::from_slice_at(SeedUser::key(123), REVISION_1.as_bytes()).unwrap();
            store
                .insert("user:123:v:1", &read.to_vec().unwrap())
                .await
                .unwrap();
        }
    }
    let users = repo::<SeedUser, _>(&store).await;
    let joe = users.get(&SeedUser::key(123)).await.unwrap().unwrap();
    assert_eq!((joe.envelope().ver, joe.phones.len()), (2, 2));
    let history = users.revisions(&SeedUser::key(123)).await.unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!((history[0].envelope().ver, history[0].phones.len()), (1, 1));
    // Found once: the copy is not one of the model's documents.
    let page = users.find(&Query::new(Filter::all())).await.unwrap();
    assert_eq!(page.docs.len(), 1);

    if store.capabilities().reserves_underscore_fields {
        rewrite_all(&users, "visited 1, migrated 0, skipped 1, failed 0").await;
    } else {
        rewrite_all(
            &users,
            "visited 1, migrated 0, rewrote 1 adopted (1 under legacy envelope names), skipped 0, failed 0",
        )
        .await;
        // The version the guide's program wrote is kept as the copy of version 2.
        let history = users.revisions(&SeedUser::key(123)).await.unwrap();
        let versions: Vec<u64> = history.iter().map(|doc| doc.envelope().ver).collect();
        assert_eq!(versions, [2, 1]);
        assert_eq!(json_at(&store, "user:123").await["ver"], 3);
    }
    let page = users.find(&Query::new(Filter::all())).await.unwrap();
    assert_eq!(page.docs.len(), 1);
}

// ---------------------------------------------------------------------------------------------------------
// Document Management Strategies, the `"meta": {}` layout.

const META_USER: &str = r#"{
  "meta": {
    "type": "user",
    "schema": "1.2",
    "created": 1544734688923
  },
  "userId": 123
}"#;

#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(
    type = "user",
    schema = "1.2",
    key = "user:{user_id}",
    envelope(layout = "meta")
)]
struct MetaUser {
    #[docmodel(get)]
    user_id: u64,
}

async fn the_meta_layout<S: Fresh>() {
    let store = S::fresh().await;
    load(&store, "user:123", MetaUser::key(123), META_USER).await;
    let users = repo::<MetaUser, _>(&store).await;
    let user = users.get(&MetaUser::key(123)).await.unwrap().unwrap();
    assert_eq!(user.user_id(), 123);
    assert_eq!(
        user.envelope().created.map(|t| t.as_millis()),
        Some(1_544_734_688_923)
    );
    let found = users
        .count(&MetaUser::fields().user_id.eq(123u64))
        .await
        .unwrap();
    assert_eq!(found, 1);
    // No revision counter: written with one.
    rewrite_all(
        &users,
        "visited 1, migrated 0, rewrote 1 adopted (1 in another form), skipped 0, failed 0",
    )
    .await;
    let written = json_at(&store, "user:123").await;
    assert_eq!(
        written,
        json!({"meta": {"type": "user", "schema": "1.2", "ver": 2, "created": 1_544_734_688_923_i64,
                        "modified": written["meta"]["modified"]}, "userId": 123})
    );
    let since = MetaUser::fields()
        .envelope()
        .created
        .ge(docmodel::Timestamp::from_millis(1_544_734_688_923));
    assert_eq!(users.count(&since).await.unwrap(), 1);
}

// ---------------------------------------------------------------------------------------------------------
// Data Modeling Guide: user profiles, tracks, playlists, countries.

async fn profiles<S: Fresh>() {
    for printed in [PROFILE_AS_OBJECT, PROFILE_AS_ARRAY] {
        let store = S::fresh().await;
        load(
            &store,
            PROFILE_KEY,
            UserProfile::key("copilotmarks61569").unwrap(),
            printed,
        )
        .await;
        let profiles = repo::<UserProfile, _>(&store).await;
        let active = profiles
            .find(&Query::new(UserProfile::fields().status.eq("active")))
            .await
            .unwrap();
        assert_eq!((active.docs.len(), active.older_schema), (1, 1));
        let andy = &active.docs[0];
        assert_eq!(
            (
                andy.first_name.as_str(),
                andy.last_name.as_str(),
                andy.date_of_birth.as_str()
            ),
            ("Andy", "Bowman", "1986-06-09")
        );
        assert_eq!(
            andy.phones,
            [Phone {
                number: "212-771-1834".into(),
                kind: "cell".into()
            }]
        );
        rewrite_all(
            &profiles,
            "visited 1, migrated 1 (1 from 1.0), skipped 0, failed 0",
        )
        .await;
        let written = json_at(&store, PROFILE_KEY).await;
        assert_eq!(
            (&written["type"], &written["schema"], &written["ver"]),
            (&json!("userprofile"), &json!("2.0"), &json!(2))
        );
        assert_eq!(written["created"], "2015-01-28T13:50:56.000Z");
        assert_eq!(written["pwd"], "636f6c6f7261646f", "kept as it was");
        let active = profiles
            .find(&Query::new(UserProfile::fields().status.eq("active")))
            .await
            .unwrap();
        assert_eq!((active.docs.len(), active.older_schema), (1, 0));
    }
}

async fn the_track_with_its_type_as_the_guide_writes_it<S: Fresh>() {
    let store = S::fresh().await;
    let id = "3305311F4A0FAAFEABD001D324906748B18FB24A";
    load(&store, TRACK_KEY, PlainTrack::key(id).unwrap(), TRACK).await;
    let tracks = repo::<PlainTrack, _>(&store).await;
    let hi_nrg = PlainTrack::fields().genre.eq("Hi-NRG");
    let page = tracks.find(&Query::new(hi_nrg.clone())).await.unwrap();
    assert_eq!(page.docs.len(), 1);
    let track = &page.docs[0];
    assert_eq!(
        (
            track.artist.as_str(),
            track.title.as_str(),
            track.ver.as_str()
        ),
        ("Paul Lekakis", "My House", "1.0")
    );
    assert_eq!(track.ratings[1].username, "untillableshowings34122");
    let expected = if store.capabilities().reserves_underscore_fields {
        // Arrived as the model writes it, but for the schema it reads at `unversioned`.
        "visited 1, migrated 0, skipped 1, failed 0"
    } else {
        "visited 1, migrated 0, rewrote 1 adopted (1 under legacy envelope names), skipped 0, failed 0"
    };
    rewrite_all(&tracks, expected).await;
    let written = json_at(&store, TRACK_KEY).await;
    assert_eq!(
        (&written["type"], &written["schema"]),
        (&json!("track"), &json!("1.0"))
    );
    assert_eq!(written.get("_type"), None);
    assert_eq!(tracks.count(&hi_nrg).await.unwrap(), 1);
}

async fn the_track_under_its_root_attribute<S: Fresh>() {
    let store = S::fresh().await;
    let id = "3305311F4A0FAAFEABD001D324906748B18FB24A";
    load(&store, TRACK_KEY, RootTrack::key(id).unwrap(), ROOT_TRACK).await;
    let tracks = repo::<RootTrack, _>(&store).await;
    let hi_nrg = RootTrack::fields().genre.eq("Hi-NRG");
    let page = tracks.find(&Query::new(hi_nrg.clone())).await.unwrap();
    assert_eq!(page.docs.len(), 1);
    assert_eq!(
        (page.docs[0].artist.as_str(), page.docs[0].ratings.len()),
        ("Paul Lekakis", 2)
    );
    rewrite_all(
        &tracks,
        "visited 1, migrated 0, rewrote 1 adopted (1 without a schema), skipped 0, failed 0",
    )
    .await;
    let written = json_at(&store, TRACK_KEY).await;
    assert_eq!(written["track"]["schema"], "1.0");
    assert_eq!(written["track"]["revision"], 2);
    assert_eq!(written.as_object().map(|object| object.len()), Some(1));
    assert_eq!(tracks.count(&hi_nrg).await.unwrap(), 1);
}

async fn playlists<S: Fresh>() {
    for (printed, tracks) in [(PLAYLIST_OF_KEYS, 3), (PLAYLIST_OF_SUMMARIES, 2)] {
        let store = S::fresh().await;
        let id = "003c6f65-641a-4c9a-8e5e-41c947086cae";
        load(&store, PLAYLIST_KEY, Playlist::key(id).unwrap(), printed).await;
        let playlists = repo::<Playlist, _>(&store).await;
        let owned = Playlist::fields().owner.eq("copilotmarks61569");
        let page = playlists.find(&Query::new(owned.clone())).await.unwrap();
        assert_eq!(page.docs.len(), 1);
        assert_eq!(page.docs[0].name, "Eclectic Summer Mix");
        assert_eq!(page.docs[0].tracks.len(), tracks);
        assert_eq!(
            page.docs[0].tracks[1].id(),
            "3305311F4A0FAAFEABD001D324906748B18FB24A"
        );
        rewrite_all(
            &playlists,
            "visited 1, migrated 0, rewrote 1 adopted (1 without a schema), skipped 0, failed 0",
        )
        .await;
        let written = json_at(&store, PLAYLIST_KEY).await;
        assert_eq!(written["created"], "2014-12-04T03:36:18.000Z", "in UTC");
        assert_eq!(playlists.count(&owned).await.unwrap(), 1);
    }
}

async fn countries<S: Fresh>() {
    for updated in [
        r#""2010-07-15T15:34:27""#,
        "[2010, 7, 15, 15, 34, 27]",
        "1279208067000",
    ] {
        let store = S::fresh().await;
        load(
            &store,
            "country::US",
            Country::key("US").unwrap(),
            &country(updated),
        )
        .await;
        let countries = repo::<Country, _>(&store).await;
        let americas = Country::fields().region.eq("Americas");
        let page = countries.find(&Query::new(americas.clone())).await.unwrap();
        assert_eq!(page.docs.len(), 1, "{updated}");
        let us = &page.docs[0];
        assert_eq!(
            (us.name.as_str(), us.gdp, us.region_number),
            ("United States of America", 53548, 21)
        );
        assert_eq!(
            us.envelope().modified.map(|t| t.as_millis()),
            Some(1_279_208_067_000),
            "{updated}"
        );
        rewrite_all(
            &countries,
            "visited 1, migrated 0, rewrote 1 adopted (1 without a schema), skipped 0, failed 0",
        )
        .await;
        // The save is a modification: `updated` is its time, in the model's epoch milliseconds.
        let written = json_at(&store, "country::US").await;
        assert!(
            written["updated"].as_i64() > Some(1_279_208_067_000),
            "{written}"
        );
        assert_eq!(
            (&written["schema"], &written["ver"]),
            (&json!("1.0"), &json!(2))
        );
        assert_eq!(countries.count(&americas).await.unwrap(), 1);
    }
}

/// `1001:orders` and `1001:orders:value`: keys the guide builds from the customer's number, whose bodies it
/// does not print. A list of order numbers, and the total spent.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(
    type = "orders",
    schema = "1.0",
    key = "{customer_id}:orders",
    envelope(layout = "plain")
)]
struct CustomerOrders {
    #[docmodel(get)]
    customer_id: u64,
    orders: Vec<u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(
    type = "ordersvalue",
    schema = "1.0",
    key = "{customer_id}:orders:value"
)]
#[docmodel(envelope(layout = "plain"))]
struct OrdersValue {
    #[docmodel(get)]
    customer_id: u64,
    total: u64,
}

async fn the_orders_keys<S: Fresh>() {
    let store = S::fresh().await;
    let orders = repo::<CustomerOrders, _>(&store).await;
    let values = repo::<OrdersValue, _>(&store).await;
    orders
        .insert(CustomerOrders {
            customer_id: 1001,
            orders: vec![200, 201],
        })
        .await
        .unwrap();
    values
        .insert(OrdersValue {
            customer_id: 1001,
            total: 4_250,
        })
        .await
        .unwrap();
    let mut keys = keys_under(&store, "1001:").await;
    keys.sort();
    assert_eq!(keys, ["1001:orders", "1001:orders:value"]);
    // Each model finds its own document under the other's prefix.
    let page = orders.find(&Query::new(Filter::all())).await.unwrap();
    assert_eq!(
        page.docs
            .iter()
            .map(|doc| doc.orders.clone())
            .collect::<Vec<_>>(),
        [vec![200, 201]]
    );
    let page = values.find(&Query::new(Filter::all())).await.unwrap();
    assert_eq!(
        page.docs.iter().map(|doc| doc.total).collect::<Vec<_>>(),
        [4_250]
    );
    rewrite_all(&orders, "visited 1, migrated 0, skipped 1, failed 0").await;
}

// ---------------------------------------------------------------------------------------------------------
// Data Modeling Guide, Steve's orders: no type, no schema. The model a team on CouchDB declares.

#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "order",
    schema = "1.0",
    key = "order::{order_id}",
    envelope(layout = "plain")
)]
#[docmodel(
    unversioned = "1.0",
    untyped = "accept",
    revisions = 3,
    index = "status"
)]
struct PlainOrder {
    #[docmodel(get)]
    #[serde(rename = "orderID", alias = "orderId")]
    order_id: u64,
    customer: Customer,
    products: Vec<Item>,
    status: String,
}

async fn orders<S: Fresh>() {
    for printed in [ORDER_EMBEDDED, ORDER_REFERRING] {
        let store = S::fresh().await;
        load(&store, "order::200", PlainOrder::key(200), printed).await;
        let orders = repo::<PlainOrder, _>(&store).await;
        let paid = PlainOrder::fields().status.eq("paid");
        let page = orders.find(&Query::new(paid.clone())).await.unwrap();
        assert_eq!(page.docs.len(), 1);
        assert_eq!(page.docs[0].products[1].quantity_ordered, 51);
        rewrite_all(
            &orders,
            "visited 1, migrated 0, rewrote 1 adopted (1 without a type), skipped 0, failed 0",
        )
        .await;
        let written = json_at(&store, "order::200").await;
        assert_eq!(
            (&written["type"], &written["schema"]),
            (&json!("order"), &json!("1.0"))
        );
        assert_eq!(written["orderID"], 200, "under the model's name");
        assert_eq!(orders.count(&paid).await.unwrap(), 1);
        let history = orders.revisions(&PlainOrder::key(200)).await.unwrap();
        assert_eq!(
            history.len(),
            1,
            "the document as the guide's program left it"
        );
    }
}

// ---------------------------------------------------------------------------------------------------------
// Document Modeling Basics: the user and session pair, and the lookup holding the bare id.

async fn the_session_pair<S: Fresh>() {
    let store = S::fresh().await;
    load(
        &store,
        "user::mmustermann@domain.com",
        BasicUser::key("mmustermann@domain.com").unwrap(),
        MAX,
    )
    .await;
    load(
        &store,
        "session::mmustermann@domain.com",
        Session::key("mmustermann@domain.com").unwrap(),
        MAX_SESSION,
    )
    .await;
    let users = repo::<BasicUser, _>(&store).await;
    let sessions = repo::<Session, _>(&store).await;
    let page = users
        .find(&Query::new(BasicUser::fields().last_name.eq("Mustermann")))
        .await
        .unwrap();
    assert_eq!(page.docs.len(), 1);
    let max = &page.docs[0];
    let page = sessions
        .find(&Query::new(Session::fields().token.eq("123456")))
        .await
        .unwrap();
    assert_eq!(page.docs.len(), 1);
    assert_eq!(
        (page.docs[0].email(), page.docs[0].source.as_str()),
        (max.email(), "web")
    );
    let session = sessions
        .get(&Session::key(max.email()).unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(session.token, "123456");
    for report in [
        users
            .migrate_all()
            .rewrite_adopted(true)
            .await
            .unwrap()
            .to_string(),
        sessions
            .migrate_all()
            .rewrite_adopted(true)
            .await
            .unwrap()
            .to_string(),
    ] {
        assert_eq!(
            report,
            "visited 1, migrated 0, rewrote 1 adopted (1 without a schema), skipped 0, failed 0"
        );
    }
    let written = json_at(&store, "session::mmustermann@domain.com").await;
    assert_eq!(written.get("email"), None, "the key holds it");
    assert_eq!(
        (&written["type"], &written["token"]),
        (&json!("session"), &json!("123456"))
    );
}

/// The lookup's user: the guide's, holding the customer number its lookup is built from.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
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
struct LookupUser {
    #[docmodel(get)]
    email: String,
    first_name: String,
    last_name: String,
    customer_no: u64,
}

async fn the_lookup<S: Fresh>() {
    let store = S::fresh().await;
    store
        .insert(
            "customer_ref::12345",
            br#"{"ref": "mmustermann@domain.com"}"#,
        )
        .await
        .unwrap();
    let max = MAX.replace(
        r#""email": "mmustermann@domain.com""#,
        r#""email": "mmustermann@domain.com", "customer_no": 12345"#,
    );
    load(
        &store,
        "user::mmustermann@domain.com",
        LookupUser::key("mmustermann@domain.com").unwrap(),
        &max,
    )
    .await;
    let users = repo::<LookupUser, _>(&store).await;
    let found = users
        .get_by_lookup("customer_ref::12345")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (found.first_name.as_str(), found.customer_no),
        ("Max", 12345)
    );
    assert_eq!(
        users
            .count(&LookupUser::fields().customer_no.eq(12345u64))
            .await
            .unwrap(),
        1
    );
    rewrite_all(
        &users,
        "visited 1, migrated 0, rewrote 1 adopted (1 without a schema), skipped 0, failed 0",
    )
    .await;
    let lookup = json_at(&store, "customer_ref::12345").await;
    assert_eq!(
        lookup,
        json!({"ref": "mmustermann@domain.com"}),
        "in the form it was found"
    );
    assert!(
        users
            .get_by_lookup("customer_ref::12345")
            .await
            .unwrap()
            .is_some()
    );
}

macro_rules! catalogue {
    (stores: [$($store:ident: $ty:ty),*], shapes: $shapes:tt) => {$(
        mod $store {
            catalogue!(@shapes $ty, $shapes);
        }
    )*};
    (@shapes $ty:ty, [$($shape:ident),*]) => {$(
        #[tokio::test]
        async fn $shape() {
            super::$shape::<$ty>().await;
        }
    )*};
}

catalogue!(
    stores: [
        memory: docmodel::store::MemoryStore,
        redb: docmodel::store::Redb,
        couchdb: docmodel::store::CouchDb
    ],
    shapes: [
        users_at_each_schema, the_revision_example, the_meta_layout, profiles,
        the_track_with_its_type_as_the_guide_writes_it, the_track_under_its_root_attribute, playlists,
        countries, the_orders_keys, orders, the_session_pair, the_lookup
    ]
);
