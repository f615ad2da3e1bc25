//! One policy for what a stored document may hold: the one-pass reader (a document at the current schema) and
//! the migration path (one at an older schema) refuse the same documents, with the same reason.

use docmodel::{Doc, Error};
use docmodel_tests::seeds::UserV2;

/// A 2.0 user read as it is, and a 1.0 user migrated to 2.0, each with `extra` among its fields.
fn read_both(extra: &str) -> [Result<Doc<UserV2>, Error>; 2] {
    let current = format!(
        r#"{{"_type":"user","_schema":"2.0","userId":123,"firstName":"Joe","lastName":"Smith","phone":"1",{extra}}}"#
    );
    let older = format!(
        r#"{{"_type":"user","_schema":"1.0","userId":123,"name":"Joe Smith","phone":"1",{extra}}}"#
    );
    [current, older].map(|stored| Doc::<UserV2>::from_slice_at(UserV2::key(123), stored.as_bytes()))
}

#[test]
fn hostile_fields_the_model_does_not_know_are_refused_on_every_path() {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let cases = [
        (
            format!(r#""notes":{}"#, deep(200)),
            "nests deeper than 127 levels",
        ),
        (
            format!(r#""notes":{}"#, deep(100_000)),
            "nests deeper than 127 levels",
        ),
        (r#""score":1e999"#.to_owned(), "out of the range of an f64"),
        (r#""nick":"\ud800""#.to_owned(), "lone surrogate"),
        (
            r#""prefs":{"theme":"dark","theme":"light"}"#.to_owned(),
            "twice",
        ),
        (
            r#""nick":"a","nick":"b""#.to_owned(),
            "duplicate field `nick`",
        ),
    ];
    for (extra, reason) in cases {
        let shown = &extra[..extra.len().min(40)];
        for (path, read) in ["current", "migrated"].into_iter().zip(read_both(&extra)) {
            let err = match read {
                Ok(_) => panic!("{path}: {shown} was read"),
                Err(err) => err,
            };
            let message = err.to_string();
            assert!(
                matches!(err, Error::Codec { .. } | Error::Migration { .. }),
                "{path}: {shown}: {err:?}"
            );
            // The migration path names the number or the surrogate by serde_json's words.
            let said = message.contains(reason)
                || (reason.contains("f64") && message.contains("number out of range"))
                || (reason.contains("surrogate")
                    && (message.contains("surrogate") || message.contains("hex escape")))
                || (reason.contains("deeper") && message.contains("recursion limit exceeded"))
                || (reason.contains("twice") && message.contains("duplicate field `theme`"));
            assert!(said, "{path}: {shown}: {message}");
        }
    }
}

#[test]
fn what_the_policy_allows_is_kept_on_every_path() {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    for extra in [
        format!(r#""notes":{}"#, deep(120)),
        r#""score":1e308"#.to_owned(),
        r#""nick":"\ud83d\ude00""#.to_owned(),
        r#""prefs":{"theme":"dark","colors":{"theme":"light"}}"#.to_owned(),
    ] {
        for read in read_both(&extra) {
            let doc = read.unwrap_or_else(|err| panic!("{}: {err}", &extra[..extra.len().min(40)]));
            let name = extra[1..].split('"').next().unwrap();
            assert!(
                doc.unknown_fields().any(|(field, _)| field == name),
                "{extra}"
            );
        }
    }
}

/// Numbers a JSON value holds only approximately (an integer beyond 64 bits, a fraction an `f64` rounds, an
/// exponent) in fields no step changed.
const INEXACT: [&str; 4] = [
    r#""big":123456789012345678901234567890"#,
    r#""ratio":0.1000000000000000055511151231257827"#,
    r#""sizes":[1e2,-18446744073709551617,{"x":2.50}]"#,
    r#""limit":18446744073709551616"#,
];

#[test]
fn numbers_no_step_touched_come_back_as_stored_on_every_path() {
    let extra = INEXACT.join(",");
    for (path, read) in ["current", "migrated"].into_iter().zip(read_both(&extra)) {
        let doc = read.unwrap_or_else(|err| panic!("{path}: {err}"));
        let written = String::from_utf8(doc.to_vec().unwrap()).unwrap();
        for field in INEXACT {
            let (name, stored) = field[1..].split_once("\":").unwrap();
            let kept = doc.unknown_fields().find(|(found, _)| *found == name);
            assert_eq!(kept, Some((name, stored)), "{path}");
            assert!(written.contains(field), "{path}: {field} in {written}");
        }
        if path == "migrated" {
            assert!(
                written.contains(r#""firstName":"Joe","lastName":"Smith""#),
                "{written}"
            );
            assert!(!written.contains(r#""name""#), "{written}");
        }
    }
}

mod touched {
    use docmodel::{Doc, DocModel, JsonObject, MigrationError};
    use serde::{Deserialize, Serialize};

    /// 1.0 -> 2.0: a price in cents becomes one in units.
    pub fn cents_to_units(doc: &mut JsonObject) -> Result<(), MigrationError> {
        let cents = doc
            .get("price")
            .and_then(serde_json::Value::as_f64)
            .ok_or_else(|| MigrationError::missing_field("price"))?;
        doc.insert("price".into(), (cents / 100.0).into());
        Ok(())
    }

    #[derive(Debug, Serialize, Deserialize, DocModel)]
    #[docmodel(type = "item", schema = "2.0", key = "item::{id}", migrate_from("1.0" = cents_to_units))]
    pub struct Item {
        pub id: u64,
        pub price: f64,
        /// Beyond 64 bits: read exactly from the stored text, as at the current schema.
        pub serial: u128,
    }

    /// 1.0 -> 2.0: `b` takes the place of `a`.
    pub fn b_replaces_a(doc: &mut JsonObject) -> Result<(), MigrationError> {
        let b = doc
            .remove("b")
            .ok_or_else(|| MigrationError::missing_field("b"))?;
        doc.insert("a".into(), b);
        Ok(())
    }

    #[derive(Debug, Serialize, Deserialize, DocModel)]
    #[docmodel(type = "pair", schema = "2.0", key = "pair::{id}", migrate_from("1.0" = b_replaces_a))]
    pub struct Pair {
        pub id: u64,
    }

    #[test]
    fn a_value_moved_onto_a_field_that_parsed_the_same_is_not_given_the_fields_old_text() {
        // Both parse to the same f64: which one is in `a` after the step is not known from the values.
        let stored = br#"{"_type":"pair","_schema":"1.0","id":1,"a":12345678901234567890123,"b":12345678901234567890124}"#;
        let doc = Doc::<Pair>::from_slice(stored).unwrap();
        let a = doc
            .unknown_fields()
            .find(|(name, _)| *name == "a")
            .unwrap()
            .1;
        assert_ne!(
            a, "12345678901234567890123",
            "the text of the value the step replaced"
        );
        assert_eq!(a.parse::<f64>().unwrap(), 12345678901234567890124.0);
    }

    #[test]
    fn a_value_a_step_changed_is_the_steps_and_the_rest_as_stored() {
        let stored = br#"{"_type":"item","_schema":"1.0","id":7,"price":1999.0,"serial":340282366920938463463374607431768211455,"weight":0.30000000000000004441}"#;
        let doc = Doc::<Item>::from_slice(stored).unwrap();
        assert_eq!(doc.body().price, 19.99);
        assert_eq!(doc.body().serial, u128::MAX);
        let written = String::from_utf8(doc.to_vec().unwrap()).unwrap();
        assert!(written.contains(r#""price":19.99"#), "{written}");
        assert!(
            written.contains(r#""serial":340282366920938463463374607431768211455"#),
            "{written}"
        );
        assert!(
            written.contains(r#""weight":0.30000000000000004441"#),
            "{written}"
        );
    }
}

/// What a repository writes: no document larger or deeper than its limits, and nothing at all of a write
/// that would be.
mod repository {
    use docmodel::store::MemoryStore;
    use docmodel::{DocModel, Error, Limit, Limits, Repo};
    use docmodel_tests::text;
    use serde::{Deserialize, Serialize};
    use serde_json::{Value, json};

    #[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
    #[docmodel(type = "note", schema = "1.0", key = "note::{id}", revisions = 3)]
    #[docmodel(lookup = "note_by_slug::{slug}")]
    struct Note {
        id: u64,
        slug: String,
        text: String,
        tree: Value,
    }

    /// 1.0 -> 2.0: the text is kept with a copy for each of ten languages.
    pub fn translate(doc: &mut docmodel::JsonObject) -> Result<(), docmodel::MigrationError> {
        let text = doc.get("text").cloned().unwrap_or_default();
        doc.insert("translations".into(), vec![text; 10].into());
        Ok(())
    }

    #[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
    #[docmodel(type = "note", schema = "2.0", key = "note::{id}", revisions = 3)]
    #[docmodel(migrate_from("1.0" = translate), lookup = "note_by_slug::{slug}")]
    struct NoteV2 {
        id: u64,
        slug: String,
        text: String,
        translations: Vec<String>,
        tree: Value,
    }

    fn note(text: &str, tree: Value) -> Note {
        Note {
            id: 1,
            slug: "first".into(),
            text: text.into(),
            tree,
        }
    }

    /// A value nesting `levels` arrays.
    fn nested(levels: usize) -> Value {
        serde_json::from_str(&format!("{}{}", "[".repeat(levels), "]".repeat(levels))).unwrap()
    }

    #[tokio::test]
    async fn an_insert_past_a_limit_writes_nothing() {
        let store = MemoryStore::new();
        let notes = Repo::<Note>::new(&store).limits(Limits::default().max_bytes(200));
        let err = notes
            .insert(note(&"x".repeat(300), json!(null)))
            .await
            .unwrap_err();
        let Error::OverLimit {
            key,
            limit: Limit::Bytes,
            found,
            max: 200,
        } = &err
        else {
            panic!("{err:?}");
        };
        assert_eq!(key, "note::1");
        assert!(*found > 300, "{found}");
        assert_eq!(
            err.to_string(),
            format!(
                "document `note::1` is {found} bytes, over the limit of 200 (`Limits::max_bytes`); \
                 nothing was written"
            )
        );
        assert!(store.keys().is_empty(), "{:?}", store.keys());
    }

    #[tokio::test]
    async fn by_default_no_document_is_written_that_could_not_be_read_back() {
        let store = MemoryStore::new();
        let notes = Repo::<Note>::new(&store);
        // The document is level 1 and `tree` level 2: 126 arrays reach 127.
        let err = notes.insert(note("deep", nested(127))).await.unwrap_err();
        assert!(
            matches!(
                err,
                Error::OverLimit {
                    limit: Limit::Depth,
                    found: 128,
                    max: 127,
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(store.keys().is_empty());

        notes.insert(note("deep", nested(126))).await.unwrap();
        let read = notes.get(&Note::key(1)).await.unwrap().unwrap();
        assert_eq!(read.tree, nested(126));
    }

    #[tokio::test]
    async fn a_save_an_update_and_a_migration_past_a_limit_leave_the_stored_version() {
        let store = MemoryStore::new();
        let notes = Repo::<Note>::new(&store).limits(Limits::default().max_depth(4));
        notes.insert(note("v1", json!([[1]]))).await.unwrap();
        let stored = text(&store, "note::1").await.unwrap();

        let mut doc = notes.get(&Note::key(1)).await.unwrap().unwrap();
        doc.tree = json!([[[[1]]]]);
        doc.slug = "moved".into();
        let err = notes.save(&mut doc).await.unwrap_err();
        assert!(
            matches!(
                err,
                Error::OverLimit {
                    limit: Limit::Depth,
                    found: 5,
                    max: 4,
                    ..
                }
            ),
            "{err:?}"
        );
        assert_eq!(doc.envelope().ver, 1);

        let err = notes
            .update(&Note::key(1), |note| note.tree = nested(4))
            .await
            .unwrap_err();
        assert!(matches!(err, Error::OverLimit { .. }), "{err:?}");

        // Nothing changed: the document, no revision copy, the lookup still naming it.
        assert_eq!(text(&store, "note::1").await.unwrap(), stored);
        assert_eq!(store.keys(), ["note::1", "note_by_slug::first"]);

        // A migration that would write a document past a limit leaves it at its old schema.
        // Ten copies of the text (`"v1",`) and the field's name add some 70 bytes.
        let max = stored.len() + 40;
        let longer = Repo::<NoteV2>::new(&store).limits(Limits::default().max_bytes(max));
        // A dry run refuses it as the run does: what it checks is the document a save would write.
        let dry = longer
            .migrate_all()
            .keys([NoteV2::key(1)])
            .dry_run(true)
            .await
            .unwrap();
        assert!(
            matches!(&dry.failed[..], [failure] if matches!(failure.error, Error::OverLimit { .. })),
            "{dry}"
        );
        let report = longer.migrate_all().keys([NoteV2::key(1)]).await.unwrap();
        assert_eq!(report.migrated, 0, "{report}");
        let [failure] = &report.failed[..] else {
            panic!("{report}");
        };
        assert_eq!(failure.key, "note::1");
        assert!(
            matches!(failure.error, Error::OverLimit { limit: Limit::Bytes, max: m, .. } if m == max),
            "{:?}",
            failure.error
        );
        assert_eq!(text(&store, "note::1").await.unwrap(), stored);
    }
}
