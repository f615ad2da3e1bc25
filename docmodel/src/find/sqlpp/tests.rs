use super::*;
use crate::{Cursor, DocModel, Filter, JsonValue};
use serde_json::json;

use super::super::dialect::{index_name, push_regex_literal};
use super::super::test_models::{Bookmark, Invoice, Order};

/// Appends `text` to the file `DOCMODEL_SQLPP_LOG` names, when it names one: every statement these tests
/// render (`Statement::text_in`, the text the Couchbase store sends for each form of statement), for
/// `.ci/run` to check with Couchbase's own grammar (`../shared/tools/sqlpp-check`), since no query service
/// runs where CI does. One write per statement, so that tests running at once do not interleave them.
pub(super) fn log_statement(text: &str) {
    use std::io::Write as _;
    let Some(path) = std::env::var_os("DOCMODEL_SQLPP_LOG") else {
        return;
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .unwrap_or_else(|err| panic!("DOCMODEL_SQLPP_LOG {}: {err}", path.display()));
    file.write_all(format!("{text};\n").as_bytes())
        .unwrap_or_else(|err| panic!("DOCMODEL_SQLPP_LOG {}: {err}", path.display()));
}

fn keyspace() -> Keyspace {
    Keyspace {
        bucket: "shop".into(),
        scope: "sales".into(),
        collection: "orders".into(),
    }
}

const ORDERS: &str = "SELECT META(d).id AS id, META(d).cas AS cas, d AS doc FROM `shop`.`sales`.`orders` AS d WHERE \
                      d.`_type` = \"order\" AND d.`_copyOf` IS MISSING AND REGEXP_CONTAINS(META(d).id, \"^order\\\\:\\\\:[^\\\\:]+\\\\z\")";

/// The `WHERE` condition after the model's, and the parameters but `limit`.
fn filtered(filter: Filter<Order>) -> (String, Value) {
    let statement = select(&Query::new(filter)).unwrap();
    let text = statement.text_in(&keyspace());
    let condition = text
        .strip_prefix(ORDERS)
        .and_then(|rest| rest.strip_suffix(" ORDER BY META(d).id LIMIT $limit"))
        .unwrap_or_else(|| panic!("unexpected statement: {text}"))
        .to_owned();
    let mut params = statement.params;
    assert_eq!(params.remove("limit"), Some(json!(101)));
    (condition, Value::Object(params))
}

/// The statements' texts on [`keyspace`].
fn texts(statements: &[Statement]) -> Vec<String> {
    statements
        .iter()
        .map(|statement| statement.text_in(&keyspace()))
        .collect()
}

#[test]
fn a_keyspace_is_three_escaped_names() {
    let keyspace = Keyspace {
        bucket: "my`bucket".into(),
        scope: "a\\b".into(),
        collection: "_default".into(),
    };
    assert_eq!(keyspace.to_string(), "`my``bucket`.`a\\\\b`.`_default`");
}

#[test]
fn every_filter_takes_the_models_documents() {
    let statement = select(&Query::new(Filter::<Order>::all())).unwrap();
    assert_eq!(
        statement.text_in(&keyspace()),
        format!("{ORDERS} ORDER BY META(d).id LIMIT $limit")
    );
    assert_eq!(Value::Object(statement.params), json!({"limit": 101}));
}

#[test]
fn equality_and_its_negation() {
    let fields = Order::fields();
    assert_eq!(
        filtered(fields.customer_no.eq(12345)),
        (" AND (d.`customerNo` = $p1)".into(), json!({"p1": 12345}))
    );
    assert_eq!(
        filtered(fields.customer_no.ne(7)),
        (
            " AND ((d.`customerNo` IS NOT MISSING AND NOT IFMISSINGORNULL(d.`customerNo` = $p1, FALSE)))"
                .into(),
            json!({"p1": 7})
        )
    );
    assert_eq!(
        filtered(fields.note.eq(None)),
        (" AND (d.`note` IS NULL)".into(), json!({}))
    );
    assert_eq!(
        filtered(fields.note.is_null()),
        (" AND (d.`note` IS NULL)".into(), json!({}))
    );
    assert_eq!(
        filtered(fields.note.ne(None)),
        (" AND (d.`note` IS NOT NULL)".into(), json!({}))
    );
    assert_eq!(
        filtered(fields.tags.eq(vec!["a".to_owned()])),
        (" AND (d.`tags` = $p1)".into(), json!({"p1": ["a"]}))
    );
}

#[test]
fn ranges_take_values_of_their_kind_only() {
    let fields = Order::fields();
    assert_eq!(
        filtered(fields.customer_no.lt(10)),
        (
            " AND ((IS_NUMBER(d.`customerNo`) AND d.`customerNo` < $p1))".into(),
            json!({"p1": 10})
        )
    );
    assert_eq!(
        filtered(fields.customer_no.le(10)),
        (
            " AND ((IS_NUMBER(d.`customerNo`) AND d.`customerNo` <= $p1))".into(),
            json!({"p1": 10})
        )
    );
    assert_eq!(
        filtered(fields.placed_at.gt("2024")),
        (
            " AND ((IS_STRING(d.`placedAt`) AND d.`placedAt` > $p1))".into(),
            json!({"p1": "2024"})
        )
    );
    assert_eq!(
        filtered(fields.placed_at.ge("2024")),
        (
            " AND ((IS_STRING(d.`placedAt`) AND d.`placedAt` >= $p1))".into(),
            json!({"p1": "2024"})
        )
    );
    let flags = crate::Field::<Order, bool>::top(&["paid"]);
    assert_eq!(
        filtered(flags.ge(true)),
        (
            " AND ((IS_BOOLEAN(d.`paid`) AND d.`paid` >= $p1))".into(),
            json!({"p1": true})
        )
    );
    assert_eq!(
        filtered(fields.note.lt(None)),
        (" AND (FALSE)".into(), json!({}))
    );
    assert_eq!(
        filtered(fields.note.ge(None)),
        (" AND (d.`note` IS NULL)".into(), json!({}))
    );
}

#[test]
fn membership_presence_prefix_and_contents() {
    let fields = Order::fields();
    assert_eq!(
        filtered(fields.customer_no.in_([1, 2])),
        (" AND (d.`customerNo` IN $p1)".into(), json!({"p1": [1, 2]}))
    );
    assert_eq!(
        filtered(fields.note.in_([None, Some("x".to_owned())])),
        (
            " AND ((d.`note` IS NULL OR d.`note` IN $p1))".into(),
            json!({"p1": ["x"]})
        )
    );
    assert_eq!(
        filtered(fields.customer_no.in_(Vec::<u64>::new())),
        (" AND (FALSE)".into(), json!({}))
    );
    assert_eq!(
        filtered(fields.note.exists()),
        (" AND (d.`note` IS NOT MISSING)".into(), json!({}))
    );
    assert_eq!(
        filtered(fields.note.missing()),
        (" AND (NOT (d.`note` IS NOT MISSING))".into(), json!({}))
    );
    assert_eq!(
        filtered(fields.placed_at.starts_with("2024-")),
        (
            " AND ((IS_STRING(d.`placedAt`) AND d.`placedAt` >= $p1 AND d.`placedAt` < $p2))"
                .into(),
            json!({"p1": "2024-", "p2": "2024."})
        )
    );
    assert_eq!(
        filtered(fields.placed_at.starts_with("")),
        (" AND (IS_STRING(d.`placedAt`))".into(), json!({}))
    );
    assert_eq!(
        filtered(fields.tags.contains("gift")),
        (
            " AND (ANY v IN d.`tags` SATISFIES v = $p1 END)".into(),
            json!({"p1": "gift"})
        )
    );
}

#[test]
fn a_prefix_ends_below_its_successor() {
    assert_eq!(successor("ab").as_deref(), Some("ac"));
    assert_eq!(successor("a\u{10FFFF}").as_deref(), Some("b"));
    assert_eq!(successor("a\u{D7FF}").as_deref(), Some("a\u{E000}"));
    assert_eq!(successor("\u{10FFFF}\u{10FFFF}"), None);
    let filter = Order::fields().placed_at.starts_with("\u{10FFFF}");
    assert_eq!(
        filtered(filter),
        (
            " AND ((IS_STRING(d.`placedAt`) AND d.`placedAt` >= $p1))".into(),
            json!({"p1": "\u{10FFFF}"})
        )
    );
}

#[test]
fn nesting_and_negation_keep_two_truth_values() {
    let fields = Order::fields();
    let filter = fields
        .customer_no
        .eq(1)
        .or(fields.tags.contains("gift").not())
        .and(fields.note.exists().or(fields.placed_at.lt("2020")).not());
    assert_eq!(
        filtered(filter),
        (
            " AND (((d.`customerNo` = $p1 OR NOT IFMISSINGORNULL(ANY v IN d.`tags` SATISFIES v = $p2 END, \
             FALSE)) AND NOT IFMISSINGORNULL((d.`note` IS NOT MISSING OR (IS_STRING(d.`placedAt`) AND \
             d.`placedAt` < $p3)), FALSE)))"
                .into(),
            json!({"p1": 1, "p2": "gift", "p3": "2020"})
        )
    );
    assert_eq!(
        filtered(Filter::all().or(fields.note.exists()).not()),
        (
            " AND (NOT ((TRUE OR d.`note` IS NOT MISSING)))".into(),
            json!({})
        )
    );
}

#[test]
fn a_users_text_travels_only_as_a_parameter() {
    let hostile = "x\" OR 1=1 -- `d`.`_type` 100%_ \\";
    let fields = Order::fields();
    let filter = fields
        .placed_at
        .eq(hostile)
        .or(fields.placed_at.starts_with(hostile))
        .or(fields.tags.contains(hostile));
    let (condition, params) = filtered(filter);
    assert!(!condition.contains("OR 1=1"), "{condition}");
    assert!(!condition.contains('%'), "{condition}");
    assert_eq!(params["p1"], json!(hostile));
    assert_eq!(params["p2"], json!(hostile));
    assert_eq!(params["p4"], json!(hostile));
}

#[test]
fn an_ordered_page_after_a_cursor() {
    let fields = Order::fields();
    let query = Query::new(fields.customer_no.eq(12345))
        .order_by_dir(&fields.placed_at, Direction::Descending)
        .limit(20)
        .after(Cursor::new(&json!("2024-05-01"), "order::17"));
    let statement = select(&query).unwrap();
    assert_eq!(
        statement.text_in(&keyspace()),
        format!(
            "{ORDERS} AND (d.`customerNo` = $p1) AND (IFMISSING(d.`placedAt`, NULL) < $after_value OR \
             (IFMISSING(d.`placedAt`, NULL) = $after_value AND META(d).id < $after_key) OR \
             IFMISSING(d.`placedAt`, NULL) IS NULL) ORDER BY IFMISSING(d.`placedAt`, NULL) DESC, \
             META(d).id DESC LIMIT $limit"
        )
    );
    assert_eq!(
        Value::Object(statement.params),
        json!({
            "p1": 12345,
            "after_value": "2024-05-01",
            "after_key": "order::17",
            "limit": 21,
        })
    );
}

#[test]
fn after_a_null_come_greater_keys_then_values() {
    let fields = Order::fields();
    let cursor = Cursor::new(&Value::Null, "order::3");
    let ascending = Query::new(Filter::all())
        .order_by(&fields.note)
        .after(cursor.clone());
    let statement = select(&ascending).unwrap();
    assert_eq!(
        statement.text_in(&keyspace()),
        format!(
            "{ORDERS} AND ((IFMISSING(d.`note`, NULL) IS NULL AND META(d).id > $after_key) OR \
             IFMISSING(d.`note`, NULL) IS NOT NULL) ORDER BY IFMISSING(d.`note`, NULL), META(d).id LIMIT \
             $limit"
        )
    );
    let descending = Query::new(Filter::all())
        .order_by_dir(&fields.note, Direction::Descending)
        .after(cursor.clone());
    let text = select(&descending).unwrap().text_in(&keyspace());
    assert!(
        text.contains(
            " AND (IFMISSING(d.`note`, NULL) IS NULL AND META(d).id < $after_key) ORDER BY"
        ),
        "{text}"
    );
    let by_key = Query::new(Filter::<Order>::all()).after(cursor);
    let statement = select(&by_key).unwrap();
    assert_eq!(
        statement.text_in(&keyspace()),
        format!("{ORDERS} AND META(d).id > $after_key ORDER BY META(d).id LIMIT $limit")
    );
    assert_eq!(statement.params["after_key"], json!("order::3"));
}

#[test]
fn an_ascending_cursor_on_a_value() {
    let fields = Order::fields();
    let query = Query::new(Filter::all())
        .order_by(&fields.customer_no)
        .after(Cursor::new(&json!(5), "order::9"));
    let text = select(&query).unwrap().text_in(&keyspace());
    assert_eq!(
        text,
        format!(
            "{ORDERS} AND (IFMISSING(d.`customerNo`, NULL) > $after_value OR (IFMISSING(d.`customerNo`, \
             NULL) = $after_value AND META(d).id > $after_key)) ORDER BY IFMISSING(d.`customerNo`, NULL), \
             META(d).id LIMIT $limit"
        )
    );
}

#[test]
fn what_cannot_be_exact_is_refused() {
    let fields = Order::fields();
    let err = |filter: Filter<Order>| select(&Query::new(filter)).unwrap_err();
    let lines = crate::Field::<Order, Vec<Option<u32>>>::top(&["lines"]);
    for filter in [
        lines.eq(vec![Some(1), None]),
        lines.ne(vec![None]),
        lines.in_([vec![None]]),
        lines.lt(vec![Some(1)]),
    ] {
        let err = err(filter);
        assert!(matches!(err, Error::Store { .. }), "{err}");
        assert!(
            err.to_string()
                .contains("cannot find `order` documents on Couchbase: `lines`"),
            "{err}"
        );
    }
    let nested = crate::Field::<Order, Vec<Vec<Option<u32>>>>::top(&["grid"]);
    assert!(matches!(
        err(nested.contains(vec![None])),
        Error::Store { .. }
    ));
    let cursor = Query::new(Filter::all())
        .order_by(&fields.tags)
        .after(Cursor::new(&json!(["a"]), "order::1"));
    let err = select(&cursor).unwrap_err();
    assert!(
        err.to_string().contains("`tags`: paging by an array"),
        "{err}"
    );
}

#[test]
fn invalid_values_and_cursors_are_codec_errors() {
    let fields = Order::fields();
    let map = crate::Field::<Order, std::collections::HashMap<Vec<u8>, u8>>::top(&["m"]);
    // Even after a comparison SQL++ cannot make exactly, as `Repo::find` reports it.
    let lines = crate::Field::<Order, Vec<Option<u32>>>::top(&["lines"]);
    let filter = fields
        .customer_no
        .eq(1)
        .and(lines.eq(vec![None]))
        .and(map.eq(std::collections::HashMap::from([(vec![1], 1)])));
    assert!(matches!(
        select(&Query::new(filter)),
        Err(Error::Codec { key: None, .. })
    ));
    let query = Query::new(Filter::<Order>::all()).after(Cursor::from_text("not a cursor"));
    assert!(matches!(select(&query), Err(Error::Codec { .. })));
}

#[test]
fn a_meta_layout_model_reads_its_type_inside_meta() {
    let query = Query::new(Invoice::fields().total.ge(100.5));
    let statement = select(&query).unwrap();
    assert_eq!(
        statement.text_in(&keyspace()),
        "SELECT META(d).id AS id, META(d).cas AS cas, d AS doc FROM `shop`.`sales`.`orders` AS d WHERE d.`meta`.`type` = \
         \"invoice\" AND d.`meta`.`copyOf` IS MISSING AND REGEXP_CONTAINS(META(d).id, \"^inv\\\\:[^\\\\:]+\\\\:[^\\\\:]+\\\\z\") AND ((IS_NUMBER(d.`total`) AND d.`total` \
         >= $p1)) ORDER BY META(d).id LIMIT $limit"
    );
    assert_eq!(
        Value::Object(statement.params),
        json!({"p1": 100.5, "limit": 101})
    );
}

#[test]
fn documents_at_another_schema_page_by_key() {
    let first = other_schemas::<Invoice>(None, 1000);
    assert_eq!(
        first.text_in(&keyspace()),
        "SELECT META(d).id AS id, META(d).cas AS cas, d AS doc FROM `shop`.`sales`.`orders` AS d WHERE \
         d.`meta`.`type` = \"invoice\" AND d.`meta`.`copyOf` IS MISSING AND REGEXP_CONTAINS(META(d).id, \"^inv\\\\:[^\\\\:]+\\\\:[^\\\\:]+\\\\z\") AND \
         (d.`meta`.`schema` IS NOT VALUED OR d.`meta`.`schema` != $schema) ORDER BY META(d).id LIMIT $limit"
    );
    assert_eq!(
        Value::Object(first.params),
        json!({"schema": "1.0", "limit": 1000})
    );
    let next = other_schemas::<Order>(Some("order::7"), 10);
    assert!(
        next.text_in(&keyspace())
            .ends_with(" AND META(d).id > $after_key ORDER BY META(d).id LIMIT $limit"),
        "{}",
        next.text_in(&keyspace())
    );
    assert_eq!(
        Value::Object(next.params),
        json!({"schema": "2.0", "after_key": "order::7", "limit": 10})
    );
}

#[test]
fn a_request_is_the_statements_pieces_and_its_arguments() {
    let statement = select(&Query::new(Order::fields().customer_no.eq(3)).limit(5)).unwrap();
    let request: Value = serde_json::from_slice(&statement.request().unwrap()).unwrap();
    assert_eq!(
        request["statement"],
        json!([
            "SELECT META(d).id AS id, META(d).cas AS cas, d AS doc FROM ",
            statement.pieces[1]
        ])
    );
    assert!(
        statement.pieces[1].starts_with(" AS d WHERE d.`_type` = \"order\""),
        "{}",
        statement.pieces[1]
    );
    assert_eq!(request["args"], json!({"p1": 3, "limit": 6}));
    // The index a store names when the query service finds none.
    assert_eq!(request["index"], "docmodel_order__type");
    let index: Value =
        serde_json::from_slice(&create_indexes::<Order>()[0].request().unwrap()).unwrap();
    assert_eq!(index.get("index"), None, "an index statement names none");
}

#[test]
fn indexes_are_partial_on_the_type() {
    assert_eq!(
        texts(&create_indexes::<Order>()),
        [
            "CREATE INDEX IF NOT EXISTS `docmodel_order__type` ON `shop`.`sales`.`orders`(`_type`) WHERE \
             `_type` = \"order\" AND `_copyOf` IS MISSING",
            "CREATE INDEX IF NOT EXISTS `docmodel_order_customerNo` ON `shop`.`sales`.`orders`(`customerNo`) \
             WHERE `_type` = \"order\" AND `_copyOf` IS MISSING",
            "CREATE INDEX IF NOT EXISTS `docmodel_order_customerNo_placedAt` ON \
             `shop`.`sales`.`orders`(`customerNo`, `placedAt`) WHERE `_type` = \"order\" AND `_copyOf` IS MISSING",
        ]
    );
    assert_eq!(
        texts(&create_indexes::<Invoice>()),
        [
            "CREATE INDEX IF NOT EXISTS `docmodel_invoice_meta_type` ON \
             `shop`.`sales`.`orders`(`meta`.`type`) WHERE `meta`.`type` = \"invoice\" AND `meta`.`copyOf` IS MISSING",
            "CREATE INDEX IF NOT EXISTS `docmodel_invoice_total` ON `shop`.`sales`.`orders`(`total`) WHERE \
             `meta`.`type` = \"invoice\" AND `meta`.`copyOf` IS MISSING",
        ]
    );
}

#[test]
fn a_parents_items_are_one_statement_in_their_order_with_an_index_over_the_parent_and_the_order() {
    use crate::Child;
    const BOOKMARKS: &str = "SELECT META(d).id AS id, META(d).cas AS cas, d AS doc FROM `shop`.`sales`.`orders` AS d \
                             WHERE d.`_type` = \"bookmark\" AND d.`_copyOf` IS MISSING AND \
                             REGEXP_CONTAINS(META(d).id, \"^bookmark\\\\:\\\\:[^\\\\:]+\\\\z\")";
    let one = select(&Bookmark::children_query(&[Order::key(7)]).limit(20)).unwrap();
    assert_eq!(
        one.text_in(&keyspace()),
        format!(
            "{BOOKMARKS} AND (d.`folder` = $p1) ORDER BY IFMISSING(d.`place`, NULL), META(d).id LIMIT $limit"
        )
    );
    assert_eq!(
        Value::Object(one.params),
        json!({"p1": "order::7", "limit": 21})
    );
    let several = select(&Bookmark::children_query(&[Order::key(7), Order::key(8)])).unwrap();
    assert_eq!(
        several.text_in(&keyspace()),
        format!(
            "{BOOKMARKS} AND (d.`folder` IN $p1) ORDER BY IFMISSING(d.`place`, NULL), META(d).id LIMIT $limit"
        )
    );
    assert_eq!(
        Value::Object(several.params),
        json!({"p1": ["order::7", "order::8"], "limit": 101})
    );
    // The parent's index leads with it, so a parent's items are read by its value alone.
    assert_eq!(
        texts(&create_indexes::<Bookmark>())[1..],
        [
            "CREATE INDEX IF NOT EXISTS `docmodel_bookmark_folder_place` ON `shop`.`sales`.`orders`(`folder`, \
             `place`) WHERE `_type` = \"bookmark\" AND `_copyOf` IS MISSING",
            "CREATE INDEX IF NOT EXISTS `docmodel_bookmark_folder` ON `shop`.`sales`.`orders`(`folder`) WHERE \
             `_type` = \"bookmark\" AND `_copyOf` IS MISSING",
            "CREATE INDEX IF NOT EXISTS `docmodel_bookmark_place` ON `shop`.`sales`.`orders`(`place`) WHERE \
             `_type` = \"bookmark\" AND `_copyOf` IS MISSING",
        ]
    );
}

#[test]
fn names_and_literals_are_escaped() {
    let mut text = String::new();
    push_string_literal(&mut text, "a\"b\\c\nd");
    assert_eq!(text, "\"a\\\"b\\\\c\\u000ad\"");
    assert_eq!(
        index_name("line-item", &[&["meta", "a.b"], &["x y"]]),
        "docmodel_line_item_meta_a_b_x_y"
    );
    let mut regex = String::new();
    push_regex_literal(&mut regex, "a.b*(c)\u{1}é_ ");
    assert_eq!(regex, "a\\.b\\*\\(c\\)\\x01é_\\ ");
}

/// The `WHERE` of a statement selecting `M`'s documents, on [`keyspace`].
fn condition_of(statement: &Statement) -> String {
    let text = statement.text_in(&keyspace());
    text.strip_prefix(
        "SELECT META(d).id AS id, META(d).cas AS cas, d AS doc FROM `shop`.`sales`.`orders` AS d WHERE ",
    )
    .unwrap_or_else(|| panic!("unexpected statement: {text}"))
    .to_owned()
}

#[test]
fn a_model_with_aliases_selects_every_spelling_by_its_key_range() {
    use super::super::test_models::Profile;
    let statement = select(&Query::new(Profile::fields().status.eq("active"))).unwrap();
    assert_eq!(
        condition_of(&statement),
        "META(d).id >= \"profile::\" AND META(d).id < \"profile:;\" AND d.`type` IN [\"profile\", \
         \"userProfile\"] AND d.`copyOf` IS MISSING AND REGEXP_CONTAINS(META(d).id, \
         \"^profile\\\\:\\\\:[^\\\\:]+\\\\z\") AND (d.`status` = $p1) ORDER BY META(d).id LIMIT $limit"
    );
    assert_eq!(
        Value::Object(statement.params),
        json!({"p1": "active", "limit": 101})
    );
    assert_eq!(
        texts(&create_indexes::<Profile>()),
        [
            "CREATE INDEX IF NOT EXISTS `docmodel_profile_type_adopting` ON `shop`.`sales`.`orders`(META().id) \
             WHERE `type` IN [\"profile\", \"userProfile\"] AND `copyOf` IS MISSING",
            "CREATE INDEX IF NOT EXISTS `docmodel_profile_status_adopting` ON `shop`.`sales`.`orders`(`status`) \
             WHERE `type` IN [\"profile\", \"userProfile\"] AND `copyOf` IS MISSING",
        ]
    );
}

#[test]
fn an_untyped_model_selects_documents_without_a_type_too() {
    use super::super::test_models::Member;
    let statement = select(&Query::new(Filter::<Member>::all())).unwrap();
    assert_eq!(
        condition_of(&statement),
        "META(d).id >= \"member::\" AND META(d).id < \"member:;\" AND (d.`type` = \"member\" OR d.`type` IS \
         MISSING) AND d.`copyOf` IS MISSING AND REGEXP_CONTAINS(META(d).id, \
         \"^member\\\\:\\\\:[^\\\\:]+\\\\z\") ORDER BY META(d).id LIMIT $limit"
    );
    assert_eq!(
        texts(&create_indexes::<Member>()),
        [
            "CREATE INDEX IF NOT EXISTS `docmodel_member_type_adopting` ON `shop`.`sales`.`orders`(META().id) \
          WHERE (`type` = \"member\" OR `type` IS MISSING) AND `copyOf` IS MISSING"
        ]
    );
}

#[test]
fn a_legacy_name_is_read_under_both_names_and_left_to_the_repository() {
    use super::super::test_models::Note;
    let model = "META(d).id >= \"note::\" AND META(d).id < \"note:;\" AND (d.`type` = \"note\" OR d.`docType` = \
                 \"note\") AND d.`copyOf` IS MISSING AND REGEXP_CONTAINS(META(d).id, \
                 \"^note\\\\:\\\\:[^\\\\:]+\\\\z\")";
    // A field the model names as the store does is filtered by the statement.
    let statement = select(&Query::new(Note::fields().body.eq("hi"))).unwrap();
    assert_eq!(
        condition_of(&statement),
        format!("{model} AND (d.`body` = $p1) ORDER BY META(d).id LIMIT $limit")
    );
    // One read under either name (`created`, or `ctime`) is left to the repository's match, whole: the
    // statement selects every note, and nothing of the filter travels.
    let created = Note::fields().envelope().created;
    let filter = created
        .ge(crate::Timestamp::from_millis(5))
        .and(Note::fields().body.eq("hi"));
    let statement = select(&Query::new(filter)).unwrap();
    assert_eq!(
        condition_of(&statement),
        format!("{model} ORDER BY META(d).id LIMIT $limit")
    );
    assert_eq!(Value::Object(statement.params), json!({"limit": 101}));
    let negated = select(&Query::new(Note::fields().envelope().type_.eq("x").not())).unwrap();
    assert_eq!(
        condition_of(&negated),
        format!("{model} ORDER BY META(d).id LIMIT $limit")
    );
    assert_eq!(
        texts(&create_indexes::<Note>()),
        [
            "CREATE INDEX IF NOT EXISTS `docmodel_note_type_adopting` ON `shop`.`sales`.`orders`(META().id) WHERE \
             (`type` = \"note\" OR `docType` = \"note\") AND `copyOf` IS MISSING",
            "CREATE INDEX IF NOT EXISTS `docmodel_note_body_adopting` ON `shop`.`sales`.`orders`(`body`) WHERE \
             (`type` = \"note\" OR `docType` = \"note\") AND `copyOf` IS MISSING",
        ]
    );
}

#[test]
fn a_root_layout_model_reads_its_fields_under_the_root_attribute() {
    use super::super::test_models::Track;
    let query = Query::new(Track::fields().title.starts_with("My"))
        .order_by_dir(&Track::fields().title, Direction::Descending)
        .after(Cursor::new(&json!("My Way"), "t1"));
    let statement = select(&query).unwrap();
    assert_eq!(
        condition_of(&statement),
        "META(d).id IS NOT MISSING AND IS_OBJECT(d.`track`) AND d.`track`.`copyOf` IS MISSING AND \
         REGEXP_CONTAINS(META(d).id, \"^[^\\\\:]+\\\\:[^\\\\:]+\\\\z\") AND ((IS_STRING(d.`track`.`title`) AND \
         d.`track`.`title` >= $p1 AND d.`track`.`title` < $p2)) AND (IFMISSING(d.`track`.`title`, NULL) < \
         $after_value OR (IFMISSING(d.`track`.`title`, NULL) = $after_value AND META(d).id < $after_key) OR \
         IFMISSING(d.`track`.`title`, NULL) IS NULL) ORDER BY IFMISSING(d.`track`.`title`, NULL) DESC, \
         META(d).id DESC LIMIT $limit"
    );
    // The type is the root attribute's name, not a field: a filter on it is left to the repository.
    let typed = select(&Query::new(Track::fields().envelope().type_.eq("track"))).unwrap();
    assert!(
        condition_of(&typed).ends_with("\\\\z\") ORDER BY META(d).id LIMIT $limit"),
        "{}",
        condition_of(&typed)
    );
    let older = other_schemas::<Track>(None, 10);
    assert!(
        condition_of(&older).contains(
            " AND (d.`track`.`schema` IS NOT VALUED OR d.`track`.`schema` != $schema) ORDER BY"
        ),
        "{}",
        condition_of(&older)
    );
    assert_eq!(
        texts(&create_indexes::<Track>()),
        [
            "CREATE INDEX IF NOT EXISTS `docmodel_track_type_adopting` ON `shop`.`sales`.`orders`(META().id) \
             WHERE IS_OBJECT(`track`) AND `track`.`copyOf` IS MISSING",
            "CREATE INDEX IF NOT EXISTS `docmodel_track_title_adopting` ON \
             `shop`.`sales`.`orders`(`track`.`title`) WHERE IS_OBJECT(`track`) AND `track`.`copyOf` IS MISSING",
        ]
    );
}

#[test]
fn a_nested_path_is_each_name_escaped() {
    let city: crate::Field<Order, String> =
        crate::Field::<Order, JsonValue>::top(&["ship`To"]).child("city");
    assert_eq!(
        filtered(city.eq("Oslo").and(city.starts_with("O"))),
        (
            " AND ((d.`ship``To`.`city` = $p1 AND (IS_STRING(d.`ship``To`.`city`) AND d.`ship``To`.`city` >= $p2 \
             AND d.`ship``To`.`city` < $p3)))"
                .into(),
            json!({"p1": "Oslo", "p2": "O", "p3": "P"})
        )
    );
}
