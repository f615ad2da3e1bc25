//! The sample documents printed in the seeds, read as they are (no schema field, other spellings of the type,
//! no type at all, times without a zone, a body field named as the envelope's counter) and written back in
//! docmodel's envelope. Each test names the seed and the section its documents come from; where the printed
//! JSON is not valid JSON (a trailing comma, a document split across two code blocks), the test says what
//! was mended.
//!
//! The User 1.0 -> 2.0 -> 3.0 documents of "Document Management Strategies" are in `tests/suite/migrate.rs`.
//!
//! Each section reads its documents on a `MemoryStore` (the reading is the same on every store);
//! `seeds/catalogue.rs` loads every document the seeds print into MemoryStore, Redb and CouchDB, finds each as
//! stored, and writes it in its model's form with one `migrate_all`.

use docmodel::store::{MemoryStore, Store};
use docmodel::{DocModel, Error, JsonObject, MigrationError, Repo, Timestamp};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

async fn store_with(key: &str, document: &str) -> MemoryStore {
    let store = MemoryStore::new();
    store.insert(key, document.as_bytes()).await.unwrap();
    store
}

async fn stored(store: &MemoryStore, key: &str) -> Value {
    serde_json::from_str(&docmodel_tests::text(store, key).await.unwrap()).unwrap()
}

fn at(text: &str) -> Timestamp {
    Timestamp::parse_iso8601(text).unwrap()
}

// ---------------------------------------------------------------------------------------------------------
// Data Modeling Guide, "Objects vs. Object Arrays": a user profile of type `userProfile`, no schema field,
// `created` and `updated` without a zone, `phones` as one object in the first form and an array in the second.
// (The first form is printed split across two code blocks; it is joined here.)

const PROFILE_AS_OBJECT: &str = r#"{
  "type": "userProfile",
  "created": "2015-01-28T13:50:56",
  "dateOfBirth": "1986-06-09",
  "email": "andy.bowman@games.com",
  "firstName": "Andy",
  "gender": "male",
  "lastName": "Bowman",
  "phones": {
    "number": "212-771-1834",
    "type": "cell"
  },
  "pwd": "636f6c6f7261646f",
  "status": "active",
  "title": "Mr",
  "updated": "2015-08-25T10:29:16",
  "username": "copilotmarks61569"
}"#;

const PROFILE_AS_ARRAY: &str = r#"{
  "type": "userProfile",
  "created": "2015-01-28T13:50:56",
  "dateOfBirth": "1986-06-09",
  "email": "andy.bowman@games.com",
  "firstName": "Andy",
  "gender": "male",
  "lastName": "Bowman",
  "phones": [
    {
      "number": "212-771-1834",
      "type": "cell"
    }
  ],
  "pwd": "636f6c6f7261646f",
  "status": "active",
  "title": "Mr",
  "updated": "2015-08-25T10:29:16",
  "username": "copilotmarks61569"
}"#;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Phone {
    number: String,
    #[serde(rename = "type")]
    kind: String,
}

/// The profile as the team now writes it: type `userprofile`, phones always a list (schema 2.0).
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(
    type = "userprofile",
    aliases("userProfile", "UserProfile"),
    schema = "2.0"
)]
#[docmodel(key = "userprofile::{username}", unversioned = "1.0")]
#[docmodel(migrate_from("1.0" = phones_to_list))]
#[docmodel(envelope(
    layout = "plain",
    timestamps = "iso8601",
    zoneless = "utc",
    names(modified = "updated")
))]
struct UserProfile {
    #[docmodel(get)]
    username: String,
    first_name: String,
    last_name: String,
    email: String,
    date_of_birth: String,
    phones: Vec<Phone>,
    status: String,
}

/// 1.0 -> 2.0: a profile's one phone object becomes a list of one (a list stays as it is).
fn phones_to_list(doc: &mut JsonObject) -> Result<(), MigrationError> {
    if let Some(phone @ Value::Object(_)) = doc.get_mut("phones") {
        *phone = Value::Array(vec![phone.take()]);
    }
    Ok(())
}

#[tokio::test]
async fn the_guides_user_profiles_read_under_their_old_type_and_write_back_as_the_model_does() {
    for (form, document) in [("object", PROFILE_AS_OBJECT), ("array", PROFILE_AS_ARRAY)] {
        let key = "userprofile::copilotmarks61569";
        let store = store_with(key, document).await;
        let repo = Repo::<UserProfile>::new(&store);
        let mut doc = repo
            .get(&UserProfile::key("copilotmarks61569").unwrap())
            .await
            .unwrap_or_else(|err| panic!("the {form} form: {err}"))
            .unwrap();
        assert_eq!(
            doc.migrated_from().map(|v| v.to_string()),
            Some("1.0".into())
        );
        assert_eq!(
            doc.phones,
            [Phone {
                number: "212-771-1834".into(),
                kind: "cell".into()
            }],
            "{form}"
        );
        assert_eq!(doc.envelope().created, Some(at("2015-01-28T13:50:56Z")));
        assert_eq!(doc.envelope().modified, Some(at("2015-08-25T10:29:16Z")));
        doc.status = "inactive".into();
        repo.save(&mut doc).await.unwrap();
        let written = stored(&store, key).await;
        assert_eq!(written["type"], "userprofile", "the canonical type");
        assert_eq!(written["schema"], "2.0");
        assert_eq!(written["ver"], 2);
        assert_eq!(
            written["created"], "2015-01-28T13:50:56.000Z",
            "in UTC, as the model writes"
        );
        assert_eq!(
            written["phones"],
            json!([{"number": "212-771-1834", "type": "cell"}])
        );
        assert_eq!(written["status"], "inactive");
        // Fields the model does not declare are kept as they were.
        assert_eq!(written["gender"], "male");
        assert_eq!(written["pwd"], "636f6c6f7261646f");
        assert_eq!(written["title"], "Mr");
    }
}

#[tokio::test]
async fn a_type_that_is_neither_the_models_nor_an_alias_is_still_refused() {
    let document = PROFILE_AS_ARRAY.replace("\"userProfile\"", "\"user_profile\"");
    let store = store_with("userprofile::copilotmarks61569", &document).await;
    let err = Repo::<UserProfile>::new(&store)
        .get(&UserProfile::key("copilotmarks61569").unwrap())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::WrongType { found: Some(found), .. } if found == "user_profile"),
        "{err:?}"
    );
}

// ---------------------------------------------------------------------------------------------------------
// Data Modeling Guide, "Root Attributes vs. Embedded Attributes": the track with `_type` at the top, a body
// field `ver` holding "1.0", and `created`/`modified` without a zone.

const TRACK: &str = r#"{
  "artist": "Paul Lekakis",
  "created": "2015-08-18T19:57:07",
  "genre": "Hi-NRG",
  "id": "3305311F4A0FAAFEABD001D324906748B18FB24A",
  "mp3": "https://goo.gl/KgKoR7",
  "ver": "1.0",
  "ratings": [
    {
      "created": "2015-08-20T12:24:44",
      "rating": 4,
      "username": "sublimatingraga37014"
    },
    {
      "created": "2015-08-21T09:23:57",
      "rating": 4,
      "username": "untillableshowings34122"
    }
  ],
  "title": "My House",
  "modified": "2015-08-18T19:57:07",
  "_type": "track"
}"#;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Rating {
    created: String,
    rating: u8,
    username: String,
}

/// The track with the envelope's names as the guide writes them, but the revision counter where the
/// document keeps its own `ver`.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "track",
    schema = "1.0",
    key = "track::{id}",
    unversioned = "1.0"
)]
#[docmodel(envelope(
    layout = "plain",
    timestamps = "iso8601",
    zoneless = "utc",
    names(type = "_type", ver = "_rev")
))]
struct Track {
    #[docmodel(get)]
    id: String,
    artist: String,
    title: String,
    genre: String,
    ver: String,
    ratings: Vec<Rating>,
}

/// The same track, with the envelope's counter left at `ver`.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "track",
    schema = "1.0",
    key = "track::{id}",
    unversioned = "1.0"
)]
#[docmodel(envelope(
    layout = "plain",
    timestamps = "iso8601",
    zoneless = "utc",
    names(type = "_type")
))]
struct TrackCountingVer {
    id: String,
    title: String,
}

#[tokio::test]
async fn the_guides_track_reads_once_the_envelopes_counter_moves_off_its_ver() {
    let key = "track::3305311F4A0FAAFEABD001D324906748B18FB24A";
    let store = store_with(key, TRACK).await;

    let err = Repo::<TrackCountingVer>::new(&store)
        .get(&TrackCountingVer::key("3305311F4A0FAAFEABD001D324906748B18FB24A").unwrap())
        .await
        .unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, Error::Codec { .. }), "{err:?}");
    assert!(
        message.contains(
            r#"`ver` = "1.0" is not a revision count: `ver` is the envelope's revision counter"#
        ),
        "{message}"
    );
    assert!(message.contains("names(ver = "), "{message}");

    let repo = Repo::<Track>::new(&store);
    let mut doc = repo
        .get(&Track::key("3305311F4A0FAAFEABD001D324906748B18FB24A").unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(doc.ver, "1.0", "the document's own field");
    assert_eq!(
        doc.envelope().ver,
        1,
        "a document without a counter is its first version"
    );
    assert_eq!(doc.envelope().created, Some(at("2015-08-18T19:57:07Z")));
    assert_eq!(doc.ratings[1].username, "untillableshowings34122");
    doc.genre = "Dance".into();
    repo.save(&mut doc).await.unwrap();
    let written = stored(&store, key).await;
    assert_eq!(written["_type"], "track");
    assert_eq!(written["schema"], "1.0");
    assert_eq!(written["_rev"], 2);
    assert_eq!(written["ver"], "1.0");
    assert_eq!(
        written["modified"].as_str().map(|t| t.ends_with('Z')),
        Some(true)
    );
    assert_eq!(written["mp3"], "https://goo.gl/KgKoR7", "kept as it was");
}

/// The track as a team moving it to CouchDB writes it: the plain layout (`type`, no leading underscore), reading
/// the guide's `_type` as its type.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "track",
    schema = "1.0",
    key = "track::{id}",
    unversioned = "1.0"
)]
#[docmodel(envelope(
    layout = "plain",
    timestamps = "iso8601",
    zoneless = "utc",
    names(ver = "revision"),
    legacy_names(type = "_type")
))]
struct PlainTrack {
    #[docmodel(get)]
    id: String,
    artist: String,
    title: String,
    genre: String,
    ver: String,
    ratings: Vec<Rating>,
}

#[tokio::test]
async fn the_guides_track_reads_its_legacy_type_name_and_is_written_under_the_models() {
    use docmodel::{Adoption, Query};

    let key = "track::3305311F4A0FAAFEABD001D324906748B18FB24A";
    let store = store_with(key, TRACK).await;
    let tracks = Repo::<PlainTrack>::new(&store);
    let doc = tracks
        .get(&PlainTrack::key("3305311F4A0FAAFEABD001D324906748B18FB24A").unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (
            doc.artist.as_str(),
            doc.title.as_str(),
            doc.genre.as_str(),
            doc.ver.as_str()
        ),
        ("Paul Lekakis", "My House", "Hi-NRG", "1.0")
    );
    assert_eq!(doc.envelope().modified, Some(at("2015-08-18T19:57:07Z")));

    // Found and counted as stored, by a filter on the body and on the envelope.
    let hi_nrg = PlainTrack::fields().genre.eq("Hi-NRG");
    let page = tracks.find(&Query::new(hi_nrg.clone())).await.unwrap();
    assert_eq!(page.docs.len(), 1);
    let since = PlainTrack::fields()
        .envelope()
        .created
        .ge(at("2015-01-01T00:00:00Z"));
    assert_eq!(tracks.count(&since).await.unwrap(), 1);

    // One run writes it in the model's form: `type`, never `_type`.
    let report = tracks.migrate_all().rewrite_adopted(true).await.unwrap();
    assert_eq!(
        report.adopted.get(&Adoption::LegacyNames),
        Some(&1),
        "{report:?}"
    );
    let written = stored(&store, key).await;
    assert_eq!(written["type"], "track");
    assert_eq!(written.get("_type"), None);
    assert_eq!(written["schema"], "1.0");
    assert_eq!(written["revision"], 2);
    assert_eq!(written["ver"], "1.0");
    assert_eq!(written["created"], "2015-08-18T19:57:07.000Z");
    assert_eq!(tracks.count(&hi_nrg).await.unwrap(), 1);

    // A document holding the type under both names is refused, naming both.
    let both = TRACK.replace(
        r#""_type": "track""#,
        r#""_type": "track", "type": "track""#,
    );
    let store = store_with(key, &both).await;
    let err = Repo::<PlainTrack>::new(&store)
        .get(&PlainTrack::key("3305311F4A0FAAFEABD001D324906748B18FB24A").unwrap())
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Codec { .. }), "{err:?}");
    assert!(
        err.to_string().contains(
            "duplicate field `type`: the document holds it under `type` or its legacy name `_type` twice, \
             or under both"
        ),
        "{err}"
    );
}

/// The guide's track in its root-attribute form: `track` holds the rest.
const ROOT_TRACK: &str = r#"{
  "track": {
    "artist": "Paul Lekakis",
    "created": "2015-08-18T19:57:07",
    "genre": "Hi-NRG",
    "id": "3305311F4A0FAAFEABD001D324906748B18FB24A",
    "mp3": "https://goo.gl/KgKoR7",
    "ver": "1.0",
    "ratings": [
      {
        "created": "2015-08-20T12:24:44",
        "rating": 4,
        "username": "sublimatingraga37014"
      },
      {
        "created": "2015-08-21T09:23:57",
        "rating": 4,
        "username": "untillableshowings34122"
      }
    ],
    "title": "My House",
    "modified": "2015-08-18T19:57:07"
  }
}"#;

/// The track with the root attribute: the `root` layout.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "track",
    schema = "1.0",
    key = "track::{id}",
    unversioned = "1.0"
)]
#[docmodel(envelope(
    layout = "root",
    timestamps = "iso8601",
    zoneless = "utc",
    names(ver = "revision")
))]
struct RootTrack {
    #[docmodel(get)]
    id: String,
    artist: String,
    title: String,
    genre: String,
    ver: String,
    ratings: Vec<Rating>,
}

#[tokio::test]
async fn the_guides_root_attribute_track_reads_and_is_written_under_its_root() {
    use docmodel::{Adoption, Query};

    let key = "track::3305311F4A0FAAFEABD001D324906748B18FB24A";
    let store = store_with(key, ROOT_TRACK).await;
    let tracks = Repo::<RootTrack>::new(&store);
    let mut doc = tracks
        .get(&RootTrack::key("3305311F4A0FAAFEABD001D324906748B18FB24A").unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (
            doc.artist.as_str(),
            doc.title.as_str(),
            doc.genre.as_str(),
            doc.ver.as_str()
        ),
        ("Paul Lekakis", "My House", "Hi-NRG", "1.0")
    );
    assert_eq!(doc.ratings[0].username, "sublimatingraga37014");
    assert_eq!(doc.envelope().created, Some(at("2015-08-18T19:57:07Z")));
    assert_eq!(doc.envelope().ver, 1);

    // Found and counted by body and envelope fields, under the root attribute.
    let hi_nrg = RootTrack::fields().genre.eq("Hi-NRG");
    let page = tracks.find(&Query::new(hi_nrg.clone())).await.unwrap();
    assert_eq!(page.docs.len(), 1);
    assert_eq!(page.docs[0].title, "My House");
    let since = RootTrack::fields()
        .envelope()
        .created
        .ge(at("2015-01-01T00:00:00Z"));
    assert_eq!(tracks.count(&since).await.unwrap(), 1);
    assert_eq!(
        tracks
            .count(&RootTrack::fields().genre.eq("Pop"))
            .await
            .unwrap(),
        0
    );

    // A save writes the model's envelope inside the root attribute, the unknown `mp3` kept there.
    doc.genre = "Dance".into();
    tracks.save(&mut doc).await.unwrap();
    let written = stored(&store, key).await;
    let object = written.as_object().unwrap();
    assert_eq!(object.keys().collect::<Vec<_>>(), ["track"]);
    let track = &written["track"];
    assert_eq!(track["schema"], "1.0");
    assert_eq!(track["revision"], 2);
    assert_eq!(track["created"], "2015-08-18T19:57:07.000Z");
    assert_eq!(track["genre"], "Dance");
    assert_eq!(track["ver"], "1.0");
    assert_eq!(track["mp3"], "https://goo.gl/KgKoR7");
    assert_eq!(track.get("type"), None, "the root attribute is the type");
    assert_eq!(tracks.count(&hi_nrg).await.unwrap(), 0);

    // Another type's root is that type, named; two root attributes are refused, naming the second.
    let album = ROOT_TRACK.replacen("\"track\"", "\"album\"", 1);
    let store = store_with(key, &album).await;
    let err = Repo::<RootTrack>::new(&store)
        .get(&RootTrack::key("3305311F4A0FAAFEABD001D324906748B18FB24A").unwrap())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::WrongType { found: Some(found), .. } if found == "album"),
        "{err:?}"
    );
    let two = format!(
        "{}, \"x\": 1}}",
        ROOT_TRACK.strip_suffix('}').unwrap_or_default()
    );
    let store = store_with(key, &two).await;
    let err = Repo::<RootTrack>::new(&store)
        .get(&RootTrack::key("3305311F4A0FAAFEABD001D324906748B18FB24A").unwrap())
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains(
            "a document of the `root` layout holds one top-level attribute, its type `track`; this one holds \
             `x` too"
        ),
        "{err}"
    );

    // A run over the guide's document writes it in the model's form.
    let store = store_with(key, ROOT_TRACK).await;
    let tracks = Repo::<RootTrack>::new(&store);
    let report = tracks.migrate_all().rewrite_adopted(true).await.unwrap();
    assert_eq!(
        report.adopted.get(&Adoption::Unversioned),
        Some(&1),
        "{report:?}"
    );
    let written = stored(&store, key).await;
    assert_eq!(written["track"]["schema"], "1.0");
}

// ---------------------------------------------------------------------------------------------------------
// Document Modeling Basics, "1:1 Relationships": a user and its session, "documents that are implicitly
// referencing each other" through their keys. The session's body does not repeat the email its key holds.

const MAX: &str = r#"{
  "type": "user",
  "first_name": "Max",
  "last_name": "Mustermann",
  "email": "mmustermann@domain.com"
}"#;

const MAX_SESSION: &str = r#"{
  "type": "session",
  "source": "web",
  "token": "123456"
}"#;

#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "user",
    schema = "1.0",
    key = "user::{email}",
    unversioned = "1.0"
)]
#[docmodel(envelope(layout = "plain"))]
struct BasicUser {
    #[docmodel(get)]
    email: String,
    first_name: String,
    last_name: String,
}

/// The session: its `email` is the key's, kept out of the body.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "session",
    schema = "1.0",
    key = "session::{email}",
    unversioned = "1.0"
)]
#[docmodel(envelope(layout = "plain"))]
struct Session {
    #[docmodel(get, from_key)]
    #[serde(skip)]
    email: String,
    source: String,
    token: String,
}

#[tokio::test]
async fn the_session_takes_its_email_from_its_key_as_the_guides_pair_does() {
    use docmodel::Query;

    let store = MemoryStore::new();
    store
        .insert("user::mmustermann@domain.com", MAX.as_bytes())
        .await
        .unwrap();
    store
        .insert("session::mmustermann@domain.com", MAX_SESSION.as_bytes())
        .await
        .unwrap();
    let users = Repo::<BasicUser>::new(&store);
    let sessions = Repo::<Session>::new(&store);

    let max = users
        .get(&BasicUser::key("mmustermann@domain.com").unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (max.first_name.as_str(), max.last_name.as_str()),
        ("Max", "Mustermann")
    );
    // The user's session is under the key its email gives.
    let mut session = sessions
        .get(&Session::key(max.email()).unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (
            session.email(),
            session.source.as_str(),
            session.token.as_str()
        ),
        ("mmustermann@domain.com", "web", "123456")
    );

    // Found by a body field, with the part filled from each key.
    let web = sessions
        .find(&Query::new(Session::fields().source.eq("web")))
        .await
        .unwrap();
    assert_eq!(web.docs.len(), 1);
    assert_eq!(web.docs[0].email(), "mmustermann@domain.com");

    // Written back without the email, in the model's envelope.
    session.token = "654321".into();
    sessions.save(&mut session).await.unwrap();
    let written = stored(&store, "session::mmustermann@domain.com").await;
    assert_eq!(
        written,
        json!({
            "type": "session", "schema": "1.0", "ver": 2, "modified": written["modified"],
            "source": "web", "token": "654321",
        })
    );

    // A new session is stored under its email, which its body leaves out.
    sessions
        .insert(Session {
            email: "erika@domain.com".into(),
            source: "app".into(),
            token: "777".into(),
        })
        .await
        .unwrap();
    let written = stored(&store, "session::erika@domain.com").await;
    assert_eq!(written.get("email"), None);
    assert_eq!(written["source"], "app");

    // Read from bytes, the key is given.
    let bytes = store
        .get("session::erika@domain.com")
        .await
        .unwrap()
        .unwrap()
        .bytes;
    let read =
        docmodel::Doc::from_slice_at(Session::key("erika@domain.com").unwrap(), &bytes).unwrap();
    assert_eq!(read.email(), "erika@domain.com");
}

// ---------------------------------------------------------------------------------------------------------
// Data Modeling Guide, "Array element complexity and use": a playlist whose tracks are keys in one form and
// summaries in the other.

const PLAYLIST_OF_KEYS: &str = r#"{
  "created": "2014-12-04T03:36:18",
  "id": "003c6f65-641a-4c9a-8e5e-41c947086cae",
  "name": "Eclectic Summer Mix",
  "owner": "copilotmarks61569",
  "type": "playlist",
  "tracks": [
    "9FFAF88C1C3550245A19CE3BD91D3DC0BE616778",
    "3305311F4A0FAAFEABD001D324906748B18FB24A",
    "0EB4939F29669774A19B276E60F0E7B47E7EAF58"
  ],
  "updated": "2015-09-11T10:39:40"
}"#;

const PLAYLIST_OF_SUMMARIES: &str = r#"{
  "created": "2014-12-04T03:36:18",
  "id": "003c6f65-641a-4c9a-8e5e-41c947086cae",
  "name": "Eclectic Summer Mix",
  "owner": "copilotmarks61569",
  "type": "playlist",
  "tracks": [
    {
      "id": "9FFAF88C1C3550245A19CE3BD91D3DC0BE616778",
      "title": "Buddha Nature",
      "artist": "Deuter",
      "genre": "Experimental Electronic"
    },
    {
      "id": "3305311F4A0FAAFEABD001D324906748B18FB24A",
      "title": "Bluebird Canyon Stomp",
      "artist": "Beaver & Krause",
      "genre": "Experimental Electronic"
    }
  ],
  "updated": "2015-09-11T10:39:40"
}"#;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
enum PlaylistTrack {
    Key(String),
    Summary {
        id: String,
        title: String,
        artist: String,
        genre: String,
    },
}

impl PlaylistTrack {
    fn id(&self) -> &str {
        match self {
            PlaylistTrack::Key(id) | PlaylistTrack::Summary { id, .. } => id,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "playlist",
    schema = "1.0",
    key = "playlist::{id}",
    unversioned = "1.0"
)]
#[docmodel(envelope(
    layout = "plain",
    timestamps = "iso8601",
    zoneless = "utc",
    names(modified = "updated")
))]
struct Playlist {
    #[docmodel(get)]
    id: String,
    name: String,
    owner: String,
    tracks: Vec<PlaylistTrack>,
}

#[tokio::test]
async fn the_guides_playlists_read_in_both_forms() {
    let key = "playlist::003c6f65-641a-4c9a-8e5e-41c947086cae";
    for (document, tracks) in [(PLAYLIST_OF_KEYS, 3), (PLAYLIST_OF_SUMMARIES, 2)] {
        let store = store_with(key, document).await;
        let repo = Repo::<Playlist>::new(&store);
        let mut doc = repo
            .get(&Playlist::key("003c6f65-641a-4c9a-8e5e-41c947086cae").unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(doc.tracks.len(), tracks);
        assert_eq!(
            doc.tracks[1].id(),
            "3305311F4A0FAAFEABD001D324906748B18FB24A"
        );
        assert_eq!(doc.migrated_from(), None, "1.0 is the current schema");
        assert_eq!(doc.envelope().modified, Some(at("2015-09-11T10:39:40Z")));
        doc.name = "Summer Mix".into();
        repo.save(&mut doc).await.unwrap();
        let written = stored(&store, key).await;
        assert_eq!(written["schema"], "1.0", "written once read");
        assert_eq!(written["tracks"].as_array().map(Vec::len), Some(tracks));
        assert_eq!(written["created"], "2014-12-04T03:36:18.000Z");
    }
}

// ---------------------------------------------------------------------------------------------------------
// Data Modeling Guide, "Embedding and Referencing": Steve's order, with the customer embedded in one form and
// referred to by email in the other. Neither has a type or a schema field. (Both are printed with a trailing
// comma and split across code blocks, and the embedded form's items are cut; they are mended here.)

const ORDER_EMBEDDED: &str = r#"{
  "orderID": 200,
  "customer": {
    "name": "Steve Rothery",
    "address": "11-21 Paul Street",
    "city": "London"
  },
  "products": [
    {
      "itemCode": "RedTShirt",
      "itemName": "Red Couchbase t-shirt",
      "supplier": "Lovely t-shirt company",
      "location": "warehouse 1, aisle 3, location 4",
      "quantityOrdered": 3
    },
    {
      "itemCode": "USB",
      "supplier": "Memorysticks Foreva",
      "itemName": "Black 8GB USB stick with red Couchbase logo",
      "location": "warehouse 1, aisle 42, location 12",
      "quantityOrder": 51
    }
  ],
  "status": "paid"
}"#;

const ORDER_REFERRING: &str = r#"{
  "orderId": 200,
  "customer": "steve@gmail.com",
  "products": [
    {
      "itemCode": "RedTShirt",
      "quantityOrdered": 3
    },
    {
      "itemCode": "USB",
      "quantityOrder": 51
    }
  ],
  "status": "paid"
}"#;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
enum Customer {
    Email(String),
    Embedded {
        name: String,
        address: String,
        city: String,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Item {
    item_code: String,
    // The guide spells it both ways.
    #[serde(alias = "quantityOrder")]
    quantity_ordered: u32,
}

/// The team's order: docmodel's default envelope, adopting documents with no type and no schema.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(type = "order", schema = "1.0", key = "order::{order_id}")]
#[docmodel(
    unversioned = "1.0",
    untyped = "accept",
    revisions = 3,
    index = "status"
)]
struct Order {
    #[docmodel(get)]
    #[serde(rename = "orderID", alias = "orderId")]
    order_id: u64,
    customer: Customer,
    products: Vec<Item>,
    status: String,
}

#[tokio::test]
async fn the_guides_orders_have_no_type_and_no_schema_and_read_by_key() {
    for document in [ORDER_EMBEDDED, ORDER_REFERRING] {
        let store = store_with("order::200", document).await;
        let repo = Repo::<Order>::new(&store).clock(|| Timestamp::from_millis(1_000));
        let mut doc = repo.get(&Order::key(200)).await.unwrap().unwrap();
        assert_eq!(doc.products[1].quantity_ordered, 51);
        assert_eq!(
            doc.envelope().created,
            None,
            "the guide's orders say nothing of it"
        );
        doc.status = "picked".into();
        repo.save(&mut doc).await.unwrap();
        let written = stored(&store, "order::200").await;
        assert_eq!(written["_type"], "order");
        assert_eq!(written["_schema"], "1.0");
        assert_eq!(written["_ver"], 2);
        assert_eq!(written["_modified"], 1_000);
        assert_eq!(written["orderID"], 200);
        assert_eq!(written["status"], "picked");
        assert!(
            written.get("orderId").is_none(),
            "written under the model's name"
        );
    }
    // Adopted, then kept as any order: the index built after it was stored holds it, its version before
    // adoption is its first revision copy, and saves go on.
    let store = store_with("order::200", ORDER_REFERRING).await;
    let repo = Repo::<Order>::new(&store);
    repo.ensure_indexes().await.unwrap();
    let f = Order::fields();
    let paid = docmodel::Query::new(f.status.eq("paid"));
    assert_eq!(
        repo.find(&paid).await.unwrap().docs.len(),
        1,
        "found as stored, before any save"
    );
    // A save that leaves the indexed value as it was keeps it found.
    repo.update(&Order::key(200), |order| {
        order.products[0].quantity_ordered = 4
    })
    .await
    .unwrap();
    assert_eq!(repo.find(&paid).await.unwrap().docs.len(), 1);
    let picked = docmodel::Query::new(f.status.eq("picked"));
    for status in ["picked", "shipped", "picked"] {
        repo.update(&Order::key(200), |order| order.status = status.into())
            .await
            .unwrap();
    }
    let found = repo.find(&picked).await.unwrap();
    assert_eq!(found.docs.len(), 1);
    assert_eq!(found.docs[0].envelope().ver, 5);
    let revisions = repo.revisions(&Order::key(200)).await.unwrap();
    let statuses: Vec<(u64, &str)> = revisions
        .iter()
        .map(|doc| (doc.envelope().ver, doc.status.as_str()))
        .collect();
    assert_eq!(statuses, [(4, "shipped"), (3, "picked"), (2, "paid")]);
    // The version before adoption was kept as copy 1 and, the window being 3, pruned by the fourth save.
    assert_eq!(docmodel_tests::text(&store, "order::200::v::1").await, None);
    // A typed document of another model under the key is still not the order's.
    let store = store_with(
        "order::200",
        r#"{"_type":"invoice","_schema":"1.0","orderID":200,"customer":"x","products":[],"status":"paid"}"#,
    )
    .await;
    let err = Repo::<Order>::new(&store)
        .get(&Order::key(200))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::WrongType { .. }), "{err:?}");
}

/// Without `unversioned` and `untyped`, the same documents are refused as they were, naming what is missing.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(type = "order", schema = "1.0", key = "order::{order_id}")]
struct StrictOrder {
    #[serde(rename = "orderID", alias = "orderId")]
    order_id: u64,
    status: String,
}

#[tokio::test]
async fn without_the_options_the_guides_orders_are_refused_as_before() {
    let store = store_with("order::200", ORDER_REFERRING).await;
    let err = Repo::<StrictOrder>::new(&store)
        .get(&StrictOrder::key(200))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::WrongType { found: None, .. }),
        "{err:?}"
    );
    let typed = ORDER_REFERRING.replacen('{', r#"{"_type": "order","#, 1);
    let store = store_with("order::200", &typed).await;
    let err = Repo::<StrictOrder>::new(&store)
        .get(&StrictOrder::key(200))
        .await
        .unwrap_err();
    assert!(matches!(&err, Error::MissingSchema { .. }), "{err:?}");
}

// ---------------------------------------------------------------------------------------------------------
// Data Modeling Guide, "Timestamp Format": one country with `updated` as ISO-8601 text without a zone, as a
// component array, and in epoch milliseconds; and the beer documents' "2010-07-22 20:00:20" (a space for
// the `T`), from "Document Structure".

#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(
    type = "country",
    schema = "1.0",
    key = "country::{country_code}",
    unversioned = "1.0"
)]
#[docmodel(envelope(layout = "plain", zoneless = "utc", names(modified = "updated")))]
struct Country {
    #[docmodel(get)]
    country_code: String,
    name: String,
    gdp: u64,
    region: String,
    #[serde(rename = "region-number")]
    region_number: u32,
    #[serde(rename = "sub-region")]
    sub_region: String,
}

/// The same country in a model that says nothing of zones.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(
    type = "country",
    schema = "1.0",
    key = "country::{country_code}",
    unversioned = "1.0"
)]
#[docmodel(envelope(layout = "plain", names(modified = "updated")))]
struct ZonelessRefused {
    country_code: String,
}

fn country(updated: &str) -> String {
    format!(
        r#"{{
  "countryCode": "US",
  "type": "country",
  "gdp": 53548,
  "name": "United States of America",
  "region": "Americas",
  "region-number": 21,
  "sub-region": "Northern America",
  "updated": {updated}
}}"#
    )
}

#[tokio::test]
async fn the_guides_three_timestamp_forms_read_as_one_instant() {
    let instant = at("2010-07-15T15:34:27Z");
    for updated in [
        r#""2010-07-15T15:34:27""#,
        "[ 2010, 7, 15, 15, 34, 27 ]",
        "1279208067000",
        r#""2010-07-15T17:34:27+02:00""#,
        r#""2010-07-15T15:34:27.000000Z""#,
    ] {
        let store = store_with("country::US", &country(updated)).await;
        let repo = Repo::<Country>::new(&store).clock(|| Timestamp::from_millis(0));
        let mut doc = repo
            .get(&Country::key("US").unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(doc.envelope().modified, Some(instant), "{updated}");
        assert_eq!(doc.region_number, 21);
        // Written back in the model's format, epoch milliseconds.
        doc.gdp += 1;
        repo.save(&mut doc).await.unwrap();
        assert_eq!(
            stored(&store, "country::US").await["updated"],
            0,
            "the save's own time"
        );
    }
    let store = store_with("country::US", &country(r#""2010-07-22 20:00:20""#)).await;
    let doc = Repo::<Country>::new(&store)
        .get(&Country::key("US").unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(doc.envelope().modified, Some(at("2010-07-22T20:00:20Z")));
}

#[tokio::test]
async fn a_time_in_a_form_the_model_does_not_read_names_the_field_and_shows_the_value() {
    for (updated, expected) in [
        (
            r#""2010-07-15T15:34:27""#,
            r#"the timestamp `updated` = "2010-07-15T15:34:27" has no zone; to read such times, say which zone they were written in: `#[docmodel(envelope(zoneless = "utc"))]`"#,
        ),
        (
            "[2010, 7, 15, 15, 34, 27]",
            "the timestamp `updated` = [2010, 7, 15, 15, 34, 27] has no zone",
        ),
    ] {
        let store = store_with("country::US", &country(updated)).await;
        let err = Repo::<ZonelessRefused>::new(&store)
            .get(&ZonelessRefused::key("US").unwrap())
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Codec { .. }), "{err:?}");
        let message = err.to_string();
        assert!(message.contains(expected), "{message}");
        assert!(message.contains("country::US"), "names the key: {message}");
    }
    for (updated, expected) in [
        (
            r#""15/07/2010 15:34""#,
            r#"the timestamp `updated` = "15/07/2010 15:34" is not an ISO-8601 date-time"#,
        ),
        (
            "[2010, 13, 15]",
            "the timestamp `updated` = [2010, 13, 15] is not a date-time",
        ),
        (
            "[2010, 7, 15, 15, 34, 27, 0, 0]",
            "has more than 7 components",
        ),
        (
            r#"[2010, "7", 15]"#,
            "a whole number in the component array of the timestamp `updated`",
        ),
    ] {
        let store = store_with("country::US", &country(updated)).await;
        let err = Repo::<Country>::new(&store)
            .get(&Country::key("US").unwrap())
            .await
            .unwrap_err();
        let message = err.to_string();
        assert!(message.contains(expected), "{updated}: {message}");
    }
}

// ---------------------------------------------------------------------------------------------------------
// Every document above, and the other seeds' (users, the revision example, the `meta` layout, the orders
// keys, the lookup), on MemoryStore, Redb and CouchDB: `seeds/catalogue.rs`.

const PROFILE_KEY: &str = "userprofile::copilotmarks61569";
const PLAYLIST_KEY: &str = "playlist::003c6f65-641a-4c9a-8e5e-41c947086cae";
const TRACK_KEY: &str = "track::3305311F4A0FAAFEABD001D324906748B18FB24A";

#[path = "seeds/catalogue.rs"]
mod catalogue;
