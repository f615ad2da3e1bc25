//! How many bytes the seeds' documents take under each of docmodel's size options: the figures of the README's
//! "Smaller documents" section.
//!
//! Each document is the seed's own (the Couchbase data-modeling guide's `userProfile` and `playlist`), stored by
//! a model without options and by the same model with one option or all of them. The bytes are those
//! `Doc::to_vec` writes, envelope included.
//!
//! Run with `cargo run -p more-examples --example size`.

use docmodel::uuid::Uuid;
use docmodel::{Doc, DocModel, Ref, Timestamp};
use serde::{Deserialize, Serialize};

/// The seeds' times: the profile's `created` and `updated`, the playlist's.
const CREATED: &str = "2015-01-28T13:50:56Z";
const UPDATED: &str = "2015-08-25T10:29:16Z";

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Phone {
    #[serde(rename = "type")]
    kind: String,
    number: String,
}

/// The seed's `userProfile` (its "Object Arrays" form), as one model per option: the macro writes each with the
/// attributes given. `skip_empty` needs each field it may leave out to read back without it: here the struct's
/// `#[serde(default)]`.
macro_rules! user_profile {
    ($name:ident, [$($model:tt)*], [$($date:tt)*] $dob:ty) => {
        #[derive(Debug, Clone, Default, Serialize, Deserialize, DocModel)]
        #[docmodel(type = "userProfile", schema = "1.0", key = "userProfile::{username}")]
        #[docmodel($($model)*)]
        #[serde(rename_all = "camelCase", default)]
        struct $name {
            username: String,
            title: String,
            first_name: String,
            last_name: String,
            gender: String,
            $($date)*
            date_of_birth: $dob,
            email: String,
            phones: Vec<Phone>,
            pwd: String,
            status: String,
        }

        impl From<Profile> for $name {
            fn from(p: Profile) -> Self {
                $name {
                    username: p.username,
                    title: p.title,
                    first_name: p.first_name,
                    last_name: p.last_name,
                    gender: p.gender,
                    date_of_birth: Date::from_date(p.date_of_birth),
                    email: p.email,
                    phones: p.phones,
                    pwd: p.pwd,
                    status: p.status,
                }
            }
        }
    };
}

user_profile!(PlainProfile, [], [] Option<String>);
user_profile!(SkipEmptyProfile, [skip_empty], [] Option<String>);
user_profile!(
    EpochSecondsProfile,
    [envelope(timestamps = "epoch_s")],
    [] Option<String>
);
user_profile!(EpochDayProfile, [], [#[serde(with = "docmodel::timestamp::epoch_day::option")]] Option<Timestamp>);
user_profile!(
    SmallestProfile,
    [skip_empty, envelope(timestamps = "epoch_s")],
    [#[serde(with = "docmodel::timestamp::epoch_day::option")]] Option<Timestamp>
);

/// A date of birth as a model stores it: the seed's `"1986-06-09"`, or a `Timestamp` (its day since the epoch).
trait Date {
    fn from_date(date: Option<Timestamp>) -> Self;
}

impl Date for Option<Timestamp> {
    fn from_date(date: Option<Timestamp>) -> Self {
        date
    }
}

impl Date for Option<String> {
    fn from_date(date: Option<Timestamp>) -> Self {
        date.map(|date| {
            let [year, month, day, ..] = date.to_components();
            format!("{year:04}-{month:02}-{day:02}")
        })
    }
}

/// The profile's values, whatever model stores them.
#[derive(Clone)]
struct Profile {
    username: String,
    title: String,
    first_name: String,
    last_name: String,
    gender: String,
    date_of_birth: Option<Timestamp>,
    email: String,
    phones: Vec<Phone>,
    pwd: String,
    status: String,
}

/// The seed's profile, every field filled in.
fn seed_profile() -> Profile {
    Profile {
        username: "copilotmarks61569".into(),
        title: "Mr".into(),
        first_name: "Andy".into(),
        last_name: "Bowman".into(),
        gender: "male".into(),
        date_of_birth: Timestamp::parse_iso8601("1986-06-09T00:00:00Z"),
        email: "andy.bowman@games.com".into(),
        phones: vec![Phone {
            kind: "cell".into(),
            number: "212-771-1834".into(),
        }],
        pwd: "636f6c6f7261646f".into(),
        status: "active".into(),
    }
}

/// The same profile as a sign-up form leaves it: no title, gender, date of birth or phone yet.
fn new_profile() -> Profile {
    Profile {
        title: String::new(),
        gender: String::new(),
        date_of_birth: None,
        phones: Vec::new(),
        ..seed_profile()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(type = "track", schema = "1.0", key = "track::{id}")]
struct Track {
    id: String,
}

/// The seed's `playlist` whose tracks are references ("Store key to lookup/join"), one model per option.
macro_rules! playlist {
    ($name:ident, [$($model:tt)*], [$($id:tt)*], [$($owner:tt)*], [$($tracks:tt)*]) => {
        #[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
        #[docmodel(type = "playlist", schema = "1.0", key = "playlist::{id}")]
        #[docmodel($($model)*)]
        struct $name {
            $($id)*
            id: Uuid,
            name: String,
            $($owner)*
            owner: Ref<PlainProfile>,
            $($tracks)*
            tracks: Vec<Ref<Track>>,
        }

        impl From<PlaylistValues> for $name {
            fn from(p: PlaylistValues) -> Self {
                $name { id: p.id, name: p.name, owner: p.owner, tracks: p.tracks }
            }
        }
    };
}

playlist!(PlainPlaylist, [], [], [], []);
playlist!(
    SimpleUuidPlaylist,
    [],
    [#[serde(with = "docmodel::uuid_simple")]],
    [],
    []
);
playlist!(
    BareIdPlaylist,
    [],
    [],
    [#[serde(with = "docmodel::ref_id")]],
    [#[serde(with = "docmodel::ref_id::vec")]]
);
playlist!(
    SmallestPlaylist,
    [envelope(timestamps = "epoch_s")],
    [#[serde(with = "docmodel::uuid_simple")]],
    [#[serde(with = "docmodel::ref_id")]],
    [#[serde(with = "docmodel::ref_id::vec")]]
);

#[derive(Clone)]
struct PlaylistValues {
    id: Uuid,
    name: String,
    owner: Ref<PlainProfile>,
    tracks: Vec<Ref<Track>>,
}

fn seed_playlist() -> PlaylistValues {
    let track = |id: &str| Ref::from(Track::key(id).expect("a track id"));
    PlaylistValues {
        id: "003c6f65-641a-4c9a-8e5e-41c947086cae"
            .parse()
            .expect("a UUID"),
        name: "Eclectic Summer Mix".into(),
        owner: PlainProfile::key("copilotmarks61569")
            .expect("a username")
            .into(),
        tracks: vec![
            track("9FFAF88C1C3550245A19CE3BD91D3DC0BE616778"),
            track("3305311F4A0FAAFEABD001D324906748B18FB24A"),
            track("0EB4939F29669774A19B276E60F0E7B47E7EAF58"),
        ],
    }
}

/// The bytes `body` is stored in, created and modified at the seed's times.
fn stored<T: DocModel + Serialize + serde::de::DeserializeOwned>(body: T) -> String {
    let mut doc = Doc::new(body).expect("a valid body");
    doc.envelope_mut().created = Timestamp::parse_iso8601(CREATED);
    doc.envelope_mut().modified = Timestamp::parse_iso8601(UPDATED);
    let bytes = doc.to_vec().expect("a document");
    let text = String::from_utf8(bytes).expect("JSON is UTF-8");
    // What is written reads back.
    Doc::from_slice_at(doc.key().clone(), text.as_bytes()).expect("the document reads back");
    text
}

/// One row: the option, its bytes and its saving against `base`.
fn row(document: &str, option: &str, base: &str, json: &str) {
    let saving = base.len() - json.len();
    println!(
        "| {document} | {option} | {} | {saving} | {:.1}% |",
        json.len(),
        100.0 * saving as f64 / base.len() as f64
    );
}

fn main() {
    let verbose = std::env::args().any(|arg| arg == "--json");
    println!("| document | option | bytes | saved | saved % |");
    println!("|---|---|---|---|---|");
    for (document, profile) in [
        ("user (seed, full)", seed_profile()),
        ("user (new sign-up)", new_profile()),
    ] {
        let base = stored(PlainProfile::from(profile.clone()));
        let rows = [
            ("none", base.clone()),
            (
                "`skip_empty`",
                stored(SkipEmptyProfile::from(profile.clone())),
            ),
            (
                "`envelope(timestamps = \"epoch_s\")`",
                stored(EpochSecondsProfile::from(profile.clone())),
            ),
            (
                "date of birth as `epoch_day`, not `\"1986-06-09\"`",
                stored(EpochDayProfile::from(profile.clone())),
            ),
            ("all three", stored(SmallestProfile::from(profile))),
        ];
        for (option, json) in &rows {
            row(document, option, &base, json);
            if verbose {
                println!("{json}");
            }
        }
    }
    let playlist = seed_playlist();
    let base = stored(PlainPlaylist::from(playlist.clone()));
    let rows = [
        ("none", base.clone()),
        (
            "`uuid_simple` id",
            stored(SimpleUuidPlaylist::from(playlist.clone())),
        ),
        (
            "`ref_id` owner and tracks",
            stored(BareIdPlaylist::from(playlist.clone())),
        ),
        (
            "both, and `epoch_s`",
            stored(SmallestPlaylist::from(playlist)),
        ),
    ];
    for (option, json) in &rows {
        row("playlist (seed)", option, &base, json);
        if verbose {
            println!("{json}");
        }
    }
}
