//! The repository's side of SQL++ (`QueryLanguage::SqlPlusPlus`), as any store declaring it meets it: the
//! requests `find`, `count` and `ensure_indexes` send, in the documented form (the statement in pieces, every
//! value an argument), and what the repository does with the rows it gets back. No SQL++ engine runs here
//! (the Couchbase suites in `find.rs` and `stores.rs` run on a cluster when one is given): the store answers
//! each request with the rows a test sets, and keeps the requests it was sent.

use std::collections::VecDeque;
use std::sync::Mutex;

use docmodel::store::{Capabilities, Cas, MemoryStore, QueryLanguage, Store, Stored, WriteOptions};
use docmodel::{DocModel, Error, Query, Repo};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(type = "order", schema = "2.0", key = "order::{id}", index = "status")]
struct Order {
    #[docmodel(get)]
    id: u64,
    status: String,
}

/// The same documents as another program writes them too: the type spelt `Order`, or under `kind`, and the
/// time of the last change under `updated`.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "order",
    aliases("Order"),
    schema = "2.0",
    key = "order::{id}",
    index = "status"
)]
#[docmodel(envelope(legacy_names(type = "kind", modified = "updated")))]
struct AdoptingOrder {
    #[docmodel(get)]
    id: u64,
    status: String,
}

/// A store whose query language is SQL++, answering each query with the next rows a test set.
#[derive(Default)]
struct Scripted {
    documents: MemoryStore,
    answers: Mutex<VecDeque<Vec<(String, Stored)>>>,
    sent: Mutex<Vec<Value>>,
    indexes: Mutex<Vec<Value>>,
}

impl Scripted {
    fn answering(answers: impl IntoIterator<Item = Vec<(String, Stored)>>) -> Self {
        Scripted {
            answers: Mutex::new(answers.into_iter().collect()),
            ..Scripted::default()
        }
    }

    fn sent(&self) -> Vec<Value> {
        self.sent.lock().unwrap().clone()
    }
}

/// A row of the statement reading documents: the key, a CAS and the document.
fn row(key: &str, document: Value) -> (String, Stored) {
    (
        key.to_owned(),
        Stored::new(serde_json::to_vec(&document).unwrap(), Cas::from_u64(7)),
    )
}

fn order(id: u64, status: &str) -> (String, Stored) {
    row(
        &format!("order::{id}"),
        json!({"_type": "order", "_schema": "2.0", "_ver": 1, "id": id, "status": status}),
    )
}

impl Store for Scripted {
    async fn get(&self, key: &str) -> Result<Option<Stored>, Error> {
        self.documents.get(key).await
    }

    async fn insert_with(
        &self,
        key: &str,
        value: &[u8],
        options: &WriteOptions,
    ) -> Result<Cas, Error> {
        self.documents.insert_with(key, value, options).await
    }

    async fn replace_with(
        &self,
        key: &str,
        value: &[u8],
        cas: &Cas,
        options: &WriteOptions,
    ) -> Result<Cas, Error> {
        self.documents.replace_with(key, value, cas, options).await
    }

    async fn remove_with(
        &self,
        key: &str,
        cas: Option<&Cas>,
        options: &WriteOptions,
    ) -> Result<(), Error> {
        self.documents.remove_with(key, cas, options).await
    }

    async fn counter(&self, key: &str, delta: u64) -> Result<u64, Error> {
        self.documents.counter(key, delta).await
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::MINIMAL.with_query(Some(QueryLanguage::SqlPlusPlus))
    }

    async fn query(&self, query: &[u8]) -> Result<Vec<(String, Stored)>, Error> {
        self.sent
            .lock()
            .unwrap()
            .push(serde_json::from_slice(query).unwrap());
        Ok(self.answers.lock().unwrap().pop_front().unwrap_or_default())
    }

    async fn create_index(&self, definition: &[u8]) -> Result<(), Error> {
        self.indexes
            .lock()
            .unwrap()
            .push(serde_json::from_slice(definition).unwrap());
        Ok(())
    }
}

const SELECT: &str = "SELECT META(d).id AS id, META(d).cas AS cas, d AS doc FROM ";
const ORDERS: &str = " AS d WHERE d.`_type` = \"order\" AND d.`_copyOf` IS MISSING AND REGEXP_CONTAINS(META(d).id, \
                      \"^order\\\\:\\\\:[^\\\\:]+\\\\z\")";

#[tokio::test]
async fn a_page_is_one_statement_and_the_rows_are_matched_again() {
    let store = Scripted::answering([
        // The server's rows: one it should not have matched, which the repository leaves out.
        vec![order(1, "open"), order(2, "closed"), order(3, "open")],
        // Asked again past the last row, since the first answer was full.
        vec![order(4, "open")],
        // Documents at another schema: none.
        vec![],
    ]);
    let orders = Repo::<Order>::new(&store);
    let f = Order::fields();
    let page = orders
        .find(&Query::new(f.status.eq("open")).limit(2))
        .await
        .unwrap();
    let ids: Vec<u64> = page.docs.iter().map(|doc| doc.id()).collect();
    assert_eq!(ids, [1, 3]);
    assert!(
        page.next.is_some(),
        "a third match came back: there is a next page"
    );
    assert_eq!(page.older_schema, 0);

    let sent = store.sent();
    assert_eq!(sent.len(), 3, "{sent:#?}");
    let filter = " AND (d.`status` = $p1)";
    assert_eq!(
        sent[0],
        json!({
            "statement": [SELECT, format!("{ORDERS}{filter} ORDER BY META(d).id LIMIT $limit")],
            "args": {"p1": "open", "limit": 3},
            "index": "docmodel_order__type",
        })
    );
    assert_eq!(
        sent[1],
        json!({
            "statement": [
                SELECT,
                format!("{ORDERS}{filter} AND META(d).id > $after_key ORDER BY META(d).id LIMIT $limit")
            ],
            "args": {"p1": "open", "after_key": "order::3", "limit": 3},
            "index": "docmodel_order__type",
        })
    );
    assert_eq!(
        sent[2]["statement"][1],
        format!(
            "{ORDERS} AND (d.`_schema` IS NOT VALUED OR d.`_schema` != $schema) ORDER BY META(d).id LIMIT \
             $limit"
        )
    );
    assert_eq!(sent[2]["args"], json!({"schema": "2.0", "limit": 1000}));
    assert_eq!(sent[2]["index"], "docmodel_order__type");
}

#[tokio::test]
async fn older_documents_are_counted_by_their_version() {
    let store = Scripted::answering([
        vec![],
        vec![
            row(
                "order::5",
                json!({"_type": "order", "_schema": "1.0", "id": 5, "state": "open"}),
            ),
            // Newer than the model: not older.
            row(
                "order::6",
                json!({"_type": "order", "_schema": "3.0", "id": 6, "status": "open"}),
            ),
            // Another model's document under a key of this shape: not counted.
            row("order::7", json!({"_type": "invoice", "_schema": "1.0"})),
        ],
    ]);
    let page = Repo::<Order>::new(&store)
        .find(&Query::new(Order::fields().status.eq("x")))
        .await
        .unwrap();
    assert!(page.docs.is_empty());
    assert_eq!(page.older_schema, 1);
}

#[tokio::test]
async fn indexes_are_created_on_the_stores_keyspace_partial_on_the_type() {
    let store = Scripted::default();
    Repo::<Order>::new(&store).ensure_indexes().await.unwrap();
    assert_eq!(
        *store.indexes.lock().unwrap(),
        [
            // The collection's key index, what a key listing reads, then the model's.
            json!({
                "statement": ["CREATE INDEX IF NOT EXISTS `docmodel__keys` ON ", "(META().id)"],
                "args": {},
            }),
            json!({
                "statement": [
                    "CREATE INDEX IF NOT EXISTS `docmodel_order__type` ON ",
                    "(`_type`) WHERE `_type` = \"order\" AND `_copyOf` IS MISSING"
                ],
                "args": {},
            }),
            json!({
                "statement": [
                    "CREATE INDEX IF NOT EXISTS `docmodel_order_status` ON ",
                    "(`status`) WHERE `_type` = \"order\" AND `_copyOf` IS MISSING"
                ],
                "args": {},
            }),
        ]
    );
}

#[tokio::test]
async fn a_model_that_adopts_other_documents_selects_them_all_and_decides_itself() {
    let adopted = |key: &str, document: Value| row(key, document);
    let rows = || {
        vec![
            adopted(
                "order::1",
                json!({"_type": "order", "_schema": "2.0", "_ver": 1, "_modified": 20, "id": 1, "status": "open"}),
            ),
            adopted(
                "order::2",
                json!({"_type": "Order", "_schema": "2.0", "_ver": 1, "updated": 5, "id": 2, "status": "open"}),
            ),
            adopted(
                "order::3",
                json!({"kind": "Order", "_schema": "2.0", "_ver": 1, "updated": 30, "id": 3, "status": "open"}),
            ),
            // Selected by its `kind`, but its type is another model's: the repository leaves it out.
            adopted(
                "order::4",
                json!({"_type": "invoice", "kind": "order", "_schema": "2.0", "_ver": 1, "id": 4, "status": "open"}),
            ),
        ]
    };
    let store = Scripted::answering([rows(), vec![], rows(), vec![]]);
    let orders = Repo::<AdoptingOrder>::new(&store);
    let f = AdoptingOrder::fields();
    let page = orders.find(&Query::new(f.status.eq("open"))).await.unwrap();
    let ids: Vec<u64> = page.docs.iter().map(|doc| doc.id()).collect();
    assert_eq!(ids, [1, 2, 3]);
    let owner = " AS d WHERE META(d).id >= \"order::\" AND META(d).id < \"order:;\" AND (d.`_type` IN [\"order\", \
                 \"Order\"] OR d.`kind` IN [\"order\", \"Order\"]) AND d.`_copyOf` IS MISSING AND \
                 REGEXP_CONTAINS(META(d).id, \"^order\\\\:\\\\:[^\\\\:]+\\\\z\")";
    let sent = store.sent();
    assert_eq!(
        sent[0],
        json!({
            "statement": [SELECT, format!("{owner} AND (d.`status` = $p1) ORDER BY META(d).id LIMIT $limit")],
            "args": {"p1": "open", "limit": 101},
            "index": "docmodel_order__type_adopting",
        })
    );

    // The time of the last change is stored as `_modified` or `updated`: the statement cannot read it as
    // the repository does, so it selects all the model's documents and the repository filters them.
    let modified = f.envelope().modified;
    let page = orders
        .find(&Query::new(
            modified.ge(docmodel::Timestamp::from_millis(10)),
        ))
        .await
        .unwrap();
    let ids: Vec<u64> = page.docs.iter().map(|doc| doc.id()).collect();
    assert_eq!(ids, [1, 3]);
    let sent = store.sent();
    assert_eq!(
        sent[2],
        json!({
            "statement": [SELECT, format!("{owner} ORDER BY META(d).id LIMIT $limit")],
            "args": {"limit": 101},
            "index": "docmodel_order__type_adopting",
        })
    );

    orders.ensure_indexes().await.unwrap();
    let created: Vec<Value> = store.indexes.lock().unwrap().clone();
    let predicate = "WHERE (`_type` IN [\"order\", \"Order\"] OR `kind` IN [\"order\", \"Order\"]) AND `_copyOf` IS \
                     MISSING";
    assert_eq!(
        created,
        [
            json!({
                "statement": ["CREATE INDEX IF NOT EXISTS `docmodel__keys` ON ", "(META().id)"],
                "args": {},
            }),
            json!({
                "statement": [
                    "CREATE INDEX IF NOT EXISTS `docmodel_order__type_adopting` ON ",
                    format!("(META().id) {predicate}")
                ],
                "args": {},
            }),
            json!({
                "statement": [
                    "CREATE INDEX IF NOT EXISTS `docmodel_order_status_adopting` ON ",
                    format!("(`status`) {predicate}")
                ],
                "args": {},
            }),
        ]
    );
}

#[tokio::test]
async fn a_count_pages_through_the_matches() {
    let store = Scripted::answering([vec![order(1, "open"), order(2, "closed"), order(3, "open")]]);
    let count = Repo::<Order>::new(&store)
        .count(&Order::fields().status.eq("open"))
        .await
        .unwrap();
    assert_eq!(count, 2, "the row the filter does not match is not counted");
    let sent = store.sent();
    assert_eq!(sent.len(), 1, "{sent:#?}");
    assert_eq!(sent[0]["args"], json!({"p1": "open", "limit": 1001}));
}

/// With the feature `tracing`, the statement sent is a `DEBUG` event: its text, the keyspace left as
/// `<keyspace>`, and its arguments with their values hidden unless the repository shows them.
#[cfg(feature = "tracing")]
#[tokio::test]
async fn the_statement_sent_is_traced_with_its_arguments_hidden() {
    use super::tracing::Kept;

    let store = Scripted::answering([vec![order(1, "open")], vec![]]);
    let (_default, kept) = Kept::install();
    Repo::<Order>::new(&store)
        .find(&Query::new(Order::fields().status.eq("open")))
        .await
        .unwrap();
    let sent: Vec<_> = kept
        .events()
        .into_iter()
        .filter(|event| event.message() == "query sent")
        .collect();
    assert_eq!(sent.len(), 2, "the page, then the older documents");
    assert_eq!(sent[0].level, tracing::Level::DEBUG);
    assert_eq!(
        sent[0].fields["db.query.text"],
        format!(
            "{SELECT}<keyspace>{ORDERS} AND (d.`status` = $p1) ORDER BY META(d).id LIMIT $limit"
        )
    );
    assert_eq!(
        sent[0].fields["db.query.parameters"],
        r#"{"limit":"?","p1":"?"}"#
    );
}
