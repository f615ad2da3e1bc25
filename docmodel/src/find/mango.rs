//! Translation of a [`Query`] to CouchDB Mango: the `POST /{db}/_find` requests of one page, and the
//! `POST /{db}/_index` requests that serve them.
//!
//! # Candidates, then the filter
//!
//! A `_find` request selects **candidates**: a superset of the documents the filter matches, in the page's
//! order. The repository matches each candidate against the whole filter
//! ([`Filter::matches`](crate::Filter::matches)) and asks for more, past the last candidate it read, until
//! the page is full; so a page holds exactly what [`Repo::find`](crate::Repo::find) holds on any other
//! store, in CouchDB's order.
//!
//! The selector carries the conditions the server can apply exactly and narrow by index: each condition on a
//! field at the top of the filter (alone, or in its top-level `and`) that is an equality, a range over a
//! value that is not a string, `in_` of values that are not arrays, `exists`, `missing`, `starts_with` or
//! `contains`, as that field's operators. Whatever else the filter says (`or`, `not`, ranges over strings,
//! which CouchDB compares by Unicode collation rather than bytes, values holding objects) is left to the
//! repository. The selector is one object of fields, each with its operators, and at most one top-level
//! `$or`: no `$and` and no `$not`, which pouchdb-server merges and evaluates differently from CouchDB.
//! Comparisons are guarded by the kind of their value (`{"$type": "number", "$lt": 5}`), as collation
//! orders every kind.
//!
//! # Pages
//!
//! A docmodel [`Cursor`](crate::Cursor) is a keyset position `(order value, key)`, and the requests of a
//! page select what lies after it, as the SQL++ statement does; Mango's own `bookmark` is not used (it names a
//! position in one request's index scan, which a docmodel cursor cannot carry, and pouchdb-server has none).
//!
//! Mango sorts only through an index, and an index holds only the documents that have all its fields, so
//! a sort by a field would drop the documents without it, which [`Repo::find`](crate::Repo::find) orders as
//! null. So an ordered page reads its candidates in two parts, run in order: the documents whose order field
//! is missing or null (they tie, so by key alone), and those with a value (by value, then key); ascending the
//! first part comes first, descending last.
//!
//! Ties are ordered by key without `_id` in any index: CouchDB sorts the rows of an index with equal keys
//! by document id, comparing the ids' bytes, and Mango compares `_id` in a selector by bytes too, so the key
//! condition after a cursor (`{"_id": {"$gt": key}}`) agrees with the order of the rows. That needs the
//! request to read one chosen index, whose last field is the order field (a longer index would order ties
//! by its next field): each names its index in `use_index`, with `allow_fallback: false` (CouchDB 3.4 and
//! later), so CouchDB answers 400 rather than read another one. The part by key reads the model's type
//! index ([`index_bodies`]); the part by value reads the index over the type and the order field, which a
//! model declares with `#[docmodel(index = "<field>")]`, or one over the type, fields the filter fixes with
//! `eq` and then the order field (`index = "<fixed>, <field>"`), which reads only the fixed values' rows. Strings are ordered as the server
//! collates them (ICU on CouchDB), and the cursor's conditions are evaluated by the same server, so pages
//! neither repeat nor skip.

use serde_json::{Map, Value, json};

use super::dialect::{
    adopting, index_name, invalid, key_range, key_shape_ending, model_index_name,
    push_regex_literal, untranslatable,
};
use super::filter::{Node, Op};
use super::path::envelope_path;
use super::query::{Direction, Query};
use crate::{DocModel, EnvelopeField, Error, Layout};

/// The store named in errors.
const STORE: &str = "CouchDB";

/// The `POST /{db}/_find` bodies that read the candidates of `query`'s page from its cursor on, to run in
/// order: the candidates of the first, then those of the next. Each asks for `limit` documents; the caller
/// sets it, and when a request comes back with that many, asks for the rest of its part again through
/// [`find_bodies`] with a cursor at the last one ([`position`](super::position)). No request when the filter can match
/// nothing.
///
/// A query without an order takes one request, by key; an ordered one up to two (see the module
/// documentation): the documents whose order field is missing or null, by key, then those with a value, by
/// value and key (the other way round descending), each after the cursor where it falls in that part.
pub(crate) fn find_bodies<M: DocModel>(query: &Query<M>) -> Result<Vec<Value>, Error> {
    // As `Repo::find` does: a value with no JSON form fails the query whatever else it holds.
    if let Some(reason) = query.filter.invalid() {
        return Err(invalid(reason));
    }
    let after = query.after_position()?;
    let type_path = envelope_path::<M>(EnvelopeField::Type);
    let type_field = field_name::<M>(&type_path)?;
    let copy_field = field_name::<M>(&envelope_path::<M>(EnvelopeField::CopyOf))?;
    let (direction, beyond, at_least) = match query.order.as_ref().map(|(_, direction)| *direction)
    {
        Some(Direction::Descending) => ("desc", "$lt", "$lte"),
        _ => ("asc", "$gt", "$gte"),
    };
    // The model's conditions, then a part's and its cursor's, then the filter's: a filter's operator that
    // one of them holds already is left to the repository.
    let body = |mut selector: Candidates,
                sort: Value,
                index: Option<&str>|
     -> Result<Option<Value>, Error> {
        owned::<M>(&type_field, &mut selector);
        selector.add("_id", "$regex", Value::from(key_shape::<M>()));
        // What another client leaves revision copies out by (their keys are not of the model's shape).
        selector.add(&copy_field, "$exists", Value::Bool(false));
        if !candidates::<M>(query.filter.node(), &mut selector)? {
            return Ok(None);
        }
        let mut body = json!({
            "selector": selector.into_selector(),
            "sort": sort,
            "limit": query.limit.saturating_add(1),
            "conflicts": true,
        });
        if let Some(index) = index {
            body["use_index"] = json!([format!("_design/{index}"), index]);
            body["allow_fallback"] = Value::Bool(false);
        }
        Ok(Some(body))
    };
    let type_index = index_name(M::TYPE, &[&type_path]);
    let fixed = match fixed_index::<M>(query.filter.node()) {
        Some(paths) => Some((
            model_index_name::<M>(paths),
            paths
                .iter()
                .map(|path| field_name::<M>(path))
                .collect::<Result<Vec<_>, Error>>()?,
        )),
        None => None,
    };
    let by_key = |mut selector: Candidates, key: Option<&str>| {
        if let Some(key) = key {
            selector.add("_id", beyond, Value::from(key));
        }
        if adopting::<M>() {
            // By key itself, through CouchDB's own index of ids over the model's key range.
            let (low, high) = key_range::<M>();
            if let Some(low) = low {
                selector.add("_id", "$gte", Value::from(low));
            }
            if let Some(high) = high {
                selector.add("_id", "$lt", Value::from(high));
            }
            return body(selector, json!([{ "_id": direction }]), None);
        }
        // Through the type index, sorted by the type field, which has one value; or through an index over
        // fields the filter fixes, sorted by them too (one value each), which reads only their rows.
        match &fixed {
            Some((index, fields)) => {
                let mut sort = vec![json!({ &type_field: direction })];
                sort.extend(fields.iter().map(|field| json!({ field: direction })));
                body(selector, Value::Array(sort), Some(index))
            }
            None => body(
                selector,
                json!([{ &type_field: direction }]),
                Some(&type_index),
            ),
        }
    };
    let Some((path, order)) = &query.order else {
        let key = after.as_ref().map(|(_, key)| key.as_str());
        return Ok(by_key(Candidates::default(), key)?.into_iter().collect());
    };
    let order_field = field_name::<M>(path)?;
    // The part without a value, missing or null, by key; after a cursor in it, past its key.
    let unvalued = |key: Option<&str>| {
        let selector = Candidates {
            fields: Map::new(),
            any: Some(json!([
                { &order_field: {"$exists": false} },
                { &order_field: {"$eq": null} },
            ])),
        };
        by_key(selector, key)
    };
    // The part with a value, by value and key; after a cursor in it, at or past its value (which is not
    // null, so above every null ascending), and past its key where it is at the value. Through an index
    // over fixed fields and the order field where the model has one, sorted by those fields too.
    let (valued_index, fixed) = match order_index::<M>(query.filter.node(), path) {
        Some(paths) => (
            model_index_name::<M>(paths),
            paths[..paths.len() - 1]
                .iter()
                .map(|fixed| field_name::<M>(fixed))
                .collect::<Result<Vec<_>, Error>>()?,
        ),
        None => (model_index_name::<M>(&[path]), Vec::new()),
    };
    // "Has a value" is `$gte: false`: nothing sorts between null and false. (Not `$gt: null`, which
    // pouchdb-server fails on where a document of the index lacks the field.)
    let valued = |position: Option<(&Value, &str)>| {
        let mut selector = Candidates::default();
        match position {
            None => {
                selector.add(&order_field, "$gte", Value::Bool(false));
            }
            Some((value, key)) => {
                if *order == Direction::Descending {
                    selector.add(&order_field, "$gte", Value::Bool(false));
                }
                selector.add(&order_field, at_least, value.clone());
                selector.any =
                    Some(json!([{ &order_field: { beyond: value } }, {"_id": { beyond: key }}]));
            }
        }
        let mut sort: Vec<Value> = Vec::with_capacity(fixed.len() + 2);
        if !adopting::<M>() {
            sort.push(json!({ &type_field: direction }));
        }
        sort.extend(fixed.iter().map(|field| json!({ field: direction })));
        sort.push(json!({ &order_field: direction }));
        body(selector, Value::Array(sort), Some(&valued_index))
    };
    let bodies = match (order, after) {
        (Direction::Ascending, None) => vec![unvalued(None)?, valued(None)?],
        (Direction::Descending, None) => vec![valued(None)?, unvalued(None)?],
        (Direction::Ascending, Some((Value::Null, key))) => {
            vec![unvalued(Some(&key))?, valued(None)?]
        }
        (Direction::Descending, Some((Value::Null, key))) => vec![unvalued(Some(&key))?],
        (direction, Some((value, key))) => {
            refuse_objects::<M>(path, &value)?;
            let valued = valued(Some((&value, &key)))?;
            match direction {
                Direction::Ascending => vec![valued],
                Direction::Descending => vec![valued, unvalued(None)?],
            }
        }
    };
    Ok(bodies.into_iter().flatten().collect())
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
    let adopting = adopting::<M>();
    let body = |paths: &[&[&str]]| -> Result<Value, Error> {
        let mut fields = if adopting {
            Vec::new()
        } else {
            vec![type_field.clone()]
        };
        for path in paths {
            fields.push(field_name::<M>(path)?);
        }
        let name = match paths {
            [] => index_name(M::TYPE, &[&type_path]),
            _ => model_index_name::<M>(paths),
        };
        let partial = if adopting {
            json!({"_id": {"$regex": key_shape::<M>()}})
        } else {
            json!({ &type_field: {"$eq": M::TYPE} })
        };
        Ok(json!({
            "index": {
                "fields": fields,
                "partial_filter_selector": partial,
            },
            "ddoc": name,
            "name": name,
            "type": "json",
        }))
    };
    let schema_path = envelope_path::<M>(EnvelopeField::Schema);
    // A model that adopts other spellings of its type reads by key through CouchDB's index of ids.
    let mut bodies = if adopting {
        vec![body(&[&schema_path])?]
    } else {
        vec![body(&[])?, body(&[&schema_path])?]
    };
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
/// [`find_bodies`] reads one over the type, fields `filter` fixes and then `path` ([`order_index`]), or the
/// one over the type and `path` alone, which the model declares with `#[docmodel(index = "<field>")]` (or
/// has for `_created` and `_modified`). Fails with a permanent [`Error::Store`] naming the field otherwise.
pub(crate) fn check_order<M: DocModel>(filter: &Node, path: &[&str]) -> Result<(), Error> {
    if order_index::<M>(filter, path).is_some()
        || M::INDEXES
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
         (`#[docmodel(index = \"<field>\")]`), or one on fields the filter fixes with `eq` and then this \
         one, and create it with `Repo::ensure_indexes`",
    ))
}

/// The longest of the model's indexes over fields `filter` fixes with `eq` (each at its top, or in its
/// top-level `and`, to a value that is not an array or object, which the selector then holds) and then
/// `order`: the valued part of an ordered page reads it, sorted by the type, the fixed fields and `order`,
/// so CouchDB reads only the rows of the fixed values, in the order's order (the fixed fields have one
/// value each), and orders ties by key (`order` is the index's last field). The children of one parent
/// (`Repo::children`) read this way. `None` when no such index is declared.
fn order_index<M: DocModel>(
    filter: &Node,
    order: &[&str],
) -> Option<&'static [&'static [&'static str]]> {
    M::INDEXES
        .iter()
        .map(|index| index.paths())
        .filter(|paths| match paths.split_last() {
            Some((last, leading)) => {
                !leading.is_empty()
                    && *last == order
                    && leading.iter().all(|path| fixes(filter, path))
            }
            None => false,
        })
        .max_by_key(|paths| paths.len())
}

/// The longest of the model's indexes whose every field `filter` fixes with `eq` ([`fixes`]): a page by key
/// reads it, sorted by the type and those fields (one value each), so CouchDB reads only the fixed values'
/// rows, ties (all of them) by key. The items of one parent without an order value read this way.
fn fixed_index<M: DocModel>(filter: &Node) -> Option<&'static [&'static [&'static str]]> {
    M::INDEXES
        .iter()
        .map(|index| index.paths())
        .filter(|paths| paths.iter().all(|path| fixes(filter, path)))
        .max_by_key(|paths| paths.len())
}

/// Whether `filter` fixes the field at `path` with `eq` (at its top, or in its top-level `and`) to a value
/// that is not an array or object, which the selector then holds as `$eq`.
fn fixes(filter: &Node, path: &[&str]) -> bool {
    let members = match filter {
        Node::And(members) => members.as_slice(),
        other => std::slice::from_ref(other),
    };
    members.iter().any(|member| {
        matches!(member, Node::Compare { path: at, op: Op::Eq, value }
            if **at == *path && !value.is_array() && !value.is_object())
    })
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
    // Strings only, bounded on both sides by what sorts before and after every string ("" and []): not
    // `$type`, which pouchdb-server fails on where a document of the index lacks the field.
    let range = if below {
        json!({"$gte": "", "$lt": current})
    } else {
        json!({"$gt": current, "$lt": []})
    };
    let mut owner = Candidates::default();
    owned::<M>(&type_field, &mut owner);
    let mut clauses = vec![
        json!({"_id": {"$regex": key_shape::<M>()}}),
        json!({ &schema_field: range }),
    ];
    if !owner.fields.is_empty() {
        clauses.insert(0, owner.into_selector());
    }
    if let Some((schema, key)) = after {
        clauses.push(json!({ &schema_field: {"$gte": schema} }));
        clauses.push(json!({"$or": [{ &schema_field: {"$gt": schema} }, {"_id": {"$gt": key}}]}));
    }
    let index = model_index_name::<M>(&[&schema_path]);
    let sort = if adopting::<M>() {
        json!([{ &schema_field: "asc" }])
    } else {
        json!([{ &type_field: "asc" }, { &schema_field: "asc" }])
    };
    Ok(json!({
        "selector": {"$and": clauses},
        "fields": owner_fields::<M>()?,
        "sort": sort,
        "use_index": [format!("_design/{index}"), index],
        "allow_fallback": false,
        "limit": limit,
    }))
}

/// What a count's request asks of each document: its `_id` and `_rev`, and the fields the repository tells
/// the model's documents and their schema by, under their names and legacy names (in the `root` layout, the
/// root attribute whole: its name is the type).
fn owner_fields<M: DocModel>() -> Result<Vec<String>, Error> {
    let mut fields = vec!["_id".to_owned(), "_rev".to_owned()];
    let spec = &M::ENVELOPE;
    if spec.layout() == Layout::Root {
        fields.push(M::TYPE.replace('.', "\\."));
        return Ok(fields);
    }
    for field in [EnvelopeField::Type, EnvelopeField::Schema] {
        fields.push(field_name::<M>(&envelope_path::<M>(field))?);
        if let Some(legacy) = spec.legacy_name(field) {
            let path = match spec.layout() {
                Layout::Meta => vec![spec.meta_name(), legacy],
                _ => vec![legacy],
            };
            fields.push(field_name::<M>(&path)?);
        }
    }
    Ok(fields)
}

/// The `POST /{db}/_find` body of up to `limit` of the model's documents without a schema field, by key,
/// after the key `after`: those a model with `unversioned` reads at that version. Each comes as its `_id`,
/// `_rev` and the fields of [`owner_fields`] only. Reads CouchDB's index of ids over the model's key range.
pub(crate) fn unversioned_body<M: DocModel>(
    after: Option<&str>,
    limit: usize,
) -> Result<Value, Error> {
    let type_field = field_name::<M>(&envelope_path::<M>(EnvelopeField::Type))?;
    let schema_field = field_name::<M>(&envelope_path::<M>(EnvelopeField::Schema))?;
    let mut selector = Candidates::default();
    owned::<M>(&type_field, &mut selector);
    selector.add("_id", "$regex", Value::from(key_shape::<M>()));
    if let Some(key) = after {
        selector.add("_id", "$gt", Value::from(key));
    }
    let (low, high) = key_range::<M>();
    if let Some(low) = low {
        selector.add("_id", "$gte", Value::from(low));
    }
    if let Some(high) = high {
        selector.add("_id", "$lt", Value::from(high));
    }
    selector.add(&schema_field, "$exists", Value::Bool(false));
    Ok(json!({
        "selector": selector.into_selector(),
        "fields": owner_fields::<M>()?,
        "sort": [{"_id": "asc"}],
        "limit": limit,
    }))
}

/// Adds to `selector` the condition that a document is `M`'s by its type: the type, one of its aliases, or
/// nothing for a model that adopts untyped documents, or reads its type under a legacy name too (the
/// repository tells those apart).
fn owned<M: DocModel>(type_field: &str, selector: &mut Candidates) {
    match M::TYPE_ALIASES {
        _ if M::ACCEPTS_UNTYPED
            || M::ENVELOPE.legacy_name(EnvelopeField::Type).is_some()
            || matches!(M::ENVELOPE.layout(), Layout::Root) => {}
        [] => {
            selector.add(type_field, "$eq", Value::from(M::TYPE));
        }
        aliases => {
            let spellings: Vec<&str> = [M::TYPE]
                .into_iter()
                .chain(aliases.iter().copied())
                .collect();
            selector.add(type_field, "$in", Value::from(spellings));
        }
    }
}

/// The model's key shape ([`key_shape_ending`], as SQL++'s `key_shape` has it), for Mango: CouchDB reads
/// a `$regex` as PCRE, pouchdb-server as a JavaScript regular expression, which has no `\z`; a lookahead
/// for no character at all ends the text in both (`$` would match before a final newline in PCRE).
fn key_shape<M: DocModel>() -> String {
    key_shape_ending::<M>(r"(?![\s\S])")
}

/// The conditions of a `_find` selector: each field's operators, and at most one top-level `$or`.
#[derive(Default)]
struct Candidates {
    fields: Map<String, Value>,
    any: Option<Value>,
}

impl Candidates {
    /// Adds `operator: value` to `field`'s conditions, unless it holds that operator already (with another
    /// value: the condition is left to the repository). Returns whether the condition is there.
    fn add(&mut self, field: &str, operator: &str, value: Value) -> bool {
        let Value::Object(operators) = self
            .fields
            .entry(field.to_owned())
            .or_insert_with(|| Value::Object(Map::new()))
        else {
            return false;
        };
        // "Has a value" (`$gte: false`, see `find_bodies`) gives way to a lower bound of a value, which implies
        // it.
        if matches!(operator, "$gt" | "$gte")
            && !value.is_null()
            && operators.get("$gte") == Some(&Value::Bool(false))
        {
            operators.remove("$gte");
        }
        match operators.get(operator) {
            Some(held) => *held == value,
            None => {
                operators.insert(operator.to_owned(), value);
                true
            }
        }
    }

    fn into_selector(self) -> Value {
        let mut selector = self.fields;
        if let Some(any) = self.any {
            selector.insert("$or".to_owned(), any);
        }
        Value::Object(selector)
    }
}

/// Adds to `selector` the conditions of `node` the server can apply exactly (see the module
/// documentation); `false` when `node` can match nothing.
fn candidates<M: DocModel>(node: &Node, selector: &mut Candidates) -> Result<bool, Error> {
    let kind = |value: &Value| match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    match node {
        Node::And(nodes) => {
            for node in nodes {
                if !candidates::<M>(node, selector)? {
                    return Ok(false);
                }
            }
        }
        Node::Not(inner) => match &**inner {
            Node::All => return Ok(false),
            Node::Exists(path) => {
                selector.add(&field_name::<M>(path)?, "$exists", Value::Bool(false));
            }
            _ => {}
        },
        Node::Exists(path) => {
            selector.add(&field_name::<M>(path)?, "$exists", Value::Bool(true));
        }
        Node::Compare { path, op, value } => {
            let field = field_name::<M>(path)?;
            match (op, value) {
                (Op::Lt | Op::Gt, Value::Null) => return Ok(false),
                (Op::Eq | Op::Le | Op::Ge, Value::Null) => {
                    selector.add(&field, "$eq", Value::Null);
                }
                _ if holds_object(value) => {}
                (Op::Eq, value) => {
                    selector.add(&field, "$eq", value.clone());
                }
                (Op::Ne, value) => {
                    selector.add(&field, "$ne", value.clone());
                }
                // CouchDB orders strings by Unicode collation, not by their bytes.
                (_, Value::String(_)) => {}
                (op, value) => {
                    let operator = match op {
                        Op::Lt => "$lt",
                        Op::Le => "$lte",
                        Op::Gt => "$gt",
                        _ => "$gte",
                    };
                    selector.add(&field, "$type", Value::from(kind(value)));
                    selector.add(&field, operator, value.clone());
                }
            }
        }
        Node::In { path, values } => {
            if values.is_empty() {
                return Ok(false);
            }
            // `$in` compares the items of an array field, so with array values it cannot say less; and it
            // does not match a stored `null` by a `null` among its values (`$eq: null` does).
            if !values
                .iter()
                .any(|value| value.is_array() || value.is_object() || value.is_null())
            {
                selector.add(&field_name::<M>(path)?, "$in", Value::from(values.clone()));
            }
        }
        Node::StartsWith(path, prefix) => {
            let mut pattern = String::from("^");
            push_regex_literal(&mut pattern, prefix);
            selector.add(&field_name::<M>(path)?, "$regex", Value::from(pattern));
        }
        Node::Contains(path, item) => {
            if !holds_object(item) {
                let condition = json!({"$eq": item});
                selector.add(&field_name::<M>(path)?, "$elemMatch", condition);
            }
        }
        Node::Invalid(reason) => return Err(invalid(reason)),
        Node::All | Node::Or(_) => {}
    }
    Ok(true)
}

/// Whether `value` is or holds an object, which CouchDB compares member by member in stored order.
fn holds_object(value: &Value) -> bool {
    match value {
        Value::Object(_) => true,
        Value::Array(items) => items.iter().any(holds_object),
        _ => false,
    }
}

/// Fails for a cursor's order value holding an object, which CouchDB compares member by member in stored
/// order, so pages after it could repeat or skip documents.
fn refuse_objects<M: DocModel>(path: &[&str], value: &Value) -> Result<(), Error> {
    if holds_object(value) {
        return Err(untranslatable::<M>(
            STORE,
            path,
            "CouchDB compares objects member by member in the order they are stored in, so pages ordered \
             by a field holding one cannot follow each other exactly",
        ));
    }
    Ok(())
}

/// The field at `path` as Mango names it: names joined by `.`, a `.` inside a name escaped as `\.`. Mango
/// drops every other backslash, cannot name an empty member, and reads a name starting with `$` as an
/// operator: such a path fails.
fn field_name<M: DocModel>(path: &[&str]) -> Result<String, Error> {
    let mut field = String::new();
    if let Some(attribute) = crate::envelope::body_attribute(&M::ENVELOPE, M::TYPE) {
        // The paths are the root attribute's object's: a stored document holds it under the type.
        field.push_str(&attribute.replace('.', "\\."));
        field.push('.');
    }
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

mod dialect;

/// CouchDB's Mango, as the repository writes it ([`Dialect`](super::Dialect)).
pub(crate) struct Mango;

#[cfg(test)]
mod tests;
