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
    assert_eq!(
        properties["userId"],
        json!({ "type": "integer", "minimum": 0, "maximum": u64::MAX })
    );
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
        since: None,
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
