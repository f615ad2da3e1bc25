//! Schema evolution, the seed's scenario ("Document Management Strategies", Schema Versioning): User 1.0
//! (`name`, `phone`) -> 2.0 (`firstName`, `lastName`, `phone`) -> 3.0 (`phones`), read as one 3.0 model.

use docmodel::{Doc, DocModel, Error, JsonObject, MigrationError, SchemaVersion};
use docmodel_tests::seeds::{Phone, UserV2, phone_to_phones, split_name};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The seed's User at 3.0, with both steps in the list form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}")]
#[docmodel(migrate_from("1.0" = split_name, "2.0" = phone_to_phones))]
pub struct User {
    user_id: u64,
    first_name: String,
    last_name: String,
    phones: Vec<Phone>,
}

const V1: &str =
    r#"{"_type":"user","_schema":"1.0","userId":123,"name":"Joe Smith","phone":"1234567890"}"#;
const V2: &str = r#"{"_type":"user","_schema":"2.0","userId":123,"firstName":"Joe","lastName":"Smith","phone":"1234567890"}"#;
const V3: &str = r#"{"_type":"user","_schema":"3.0","userId":123,"firstName":"Joe","lastName":"Smith","phones":[{"type":"other","number":"1234567890"}]}"#;
const WRITTEN: &str = r#"{"_type":"user","_schema":"3.0","_ver":1,"userId":123,"firstName":"Joe","lastName":"Smith","phones":[{"type":"other","number":"1234567890"}]}"#;

fn joe() -> User {
    User {
        user_id: 123,
        first_name: "Joe".into(),
        last_name: "Smith".into(),
        phones: vec![Phone {
            kind: "other".into(),
            number: "1234567890".into(),
        }],
    }
}

#[test]
fn the_three_seed_documents_read_as_one_user_and_write_schema_3() {
    for (stored, from) in [
        (V1, Some(SchemaVersion::new(1, 0, 0))),
        (V2, Some(SchemaVersion::new(2, 0, 0))),
        (V3, None),
    ] {
        let doc = Doc::<User>::from_slice(stored.as_bytes()).unwrap();
        assert_eq!(doc.body(), &joe(), "{stored}");
        assert_eq!(doc.migrated_from(), from, "{stored}");
        assert_eq!(
            String::from_utf8(doc.to_vec().unwrap()).unwrap(),
            WRITTEN,
            "{stored}"
        );
    }
}

#[test]
fn fields_no_version_knows_come_through_the_steps_and_are_written_back() {
    let stored = V1.replace(
        r#""userId":123"#,
        r#""userId":123,"loyalty":{"tier":"gold","since":[2019,4]},"tags":["a","b"]"#,
    );
    let doc = Doc::<User>::from_slice(stored.as_bytes()).unwrap();
    assert_eq!(doc.migrated_from(), Some(SchemaVersion::new(1, 0, 0)));
    assert_eq!(doc.body(), &joe());
    let mut kept: Vec<(&str, Value)> = doc
        .unknown_fields()
        .map(|(name, raw)| (name, serde_json::from_str(raw).unwrap()))
        .collect();
    kept.sort_by_key(|(name, _)| *name);
    assert_eq!(
        kept,
        [
            ("loyalty", json!({"tier": "gold", "since": [2019, 4]})),
            ("tags", json!(["a", "b"])),
        ]
    );
    let mut written: Value = serde_json::from_str(WRITTEN).unwrap();
    written["loyalty"] = json!({"tier": "gold", "since": [2019, 4]});
    written["tags"] = json!(["a", "b"]);
    assert_eq!(
        serde_json::from_slice::<Value>(&doc.to_vec().unwrap()).unwrap(),
        written
    );
}

#[test]
fn a_migrated_document_that_breaks_the_models_json_names_the_field() {
    fn drops_last_name(doc: &mut JsonObject) -> Result<(), MigrationError> {
        phone_to_phones(doc)?;
        doc.remove("lastName");
        Ok(())
    }
    #[derive(Debug, Serialize, Deserialize, DocModel)]
    #[serde(rename_all = "camelCase")]
    #[docmodel(type = "user", schema = "3.0", key = "user::{user_id}", migrate_from("2.0" = drops_last_name))]
    struct Careless {
        user_id: u64,
        last_name: String,
        phones: Vec<Phone>,
    }
    let err = Doc::<Careless>::from_slice_at(Careless::key(123), V2.as_bytes()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "document `user::123`: migrating from schema 2.0 to 3.0 failed: the migrated document does not read \
         as the current model"
    );
    let causes: Vec<String> =
        std::iter::successors(std::error::Error::source(&err), |cause| cause.source())
            .map(ToString::to_string)
            .collect();
    assert!(
        causes
            .iter()
            .any(|cause| cause.contains("missing field `lastName`")),
        "{causes:?}"
    );
}

#[test]
fn steps_see_the_envelope_and_the_runtime_writes_the_schema() {
    fn check_envelope(doc: &mut JsonObject) -> Result<(), MigrationError> {
        // The step sees the document as stored at its version, envelope included.
        match doc.get("_schema") {
            Some(Value::String(schema)) if schema == "1.0" => split_name(doc),
            other => Err(MigrationError::new(format!("saw schema {other:?}"))),
        }
    }
    #[derive(Debug, Serialize, Deserialize, DocModel)]
    #[serde(rename_all = "camelCase")]
    #[docmodel(type = "user", schema = "2.0", key = "user::{user_id}", migrate_from = "1.0" = check_envelope)]
    struct UserV2 {
        user_id: u64,
        first_name: String,
    }
    let doc = Doc::<UserV2>::from_slice(V1.as_bytes()).unwrap();
    assert_eq!(doc.first_name, "Joe");
}

/// The card form, one step per occurrence, gives the same chain.
#[derive(Debug, PartialEq, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}")]
#[docmodel(migrate_from = "1.0" = split_name)]
#[docmodel(migrate_from = "2.0" = phone_to_phones)]
struct CardUser {
    user_id: u64,
    first_name: String,
    last_name: String,
    phones: Vec<Phone>,
}

#[test]
fn card_form_is_the_same_chain() {
    assert_eq!(
        format!("{:?}", CardUser::MIGRATIONS),
        format!("{:?}", User::MIGRATIONS)
    );
    assert_eq!(
        format!("{:?}", User::MIGRATIONS),
        "[1.0 = split_name (json), 2.0 = phone_to_phones (json)]"
    );
    let doc = Doc::<CardUser>::from_slice(V1.as_bytes()).unwrap();
    assert_eq!((doc.first_name.as_str(), doc.phones.len()), ("Joe", 1));
}

/// A typed step: 3.0 read from the 2.0 model with `TryFrom`, which refuses an empty phone.
#[derive(Debug, PartialEq, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}", migrate_from("2.0" = UserV2))]
struct TypedUser {
    user_id: u64,
    first_name: String,
    last_name: String,
    phones: Vec<Phone>,
}

#[derive(Debug, thiserror::Error)]
#[error("user {0} has no phone")]
struct NoPhone(u64);

impl TryFrom<UserV2> for TypedUser {
    type Error = NoPhone;

    fn try_from(old: UserV2) -> Result<Self, NoPhone> {
        if old.phone.is_empty() {
            return Err(NoPhone(old.user_id));
        }
        Ok(TypedUser {
            user_id: old.user_id,
            first_name: old.first_name,
            last_name: old.last_name,
            phones: vec![Phone {
                kind: "other".into(),
                number: old.phone,
            }],
        })
    }
}

#[test]
fn typed_steps_read_the_older_model_with_its_own_chain() {
    for (stored, from) in [
        (V1, SchemaVersion::new(1, 0, 0)),
        (V2, SchemaVersion::new(2, 0, 0)),
    ] {
        let doc = Doc::<TypedUser>::from_slice(stored.as_bytes()).unwrap();
        assert_eq!(doc.migrated_from(), Some(from));
        assert_eq!(String::from_utf8(doc.to_vec().unwrap()).unwrap(), WRITTEN);
    }
    let no_phone = V2.replace("1234567890", "");
    let err =
        Doc::<TypedUser>::from_slice_at(TypedUser::key(123), no_phone.as_bytes()).unwrap_err();
    let Error::Migration {
        key,
        from,
        to,
        source,
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(
        (key.as_deref(), from.as_str(), to.as_str()),
        (Some("user::123"), "2.0", "3.0")
    );
    assert!(source.to_string().contains("converting"), "{source}");
    assert_eq!(
        std::error::Error::source(source)
            .map(ToString::to_string)
            .as_deref(),
        Some("user 123 has no phone")
    );
}

/// A field the older model does not know, stored under a name the current model writes (a 2.0 user with a
/// stray `phones`): the conversion says what `phones` holds, as the JSON chain's `insert` does, and the field
/// is written once, so the document reads back.
#[test]
fn a_field_the_older_model_kept_that_the_current_one_writes_is_the_conversions() {
    let stored = V2.replace(
        r#""userId":123"#,
        r#""userId":123,"phones":"","nickname":"JJ""#,
    );
    let typed = Doc::<TypedUser>::from_slice(stored.as_bytes()).unwrap();
    let json = Doc::<User>::from_slice(stored.as_bytes()).unwrap();
    let mut expected: Value = serde_json::from_str(WRITTEN).unwrap();
    expected["nickname"] = json!("JJ");
    for written in [typed.to_vec().unwrap(), json.to_vec().unwrap()] {
        let text = String::from_utf8(written).unwrap();
        assert_eq!(text.matches(r#""phones""#).count(), 1, "{text}");
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), expected);
        let again = Doc::<TypedUser>::from_slice(text.as_bytes()).unwrap();
        assert_eq!(again.body(), typed.body());
    }
    assert_eq!(
        typed.unknown_fields().collect::<Vec<_>>(),
        [("nickname", r#""JJ""#)]
    );
}

/// A chain that mixes both kinds: a JSON step up to an older model that converts with `From`.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "2.0", key = "user::{user_id}")]
pub struct PlainV2 {
    user_id: u64,
    first_name: String,
    last_name: String,
    phone: String,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}")]
#[docmodel(migrate_from("1.0" = split_name, "2.0" = PlainV2))]
struct MixedUser {
    user_id: u64,
    first_name: String,
    last_name: String,
    phones: Vec<Phone>,
}

impl From<PlainV2> for MixedUser {
    fn from(old: PlainV2) -> Self {
        let phones = vec![Phone {
            kind: "other".into(),
            number: old.phone,
        }];
        MixedUser {
            user_id: old.user_id,
            first_name: old.first_name,
            last_name: old.last_name,
            phones,
        }
    }
}

#[test]
fn mixed_chains_run_json_steps_up_to_a_typed_one() {
    let doc = Doc::<MixedUser>::from_slice(V1.as_bytes()).unwrap();
    assert_eq!(
        (doc.first_name.as_str(), doc.phones[0].number.as_str()),
        ("Joe", "1234567890")
    );
    assert_eq!(doc.migrated_from(), Some(SchemaVersion::new(1, 0, 0)));
}

#[test]
fn a_failing_step_names_the_key_and_the_versions_and_changes_nothing() {
    let stored =
        r#"{"_type":"user","_schema":"1.0","userId":123,"fullName":"Joe Smith","phone":"1"}"#;
    let err = Doc::<User>::from_slice_at(User::key(123), stored.as_bytes()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "document `user::123`: migrating from schema 1.0 to 2.0 failed: the field `name` is missing"
    );
    let Error::Migration { from, to, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!((from.as_str(), to.as_str()), ("1.0", "2.0"));
}

#[test]
fn a_chain_that_does_not_reach_the_current_model_is_a_migration_error() {
    fn forgets_phones(_: &mut JsonObject) -> Result<(), MigrationError> {
        Ok(())
    }
    #[derive(Debug, Serialize, Deserialize, DocModel)]
    #[serde(rename_all = "camelCase")]
    #[docmodel(type = "user", schema = "3.0", key = "user::{user_id}", migrate_from("2.0" = forgets_phones))]
    struct Forgetful {
        user_id: u64,
        phones: Vec<Phone>,
    }
    let err = Doc::<Forgetful>::from_slice(V2.as_bytes()).unwrap_err();
    assert!(
        matches!(&err, Error::Migration { from, .. } if from == "2.0"),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains("does not read as the current model"),
        "{err}"
    );
}

#[test]
fn semver_rules() {
    // A newer major version: SchemaTooNew.
    let err = Doc::<User>::from_slice(V3.replace("\"3.0\"", "\"4.0\"").as_bytes()).unwrap_err();
    assert!(matches!(err, Error::SchemaTooNew { .. }), "{err:?}");
    // Older than the chain covers: UnsupportedSchema, naming what the model reads.
    let err = Doc::<User>::from_slice(V1.replace("\"1.0\"", "\"0.9\"").as_bytes()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "document: cannot read schema \"0.9\" with this model (schema 3.0): the model migrates from 1.0, 2.0 \
         and reads 3.x; no step reads this version"
    );
    // A later minor of a listed major goes through that major's step.
    let doc = Doc::<User>::from_slice(V2.replace("\"2.0\"", "\"2.4\"").as_bytes()).unwrap();
    assert_eq!(doc.migrated_from(), Some(SchemaVersion::new(2, 4, 0)));
    // Another type with an old schema is a wrong type, not a migration.
    let err = Doc::<User>::from_slice(V1.replace("\"user\"", "\"order\"").as_bytes()).unwrap_err();
    assert!(matches!(err, Error::WrongType { .. }), "{err:?}");
}

/// The current model at 3.2 reads 3.0 and 3.1 without a step.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.2", key = "user::{user_id}", migrate_from("2.0" = phone_to_phones))]
struct User32 {
    user_id: u64,
    #[serde(default)]
    nickname: Option<String>,
    phones: Vec<Phone>,
}

#[test]
fn older_minor_versions_of_the_current_major_read_without_a_step() {
    for schema in ["3.0", "3.1", "3.2"] {
        let stored = format!(r#"{{"_type":"user","_schema":"{schema}","userId":1,"phones":[]}}"#);
        let doc = Doc::<User32>::from_slice(stored.as_bytes()).unwrap();
        assert_eq!(doc.migrated_from(), None, "{schema}");
    }
}

mod newer_minor {
    use proptest::prelude::*;
    use serde_json::value::RawValue;
    use std::collections::BTreeMap;

    use super::*;

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            ".*".prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                proptest::collection::btree_map("[a-z]{1,3}", inner, 0..4)
                    .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// A rolling deploy: a 3.7 writer added fields; this 3.0 reader keeps them exactly and writes 3.7 back.
        #[test]
        fn unknown_fields_come_back_byte_for_byte(
            extra in proptest::collection::btree_map("x[a-z]{0,6}", json_value(), 1..5),
            pretty in any::<bool>(),
        ) {
            let mut stored: BTreeMap<String, Value> = extra.clone();
            stored.insert("_type".into(), "user".into());
            stored.insert("_schema".into(), "3.7".into());
            stored.insert("userId".into(), 123.into());
            stored.insert("firstName".into(), "Joe".into());
            stored.insert("lastName".into(), "Smith".into());
            stored.insert("phones".into(), json!([]));
            let bytes = if pretty { serde_json::to_vec_pretty(&stored) } else { serde_json::to_vec(&stored) }.unwrap();

            let doc = Doc::<User>::from_slice(&bytes).unwrap();
            let written = doc.to_vec().unwrap();

            let before: BTreeMap<String, Box<RawValue>> = serde_json::from_slice(&bytes).unwrap();
            let after: BTreeMap<String, Box<RawValue>> = serde_json::from_slice(&written).unwrap();
            for name in extra.keys() {
                prop_assert_eq!(before[name].get(), after[name].get(), "{}", name);
            }
            prop_assert_eq!(after["_schema"].get(), "\"3.7\"");
        }
    }
}

#[test]
fn a_typed_step_passes_the_older_models_own_errors_through() {
    // Older than any chain reads: the older model's own UnsupportedSchema, not a wrapped one.
    let err =
        Doc::<TypedUser>::from_slice(V1.replace("\"1.0\"", "\"0.5\"").as_bytes()).unwrap_err();
    assert!(matches!(err, Error::UnsupportedSchema { .. }), "{err:?}");
    // A failing step of the older model's chain is reported with its own versions.
    let broken = V1.replace("\"name\"", "\"fullName\"");
    let err = Doc::<TypedUser>::from_slice_at(TypedUser::key(123), broken.as_bytes()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "document `user::123`: migrating from schema 1.0 to 2.0 failed: the field `name` is missing"
    );
}

/// What reading `stored` as `T` gives: the document written back and the schema it migrated from, or the
/// error's message.
fn outcome<T>(stored: &str) -> Result<(String, Option<SchemaVersion>), String>
where
    T: DocModel + docmodel::KeyInBody + Serialize + serde::de::DeserializeOwned,
{
    let doc = Doc::<T>::from_slice(stored.as_bytes()).map_err(|err| err.to_string())?;
    let written = String::from_utf8(doc.to_vec().unwrap()).unwrap();
    Ok((written, doc.migrated_from()))
}

/// The migration path finds the schema without the reader where docmodel writes it, at the start of the
/// document; with the fields in another order the reader finds it. Both read alike, and fail alike.
#[test]
fn a_document_migrates_the_same_whatever_the_order_of_its_fields() {
    let wrong_type = V1.replace(r#""_type":"user""#, r#""_type":"order""#);
    let broken = V1.replace("\"name\"", "\"fullName\"");
    let unparsable = V2.replace("\"2.0\",", "\"2.0\",\"x\":tru,");
    for stored in [V1, V2, &wrong_type, &broken, &unparsable] {
        let mut forms = vec![stored.to_owned()];
        if let Ok(object) = serde_json::from_str::<serde_json::Map<String, Value>>(stored) {
            forms.push(serde_json::to_string_pretty(&object).unwrap());
            let reversed: serde_json::Map<String, Value> = object.into_iter().rev().collect();
            forms.push(serde_json::to_string(&reversed).unwrap());
        }
        for form in &forms[1..] {
            assert_eq!(outcome::<User>(form), outcome::<User>(stored), "{form}");
            assert_eq!(
                outcome::<TypedUser>(form),
                outcome::<TypedUser>(stored),
                "{form}"
            );
        }
    }
    assert_eq!(
        outcome::<User>(V1),
        Ok((WRITTEN.to_owned(), Some(SchemaVersion::new(1, 0, 0))))
    );
    assert_eq!(
        outcome::<TypedUser>(V1),
        Ok((WRITTEN.to_owned(), Some(SchemaVersion::new(1, 0, 0))))
    );
    let err = outcome::<User>(&wrong_type).unwrap_err();
    assert!(err.contains("\"order\""), "{err}");
    let err = outcome::<TypedUser>(&unparsable).unwrap_err();
    assert!(err.contains("expected ident"), "{err}");
}

#[test]
fn a_document_with_a_repeated_field_is_refused_on_the_migration_path_too() {
    let twice = V1.replace(r#""userId":123"#, r#""userId":123,"userId":124"#);
    let err = Doc::<User>::from_slice(twice.as_bytes()).unwrap_err();
    assert!(
        err.to_string().contains("duplicate field `userId`"),
        "{err}"
    );
    let type_twice = V1.replace(r#""_type":"user""#, r#""_type":"order","_type":"user""#);
    assert!(Doc::<User>::from_slice(type_twice.as_bytes()).is_err());
}

/// Two numbers no `f64` holds: a typed step reads the stored bytes, not a `serde_json::Value` of them.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "meter", schema = "1.0", key = "meter::{id}")]
pub struct MeterV1 {
    id: u64,
    total: u128,
}

#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "meter", schema = "2.0", key = "meter::{id}", migrate_from("1.0" = MeterV1))]
struct Meter {
    id: u64,
    total: u128,
    unit: String,
}

impl From<MeterV1> for Meter {
    fn from(old: MeterV1) -> Self {
        Meter {
            id: old.id,
            total: old.total,
            unit: "kWh".into(),
        }
    }
}

#[test]
fn a_typed_step_reads_the_stored_bytes() {
    let stored = r#"{"_type":"meter","_schema":"1.0","id":1,"total":340282366920938463463374607431768211455}"#;
    let doc = Doc::<Meter>::from_slice(stored.as_bytes()).unwrap();
    assert_eq!(doc.total, u128::MAX);
}

fn add_nickname(doc: &mut JsonObject) -> Result<(), MigrationError> {
    let first = doc
        .get("firstName")
        .cloned()
        .ok_or_else(|| MigrationError::missing_field("firstName"))?;
    doc.insert("nickname".into(), first);
    Ok(())
}

/// A step listed inside the current major applies from its own version on; older minors read as stored.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.2", key = "user::{user_id}", migrate_from("3.1" = add_nickname))]
struct Nicknamed {
    user_id: u64,
    #[serde(default)]
    nickname: Option<String>,
}

#[test]
fn a_step_in_the_current_major_applies_only_from_its_version() {
    let at = |schema: &str| {
        let stored =
            format!(r#"{{"_type":"user","_schema":"{schema}","userId":1,"firstName":"Jo"}}"#);
        Doc::<Nicknamed>::from_slice(stored.as_bytes()).unwrap()
    };
    assert_eq!(
        (at("3.0").nickname.clone(), at("3.0").migrated_from()),
        (None, None)
    );
    assert_eq!(at("3.1").nickname.as_deref(), Some("Jo"));
    assert_eq!(at("3.1").migrated_from(), Some(SchemaVersion::new(3, 1, 0)));
}

#[test]
fn errors_name_the_model_asked_for_and_the_step_that_failed() {
    // Too old for the chain and for the older model it goes through: the model asked for, and what it reads.
    let err =
        Doc::<TypedUser>::from_slice(V1.replace("\"1.0\"", "\"0.9\"").as_bytes()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "document: cannot read schema \"0.9\" with this model (schema 3.0): the model migrates from 2.0 and \
         reads 3.x; versions before 2.0 go through the older model `UserV2` (schema 2.0), which migrates from \
         1.0 and reads 2.x; no step reads this version"
    );
    // A 1.0 document whose `name` is not a string: the step that failed and its versions, whichever chain.
    let bad_name = V1.replace("\"Joe Smith\"", "5");
    for err in [
        Doc::<User>::from_slice_at(User::key(123), bad_name.as_bytes()).unwrap_err(),
        Doc::<TypedUser>::from_slice_at(TypedUser::key(123), bad_name.as_bytes()).unwrap_err(),
        Doc::<MixedUser>::from_slice_at(MixedUser::key(123), bad_name.as_bytes()).unwrap_err(),
    ] {
        assert_eq!(
            err.to_string(),
            "document `user::123`: migrating from schema 1.0 to 2.0 failed: `name` is not a string"
        );
    }
    // A 2.0 document the older model of a typed step cannot read: that step's versions and model, and
    // serde's reason.
    let bad_phone = V2.replace("\"1234567890\"", "5");
    let err =
        Doc::<TypedUser>::from_slice_at(TypedUser::key(123), bad_phone.as_bytes()).unwrap_err();
    let Error::Migration {
        key,
        from,
        to,
        source,
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(
        (key.as_deref(), from.as_str(), to.as_str()),
        (Some("user::123"), "2.0", "3.0")
    );
    assert_eq!(
        source.to_string(),
        "the older model `UserV2` cannot read its field `phone`"
    );
    assert!(
        std::error::Error::source(source).is_some_and(|cause| cause
            .to_string()
            .contains("invalid type: integer `5`, expected a string")),
        "{err:?}"
    );
}

/// A JSON step of a `root` layout model sees the document whole, `{"track": {...}}`; the runtime writes the
/// schema inside the root attribute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "track", schema = "2.0", key = "track::{id}")]
#[docmodel(migrate_from("1.0" = title_to_name), envelope(layout = "root"))]
struct RootTrack {
    id: String,
    name: String,
}

fn title_to_name(doc: &mut JsonObject) -> Result<(), MigrationError> {
    let track = doc
        .get_mut("track")
        .and_then(Value::as_object_mut)
        .ok_or_else(|| MigrationError::missing_field("track"))?;
    let title = track
        .remove("title")
        .ok_or_else(|| MigrationError::missing_field("title"))?;
    track.insert("name".into(), title);
    Ok(())
}

#[test]
fn a_root_layout_step_sees_the_whole_document() {
    let stored = r#"{"track":{"schema":"1.0","id":"3305","title":"My House"}}"#;
    let doc = Doc::from_slice_at(RootTrack::key("3305").unwrap(), stored.as_bytes()).unwrap();
    assert_eq!(doc.name, "My House");
    assert_eq!(doc.migrated_from(), Some(SchemaVersion::new(1, 0, 0)));
    assert_eq!(
        String::from_utf8(doc.to_vec().unwrap()).unwrap(),
        r#"{"track":{"schema":"2.0","ver":1,"id":"3305","name":"My House"}}"#
    );
    let err = Doc::from_slice_at(
        RootTrack::key("3305").unwrap(),
        br#"{"album":{"schema":"1.0","id":"3305","title":"My House"}}"#,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"document `track::3305`: expected `(the root attribute)` to be "track", found "album""#
    );
}
