//! Translation of a [`Query`] to CouchDB Mango: the `POST /{db}/_find` requests of one page,
//! and the `POST /{db}/_index` requests that serve them.
//!
//! # Same results as `Filter::matches`
//!
//! A Mango condition on a field is false wherever the field is missing, whatever the operator (`$ne`, and
//! `$not`, which CouchDB pushes down to the fields; pouchdb-server's `$not` is plain negation), but for
//! `{"$exists": false}`. So a negation is translated field by field: `not(c)` on the field `f` is
//! `{"$or": [{f: {"$exists": false}}, {"$not": c}]}`, which both read as "missing, or there and not `c`" (for
//! a field that is there, each negates `c` exactly), and `and`/`or` under a `not` swap by De Morgan. `$not`,
//! `$and` and `$or` are written only at the top of a selector, never inside a field's condition, where
//! pouchdb-server does not know them.
//!
//! Comparisons follow CouchDB's collation (null, false, true, numbers, strings, arrays, objects), as
//! `matches` does, so a range is guarded by the kind of its value (`{"$type": "number", "$lt": 5}`). `$in`
//! on a field holding an array compares its items, where `matches` compares the whole array, so `in_` takes
//! arrays out for its values that are not arrays, and compares array values with `$eq`. `starts_with` is a
//! `$regex`, `^` then the prefix with every character that is not a letter or digit escaped: exact, but not
//! served by an index. `contains` is `{"$elemMatch": {"$eq": item}}` (`$all` compares items as Erlang terms,
//! where `1` and `1.0` differ).
//!
//! What cannot be translated exactly fails with a permanent [`Error::Store`] naming the field, before a
//! request is sent: a value holding an object, anywhere (CouchDB compares objects member by member in the
//! order they are stored in, where `matches` compares them by name), the same for a cursor's order value,
//! and a field name Mango cannot write (holding a `\`, empty, or starting with `$`).
//!
//! Two differences are left: strings compare by CouchDB's Unicode collation (ICU: `"a" < "B"`, and strings
//! that differ only where ICU sees no difference, such as their Unicode normalization, may be equal), where
//! `matches` compares their bytes, which changes ranges over strings and the order of string values
//! (strings of digits and of one letter case, such as ISO dates, keep their order); and CouchDB may compare
//! an integer with a float as two floats, so above 2^53 they may compare equal where `matches` finds them
//! apart.
//!
//! # Pages
//!
//! A docmodel [`Cursor`](crate::Cursor) is a keyset position `(order value, key)`, and the requests of a
//! page select what lies after it in the selector, as the SQL++ statement does; Mango's own `bookmark` is not
//! used (it names a position in one request's index scan, which a docmodel cursor cannot carry).
//!
//! Mango sorts only through an index, and an index holds only the documents that have all its fields, so
//! a sort by a field would drop the documents without it, which [`Repo::find`](crate::Repo::find) orders as
//! null. So an ordered page reads its documents in two parts, each one request, run in order until the page
//! is full: the documents whose order field is missing or null (they tie, so by key alone), and those with a
//! value (by value, then key); ascending the first part comes first, descending last.
//!
//! Ties are ordered by key without `_id` in any index: CouchDB sorts the rows of an index with equal keys
//! by document id, comparing the ids' bytes, and Mango compares `_id` in a selector by bytes too, so the key
//! condition after a cursor (`{"_id": {"$gt": key}}`) agrees with the order of the rows. That needs the
//! request to read one chosen index, whose fields are the type and at most the order field (a longer index
//! would order ties by its next field): each names its index in `use_index`, with `allow_fallback: false`
//! (CouchDB 3.4 and later), so CouchDB answers 400 rather than read another one. The part by key reads the
//! model's type index ([`index_bodies`]); the part by value reads the index over the type and the order
//! field, which a model declares with `#[docmodel(index = "<field>")]`.

use serde_json::{Map, Value, json};

use super::sqlpp::{index_name, invalid, key_shape_ending, push_regex_literal, untranslatable};
use super::{Direction, Node, Op, Query, envelope_path};
use crate::{DocModel, EnvelopeField, Error};

/// The store named in errors.
const STORE: &str = "CouchDB";

/// The `POST /{db}/_find` bodies of one page of `query`, to run in order: the page is the first
/// `query.limit` documents of their results taken one after another, and a document past those says there
/// is a next page. Each request asks for `query.limit + 1` documents (a later one may ask for fewer, as
/// many as the page still lacks). No request when the filter matches nothing.
///
/// A query without an order takes one request, by key; an ordered one takes up to two (see the module
/// documentation): the documents whose order field is missing or null, by key, then those with a value, by
/// value and key (the other way round descending), each after the cursor where it falls in that part.
pub(crate) fn find_bodies<M: DocModel>(query: &Query<M>) -> Result<Vec<Value>, Error> {
    // As `Repo::find` does: a value with no JSON form fails the query whatever else it holds.
    if let Some(reason) = query.filter.invalid() {
        return Err(invalid(reason));
    }
    let filter = match translate::<M>(query.filter.node(), false)? {
        Selector::Nothing => return Ok(Vec::new()),
        Selector::All => None,
        Selector::Where(filter) => Some(filter),
    };
    let after = match &query.after {
        None => None,
        Some(cursor) => Some(
            cursor
                .position()
                .map_err(|source| Error::Codec { key: None, source })?,
        ),
    };
    let type_path = envelope_path::<M>(EnvelopeField::Type);
    let type_field = field_name::<M>(&type_path)?;
    let mut model = vec![
        json!({ &type_field: {"$eq": M::TYPE} }),
        json!({"_id": {"$regex": key_shape::<M>()}}),
    ];
    model.extend(filter);
    let (direction, beyond, at_least) = match query.order.as_ref().map(|(_, direction)| *direction)
    {
        Some(Direction::Descending) => ("desc", "$lt", "$lte"),
        _ => ("asc", "$gt", "$gte"),
    };
    let limit = query.limit.saturating_add(1);
    let body = |clauses: Vec<Value>, sort: Value, index: &str| {
        let all: Vec<Value> = model.iter().cloned().chain(clauses).collect();
        json!({
            "selector": {"$and": all},
            "sort": sort,
            "use_index": [format!("_design/{index}"), index],
            "allow_fallback": false,
            "limit": limit,
            "conflicts": true,
        })
    };
    let type_index = index_name(M::TYPE, &[&type_path]);
    // By key: through the type index, sorted by the type field, which has one value.
    let by_key =
        |clauses: Vec<Value>| body(clauses, json!([{ &type_field: direction }]), &type_index);
    let past_key = |key: &str| json!({"_id": { beyond: key }});
    let Some((path, order)) = &query.order else {
        let clauses = after.iter().map(|(_, key)| past_key(key)).collect();
        return Ok(vec![by_key(clauses)]);
    };
    let order_field = field_name::<M>(path)?;
    // The part without a value, missing or null, by key; after a cursor in it, past its key.
    let unvalued = |key: Option<&str>| {
        let mut clauses = vec![json!({"$or": [
            { &order_field: {"$exists": false} },
            { &order_field: {"$eq": null} },
        ]})];
        clauses.extend(key.map(past_key));
        by_key(clauses)
    };
    // The part with a value, by value and key; after a cursor in it, past its value, or at it and past its
    // key.
    let valued_index = index_name(M::TYPE, &[path]);
    let valued = |position: Option<(&Value, &str)>| {
        let mut clauses = vec![json!({ &order_field: {"$gt": null} })];
        if let Some((value, key)) = position {
            clauses.push(json!({ &order_field: { at_least: value } }));
            clauses.push(json!({"$or": [{ &order_field: { beyond: value } }, past_key(key)]}));
        }
        let sort = json!([{ &type_field: direction }, { &order_field: direction }]);
        body(clauses, sort, &valued_index)
    };
    Ok(match (order, after) {
        (Direction::Ascending, None) => vec![unvalued(None), valued(None)],
        (Direction::Descending, None) => vec![valued(None), unvalued(None)],
        (Direction::Ascending, Some((Value::Null, key))) => {
            vec![unvalued(Some(&key)), valued(None)]
        }
        (Direction::Descending, Some((Value::Null, key))) => vec![unvalued(Some(&key))],
        (direction, Some((value, key))) => {
            refuse_objects::<M>(path, &value)?;
            let valued = valued(Some((&value, &key)));
            match direction {
                Direction::Ascending => vec![valued],
                Direction::Descending => vec![valued, unvalued(None)],
            }
        }
    })
}

/// The `POST /{db}/_index` bodies of the model's indexes: one over its type field, one over its type and
/// schema fields (for [`other_schema_body`]), one over its type and each envelope time it keeps (to order
/// by), then one per [`DocModel::INDEXES`] entry over the type field and the entry's fields. Each is partial on the model's type, and alone in its design document, both named
/// by the index's paths (`docmodel_order_customerNo`), so creating them again changes nothing and a changed
/// index gets a new name. CouchDB reads a partial index only for a request that names it in `use_index`, as
/// [`find_bodies`] does.
pub(crate) fn index_bodies<M: DocModel>() -> Result<Vec<Value>, Error> {
    let type_path = envelope_path::<M>(EnvelopeField::Type);
    let type_field = field_name::<M>(&type_path)?;
    let body = |paths: &[&[&str]]| -> Result<Value, Error> {
        let mut fields = vec![type_field.clone()];
        for path in paths {
            fields.push(field_name::<M>(path)?);
        }
        let name = match paths {
            [] => index_name(M::TYPE, &[&type_path]),
            _ => index_name(M::TYPE, paths),
        };
        Ok(json!({
            "index": {
                "fields": fields,
                "partial_filter_selector": { &type_field: {"$eq": M::TYPE} },
            },
            "ddoc": name,
            "name": name,
            "type": "json",
        }))
    };
    let schema_path = envelope_path::<M>(EnvelopeField::Schema);
    let mut bodies = vec![body(&[])?, body(&[&schema_path])?];
    for path in envelope_orders::<M>() {
        bodies.push(body(&[&path])?);
    }
    for index in M::INDEXES {
        bodies.push(body(index.paths())?);
    }
    Ok(bodies)
}

/// The paths of the envelope's times the model keeps (`_created`, `_modified`): [`index_bodies`] indexes
/// each, so that a query can be ordered by it.
fn envelope_orders<M: DocModel>() -> Vec<Vec<&'static str>> {
    [EnvelopeField::Created, EnvelopeField::Modified]
        .into_iter()
        .filter(|field| M::ENVELOPE.keeps(*field))
        .map(envelope_path::<M>)
        .collect()
}

/// Whether a query ordered by `path` can be read on CouchDB: Mango sorts only through an index, and
/// [`find_bodies`] reads the one over the type and `path` alone, which the model declares with
/// `#[docmodel(index = "<field>")]` (or has for `_created` and `_modified`). Fails with a permanent [`Error::Store`] naming the field otherwise.
pub(crate) fn check_order<M: DocModel>(path: &[&str]) -> Result<(), Error> {
    if M::INDEXES
        .iter()
        .any(|index| matches!(index.paths(), [only] if *only == path))
        || envelope_orders::<M>().iter().any(|order| order == path)
    {
        return Ok(());
    }
    Err(untranslatable::<M>(
        STORE,
        path,
        "CouchDB sorts only through an index: declare one on this field alone \
         (`#[docmodel(index = \"<field>\")]`) and create it with `Repo::ensure_indexes`",
    ))
}

/// The `POST /{db}/_find` body of up to `limit` of the model's documents whose schema field holds a string
/// `below` the current schema's text (or above it), by schema text then key, after `after` (the schema text
/// and key a previous request ended with); each document comes as its `_id`, `_rev` and schema field only.
/// Versions do not compare as text (`"10.0" < "9.0"`), so both sides may hold older documents; the caller
/// parses what it reads. Reads the schema index ([`index_bodies`]) over a range: only those documents.
pub(crate) fn other_schema_body<M: DocModel>(
    below: bool,
    after: Option<(&str, &str)>,
    limit: usize,
) -> Result<Value, Error> {
    let type_path = envelope_path::<M>(EnvelopeField::Type);
    let type_field = field_name::<M>(&type_path)?;
    let schema_path = envelope_path::<M>(EnvelopeField::Schema);
    let schema_field = field_name::<M>(&schema_path)?;
    let current = M::SCHEMA.to_string();
    let side = if below { "$lt" } else { "$gt" };
    let mut clauses = vec![
        json!({ &type_field: {"$eq": M::TYPE} }),
        json!({"_id": {"$regex": key_shape::<M>()}}),
        json!({ &schema_field: {"$type": "string", side: current} }),
    ];
    if let Some((schema, key)) = after {
        clauses.push(json!({ &schema_field: {"$gte": schema} }));
        clauses.push(json!({"$or": [{ &schema_field: {"$gt": schema} }, {"_id": {"$gt": key}}]}));
    }
    let index = index_name(M::TYPE, &[&schema_path]);
    Ok(json!({
        "selector": {"$and": clauses},
        "fields": ["_id", "_rev", schema_field],
        "sort": [{ &type_field: "asc" }, { &schema_field: "asc" }],
        "use_index": [format!("_design/{index}"), index],
        "allow_fallback": false,
        "limit": limit,
    }))
}

/// The model's key shape (as SQL++ has it, [`key_shape`](super::sqlpp::key_shape)), for Mango: CouchDB reads
/// a `$regex` as PCRE, pouchdb-server as a JavaScript regular expression, which has no `\z`; a lookahead
/// for no character at all ends the text in both (`$` would match before a final newline in PCRE).
fn key_shape<M: DocModel>() -> String {
    key_shape_ending::<M>(r"(?![\s\S])")
}

/// A translated filter: everything, nothing (Mango has no literal for either), or a selector.
enum Selector {
    /// Every document.
    All,
    /// No document.
    Nothing,
    /// The documents this selector matches.
    Where(Value),
}

/// `parts` all together.
fn all_of(parts: Vec<Selector>) -> Selector {
    let mut selectors = Vec::with_capacity(parts.len());
    for part in parts {
        match part {
            Selector::All => {}
            Selector::Nothing => return Selector::Nothing,
            Selector::Where(selector) => selectors.push(selector),
        }
    }
    match selectors.len() {
        0 => Selector::All,
        1 => selectors.pop().map_or(Selector::All, Selector::Where),
        _ => Selector::Where(json!({ "$and": selectors })),
    }
}

/// Any of `parts`.
fn any_of(parts: Vec<Selector>) -> Selector {
    let mut selectors = Vec::with_capacity(parts.len());
    for part in parts {
        match part {
            Selector::All => return Selector::All,
            Selector::Nothing => {}
            Selector::Where(selector) => selectors.push(selector),
        }
    }
    match selectors.len() {
        0 => Selector::Nothing,
        1 => selectors.pop().map_or(Selector::Nothing, Selector::Where),
        _ => Selector::Where(json!({ "$or": selectors })),
    }
}

/// `node`, or its negation when `negated`, as a Mango selector.
fn translate<M: DocModel>(node: &Node, negated: bool) -> Result<Selector, Error> {
    let combine = |nodes: &[Node], both: bool| -> Result<Selector, Error> {
        let parts = nodes
            .iter()
            .map(|node| translate::<M>(node, negated))
            .collect::<Result<Vec<_>, _>>()?;
        // Under a negation, "all of" becomes "any of" and the other way round.
        Ok(if both != negated {
            all_of(parts)
        } else {
            any_of(parts)
        })
    };
    let (path, condition) = match node {
        Node::All if negated => return Ok(Selector::Nothing),
        Node::All => return Ok(Selector::All),
        Node::Invalid(reason) => return Err(invalid(reason)),
        Node::Not(node) => return translate::<M>(node, !negated),
        Node::And(nodes) => return combine(nodes, true),
        Node::Or(nodes) => return combine(nodes, false),
        Node::Exists(path) => {
            let field = field_name::<M>(path)?;
            return Ok(Selector::Where(json!({ field: {"$exists": !negated} })));
        }
        Node::Compare { path, op, value } => (path, compare::<M>(path, *op, value)?),
        Node::In { path, values } => (path, within::<M>(path, values)?),
        Node::StartsWith(path, prefix) => {
            let mut pattern = String::from("^");
            push_regex_literal(&mut pattern, prefix);
            (
                path,
                Some(on(field_name::<M>(path)?, json!({ "$regex": pattern }))),
            )
        }
        Node::Contains(path, item) => {
            refuse_objects::<M>(path, item)?;
            let field = field_name::<M>(path)?;
            (path, Some(on(field, json!({"$elemMatch": {"$eq": item}}))))
        }
    };
    Ok(match (condition, negated) {
        (None, false) => Selector::Nothing,
        (None, true) => Selector::All,
        (Some(condition), false) => Selector::Where(condition),
        // `condition` is false where the field is missing, in CouchDB and pouchdb alike; where it is there,
        // both negate it exactly (pouchdb has `$not` only at the top of a selector, which CouchDB reads too).
        (Some(condition), true) => Selector::Where(json!({"$or": [
            {field_name::<M>(path)?: {"$exists": false}},
            {"$not": condition},
        ]})),
    })
}

/// The selector `{field: condition}`.
fn on(field: String, condition: Value) -> Value {
    let mut selector = Map::new();
    selector.insert(field, condition);
    Value::Object(selector)
}

/// The selector on the field at `path` for comparison `op` with `value`, false where the field is missing;
/// `None` when no value meets it.
fn compare<M: DocModel>(path: &[&str], op: Op, value: &Value) -> Result<Option<Value>, Error> {
    refuse_objects::<M>(path, value)?;
    let field = field_name::<M>(path)?;
    let operator = match op {
        Op::Eq => return Ok(Some(on(field, json!({"$eq": value})))),
        Op::Ne => return Ok(Some(on(field, json!({"$ne": value})))),
        Op::Lt => "$lt",
        Op::Le => "$lte",
        Op::Gt => "$gt",
        Op::Ge => "$gte",
    };
    let kind = match value {
        // Only null is of null's kind, and it is neither below nor above itself.
        Value::Null if matches!(op, Op::Lt | Op::Gt) => return Ok(None),
        Value::Null => return Ok(Some(on(field, json!({"$eq": null})))),
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let mut condition = Map::new();
    condition.insert("$type".to_owned(), Value::from(kind));
    condition.insert(operator.to_owned(), value.clone());
    Ok(Some(on(field, Value::Object(condition))))
}

/// The selector on the field at `path` for `in_(values)`, false where the field is missing: `$in` for the
/// values that are not arrays, on a field that is not an array (Mango's `$in` would compare an array's
/// items), `$eq` for each array value. `None` for no values.
fn within<M: DocModel>(path: &[&str], values: &[Value]) -> Result<Option<Value>, Error> {
    let field = field_name::<M>(path)?;
    let mut scalars = Vec::new();
    let mut selectors = Vec::new();
    for value in values {
        refuse_objects::<M>(path, value)?;
        if value.is_array() {
            selectors.push(on(field.clone(), json!({"$eq": value})));
        } else {
            scalars.push(value.clone());
        }
    }
    if !scalars.is_empty() {
        selectors.insert(
            0,
            json!({"$and": [
                { &field: {"$in": scalars} },
                {"$not": { &field: {"$type": "array"} }},
            ]}),
        );
    }
    Ok(match selectors.len() {
        0 => None,
        1 => selectors.pop(),
        _ => Some(json!({ "$or": selectors })),
    })
}

/// Fails for a value holding an object, which CouchDB compares member by member in stored order.
fn refuse_objects<M: DocModel>(path: &[&str], value: &Value) -> Result<(), Error> {
    fn holds_object(value: &Value) -> bool {
        match value {
            Value::Object(_) => true,
            Value::Array(items) => items.iter().any(holds_object),
            _ => false,
        }
    }
    if holds_object(value) {
        return Err(untranslatable::<M>(
            STORE,
            path,
            "CouchDB compares objects member by member in the order they are stored in, so a comparison \
             with one cannot be translated exactly",
        ));
    }
    Ok(())
}

/// The field at `path` as Mango names it: names joined by `.`, a `.` inside a name escaped as `\.`. Mango
/// drops every other backslash, cannot name an empty member, and reads a name starting with `$` as an
/// operator: such a path fails.
fn field_name<M: DocModel>(path: &[&str]) -> Result<String, Error> {
    let mut field = String::new();
    for (i, name) in path.iter().enumerate() {
        if name.is_empty() || name.contains('\\') || (i == 0 && name.starts_with('$')) {
            return Err(untranslatable::<M>(
                STORE,
                path,
                "Mango cannot name a field that is empty, holds a `\\` or starts with `$`",
            ));
        }
        if i > 0 {
            field.push('.');
        }
        field.push_str(&name.replace('.', "\\."));
    }
    Ok(field)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Cursor, Field, Filter};

    use super::super::test_models::{Invoice, Order};

    const ORDER_KEY: &str = "^order\\:\\:[^\\:]+(?![\\s\\S])";

    /// The model's conditions every order selector starts with.
    fn orders() -> Vec<Value> {
        vec![
            json!({"_type": {"$eq": "order"}}),
            json!({"_id": {"$regex": ORDER_KEY}}),
        ]
    }

    /// The selector `filter` adds to the model's conditions, `None` when it adds none; `Nothing` when it
    /// matches no document.
    fn filtered(filter: Filter<Order>) -> Option<Value> {
        let bodies = find_bodies(&Query::new(filter)).unwrap();
        let [body] = &bodies[..] else {
            assert!(bodies.is_empty(), "{bodies:?}");
            return Some(json!("nothing"));
        };
        let mut clauses = body["selector"]["$and"].as_array().unwrap().clone();
        assert_eq!(clauses.drain(..2).collect::<Vec<_>>(), orders());
        assert!(clauses.len() <= 1, "{clauses:?}");
        clauses.pop()
    }

    #[test]
    fn a_page_by_key_reads_the_type_index() {
        let query = Query::new(Order::fields().customer_no.eq(12345)).limit(20);
        assert_eq!(
            find_bodies(&query).unwrap(),
            [json!({
                "selector": {"$and": [
                    {"_type": {"$eq": "order"}},
                    {"_id": {"$regex": ORDER_KEY}},
                    {"customerNo": {"$eq": 12345}},
                ]},
                "sort": [{"_type": "asc"}],
                "use_index": ["_design/docmodel_order__type", "docmodel_order__type"],
                "allow_fallback": false,
                "limit": 21,
                "conflicts": true,
            })]
        );
        let after = Query::new(Filter::<Order>::all()).after(Cursor::new(&Value::Null, "order::7"));
        let bodies = find_bodies(&after).unwrap();
        assert_eq!(
            bodies[0]["selector"],
            json!({"$and": [
                {"_type": {"$eq": "order"}},
                {"_id": {"$regex": ORDER_KEY}},
                {"_id": {"$gt": "order::7"}},
            ]})
        );
        assert_eq!(bodies[0]["limit"], json!(101));
    }

    #[test]
    fn comparisons() {
        let fields = Order::fields();
        let paid = Field::<Order, bool>::top(&["paid"]);
        for (filter, selector) in [
            (fields.customer_no.eq(5), json!({"customerNo": {"$eq": 5}})),
            (fields.customer_no.ne(5), json!({"customerNo": {"$ne": 5}})),
            (
                fields.customer_no.lt(5),
                json!({"customerNo": {"$type": "number", "$lt": 5}}),
            ),
            (
                fields.customer_no.le(5),
                json!({"customerNo": {"$type": "number", "$lte": 5}}),
            ),
            (
                fields.placed_at.gt("2024"),
                json!({"placedAt": {"$type": "string", "$gt": "2024"}}),
            ),
            (
                fields.placed_at.ge("2024"),
                json!({"placedAt": {"$type": "string", "$gte": "2024"}}),
            ),
            (
                paid.lt(true),
                json!({"paid": {"$type": "boolean", "$lt": true}}),
            ),
            (
                fields.tags.ge(vec!["a".to_owned()]),
                json!({"tags": {"$type": "array", "$gte": ["a"]}}),
            ),
            (fields.note.is_null(), json!({"note": {"$eq": null}})),
            (fields.note.ne(None), json!({"note": {"$ne": null}})),
            (fields.note.le(None), json!({"note": {"$eq": null}})),
        ] {
            assert_eq!(filtered(filter), Some(selector));
        }
        assert_eq!(filtered(fields.note.gt(None)), Some(json!("nothing")));
        assert_eq!(filtered(fields.note.gt(None).not()), None);
    }

    #[test]
    fn membership_presence_prefix_and_contents() {
        let fields = Order::fields();
        let lines = Field::<Order, Vec<u32>>::top(&["lines"]);
        for (filter, selector) in [
            (
                fields.customer_no.in_([1, 2]),
                json!({"$and": [
                    {"customerNo": {"$in": [1, 2]}},
                    {"$not": {"customerNo": {"$type": "array"}}},
                ]}),
            ),
            (
                lines.in_([vec![1], vec![2, 3]]),
                json!({"$or": [{"lines": {"$eq": [1]}}, {"lines": {"$eq": [2, 3]}}]}),
            ),
            (fields.note.exists(), json!({"note": {"$exists": true}})),
            (fields.note.missing(), json!({"note": {"$exists": false}})),
            (
                fields.placed_at.starts_with("2024-05.(x)*"),
                json!({"placedAt": {"$regex": "^2024\\-05\\.\\(x\\)\\*"}}),
            ),
            (
                fields.tags.contains("gift"),
                json!({"tags": {"$elemMatch": {"$eq": "gift"}}}),
            ),
        ] {
            assert_eq!(filtered(filter), Some(selector));
        }
        let mixed = Field::<Order, Value>::top(&["any"]).in_([json!(1), json!([1])]);
        assert_eq!(
            filtered(mixed),
            Some(json!({"$or": [
                {"$and": [{"any": {"$in": [1]}}, {"$not": {"any": {"$type": "array"}}}]},
                {"any": {"$eq": [1]}},
            ]}))
        );
        assert_eq!(
            filtered(fields.customer_no.in_(Vec::<u64>::new())),
            Some(json!("nothing"))
        );
    }

    #[test]
    fn a_negation_keeps_the_documents_without_the_field() {
        let fields = Order::fields();
        assert_eq!(
            filtered(fields.customer_no.eq(5).not()),
            Some(json!({"$or": [
                {"customerNo": {"$exists": false}},
                {"$not": {"customerNo": {"$eq": 5}}},
            ]}))
        );
        let filter = fields
            .customer_no
            .eq(1)
            .or(fields.tags.contains("gift").not())
            .and(fields.note.exists().or(fields.placed_at.lt("2020")).not());
        assert_eq!(
            filtered(filter),
            Some(json!({"$and": [
                {"$or": [
                    {"customerNo": {"$eq": 1}},
                    {"$or": [
                        {"tags": {"$exists": false}},
                        {"$not": {"tags": {"$elemMatch": {"$eq": "gift"}}}},
                    ]},
                ]},
                {"$and": [
                    {"note": {"$exists": false}},
                    {"$or": [
                        {"placedAt": {"$exists": false}},
                        {"$not": {"placedAt": {"$type": "string", "$lt": "2020"}}},
                    ]},
                ]},
            ]}))
        );
        assert_eq!(filtered(Filter::all().or(fields.note.exists())), None);
        assert_eq!(
            filtered(Filter::all().or(fields.note.exists()).not()),
            Some(json!("nothing"))
        );
        assert_eq!(
            filtered(Filter::all().and(fields.note.exists())),
            Some(json!({"note": {"$exists": true}}))
        );
    }

    #[test]
    fn a_users_text_is_a_value_and_a_prefix_is_escaped() {
        let hostile = "x\"}, \"$or\": [{}]} ^.*$ \\ \u{0}é";
        let fields = Order::fields();
        assert_eq!(
            filtered(fields.placed_at.eq(hostile)),
            Some(json!({"placedAt": {"$eq": hostile}}))
        );
        assert_eq!(
            filtered(fields.placed_at.starts_with(hostile)),
            Some(json!({"placedAt": {
                "$regex": "^x\\\"\\}\\,\\ \\\"\\$or\\\"\\:\\ \\[\\{\\}\\]\\}\\ \\^\\.\\*\\$\\ \\\\\\ \\x00é"
            }}))
        );
    }

    #[test]
    fn an_ordered_page_reads_the_unvalued_then_the_valued() {
        let fields = Order::fields();
        let query = Query::new(fields.customer_no.eq(7))
            .order_by(&fields.placed_at)
            .limit(10);
        let model = json!([
            {"_type": {"$eq": "order"}},
            {"_id": {"$regex": ORDER_KEY}},
            {"customerNo": {"$eq": 7}},
        ]);
        let with = |clauses: Value| {
            let mut all = model.as_array().unwrap().clone();
            all.extend(clauses.as_array().unwrap().iter().cloned());
            json!({"$and": all})
        };
        assert_eq!(
            find_bodies(&query).unwrap(),
            [
                json!({
                    "selector": with(json!([{"$or": [
                        {"placedAt": {"$exists": false}},
                        {"placedAt": {"$eq": null}},
                    ]}])),
                    "sort": [{"_type": "asc"}],
                    "use_index": ["_design/docmodel_order__type", "docmodel_order__type"],
                    "allow_fallback": false,
                    "limit": 11,
                    "conflicts": true,
                }),
                json!({
                    "selector": with(json!([{"placedAt": {"$gt": null}}])),
                    "sort": [{"_type": "asc"}, {"placedAt": "asc"}],
                    "use_index": ["_design/docmodel_order_placedAt", "docmodel_order_placedAt"],
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
            with(json!([
                {"$or": [{"placedAt": {"$exists": false}}, {"placedAt": {"$eq": null}}]},
                {"_id": {"$gt": "order::4"}},
            ]))
        );
        assert_eq!(bodies[1], find_bodies(&query).unwrap()[1]);
        let after_value = query.after(Cursor::new(&json!("2024-05"), "order::4"));
        let bodies = find_bodies(&after_value).unwrap();
        assert_eq!(bodies.len(), 1);
        assert_eq!(
            bodies[0]["selector"],
            with(json!([
                {"placedAt": {"$gt": null}},
                {"placedAt": {"$gte": "2024-05"}},
                {"$or": [{"placedAt": {"$gt": "2024-05"}}, {"_id": {"$gt": "order::4"}}]},
            ]))
        );
    }

    #[test]
    fn a_descending_page_reads_the_valued_then_the_unvalued() {
        let fields = Order::fields();
        let query = Query::new(Filter::<Order>::all())
            .order_by_dir(&fields.customer_no, Direction::Descending)
            .after(Cursor::new(&json!(12), "order::9"));
        let bodies = find_bodies(&query).unwrap();
        assert_eq!(
            bodies,
            [
                json!({
                    "selector": {"$and": [
                        {"_type": {"$eq": "order"}},
                        {"_id": {"$regex": ORDER_KEY}},
                        {"customerNo": {"$gt": null}},
                        {"customerNo": {"$lte": 12}},
                        {"$or": [{"customerNo": {"$lt": 12}}, {"_id": {"$lt": "order::9"}}]},
                    ]},
                    "sort": [{"_type": "desc"}, {"customerNo": "desc"}],
                    "use_index": ["_design/docmodel_order_customerNo", "docmodel_order_customerNo"],
                    "allow_fallback": false,
                    "limit": 101,
                    "conflicts": true,
                }),
                json!({
                    "selector": {"$and": [
                        {"_type": {"$eq": "order"}},
                        {"_id": {"$regex": ORDER_KEY}},
                        {"$or": [{"customerNo": {"$exists": false}}, {"customerNo": {"$eq": null}}]},
                    ]},
                    "sort": [{"_type": "desc"}],
                    "use_index": ["_design/docmodel_order__type", "docmodel_order__type"],
                    "allow_fallback": false,
                    "limit": 101,
                    "conflicts": true,
                }),
            ]
        );
        let in_the_nulls = Query::new(Filter::<Order>::all())
            .order_by_dir(&fields.customer_no, Direction::Descending)
            .after(Cursor::new(&Value::Null, "order::9"));
        let bodies = find_bodies(&in_the_nulls).unwrap();
        assert_eq!(bodies.len(), 1);
        assert_eq!(bodies[0]["sort"], json!([{"_type": "desc"}]));
        assert_eq!(
            bodies[0]["selector"]["$and"][3],
            json!({"_id": {"$lt": "order::9"}})
        );
    }

    #[test]
    fn a_meta_layout_model_reads_its_type_inside_meta() {
        let query = Query::new(Invoice::fields().total.ge(100.5));
        assert_eq!(
            find_bodies(&query).unwrap(),
            [json!({
                "selector": {"$and": [
                    {"meta.type": {"$eq": "invoice"}},
                    {"_id": {"$regex": "^inv\\:[^\\:]+\\:[^\\:]+(?![\\s\\S])"}},
                    {"total": {"$type": "number", "$gte": 100.5}},
                ]},
                "sort": [{"meta.type": "asc"}],
                "use_index": ["_design/docmodel_invoice_meta_type", "docmodel_invoice_meta_type"],
                "allow_fallback": false,
                "limit": 101,
                "conflicts": true,
            })]
        );
        assert_eq!(
            index_bodies::<Invoice>().unwrap(),
            [
                json!({
                    "index": {
                        "fields": ["meta.type"],
                        "partial_filter_selector": {"meta.type": {"$eq": "invoice"}},
                    },
                    "ddoc": "docmodel_invoice_meta_type",
                    "name": "docmodel_invoice_meta_type",
                    "type": "json",
                }),
                json!({
                    "index": {
                        "fields": ["meta.type", "meta.schema"],
                        "partial_filter_selector": {"meta.type": {"$eq": "invoice"}},
                    },
                    "ddoc": "docmodel_invoice_meta_schema",
                    "name": "docmodel_invoice_meta_schema",
                    "type": "json",
                }),
                json!({
                    "index": {
                        "fields": ["meta.type", "meta.created"],
                        "partial_filter_selector": {"meta.type": {"$eq": "invoice"}},
                    },
                    "ddoc": "docmodel_invoice_meta_created",
                    "name": "docmodel_invoice_meta_created",
                    "type": "json",
                }),
                json!({
                    "index": {
                        "fields": ["meta.type", "meta.modified"],
                        "partial_filter_selector": {"meta.type": {"$eq": "invoice"}},
                    },
                    "ddoc": "docmodel_invoice_meta_modified",
                    "name": "docmodel_invoice_meta_modified",
                    "type": "json",
                }),
                json!({
                    "index": {
                        "fields": ["meta.type", "total"],
                        "partial_filter_selector": {"meta.type": {"$eq": "invoice"}},
                    },
                    "ddoc": "docmodel_invoice_total",
                    "name": "docmodel_invoice_total",
                    "type": "json",
                }),
            ]
        );
    }

    #[test]
    fn indexes_lead_with_the_type() {
        let partial = json!({"_type": {"$eq": "order"}});
        assert_eq!(
            index_bodies::<Order>().unwrap(),
            [
                json!({
                    "index": {"fields": ["_type"], "partial_filter_selector": partial},
                    "ddoc": "docmodel_order__type",
                    "name": "docmodel_order__type",
                    "type": "json",
                }),
                json!({
                    "index": {"fields": ["_type", "_schema"], "partial_filter_selector": partial},
                    "ddoc": "docmodel_order__schema",
                    "name": "docmodel_order__schema",
                    "type": "json",
                }),
                json!({
                    "index": {"fields": ["_type", "_created"], "partial_filter_selector": partial},
                    "ddoc": "docmodel_order__created",
                    "name": "docmodel_order__created",
                    "type": "json",
                }),
                json!({
                    "index": {"fields": ["_type", "_modified"], "partial_filter_selector": partial},
                    "ddoc": "docmodel_order__modified",
                    "name": "docmodel_order__modified",
                    "type": "json",
                }),
                json!({
                    "index": {"fields": ["_type", "customerNo"], "partial_filter_selector": partial},
                    "ddoc": "docmodel_order_customerNo",
                    "name": "docmodel_order_customerNo",
                    "type": "json",
                }),
                json!({
                    "index": {
                        "fields": ["_type", "customerNo", "placedAt"],
                        "partial_filter_selector": partial,
                    },
                    "ddoc": "docmodel_order_customerNo_placedAt",
                    "name": "docmodel_order_customerNo_placedAt",
                    "type": "json",
                }),
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
                "selector": schema(json!({"$type": "string", "$lt": "2.0"})),
                "fields": ["_id", "_rev", "_schema"],
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
                json!({"_schema": {"$type": "string", "$gt": "2.0"}}),
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
    fn an_order_needs_an_index_on_its_field_alone() {
        let fields = Order::fields();
        assert!(check_order::<Order>(fields.customer_no.path()).is_ok());
        // `placed_at` is only the second field of an index.
        let err = check_order::<Order>(fields.placed_at.path()).unwrap_err();
        assert!(matches!(err, Error::Store { .. }), "{err:?}");
        assert!(
            err.to_string()
                .contains("`placedAt`: CouchDB sorts only through an index"),
            "{err}"
        );
    }

    #[test]
    fn field_names_escape_dots_and_refuse_what_mango_cannot_name() {
        let dotted = Field::<Order, u8>::top(&["a.b"]);
        assert_eq!(filtered(dotted.eq(1)), Some(json!({"a\\.b": {"$eq": 1}})));
        for name in [&["a\\b"], &[""], &["$gt"]] {
            let err = find_bodies(&Query::new(Field::<Order, u8>::top(name).exists())).unwrap_err();
            assert!(matches!(err, Error::Store { .. }), "{err}");
            assert!(err.to_string().contains("Mango cannot name"), "{err}");
        }
    }

    #[test]
    fn objects_are_refused() {
        #[derive(serde::Serialize)]
        struct Address {
            city: String,
        }
        let address = Field::<Order, Address>::top(&["address"]);
        let city = || Address {
            city: "Oslo".into(),
        };
        let addresses = Field::<Order, Vec<Address>>::top(&["addresses"]);
        for filter in [
            address.eq(city()),
            address.ne(city()),
            address.in_([city()]),
            addresses.contains(city()),
            addresses.lt(vec![city()]),
        ] {
            let err = find_bodies(&Query::new(filter)).unwrap_err();
            assert!(
                err.to_string()
                    .contains("cannot find `order` documents on CouchDB: `address"),
                "{err}"
            );
        }
        let query = Query::new(Filter::<Order>::all())
            .order_by(&address)
            .after(Cursor::new(&json!({"city": "Oslo"}), "order::1"));
        assert!(matches!(find_bodies(&query), Err(Error::Store { .. })));
    }

    #[test]
    fn invalid_values_and_cursors_are_codec_errors() {
        let map = Field::<Order, std::collections::HashMap<Vec<u8>, u8>>::top(&["m"]);
        // Even after a comparison Mango cannot make exactly, as `Repo::find` reports it.
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

    /// Mango's matching as CouchDB's `mango_selector` (`couch`) or pouchdb-server's selector core does it,
    /// on the selectors this module writes (with bytewise string collation, which is `matches`' and not
    /// CouchDB's): a condition on a field that is not there is false unless it is `{"$exists": false}`;
    /// CouchDB pushes a `$not` down to the fields (so it too is false on a missing field), pouchdb negates.
    fn mango_matches(selector: &Value, doc: &Value, couch: bool) -> bool {
        let members = selector.as_object().unwrap();
        members.iter().all(|(name, condition)| match name.as_str() {
            "$and" => condition
                .as_array()
                .unwrap()
                .iter()
                .all(|s| mango_matches(s, doc, couch)),
            "$or" => condition
                .as_array()
                .unwrap()
                .iter()
                .any(|s| mango_matches(s, doc, couch)),
            "$not" if couch => pushed_not(condition, doc),
            "$not" => !mango_matches(condition, doc, couch),
            field => match crate::find::at(doc, &[field]) {
                None => *condition == json!({"$exists": false}),
                Some(value) => mango_condition(condition, value),
            },
        })
    }

    /// CouchDB's `{"$not": selector}`, pushed down to the fields by De Morgan.
    fn pushed_not(selector: &Value, doc: &Value) -> bool {
        let members = selector.as_object().unwrap();
        members.iter().any(|(name, condition)| match name.as_str() {
            "$and" => condition
                .as_array()
                .unwrap()
                .iter()
                .any(|s| pushed_not(s, doc)),
            "$or" => condition
                .as_array()
                .unwrap()
                .iter()
                .all(|s| pushed_not(s, doc)),
            "$not" => mango_matches(condition, doc, true),
            field => {
                assert!(condition.get("$exists").is_none(), "{selector}");
                crate::find::at(doc, &[field])
                    .is_some_and(|value| !mango_condition(condition, value))
            }
        })
    }

    /// A field condition on a value that is there.
    fn mango_condition(condition: &Value, value: &Value) -> bool {
        use std::cmp::Ordering::{Equal, Greater, Less};
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
                    let args = arg.as_array().unwrap();
                    let is = |v: &Value| args.iter().any(|a| crate::find::collate(v, a) == Equal);
                    match value {
                        Value::Array(items) => items.iter().any(is),
                        value => is(value),
                    }
                }
                "$elemMatch" => value
                    .as_array()
                    .is_some_and(|items| items.iter().any(|item| mango_condition(arg, item))),
                "$regex" => {
                    let pattern = arg.as_str().unwrap().strip_prefix('^').unwrap();
                    let mut prefix = String::new();
                    let mut chars = pattern.chars();
                    while let Some(c) = chars.next() {
                        if c != '\\' {
                            prefix.push(c);
                            continue;
                        }
                        match chars.next() {
                            Some('x') => {
                                let hex: String = chars.by_ref().take(2).collect();
                                prefix.push(char::from(u8::from_str_radix(&hex, 16).unwrap()));
                            }
                            Some(c) => prefix.push(c),
                            None => panic!("a dangling escape in {pattern}"),
                        }
                    }
                    value.as_str().is_some_and(|text| text.starts_with(&prefix))
                }
                // `$not`, `$or` and `$and` inside a field condition are CouchDB's only: never written.
                other => panic!("unexpected operator {other}"),
            })
    }

    #[test]
    fn selectors_match_what_matches_matches() {
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
            filters.push(leaf.clone());
            filters.push(leaf.clone().not());
            let other = &leaves[(i * 7 + 3) % leaves.len()];
            filters.push(leaf.clone().and(other.clone().not()).not());
            filters.push(leaf.clone().not().or(other.clone()).not());
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
        for (i, value) in values.iter().enumerate() {
            let mut doc = Map::new();
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
            if let Some(value) = value {
                doc.insert("customerNo".to_owned(), value.clone());
            }
            docs.push(Value::Object(doc));
        }
        for filter in &filters {
            let selector = match translate::<Order>(filter.node(), false).unwrap() {
                Selector::All => json!({}),
                Selector::Nothing => json!({"$or": []}),
                Selector::Where(selector) => selector,
            };
            for doc in &docs {
                for couch in [true, false] {
                    assert_eq!(
                        mango_matches(&selector, doc, couch),
                        filter.matches(doc),
                        "{filter:?} as {selector} on {doc} (CouchDB: {couch})"
                    );
                }
            }
        }
    }
}
