//! The schema other clients meet (`docmodel::json_schema`), checked with an independent validator (boon) in
//! both directions: every document docmodel writes, and the seeds' samples, validate; a document a test breaks
//! (a wrong JSON type, a missing field, a wrong envelope) fails at the path of what it broke.

use docmodel::{
    Doc, DocModel, Embedded, Presence, SchemaVersion, Timestamp, json_schema, json_schemas,
};
use docmodel_tests::seeds::{Phone, UserV2};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Each failure of `doc` against `schema`, as boon reports it: the instance path and what is wrong, the
/// deepest causes only. Empty when it validates.
fn failures(schema: &Value, doc: &Value) -> Vec<String> {
    const URL: &str = "http://docmodel.test/schema.json";
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler.add_resource(URL, schema.clone()).unwrap();
    let index = compiler
        .compile(URL, &mut schemas)
        .unwrap_or_else(|err| panic!("the schema does not compile: {err:?}\n{schema:#}"));
    let Err(err) = schemas.validate(doc, index) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    leaves(&err, &mut found);
    found
}

fn leaves(err: &boon::ValidationError, found: &mut Vec<String>) {
    if err.causes.is_empty() {
        found.push(format!("{}: {}", err.instance_location, err.kind));
    }
    for cause in &err.causes {
        leaves(cause, found);
    }
}

/// Whether `doc` validates, else the failures with the document.
fn assert_valid(schema: &Value, doc: &Value) {
    let found = failures(schema, doc);
    assert!(found.is_empty(), "{found:?}\n{doc:#}");
}

/// That `doc` fails, at `path` only.
fn assert_fails_at(schema: &Value, doc: &Value, path: &str) {
    let found = failures(schema, doc);
    assert!(!found.is_empty(), "validates: {doc:#}");
    assert!(
        found
            .iter()
            .all(|failure| failure.starts_with(&format!("{path}: "))),
        "{path}: {found:?}"
    );
}

/// The seeds' user at 3.0: the flat layout, its phones an `Embedded` struct.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}")]
#[docmodel(migrate_from("2.0" = UserV2))]
struct User {
    user_id: u64,
    first_name: String,
    last_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    nickname: Option<String>,
    phones: Vec<Phone>,
}

impl From<UserV2> for User {
    fn from(old: UserV2) -> Self {
        User {
            user_id: old.user_id,
            first_name: old.first_name,
            last_name: old.last_name,
            nickname: None,
            phones: vec![Phone {
                kind: "other".into(),
                number: old.phone,
            }],
        }
    }
}

fn joe() -> User {
    User {
        user_id: 123,
        first_name: "Joe".into(),
        last_name: "Smith".into(),
        nickname: None,
        phones: vec![Phone {
            kind: "other".into(),
            number: "1234567890".into(),
        }],
    }
}

fn written<T: DocModel + Serialize>(doc: &Doc<T>) -> Value {
    serde_json::from_slice(&doc.to_vec().unwrap()).unwrap()
}

#[test]
fn the_seeds_user_has_its_envelope_its_fields_and_its_phones() {
    let schema = json_schema::<User>();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema["title"], "user 3.0");
    assert_eq!(schema["type"], "object");
    assert_eq!(
        schema["required"],
        json!([
            "_type",
            "_schema",
            "userId",
            "firstName",
            "lastName",
            "phones"
        ])
    );
    let properties = &schema["properties"];
    assert_eq!(properties["_type"], json!({ "const": "user" }));
    assert_eq!(
        properties["_schema"]["pattern"],
        r"^3\.(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))?$"
    );
    assert_eq!(properties["_ver"]["type"], "integer");
    assert_eq!(properties["_ver"]["minimum"], 1);
    assert_eq!(properties["_created"]["type"], "integer");
    // An envelope field the model does not keep is a field it does not know: kept, and allowed.
    assert_eq!(properties.get("_geo"), None);
    assert_eq!(
        properties["userId"],
        json!({ "type": "integer", "minimum": 0, "exclusiveMaximum": 18_446_744_073_709_551_616.0 })
    );
    // 2^64, exact as a double, where a double rounds `u64::MAX` up to it: a validator that reads numbers as
    // doubles (JavaScript's, the server's) reads the bound exactly.
    assert_eq!(2f64.powi(64), 18_446_744_073_709_551_616.0);
    assert_eq!(properties["_created"]["minimum"], -62_167_219_200_000_i64);
    assert_eq!(properties["_created"]["maximum"], 253_402_300_799_999_i64);
    assert_eq!(properties["firstName"], json!({ "type": "string" }));
    assert_eq!(
        properties["nickname"],
        json!({ "type": ["string", "null"] })
    );
    assert_eq!(
        properties["phones"],
        json!({ "type": "array", "items": { "$ref": "#/$defs/Phone" } })
    );
    assert_eq!(
        schema["$defs"]["Phone"],
        json!({
            "type": "object",
            "properties": { "type": { "type": "string" }, "number": { "type": "string" } },
            "required": ["type", "number"],
        })
    );
    // A field docmodel does not know is allowed: it keeps them.
    assert_eq!(schema.get("additionalProperties"), None);
}

#[test]
fn every_document_docmodel_writes_validates() {
    let schema = json_schema::<User>();
    let mut doc = Doc::new(joe()).unwrap();
    doc.envelope_mut().created = Some(Timestamp::from_millis(1_544_759_124_478));
    assert_valid(&schema, &written(&doc));
    let mut nicknamed = joe();
    nicknamed.nickname = Some("JJ".into());
    nicknamed.phones.clear();
    assert_valid(&schema, &written(&Doc::new(nicknamed).unwrap()));
    // Read from the seeds' 2.0 sample through the typed step, and with a field no version knows.
    let v2 = br#"{"_type":"user","_schema":"2.0","userId":123,"firstName":"Joe","lastName":"Smith","phone":"1234567890","loyalty":{"tier":"gold"}}"#;
    assert_valid(&schema, &written(&Doc::<User>::from_slice(v2).unwrap()));
    // A newer minor that another client wrote reads and validates.
    let v31 = json!({"_type":"user","_schema":"3.1","_ver":4,"userId":1,"firstName":"A","lastName":"B","phones":[],"tags":["x"]});
    assert_valid(&schema, &v31);
    assert!(Doc::<User>::from_slice(v31.to_string().as_bytes()).is_ok());
}

#[test]
fn a_broken_document_fails_at_what_it_broke() {
    let schema = json_schema::<User>();
    let good = written(&Doc::new(joe()).unwrap());
    let broken = |change: &dyn Fn(&mut Value)| {
        let mut doc = good.clone();
        change(&mut doc);
        doc
    };
    // Each break, where it is reported, and whether docmodel's reader refuses it too (a revision count of
    // 0 reads, but docmodel never writes one: the schema holds other clients to what docmodel writes).
    type Break<'a> = (&'a str, bool, &'a dyn Fn(&mut Value));
    let cases: [Break; 10] = [
        ("/firstName", true, &|doc| doc["firstName"] = json!(5)),
        ("/userId", true, &|doc| doc["userId"] = json!(-1)),
        ("/userId", true, &|doc| doc["userId"] = json!("123")),
        ("", true, &|doc| {
            drop(doc.as_object_mut().unwrap().remove("lastName"))
        }),
        ("/phones/0/number", true, &|doc| {
            doc["phones"][0]["number"] = json!(null)
        }),
        ("/phones/0", true, &|doc| {
            drop(doc["phones"][0].as_object_mut().unwrap().remove("type"))
        }),
        ("/_type", true, &|doc| doc["_type"] = json!("order")),
        ("/_schema", true, &|doc| doc["_schema"] = json!("4.0")),
        ("/_schema", true, &|doc| doc["_schema"] = json!("3.01")),
        ("/_ver", false, &|doc| doc["_ver"] = json!(0)),
    ];
    for (path, reader_refuses, change) in cases {
        let doc = broken(change);
        assert_fails_at(&schema, &doc, path);
        let read = Doc::<User>::from_slice(doc.to_string().as_bytes());
        assert_eq!(read.is_err(), reader_refuses, "{path}: {doc}");
    }
    assert_fails_at(&schema, &json!({ "_schema": "3.0" }), "");
}

/// Each version a typed step reads has the older model's schema; the seeds' 2.0 sample validates against it
/// and not against 3.0's.
#[test]
fn a_model_with_a_typed_step_has_a_schema_per_version() {
    let all = json_schemas::<User>();
    let versions: Vec<SchemaVersion> = all.iter().map(|(version, _)| *version).collect();
    assert_eq!(
        versions,
        [SchemaVersion::new(3, 0, 0), SchemaVersion::new(2, 0, 0)]
    );
    assert_eq!(all[0].1, json_schema::<User>());
    let v2 = json!({"_type":"user","_schema":"2.0","userId":123,"firstName":"Joe","lastName":"Smith","phone":"1234567890"});
    assert_valid(&all[1].1, &v2);
    assert_eq!(all[1].1["title"], "user 2.0");
    assert!(!failures(&all[0].1, &v2).is_empty());
}

/// A type docmodel cannot see through is left open, and the schema says so.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
enum Tier {
    Gold,
    Silver,
}

mod as_text {
    pub fn serialize<S: serde::Serializer>(value: &u32, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(value)
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        let text = <String as serde::Deserialize>::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "member", schema = "1.0", key = "member::{id}")]
#[docmodel(envelope(layout = "meta", timestamps = "iso8601", created_by))]
struct Member {
    id: u64,
    tier: Tier,
    #[serde(with = "as_text")]
    points: u32,
    #[serde(default)]
    since: Option<Timestamp>,
    note: Presence<String>,
    #[serde(alias = "mail")]
    email: String,
}

#[test]
fn the_meta_layout_and_fields_docmodel_cannot_see_through() {
    let schema = json_schema::<Member>();
    let meta = &schema["properties"]["meta"];
    // The meta layout's names, inside its object.
    assert_eq!(meta["required"], json!(["type", "schema"]));
    assert_eq!(meta["properties"]["type"], json!({ "const": "member" }));
    assert_eq!(
        meta["properties"]["created"],
        json!({ "type": "string", "format": "date-time" })
    );
    assert_eq!(meta["properties"]["createdBy"], json!({ "type": "string" }));
    assert_eq!(schema["required"], json!(["meta", "id", "tier", "points"]));
    let tier = schema["properties"]["tier"]["description"]
        .as_str()
        .unwrap();
    assert!(
        tier.starts_with("a `Tier`, whose stored shape docmodel does not know"),
        "{tier}"
    );
    let points = schema["properties"]["points"]["description"]
        .as_str()
        .unwrap();
    assert!(
        points.contains(r#"`#[serde(with = "as_text")]`"#),
        "{points}"
    );
    assert_eq!(schema["properties"]["mail"], schema["properties"]["email"]);

    let mut doc = Doc::new(Member {
        id: 7,
        tier: Tier::Gold,
        points: 12,
        since: Some(Timestamp::from_millis(1_544_759_124_478)),
        note: Presence::Missing,
        email: "a@b.c".into(),
    })
    .unwrap();
    doc.envelope_mut().created = Some(Timestamp::from_millis(1_544_759_124_478));
    let stored = written(&doc);
    assert_valid(&schema, &stored);
    let mut broken = stored.clone();
    broken["meta"]["createdBy"] = json!(42);
    assert_fails_at(&schema, &broken, "/meta/createdBy");
    let mut broken = stored;
    broken["meta"]["type"] = json!("user");
    assert_fails_at(&schema, &broken, "/meta/type");
}

/// A struct that holds itself is one definition that refers to itself.
#[derive(Debug, Serialize, Deserialize, Embedded)]
struct Category {
    name: String,
    children: Vec<Category>,
}

#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "catalogue", schema = "1.0", key = "catalogue::{id}")]
#[docmodel(envelope(layout = "root"))]
struct Catalogue {
    id: String,
    #[docmodel(nested)]
    root: Category,
}

#[test]
fn the_root_layout_and_a_struct_that_holds_itself() {
    let schema = json_schema::<Catalogue>();
    assert_eq!(schema["required"], json!(["catalogue"]));
    assert_eq!(
        schema["$defs"]["Category"]["properties"]["children"],
        json!({ "type": "array", "items": { "$ref": "#/$defs/Category" } })
    );
    let doc = Doc::new(Catalogue {
        id: "c1".into(),
        root: Category {
            name: "all".into(),
            children: vec![Category {
                name: "books".into(),
                children: Vec::new(),
            }],
        },
    })
    .unwrap();
    let stored = written(&doc);
    assert_valid(&schema, &stored);
    let mut broken = stored;
    broken["catalogue"]["root"]["children"][0]["name"] = json!(["books"]);
    assert_fails_at(&schema, &broken, "/catalogue/root/children/0/name");
}

/// The schema enforced by a CouchDB-protocol server (`Repo::ensure_validation`), for every client.
mod couchdb {
    use docmodel::store::{CouchDb, Store};
    use docmodel::{DocModel, Embedded, Error, Repo, StoreErrorKind};
    use docmodel_tests::couchdb::{fresh, server};
    use docmodel_tests::seeds::Phone;
    use serde::{Deserialize, Serialize};
    use serde_json::{Value, json};

    /// The seeds' user as CouchDB keeps it (its envelope in `meta`: CouchDB reserves top-level `_` names),
    /// with revisions, a unique lookup by email, ids from a counter, and a step from 2.0.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
    #[serde(rename_all = "camelCase")]
    #[docmodel(type = "user", schema = "3.0", key = "user::{user_id}", revisions = 3)]
    #[docmodel(lookup = "user_email::{email}", migrate_from("2.0" = phone_to_phones))]
    #[docmodel(envelope(layout = "meta", timestamps = "iso8601"))]
    struct User {
        user_id: u64,
        email: String,
        address: Address,
        phones: Vec<Phone>,
    }

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Embedded)]
    struct Address {
        city: String,
    }

    fn phone_to_phones(doc: &mut docmodel::JsonObject) -> Result<(), docmodel::MigrationError> {
        docmodel_tests::seeds::phone_to_phones(doc)
    }

    /// The same user as a program one version behind declares it.
    #[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
    #[serde(rename_all = "camelCase")]
    #[docmodel(type = "user", schema = "2.0", key = "user::{user_id}")]
    #[docmodel(envelope(layout = "meta", timestamps = "iso8601"))]
    struct OlderUser {
        user_id: u64,
        email: String,
        phone: String,
    }

    fn ada(user_id: u64) -> User {
        User {
            user_id,
            email: format!("ada{user_id}@example.com"),
            address: Address {
                city: "London".into(),
            },
            phones: vec![Phone {
                kind: "home".into(),
                number: "555-0100".into(),
            }],
        }
    }

    /// A plain HTTP PUT of `doc` at `id`, as any other client writes: the status and the answer. A user's
    /// `userId` is the one its key holds (the server refuses another: a document is stored under the key its
    /// fields give), so that each case breaks only what it says.
    async fn put(store: &CouchDb, id: &str, doc: &Value) -> (u16, Value) {
        let mut doc = doc.clone();
        if let Some(user_id) = id
            .strip_prefix("user::")
            .and_then(|n| n.parse::<u64>().ok())
            && doc.get("userId").is_some_and(Value::is_u64)
        {
            doc["userId"] = json!(user_id);
        }
        let url = format!("{}/{}/{id}", server().url, store.db());
        let answer = reqwest::Client::new()
            .put(&url)
            .header("content-type", "application/json")
            .body(doc.to_string())
            .send()
            .await
            .unwrap();
        let status = answer.status().as_u16();
        let body = answer.bytes().await.unwrap();
        (status, serde_json::from_slice(&body).unwrap())
    }

    fn refused(answer: &(u16, Value), reason: &str) {
        assert_eq!(answer.0, 403, "{answer:?}");
        assert_eq!(answer.1["error"], "forbidden", "{answer:?}");
        assert_eq!(answer.1["reason"], reason, "{answer:?}");
    }

    fn user_doc(schema: &str) -> Value {
        json!({
            "meta": { "type": "user", "schema": schema, "ver": 1 },
            "userId": 9,
            "email": "grace@example.com",
            "address": { "city": "Arlington" },
            "phones": [{ "type": "work", "number": "555-0199" }],
        })
    }

    #[tokio::test]
    async fn other_clients_writes_are_held_to_the_schema() {
        let store = fresh().await;
        let users = Repo::<User>::new(store.clone());
        assert!(
            users.ensure_validation().await.unwrap(),
            "written the first time"
        );
        assert!(
            !users.ensure_validation().await.unwrap(),
            "nothing to change the second"
        );

        // A good document from another client is accepted; each break is refused, naming the field.
        assert_eq!(put(&store, "user::9", &user_doc("3.0")).await.0, 201);
        let mut doc = user_doc("3.0");
        doc["phones"][0]["number"] = json!(5);
        refused(
            &put(&store, "user::10", &doc).await,
            "docmodel: phones[0].number: must be string, not a number",
        );
        let mut doc = user_doc("3.0");
        doc.as_object_mut().unwrap().remove("email");
        refused(
            &put(&store, "user::10", &doc).await,
            "docmodel: email: is missing",
        );
        let mut doc = user_doc("3.0");
        doc["address"]["city"] = json!(null);
        refused(
            &put(&store, "user::10", &doc).await,
            "docmodel: address.city: must be string, not null",
        );
        refused(
            &put(&store, "user::10", &user_doc("4.0")).await,
            "docmodel: meta.schema: is newer than any version of `user` this program knows (3.0 is current)",
        );
        let mut doc = user_doc("3.0");
        doc["meta"]["type"] = json!("user");
        doc["meta"]["schema"] = json!(3);
        refused(
            &put(&store, "user::10", &doc).await,
            "docmodel: meta.schema: is not a schema version (major.minor or major.minor.patch, whole numbers without leading zeros)",
        );
        // A 2.0 user (its phone not yet a list) is the 2.0 shape, which only the step knows: accepted.
        let v2 = json!({ "meta": { "type": "user", "schema": "2.0" }, "userId": 11, "email": "x@y.z", "phone": "1" });
        assert_eq!(put(&store, "user::11", &v2).await.0, 201);
        // Documents of another type, and documents without one, are not the model's.
        assert_eq!(
            put(
                &store,
                "order::1",
                &json!({ "meta": { "type": "order" }, "userId": "x" })
            )
            .await
            .0,
            201
        );
        assert_eq!(
            put(&store, "misc", &json!({ "anything": true })).await.0,
            201
        );
        // A revision count going back is refused.
        let current = store.get("user::9").await.unwrap().unwrap();
        let rev = current.cas.as_revision().unwrap().to_owned();
        let mut back = user_doc("3.0");
        back["meta"]["ver"] = json!(5);
        back["_rev"] = json!(rev);
        let (status, answer) = put(&store, "user::9", &back).await;
        assert_eq!(status, 201, "{answer}");
        let mut back = user_doc("3.0");
        back["meta"]["ver"] = json!(2);
        back["_rev"] = answer["rev"].clone();
        refused(
            &put(&store, "user::9", &back).await,
            "docmodel: meta.ver: goes back: a revision count only grows",
        );
        // Through the store, a refusal is a validation error naming the field, and nothing is written.
        let mut doc = user_doc("3.0");
        doc["userId"] = json!(-1);
        let err = store
            .insert("user::12", doc.to_string().as_bytes())
            .await
            .unwrap_err();
        let Error::Validation { key, errors } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(key.as_deref(), Some("user::12"));
        assert_eq!(errors[0].path(), "userId");
        assert_eq!(errors[0].message(), "is below the range its type holds");
        assert_eq!(store.get("user::12").await.unwrap(), None);
    }

    #[tokio::test]
    async fn docmodels_own_writes_pass() {
        let store = fresh().await;
        let users = Repo::<User>::new(store.clone());
        users.ensure_validation().await.unwrap();
        // Insert, with its lookup and an id from the counter; saves that keep and prune copies; a removal.
        let id = users.next_id().await.unwrap();
        let mut doc = users.insert(ada(id)).await.unwrap();
        for n in 0..5 {
            doc.phones[0].number = format!("555-01{n:02}");
            users.save(&mut doc).await.unwrap();
        }
        assert_eq!(users.revisions(doc.key()).await.unwrap().len(), 3);
        assert!(
            users
                .get_by_lookup(&format!("user_email::ada{id}@example.com"))
                .await
                .unwrap()
                .is_some()
        );
        users.insert_many(vec![ada(100), ada(101)]).await.unwrap();
        users.remove(&User::key(101)).await.unwrap();
        // A 2.0 document another client left, moved to 3.0 by `migrate_all`.
        let v2 = json!({ "meta": { "type": "user", "schema": "2.0", "ver": 1 }, "userId": 7, "email": "old@example.com", "address": { "city": "Bath" }, "phone": "555-0007" });
        assert_eq!(put(&store, "user::7", &v2).await.0, 201);
        let report = users.migrate_all().await.unwrap();
        assert_eq!(report.migrated, 1, "{report:?}");
        let migrated = users.get(&User::key(7)).await.unwrap().unwrap();
        assert_eq!(migrated.phones[0].number, "555-0007");
    }

    /// A program one version behind installed its function: a newer program's writes are refused, as a
    /// validation error naming the schema field, and nothing is written.
    #[tokio::test]
    async fn a_function_from_an_older_program_refuses_newer_documents() {
        let store = fresh().await;
        assert!(
            Repo::<OlderUser>::new(store.clone())
                .ensure_validation()
                .await
                .unwrap()
        );
        let users = Repo::<User>::new(store.clone());
        let err = users.insert(ada(1)).await.unwrap_err();
        let Error::Validation { key, errors } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(key.as_deref(), Some("user::1"));
        assert_eq!(errors[0].path(), "meta.schema");
        assert_eq!(
            errors[0].message(),
            "is newer than any version of `user` this program knows (2.0 is current)"
        );
        assert_eq!(store.get("user::1").await.unwrap(), None);
        // Installing the newer model's function replaces it.
        assert!(users.ensure_validation().await.unwrap());
        users.insert(ada(1)).await.unwrap();
    }

    /// `resolve` of a replication conflict writes through the function: the merged document, the copies it
    /// keeps, the removal of the losing revision all pass. The function is installed once the conflict has
    /// formed: pouchdb-server's validation replaces a replicated document's revision history with the old
    /// document's (pouchdb-validation 4.2.0, `lib/index.js`: `newDoc._revisions = (oldDoc || {})._revisions`),
    /// so with any function installed a conflicting revision never crosses there.
    #[tokio::test]
    async fn a_merge_of_a_replication_conflict_passes() {
        use docmodel::Resolve;
        use docmodel_tests::couchdb::Replicated;

        let servers = Replicated::start().await;
        let (a, b) = (&servers.a, &servers.b);
        let key = User::key(1);
        Repo::<User>::new(a.clone()).insert(ada(1)).await.unwrap();
        servers.replicate_a_to_b().await;
        for (side, city) in [(a, "Paris"), (b, "Oslo")] {
            let users = Repo::<User>::new(side.clone());
            let mut doc = users.get(&key).await.unwrap().unwrap();
            doc.address.city = city.into();
            users.save(&mut doc).await.unwrap();
        }
        servers.replicate_b_to_a().await;
        let users = Repo::<User>::new(a.clone());
        let conflicted = users.get(&key).await.unwrap().unwrap();
        assert!(conflicted.has_conflicts());
        assert!(users.ensure_validation().await.unwrap());
        let merged = users
            .resolve(&key, &Resolve::highest_version())
            .await
            .unwrap();
        assert!(!merged.has_conflicts());
        assert!(
            ["Paris", "Oslo"].contains(&merged.address.city.as_str()),
            "{merged:?}"
        );
        assert!(
            merged.envelope().ver > conflicted.envelope().ver,
            "{merged:?}"
        );
        let again = users.get(&key).await.unwrap().unwrap();
        assert!(!again.has_conflicts());
        assert_eq!(again.envelope().ver, merged.envelope().ver);
    }

    /// Stores that run no validation say so.
    #[tokio::test]
    async fn a_store_without_validation_functions_says_so() {
        let users = Repo::<User>::new(docmodel::store::MemoryStore::new());
        let err = users.ensure_validation().await.unwrap_err();
        assert!(
            matches!(
                err,
                Error::Store {
                    kind: StoreErrorKind::Unsupported,
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("only CouchDB enforces"), "{err}");
    }
}

/// A field of every kind the derive decides "does a document without it read" for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "kinds", schema = "1.0", key = "kinds::{id}")]
struct Kinds {
    id: u64,
    plain: String,
    maybe: Option<u32>,
    present: Presence<String>,
    #[serde(with = "docmodel::timestamp::iso8601::option")]
    shipped: Option<Timestamp>,
    #[serde(default)]
    counted: u32,
    #[serde(default = "seven")]
    seven: u32,
    #[serde(skip_deserializing)]
    seen: u32,
    #[serde(alias = "label")]
    name: String,
}

fn seven() -> u32 {
    7
}

/// The server's side (the schema, as boon applies it) against the reader's (`Doc::from_slice`): for each
/// stored field, a document without it validates exactly when it reads.
#[test]
fn a_document_without_a_field_validates_exactly_when_it_reads() {
    let schema = json_schema::<Kinds>();
    let full = written(
        &Doc::new(Kinds {
            id: 1,
            plain: "p".into(),
            maybe: Some(1),
            present: Presence::Value("v".into()),
            shipped: Some(Timestamp::from_millis(0)),
            counted: 3,
            seven: 4,
            seen: 5,
            name: "n".into(),
        })
        .unwrap(),
    );
    assert_valid(&schema, &full);
    let mut found = Vec::new();
    for field in [
        "plain", "maybe", "present", "shipped", "counted", "seven", "seen", "name",
    ] {
        let mut doc = full.clone();
        doc.as_object_mut().unwrap().remove(field);
        let reads = Doc::<Kinds>::from_slice(&serde_json::to_vec(&doc).unwrap()).is_ok();
        let validates = failures(&schema, &doc).is_empty();
        assert_eq!(
            validates, reads,
            "{field}: validates {validates}, reads {reads}"
        );
        if !reads {
            found.push(field);
        }
    }
    // What a document must hold: the field read by its own function is required, `Option` though it is;
    // `name` under one of the names it is read from.
    assert_eq!(found, ["plain", "shipped", "name"]);
    let mut aliased = full.clone();
    let name = aliased.as_object_mut().unwrap().remove("name").unwrap();
    aliased["label"] = name;
    assert!(Doc::<Kinds>::from_slice(&serde_json::to_vec(&aliased).unwrap()).is_ok());
    assert_valid(&schema, &aliased);
}

/// A bookmark placed by an order key.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "bookmark", schema = "1.0", key = "bookmark::{id}")]
struct Placed {
    id: u64,
    place: docmodel::OrderKey,
}

/// The schema's pattern for an order key against the reader: a document validates exactly when its key
/// reads, for keys made by the type and for texts that are not keys.
#[test]
fn an_order_key_validates_exactly_when_it_reads() {
    let schema = json_schema::<Placed>();
    let first = docmodel::OrderKey::first();
    let mut texts: Vec<String> = vec![
        first.as_str().into(),
        first.after().as_str().into(),
        first.before().as_str().into(),
        docmodel::OrderKey::between(&first, &first.after())
            .unwrap()
            .as_str()
            .into(),
        format!("z{}", "z".repeat(13)),
        format!("z{}i", "z".repeat(13)),
        format!("a{}1", "0".repeat(13)),
        format!("a{}1", "0".repeat(12)),
        format!("a{}", "0".repeat(13)),
        format!("a{}0", "0".repeat(13)),
        format!("a{}", "0".repeat(12)),
        format!("b{}", "1".repeat(12)),
        format!("b{}", "1".repeat(11)),
    ];
    for text in [
        "", "n", "n0i0", "n00", "N0", "o0", "o00", "o00z", "n0-", "n0A", "ma", "m",
    ] {
        texts.push(text.into());
    }
    let mut reading = 0;
    for text in &texts {
        let doc = json!({"_type": "bookmark", "_schema": "1.0", "_ver": 1, "id": 1, "place": text});
        let reads = Doc::<Placed>::from_slice(&serde_json::to_vec(&doc).unwrap()).is_ok();
        let validates = failures(&schema, &doc).is_empty();
        assert_eq!(
            validates, reads,
            "{text:?}: validates {validates}, reads {reads}"
        );
        reading += usize::from(reads);
    }
    assert_eq!(reading, 12, "the keys among the texts");
}
