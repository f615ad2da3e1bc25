use super::*;
use crate::find::position;
use crate::{Cursor, Field, Filter};

use super::super::test_models::{Invoice, Member, Order, Profile};

mod children;

const ORDER_KEY: &str = "^order\\:\\:[^\\:]+(?![\\s\\S])";

/// The conditions `filter` adds to the model's in the selector of its one request, `{}` for none;
/// `"nothing"` when it makes no request.
fn filtered(filter: Filter<Order>) -> Value {
    let bodies = find_bodies(&Query::new(filter)).unwrap();
    let [body] = &bodies[..] else {
        assert!(bodies.is_empty(), "{bodies:?}");
        return json!("nothing");
    };
    let mut selector = body["selector"].as_object().unwrap().clone();
    assert_eq!(selector.remove("_type"), Some(json!({"$eq": "order"})));
    assert_eq!(selector.remove("_id"), Some(json!({"$regex": ORDER_KEY})));
    assert_eq!(
        selector.remove("_copyOf"),
        Some(json!({"$exists": false})),
        "revision copies left out as another client leaves them out"
    );
    Value::Object(selector)
}

#[test]
fn a_page_by_key_reads_the_type_index_or_one_over_fixed_fields() {
    // `customer_no` is fixed, and indexed alone: only that customer's rows are read.
    let query = Query::new(Order::fields().customer_no.eq(12345)).limit(20);
    assert_eq!(
        find_bodies(&query).unwrap(),
        [json!({
            "selector": {
                "_type": {"$eq": "order"},
                "_copyOf": {"$exists": false},
                "_id": {"$regex": ORDER_KEY},
                "customerNo": {"$eq": 12345},
            },
            "sort": [{"_type": "asc"}, {"customerNo": "asc"}],
            "use_index": ["_design/docmodel_order_customerNo", "docmodel_order_customerNo"],
            "allow_fallback": false,
            "limit": 21,
            "conflicts": true,
        })]
    );
    let after = Query::new(Filter::<Order>::all()).after(Cursor::new(&Value::Null, "order::7"));
    let bodies = find_bodies(&after).unwrap();
    assert_eq!(
        bodies[0]["selector"],
        json!({
            "_type": {"$eq": "order"},
            "_copyOf": {"$exists": false},
            "_id": {"$regex": ORDER_KEY, "$gt": "order::7"},
        })
    );
    assert_eq!(bodies[0]["limit"], json!(101));
}

#[test]
fn the_conditions_the_server_applies_exactly_are_sent() {
    let fields = Order::fields();
    let lines = Field::<Order, Vec<u32>>::top(&["lines"]);
    for (filter, selector) in [
        (fields.customer_no.eq(5), json!({"customerNo": {"$eq": 5}})),
        (fields.customer_no.ne(5), json!({"customerNo": {"$ne": 5}})),
        (
            fields.customer_no.lt(5),
            json!({"customerNo": {"$type": "number", "$lt": 5}}),
        ),
        (
            fields.customer_no.ge(5).and(fields.customer_no.le(9)),
            json!({"customerNo": {"$type": "number", "$gte": 5, "$lte": 9}}),
        ),
        (fields.note.is_null(), json!({"note": {"$eq": null}})),
        (fields.note.le(None), json!({"note": {"$eq": null}})),
        (fields.note.exists(), json!({"note": {"$exists": true}})),
        (fields.note.missing(), json!({"note": {"$exists": false}})),
        (
            fields.customer_no.in_([1, 2]),
            json!({"customerNo": {"$in": [1, 2]}}),
        ),
        // `$in: [null]` misses a stored null on the server: no narrowing, the evaluator decides.
        (fields.note.in_([None, Some("x".to_owned())]), json!({})),
        (
            fields.placed_at.starts_with("2024-05.(x)*"),
            json!({"placedAt": {"$regex": "^2024\\-05\\.\\(x\\)\\*"}}),
        ),
        (
            fields.tags.contains("gift"),
            json!({"tags": {"$elemMatch": {"$eq": "gift"}}}),
        ),
        (lines.eq(vec![1, 2]), json!({"lines": {"$eq": [1, 2]}})),
        (
            fields
                .customer_no
                .eq(1)
                .and(fields.tags.contains("a").and(fields.note.exists())),
            json!({
                "customerNo": {"$eq": 1},
                "tags": {"$elemMatch": {"$eq": "a"}},
                "note": {"$exists": true},
            }),
        ),
    ] {
        assert_eq!(filtered(filter.clone()), selector, "{filter:?}");
    }
}

#[test]
fn what_the_server_would_read_otherwise_is_left_to_the_repository() {
    let fields = Order::fields();
    let any = Field::<Order, Value>::top(&["any"]);
    for filter in [
        // CouchDB compares strings by Unicode collation, the repository by bytes.
        fields.placed_at.ge("2024"),
        fields.customer_no.eq(1).or(fields.customer_no.eq(2)),
        fields.customer_no.eq(1).not(),
        fields.tags.contains("gift").not(),
        // `$in` would compare the items of an array field.
        any.in_([json!(1), json!([1])]),
        // CouchDB compares objects member by member, in stored order.
        any.eq(json!({"city": "Oslo"})),
        any.ne(json!([{"city": "Oslo"}])),
        any.lt(json!([{"a": 1}])),
        Field::<Order, Vec<Value>>::top(&["lines"]).contains(json!({"a": 1})),
    ] {
        assert_eq!(filtered(filter.clone()), json!({}), "{filter:?}");
    }
    // A second condition on one operator stays with the repository; the first is sent.
    assert_eq!(
        filtered(fields.customer_no.eq(1).and(fields.customer_no.eq(2))),
        json!({"customerNo": {"$eq": 1}})
    );
}

#[test]
fn a_filter_that_can_match_nothing_sends_nothing() {
    let fields = Order::fields();
    for filter in [
        fields.customer_no.in_(Vec::<u64>::new()),
        fields.note.lt(None),
        fields.customer_no.eq(1).and(fields.note.gt(None)),
        Filter::all().not(),
    ] {
        assert_eq!(filtered(filter.clone()), json!("nothing"), "{filter:?}");
    }
}

#[test]
fn a_users_text_is_a_value_and_a_prefix_is_escaped() {
    let hostile = "x\"}, \"$or\": [{}]} ^.*$ \\ \u{0}é";
    let fields = Order::fields();
    assert_eq!(
        filtered(fields.placed_at.eq(hostile)),
        json!({"placedAt": {"$eq": hostile}})
    );
    assert_eq!(
        filtered(fields.placed_at.starts_with(hostile)),
        json!({"placedAt": {
            "$regex": "^x\\\"\\}\\,\\ \\\"\\$or\\\"\\:\\ \\[\\{\\}\\]\\}\\ \\^\\.\\*\\$\\ \\\\\\ \\x00é"
        }})
    );
}

#[test]
fn an_ordered_page_reads_the_unvalued_then_the_valued() {
    let fields = Order::fields();
    let query = Query::new(fields.customer_no.eq(7))
        .order_by(&fields.placed_at)
        .limit(10);
    let model = |id: Value, more: Value| {
        let mut selector = json!({
            "_type": {"$eq": "order"},
            "_copyOf": {"$exists": false},
            "_id": id,
            "customerNo": {"$eq": 7},
        });
        selector
            .as_object_mut()
            .unwrap()
            .extend(more.as_object().unwrap().clone());
        selector
    };
    let shape = json!({"$regex": ORDER_KEY});
    let unvalued = json!({"$or": [
        {"placedAt": {"$exists": false}},
        {"placedAt": {"$eq": null}},
    ]});
    assert_eq!(
        find_bodies(&query).unwrap(),
        [
            json!({
                "selector": model(shape.clone(), unvalued.clone()),
                "sort": [{"_type": "asc"}, {"customerNo": "asc"}],
                "use_index": ["_design/docmodel_order_customerNo", "docmodel_order_customerNo"],
                "allow_fallback": false,
                "limit": 11,
                "conflicts": true,
            }),
            // Through the index over the fixed `customer_no` and then `placed_at`: only customer 7's rows.
            json!({
                "selector": model(shape.clone(), json!({"placedAt": {"$gte": false}})),
                "sort": [{"_type": "asc"}, {"customerNo": "asc"}, {"placedAt": "asc"}],
                "use_index": [
                    "_design/docmodel_order_customerNo_placedAt",
                    "docmodel_order_customerNo_placedAt",
                ],
                "allow_fallback": false,
                "limit": 11,
                "conflicts": true,
            }),
        ]
    );
    let after_null = query.clone().after(Cursor::new(&Value::Null, "order::4"));
    let bodies = find_bodies(&after_null).unwrap();
    assert_eq!(bodies.len(), 2);
    assert_eq!(
        bodies[0]["selector"],
        model(json!({"$regex": ORDER_KEY, "$gt": "order::4"}), unvalued)
    );
    assert_eq!(bodies[1], find_bodies(&query).unwrap()[1]);
    // After a value: at or past it (above every null), and past the key where it is at it.
    let after_value = query.after(Cursor::new(&json!("2024-05"), "order::4"));
    let bodies = find_bodies(&after_value).unwrap();
    assert_eq!(bodies.len(), 1);
    assert_eq!(
        bodies[0]["selector"],
        model(
            shape,
            json!({
                "placedAt": {"$gte": "2024-05"},
                "$or": [{"placedAt": {"$gt": "2024-05"}}, {"_id": {"$gt": "order::4"}}],
            })
        )
    );
}

#[test]
fn a_descending_page_reads_the_valued_then_the_unvalued() {
    let fields = Order::fields();
    let query = Query::new(fields.customer_no.ge(3))
        .order_by_dir(&fields.customer_no, Direction::Descending)
        .after(Cursor::new(&json!(12), "order::9"));
    let bodies = find_bodies(&query).unwrap();
    assert_eq!(bodies.len(), 2);
    assert_eq!(
        bodies[0],
        json!({
            "selector": {
                "_type": {"$eq": "order"},
                "_copyOf": {"$exists": false},
                "_id": {"$regex": ORDER_KEY},
                // The filter's `$gte` comes after the cursor's `$lte` and `$gt`, in the same field.
                "customerNo": {"$lte": 12, "$type": "number", "$gte": 3},
                "$or": [{"customerNo": {"$lt": 12}}, {"_id": {"$lt": "order::9"}}],
            },
            "sort": [{"_type": "desc"}, {"customerNo": "desc"}],
            "use_index": ["_design/docmodel_order_customerNo", "docmodel_order_customerNo"],
            "allow_fallback": false,
            "limit": 101,
            "conflicts": true,
        })
    );
    assert_eq!(bodies[1]["sort"], json!([{"_type": "desc"}]));
    let after_null = Query::new(Filter::<Order>::all())
        .order_by_dir(&fields.customer_no, Direction::Descending)
        .after(Cursor::new(&Value::Null, "order::9"));
    let bodies = find_bodies(&after_null).unwrap();
    assert_eq!(bodies.len(), 1, "the part without a value comes last");
    assert_eq!(bodies[0]["selector"]["_id"]["$lt"], json!("order::9"));
}

#[test]
fn a_candidates_position_is_its_order_value_and_key() {
    let fields = Order::fields();
    let doc = json!({"customerNo": 7});
    let ordered = Query::new(Filter::<Order>::all()).order_by(&fields.customer_no);
    assert_eq!(
        position(&ordered, &doc, "order::1"),
        Cursor::new(&json!(7), "order::1")
    );
    let by_placed = Query::new(Filter::<Order>::all()).order_by(&fields.placed_at);
    assert_eq!(
        position(&by_placed, &doc, "order::1"),
        Cursor::new(&Value::Null, "order::1")
    );
}

#[test]
fn a_meta_layout_model_reads_its_type_inside_meta() {
    let query = Query::new(Invoice::fields().total.ge(100.5));
    assert_eq!(
        find_bodies(&query).unwrap(),
        [json!({
            "selector": {
                "meta.type": {"$eq": "invoice"},
                "meta.copyOf": {"$exists": false},
                "_id": {"$regex": "^inv\\:[^\\:]+\\:[^\\:]+(?![\\s\\S])"},
                "total": {"$type": "number", "$gte": 100.5},
            },
            "sort": [{"meta.type": "asc"}],
            "use_index": ["_design/docmodel_invoice_meta_type", "docmodel_invoice_meta_type"],
            "allow_fallback": false,
            "limit": 101,
            "conflicts": true,
        })]
    );
    let partial = json!({"meta.type": {"$eq": "invoice"}});
    let index = |fields: &[&str], name: &str| {
        json!({
            "index": {"fields": fields, "partial_filter_selector": partial},
            "ddoc": name,
            "name": name,
            "type": "json",
        })
    };
    assert_eq!(
        index_bodies::<Invoice>().unwrap(),
        [
            index(&["meta.type"], "docmodel_invoice_meta_type"),
            index(
                &["meta.type", "meta.schema"],
                "docmodel_invoice_meta_schema"
            ),
            index(
                &["meta.type", "meta.created"],
                "docmodel_invoice_meta_created"
            ),
            index(
                &["meta.type", "meta.modified"],
                "docmodel_invoice_meta_modified"
            ),
            index(&["meta.type", "total"], "docmodel_invoice_total"),
        ]
    );
}

#[test]
fn indexes_lead_with_the_type() {
    let partial = json!({"_type": {"$eq": "order"}});
    let bodies = index_bodies::<Order>().unwrap();
    assert_eq!(
        bodies[0],
        json!({
            "index": {"fields": ["_type"], "partial_filter_selector": partial},
            "ddoc": "docmodel_order__type",
            "name": "docmodel_order__type",
            "type": "json",
        })
    );
    let fields_and_names: Vec<(&Value, &Value)> = bodies
        .iter()
        .map(|body| {
            assert_eq!(body["index"]["partial_filter_selector"], partial);
            assert_eq!(body["ddoc"], body["name"]);
            (&body["index"]["fields"], &body["name"])
        })
        .collect();
    assert_eq!(
        fields_and_names[1..],
        [
            (
                &json!(["_type", "_schema"]),
                &json!("docmodel_order__schema")
            ),
            (
                &json!(["_type", "_created"]),
                &json!("docmodel_order__created")
            ),
            (
                &json!(["_type", "_modified"]),
                &json!("docmodel_order__modified")
            ),
            (
                &json!(["_type", "customerNo"]),
                &json!("docmodel_order_customerNo")
            ),
            (
                &json!(["_type", "customerNo", "placedAt"]),
                &json!("docmodel_order_customerNo_placedAt")
            ),
        ]
    );
}

#[test]
fn documents_at_another_schema_are_read_through_the_schema_index() {
    let schema = |clause: Value| {
        json!({"$and": [
            {"_type": {"$eq": "order"}},
            {"_id": {"$regex": ORDER_KEY}},
            {"_schema": clause},
        ]})
    };
    assert_eq!(
        other_schema_body::<Order>(true, None, 1000).unwrap(),
        json!({
            "selector": schema(json!({"$gte": "", "$lt": "2.0"})),
            "fields": ["_id", "_rev", "_type", "_schema"],
            "sort": [{"_type": "asc"}, {"_schema": "asc"}],
            "use_index": ["_design/docmodel_order__schema", "docmodel_order__schema"],
            "allow_fallback": false,
            "limit": 1000,
        })
    );
    let after = other_schema_body::<Order>(false, Some(("10.0", "order::3")), 5).unwrap();
    assert_eq!(
        after["selector"]["$and"].as_array().unwrap()[2..],
        [
            json!({"_schema": {"$gt": "2.0", "$lt": []}}),
            json!({"_schema": {"$gte": "10.0"}}),
            json!({"$or": [{"_schema": {"$gt": "10.0"}}, {"_id": {"$gt": "order::3"}}]}),
        ]
    );
    // The schema index is the second the model has: `index_bodies` creates it.
    assert_eq!(
        index_bodies::<Order>().unwrap()[1]["name"],
        after["use_index"][1]
    );
}

#[test]
fn an_order_needs_an_index_on_its_field_alone_or_after_fields_the_filter_fixes() {
    let fields = Order::fields();
    let all = Filter::<Order>::all();
    assert!(check_order::<Order>(all.node(), fields.customer_no.path()).is_ok());
    // `placed_at` is the second field of an index, after `customer_no`: a filter fixing that with `eq`
    // (alone, or in its top-level `and`) orders through it.
    for fixing in [
        fields.customer_no.eq(7),
        fields.placed_at.exists().and(fields.customer_no.eq(7)),
    ] {
        assert!(check_order::<Order>(fixing.node(), fields.placed_at.path()).is_ok());
    }
    for not_fixing in [
        all,
        fields.customer_no.ge(7),
        fields.customer_no.in_([7, 8]),
        fields.customer_no.eq(7).or(fields.customer_no.eq(8)),
        fields.customer_no.eq(7).not(),
    ] {
        let err = check_order::<Order>(not_fixing.node(), fields.placed_at.path()).unwrap_err();
        assert!(matches!(err, Error::Store { .. }), "{err:?}");
        assert!(
            err.to_string()
                .contains("`placedAt`: CouchDB sorts only through an index"),
            "{err}"
        );
    }
}

#[test]
fn field_names_escape_dots_and_refuse_what_mango_cannot_name() {
    let dotted = Field::<Order, u8>::top(&["a.b"]);
    assert_eq!(filtered(dotted.eq(1)), json!({"a\\.b": {"$eq": 1}}));
    for name in [&["a\\b"], &[""], &["$gt"]] {
        let err = find_bodies(&Query::new(Field::<Order, u8>::top(name).exists())).unwrap_err();
        assert!(matches!(err, Error::Store { .. }), "{err}");
        assert!(err.to_string().contains("Mango cannot name"), "{err}");
    }
}

#[test]
fn a_cursor_at_an_object_is_refused() {
    let address = Field::<Order, Value>::top(&["address"]);
    let query = Query::new(Filter::<Order>::all())
        .order_by(&address)
        .after(Cursor::new(&json!({"city": "Oslo"}), "order::1"));
    let err = find_bodies(&query).unwrap_err();
    assert!(matches!(err, Error::Store { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains("cannot find `order` documents on CouchDB: `address`"),
        "{err}"
    );
}

#[test]
fn invalid_values_and_cursors_are_codec_errors() {
    let map = Field::<Order, std::collections::HashMap<Vec<u8>, u8>>::top(&["m"]);
    let address = Field::<Order, Value>::top(&["address"]);
    let filter = address.eq(json!({"city": "Oslo"})).or(map
        .eq(std::collections::HashMap::from([(vec![1], 1)]))
        .not());
    assert!(matches!(
        find_bodies(&Query::new(filter)),
        Err(Error::Codec { key: None, .. })
    ));
    let query = Query::new(Filter::<Order>::all()).after(Cursor::from_text("[1]"));
    assert!(matches!(find_bodies(&query), Err(Error::Codec { .. })));
}

/// Whether a selector this module writes selects `doc`, as CouchDB and pouchdb-server both read it
/// (strings by bytes here): every field's operators hold, a condition on a missing field is false
/// unless it is `{"$exists": false}`, and the one `$or` holds.
fn selects(selector: &Value, doc: &Value) -> bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    selector
        .as_object()
        .unwrap()
        .iter()
        .all(|(name, condition)| {
            if name == "$or" {
                return condition
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|s| selects(s, doc));
            }
            let Some(value) = crate::find::at(doc, &[name.as_str()]) else {
                return condition.get("$exists") == Some(&json!(false));
            };
            let cmp = |arg: &Value| crate::find::collate(value, arg);
            condition
                .as_object()
                .unwrap()
                .iter()
                .all(|(op, arg)| match op.as_str() {
                    "$eq" => cmp(arg) == Equal,
                    "$ne" => cmp(arg) != Equal,
                    "$lt" => cmp(arg) == Less,
                    "$lte" => cmp(arg) != Greater,
                    "$gt" => cmp(arg) == Greater,
                    "$gte" => cmp(arg) != Less,
                    "$exists" => arg.as_bool().unwrap(),
                    "$type" => {
                        let kind = match value {
                            Value::Null => "null",
                            Value::Bool(_) => "boolean",
                            Value::Number(_) => "number",
                            Value::String(_) => "string",
                            Value::Array(_) => "array",
                            Value::Object(_) => "object",
                        };
                        arg == kind
                    }
                    "$in" => {
                        let is = |v: &Value| {
                            arg.as_array()
                                .unwrap()
                                .iter()
                                .any(|a| crate::find::collate(v, a) == Equal)
                        };
                        match value {
                            Value::Array(items) => items.iter().any(is),
                            value => is(value),
                        }
                    }
                    "$elemMatch" => value.as_array().is_some_and(|items| {
                        items
                            .iter()
                            .any(|item| crate::find::collate(item, &arg["$eq"]) == Equal)
                    }),
                    "$regex" => {
                        // Only `^` and an escaped prefix are written.
                        let mut prefix = String::new();
                        let mut chars = arg.as_str().unwrap().strip_prefix('^').unwrap().chars();
                        while let Some(c) = chars.next() {
                            match c {
                                '\\' => match chars.next().unwrap() {
                                    'x' => {
                                        let hex: String = chars.by_ref().take(2).collect();
                                        prefix.push(char::from(
                                            u8::from_str_radix(&hex, 16).unwrap(),
                                        ));
                                    }
                                    c => prefix.push(c),
                                },
                                c => prefix.push(c),
                            }
                        }
                        value.as_str().is_some_and(|text| text.starts_with(&prefix))
                    }
                    other => panic!("an operator this module does not write: {other}"),
                })
        })
}

#[test]
fn candidates_hold_every_match() {
    let fields = Order::fields();
    let any = Field::<Order, Value>::top(&["customerNo"]);
    let leaves: Vec<Filter<Order>> = vec![
        fields.customer_no.eq(5),
        fields.customer_no.ne(5),
        fields.customer_no.lt(5),
        fields.customer_no.le(5),
        fields.customer_no.gt(5),
        fields.customer_no.ge(5),
        fields.customer_no.in_([5, 7]),
        any.in_([json!(5), json!([5]), json!(null)]),
        any.eq(json!([5])),
        any.lt(json!([6])),
        fields.note.is_null(),
        fields.note.ne(None),
        fields.note.le(None),
        fields.note.lt(None),
        fields.note.exists(),
        fields.note.missing(),
        fields.placed_at.starts_with("a.*"),
        fields.placed_at.starts_with(""),
        fields.placed_at.ge("b"),
        fields.tags.contains("gift"),
        Field::<Order, Vec<Option<String>>>::top(&["tags"]).contains(None),
        Filter::all(),
    ];
    let mut filters = Vec::new();
    for (i, leaf) in leaves.iter().enumerate() {
        let other = &leaves[(i * 7 + 3) % leaves.len()];
        filters.push(leaf.clone());
        filters.push(leaf.clone().not());
        filters.push(leaf.clone().and(other.clone()));
        filters.push(leaf.clone().and(other.clone().not()));
        filters.push(leaf.clone().or(other.clone()));
    }
    let values = [
        None,
        Some(json!(null)),
        Some(json!(5)),
        Some(json!(5.0)),
        Some(json!(4.5)),
        Some(json!(7)),
        Some(json!("5")),
        Some(json!("a.*x")),
        Some(json!("ab")),
        Some(json!("b")),
        Some(json!(true)),
        Some(json!([5])),
        Some(json!(["gift"])),
        Some(json!([null])),
        Some(json!([])),
        Some(json!({"a": 1})),
    ];
    let mut docs = Vec::new();
    for i in 0..values.len() {
        let mut doc = Map::new();
        doc.insert("_type".to_owned(), json!("order"));
        for (field, offset) in [
            ("customerNo", 0),
            ("note", 3),
            ("placedAt", 5),
            ("tags", 11),
        ] {
            if let Some(value) = &values[(i + offset) % values.len()] {
                doc.insert(field.to_owned(), value.clone());
            }
        }
        docs.push(Value::Object(doc));
    }
    let mut sent = 0;
    for filter in &filters {
        let bodies = find_bodies(&Query::new(filter.clone())).unwrap();
        let selector = match &bodies[..] {
            [] => None,
            [body] => Some(body["selector"].clone()),
            _ => panic!("{bodies:?}"),
        };
        let mut selector = selector.map(|mut selector| {
            // The key is not part of these documents.
            selector.as_object_mut().unwrap().remove("_id");
            selector
        });
        if selector
            .as_ref()
            .is_some_and(|s| s.as_object().unwrap().len() > 1)
        {
            sent += 1;
        }
        for doc in &docs {
            if filter.matches(doc) {
                let selector = selector
                    .as_mut()
                    .unwrap_or_else(|| panic!("{filter:?} sends nothing, and matches {doc}"));
                assert!(
                    selects(selector, doc),
                    "{filter:?} as {selector} misses {doc}"
                );
            }
        }
    }
    // Most filters narrow on the server.
    assert!(sent * 2 > filters.len(), "{sent} of {}", filters.len());
}

#[test]
fn a_model_adopting_other_spellings_reads_by_key_and_through_indexes_not_led_by_its_type() {
    let profile = r"^profile\:\:[^\:]+(?![\s\S])";
    let spellings = json!({"$in": ["profile", "userProfile"]});
    assert_eq!(
        find_bodies::<Profile>(&Query::new(Filter::all())).unwrap(),
        [json!({
            "selector": {
                "type": spellings,
                "copyOf": {"$exists": false},
                "_id": {"$regex": profile, "$gte": "profile::", "$lt": "profile:;"},
            },
            "sort": [{"_id": "asc"}],
            "limit": 101,
            "conflicts": true,
        })]
    );
    let status = Field::<Profile, String>::top(&["status"]);
    let ordered = find_bodies::<Profile>(&Query::new(Filter::all()).order_by(&status)).unwrap();
    assert_eq!(ordered[1]["sort"], json!([{"status": "asc"}]));
    assert_eq!(
        ordered[1]["use_index"],
        json!([
            "_design/docmodel_profile_status_adopting",
            "docmodel_profile_status_adopting"
        ])
    );
    let indexes = index_bodies::<Profile>().unwrap();
    let fields: Vec<&Value> = indexes
        .iter()
        .map(|body| &body["index"]["fields"])
        .collect();
    assert_eq!(
        fields,
        [
            &json!(["schema"]),
            &json!(["created"]),
            &json!(["modified"]),
            &json!(["status"])
        ]
    );
    assert_eq!(
        indexes[3]["index"]["partial_filter_selector"],
        json!({"_id": {"$regex": profile}})
    );
    assert_eq!(
        unversioned_body::<Profile>(Some("profile::ann"), 10).unwrap(),
        json!({
            "selector": {
                "type": spellings,
                "_id": {"$regex": profile, "$gt": "profile::ann", "$gte": "profile::", "$lt": "profile:;"},
                "schema": {"$exists": false},
            },
            "fields": ["_id", "_rev", "type", "schema"],
            "sort": [{"_id": "asc"}],
            "limit": 10,
        })
    );
    // Untyped documents: no condition on the type at all (the repository tells them apart).
    let untyped = find_bodies::<Member>(&Query::new(Filter::all())).unwrap();
    assert_eq!(untyped[0]["selector"].get("type"), None);
}
