//! The CouchDB validation function (`Repo::ensure_validation`) held to docmodel's reader, both sides of one
//! contract: documents generated from three models (valid ones as docmodel writes them, and each mutated by
//! one rule: a type, a version, a number bound, a time, a nesting depth, a surrogate, a marker, a layout) are
//! written by another client to pouchdb-server holding the models' functions. Every one the server accepts
//! as a model's reads with `Repo::get` as what was written; every one docmodel's reader reads from the same
//! text that the server refuses is one of the costs the README names; and every document docmodel itself
//! writes (insert, saves with copies, update, touch, restore, remove, `insert_many`, and `migrate_all`
//! through a JSON step and a typed step) is accepted.
//!
//! - `cases.rs`: documents each broken by one named rule, with the answer the server must give.
//! - `generated.rs`: documents changed at random, held to the reader alone.
//! - this file: the models, how a document is written and read back, and docmodel's own writes.

mod cases;
mod generated;

use docmodel::store::CouchDb;
use docmodel::{Doc, DocModel, Key, MigrationError, Repo, Timestamp};
use docmodel_tests::couchdb::{fresh, server};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The plain layout, with what a model adopts: an alias of its type, documents without one at its keys,
/// the type and the revision count under legacy names; a JSON step from 1.0 and a typed step from 2.0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "profile",
    aliases("userProfile"),
    schema = "3.0",
    key = "su::{id}"
)]
#[docmodel(revisions = 3, untyped = "accept")]
#[docmodel(migrate_from("1.0" = full_name_to_name, "2.0" = ProfileV2))]
#[docmodel(envelope(
    layout = "plain",
    accessed,
    legacy_names(type = "docType", ver = "version")
))]
struct Profile {
    id: u64,
    name: String,
    big: u64,
    score: i64,
    small: u8,
    seen: Timestamp,
    tags: Vec<String>,
}

/// The profile before `big`, `small`, `seen` and `tags`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "profile",
    aliases("userProfile"),
    schema = "2.0",
    key = "su::{id}"
)]
#[docmodel(untyped = "accept")]
#[docmodel(envelope(layout = "plain", legacy_names(type = "docType", ver = "version")))]
struct ProfileV2 {
    id: u64,
    name: String,
    score: i64,
}

impl From<ProfileV2> for Profile {
    fn from(old: ProfileV2) -> Self {
        Profile {
            id: old.id,
            name: old.name,
            big: 0,
            score: old.score,
            small: 0,
            seen: Timestamp::from_millis(0),
            tags: Vec::new(),
        }
    }
}

/// 1.0 -> 2.0: `fullName` becomes `name`.
fn full_name_to_name(doc: &mut docmodel::JsonObject) -> Result<(), MigrationError> {
    let name = doc
        .remove("fullName")
        .ok_or_else(|| MigrationError::missing_field("fullName"))?;
    doc.insert("name".into(), name);
    Ok(())
}

/// The data-modeling guide's root attribute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "track", schema = "1.0", key = "hd::{id}")]
#[docmodel(envelope(layout = "root"))]
struct Track {
    id: u64,
    title: String,
    plays: u32,
}

/// The envelope in a meta object, its times as ISO-8601 text; a key whose last two parts are text and a
/// number, as a revision copy's key ends (`mb::v::5`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "member",
    schema = "1.2",
    key = "mb::{team}::{id}",
    revisions = 2
)]
#[docmodel(envelope(layout = "meta", timestamps = "iso8601"))]
struct Member {
    team: String,
    id: i64,
    /// Read from `fullName` too: a document must hold it under one of the two.
    #[serde(alias = "fullName")]
    name: String,
    joined: Timestamp,
    /// Read through its own function: serde requires it, `Option` though it is (`null` reads, absent does
    /// not), and so does the server's guard.
    #[serde(with = "docmodel::timestamp::iso8601::option")]
    left_at: Option<Timestamp>,
    /// Never read: a document without it reads.
    #[serde(skip_deserializing)]
    team_size: u32,
}

/// Which model a document is written for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Model {
    Profile,
    Track,
    Member,
}

/// A value the document's text holds as written: `raw("18446744073709551616")`.
fn raw(text: &str) -> Value {
    json!(format!("@raw@{text}@"))
}

/// `doc` as JSON text, each [`raw`] value spliced in as written.
fn text_of(doc: &Value) -> String {
    let mut text = doc.to_string();
    while let Some(start) = text.find("\"@raw@") {
        let end = start + text[start..].find("@\"").expect("a raw value ends") + 2;
        let literal: String = serde_json::from_str(&text[start..end]).unwrap();
        let inner = literal[5..literal.len() - 1].to_owned();
        text.replace_range(start..end, &inner);
    }
    text
}

/// The JSON docmodel writes for `body`.
fn written<T: DocModel + Serialize>(body: T) -> Value {
    serde_json::from_slice(&Doc::new(body).unwrap().to_vec().unwrap()).unwrap()
}

fn profile(id: u64) -> Value {
    let mut doc = written(Profile {
        id,
        name: "Ada".into(),
        big: 5,
        score: -3,
        small: 7,
        seen: Timestamp::from_millis(1_700_000_000_000),
        tags: vec!["a".into()],
    });
    doc["created"] = json!(1_700_000_000_000_i64);
    doc["modified"] = json!(1_700_000_000_001_i64);
    doc
}

fn profile_v2(id: u64) -> Value {
    json!({ "type": "profile", "schema": "2.0", "ver": 2, "id": id, "name": "Ada", "score": 1 })
}

fn profile_v1(id: u64) -> Value {
    json!({ "type": "profile", "schema": "1.0", "ver": 2, "id": id, "fullName": "Ada", "score": 1 })
}

fn track(id: u64) -> Value {
    written(Track {
        id,
        title: "My House".into(),
        plays: 3,
    })
}

fn member(id: i64) -> Value {
    let mut doc = written(Member {
        team: "t".into(),
        id,
        name: "Grace".into(),
        joined: Timestamp::from_millis(1_700_000_000_000),
        left_at: None,
        team_size: 3,
    });
    doc["meta"]["created"] = json!("2023-11-14T22:13:20.000Z");
    doc
}

/// `[[...]]` nested `levels` deep.
fn nested(levels: usize) -> Value {
    (1..levels).fold(json!([]), |inner, _| json!([inner]))
}

/// `text` with `_id` (and `_rev`) first, as a client writes it.
fn with_id(key: &str, rev: Option<&str>, text: &str) -> String {
    let mut head = format!("{{\"_id\":{}", serde_json::to_string(key).unwrap());
    if let Some(rev) = rev {
        head.push_str(&format!(
            ",\"_rev\":{}",
            serde_json::to_string(rev).unwrap()
        ));
    }
    let rest = text.strip_prefix('{').unwrap();
    if rest != "}" {
        head.push(',');
    }
    head + rest
}

/// A `_bulk_docs` write of `docs` (JSON texts with their ids) by another client: each one's answer, in order.
async fn bulk(store: &CouchDb, docs: &[String]) -> Vec<Value> {
    let url = format!("{}/{}/_bulk_docs", server().url, store.db());
    let body = format!("{{\"docs\":[{}]}}", docs.join(","));
    let answer = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    let status = answer.status();
    let body = answer.bytes().await.unwrap();
    assert!(
        status.is_success(),
        "{status}: {}",
        String::from_utf8_lossy(&body)
    );
    let answers: Vec<Value> = serde_json::from_slice(&body).unwrap();
    assert_eq!(answers.len(), docs.len());
    // pouchdb-server answers in an order of its own: each answer goes back to its document by id.
    docs.iter()
        .map(|doc| {
            let id = serde_json::from_str::<Value>(doc).map_or_else(
                |_| doc[8..].split('"').next().unwrap().to_owned(),
                |doc| doc["_id"].as_str().unwrap().to_owned(),
            );
            answers
                .iter()
                .find(|answer| answer["id"] == id.as_str())
                .unwrap_or_else(|| panic!("no answer for {id}"))
                .clone()
        })
        .collect()
}

fn accepted(answer: &Value) -> bool {
    answer.get("ok") == Some(&json!(true))
        || (answer.get("rev").is_some() && answer.get("error").is_none())
}

/// How docmodel's reader takes `text` at `key` as model `T`, in process: `Ok` with the body and the revision
/// count, or the error.
fn read_locally<T: DocModel + DeserializeOwned>(key: &str, text: &str) -> Result<(T, u64), String> {
    let key = Key::<T>::parse(key).map_err(|err| err.to_string())?;
    Doc::from_slice_at(key, text.as_bytes())
        .map(|doc| {
            let ver = doc.envelope().ver;
            (doc.into_inner(), ver)
        })
        .map_err(|err| err.to_string())
}

/// Reads the accepted case through the store, as a program would: it must read, and a document of the
/// current version must read as what was written (its body as serde reads the text, its revision count).
async fn read_back<T>(store: &CouchDb, key: &str, text: &str) -> Result<(), String>
where
    T: DocModel + Serialize + DeserializeOwned + PartialEq + std::fmt::Debug + Send + Sync,
{
    let key = Key::<T>::parse(key).map_err(|err| err.to_string())?;
    let doc = Repo::<T, _>::new(store.clone())
        .get(&key)
        .await
        .map_err(|err| err.to_string())?
        .ok_or("not found")?;
    let Ok(written) = serde_json::from_str::<Value>(text) else {
        return Ok(());
    };
    if doc.migrated_from().is_some() {
        return Ok(());
    }
    // What the text means to serde, read the plain way: the body the model's fields hold.
    let body = match T::ENVELOPE.layout() {
        docmodel::Layout::Root => written[T::TYPE].clone(),
        _ => written.clone(),
    };
    if let Ok(meant) = serde_json::from_value::<T>(body.clone())
        && &meant != doc.body()
    {
        return Err(format!("read {:?}, written {meant:?}", doc.body()));
    }
    let envelope = match T::ENVELOPE.layout() {
        docmodel::Layout::Meta => &written["meta"],
        _ => &body,
    };
    let ver = ["ver", "version"]
        .iter()
        .find_map(|name| envelope.get(*name))
        .map_or(Some(1), Value::as_u64);
    if ver != Some(doc.envelope().ver) {
        return Err(format!("read ver {}, written {ver:?}", doc.envelope().ver));
    }
    Ok(())
}

async fn installed() -> CouchDb {
    let store = fresh().await;
    assert!(
        Repo::<Profile>::new(store.clone())
            .ensure_validation()
            .await
            .unwrap()
    );
    assert!(
        Repo::<Track>::new(store.clone())
            .ensure_validation()
            .await
            .unwrap()
    );
    assert!(
        Repo::<Member>::new(store.clone())
            .ensure_validation()
            .await
            .unwrap()
    );
    store
}

/// The copy marker does not switch the check off: a document at its own key with the marker is held to
/// every rule, `_ver` going back among them.
#[tokio::test]
async fn the_copy_marker_at_a_documents_own_key_is_held_to_every_rule() {
    let store = installed().await;
    let first = bulk(
        &store,
        &[with_id(
            "su::1",
            None,
            &text_of(&{
                let mut doc = profile(1);
                doc["ver"] = json!(9);
                doc
            }),
        )],
    )
    .await;
    let rev = first[0]["rev"].as_str().unwrap().to_owned();
    let mut back = Vec::new();
    for marker in [json!("su::1"), json!("su::2"), Value::Null] {
        let mut doc = profile(1);
        doc["ver"] = json!(1);
        doc["copyOf"] = marker;
        back.push(with_id("su::1", Some(&rev), &text_of(&doc)));
    }
    for answer in bulk(&store, &back).await {
        assert_eq!(
            answer["reason"], "docmodel: ver: goes back: a revision count only grows",
            "{answer}"
        );
    }
    let doc = Repo::<Profile>::new(store.clone())
        .get(&Profile::key(1))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(doc.envelope().ver, 9, "nothing written");
}

/// What replication writes is held to the rules too: `_bulk_docs` and `PUT` with `new_edits=false`, which
/// carry a revision of their own, are refused on a broken document and nothing is stored.
#[tokio::test]
async fn replicated_writes_are_held_to_the_rules() {
    let store = installed().await;
    let mut broken = profile(7);
    broken["name"] = json!(5);
    let text = with_id(
        "su::7",
        Some("1-0123456789abcdef0123456789abcdef"),
        &text_of(&broken),
    );
    let client = reqwest::Client::new();
    let db = format!("{}/{}", server().url, store.db());
    let answer = client
        .post(format!("{db}/_bulk_docs"))
        .header("content-type", "application/json")
        .body(format!("{{\"docs\":[{text}],\"new_edits\":false}}"))
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    let body = String::from_utf8_lossy(&answer.bytes().await.unwrap()).into_owned();
    assert!(
        body.contains("docmodel: name: must be string"),
        "{status} {body}"
    );
    let answer = client
        .put(format!("{db}/su%3A%3A7?new_edits=false"))
        .header("content-type", "application/json")
        .body(text)
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    let body = String::from_utf8_lossy(&answer.bytes().await.unwrap()).into_owned();
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("docmodel: name: must be string"), "{body}");
    let stored = Repo::<Profile>::new(store.clone())
        .get(&Profile::key(7))
        .await
        .unwrap();
    assert!(stored.is_none(), "nothing stored");
}

/// Every write docmodel makes passes its own function.
#[tokio::test]
async fn every_write_docmodel_makes_is_accepted() {
    let store = installed().await;
    let profiles = Repo::<Profile>::new(store.clone());
    let ada = Profile {
        id: 1,
        name: "Ada".into(),
        big: 9_007_199_254_740_992,
        score: i64::from(i32::MIN),
        small: 255,
        seen: Timestamp::from_millis(253_402_300_799_999),
        tags: vec!["\u{1F600}".into()],
    };
    let mut doc = profiles.insert(ada.clone()).await.unwrap();
    for round in 0..5 {
        doc.score += 1;
        doc.name = format!("Ada {round}");
        profiles.save(&mut doc).await.unwrap();
    }
    assert_eq!(doc.envelope().ver, 6);
    let kept = profiles.revisions(doc.key()).await.unwrap();
    assert_eq!(kept.len(), 3, "three copies kept");
    profiles
        .update(doc.key(), |body| {
            body.tags.push("b".into());
            Ok(())
        })
        .await
        .unwrap();
    profiles.touch(doc.key()).await.unwrap();
    profiles.restore(doc.key(), 4).await.unwrap();
    profiles
        .insert_many((2..6).map(|id| Profile { id, ..ada.clone() }))
        .await
        .unwrap();
    profiles.remove(&Profile::key(5)).await.unwrap();

    // Older versions another client wrote, moved on by `migrate_all` through both steps.
    let older = [
        with_id("su::10", None, &text_of(&profile_v1(10))),
        with_id("su::11", None, &text_of(&profile_v2(11))),
        with_id("su::12", None, &{
            let mut doc = profile_v1(12);
            doc["type"] = json!("userProfile");
            text_of(&doc)
        }),
    ];
    assert!(bulk(&store, &older).await.iter().all(accepted));
    let report = profiles.migrate_all().await.unwrap();
    assert_eq!(report.migrated, 3, "{report:?}");
    assert!(report.failed.is_empty(), "{report:?}");
    for id in [10, 11, 12] {
        let doc = profiles.get(&Profile::key(id)).await.unwrap().unwrap();
        assert_eq!(doc.migrated_from(), None, "stored at 3.0 now");
        assert_eq!(doc.body().name, "Ada");
    }

    let tracks = Repo::<Track>::new(store.clone());
    let mut track = tracks
        .insert(Track {
            id: 1,
            title: "My House".into(),
            plays: u32::MAX,
        })
        .await
        .unwrap();
    track.plays = 0;
    tracks.save(&mut track).await.unwrap();

    let members = Repo::<Member>::new(store.clone());
    let mut grace = members
        .insert(Member {
            team: "t".into(),
            id: i64::from(i32::MIN),
            name: "Grace".into(),
            joined: Timestamp::from_millis(-62_167_219_200_000),
            left_at: Some(Timestamp::from_millis(0)),
            team_size: 0,
        })
        .await
        .unwrap();
    grace.name = "Grace H.".into();
    members.save(&mut grace).await.unwrap();
}
