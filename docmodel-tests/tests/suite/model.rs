//! The seed's User model (Couchbase, "Document Management Strategies", schema 3.0): keys, accessors with
//! validation, and the stored JSON in every layout.

use docmodel::{Doc, DocModel, Error, Key, Layout, Timestamp};
use serde::{Deserialize, Serialize};

mod phone {
    use super::Phone;

    /// The seed's business rule: strip every non-digit, then require 10 digits.
    pub fn normalize(phones: Vec<Phone>) -> Result<Vec<Phone>, docmodel::Error> {
        phones
            .into_iter()
            .map(|phone| {
                let number: String = phone.number.chars().filter(char::is_ascii_digit).collect();
                if number.len() != 10 {
                    return Err(docmodel::Error::validation(
                        "phones",
                        format!("{:?} does not have 10 digits", phone.number),
                    ));
                }
                Ok(Phone { number, ..phone })
            })
            .collect()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Phone {
    #[serde(rename = "type")]
    kind: String,
    number: String,
}

impl Phone {
    fn new(kind: &str, number: &str) -> Self {
        Phone {
            kind: kind.into(),
            number: number.into(),
        }
    }
}

/// A registered user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}")]
pub struct User {
    /// The id, fixed at creation.
    #[docmodel(get)]
    user_id: u64,
    #[docmodel(get, set)]
    first_name: String,
    #[docmodel(get, set)]
    last_name: String,
    #[docmodel(get, set(with = phone::normalize), push = add_phone)]
    phones: Vec<Phone>,
}

fn joe() -> User {
    User {
        user_id: 123,
        first_name: "Joe".into(),
        last_name: "Smith".into(),
        phones: vec![Phone::new("mobile", "1234567890")],
    }
}

fn json(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[test]
fn identity_constants() {
    assert_eq!(User::TYPE, "user");
    assert_eq!(User::SCHEMA, docmodel::SchemaVersion::new(3, 0, 0));
    assert_eq!(User::SCHEMA_TEXT, "3.0");
    assert_eq!(User::KEY.pattern(), "user::{user_id}");
    assert_eq!(User::KEY.delimiter(), "::");
    assert_eq!(User::ENVELOPE.layout(), Layout::Flat);
}

#[test]
fn keys_from_parts_from_values_and_from_text() {
    let key: Key<User> = User::key(123);
    assert_eq!(key.as_str(), "user::123");
    assert_eq!(joe().doc_key().unwrap(), key);
    let parsed = Key::<User>::parse("user::123").unwrap();
    assert_eq!(parsed, key);
    assert_eq!(parsed.parts().unwrap(), (123,));
}

#[test]
fn parsing_refuses_keys_of_other_shapes() {
    for (text, reason) in [
        ("user::", "the part `user_id` is empty"),
        ("user::12x", "is not a valid `u64`"),
        ("user::0123", "is not a valid `u64`"),
        ("account::123", "expected `user` where it has `account`"),
        ("user::123::4", "more segments"),
        ("user", "does not match the pattern"),
        ("user:123", "expected `user` where it has `user:123`"),
    ] {
        let err = Key::<User>::parse(text).unwrap_err();
        let Error::InvalidKey {
            model,
            key,
            reason: found,
        } = &err
        else {
            panic!("{text}: {err:?}")
        };
        assert_eq!((*model, key.as_str()), ("user", text));
        assert!(found.contains(reason), "{text}: {err}");
    }
}

#[test]
fn accessors_read_and_write_fields() {
    let mut user = joe();
    assert_eq!(user.user_id(), 123);
    assert_eq!(user.first_name(), "Joe");
    user.set_first_name("Joseph");
    user.set_last_name(String::from("Smyth"));
    assert_eq!((user.first_name(), user.last_name()), ("Joseph", "Smyth"));
    assert_eq!(user.phones(), &[Phone::new("mobile", "1234567890")]);
}

#[test]
fn setters_of_numbers_bools_and_chars_take_literals_as_the_fields_type() {
    #[derive(Serialize, Deserialize, DocModel)]
    #[docmodel(type = "counter", schema = "1.0", key = "counter::{id}")]
    struct Counter {
        id: u64,
        #[docmodel(get, set)]
        count: u64,
        #[docmodel(get, set(with = non_negative))]
        balance: f64,
        #[docmodel(get, set)]
        active: bool,
        #[docmodel(get, set)]
        grade: char,
        #[docmodel(get, set)]
        label: String,
    }

    fn non_negative(value: f64) -> Result<f64, Error> {
        match value >= 0.0 {
            true => Ok(value),
            false => Err(Error::validation("balance", format!("{value} is negative"))),
        }
    }

    let mut counter = Counter {
        id: 1,
        count: 0,
        balance: 0.0,
        active: false,
        grade: 'C',
        label: String::new(),
    };
    counter.set_count(1);
    counter.set_balance(2.5).unwrap();
    counter.set_active(true);
    counter.set_grade('A');
    counter.set_label("first");
    assert_eq!(
        (
            counter.count(),
            counter.balance(),
            counter.active(),
            counter.grade(),
            counter.label()
        ),
        (1, 2.5, true, 'A', "first")
    );
    assert_eq!(
        counter.set_balance(-1.0).unwrap_err().to_string(),
        "invalid value for `balance`: -1 is negative"
    );
    assert_eq!(Counter::key(1).as_str(), "counter::1");
    assert_eq!(counter.doc_key().unwrap(), Counter::key(1));
}

#[test]
fn validated_setter_normalizes_and_refuses() {
    let mut user = joe();
    user.set_phones(vec![Phone::new("home", "(111) 222-3333")])
        .unwrap();
    assert_eq!(user.phones(), &[Phone::new("home", "1112223333")]);

    let err = user
        .set_phones(vec![Phone::new("home", "555-1234")])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"invalid value for `phones`: "555-1234" does not have 10 digits"#
    );
    assert_eq!(
        user.phones(),
        &[Phone::new("home", "1112223333")],
        "a refused value changes nothing"
    );
}

#[test]
fn push_goes_through_the_same_validation() {
    let mut user = joe();
    user.add_phone(Phone::new("work", "111.222.4444")).unwrap();
    assert_eq!(user.phones()[1], Phone::new("work", "1112224444"));

    let err = user.add_phone(Phone::new("fax", "12")).unwrap_err();
    assert!(
        matches!(err, Error::Validation { key: None, .. }),
        "{err:?}"
    );
    assert_eq!(err.field_errors()[0].path(), "phones");
    assert_eq!(user.phones().len(), 2, "a refused element is not added");
}

#[test]
fn writes_the_flat_envelope_first() {
    let mut doc = Doc::new(joe()).unwrap();
    doc.envelope_mut().created = Some(Timestamp::from_millis(1_544_759_124_478));
    doc.envelope_mut().modified = Some(Timestamp::from_millis(1_544_759_200_000));
    assert_eq!(
        json(&doc.to_vec().unwrap()),
        r#"{"_type":"user","_schema":"3.0","_ver":1,"_created":1544759124478,"_modified":1544759200000,"userId":123,"firstName":"Joe","lastName":"Smith","phones":[{"type":"mobile","number":"1234567890"}]}"#
    );
}

#[test]
fn reads_back_what_it_wrote() {
    let mut doc = Doc::new(joe()).unwrap();
    doc.envelope_mut().ver = 7;
    doc.envelope_mut().created = Some(Timestamp::from_millis(1_544_759_124_478));
    let read = Doc::<User>::from_slice(&doc.to_vec().unwrap()).unwrap();
    assert_eq!(read.body(), &joe());
    assert_eq!(read.key().as_str(), "user::123");
    assert_eq!(read.envelope(), doc.envelope());
    assert_eq!(read.unknown_fields().count(), 0);
}

#[test]
fn envelope_fields_may_come_in_any_order() {
    let read = Doc::<User>::from_slice(
        br#"{"userId":5,"firstName":"A","_ver":3,"lastName":"B","phones":[],"_schema":"3.0","_type":"user"}"#,
    )
    .unwrap();
    assert_eq!((read.user_id(), read.envelope().ver), (5, 3));
}

#[test]
fn wrong_type_is_reported_with_what_was_found() {
    let err = Doc::<User>::from_slice(br#"{"_type":"order","_schema":"3.0","_ver":1,"userId":1}"#)
        .unwrap_err();
    assert!(
        matches!(&err, Error::WrongType { field: "_type", expected: "user", found: Some(found), .. } if found == "order"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        r#"document: expected `_type` to be "user", found "order""#
    );

    // The body of another type fails to read first; the envelope still explains why.
    let err =
        Doc::<User>::from_slice(br#"{"orderId":9,"_type":"order","_schema":"1.0"}"#).unwrap_err();
    assert!(
        matches!(&err, Error::WrongType { found: Some(found), .. } if found == "order"),
        "{err:?}"
    );

    let err = Doc::<User>::from_slice(
        br#"{"_schema":"3.0","userId":1,"firstName":"","lastName":"","phones":[]}"#,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"document `user::1`: expected `_type` to be "user", but the document has no `_type` field"#
    );
}

#[test]
fn missing_or_unreadable_schema_is_reported() {
    let body = r#""userId":1,"firstName":"","lastName":"","phones":[]"#;
    let err =
        Doc::<User>::from_slice(format!(r#"{{"_type":"user",{body}}}"#).as_bytes()).unwrap_err();
    assert!(
        matches!(
            err,
            Error::MissingSchema {
                field: "_schema",
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "document `user::1`: the document has no `_schema` field; docmodel cannot tell which schema it follows"
    );

    let err = Doc::<User>::from_slice(
        format!(r#"{{"_type":"user","_schema":"three",{body}}}"#).as_bytes(),
    )
    .unwrap_err();
    assert!(
        matches!(&err, Error::UnsupportedSchema { found, .. } if found == "three"),
        "{err:?}"
    );

    let err =
        Doc::<User>::from_slice(format!(r#"{{"_type":"user","_schema":"4.1",{body}}}"#).as_bytes())
            .unwrap_err();
    assert_eq!(
        err.to_string(),
        "document `user::1`: schema 4.1 is newer than this model's 3.0; upgrade the code that reads it"
    );
    assert!(matches!(err, Error::SchemaTooNew { .. }));

    let err =
        Doc::<User>::from_slice(format!(r#"{{"_type":"user","_schema":"2.0",{body}}}"#).as_bytes())
            .unwrap_err();
    assert!(matches!(err, Error::UnsupportedSchema { .. }), "{err:?}");

    // A same-major older or newer minor reads.
    for schema in ["3.0", "3.1", "3.0.2"] {
        let doc = format!(r#"{{"_type":"user","_schema":"{schema}",{body}}}"#);
        assert!(Doc::<User>::from_slice(doc.as_bytes()).is_ok(), "{schema}");
    }
}

#[test]
fn bad_bytes_are_codec_errors_not_panics() {
    for bytes in [
        &b""[..],
        b"[]",
        b"42",
        b"{",
        b"{\"_type\":\"user\",",
        b"null",
        b"\xff\xfe",
        b"{\"_type\":5}",
    ] {
        let err = Doc::<User>::from_slice(bytes).unwrap_err();
        assert!(
            matches!(err, Error::Codec { .. } | Error::WrongType { .. }),
            "{bytes:?}: {err:?}"
        );
    }
    let err =
        Doc::<User>::from_slice(br#"{"_type":"user","_schema":"3.0","_ver":"one"}"#).unwrap_err();
    // The counter's own message, naming the field and showing the value (issue 12), not serde's.
    assert!(
        err.to_string().contains(
            r#"`_ver` = "one" is not a revision count: `_ver` is the envelope's revision counter"#
        ),
        "{err}"
    );
}

/// JSON is UTF-8: bytes that are not are refused wherever they are (a body field, a field the model does
/// not know), naming the field and the offset where the text breaks.
#[test]
fn a_document_that_is_not_utf8_is_a_codec_error_naming_where() {
    let good = br#"{"_type":"user","_schema":"3.0","userId":1,"firstName":"Jo","lastName":"S","phones":[],"nickname":"jo"}"#;
    assert!(Doc::<User>::from_slice(good).is_ok());
    let text = std::str::from_utf8(good).unwrap();
    for (field, within) in [("firstName", r#""Jo""#), ("nickname", r#""jo""#)] {
        let at = text.find(&format!(r#""{field}":{within}"#)).unwrap() + field.len() + 4;
        let mut bytes = good.to_vec();
        bytes[at] = 0xff;
        let err = Doc::<User>::from_slice(&bytes).unwrap_err();
        let Error::Codec { field: found, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(found.as_deref(), Some(field), "{err}");
        assert!(
            err.to_string().contains(&format!(
                "the document is not UTF-8 text (the bytes at offset {at} form no character)"
            )),
            "{err}"
        );
    }
}

#[test]
fn fields_this_code_does_not_know_are_kept() {
    let stored = br#"{"_type":"user","_schema":"3.1","_ver":2,"userId":1,"nickname":"jo","firstName":"J","lastName":"S","phones":[],"tags":["a",{"b":1}]}"#;
    let doc = Doc::<User>::from_slice(stored).unwrap();
    assert_eq!(
        doc.unknown_fields().collect::<Vec<_>>(),
        [("nickname", r#""jo""#), ("tags", r#"["a",{"b":1}]"#)]
    );
    assert_eq!(
        json(&doc.to_vec().unwrap()),
        r#"{"_type":"user","_schema":"3.1","_ver":2,"userId":1,"firstName":"J","lastName":"S","phones":[],"nickname":"jo","tags":["a",{"b":1}]}"#
    );
}

/// The same user for Sync Gateway: no leading underscores, seconds, and who wrote it.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}")]
#[docmodel(envelope(layout = "plain", timestamps = "epoch_s", created_by, modified_by))]
struct MobileUser {
    user_id: u64,
    first_name: String,
}

#[test]
fn plain_layout_has_no_underscores() {
    let mut doc = Doc::new(MobileUser {
        user_id: 9,
        first_name: "Ann".into(),
    })
    .unwrap();
    let envelope = doc.envelope_mut();
    envelope.created = Some(Timestamp::from_millis(1_544_759_124_478));
    envelope.created_by = Some("admin".into());
    let stored = json(&doc.to_vec().unwrap());
    assert_eq!(
        stored,
        r#"{"type":"user","schema":"3.0","ver":1,"created":1544759124,"createdBy":"admin","userId":9,"firstName":"Ann"}"#
    );
    let read = Doc::<MobileUser>::from_slice(stored.as_bytes()).unwrap();
    assert_eq!(
        read.envelope().created,
        Some(Timestamp::from_millis(1_544_759_124_000)),
        "second precision"
    );
    assert_eq!(read.envelope().created_by.as_deref(), Some("admin"));
}

/// The seed's `"meta": {}` layout with ISO-8601 timestamps and every optional field.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "profile",
    schema = "1.2",
    key = "couchmusic:userprofile:{username}"
)]
#[docmodel(envelope(
    layout = "meta",
    timestamps = "iso8601",
    created_by,
    modified_by,
    accessed,
    geo
))]
struct Profile {
    username: String,
    #[docmodel(get, set)]
    bio: Option<String>,
}

#[test]
fn meta_layout_nests_the_envelope() {
    let mut doc = Doc::new(Profile {
        username: "ann".into(),
        bio: None,
    })
    .unwrap();
    assert_eq!(doc.key().as_str(), "couchmusic:userprofile:ann");
    doc.set_bio("Drummer".to_owned());
    assert_eq!(doc.bio(), Some("Drummer"));
    let envelope = doc.envelope_mut();
    envelope.modified = Some(Timestamp::from_millis(1_544_759_124_478));
    envelope.geo = Some("DE".into());
    let stored = json(&doc.to_vec().unwrap());
    assert_eq!(
        stored,
        r#"{"meta":{"type":"profile","schema":"1.2","ver":1,"modified":"2018-12-14T03:45:24.478Z","geo":"DE"},"username":"ann","bio":"Drummer"}"#
    );
    let read = Doc::<Profile>::from_slice(stored.as_bytes()).unwrap();
    assert_eq!(read.envelope(), doc.envelope());

    let err =
        Doc::<Profile>::from_slice(br#"{"meta":{"type":"user","schema":"1.2"},"username":"x"}"#)
            .unwrap_err();
    assert!(
        matches!(err, Error::WrongType { field: "type", .. }),
        "{err:?}"
    );
}

#[test]
fn string_parts_that_would_change_the_key_are_refused() {
    let err = Profile::key("a:b").unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"invalid key "couchmusic:userprofile:a:b" for type `profile`: the part `username` = "a:b" contains ':', a character of the delimiter ":""#
    );
    let err = Doc::new(Profile {
        username: String::new(),
        bio: None,
    })
    .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidKey { reason, .. } if reason == "the part `username` is empty"),
        "{err}"
    );
}

/// A team's conventions, written once: Sync Gateway-safe names, second precision, `:` keys, a renamed type.
pub struct Acme;

impl docmodel::Conventions for Acme {
    const ENVELOPE: docmodel::EnvelopeSpec = docmodel::EnvelopeSpec::DEFAULT
        .with_layout(Layout::Plain)
        .with_timestamps(docmodel::TimestampFormat::EpochS)
        .keep(docmodel::EnvelopeField::ModifiedBy)
        .rename(docmodel::EnvelopeField::Type, "docType");
    const DELIMITER: Option<&'static str> = Some(":");
}

#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "order", schema = "1.0", key = "order:{order_id}", conventions = Acme)]
struct Order {
    order_id: u64,
    total: u32,
}

/// A model keeps its team's conventions and may add its own options on top.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "invoice", schema = "1.0", key = "invoice:{id}", conventions = Acme)]
#[docmodel(envelope(layout = "meta"))]
struct Invoice {
    id: u64,
}

#[test]
fn conventions_apply_to_every_model_that_names_them() {
    let mut doc = Doc::new(Order {
        order_id: 1001,
        total: 250,
    })
    .unwrap();
    doc.envelope_mut().modified = Some(Timestamp::from_millis(1_544_759_124_478));
    doc.envelope_mut().modified_by = Some("batch".into());
    assert_eq!(
        json(&doc.to_vec().unwrap()),
        r#"{"docType":"order","schema":"1.0","ver":1,"modified":1544759124,"modifiedBy":"batch","order_id":1001,"total":250}"#
    );
    let invoice = Doc::new(Invoice { id: 7 }).unwrap();
    assert_eq!(
        json(&invoice.to_vec().unwrap()),
        r#"{"meta":{"docType":"invoice","schema":"1.0","ver":1},"id":7}"#
    );
}

/// Generic models work; the derive adds no bounds of its own.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "event", schema = "1.0", key = "event::{id}")]
struct Event<P> {
    #[docmodel(get)]
    id: u64,
    #[docmodel(get, set)]
    payload: P,
}

#[test]
fn generic_models() {
    let mut event = Event {
        id: 4,
        payload: vec![1, 2],
    };
    event.set_payload(vec![3]);
    assert_eq!(event.payload(), &vec![3]);
    let doc = Doc::new(event).unwrap();
    assert_eq!(
        json(&doc.to_vec().unwrap()),
        r#"{"_type":"event","_schema":"1.0","_ver":1,"id":4,"payload":[3]}"#
    );
    assert_eq!(Event::<String>::key(4).as_str(), "event::4");
}

mod reexported {
    pub use docmodel as runtime;
}

/// `crate = "..."` names the runtime where a crate re-exports it.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "tag",
    schema = "1.0",
    key = "tag::{name}",
    crate = "reexported::runtime"
)]
struct Tag {
    name: String,
}

#[test]
fn runtime_path_can_be_renamed() {
    assert_eq!(Tag::key("rust").unwrap().as_str(), "tag::rust");
    assert_eq!(
        Tag { name: "x".into() }.doc_key().unwrap().as_str(),
        "tag::x"
    );
}

#[test]
fn duplicate_envelope_fields_are_refused() {
    for stored in [
        r#"{"_type":"admin","_type":"user","_schema":"3.0","userId":1,"firstName":"","lastName":"","phones":[]}"#,
        r#"{"_type":"user","_schema":"3.0","_schema":"2.0","userId":1,"firstName":"","lastName":"","phones":[]}"#,
    ] {
        let err = Doc::<User>::from_slice(stored.as_bytes()).unwrap_err();
        assert!(err.to_string().contains("duplicate field `_"), "{err}");
    }
    let err = Doc::<Profile>::from_slice(
        br#"{"meta":{"type":"profile","schema":"1.2"},"meta":{"x":1},"username":"a"}"#,
    )
    .unwrap_err();
    assert!(err.to_string().contains("duplicate field `meta`"), "{err}");
}

#[test]
fn a_document_without_a_version_is_its_first() {
    let doc = Doc::<User>::from_slice(
        br#"{"_type":"user","_schema":"3.0","userId":1,"firstName":"","lastName":"","phones":[]}"#,
    )
    .unwrap();
    assert_eq!(doc.envelope().ver, 1);
}

/// A field the model writes but never reads back.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "cached", schema = "1.0", key = "cached::{id}")]
struct Cached {
    id: u64,
    #[serde(skip_deserializing)]
    hits: u32,
}

#[test]
fn a_field_the_body_writes_is_not_also_kept_as_unknown() {
    let doc = Doc::<Cached>::from_slice(br#"{"_type":"cached","_schema":"1.0","id":1,"hits":7}"#)
        .unwrap();
    assert_eq!(doc.unknown_fields().count(), 0);
    assert_eq!(
        json(&doc.to_vec().unwrap()),
        r#"{"_type":"cached","_schema":"1.0","_ver":1,"id":1,"hits":0}"#
    );
}

/// A field written under one name and read under another: a model moving a field to a new name.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "renamed", schema = "1.0", key = "renamed::{id}")]
struct Renaming {
    id: u64,
    #[serde(rename(serialize = "title", deserialize = "name"))]
    title: String,
}

#[test]
fn a_field_written_under_a_name_the_body_does_not_read_is_not_kept_as_unknown() {
    let doc = Doc::<Renaming>::from_slice(
        br#"{"_type":"renamed","_schema":"1.0","id":1,"name":"new","title":"old","other":true}"#,
    )
    .unwrap();
    assert_eq!(doc.title, "new");
    // `title` is the body's to write, so only `other` is kept.
    assert_eq!(
        doc.unknown_fields().collect::<Vec<_>>(),
        [("other", "true")]
    );
    assert_eq!(
        json(&doc.to_vec().unwrap()),
        r#"{"_type":"renamed","_schema":"1.0","_ver":1,"id":1,"title":"new","other":true}"#
    );
}

#[test]
fn a_body_whose_key_fields_changed_is_not_written_under_the_old_key() {
    let mut doc = Doc::new(joe()).unwrap();
    doc.user_id = 999;
    let err = doc.to_vec().unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid key \"user::123\" for type `user`: the body's key fields now give `user::999`; a document cannot change its key"
    );
}

#[test]
fn iso_timestamps_stay_within_four_digit_years() {
    let err = Doc::<Profile>::from_slice(
        br#"{"meta":{"type":"profile","schema":"1.2","created":253402300800000},"username":"a"}"#,
    )
    .unwrap_err();
    assert!(err.to_string().contains("is out of range"), "{err}");
    let mut doc = Doc::new(Profile {
        username: "a".into(),
        bio: None,
    })
    .unwrap();
    doc.envelope_mut().created = Some(Timestamp::from_millis(i64::MAX));
    let err = doc.to_vec().unwrap_err();
    assert!(
        err.to_string()
            .contains("outside the years the envelope reads (0000 to 9999)"),
        "{err}"
    );
}

/// Key parts of a generic type get their `KeyPart` bound from the derive.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "keyed", schema = "1.0", key = "keyed::{id}")]
struct Keyed<K> {
    id: K,
}

/// Raw identifiers, and fields named like the generated code's locals, are ordinary fields.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "odd", schema = "1.0", key = "odd::{type}::{__text}::{__out}")]
struct Odd {
    r#type: String,
    __text: u32,
    __out: Code,
    #[docmodel(get, set(with = value))]
    item: String,
    #[docmodel(get, set(with = item), push = add_value)]
    #[docmodel(allow(reserved_word))]
    values: Vec<String>,
}

fn value(text: String) -> Result<String, Error> {
    Ok(text.to_uppercase())
}

fn item(items: Vec<String>) -> Result<Vec<String>, Error> {
    Ok(items.into_iter().map(|text| text.to_lowercase()).collect())
}

/// A newtype key part.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Code(String);

impl docmodel::KeyPart for Code {
    fn write_part(&self, out: &mut String) {
        out.push_str(&self.0);
    }

    fn parse_part(text: &str) -> Option<Self> {
        Some(Code(text.to_owned()))
    }
}

#[test]
fn generated_code_is_hygienic() {
    assert_eq!(Keyed::<u64>::key(&5).unwrap().as_str(), "keyed::5");
    assert_eq!(
        Keyed::<String>::key(&"x".to_owned()).unwrap().as_str(),
        "keyed::x"
    );

    let key = Odd::key("a", 1, &Code("c".into())).unwrap();
    assert_eq!(key.as_str(), "odd::a::1::c");
    assert_eq!(key.parts().unwrap(), ("a".to_owned(), 1, Code("c".into())));
    let mut odd = Odd {
        r#type: "a".into(),
        __text: 1,
        __out: Code("c".into()),
        item: String::new(),
        values: vec![],
    };
    odd.set_item("shout").unwrap();
    odd.add_value("QUIET").unwrap();
    assert_eq!(
        (odd.item(), odd.values()),
        ("SHOUT", &["quiet".to_owned()][..])
    );
    assert_eq!(odd.doc_key().unwrap(), key);
}

/// serde's internal tag is a body name like any other.
#[derive(Serialize, Deserialize, DocModel)]
#[serde(tag = "kind")]
#[docmodel(type = "tagged", schema = "1.0", key = "tagged::{id}")]
struct Tagged {
    id: u64,
}

#[test]
fn a_serde_tag_is_written_beside_the_envelope() {
    let doc = Doc::new(Tagged { id: 1 }).unwrap();
    let stored = doc.to_vec().unwrap();
    assert_eq!(
        json(&stored),
        r#"{"_type":"tagged","_schema":"1.0","_ver":1,"kind":"Tagged","id":1}"#
    );
    assert_eq!(Doc::<Tagged>::from_slice(&stored).unwrap().id, 1);
}

/// `bound` replaces the derive's own where-clause predicates.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "tagged",
    schema = "1.0",
    key = "tagged::{id}",
    bound = "K: docmodel::KeyPart + 'static"
)]
struct Bounded<K> {
    id: K,
}

#[test]
fn bounds_can_be_written_by_hand() {
    assert_eq!(Bounded::<u32>::key(&7).unwrap().as_str(), "tagged::7");
}

#[test]
fn the_envelope_is_reported_before_trailing_bytes() {
    let body = r#""userId":1,"firstName":"","lastName":"","phones":[]"#;
    let read = |stored: String| Doc::<User>::from_slice(stored.as_bytes()).unwrap_err();
    let err = read(format!(r#"{{"_type":"order","_schema":"3.0",{body}}} x"#));
    assert!(
        matches!(&err, Error::WrongType { found: Some(found), .. } if found == "order"),
        "{err:?}"
    );
    let err = read(format!(r#"{{"_type":"user","_schema":"9.0",{body}}} x"#));
    assert!(matches!(err, Error::SchemaTooNew { .. }), "{err:?}");
    let err = read(format!(r#"{{"_type":"user","_schema":"3.0",{body}}} x"#));
    assert!(
        matches!(&err, Error::Codec { .. }) && err.to_string().contains("trailing characters"),
        "{err}"
    );
}

/// The seed's order with dates in the body: a `Timestamp` needs no serde module of the user's own.
#[derive(Debug, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "order",
    schema = "1.0",
    key = "order::{id}",
    envelope(timestamps = "epoch_s")
)]
struct DatedOrder {
    id: u64,
    placed: Timestamp,
    #[serde(with = "docmodel::timestamp::epoch_day")]
    due: Timestamp,
    #[serde(with = "docmodel::timestamp::iso8601::option")]
    shipped: Option<Timestamp>,
}

#[test]
fn body_timestamps_are_written_in_their_own_form_beside_the_envelopes() {
    let at = Timestamp::from_millis(1_544_759_124_478);
    let mut doc = Doc::new(DatedOrder {
        id: 7,
        placed: at,
        due: at,
        shipped: None,
    })
    .unwrap();
    doc.envelope_mut().created = Some(at);
    let written = String::from_utf8(doc.to_vec().unwrap()).unwrap();
    assert_eq!(
        written,
        r#"{"_type":"order","_schema":"1.0","_ver":1,"_created":1544759124,"id":7,"placed":1544759124478,"due":17879,"shipped":null}"#
    );
    let shipped = written.replace("null", r#""2018-12-15T09:00:00+01:00""#);
    let read = Doc::<DatedOrder>::from_slice(shipped.as_bytes()).unwrap();
    assert_eq!(read.body().placed, at);
    assert_eq!(read.body().due, Timestamp::from_millis(17_879 * 86_400_000));
    assert_eq!(
        read.body().shipped.map(|t| t.to_string()).as_deref(),
        Some("2018-12-15T08:00:00.000Z")
    );
    let err =
        Doc::<DatedOrder>::from_slice(written.replace("1544759124478", "\"yesterday\"").as_bytes())
            .unwrap_err();
    assert!(
        matches!(&err, Error::Codec { .. })
            && err
                .to_string()
                .contains(r#"the timestamp "yesterday" is not an ISO-8601 date-time"#),
        "{err}"
    );
}

/// A model derived by path, the trait not in scope: what the derive emits names the trait itself.
mod derived_by_path {
    #[derive(Debug, serde::Serialize, serde::Deserialize, docmodel::DocModel)]
    #[docmodel(type = "tag", aliases("Tag"), schema = "2.0", key = "tag::{name}")]
    #[docmodel(unversioned = "1.0", migrate_from("1.0" = same), revisions = 2)]
    #[docmodel(lookup = "tag_label::{label}", index = "label")]
    pub struct Tag {
        #[docmodel(get)]
        pub name: String,
        #[docmodel(get, set)]
        pub label: String,
    }

    fn same(_: &mut docmodel::JsonObject) -> Result<(), docmodel::MigrationError> {
        Ok(())
    }

    #[test]
    fn its_key_and_fields_are_there() {
        let key = Tag::key("rust").unwrap();
        assert_eq!(key.as_str(), "tag::rust");
        let mut tag = Tag {
            name: "rust".into(),
            label: "Rust".into(),
        };
        tag.set_label("The Rust language");
        assert_eq!(tag.label(), "The Rust language");
    }
}

/// `collection = "..."` names the Couchbase collection of the model's documents; without it, none.
#[test]
fn a_model_names_its_collection() {
    #[derive(Serialize, Deserialize, DocModel)]
    #[docmodel(
        type = "member",
        schema = "1.0",
        key = "member::{id}",
        collection = "members"
    )]
    struct Member {
        id: u64,
    }
    assert_eq!(Member::COLLECTION, Some("members"));
    assert_eq!(<User as DocModel>::COLLECTION, None);
}

/// The field a failed read names: the path from the top of the body to the value that did not read, in each
/// layout, whatever the text's whitespace; none for the body itself (a field missing from it, which serde's
/// message names) or for the envelope, which has messages of its own.
mod failed_reads {
    use super::{Phone, User};
    use docmodel::{Doc, DocModel, Error};
    use serde::{Deserialize, Serialize};

    #[derive(Debug, Serialize, Deserialize, DocModel)]
    #[docmodel(type = "contact", schema = "1.0", key = "contact::{id}")]
    #[docmodel(envelope(layout = "meta", timestamps = "iso8601"))]
    struct Contact {
        id: u64,
        phones: Vec<Phone>,
    }

    #[derive(Debug, Serialize, Deserialize, DocModel)]
    #[docmodel(type = "card", schema = "1.0", key = "card::{id}")]
    #[docmodel(envelope(layout = "root"))]
    struct Card {
        id: u64,
        phones: Vec<Phone>,
    }

    fn field<T: DocModel + docmodel::KeyInBody + serde::de::DeserializeOwned + std::fmt::Debug>(
        stored: &str,
        message: &str,
    ) -> Option<String> {
        let err = Doc::<T>::from_slice(stored.as_bytes()).unwrap_err();
        assert!(err.to_string().contains(message), "{stored}: {err}");
        let Error::Codec { field, .. } = err else {
            panic!("{stored}: {err:?}")
        };
        field
    }

    #[test]
    fn in_the_flat_layout() {
        let user = |rest: &str| {
            format!(r#"{{"_type":"user","_schema":"3.0","userId":1,"firstName":"J",{rest}}}"#)
        };
        let cases = [
            (r#""phones":[]"#, None, "missing field `lastName`"),
            (
                r#""lastName":"S","phones":[{"type":"m"}]"#,
                Some("phones[0]"),
                "missing field `number`",
            ),
            (
                r#""lastName":"S","phones":[{"type":"m","number":"1"},{"type":"w","number":5}]"#,
                Some("phones[1].number"),
                "invalid type: integer `5`, expected a string",
            ),
            (
                r#""lastName":"S","phones":{"type":"m"}"#,
                Some("phones"),
                "invalid type: map, expected a sequence",
            ),
            (
                r#""lastName":false,"phones":[]"#,
                Some("lastName"),
                "invalid type: boolean `false`, expected a string",
            ),
        ];
        for (rest, path, message) in cases {
            let stored = user(rest);
            assert_eq!(field::<User>(&stored, message).as_deref(), path, "{stored}");
            // The same over lines.
            let value: serde_json::Value = serde_json::from_str(&stored).unwrap();
            let pretty = serde_json::to_string_pretty(&value).unwrap();
            assert_eq!(field::<User>(&pretty, message).as_deref(), path, "{pretty}");
        }
    }

    #[test]
    fn in_the_meta_and_root_layouts() {
        let contact = r#"{"meta":{"type":"contact","schema":"1.0"},"id":1,"phones":[{"type":"m","number":[]}]}"#;
        let message = "invalid type: sequence, expected a string";
        assert_eq!(
            field::<Contact>(contact, message).as_deref(),
            Some("phones[0].number")
        );
        let card = r#"{"card":{"schema":"1.0","id":1,"phones":[{"type":"m","number":[]}]}}"#;
        assert_eq!(
            field::<Card>(card, message).as_deref(),
            Some("phones[0].number")
        );
        let card = r#"{"card":{"schema":"1.0","phones":[]}}"#;
        assert_eq!(field::<Card>(card, "missing field `id`"), None);
    }
}
