//! The rustdoc page `#[derive(DocModel)]` writes, read as a user reads it: `cargo doc` on the fixture crate
//! (`rustdoc-fixture/lib.rs`, a model with a field of every kind and one with `conventions`), then the text
//! of the generated HTML. The JSON the page shows is compared with what docmodel stores for the same model.
//!
//! The fixture is built in its own workspace and target directory (`target/tests/rustdoc`), so this test
//! never waits on the cargo lock of the build that runs it; the first run compiles docmodel's dependencies
//! there once.

use docmodel_tests::keys_under;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use docmodel::store::{MemoryStore, Store};
use docmodel::{Doc, DocModel, EnvelopeField, Repo, Timestamp};
use serde_json::Value;

#[path = "../../rustdoc-fixture/lib.rs"]
#[allow(dead_code)]
mod fixture;

#[test]
fn the_page_shows_the_model_its_fields_and_the_documents_it_writes() {
    let text = page_text(&read_page("struct.Order.html"));
    assert_in_order(
        &text,
        &[
            "order documents",
            "Type | order |",
            "Schema | 2.0 |",
            "Key | order:{region}:{order_no} (delimiter :; built by Order::key) |",
            "Revisions | a save keeps the replaced version under order:{region}:{order_no}:v:{n}, the last 5 of them |",
            "Lookups | orderref:{reference} |",
            "Envelope | flat: _type, _schema, _ver, _created, _modified; timestamps epoch_ms |",
            "Stored JSON",
            "The document under order:{region}:{order_no}:",
            "{",
            "\"_type\": \"order\",",
            "\"_schema\": \"2.0\",",
            "\"_ver\": 1,",
            "\"_created\": 1544759124478,",
            "\"_modified\": 1544759124478,",
            "\"kind\": \"<Order: its serde name>\",",
            "\"region\": \"…\",",
            "\"orderNo\": 0,",
            "\"reference\": \"…\",",
            "\"status\": \"<Status>\",",
            "\"track\": \"<Ref<Track>: key string>\",",
            "\"extras\": [\"<Ref<Track>: key string>\"],",
            "\"suggestedBy\": \"<Ref<Track>: bare id>\",",
            "\"payment\": \"<Uuid: string>\",",
            "\"placed\": 1544759124478,",
            "\"paid\": 1544759124,",
            "\"shipped\": 1544759124478,",
            "\"note\": \"…\",",
            "\"gift\": false,",
            "\"message\": \"…\",",
            "\"coupons\": [\"…\"],",
            "\"total\": 0,",
            "\"weight\": 0.0,",
            "\"qty\": 0,",
            "\"initial\": \"a\",",
            "\"tags\": {\"…\": 0},",
            "\"shelf\": [0, \"…\"],",
            "\"extra\": \"<JsonValue: any JSON>\",",
            "\"shipTo\": \"<Address: object>\"",
            "}",
            "A revision copy holds the document as it was, with \"_copyOf\" added: the key of the document it \
             copies, which a query of another client leaves copies out by; and \"_copyNext\", the digests of the \
             versions saved from it, by which a merge follows each side's history.",
            "An envelope field without a value (a time before a Repo writes the document, an actor the Repo was \
             not given) is left out, never written as null.",
            "\"note\" is left out when its skip_serializing_if function says so.",
            "\"message\" is left out when it is Missing.",
            "\"coupons\" is left out when it is empty (null, \"\", [], {}).",
            "A value \"<...>\" stands for one the derive cannot know from the type's name: it names the type and, \
             where docmodel knows it, the form (see Fields).",
            "Fields a read found but this model does not know are kept and written back after these.",
            "Fields",
            "\"region\" (region: String): a string.",
            "The sales region, part of the key.",
            "\"orderNo\" (order_no: u64): a number.",
            "\"reference\" (reference: String): a string.",
            "The customer's own reference for the order.",
            "Unique: the lookup orderref:{reference} finds the order by it.",
            "\"status\" (status: Status): as Status serializes itself.",
            "How far the order has got.",
            "\"track\" (track: Ref<Track>): the key of a Track document, a string.",
            "\"extras\" (extras: Vec<Ref<Track>>): an array, each the key of a Track document, a string.",
            "\"suggestedBy\" (suggested_by: Ref<Track>): a string, the referred document's key without its fixed text (docmodel::ref_id).",
            "\"payment\" (payment: Uuid): a hyphenated UUID string.",
            "\"placed\" (placed: Timestamp): epoch milliseconds, a number.",
            "\"paid\" (paid: Timestamp): a number, the time since the epoch (docmodel::timestamp::epoch_s).",
            "When it was paid, in whole seconds.",
            "\"shipped\" (shipped: Option<Timestamp>): epoch milliseconds, a number, or null.",
            "\"note\" (note: Option<String>): a string, or null; left out when its skip_serializing_if function \
             says so.",
            "\"gift\" (gift: bool): true or false.",
            "\"message\" (message: Presence<String>): Value: a string; Empty: \"\"; Null: null; left out when it \
             is Missing.",
            "The gift message: none asked for, asked for and left blank, refused, or a text.",
            "\"coupons\" (coupons: Vec<String>): an array, each a string; left out when it is empty (null, \"\", \
             [], {}).",
            "\"total\" (total: i64): a number.",
            "\"weight\" (weight: f64): a number.",
            "\"qty\" (quantity: u32): a number.",
            "\"initial\" (initial: char): a string of one character.",
            "\"tags\" (tags: BTreeMap<String, u32>): an object, each value a number.",
            "\"shelf\" (shelf: (u8, String)): an array: a number; a string.",
            "\"extra\" (extra: JsonValue): any JSON.",
            "\"shipTo\" (ship_to: Address): an object, the fields of Address as its page shows them (their \
             paths are under Order::fields().ship_to).",
            "Where the order goes.",
            "price_list: u64 is not stored (serde(skip)).",
            "The price list the total was worked out with; not stored.",
            "Field paths",
            "Order::fields().paid | \"paid\" (as its serde attribute writes it; compared as JSON) |",
            "Other documents",
            "Besides the documents under order:{region}:{order_no}, the model's repository writes:",
            "key | holds |",
            "orderref:{reference} (lookup) | {\"ref\":\"<key: order:{region}:{order_no}>\"}: the key of the \
             document it finds; claimed before the document is written, moved when the fields it is built \
             from change |",
            "order:{region}:{order_no}:v:{n} (revision copy) | the document as it was when _ver was n, the same \
             bytes with \"_copyOf\": \"<key>\" first (the key of the document; other clients leave copies out \
             by it) and \"_copyNext\": [\"<digest>\"] last (the versions saved from it, which a merge follows); \
             each save writes one, and the last 5 are kept |",
            "index:order:status,placed:<values><key> (index entry) | {\"ref\":\"<key: order:{region}:{order_no}>\"}, \
             one per document, <values> being its status, placed written to sort as they compare |",
            "index:order:status,placed (index marker) | \
             {\"complete\":true,\"index\":\"status,placed\",\"paths\":[[\"status\"],[\"placed\"]]} once \
             Repo::ensure_indexes has built the index |",
            "index:order:@schema:<values><key> (index entry) | {\"ref\":\"<key: order:{region}:{order_no}>\"}, one \
             per document, <values> being its schema written to sort as they compare |",
            "index:order:@schema (index marker) | {\"complete\":true,\"index\":\"@schema\",\"paths\":[[\"_schema\"]]} \
             once Repo::ensure_indexes has built the index |",
            "count:order (id counter) | {\"value\":42}: the last id Repo::next_id handed out (on Couchbase, the \
             server's own counter: 42); written only by next_id |",
            "With indexes, a model keeps one more, @schema, so that a find counts the documents below its schema. \
             Index entries and markers are kept on stores that can list keys (MemoryStore, Redb); CouchDB keeps \
             its indexes itself.",
            // The key function's: `:` reads as the delimiter, not as punctuation.
            "docmodel::Error::InvalidKey when a part is empty or contains a character of the key's delimiter (:), \
             so that a key never silently changes.",
        ],
    );
}

#[test]
fn a_conventions_model_shows_its_body_and_where_the_envelope_goes() {
    let text = page_text(&read_page("struct.Note.html"));
    assert_in_order(
        &text,
        &[
            "note documents",
            "Envelope | as the conventions Mobile set it (Note::ENVELOPE) |",
            "Stored JSON",
            "The document under note::{id}:",
            "{",
            "\"<envelope: as Mobile sets it>\": \"…\",",
            "\"id\": 0,",
            "\"text\": \"…\"",
            "}",
            "The envelope's fields come from the conventions Mobile, which the derive cannot see: they are \
             written first, at the top level or under the meta object as its layout says (Note::ENVELOPE holds \
             them), then the body.",
            "The model's skip_empty leaves out a body field that is empty (null, \"\", [], {}) where it can be: an \
             Option, a Presence, a string, sequence, set or map, or a field with a serde default.",
            "Fields",
            "\"text\" (text: String): a string.",
            "What was written.",
            "count::note (id counter) | {\"value\":42}: the last id Repo::next_id handed out (on Couchbase, the \
             server's own counter: 42); written only by next_id |",
        ],
    );
}

/// The example on each page has the names docmodel writes, in its order, with values of the same JSON
/// kind; a `"<...>"` placeholder stands for any value. The envelope's values are the ones stored.
#[test]
fn the_json_on_the_page_is_what_docmodel_stores() {
    let mut order = Doc::new(fixture::order()).unwrap();
    let envelope = order.envelope_mut();
    envelope.created = Some(Timestamp::from_millis(1_544_759_124_478));
    envelope.modified = envelope.created;
    let stored = entries(&order.to_vec().unwrap());
    let shown = entries(page_json(&read_page("struct.Order.html")).as_bytes());
    assert_same_document(&shown, &stored);

    // Under conventions the page shows the body only, after a placeholder for the envelope.
    let note = Doc::new(fixture::note()).unwrap();
    let stored = entries(&note.to_vec().unwrap());
    let shown = entries(page_json(&read_page("struct.Note.html")).as_bytes());
    let (placeholder, body) = shown.split_first().unwrap();
    assert!(is_placeholder(&placeholder.0), "{placeholder:?}");
    let envelope_names = stored.len() - body.len();
    let spec = fixture::Note::ENVELOPE;
    for (name, _) in &stored[..envelope_names] {
        assert!(
            EnvelopeField::ALL
                .iter()
                .any(|field| spec.keeps(*field) && spec.name(*field) == name),
            "`{name}` comes before the body but is not the envelope's"
        );
    }
    assert_same_document(body, &stored[envelope_names..]);
}

/// A struct deriving `Embedded` shows on its own page the object a model stores it as, which the model's page
/// links to from the field holding it (the model's derive sees only the model's tokens, not the struct's).
#[test]
fn an_embedded_structs_page_shows_the_object_a_model_stores() {
    let html = read_page("struct.Address.html");
    assert_in_order(
        &page_text(&html),
        &[
            "Where an order goes.",
            "Stored JSON",
            "Inside a model's document, under a field of type Address marked #[docmodel(nested)]:",
            "Fields",
            "\"city\" (city: String): a string.",
            "\"postCode\" (post_code: Option<String>): a string, or null.",
            "courier_note: String is not stored (serde(skip)).",
        ],
    );
    let order = Doc::new(fixture::order()).unwrap();
    let stored = entries(&order.to_vec().unwrap());
    let (_, ship_to) = stored
        .iter()
        .find(|(name, _)| name == "shipTo")
        .expect("the order stores shipTo");
    let stored = entries(&serde_json::to_vec(ship_to).unwrap());
    assert_same_document(&entries(page_json(&html).as_bytes()), &stored);
    let order_page = read_page("struct.Order.html");
    assert!(
        order_page.contains(r#"an object, the fields of <a href="struct.Address.html""#),
        "the order's page links to the address's"
    );
}

/// The model's page opens with the summary: a derive cannot write into the struct's own docs (they are the
/// user's text, and its output goes beside the struct), so the summary is the doc of the derive's `impl`
/// block, which rustdoc shows first under "Implementations", right under the struct's docs when its fields are
/// private, and before the model's own methods.
#[test]
fn the_summary_comes_right_under_the_models_own_docs() {
    let html = read_page("struct.Order.html");
    let docs_end = html
        .find(r#"<details class="toggle top-doc" open>"#)
        .expect("the struct's docs");
    let after_docs = &html[docs_end..];
    let docs_end = after_docs
        .find("</details>")
        .expect("the end of the struct's docs");
    let after_docs = &after_docs[docs_end..];
    let summary = after_docs
        .find(r#"id="order-documents""#)
        .expect("the summary's title");
    let between = page_text(&after_docs[..summary]);
    assert_eq!(
        between
            .replace('§', " ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
        "Implementations Source impl Order",
        "only the section's heading and the impl's line come between the struct's docs and the summary"
    );
    let text = page_text(&html);
    assert_in_order(
        &text,
        &[
            "An order of tracks.",
            "order documents",
            "Stored JSON",
            "pub fn key(region: &str, order_no: u64) -> Result<Key<Self>, Error>",
            "pub fn is_paid(&self) -> bool",
            "Trait Implementations§",
        ],
    );
}

/// The pages name what a user can name: none of the expansion's own aliases, and no table without a header.
#[test]
fn the_pages_show_no_internal_names() {
    for page in [
        "struct.Order.html",
        "struct.Note.html",
        "struct.Track.html",
        "struct.Album.html",
        "struct.Session.html",
    ] {
        let html = read_page(page);
        assert!(!html.contains("_docmodel"), "{page} names `_docmodel`");
        assert!(!html.contains("__private"), "{page} names `__private`");
        assert!(
            !html.contains("<thead><tr><th></th><th></th></tr></thead>"),
            "{page} has a table with an empty header"
        );
    }
    let text = page_text(&read_page("struct.Order.html"));
    assert_in_order(
        &text,
        &[
            "Model | Order |",
            "Type | order |",
            "const ENVELOPE: EnvelopeSpec = ::docmodel::EnvelopeSpec::DEFAULT",
        ],
    );
}

/// The root layout's page shows the document under its root attribute, as docmodel stores it.
#[test]
fn a_root_layout_page_shows_the_root_attribute() {
    let text = page_text(&read_page("struct.Album.html"));
    assert_in_order(
        &text,
        &[
            "Envelope | root, under album, the type, which holds the rest: schema, ver, created, modified; \
             timestamps epoch_s |",
            "Stored JSON",
            "\"album\": {",
            "\"schema\": \"1.0\",",
            "\"ver\": 1,",
            "A revision copy holds the document as it was, with \"copyOf\" added to its root attribute's \
             object: the key of the document it copies, which a query of another client leaves copies out by; \
             and \"copyNext\", the digests of the versions saved from it, by which a merge follows each side's \
             history.",
        ],
    );
    let mut album = Doc::new(fixture::album()).unwrap();
    let envelope = album.envelope_mut();
    envelope.created = Some(Timestamp::from_millis(1_544_759_124_000));
    envelope.modified = envelope.created;
    let stored = String::from_utf8(album.to_vec().unwrap()).unwrap();
    let shown = page_json(&read_page("struct.Album.html"));
    for json in [&stored, &shown] {
        let outer = entries(json.as_bytes());
        assert_eq!(
            outer
                .iter()
                .map(|(name, _)| name.as_str())
                .collect::<Vec<_>>(),
            ["album"],
            "{json}"
        );
    }
    // The root attribute's object, as written: from the first `{` after the name to the last `}` but one.
    let inner = |json: &str| {
        let start = json.find(':').unwrap() + 1;
        let end = json.trim_end().len() - 1;
        entries(json[start..end].trim().as_bytes())
    };
    assert_same_document(&inner(&shown), &inner(&stored));
}

#[test]
fn a_lookup_holding_the_bare_id_says_so() {
    let text = page_text(&read_page("struct.Track.html"));
    assert_in_order(
        &text,
        &[
            "Lookups | isrc::{isrc} |",
            "Other documents",
            "isrc::{isrc} (lookup) | {\"ref\":\"<id>\"}: the bare id of the document it finds (ref_id), the \
             {id} of track::{id}; claimed before the document is written, moved when the fields it is built \
             from change |",
        ],
    );
}

#[test]
fn a_key_part_left_to_the_key_and_a_legacy_name_say_so() {
    let text = page_text(&read_page("struct.Session.html"));
    assert_in_order(
        &text,
        &[
            "Key | session::{email} (delimiter ::; built by Session::key) |",
            "Existing documents | envelope fields under legacy names read, and are written back under the \
             model's: _type as type |",
            "Envelope | plain: type, schema, ver, created, createdBy, modified; timestamps epoch_ms |",
            // An actor the application names: a placeholder, not an invented value.
            "\"createdBy\": \"<the actor: Repo::actor>\",",
            "email: String is not stored: a read takes it from the key's {email} part (from_key).",
            "The user's email.",
            "\"source\" (source: String): a string.",
        ],
    );
}

/// Every key a repository writes for the model matches a row of the page's Other documents (or the model's
/// key), and holds what the row says.
#[test]
fn the_other_documents_on_the_page_are_the_ones_a_repository_writes() {
    let text = page_text(&read_page("struct.Order.html"));
    let section = &text[text.find("\nOther documents\n").unwrap()..];
    // `pattern (what) | holds |`: the key patterns of each row, and the JSON it holds if it says.
    let rows: Vec<(Vec<&str>, Option<&str>)> = section
        .lines()
        .filter(|line| line.contains(") | "))
        .map(|line| {
            let (keys, holds) = line.split_once(" | ").unwrap();
            let keys = keys[..keys.rfind(" (").unwrap()].split(", ").collect();
            let json = holds.starts_with('{').then(|| {
                let mut depth = 0;
                let end = holds
                    .char_indices()
                    .find(|(_, c)| {
                        depth += match c {
                            '{' => 1,
                            '}' => -1,
                            _ => 0,
                        };
                        depth == 0
                    })
                    .unwrap()
                    .0;
                &holds[..=end]
            });
            (keys, json)
        })
        .collect();
    assert_eq!(rows.len(), 7, "{section}");

    let store = MemoryStore::new();
    let orders = Repo::<fixture::Order>::new(&store);
    let (key, first_version, second_version, keys) = pollster::block_on(async {
        orders.ensure_indexes().await.unwrap();
        let mut doc = orders.insert(fixture::order()).await.unwrap();
        let key = doc.key().as_str().to_owned();
        let first_version = store.get(&key).await.unwrap().unwrap().bytes;
        orders.save(&mut doc).await.unwrap();
        let second_version = store.get(&key).await.unwrap().unwrap().bytes;
        orders.next_id().await.unwrap();
        (
            key,
            first_version,
            second_version,
            keys_under(&store, "").await,
        )
    });
    let mut seen = vec![false; rows.len()];
    for stored_key in keys.iter().filter(|stored_key| **stored_key != key) {
        let at = rows
            .iter()
            .position(|(patterns, _)| {
                patterns
                    .iter()
                    .any(|pattern| matches_pattern(pattern, stored_key))
            })
            .unwrap_or_else(|| {
                panic!("`{stored_key}` is written, but no row of the page names it")
            });
        seen[at] = true;
        let bytes = pollster::block_on(store.get(stored_key))
            .unwrap()
            .unwrap()
            .bytes;
        match rows[at].1 {
            Some(json) => {
                let (shown, stored): (Value, Value) = (
                    serde_json::from_str(json).unwrap(),
                    serde_json::from_slice(&bytes).unwrap(),
                );
                assert!(
                    same_kind(&shown, &stored),
                    "`{stored_key}` holds {stored}; the page says {json}"
                );
                if let Some(reference) = stored.get("ref") {
                    assert_eq!(reference, &Value::from(key.as_str()), "`{stored_key}`");
                }
            }
            // The revision copy: the document as it was, the same bytes with the marker first and the
            // digest of the version saved from it last.
            None => {
                let marker = format!(r#"{{"_copyOf":{},"#, Value::from(key.as_str()));
                let mut expected = marker.into_bytes();
                expected.extend_from_slice(&first_version[1..first_version.len() - 1]);
                expected.extend_from_slice(
                    format!(
                        r#","_copyNext":["{}"]}}"#,
                        docmodel::__private::version_digest(&second_version)
                    )
                    .as_bytes(),
                );
                assert_eq!(&bytes[..], &expected[..], "`{stored_key}`");
                assert!(
                    section.contains(r#"with "_copyOf": "<key>" first"#),
                    "the page names the marker: {section}"
                );
            }
        }
    }
    assert!(
        seen.iter().all(|seen| *seen),
        "rows no key matched: {seen:?}\n{section}"
    );
}

/// Whether `text` is one of the keys `pattern` describes: each `{part}` or `<...>` of it stands for any
/// text that is not empty.
fn matches_pattern(pattern: &str, text: &str) -> bool {
    let Some(open) = pattern.find(['{', '<']) else {
        return pattern == text;
    };
    let close = if pattern[open..].starts_with('{') {
        '}'
    } else {
        '>'
    };
    let end = open + pattern[open..].find(close).unwrap() + 1;
    let (literal, rest) = (&pattern[..open], &pattern[end..]);
    let Some(text) = text.strip_prefix(literal) else {
        return false;
    };
    (1..=text.len())
        .filter(|at| text.is_char_boundary(*at))
        .any(|at| matches_pattern(rest, &text[at..]))
}

/// The fixture's documentation, built once for all the tests here.
fn doc_dir() -> &'static Path {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match BUILT.get_or_init(build_docs) {
        Ok(dir) => dir,
        Err(message) => panic!("{message}"),
    }
}

/// `cargo doc` on the fixture, as a crate of its own under `target/tests/rustdoc`, with rustdoc's warnings
/// (a broken link on the page) as errors.
fn build_docs() -> Result<PathBuf, String> {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = tests.parent().unwrap();
    let project = workspace.join("target/tests/rustdoc");
    std::fs::create_dir_all(&project).map_err(|err| format!("{}: {err}", project.display()))?;
    // Held while cargo may rewrite the pages, which each read holds shared.
    let lock = pages_lock();
    lock.lock()
        .map_err(|err| format!("locking the pages: {err}"))?;
    let manifest = format!(
        "[package]\nname = \"docmodel-rustdoc-fixture\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [lib]\npath = {lib:?}\n\n\
         [dependencies]\n\
         docmodel = {{ path = {docmodel:?}, default-features = false, features = [\"uuid\"] }}\n\
         serde = {{ version = \"1\", features = [\"derive\"] }}\n\n\
         [workspace]\n",
        lib = tests.join("rustdoc-fixture/lib.rs"),
        docmodel = workspace.join("docmodel"),
    );
    write_if_changed(&project.join("Cargo.toml"), manifest.as_bytes())?;
    // The workspace's versions of every dependency: nothing is resolved or downloaded anew.
    let lock = std::fs::read(workspace.join("Cargo.lock"))
        .map_err(|err| format!("reading Cargo.lock: {err}"))?;
    write_if_changed(&project.join("Cargo.lock"), &lock)?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(&cargo)
        .current_dir(&project)
        .env("RUSTDOCFLAGS", "-D warnings")
        .env_remove("CARGO_TARGET_DIR")
        .args(["doc", "--no-deps", "--target-dir", "target"])
        .output()
        .map_err(|err| format!("running {cargo}: {err}"))?;
    if !output.status.success() {
        return Err(format!(
            "`cargo doc` of the fixture in {} failed:\n{}",
            project.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(project.join("target/doc/docmodel_rustdoc_fixture"))
}

/// Writes `bytes` to `path` unless it holds them already, through a file renamed into place: under nextest each
/// test is a process of its own, and one process's `cargo doc` must never read a manifest another process is
/// halfway through writing.
fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if std::fs::read(path).is_ok_and(|held| held == bytes) {
        return Ok(());
    }
    let temporary = path.with_extension(format!("{}.tmp", std::process::id()));
    std::fs::write(&temporary, bytes)
        .and_then(|()| std::fs::rename(&temporary, path))
        .map_err(|err| format!("{}: {err}", path.display()))
}

/// A page of the fixture's documentation, read while no other test process rebuilds it: under nextest each
/// test is a process of its own with its own `cargo doc`, and a `cargo doc` that rebuilds the pages removes
/// them first.
fn read_page(file: &str) -> String {
    let path = doc_dir().join(file);
    let lock = pages_lock();
    lock.lock_shared()
        .unwrap_or_else(|err| panic!("locking the pages: {err}"));
    std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// The file whose lock keeps a build of the pages and reads of them apart (released when it is dropped).
fn pages_lock() -> std::fs::File {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/tests/rustdoc/pages.lock");
    std::fs::File::create(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// The text of an HTML page, one line per paragraph, heading, list item, table row or line of a code block;
/// table cells end with ` |`.
fn page_text(html: &str) -> String {
    let mut text = String::new();
    let mut rest = html;
    let mut in_pre = false;
    while let Some(open) = rest.find('<') {
        push_text(&mut text, &rest[..open], in_pre);
        let close = rest[open..]
            .find('>')
            .map_or(rest.len(), |close| open + close + 1);
        let tag = rest[open + 1..close - 1].trim_start_matches('/');
        let name: String = tag
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect();
        let closing = rest[open + 1..].starts_with('/');
        match name.as_str() {
            "pre" => {
                in_pre = !closing;
                text.push('\n');
            }
            "td" | "th" if closing => text.push_str(" |"),
            "td" | "th" => text.push(' '),
            "p" | "li" | "tr" | "h1" | "h2" | "h3" | "h4" | "div" | "section" | "summary"
            | "br" => {
                text.push('\n');
            }
            _ => {}
        }
        rest = &rest[close..];
    }
    push_text(&mut text, rest, in_pre);
    // Rustdoc's typography is not what is tested: its heading anchors and curly apostrophes go.
    text.lines()
        .map(|line| line.trim().trim_start_matches('§').replace('\u{2019}', "'"))
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

fn push_text(text: &mut String, raw: &str, in_pre: bool) {
    let decoded = decode(raw);
    if in_pre {
        text.push_str(&decoded);
    } else {
        let words: Vec<&str> = decoded.split_whitespace().collect();
        if decoded.starts_with(char::is_whitespace) && !words.is_empty() {
            text.push(' ');
        }
        text.push_str(&words.join(" "));
        if decoded.ends_with(char::is_whitespace) && !words.is_empty() {
            text.push(' ');
        }
    }
}

/// Text with HTML's character references replaced by the characters.
fn decode(raw: &str) -> String {
    let mut text = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(at) = rest.find('&') {
        text.push_str(&rest[..at]);
        rest = &rest[at..];
        let Some(end) = rest.find(';').filter(|end| *end <= 10) else {
            text.push('&');
            rest = &rest[1..];
            continue;
        };
        let name = &rest[1..end];
        let decoded = match name {
            "lt" => Some('<'),
            "gt" => Some('>'),
            "amp" => Some('&'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            "nbsp" => Some(' '),
            _ => name
                .strip_prefix("#x")
                .map(|hex| u32::from_str_radix(hex, 16))
                .or_else(|| name.strip_prefix('#').map(str::parse))
                .and_then(Result::ok)
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                text.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                text.push('&');
                rest = &rest[1..];
            }
        }
    }
    text.push_str(rest);
    text
}

/// Each of `expected` is a whole line of `text`, in this order.
fn assert_in_order(text: &str, expected: &[&str]) {
    let lines: Vec<&str> = text.lines().collect();
    let mut at = 0;
    for line in expected {
        match lines[at..].iter().position(|found| found == line) {
            Some(offset) => at += offset + 1,
            None => panic!(
                "the page has no line\n  {line}\nafter line {at}; its text:\n{}",
                lines[at.min(lines.len())..].join("\n")
            ),
        }
    }
}

/// The page's Stored JSON example, as JSON.
fn page_json(html: &str) -> String {
    let start = html
        .find("<pre class=\"language-json\"><code>")
        .expect("the page has a JSON example")
        + "<pre class=\"language-json\"><code>".len();
    let end = start + html[start..].find("</code></pre>").unwrap();
    decode(&html[start..end])
}

/// The members of a JSON object, in the order they are written.
fn entries(json: &[u8]) -> Vec<(String, Value)> {
    struct Entries(Vec<(String, Value)>);
    impl<'de> serde::Deserialize<'de> for Entries {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct Visitor;
            impl<'de> serde::de::Visitor<'de> for Visitor {
                type Value = Entries;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a JSON object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> Result<Entries, A::Error> {
                    let mut entries = Vec::new();
                    while let Some(entry) = map.next_entry()? {
                        entries.push(entry);
                    }
                    Ok(Entries(entries))
                }
            }
            deserializer.deserialize_map(Visitor)
        }
    }
    serde_json::from_slice::<Entries>(json)
        .unwrap_or_else(|err| panic!("{err}: {}", String::from_utf8_lossy(json)))
        .0
}

fn is_placeholder(text: &str) -> bool {
    text.starts_with('<') && text.ends_with('>')
}

fn assert_same_document(shown: &[(String, Value)], stored: &[(String, Value)]) {
    let names = |entries: &[(String, Value)]| -> Vec<String> {
        entries.iter().map(|(name, _)| name.clone()).collect()
    };
    assert_eq!(names(shown), names(stored), "the names, in writing order");
    for ((name, shown), (_, stored)) in shown.iter().zip(stored) {
        if name.starts_with('_') {
            assert_eq!(shown, stored, "the envelope's `{name}`");
        } else {
            assert!(
                same_kind(shown, stored),
                "`{name}`: the page shows {shown}, docmodel stores {stored}"
            );
        }
    }
}

/// Whether `stored` could be the value `shown` stands for.
fn same_kind(shown: &Value, stored: &Value) -> bool {
    match (shown, stored) {
        (Value::String(text), _) if is_placeholder(text) => true,
        (Value::Null, Value::Null)
        | (Value::Bool(_), Value::Bool(_))
        | (Value::String(_), Value::String(_)) => true,
        (Value::Number(shown), Value::Number(stored)) => shown.is_f64() == stored.is_f64(),
        // A tuple: each item its own.
        (Value::Array(shown), Value::Array(stored)) if shown.len() > 1 => {
            shown.len() == stored.len()
                && shown
                    .iter()
                    .zip(stored)
                    .all(|(shown, stored)| same_kind(shown, stored))
        }
        // A sequence: one item stands for all.
        (Value::Array(shown), Value::Array(stored)) => match shown.first() {
            Some(item) => stored.iter().all(|stored| same_kind(item, stored)),
            None => true,
        },
        // A record: each member its own.
        (Value::Object(shown), Value::Object(stored)) if shown.len() > 1 => {
            shown.len() == stored.len()
                && shown.iter().all(|(name, shown)| {
                    stored
                        .get(name)
                        .is_some_and(|stored| same_kind(shown, stored))
                })
        }
        // A map: one member stands for all.
        (Value::Object(shown), Value::Object(stored)) => match shown.values().next() {
            Some(value) => stored.values().all(|stored| same_kind(value, stored)),
            None => true,
        },
        _ => false,
    }
}
