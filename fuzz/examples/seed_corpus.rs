//! Writes the seed corpus, `fuzz/corpus/<target>/<name>`: the documents and keys of docmodel-tests (the seeds'
//! user at 1.0, 2.0 and 3.0, each layout, `Presence`, `skip_empty`, unknown fields) and those the models here
//! write. The corpus is checked in; run this after changing it:
//! `cargo run --manifest-path fuzz/Cargo.toml --example seed_corpus`.

use std::collections::BTreeMap;
use std::path::Path;

use docmodel::uuid::Uuid;
use docmodel::{Doc, DocModel, Presence, Timestamp};
use docmodel_fuzz::models::*;
use serde::Serialize;

const V1: &str =
    r#"{"_type":"user","_schema":"1.0","userId":123,"name":"Joe Smith","phone":"1234567890"}"#;
const V2: &str = r#"{"_type":"user","_schema":"2.0","userId":123,"firstName":"Joe","lastName":"Smith","phone":"1234567890"}"#;
const V3: &str = r#"{"_type":"user","_schema":"3.0","userId":123,"firstName":"Joe","lastName":"Smith","phones":[{"type":"other","number":"1234567890"}]}"#;
const UNKNOWN: &str = r#"{"_type":"user","_schema":"3.1","_ver":2,"userId":1,"nickname":"jo","firstName":"J","lastName":"S","phones":[],"tags":["a",{"b":1}]}"#;
const V1_UNKNOWN: &str = r#"{"_type":"user","_schema":"1.0","userId":123,"loyalty":{"tier":"gold","since":[2019,4]},"tags":["a","b"],"name":"Joe Smith","phone":"1234567890"}"#;
const MOBILE: &str = r#"{"type":"user","schema":"3.0","ver":1,"created":1544759124,"createdBy":"admin","userId":9,"firstName":"Ann"}"#;
const META: &str = r#"{"meta":{"type":"profile","schema":"1.2","ver":1,"modified":"2018-12-14T03:45:24.478Z","geo":"DE"},"username":"ann","bio":"Drummer"}"#;
const META_UNKNOWN: &str = r#"{"meta":{"type":"profile","schema":"1.2","ver":3,"created":"2018-12-14T03:45:24+01:00","accessed":"2018-12-14T03:45:24.478123Z","origin":"sg"},"username":"ann","bio":null,"likes":[1,2]}"#;
const NOTE: &str =
    r#"{"docType":"note","schema":"1.0","ver":1,"ctime":17000,"modified":17001,"id":5,"text":"x"}"#;
const COUNTRY_V1: &str =
    r#"{"_type":"country","_schema":"1.0","code":"US","geocode":"","regions":"CA,MX,"}"#;
const COUNTRY: &str = r#"{"_type":"country","_schema":"2.0","_ver":1,"code":"US","geocode":null,"regionCodes":["CA"]}"#;
const SKIP: &str = r#"{"_type":"user","_schema":"1.0","userId":7,"middleName":null,"phones":[],"social":{"x":""},"geocode":"","logins":0}"#;

fn write(target: &str, name: &str, bytes: &[u8]) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(target);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(name), bytes).unwrap();
}

fn written<T: DocModel + Serialize>(body: T) -> Vec<u8> {
    let mut doc = Doc::new(body).unwrap();
    let envelope = doc.envelope_mut();
    envelope.ver = 4;
    envelope.created = Some(Timestamp::from_millis(1_544_759_124_478));
    envelope.modified = Some(Timestamp::from_millis(1_544_759_200_000));
    doc.to_vec().unwrap()
}

fn main() {
    let documents: Vec<(&str, Vec<u8>)> = vec![
        ("user-1.0", V1.into()),
        ("user-2.0", V2.into()),
        ("user-3.0", V3.into()),
        ("user-3.1-unknown", UNKNOWN.into()),
        ("user-1.0-unknown", V1_UNKNOWN.into()),
        ("plain-epoch-s", MOBILE.into()),
        ("meta-iso8601", META.into()),
        ("meta-unknown", META_UNKNOWN.into()),
        ("plain-renamed", NOTE.into()),
        ("country-1.0", COUNTRY_V1.into()),
        ("country-2.0", COUNTRY.into()),
        ("skip-empty", SKIP.into()),
        (
            "skip-empty-written",
            written(SkipProfile {
                user_id: 7,
                first_name: "Ann".into(),
                middle_name: None,
                phones: vec!["1".into()],
                social: BTreeMap::from([("x".into(), "@ann".into())]),
                geocode: Presence::Value("DE".into()),
                logins: 2,
                retries: 0,
            }),
        ),
        (
            "session",
            written(Session {
                id: Uuid::parse_str("003c6f65-641a-4c9a-8e5e-41c947086cae").unwrap(),
                owner: "ann".into(),
            }),
        ),
        (
            "member-lookup",
            written(Member {
                username: "max".into(),
                no: 42,
            }),
        ),
        (
            "domain-user",
            written(DomainUser {
                domain: "foo.org".into(),
                id: 12345,
            }),
        ),
        (
            "rating",
            written(Rating {
                track: "t1".into(),
                username: "ann".into(),
                stars: 5,
            }),
        ),
    ];
    for (name, bytes) in &documents {
        write("from_slice", name, bytes);
    }
    for (name, bytes) in documents.iter().filter(|(name, _)| {
        [
            "user-1.0-unknown",
            "user-3.1-unknown",
            "meta-unknown",
            "plain-renamed",
            "country-1.0",
            "member-lookup",
        ]
        .contains(name)
    }) {
        write("store_roundtrip", name, bytes);
    }

    // The migrate target's input: a byte picking the schema (see `SCHEMAS`), then the rest of the object.
    let rest = |stored: &str| {
        let after_schema = stored.split_once(r#""_schema":""#).unwrap().1;
        after_schema.split_once(r#"","#).unwrap().1.to_owned()
    };
    for (name, pick, stored) in [
        ("user-1.0", 0u8, V1),
        ("user-2.0", 1, V2),
        ("user-3.0", 2, V3),
        ("user-1.0-unknown", 0, V1_UNKNOWN),
        ("user-3.1-unknown", 5, UNKNOWN),
        ("country-1.0", 16, COUNTRY_V1),
        ("country-2.0", 17, COUNTRY),
    ] {
        let mut input = vec![pick];
        input.extend_from_slice(rest(stored).as_bytes());
        write("migrate", name, &input);
    }

    for (name, key) in [
        ("user", "user::123"),
        ("domain-user", "user::foo.org::12345"),
        ("reading", "abc-readings-5"),
        ("rating", "rating::t1::ann"),
        ("stamp", "stamp:1:2:-3"),
        ("profile", "couchmusic:userprofile:ann"),
        ("session", "session::003c6f65641a4c9a8e5e41c947086cae"),
        ("parts", "foo.org\n12345"),
        ("delimiters", "user:::x::1"),
    ] {
        write("key_parse", name, key.as_bytes());
    }
}
