//! What other programs stored: documents the model adopts (another spelling of its type, no type, no schema)
//! are found, counted and indexed as a read by key takes them; a document with a value of the wrong type is
//! reported naming its key and field on every read path, and a query either fails on it, naming both, or
//! hands it back beside the documents that read (`Query::skip_unreadable`), on every store (Couchbase through
//! SQL++ where a cluster is given).

use docmodel::store::{MemoryStore, Store};
use docmodel::{DocModel, Error, Filter, JsonObject, MigrationError, Query, Repo};
use docmodel_tests::Fresh;
use serde::{Deserialize, Serialize};

/// The seeds' country, as the music application stores it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "country", schema = "2.0", key = "country::{country_code}")]
#[docmodel(migrate_from("1.0" = population_to_number), envelope(layout = "plain"))]
struct Country {
    #[docmodel(get)]
    country_code: String,
    name: String,
    region: String,
    gdp: u64,
    #[serde(default)]
    languages: Vec<Language>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Language {
    name: String,
    speakers: u64,
}

/// 1.0 -> 2.0: nothing to move (the test's documents at 1.0 go through a JSON step).
fn population_to_number(_: &mut JsonObject) -> Result<(), MigrationError> {
    Ok(())
}

fn country(code: &str, region: &str, gdp: u64) -> Country {
    Country {
        country_code: code.into(),
        name: code.to_uppercase(),
        region: region.into(),
        gdp,
        languages: Vec::new(),
    }
}

const BIG: &str = r#"{"type":"country","schema":"2.0","countryCode":"bg","name":"Big","region":"Europe","gdp":"big"}"#;

fn codec(err: &Error) -> (Option<&str>, Option<&str>) {
    match err {
        Error::Codec { key, field, .. } => (key.as_deref(), field.as_deref()),
        other => panic!("not a codec error: {other}"),
    }
}

#[tokio::test]
async fn a_value_of_the_wrong_type_is_reported_naming_its_key_and_field() {
    let store = MemoryStore::new();
    let countries = Repo::<Country>::new(&store);
    store.insert("country::bg", BIG.as_bytes()).await.unwrap();
    let err = countries
        .get(&Country::key("bg").unwrap())
        .await
        .unwrap_err();
    assert_eq!(codec(&err), (Some("country::bg"), Some("gdp")));
    assert!(
        err.to_string().starts_with(
            "document `country::bg`, field `gdp`: invalid type: string \"big\", expected u64"
        ),
        "{err}"
    );

    // A value nested in an array names its way there.
    let nested = r#"{"type":"country","schema":"2.0","countryCode":"ch","name":"Switzerland","region":"Europe","gdp":7,"languages":[{"name":"German","speakers":5},{"name":"French","speakers":"two"}]}"#;
    store
        .insert("country::ch", nested.as_bytes())
        .await
        .unwrap();
    let err = countries
        .get(&Country::key("ch").unwrap())
        .await
        .unwrap_err();
    assert_eq!(
        codec(&err),
        (Some("country::ch"), Some("languages[1].speakers"))
    );

    // After a JSON migration step, the top-level field, in the migration's error.
    let older = nested.replace(r#""schema":"2.0""#, r#""schema":"1.0""#);
    store
        .insert("country::li", older.replace("\"ch\"", "\"li\"").as_bytes())
        .await
        .unwrap();
    let err = countries
        .get(&Country::key("li").unwrap())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Migration { key: Some(key), .. } if key == "country::li"),
        "{err}"
    );
    assert!(
        err.to_string().ends_with(
            "failed: the migrated document's field `languages` does not read as the current model's"
        ),
        "{err}"
    );

    // A document that is not JSON names no field.
    store.insert("country::xx", b"{\"type\":").await.unwrap();
    let err = countries
        .get(&Country::key("xx").unwrap())
        .await
        .unwrap_err();
    assert_eq!(codec(&err), (Some("country::xx"), None));
}

/// Four countries that read and one that does not, among them in key order.
async fn stocked<S: Fresh>() -> S {
    let store = S::fresh().await;
    let countries = Repo::<Country>::new(&store);
    countries.ensure_indexes().await.unwrap();
    for (code, region, gdp) in [
        ("at", "Europe", 5),
        ("be", "Europe", 6),
        ("cn", "Asia", 9),
        ("de", "Europe", 8),
    ] {
        countries.insert(country(code, region, gdp)).await.unwrap();
    }
    store.insert("country::bg", BIG.as_bytes()).await.unwrap();
    store
}

async fn one_bad_document_in_a_query<S: Fresh>() {
    let store = stocked::<S>().await;
    let countries = Repo::<Country>::new(&store);
    let europe = Query::new(Country::fields().region.eq("Europe"));

    let err = countries.find(&europe).await.unwrap_err();
    assert_eq!(codec(&err), (Some("country::bg"), Some("gdp")), "{err}");

    let page = countries
        .find(&europe.clone().skip_unreadable())
        .await
        .unwrap();
    let codes: Vec<&str> = page.docs.iter().map(|doc| doc.country_code()).collect();
    assert_eq!(codes, ["at", "be", "de"]);
    assert_eq!(page.unreadable.len(), 1);
    assert_eq!(page.unreadable[0].key, "country::bg");
    assert_eq!(
        codec(&page.unreadable[0].error),
        (Some("country::bg"), Some("gdp"))
    );

    // In pages of two, the unreadable one keeps its place: [at, be], [bg, de].
    let pages = europe.clone().skip_unreadable().limit(2);
    let first = countries.find(&pages).await.unwrap();
    let codes: Vec<&str> = first.docs.iter().map(|doc| doc.country_code()).collect();
    assert_eq!(codes, ["at", "be"]);
    assert!(first.unreadable.is_empty());
    let second = countries
        .find(&pages.after(first.next.unwrap()))
        .await
        .unwrap();
    let codes: Vec<&str> = second.docs.iter().map(|doc| doc.country_code()).collect();
    assert_eq!(codes, ["de"]);
    assert_eq!(second.unreadable[0].key, "country::bg");
    assert_eq!(second.next, None);

    // Counting reads no document: the bad one counts.
    assert_eq!(
        countries
            .count(&Country::fields().region.eq("Europe"))
            .await
            .unwrap(),
        4
    );
    // Nothing was written.
    assert_eq!(
        docmodel_tests::text(&store, "country::bg").await.as_deref(),
        Some(BIG)
    );
}

// ---- Adopted documents ------------------------------------------------------------------------------

/// The guide's user profiles as the team now writes them: type `userprofile`, adopting the `userProfile`
/// documents written before the schema field, whose `phones` is one number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "userprofile", aliases("userProfile"), schema = "2.0")]
#[docmodel(key = "userprofile::{username}", unversioned = "1.0")]
#[docmodel(migrate_from("1.0" = phones_to_list), envelope(layout = "plain"))]
#[docmodel(index = "status")]
struct Profile {
    #[docmodel(get)]
    username: String,
    status: String,
    phones: Vec<String>,
}

fn phones_to_list(doc: &mut JsonObject) -> Result<(), MigrationError> {
    if let Some(phone) = doc.remove("phones") {
        doc.insert("phones".into(), vec![phone].into());
    }
    Ok(())
}

/// The same profiles, with no type field at all: a model that adopts untyped documents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "member", schema = "1.0", key = "member::{username}")]
#[docmodel(untyped = "accept", unversioned = "1.0", envelope(layout = "plain"))]
struct Member {
    #[docmodel(get)]
    username: String,
    status: String,
}

const ANDY: &str =
    r#"{"type":"userProfile","username":"andy","status":"active","phones":"212-771-1834"}"#;
const CARL: &str =
    r#"{"type":"userProfile","username":"carl","status":"inactive","phones":"212-555-0100"}"#;
/// A type that is neither the model's nor an alias: never the model's.
const DORA: &str = r#"{"type":"UserProfile","username":"dora","status":"active","phones":"1"}"#;

fn usernames(docs: &[docmodel::Doc<Profile>]) -> Vec<&str> {
    docs.iter().map(|doc| doc.username()).collect()
}

/// Two adopted profiles, one the model wrote and one of another type, loaded before the indexes are built.
async fn adopted_profiles<S: Fresh>() {
    let store = S::fresh().await;
    let profiles = Repo::<Profile>::new(&store);
    for (key, document) in [
        ("userprofile::andy", ANDY),
        ("userprofile::carl", CARL),
        ("userprofile::dora", DORA),
    ] {
        store.insert(key, document.as_bytes()).await.unwrap();
    }
    profiles
        .insert(Profile {
            username: "bea".into(),
            status: "active".into(),
            phones: vec!["1".into()],
        })
        .await
        .unwrap();
    profiles.ensure_indexes().await.unwrap();

    let active = Query::new(Profile::fields().status.eq("active"));
    let page = profiles.find(&active).await.unwrap();
    assert_eq!(usernames(&page.docs), ["andy", "bea"]);
    assert_eq!(
        page.docs[0].phones,
        ["212-771-1834"],
        "read as a get reads it"
    );
    assert_eq!(page.older_schema, 2, "andy and carl are at 1.0");
    let all = profiles.find(&Query::new(Filter::all())).await.unwrap();
    assert_eq!(usernames(&all.docs), ["andy", "bea", "carl"]);
    assert_eq!(profiles.count(&Filter::all()).await.unwrap(), 3);
    assert_eq!(
        profiles
            .count(&Profile::fields().status.eq("active"))
            .await
            .unwrap(),
        2
    );

    // Saved, an adopted profile is written in the model's form, and found by its new values.
    profiles
        .update(&Profile::key("andy").unwrap(), |p| p.status = "away".into())
        .await
        .unwrap();
    let away = profiles
        .find(&Query::new(Profile::fields().status.eq("away")))
        .await
        .unwrap();
    assert_eq!(usernames(&away.docs), ["andy"]);
    let page = profiles.find(&active).await.unwrap();
    assert_eq!(usernames(&page.docs), ["bea"]);
    assert_eq!(page.older_schema, 1, "carl only");

    // One another program writes after the indexes were built has no entries until it is saved; the
    // model's key range still reads it.
    store
        .insert(
            "userprofile::eve",
            br#"{"type":"userProfile","username":"eve","status":"away","phones":"3"}"#,
        )
        .await
        .unwrap();
    assert_eq!(
        usernames(
            &profiles
                .find(&Query::new(Filter::all()))
                .await
                .unwrap()
                .docs
        ),
        ["andy", "bea", "carl", "eve"]
    );
    profiles
        .update(&Profile::key("eve").unwrap(), |p| p.phones.push("4".into()))
        .await
        .unwrap();
    let away = profiles
        .find(&Query::new(Profile::fields().status.eq("away")))
        .await
        .unwrap();
    assert_eq!(
        usernames(&away.docs),
        ["andy", "eve"],
        "eve's first save claimed her entries"
    );
}

/// Documents without a type, under the key range of a model that adopts them.
async fn untyped_members<S: Fresh>() {
    let store = S::fresh().await;
    let members = Repo::<Member>::new(&store);
    for (key, document) in [
        ("member::andy", r#"{"username":"andy","status":"active"}"#),
        (
            "member::bea",
            r#"{"type":"member","schema":"1.0","username":"bea","status":"active"}"#,
        ),
        (
            "member::carl",
            r#"{"type":"userProfile","username":"carl","status":"active"}"#,
        ),
    ] {
        store.insert(key, document.as_bytes()).await.unwrap();
    }
    // Not an object: never a document (CouchDB refuses to store it at all).
    if let Err(err) = store.insert("member::dora", br#"["dora"]"#).await {
        assert!(err.to_string().contains("JSON objects only"), "{err}");
    }
    members.ensure_indexes().await.unwrap();
    let page = members
        .find(&Query::new(Member::fields().status.eq("active")))
        .await
        .unwrap();
    let names: Vec<&str> = page.docs.iter().map(|doc| doc.username()).collect();
    assert_eq!(names, ["andy", "bea"]);
    assert_eq!(members.count(&Filter::all()).await.unwrap(), 2);
}

/// A listener of the music application, as another program stored them: under the old spelling of the type,
/// no schema field, no lookup documents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "listener",
    aliases("Listener"),
    schema = "1.0",
    unversioned = "1.0"
)]
#[docmodel(
    key = "listener::{name}",
    lookup = "listener_email::{email}",
    revisions = 2
)]
#[docmodel(envelope(layout = "plain"), index = "country")]
struct Listener {
    #[docmodel(get)]
    name: String,
    #[docmodel(get, set)]
    email: String,
    country: String,
}

const LISTENERS: [(&str, &str); 3] = [
    (
        "listener::ada",
        r#"{"type":"Listener","name":"ada","email":"ada@example.com","country":"UK"}"#,
    ),
    (
        "listener::bob",
        r#"{"type":"Listener","name":"bob","email":"bob@example.com","country":"US"}"#,
    ),
    (
        "listener::cy",
        r#"{"type":"Listener","name":"cy","email":"bob@example.com","country":"US"}"#,
    ),
];

/// The three listeners another program wrote, and dee, whom docmodel inserted.
async fn listeners<S: Fresh>() -> S {
    let store = S::fresh().await;
    for (key, document) in LISTENERS {
        store.insert(key, document.as_bytes()).await.unwrap();
    }
    let dee = Listener {
        name: "dee".into(),
        email: "dee@example.com".into(),
        country: "NO".into(),
    };
    Repo::<Listener>::new(&store).insert(dee).await.unwrap();
    store
}

/// `reindex` claims the lookups and entries the documents lack, in key order: a value two of them hold goes
/// to the first, as the first insert of it would have claimed it, and is listed with both; a second run writes
/// nothing.
async fn reindexed_listeners<S: Fresh>() {
    let store = listeners::<S>().await;
    let repo = Repo::<Listener>::new(&store);
    let report = repo.reindex().await.unwrap();
    assert_eq!(report.visited, 4);
    assert_eq!(
        report.lookups, 2,
        "ada's and bob's, the first holder of his (dee's insert claimed hers)"
    );
    assert_eq!(report.entries, 0, "ensure_indexes built them all");
    assert_eq!(report.duplicates.len(), 1);
    assert_eq!(
        report.duplicates[0].lookup,
        "listener_email::bob@example.com"
    );
    assert_eq!(report.duplicates[0].keys, ["listener::bob", "listener::cy"]);
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    let bob = repo
        .get_by_lookup("listener_email::bob@example.com")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(bob.name(), "bob", "the first holder in key order");
    let ada = repo
        .get_by_lookup("listener_email::ada@example.com")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(ada.name(), "ada");
    // Unique from now on, the duplicated value too: an insert of ada's or bob's email is refused.
    for email in ["ada@example.com", "bob@example.com"] {
        let err = repo
            .insert(Listener {
                name: "eve".into(),
                email: email.into(),
                country: "UK".into(),
            })
            .await
            .unwrap_err();
        assert!(
            matches!(&err, Error::AlreadyExists { key } if *key == format!("listener_email::{email}")),
            "{err}"
        );
    }
    let us = repo
        .find(&Query::new(Listener::fields().country.eq("US")))
        .await
        .unwrap();
    assert_eq!(us.docs.len(), 2);
    // The documents themselves are as they were.
    for (key, document) in LISTENERS {
        assert_eq!(
            docmodel_tests::text(&store, key).await.as_deref(),
            Some(document)
        );
    }

    let again = repo.reindex().await.unwrap();
    assert_eq!((again.lookups, again.entries), (0, 0));
    assert_eq!(again.duplicates, report.duplicates);

    // One another program writes once the indexes are complete: its lookup and its entries (the country
    // index's and the schema index's, where the repository keeps entries).
    store
        .insert(
            "listener::fay",
            br#"{"type":"Listener","name":"fay","email":"fay@example.com","country":"US"}"#,
        )
        .await
        .unwrap();
    let later = repo.reindex().await.unwrap();
    let kept = if store.capabilities().query.is_none() {
        2
    } else {
        0
    };
    assert_eq!((later.lookups, later.entries), (1, kept));
    let us = repo
        .find(&Query::new(Listener::fields().country.eq("US")))
        .await
        .unwrap();
    assert_eq!(us.docs.len(), 3, "fay found through the index");
    store.remove("listener::fay", None).await.unwrap();

    // Settled by hand (bob, who holds the lookup, goes), the next reindex gives the value to cy.
    store.remove("listener::bob", None).await.unwrap();
    let settled = repo.reindex().await.unwrap();
    assert!(settled.duplicates.is_empty());
    assert_eq!(
        settled.lookups, 1,
        "cy takes over the lookup naming bob, who is gone"
    );
    let cy = repo
        .get_by_lookup("listener_email::bob@example.com")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(cy.name(), "cy");
}

/// `migrate_all` with `rewrite_adopted` writes every adopted document in the model's form, counting why, the
/// total known before the first batch; a second run writes nothing.
async fn rewritten_listeners<S: Fresh>() {
    let store = listeners::<S>().await;
    store.remove("listener::cy", None).await.unwrap();
    let repo = Repo::<Listener>::new(&store);
    let mut seen = Vec::new();
    let report = repo
        .migrate_all()
        .rewrite_adopted(true)
        .batch(2)
        .progress(|report| seen.push((report.total, report.visited)))
        .await
        .unwrap();
    assert_eq!(
        seen,
        [(3, 0), (3, 2), (3, 3)],
        "the total before the first batch"
    );
    assert_eq!(report.migrated, 0);
    assert_eq!(
        report.adopted.get(&docmodel::Adoption::Alias),
        Some(&2),
        "{report}"
    );
    assert_eq!(report.skipped, 1, "dee is in the model's form");
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    assert_eq!(
        report.to_string(),
        "visited 3, migrated 0, rewrote 2 adopted (2 under an alias), skipped 1, failed 0"
    );
    for name in ["ada", "bob"] {
        let text = docmodel_tests::text(&store, &format!("listener::{name}"))
            .await
            .unwrap();
        assert!(
            text.starts_with(r#"{"type":"listener","schema":"1.0","ver":2,"#),
            "{text}"
        );
        // The document as the other program stored it is its first revision copy.
        let copy = docmodel_tests::text(&store, &format!("listener::{name}::v::1")).await;
        assert!(copy.is_some_and(|copy| copy.contains(r#""type":"Listener""#)));
    }
    // Lookups and entries claimed as the saves went.
    let bob = repo
        .get_by_lookup("listener_email::bob@example.com")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(bob.name(), "bob");
    let again = repo.migrate_all().rewrite_adopted(true).await.unwrap();
    assert_eq!(
        again.to_string(),
        "visited 3, migrated 0, skipped 3, failed 0"
    );
}

/// The guide's root-attribute form, kept with revisions and an index: each copy carries its marker inside the
/// root attribute's object, and a query finds the document alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "album", schema = "1.0", key = "album::{id}", revisions = 2)]
#[docmodel(index = "title", envelope(layout = "root"))]
struct Album {
    #[docmodel(get)]
    id: u64,
    title: String,
}

async fn root_copies<S: Fresh>() {
    let store = S::fresh().await;
    let albums = Repo::<Album>::new(&store);
    albums.ensure_indexes().await.unwrap();
    let mut doc = albums
        .insert(Album {
            id: 1,
            title: "Summer".into(),
        })
        .await
        .unwrap();
    for title in ["Winter", "Spring"] {
        doc.title = title.into();
        albums.save(&mut doc).await.unwrap();
    }
    let copy: serde_json::Value = serde_json::from_str(
        &docmodel_tests::text(&store, "album::1::v::2")
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(copy["album"]["copyOf"], "album::1", "{copy}");
    assert_eq!(
        (&copy["album"]["title"], &copy["album"]["ver"]),
        (&serde_json::json!("Winter"), &serde_json::json!(2))
    );
    let history = albums.revisions(&Album::key(1)).await.unwrap();
    let titles: Vec<&str> = history.iter().map(|doc| doc.title.as_str()).collect();
    assert_eq!(titles, ["Winter", "Summer"]);
    // The document alone, by the index and without it.
    for filter in [Album::fields().title.eq("Spring"), Filter::all()] {
        let page = albums.find(&Query::new(filter)).await.unwrap();
        assert_eq!(
            page.docs
                .iter()
                .map(|doc| doc.title.as_str())
                .collect::<Vec<_>>(),
            ["Spring"]
        );
    }
    assert_eq!(
        albums
            .count(&Album::fields().title.eq("Winter"))
            .await
            .unwrap(),
        0
    );
}

/// Notes another program wrote with its own names for the type and the creation time, some without a schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "note", schema = "2.0", key = "note::{id}", unversioned = "1.0")]
#[docmodel(migrate_from("1.0" = text_to_body))]
#[docmodel(envelope(layout = "plain", legacy_names(type = "docType", created = "ctime")))]
struct Note {
    #[docmodel(get)]
    id: u64,
    body: String,
}

/// 1.0 -> 2.0: `text` becomes `body`.
fn text_to_body(doc: &mut JsonObject) -> Result<(), MigrationError> {
    let text = doc
        .remove("text")
        .ok_or_else(|| MigrationError::missing_field("text"))?;
    doc.insert("body".into(), text);
    Ok(())
}

/// The root-attribute form of a note, some without a schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "memo", schema = "2.0", key = "memo::{id}", unversioned = "1.0")]
#[docmodel(migrate_from("1.0" = memo_text_to_body), envelope(layout = "root"))]
struct Memo {
    #[docmodel(get)]
    id: u64,
    body: String,
}

/// 1.0 -> 2.0 of a memo: a step sees the whole document, `{"memo": {...}}`.
fn memo_text_to_body(doc: &mut JsonObject) -> Result<(), MigrationError> {
    let memo = doc
        .get_mut("memo")
        .and_then(serde_json::Value::as_object_mut)
        .ok_or_else(|| MigrationError::missing_field("memo"))?;
    text_to_body(memo)
}

async fn legacy_names_and_roots<S: Fresh>() {
    use docmodel::Timestamp;

    let store = S::fresh().await;
    for (key, document) in [
        (
            "note::1",
            r#"{"docType":"note","ctime":3000,"id":1,"text":"a"}"#,
        ),
        (
            "note::2",
            r#"{"type":"note","schema":"2.0","created":1000,"id":2,"body":"b"}"#,
        ),
        (
            "note::3",
            r#"{"docType":"note","schema":"2.0","created":2000,"id":3,"body":"c"}"#,
        ),
        ("memo::1", r#"{"memo":{"id":1,"text":"x"}}"#),
        ("memo::2", r#"{"memo":{"schema":"2.0","id":2,"body":"y"}}"#),
    ] {
        store.insert(key, document.as_bytes()).await.unwrap();
    }
    let notes = Repo::<Note>::new(&store);
    let memos = Repo::<Memo>::new(&store);
    notes.ensure_indexes().await.unwrap();
    memos.ensure_indexes().await.unwrap();

    // Every note, once, the unversioned one counted as older, whatever name its type is under.
    let page = notes.find(&Query::new(Filter::all())).await.unwrap();
    let ids: Vec<u64> = page.docs.iter().map(|doc| doc.id()).collect();
    assert_eq!(ids, [1, 2, 3]);
    assert_eq!(page.docs[0].body, "a", "migrated from 1.0");
    assert_eq!(page.older_schema, 1);
    let page = memos.find(&Query::new(Filter::all())).await.unwrap();
    assert_eq!((page.docs.len(), page.older_schema), (2, 1));

    // Ordered by the creation time, a page of one at a time: each note once. (CouchDB sorts by the model's
    // own name, under which `ctime` is missing; the cursor follows the order it serves.)
    let by_created = Query::new(Filter::all())
        .order_by(&Note::fields().envelope().created)
        .limit(1);
    let mut pages = notes.pages(by_created);
    let mut seen = Vec::new();
    while let Some(page) = pages.next().await.unwrap() {
        seen.extend(page.docs.iter().map(|doc| doc.id()));
        assert!(seen.len() <= 3, "{seen:?}");
    }
    seen.sort_unstable();
    assert_eq!(seen, [1, 2, 3]);
    let after = Note::fields()
        .envelope()
        .created
        .gt(Timestamp::from_millis(1_500));
    let later: Vec<u64> = notes
        .find(&Query::new(after))
        .await
        .unwrap()
        .docs
        .iter()
        .map(|doc| doc.id())
        .collect();
    if store.capabilities().reserves_underscore_fields {
        // CouchDB selects by the model's name: the note holding `ctime` is not among them.
        assert_eq!(later, [3]);
    } else {
        assert_eq!(later, [1, 3]);
    }

    // A note holding its type under its name and its legacy name at once: `get` refuses it, naming the
    // field, and a query meets it the same way (it fails, or skips it with `skip_unreadable`), never
    // handing back what `get` refuses.
    let both = r#"{"docType":"note","type":"note","schema":"2.0","id":4,"body":"d"}"#;
    store.insert("note::4", both.as_bytes()).await.unwrap();
    let refused = notes.get(&Note::key(4)).await.unwrap_err().to_string();
    assert!(
        refused.contains("duplicate field `type`") && refused.contains("legacy name `docType`"),
        "{refused}"
    );
    let failed = notes
        .find(&Query::new(Filter::all()))
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(failed, refused);
    let page = notes
        .find(&Query::new(Filter::all()).skip_unreadable())
        .await
        .unwrap();
    let ids: Vec<u64> = page.docs.iter().map(|doc| doc.id()).collect();
    assert_eq!(ids, [1, 2, 3]);
    assert_eq!(page.unreadable.len(), 1);
    assert_eq!(page.unreadable[0].key, "note::4");
    assert_eq!(page.unreadable[0].error.to_string(), refused);
}

// ---- Revision copies as other clients see them ---------------------------------------------------------

/// The seeds' playlist, kept with revision copies, in the `plain` layout CouchDB can hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "playlist",
    schema = "1.0",
    key = "playlist::{id}",
    revisions = 3
)]
#[docmodel(envelope(layout = "plain"))]
struct Playlist {
    #[docmodel(get)]
    id: String,
    owner: String,
    #[docmodel(get, set)]
    name: String,
}

/// A hand-written Mango query of another client, as the guide's `{"type": "playlist", "owner": ...}`: it
/// finds the copies too, unless it says `"copyOf": {"$exists": false}`, as the README shows.
#[tokio::test]
async fn another_clients_mango_query_leaves_copies_out_by_their_marker() {
    let store = docmodel_tests::couchdb::fresh().await;
    let playlists = Repo::<Playlist>::new(&store);
    let mut doc = playlists
        .insert(Playlist {
            id: "summer".into(),
            owner: "copilotmarks61569".into(),
            name: "Eclectic Summer Mix".into(),
        })
        .await
        .unwrap();
    for name in ["Summer Mix", "Summer"] {
        doc.set_name(name);
        playlists.save(&mut doc).await.unwrap();
    }
    let find = |selector: serde_json::Value| {
        let store = &store;
        async move {
            let body = serde_json::json!({ "selector": selector });
            let mut keys: Vec<String> = store
                .query(body.to_string().as_bytes())
                .await
                .unwrap()
                .into_iter()
                .map(|(key, _)| key)
                .collect();
            keys.sort();
            keys
        }
    };
    let naive = find(serde_json::json!({"type": "playlist", "owner": "copilotmarks61569"})).await;
    assert_eq!(
        naive,
        [
            "playlist::summer",
            "playlist::summer::v::1",
            "playlist::summer::v::2"
        ],
        "the copies look like documents to a query that does not know them"
    );
    let with_predicate = find(serde_json::json!({
        "type": "playlist",
        "owner": "copilotmarks61569",
        "copyOf": {"$exists": false},
    }))
    .await;
    assert_eq!(with_predicate, ["playlist::summer"]);
    let copies = find(serde_json::json!({"copyOf": "playlist::summer"})).await;
    assert_eq!(copies, ["playlist::summer::v::1", "playlist::summer::v::2"]);

    // The copies are still the document's history, and a copy written before the marker still counts.
    let old_copy =
        r#"{"type":"playlist","schema":"1.0","ver":1,"id":"winter","owner":"o","name":"Winter"}"#;
    let mut winter = playlists
        .insert(Playlist {
            id: "winter".into(),
            owner: "o".into(),
            name: "Winter".into(),
        })
        .await
        .unwrap();
    winter.set_name("Winter Mix");
    playlists.save(&mut winter).await.unwrap();
    let copy = store.get("playlist::winter::v::1").await.unwrap().unwrap();
    store
        .replace("playlist::winter::v::1", old_copy.as_bytes(), &copy.cas)
        .await
        .unwrap();
    let history = playlists
        .revisions(&Playlist::key("winter").unwrap())
        .await
        .unwrap();
    assert_eq!(
        history.len(),
        1,
        "the copy without a marker is recognised by its content"
    );
    assert_eq!(history[0].name(), "Winter");
    assert_eq!(history[0].envelope().copy_of, None);
    let summer = playlists
        .revisions(&Playlist::key("summer").unwrap())
        .await
        .unwrap();
    assert_eq!(
        summer[0].envelope().copy_of.as_deref(),
        Some("playlist::summer"),
        "a copy read says whose copy it is"
    );
    // Restored, a version is the document again: no marker.
    playlists
        .restore(&Playlist::key("summer").unwrap(), 1)
        .await
        .unwrap();
    let restored = docmodel_tests::text(&store, "playlist::summer")
        .await
        .unwrap();
    assert!(!restored.contains("copyOf"), "{restored}");
}

// ---- What the review found --------------------------------------------------------------------------

/// A listener another program stored in the model's own type and schema, but without a revision counter and
/// without its lookup: a rewrite claims its lookup, as any adopted document's.
#[tokio::test]
async fn a_rewrite_claims_the_lookups_of_a_document_in_the_models_type_and_schema() {
    let store = MemoryStore::new();
    store
        .insert(
            "listener::gus",
            br#"{"type":"listener","schema":"1.0","name":"gus","email":"gus@example.com","country":"SE"}"#,
        )
        .await
        .unwrap();
    let repo = Repo::<Listener>::new(&store);
    repo.ensure_indexes().await.unwrap();
    let report = repo.migrate_all().rewrite_adopted(true).await.unwrap();
    assert_eq!(
        report.adopted.get(&docmodel::Adoption::Form),
        Some(&1),
        "no revision counter: {report}"
    );
    let gus = repo
        .get_by_lookup("listener_email::gus@example.com")
        .await
        .unwrap();
    assert_eq!(gus.map(|doc| doc.name().to_owned()), Some("gus".to_owned()));
}

/// A field another program stores under the marker's name: a key is kept and written back; anything else is
/// refused, naming the field and how to move the marker.
#[tokio::test]
async fn a_field_under_the_markers_name_is_kept_or_named() {
    let store = MemoryStore::new();
    let playlists = Repo::<Playlist>::new(&store);
    store
        .insert(
            "playlist::fork",
            br#"{"type":"playlist","schema":"1.0","ver":1,"copyOf":"playlist::summer","id":"fork","owner":"o","name":"Fork"}"#,
        )
        .await
        .unwrap();
    playlists
        .update(&Playlist::key("fork").unwrap(), |p| p.set_name("Forked"))
        .await
        .unwrap();
    let text = docmodel_tests::text(&store, "playlist::fork")
        .await
        .unwrap();
    assert!(
        text.contains(r#""copyOf":"playlist::summer""#),
        "kept: {text}"
    );

    store
        .insert(
            "playlist::odd",
            br#"{"type":"playlist","schema":"1.0","copyOf":3,"id":"odd","owner":"o","name":"Odd"}"#,
        )
        .await
        .unwrap();
    let err = playlists
        .get(&Playlist::key("odd").unwrap())
        .await
        .unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, Error::Codec { .. }), "{err:?}");
    assert!(
        message.contains("docmodel's revision-copy marker") && message.contains("names(copy_of = "),
        "{message}"
    );
    assert_eq!(
        docmodel_tests::text(&store, "playlist::odd")
            .await
            .as_deref(),
        Some(
            r#"{"type":"playlist","schema":"1.0","copyOf":3,"id":"odd","owner":"o","name":"Odd"}"#
        ),
        "nothing written"
    );
}

/// A document that does not read, outside the page asked for, does not fail it.
#[tokio::test]
async fn an_unreadable_document_outside_the_page_does_not_fail_it() {
    let store = stocked::<MemoryStore>().await;
    let countries = Repo::<Country>::new(&store);
    let first = countries
        .find(&Query::new(Country::fields().region.eq("Europe")).limit(2))
        .await
        .unwrap();
    let codes: Vec<&str> = first.docs.iter().map(|doc| doc.country_code()).collect();
    assert_eq!(codes, ["at", "be"], "country::bg comes after the page");
    assert!(first.next.is_some());
}

/// Documents another program stored, as the model adopts them.
mod adopted {
    use super::*;

    on_every_store!(sqlpp [
        adopted_profiles,
        untyped_members,
        reindexed_listeners,
        rewritten_listeners
    ]);
}

on_every_store!(sqlpp [
    one_bad_document_in_a_query,
    root_copies,
    legacy_names_and_roots
]);
