//! Validation on every write (`validate = path`, `garde`), on read when the model asks, the application's
//! own errors out of an update, and the envelope within reach: a `Doc` inserted with `_geo`, `update_doc`,
//! `_accessed` written by `touch`.

use docmodel::store::{MemoryStore, Store};
use docmodel::{Doc, DocModel, Error, FieldError, Repo, Timestamp};
use docmodel_tests::{keys, text};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The data-modeling guide's user profile, with the rules an application keeps for it.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(
    type = "userprofile",
    schema = "1.0",
    key = "userprofile::{username}",
    validate = check_profile,
    revisions = 3
)]
struct Profile {
    #[docmodel(get)]
    username: String,
    #[docmodel(get, set)]
    first_name: String,
    #[docmodel(get, set(with = digits_only))]
    phones: Vec<String>,
}

fn check_profile(profile: &Profile) -> Result<(), Vec<FieldError>> {
    let mut errors = Vec::new();
    if profile.first_name.trim().is_empty() {
        errors.push(FieldError::at(&Profile::fields().first_name, "is empty"));
    }
    for (i, phone) in profile.phones.iter().enumerate() {
        if phone.len() != 10 {
            errors.push(FieldError::new(
                format!("phones[{i}]"),
                format!("{phone:?} does not have 10 digits"),
            ));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn digits_only(phones: Vec<String>) -> Result<Vec<String>, Error> {
    Ok(phones
        .into_iter()
        .map(|phone| phone.chars().filter(char::is_ascii_digit).collect())
        .collect())
}

fn andy() -> Profile {
    Profile {
        username: "copilotmarks61569".into(),
        first_name: "Andy".into(),
        phones: vec!["2127711834".into()],
    }
}

fn key() -> docmodel::Key<Profile> {
    Profile::key("copilotmarks61569").unwrap()
}

#[test]
fn a_new_document_lists_every_failing_field_by_its_stored_path() {
    let profile = Profile {
        first_name: " ".into(),
        phones: vec!["2127711834".into(), "555".into(), "1".into()],
        ..andy()
    };
    let err = Doc::new(profile).unwrap_err();
    assert_eq!(
        err.to_string(),
        "document `userprofile::copilotmarks61569`: 3 invalid values: `firstName`: is empty; \
         `phones[1]`: \"555\" does not have 10 digits; `phones[2]`: \"1\" does not have 10 digits"
    );
    let Error::Validation { key, errors } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(key.as_deref(), Some("userprofile::copilotmarks61569"));
    let paths: Vec<&str> = errors.iter().map(FieldError::path).collect();
    assert_eq!(paths, ["firstName", "phones[1]", "phones[2]"]);
    assert_eq!(err.field_errors(), errors.as_slice());
}

#[tokio::test]
async fn insert_refuses_an_invalid_body_before_any_store_operation() {
    let store = docmodel_tests::CountingStore::new(MemoryStore::new());
    let profiles = Repo::<Profile>::new(&store);
    let err = profiles
        .insert(Profile {
            first_name: String::new(),
            ..andy()
        })
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "document `userprofile::copilotmarks61569`: invalid value for `firstName`: is empty"
    );
    assert_eq!(store.take(), [], "no store operation ran");
    assert!(keys(&store).await.is_empty());
}

#[tokio::test]
async fn save_and_update_refuse_an_invalid_change_and_leave_the_stored_document() {
    let store = MemoryStore::new();
    let profiles = Repo::<Profile>::new(&store);
    profiles.insert(andy()).await.unwrap();
    let before = text(&store, "userprofile::copilotmarks61569").await;

    // A change that bypasses the setters (a field written through `DerefMut`) is checked on save.
    let mut doc = profiles.get(&key()).await.unwrap().unwrap();
    doc.phones.push("12".into());
    let err = profiles.save(&mut doc).await.unwrap_err();
    assert_eq!(
        err.field_errors(),
        [FieldError::new(
            "phones[1]",
            "\"12\" does not have 10 digits"
        )]
    );

    let err = profiles
        .update(&key(), |profile| profile.set_first_name(""))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Validation { key: Some(key), .. } if key == "userprofile::copilotmarks61569"),
        "{err:?}"
    );
    assert_eq!(text(&store, "userprofile::copilotmarks61569").await, before);
    assert_eq!(
        keys(&store).await,
        ["userprofile::copilotmarks61569"],
        "no revision copy was kept for a refused save"
    );

    // A setter's own rule still runs, and normalises before the model's rules look.
    let doc = profiles
        .update(&key(), |profile| {
            profile.set_phones(vec!["212-771-1834".to_owned(), "(212) 555 0000".into()])
        })
        .await
        .unwrap();
    assert_eq!(doc.phones(), ["2127711834", "2125550000"]);
    assert_eq!(doc.envelope().ver, 2);
}

#[tokio::test]
async fn a_stored_document_that_breaks_the_rules_reads_unless_the_model_validates_on_read() {
    #[derive(Debug, Serialize, Deserialize, DocModel)]
    #[serde(rename_all = "camelCase")]
    #[docmodel(
        type = "userprofile",
        schema = "1.0",
        key = "userprofile::{username}",
        validate = check_strict,
        validate_on_read
    )]
    struct Strict {
        username: String,
        first_name: String,
    }

    fn check_strict(profile: &Strict) -> Result<(), Vec<FieldError>> {
        match profile.first_name.is_empty() {
            true => Err(vec![FieldError::at(
                &Strict::fields().first_name,
                "is empty",
            )]),
            false => Ok(()),
        }
    }

    let store = MemoryStore::new();
    let written_elsewhere = r#"{"_type":"userprofile","_schema":"1.0","_ver":1,"username":"andy","firstName":"","phones":[]}"#;
    store
        .insert("userprofile::andy", written_elsewhere.as_bytes())
        .await
        .unwrap();

    let lenient = Repo::<Profile>::new(&store);
    let doc = lenient
        .get(&Profile::key("andy").unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(doc.first_name(), "", "read as it is stored");

    let strict = Repo::<Strict>::new(&store);
    let err = strict.get(&Strict::key("andy").unwrap()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "document `userprofile::andy`: invalid value for `firstName`: is empty"
    );
    let err = Doc::<Strict>::from_slice(written_elsewhere.as_bytes()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "document `userprofile::andy`: invalid value for `firstName`: is empty"
    );

    // The repository's own reads for a write are not refused: the document can be fixed, or removed.
    let fixed = strict
        .update(&Strict::key("andy").unwrap(), |profile| {
            profile.first_name = "Andy".into()
        })
        .await
        .unwrap();
    assert_eq!(
        (fixed.first_name.as_str(), fixed.envelope().ver),
        ("Andy", 2)
    );
    strict.remove(&Strict::key("andy").unwrap()).await.unwrap();
    assert!(keys(&store).await.is_empty());
}

/// The same rules written with garde's derive: its paths (of Rust names) come out as the stored ones.
#[derive(Debug, Serialize, Deserialize, DocModel, garde::Validate)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "track", schema = "1.0", key = "track::{id}", garde)]
struct Track {
    #[garde(skip)]
    id: u64,
    #[garde(length(min = 1, max = 200))]
    track_title: String,
    #[garde(length(min = 1), inner(length(min = 1)))]
    genres: Vec<String>,
    #[garde(range(min = 0.0, max = 5.0))]
    rating: f64,
}

#[tokio::test]
async fn garde_rules_run_on_every_write_with_stored_paths() {
    let store = MemoryStore::new();
    let tracks = Repo::<Track>::new(&store);
    let err = tracks
        .insert(Track {
            id: 1,
            track_title: String::new(),
            genres: vec!["Rock".into(), String::new()],
            rating: 7.5,
        })
        .await
        .unwrap_err();
    let mut paths: Vec<&str> = err.field_errors().iter().map(FieldError::path).collect();
    paths.sort_unstable();
    assert_eq!(paths, ["genres[1]", "rating", "trackTitle"], "{err}");
    assert!(
        err.to_string()
            .starts_with("document `track::1`: 3 invalid values: "),
        "{err}"
    );
    assert!(keys(&store).await.is_empty());

    tracks
        .insert(Track {
            id: 1,
            track_title: "Bohemian Rhapsody".into(),
            genres: vec!["Rock".into()],
            rating: 4.5,
        })
        .await
        .unwrap();
    let err = tracks
        .update(&Track::key(1), |track| track.rating = -1.0)
        .await
        .unwrap_err();
    assert_eq!(err.field_errors()[0].path(), "rating");
    assert_eq!(
        tracks.get(&Track::key(1)).await.unwrap().unwrap().rating,
        4.5
    );
}

#[derive(Debug, PartialEq, thiserror::Error)]
#[error("{username} is suspended")]
struct Suspended {
    username: String,
}

#[tokio::test]
async fn try_update_gives_the_application_its_own_error_back() {
    let store = MemoryStore::new();
    let profiles = Repo::<Profile>::new(&store);
    profiles.insert(andy()).await.unwrap();
    let before = text(&store, "userprofile::copilotmarks61569").await;

    let err = profiles
        .try_update(&key(), |profile| -> Result<(), Suspended> {
            profile.set_first_name("Andrew");
            Err(Suspended {
                username: profile.username().to_owned(),
            })
        })
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "document `userprofile::copilotmarks61569`: the update was stopped: copilotmarks61569 is suspended"
    );
    assert_eq!(
        err.into_application::<Suspended>().unwrap(),
        Suspended {
            username: "copilotmarks61569".into()
        }
    );
    assert_eq!(text(&store, "userprofile::copilotmarks61569").await, before);

    // A docmodel error out of the closure is itself, not wrapped.
    let err = profiles
        .try_update(&key(), |_| Err(Error::validation("phones", "no")))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Validation { .. }), "{err:?}");
    // Another application type is not this one: the error is given back whole.
    let err = profiles
        .try_update(&key(), |_| {
            Err(Suspended {
                username: "x".into(),
            })
        })
        .await
        .unwrap_err()
        .into_application::<std::fmt::Error>()
        .unwrap_err();
    assert!(matches!(err, Error::Application { .. }), "{err:?}");

    let doc = profiles
        .try_update(&key(), |profile| -> Result<(), Suspended> {
            profile.set_first_name("Andrew");
            Ok(())
        })
        .await
        .unwrap();
    assert_eq!(doc.first_name(), "Andrew");
}

/// A shop with the seeds' optional envelope fields: where it is (`_geo`) and when it was last read.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "shop",
    schema = "2.0",
    key = "shop::{id}",
    envelope(geo, accessed),
    migrate_from("1.0" = rename_title),
    revisions = 2
)]
struct Shop {
    id: u64,
    name: String,
}

fn rename_title(doc: &mut docmodel::JsonObject) -> Result<(), docmodel::MigrationError> {
    let title = doc
        .remove("title")
        .ok_or_else(|| docmodel::MigrationError::missing_field("title"))?;
    doc.insert("name".into(), title);
    Ok(())
}

async fn stored_json(store: &MemoryStore, key: &str) -> Value {
    serde_json::from_str(&text(store, key).await.unwrap()).unwrap()
}

#[tokio::test]
async fn a_doc_is_inserted_with_its_envelope_values_and_updated_through_them() {
    let store = MemoryStore::new();
    let shops = Repo::<Shop>::new(&store).clock(|| Timestamp::from_millis(1_000));
    let doc = Doc::new(Shop {
        id: 7,
        name: "Corner".into(),
    })
    .unwrap()
    .with_geo("u4pruydqqvj");
    shops.insert(doc).await.unwrap();
    assert_eq!(
        stored_json(&store, "shop::7").await,
        json!({"_type": "shop", "_schema": "2.0", "_ver": 1, "_created": 1000, "_modified": 1000,
               "_geo": "u4pruydqqvj", "id": 7, "name": "Corner"})
    );

    let doc = shops
        .update_doc(&Shop::key(7), |doc| {
            doc.name.push_str(" Shop");
            doc.envelope_mut().geo = Some("u4pruydqqvk".into());
        })
        .await
        .unwrap();
    assert_eq!(doc.envelope().ver, 2);
    let stored = stored_json(&store, "shop::7").await;
    assert_eq!(
        (&stored["_geo"], &stored["name"]),
        (&json!("u4pruydqqvk"), &json!("Corner Shop"))
    );
}

/// A repository of shops on `store`, its clock at 1 s, holding shop 7, "Corner", at version 1.
async fn with_corner_shop(store: &MemoryStore) -> Repo<Shop, &MemoryStore> {
    let shops = Repo::<Shop>::new(store).clock(|| Timestamp::from_millis(1_000));
    shops
        .insert(Shop {
            id: 7,
            name: "Corner".into(),
        })
        .await
        .unwrap();
    shops
}

#[tokio::test]
async fn touch_writes_accessed_without_a_new_version() {
    let store = MemoryStore::new();
    let shops = with_corner_shop(&store).await;
    let shops = shops.clock(|| Timestamp::from_millis(9_000));
    let doc = shops.touch(&Shop::key(7)).await.unwrap();
    assert_eq!(doc.envelope().accessed, Some(Timestamp::from_millis(9_000)));
    assert_eq!(
        stored_json(&store, "shop::7").await,
        json!({"_type": "shop", "_schema": "2.0", "_ver": 1, "_created": 1000, "_modified": 1000,
               "_accessed": 9000, "id": 7, "name": "Corner"})
    );
    assert_eq!(keys(&store).await, ["shop::7"], "no revision copy");

    // The touched document saves as usual: the token `touch` left is the current one.
    let mut doc = shops.get_and_touch(&Shop::key(7)).await.unwrap().unwrap();
    doc.name = "Corner Shop".into();
    shops.save(&mut doc).await.unwrap();
    assert_eq!(doc.envelope().ver, 2);
    assert_eq!(keys(&store).await, ["shop::7", "shop::7::v::1"]);

    assert!(shops.get_and_touch(&Shop::key(8)).await.unwrap().is_none());
    let err = shops.touch(&Shop::key(8)).await.unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err:?}");
}

#[tokio::test]
async fn touching_an_older_schema_saves_it_at_the_current_one() {
    let store = MemoryStore::new();
    store
        .insert(
            "shop::3",
            br#"{"_type":"shop","_schema":"1.0","_ver":4,"id":3,"title":"Old"}"#,
        )
        .await
        .unwrap();
    let shops = Repo::<Shop>::new(&store).clock(|| Timestamp::from_millis(2_000));
    let doc = shops.touch(&Shop::key(3)).await.unwrap();
    assert_eq!(doc.envelope().ver, 5);
    let stored = stored_json(&store, "shop::3").await;
    assert_eq!(
        (&stored["_schema"], &stored["_accessed"], &stored["name"]),
        (&json!("2.0"), &json!(2000), &json!("Old"))
    );
    assert_eq!(keys(&store).await, ["shop::3", "shop::3::v::4"]);
}

#[tokio::test]
async fn touch_needs_a_model_that_keeps_accessed() {
    let store = MemoryStore::new();
    let profiles = Repo::<Profile>::new(&store);
    profiles.insert(andy()).await.unwrap();
    let before = text(&store, "userprofile::copilotmarks61569").await;
    let err = profiles.touch(&key()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "document `userprofile::copilotmarks61569`: the store failed: the model `userprofile` does not keep \
         `_accessed`; add `envelope(accessed)` to record reads"
    );
    assert_eq!(text(&store, "userprofile::copilotmarks61569").await, before);
}

#[test]
fn a_rule_that_names_no_field_still_refuses() {
    #[derive(Debug, Serialize, Deserialize, DocModel)]
    #[docmodel(type = "note", schema = "1.0", key = "note::{id}", validate = refuse_all)]
    struct Note {
        id: u64,
    }

    fn refuse_all(_: &Note) -> Result<(), Vec<FieldError>> {
        Err(Vec::new())
    }

    let err = Doc::new(Note { id: 1 }).unwrap_err();
    assert_eq!(
        err.to_string(),
        "document `note::1`: invalid value: refused by `refuse_all`, which named no field"
    );
}

#[tokio::test]
async fn update_doc_keeps_the_version_and_creation_time_it_read() {
    let store = MemoryStore::new();
    let shops = with_corner_shop(&store).await;
    let doc = shops
        .update_doc(&Shop::key(7), |doc| {
            doc.envelope_mut().ver = 40;
            doc.envelope_mut().created = None;
        })
        .await
        .unwrap();
    assert_eq!(
        (doc.envelope().ver, doc.envelope().created),
        (2, Some(Timestamp::from_millis(1_000)))
    );
    assert_eq!(keys(&store).await, ["shop::7", "shop::7::v::1"]);
    assert_eq!(shops.revisions(&Shop::key(7)).await.unwrap().len(), 1);
}

/// A place adopted from documents that spell the type `Place`.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "place",
    aliases("Place"),
    schema = "1.0",
    key = "place::{id}",
    envelope(accessed),
    revisions = 2
)]
struct Place {
    id: u64,
    name: String,
}

#[tokio::test]
async fn touching_an_adopted_document_saves_it_and_keeps_it_as_it_was() {
    let store = MemoryStore::new();
    let before = r#"{"_type":"Place","_schema":"1.0","_ver":1,"id":1,"name":"Harbour"}"#;
    store.insert("place::1", before.as_bytes()).await.unwrap();
    let places = Repo::<Place>::new(&store).clock(|| Timestamp::from_millis(3_000));
    let doc = places.touch(&Place::key(1)).await.unwrap();
    assert_eq!(doc.envelope().ver, 2);
    let stored = stored_json(&store, "place::1").await;
    assert_eq!(
        (&stored["_type"], &stored["_accessed"]),
        (&json!("place"), &json!(3000))
    );
    // As it was, marked as the copy of `place::1` and recording the version saved from it (by its digest
    // without `_accessed`, which a touch writes in place).
    let saved = text(&store, "place::1").await.unwrap();
    let copy = format!(
        r#"{{"_copyOf":"place::1",{},"_copyNext":["{}"]}}"#,
        &before[1..before.len() - 1],
        docmodel::__private::version_digest_of::<Place>(saved.as_bytes())
    );
    assert_eq!(
        text(&store, "place::1::v::1").await.as_deref(),
        Some(copy.as_str())
    );
}
