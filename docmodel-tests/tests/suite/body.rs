//! The seeds' advice inside the body: the four states of a field's presence, fields left out when empty, UUIDs
//! without dashes and references stored as bare ids.

use std::collections::BTreeMap;

use docmodel::store::{MemoryStore, Store};
use docmodel::uuid::Uuid;
use docmodel::{Doc, DocModel, Error, Presence, Ref, Repo};
use serde::{Deserialize, Serialize};

/// The seed's country, whose `geocode` may be valued, empty, null or missing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "country", schema = "2.0", key = "country::{code}")]
#[docmodel(migrate_from("1.0" = country_v1))]
struct Country {
    code: String,
    geocode: Presence<String>,
    #[serde(rename = "regionCodes")]
    region_codes: Presence<Vec<String>>,
}

/// 1.0 stored the region codes as one comma-separated string; an absent or `null` one stays as it was.
fn country_v1(doc: &mut docmodel::JsonObject) -> Result<(), docmodel::MigrationError> {
    match doc.remove("regions") {
        Some(docmodel::JsonValue::String(codes)) => {
            let codes: Vec<docmodel::JsonValue> = codes
                .split(',')
                .filter(|code| !code.is_empty())
                .map(|code| code.into())
                .collect();
            doc.insert("regionCodes".into(), codes.into());
        }
        Some(other) => {
            doc.insert("regionCodes".into(), other);
        }
        None => {}
    }
    Ok(())
}

fn country(geocode: Presence<String>, region_codes: Presence<Vec<String>>) -> Country {
    Country {
        code: "US".into(),
        geocode,
        region_codes,
    }
}

fn written<T: DocModel + Serialize>(body: T) -> String {
    String::from_utf8(Doc::new(body).unwrap().to_vec().unwrap()).unwrap()
}

const HEAD: &str = r#"{"_type":"country","_schema":"2.0","_ver":1,"code":"US""#;

#[test]
fn each_state_of_presence_is_stored_as_the_seed_shows_and_reads_back_as_itself() {
    let cases = [
        (Presence::Value("USA".to_owned()), r#","geocode":"USA""#),
        (Presence::Empty, r#","geocode":"""#),
        (Presence::Null, r#","geocode":null"#),
        (Presence::Missing, ""),
    ];
    for (geocode, json) in cases {
        let regions = Presence::Value(vec!["CA".to_owned()]);
        let stored = written(country(geocode.clone(), regions.clone()));
        assert_eq!(stored, format!(r#"{HEAD}{json},"regionCodes":["CA"]}}"#));
        let read = Doc::<Country>::from_slice(stored.as_bytes()).unwrap();
        assert_eq!(read.geocode, geocode, "{stored}");
        assert_eq!(read.region_codes, regions);
        // Written back as read: a missing field does not come back as `null`.
        assert_eq!(String::from_utf8(read.to_vec().unwrap()).unwrap(), stored);
    }
    let empty_list = written(country(Presence::Missing, Presence::Empty));
    assert_eq!(empty_list, format!(r#"{HEAD},"regionCodes":[]}}"#));
    assert_eq!(
        Doc::<Country>::from_slice(empty_list.as_bytes())
            .unwrap()
            .region_codes,
        Presence::Empty
    );
}

#[test]
fn presence_is_read_the_same_from_a_migrated_document() {
    let read = |regions: &str| {
        let stored =
            format!(r#"{{"_type":"country","_schema":"1.0","code":"US","geocode":null{regions}}}"#);
        Doc::<Country>::from_slice(stored.as_bytes()).unwrap()
    };
    let doc = read(r#","regions":"CA,MX""#);
    assert_eq!(
        doc.migrated_from().map(|v| v.to_string()).as_deref(),
        Some("1.0")
    );
    assert_eq!(doc.geocode, Presence::Null);
    assert_eq!(
        doc.region_codes,
        Presence::Value(vec!["CA".into(), "MX".into()])
    );
    assert_eq!(read(r#","regions":"""#).region_codes, Presence::Empty);
    assert_eq!(read(r#","regions":null"#).region_codes, Presence::Null);
    assert_eq!(read("").region_codes, Presence::Missing);
    assert_eq!(
        String::from_utf8(read("").to_vec().unwrap()).unwrap(),
        format!(r#"{HEAD},"geocode":null}}"#)
    );
}

#[tokio::test]
async fn a_missing_field_is_not_in_the_store() {
    let store = MemoryStore::new();
    let countries = Repo::<Country>::new(&store).clock(|| docmodel::Timestamp::from_millis(1));
    countries
        .insert(country(Presence::Missing, Presence::Null))
        .await
        .unwrap();
    let stored = store.get("country::US").await.unwrap().unwrap();
    assert_eq!(
        std::str::from_utf8(&stored.bytes).unwrap(),
        r#"{"_type":"country","_schema":"2.0","_ver":1,"_created":1,"_modified":1,"code":"US","regionCodes":null}"#
    );
    let doc = countries
        .get(&Country::key("US").unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (&doc.geocode, &doc.region_codes),
        (&Presence::Missing, &Presence::Null)
    );
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Address {
    geocode: Presence<String>,
}

/// A `Presence` in a nested struct is serde's alone: `Missing` there needs `skip_serializing_if`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "shop", schema = "1.0", key = "shop::{id}")]
struct Shop {
    id: u64,
    address: Address,
}

#[tokio::test]
async fn a_missing_value_docmodel_cannot_leave_out_is_an_error_that_writes_nothing() {
    let store = MemoryStore::new();
    let shops = Repo::<Shop>::new(&store);
    let err = shops
        .insert(Shop {
            id: 1,
            address: Address {
                geocode: Presence::Missing,
            },
        })
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Codec { .. }), "{err:?}");
    assert!(
        err.to_string().contains(
            "`Presence::Missing` is left out of a document only in a top-level field of a model's body; here, \
             add `#[serde(default, skip_serializing_if = \"Presence::is_missing\")]` to the field"
        ),
        "{err}"
    );
    assert!(store.get("shop::1").await.unwrap().is_none());
}

/// An event whose time is a component array, the guide's form.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "event", schema = "1.0", key = "event::{id}")]
struct Event {
    id: u64,
    #[serde(with = "docmodel::timestamp::components")]
    happened: docmodel::Timestamp,
}

#[tokio::test]
async fn a_time_its_adapter_could_not_read_back_is_refused_on_write_and_nothing_is_stored() {
    let store = MemoryStore::new();
    let events = Repo::<Event>::new(&store);
    let err = events
        .insert(Event {
            id: 1,
            happened: docmodel::Timestamp::from_millis(i64::MIN),
        })
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Codec { .. }), "{err:?}");
    assert!(
        err.to_string().contains(&format!(
            "the timestamp {} ms after the epoch is outside the years `components` reads (0000 to 9999)",
            i64::MIN
        )),
        "{err}"
    );
    assert!(store.get("event::1").await.unwrap().is_none());

    // The last instant it reads is written, and read back as itself.
    let last = docmodel::Timestamp::parse_iso8601("9999-12-31T23:59:59.999Z").unwrap();
    events
        .insert(Event {
            id: 2,
            happened: last,
        })
        .await
        .unwrap();
    let read = events.get(&Event::key(2)).await.unwrap().unwrap();
    assert_eq!(read.happened, last);
}

/// The seed's user with `skip_empty`: nothing is stored for an empty value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{user_id}", skip_empty)]
#[serde(rename_all = "camelCase")]
struct Profile {
    user_id: u64,
    #[serde(default)]
    first_name: String,
    middle_name: Option<String>,
    #[serde(default)]
    phones: Vec<String>,
    #[serde(default)]
    social: BTreeMap<String, String>,
    geocode: Presence<String>,
    /// Not a type that can be empty, and without a default: written whatever it holds.
    logins: u32,
    #[docmodel(skip_empty(default))]
    #[serde(default)]
    retries: u32,
}

fn profile() -> Profile {
    Profile {
        user_id: 7,
        first_name: String::new(),
        middle_name: None,
        phones: Vec::new(),
        social: BTreeMap::new(),
        geocode: Presence::Empty,
        logins: 0,
        retries: 0,
    }
}

#[test]
fn skip_empty_leaves_out_empty_values_and_they_read_back() {
    let empty = written(profile());
    assert_eq!(
        empty,
        r#"{"_type":"user","_schema":"1.0","_ver":1,"userId":7,"logins":0}"#
    );
    let read = Doc::<Profile>::from_slice(empty.as_bytes()).unwrap();
    // `Empty` is left out too, and so reads back as `Missing`: what `skip_empty` asks for.
    assert_eq!(
        read.body(),
        &Profile {
            geocode: Presence::Missing,
            ..profile()
        }
    );

    let full = Profile {
        first_name: "Joe".into(),
        middle_name: Some("B".into()),
        phones: vec!["212-555-1212".into()],
        social: BTreeMap::from([("x".into(), "@joe".into())]),
        geocode: Presence::Value("USA".into()),
        logins: 3,
        retries: 2,
        ..profile()
    };
    let stored = written(full.clone());
    assert_eq!(
        stored,
        r#"{"_type":"user","_schema":"1.0","_ver":1,"userId":7,"firstName":"Joe","middleName":"B","phones":["212-555-1212"],"social":{"x":"@joe"},"geocode":"USA","logins":3,"retries":2}"#
    );
    assert_eq!(
        Doc::<Profile>::from_slice(stored.as_bytes())
            .unwrap()
            .body(),
        &full
    );

    // An empty string in an `Option` is left out, and reads back as `None`.
    let some_empty = written(Profile {
        middle_name: Some(String::new()),
        ..profile()
    });
    assert!(!some_empty.contains("middleName"), "{some_empty}");
}

/// `skip_empty` on one field only, the others written as they are.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "note", schema = "1.0", key = "note::{id}")]
struct Note {
    id: u64,
    #[docmodel(skip_empty)]
    #[serde(default)]
    tags: Vec<String>,
    text: String,
    comment: Option<String>,
}

#[test]
fn skip_empty_on_a_field_leaves_out_that_field_only() {
    let stored = written(Note {
        id: 1,
        tags: Vec::new(),
        text: String::new(),
        comment: None,
    });
    assert_eq!(
        stored,
        r#"{"_type":"note","_schema":"1.0","_ver":1,"id":1,"text":"","comment":null}"#
    );
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "track", schema = "1.0", key = "track::{id}")]
struct Track {
    id: String,
    title: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "userprofile", schema = "1.0", key = "userprofile::{username}")]
struct UserProfile {
    username: String,
}

/// The seed's playlist: its tracks and owner stored as bare ids, its id a UUID without dashes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "playlist", schema = "1.0", key = "playlist::{id}")]
struct Playlist {
    #[serde(with = "docmodel::uuid_simple")]
    id: Uuid,
    name: String,
    #[serde(with = "docmodel::ref_id")]
    owner: Ref<UserProfile>,
    #[serde(with = "docmodel::ref_id::vec")]
    tracks: Vec<Ref<Track>>,
    #[serde(with = "docmodel::ref_id::option", default)]
    artwork: Option<Ref<Track>>,
}

fn playlist() -> Playlist {
    Playlist {
        id: Uuid::parse_str("003c6f65-641a-4c9a-8e5e-41c947086cae").unwrap(),
        name: "Eclectic Summer Mix".into(),
        owner: UserProfile::key("copilotmarks61569").unwrap().into(),
        tracks: [
            "9FFAF88C1C3550245A19CE3BD91D3DC0BE616778",
            "3305311F4A0FAAFEABD001D324906748B18FB24A",
        ]
        .map(|id| Track::key(id).unwrap().into())
        .to_vec(),
        artwork: None,
    }
}

#[test]
fn references_are_stored_as_bare_ids_and_uuids_without_dashes() {
    let stored = written(playlist());
    assert_eq!(
        stored,
        r#"{"_type":"playlist","_schema":"1.0","_ver":1,"id":"003c6f65641a4c9a8e5e41c947086cae","name":"Eclectic Summer Mix","owner":"copilotmarks61569","tracks":["9FFAF88C1C3550245A19CE3BD91D3DC0BE616778","3305311F4A0FAAFEABD001D324906748B18FB24A"],"artwork":null}"#
    );
    let read = Doc::<Playlist>::from_slice(stored.as_bytes()).unwrap();
    assert_eq!(read.body(), &playlist());
    assert_eq!(
        read.key().as_str(),
        "playlist::003c6f65641a4c9a8e5e41c947086cae"
    );
    assert_eq!(
        read.tracks[0].key().as_str(),
        "track::9FFAF88C1C3550245A19CE3BD91D3DC0BE616778"
    );

    // As the seed prints it: a dashed id reads too, and is written back without dashes.
    let seed = stored.replace(
        "003c6f65641a4c9a8e5e41c947086cae",
        "003c6f65-641a-4c9a-8e5e-41c947086cae",
    );
    assert_eq!(
        Doc::<Playlist>::from_slice(seed.as_bytes())
            .unwrap()
            .to_vec()
            .unwrap(),
        stored.as_bytes()
    );
}

#[test]
fn an_id_that_is_not_a_key_part_is_refused_with_its_text() {
    let stored = written(playlist()).replace("copilotmarks61569", "a::b");
    let err = Doc::<Playlist>::from_slice(stored.as_bytes()).unwrap_err();
    assert!(matches!(err, Error::Codec { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains(r#"the id "a::b" is not one of `userprofile`"#),
        "{err}"
    );
    let err =
        Doc::<Playlist>::from_slice(written(playlist()).replace("003c6f65641a", "zz").as_bytes())
            .unwrap_err();
    assert!(
        err.to_string()
            .contains(r#""zz4c9a8e5e41c947086cae" is not a UUID"#),
        "{err}"
    );
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "rating", schema = "1.0", key = "rating::{track}::{username}")]
struct Rating {
    track: String,
    username: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "review", schema = "1.0", key = "review::{id}")]
struct Review {
    id: u64,
    #[serde(with = "docmodel::ref_id")]
    rating: Ref<Rating>,
}

#[test]
fn a_model_whose_key_has_two_parts_has_no_bare_id() {
    let review = Review {
        id: 1,
        rating: Rating::key("3305311F", "joe").unwrap().into(),
    };
    let err = Doc::new(review).unwrap().to_vec().unwrap_err();
    assert!(
        err.to_string().contains(
            "a `Ref<rating>` cannot be stored as a bare id: its key template `rating::{track}::{username}` has \
             2 parts, not one"
        ),
        "{err}"
    );
    let err =
        Doc::<Review>::from_slice(br#"{"_type":"review","_schema":"1.0","id":1,"rating":"joe"}"#)
            .unwrap_err();
    assert!(err.to_string().contains("has 2 parts, not one"), "{err}");
}
