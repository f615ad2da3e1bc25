//! What other programs stored: a document with a value of the wrong type is reported naming its key and
//! field on every read path, and a query either fails on it, naming both, or hands it back beside the
//! documents that read (`Query::skip_unreadable`), on every store.

use docmodel::store::{CouchDb, MemoryStore, Redb, Store};
use docmodel::{DocModel, Error, JsonObject, MigrationError, Query, Repo};
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

macro_rules! suite {
    ($($store:ident: $ty:ty),*) => {$(
        mod $store {
            use super::*;

            #[tokio::test]
            async fn one_bad_document_in_a_query() {
                super::one_bad_document_in_a_query::<$ty>().await;
            }
        }
    )*};
}

suite!(memory: MemoryStore, redb: Redb, couchdb: CouchDb);
