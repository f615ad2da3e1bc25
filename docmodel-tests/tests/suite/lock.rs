//! The schema lock: the seeds' User locked at 1.0, 2.0 and 3.0 with their printed documents as samples
//! (`docmodel-locks/lock/user/` beside this file); the test-time check on a table of changes; the deploy-time
//! check (`Repo::ensure_schema`) of two programs sharing a store, on Redb and CouchDB. The compile-time check
//! is in the compile-fail package (`tests/ui/lock/`).

use std::path::{Path, PathBuf};

use docmodel::lock::{self, Change, LockProblem};
use docmodel::store::{CouchDb, Redb, Store};
use docmodel::{DocModel, Error, JsonObject, MigrationError, Repo};
use docmodel_tests::Fresh;
use docmodel_tests::seeds::{Phone, phone_to_phones, split_name};
use serde::{Deserialize, Serialize};

/// The seeds' user at 3.0, locked at each of its versions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}")]
#[docmodel(migrate_from("1.0" = split_name, "2.0" = phone_to_phones))]
#[docmodel(envelope(timestamps = "epoch_s"))]
struct User {
    user_id: u64,
    first_name: String,
    last_name: String,
    phones: Vec<Phone>,
    email: Option<String>,
}

#[test]
fn the_seeds_user_is_locked_at_each_version_and_its_samples_read() {
    // With `DOCMODEL_BLESS=1` this writes 3.0's lock and sample; otherwise it checks 1.0, 2.0 and 3.0.
    lock::check_with_sample(User {
        user_id: 123,
        first_name: "Joe".into(),
        last_name: "Smith".into(),
        phones: vec![Phone {
            kind: "mobile".into(),
            number: "1234567890".into(),
        }],
        email: None,
    })
    .unwrap();
    // By the type: renaming the struct keeps its locks.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/suite/docmodel-locks/lock/user");
    assert_eq!(User::__LOCK.dir.map(PathBuf::from), Some(dir.clone()));
    for version in ["1.0", "2.0", "3.0"] {
        assert!(dir.join(format!("{version}.json")).is_file(), "{version}");
        assert!(
            dir.join(format!("{version}.sample.json")).is_file(),
            "{version}"
        );
    }
}

#[test]
fn the_derive_records_the_stored_shape() {
    let shape: Vec<(&str, &str, &str, bool)> = User::__LOCK
        .fields
        .iter()
        .map(|&(field, stored, ty, required, _)| (field, stored, ty, required))
        .collect();
    assert_eq!(
        shape,
        [
            ("user_id", "userId", "u64", true),
            ("first_name", "firstName", "String", true),
            ("last_name", "lastName", "String", true),
            ("phones", "phones", "Vec<Phone>", true),
            ("email", "email", "Option<String>", false),
        ]
    );
}

/// A lock's fields: `(field, stored, type, required)`.
type Fields = [(&'static str, &'static str, &'static str, bool)];

/// A directory of its own under the system's temporary one, holding `locks` (version, fields as
/// `(field, stored, type, required)`) and `samples` (version, JSON).
struct Locks(PathBuf);

impl Locks {
    fn new(name: &str, locks: &[(&str, &Fields)], samples: &[(&str, &str)]) -> Self {
        Self::of("account", name, locks, samples)
    }

    /// [`Locks::new`] of a model of type `type_name`.
    fn of(
        type_name: &str,
        name: &str,
        locks: &[(&str, &Fields)],
        samples: &[(&str, &str)],
    ) -> Self {
        let dir =
            std::env::temp_dir().join(format!("docmodel-locks-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (version, fields) in locks {
            let fields: Vec<serde_json::Value> = fields
                .iter()
                .map(|(field, stored, ty, required)| {
                    serde_json::json!({"field": field, "stored": stored, "type": ty, "required": required})
                })
                .collect();
            let lock = serde_json::json!({"type": type_name, "schema": version, "fields": fields});
            std::fs::write(dir.join(format!("{version}.json")), lock.to_string()).unwrap();
        }
        for (version, sample) in samples {
            std::fs::write(dir.join(format!("{version}.sample.json")), sample).unwrap();
        }
        Locks(dir)
    }
}

impl Drop for Locks {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Account 1.0's shape: an id and a name.
const ACCOUNT_1_0: &Fields = &[("id", "id", "u64", true), ("name", "name", "String", true)];

#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "account", schema = "1.0", key = "account::{id}")]
struct Account10 {
    id: u64,
    name: String,
}

#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "account", schema = "1.0", key = "account::{id}")]
struct Account10Renamed {
    id: u64,
    #[serde(rename = "fullName")]
    name: String,
}

/// Account 1.0, its version written with its patch.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "account", schema = "1.0.0", key = "account::{id}")]
struct Account100 {
    id: u64,
    name: String,
}

/// 1.1: a field that reads when missing.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "account", schema = "1.1", key = "account::{id}")]
struct Account11 {
    id: u64,
    name: String,
    nickname: Option<String>,
}

/// 1.1: a field every document must hold.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "account", schema = "1.1", key = "account::{id}")]
struct Account11Required {
    id: u64,
    name: String,
    age: u32,
}

/// 2.0: `name` renamed, without a step from 1.0.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "account", schema = "2.0", key = "account::{id}")]
struct Account20 {
    id: u64,
    full_name: String,
}

/// 2.0: `name` renamed, with a step from 1.0.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "account", schema = "2.0", key = "account::{id}", migrate_from("1.0" = rename_name))]
struct Account20Stepped {
    id: u64,
    full_name: String,
}

fn rename_name(doc: &mut JsonObject) -> Result<(), MigrationError> {
    let name = doc
        .remove("name")
        .ok_or_else(|| MigrationError::missing_field("name"))?;
    doc.insert("full_name".into(), name);
    Ok(())
}

const ACCOUNT_2_0: &Fields = &[
    ("id", "id", "u64", true),
    ("full_name", "full_name", "String", true),
];

/// The problems of a check, as text, one per problem.
fn problems<T: DocModel + serde::de::DeserializeOwned>(locks: &Locks) -> Vec<String> {
    match lock::check_at::<T>(&locks.0) {
        Ok(()) => Vec::new(),
        Err(err) => err.problems.iter().map(ToString::to_string).collect(),
    }
}

#[test]
fn changes_are_classified_by_the_read_rules() {
    // The same version, unchanged: fine; any change: an error naming it.
    let locks = Locks::new("same", &[("1.0", ACCOUNT_1_0)], &[]);
    assert_eq!(problems::<Account10>(&locks), Vec::<String>::new());
    let renamed = lock::check_at::<Account10Renamed>(&locks.0).unwrap_err();
    assert!(matches!(
        &renamed.problems[..],
        [LockProblem::Changed { changes, .. }] if changes == &[Change::Renamed {
            field: "name".into(),
            from: "name".into(),
            to: "fullName".into(),
        }]
    ));
    assert!(renamed.to_string().starts_with(
        "the schema lock of `account`:\n  - 1.0 is locked with another stored shape: field `name` renamed: \
         stored as `fullName`, was `name`;"
    ));

    // A minor version: a field added that reads when missing passes; a required one does not.
    let at_1_1 = [
        ("1.0", ACCOUNT_1_0),
        (
            "1.1",
            &[
                ("id", "id", "u64", true),
                ("name", "name", "String", true),
                ("nickname", "nickname", "Option<String>", false),
            ][..],
        ),
    ];
    let locks = Locks::new("minor", &at_1_1, &[]);
    assert_eq!(problems::<Account11>(&locks), Vec::<String>::new());
    let required = [
        ("1.0", ACCOUNT_1_0),
        (
            "1.1",
            &[
                ("id", "id", "u64", true),
                ("name", "name", "String", true),
                ("age", "age", "u32", true),
            ][..],
        ),
    ];
    let locks = Locks::new("minor-required", &required, &[]);
    assert_eq!(
        problems::<Account11Required>(&locks),
        [
            "1.0 is read as the current version without a step (an older minor version), but differs by \
          more than fields added that read when missing: field `age` added, required (a stored document \
          without it does not read); add a step from it (`migrate_from(\"1.0\" = step)`) or bump the major \
          version"
        ]
    );

    // A major version: a rename without a step leaves 1.0 unread; with one, it passes.
    let locks = Locks::new("major", &[("1.0", ACCOUNT_1_0), ("2.0", ACCOUNT_2_0)], &[]);
    assert_eq!(
        problems::<Account20>(&locks),
        [
            "1.0 is locked but no longer read: no step migrates from it; add one (`migrate_from(\"1.0\" = \
          step)`), or remove its lock if no document of it is stored"
        ]
    );
    assert_eq!(problems::<Account20Stepped>(&locks), Vec::<String>::new());

    // A lock of a version newer than the model's: a model that went back, or a lock not yet released.
    let locks = Locks::new("newer", &[("1.0", ACCOUNT_1_0), ("1.1", ACCOUNT_1_0)], &[]);
    let newer = lock::check_at::<Account10>(&locks.0).unwrap_err();
    assert!(
        matches!(&newer.problems[..], [LockProblem::Newer { version }] if version.to_string() == "1.1"),
        "{newer}"
    );

    // A version written with its patch (`1.0.0`) is the lock named `1.0`.
    let locks = Locks::new("patch", &[("1.0", ACCOUNT_1_0)], &[]);
    assert_eq!(problems::<Account100>(&locks), Vec::<String>::new());

    // The version the model declares must be locked; `check_at` says who writes its locks: not itself.
    let locks = Locks::new("unlocked", &[("1.0", ACCOUNT_1_0)], &[]);
    assert_eq!(
        problems::<Account20Stepped>(&locks),
        [format!(
            "2.0 is not locked (no `2.0.json` in `{}`): `check_at` only reads; write the lock beside the \
             model with `lock::check` under `DOCMODEL_BLESS=1 cargo test`, and copy it there",
            locks.0.display()
        )]
    );
}

#[test]
fn each_sample_is_read_through_the_chain() {
    let good = r#"{"_type":"account","_schema":"1.0","id":1,"name":"Ann"}"#;
    let locks = Locks::new(
        "samples",
        &[("1.0", ACCOUNT_1_0), ("2.0", ACCOUNT_2_0)],
        &[("1.0", good)],
    );
    assert_eq!(problems::<Account20Stepped>(&locks), Vec::<String>::new());
    let bad = r#"{"_type":"account","_schema":"1.0","id":1}"#;
    let locks = Locks::new(
        "bad-sample",
        &[("1.0", ACCOUNT_1_0), ("2.0", ACCOUNT_2_0)],
        &[("1.0", bad)],
    );
    let found = problems::<Account20Stepped>(&locks);
    assert_eq!(found.len(), 1, "{found:?}");
    // The whole fix: a sample of a lock written again is removed with it.
    let sample = locks.0.join("1.0.sample.json");
    assert_eq!(
        found[0],
        format!(
            "the sample document of 1.0 (`{}`) does not read: document: migrating from schema 1.0 to 2.0 \
             failed: the field `name` is missing; if 1.0 was never released and its lock was written again, \
             remove the sample too, and `DOCMODEL_BLESS=1 cargo test` writes it again",
            sample.display()
        )
    );
}

/// Two programs' user at 3.0: one as locked, one with a field added without a version bump.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "member", schema = "3.0", key = "member::{id}")]
#[docmodel(envelope(layout = "plain"))]
struct MemberA {
    id: u64,
    name: String,
}

#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "member", schema = "3.0", key = "member::{id}")]
#[docmodel(envelope(layout = "plain"))]
struct MemberB {
    id: u64,
    name: String,
    age: u32,
}

/// An older program, at 2.0.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "member", schema = "2.0", key = "member::{id}")]
#[docmodel(envelope(layout = "plain"))]
struct MemberOld {
    id: u64,
    nickname: String,
}

/// `MemberA` written otherwise: its fields in another order, under other Rust names, a type by its path. The
/// same stored shape.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "member", schema = "3.0", key = "member::{member_id}")]
#[docmodel(envelope(layout = "plain"))]
struct MemberAgain {
    #[serde(rename = "name")]
    full_name: std::string::String,
    #[serde(rename = "id")]
    member_id: u64,
}

#[test]
fn the_fingerprint_is_of_the_stored_shape_only() {
    assert_eq!(
        lock::fingerprint::<MemberA>(),
        lock::fingerprint::<MemberAgain>()
    );
    assert_ne!(
        lock::fingerprint::<MemberA>(),
        lock::fingerprint::<MemberB>()
    );
}

async fn two_programs_with_one_version_in_two_shapes<S: Fresh>() {
    let store = S::fresh().await;
    let first = Repo::<MemberA>::new(&store);
    first.ensure_schema().await.unwrap();
    // Again, and by another instance of the same program: fine.
    first.ensure_schema().await.unwrap();
    Repo::<MemberA>::new(&store).ensure_schema().await.unwrap();
    // The same shape written otherwise is the same shape.
    Repo::<MemberAgain>::new(&store)
        .ensure_schema()
        .await
        .unwrap();
    // Another program's older version is its own record.
    Repo::<MemberOld>::new(&store)
        .ensure_schema()
        .await
        .unwrap();
    let record = store
        .get("docmodel::schema::member::3.0")
        .await
        .unwrap()
        .unwrap();
    let before = record.bytes.to_vec();

    let err = Repo::<MemberB>::new(&store)
        .ensure_schema()
        .await
        .unwrap_err();
    let (a, b) = (
        lock::fingerprint::<MemberA>(),
        lock::fingerprint::<MemberB>(),
    );
    assert_ne!(a, b);
    assert!(
        matches!(&err, Error::SchemaMismatch { type_name: "member", recorded, ours, .. }
            if *recorded == a && *ours == b),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "model `member` 3.0: the store records another stored shape for this version (fingerprint {a}) \
             than this program's ({b}): field `age` added, required (a stored document without it does not \
             read); a program changed the model without bumping its schema version: bump it (see \
             `docmodel::lock`), or, if 3.0 was never released, remove the record \
             `docmodel::schema::member::3.0` from the store"
        )
    );
    // Nothing written.
    let record = store
        .get("docmodel::schema::member::3.0")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(*record.bytes, *before);
}

#[tokio::test]
async fn two_programs_sharing_redb() {
    two_programs_with_one_version_in_two_shapes::<Redb>().await;
}

#[tokio::test]
async fn two_programs_sharing_couchdb() {
    two_programs_with_one_version_in_two_shapes::<CouchDb>().await;
}

/// `MemberA` reading `name` from `fullName` too: the program that drops the alias is another shape.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "member", schema = "3.0", key = "member::{id}")]
#[docmodel(envelope(layout = "plain"))]
struct MemberAliased {
    id: u64,
    #[serde(alias = "fullName")]
    name: String,
}

#[tokio::test]
async fn a_program_that_reads_a_name_no_longer_is_another_shape() {
    let store = docmodel::store::MemoryStore::new();
    Repo::<MemberAliased>::new(&store)
        .ensure_schema()
        .await
        .unwrap();
    let err = Repo::<MemberA>::new(&store)
        .ensure_schema()
        .await
        .unwrap_err();
    let Error::SchemaMismatch { changes, .. } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(
        changes,
        &[Change::NoLongerRead {
            stored: "name".into(),
            name: "fullName".into()
        }]
    );
}

/// The structs a body holds are part of the shape `ensure_schema` compares: a program whose `Item` had no
/// `count` recorded 1.0 of the shelf (its fields alike), and this one is refused.
#[tokio::test]
async fn a_struct_the_body_holds_changed_is_another_shape_in_the_store() {
    let store = docmodel::store::MemoryStore::new();
    let shelves = Repo::<Shelf>::new(&store);
    shelves.ensure_schema().await.unwrap();
    let key = "docmodel::schema::shelf::1.0";
    let mut record: serde_json::Value =
        serde_json::from_slice(&store.get(key).await.unwrap().unwrap().bytes).unwrap();
    assert_eq!(
        record["defs"]["Item"]["required"],
        serde_json::json!(["name", "count"])
    );
    record["defs"]["Item"]["properties"]
        .as_object_mut()
        .unwrap()
        .remove("count");
    record["defs"]["Item"]["required"] = serde_json::json!(["name"]);
    let other = store.get(key).await.unwrap().unwrap();
    store
        .replace(key, &serde_json::to_vec(&record).unwrap(), &other.cas)
        .await
        .unwrap();
    let err = shelves.ensure_schema().await.unwrap_err();
    let Error::SchemaMismatch {
        recorded,
        ours,
        changes,
        ..
    } = &err
    else {
        panic!("{err:?}");
    };
    // The fields alike: only the comparison of the shapes tells.
    assert_eq!(recorded, ours);
    assert_eq!(
        changes,
        &[Change::Added {
            stored: "Item.count".into(),
            required: true
        }]
    );
}

/// A model whose lock lists its fields in another order, without the doc comments it has now: the same
/// stored shape, so it compiles and checks.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "note", schema = "1.0", key = "note::{id}")]
struct Reordered {
    /// The note's text.
    text: String,
    /// Its id.
    id: u64,
}

#[test]
fn reordered_fields_and_doc_comments_are_the_same_shape() {
    lock::check::<Reordered>().unwrap();
}

/// `Reordered` renamed: the locks are by the type, so the struct keeps its lock (and the derive its
/// compile-time check) under a new name.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "note", schema = "1.0", key = "note::{id}")]
struct NoteRenamed {
    id: u64,
    text: String,
}

#[test]
fn a_struct_renamed_keeps_its_lock() {
    assert_eq!(NoteRenamed::__LOCK.dir, Reordered::__LOCK.dir);
    lock::check::<NoteRenamed>().unwrap();
}

/// What the expansion reads of the environment is what cargo builds the crate again for: `DOCMODEL_BLESS`
/// (a build under it skips the compile-time check) is among the inputs rustc records for this binary.
#[test]
fn a_change_of_docmodel_bless_builds_the_models_again() {
    let binary = std::env::current_exe().unwrap();
    let info = std::fs::read_to_string(binary.with_extension("d")).unwrap();
    assert!(
        info.lines().any(|line| line == "# env-dep:DOCMODEL_BLESS"),
        "rustc's dependency info of {} does not name DOCMODEL_BLESS:\n{info}",
        binary.display()
    );
}

/// A struct the body holds, whose shape the derive of the model cannot see (it lives in `Item`'s own
/// derive): the lock keeps it from the model's JSON Schema.
#[derive(Debug, Serialize, Deserialize, docmodel::Embedded)]
struct Item {
    name: String,
    count: u32,
}

#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "shelf", schema = "1.0", key = "shelf::{id}")]
struct Shelf {
    id: u64,
    items: Vec<Item>,
}

#[test]
fn a_struct_the_body_holds_changed_without_a_bump_is_caught_at_test_time() {
    let fields: &Fields = &[
        ("id", "id", "u64", true),
        ("items", "items", "Vec<Item>", true),
    ];
    let locks = Locks::of("shelf", "nested", &[("1.0", fields)], &[]);
    // The lock of 1.0 as written before `Item` gained `count`.
    let mut lock: serde_json::Value =
        serde_json::from_slice(&std::fs::read(locks.0.join("1.0.json")).unwrap()).unwrap();
    lock["defs"] = serde_json::json!({
        "Item": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"]
        }
    });
    std::fs::write(locks.0.join("1.0.json"), lock.to_string()).unwrap();
    assert_eq!(
        problems::<Shelf>(&locks),
        [
            "1.0 is locked with another stored shape: field `Item.count` added, required (a stored document \
          without it does not read); bump the major version (`schema = \"2.0\"`) and add a step from this \
          one (`migrate_from(\"1.0\" = step)`); or, if 1.0 was never released, write its lock again with \
          `DOCMODEL_BLESS=1 cargo test`"
        ]
    );
}

#[test]
fn a_name_no_longer_read_and_a_type_renamed_are_changes() {
    let locks = Locks::new("reads", &[("1.0", ACCOUNT_1_0)], &[]);
    let lock = serde_json::json!({
        "type": "customer",
        "schema": "1.0",
        "fields": [
            {"field": "id", "stored": "id", "type": "u64", "required": true},
            {"field": "name", "stored": "name", "type": "String", "required": true, "reads": ["name", "fullName"]}
        ]
    });
    std::fs::write(locks.0.join("1.0.json"), lock.to_string()).unwrap();
    let err = lock::check_at::<Account10>(&locks.0).unwrap_err();
    let [LockProblem::Changed { changes, .. }] = &err.problems[..] else {
        panic!("{err}");
    };
    assert_eq!(
        changes,
        &[
            Change::TypeRenamed {
                from: "customer".into(),
                to: "account".into()
            },
            Change::NoLongerRead {
                stored: "name".into(),
                name: "fullName".into()
            },
        ]
    );
}
