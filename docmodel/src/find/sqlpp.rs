//! Translation of a [`Query`] to SQL++ (Couchbase): statements in which every value a query gives travels
//! as a named parameter, and the indexes that serve them.
//!
//! # Same results as `Filter::matches`
//!
//! SQL++ has three truth values where `matches` has two: a comparison with a MISSING or NULL operand is
//! MISSING or NULL, and `NOT` of those is MISSING or NULL again, never TRUE. So every translated condition
//! is TRUE exactly where `matches` is true, and FALSE, NULL or MISSING elsewhere (all three leave the document
//! out of a `WHERE`); `AND` and `OR` keep that, and a negation first turns NULL and MISSING into FALSE
//! (`NOT IFMISSINGORNULL(e, FALSE)`), unless `e` can only be TRUE or FALSE.
//!
//! Comparisons: SQL++ orders values of different kinds by collation (null, booleans, numbers, strings,
//! arrays, objects, as `matches` does), so a range is guarded by the kind of its value (`IS_NUMBER(..)`);
//! strings compare by their UTF-8 bytes, and an integer and a float by value. `starts_with` is a range on the
//! string, `[prefix, successor)`, which is exact in byte order and can use an index.
//!
//! What cannot be translated exactly fails with a permanent [`Error::Store`] naming the field, before
//! anything is sent:
//! - a value holding `null` inside an array or object, in `eq`, `ne`, `in_` or `contains`: SQL++ compares
//!   such arrays as NULL ("unknown"), so it cannot tell equal from unequal;
//! - a range (`lt`..`ge`) over an array or object value: SQL++ compares an array holding `null` as NULL, and
//!   orders objects by their size first;
//! - a cursor whose order value is an array or object, for the same reasons.
//!
//! One difference is left, for numbers beyond a float's precision: SQL++ reads an integer above `i64::MAX`
//! as a float, and may compare an integer with a float as two floats, so above 2^53 an integer may equal a
//! float that `matches` finds one below or above it.
//!
//! # The model's documents
//!
//! Like [`Repo::find`](crate::Repo::find), a statement looks at the documents holding the model's `_type`
//! whose key has the shape of the model's key template ([`key_shape`]): revision copies of the model's
//! documents hold its `_type` too, under longer keys. The type and the key shape, both the model's, are
//! written into the statement as string literals, not parameters: the indexes ([`create_indexes`]) are
//! partial, `WHERE <type path> = "<type>" AND <copy marker path> IS MISSING`, and the planner uses a partial
//! index only for a query whose predicate it can match at prepare time; and a constant regular expression is
//! compiled once.
//!
//! A model that adopts other programs' documents ([`adopting`]: `aliases`, `untyped`, a legacy name for its
//! type, the `root` layout) is told its documents by a wider condition ([`push_model_predicate`]), never
//! narrower than what the repository reads as the model's; and a filter on a field the statement cannot read
//! as the repository does ([`reads_exactly`]: an envelope field under a legacy name) is left to the
//! repository's match of each row. In both cases a statement may select more than the repository keeps,
//! never less.

use serde_json::{Map, Value};

use super::dialect::{
    adopting, invalid, key_range, key_shape_ending, model_index_name, untranslatable,
};
use super::filter::{Filter, Node, Op};
use super::path::envelope_path;
use super::query::{Direction, Query};
use crate::{DocModel, EnvelopeField, Error, Layout};

/// The alias of the keyspace in every statement: paths read `d.<field>`.
const ALIAS: &str = "d";

/// A Couchbase keyspace: bucket, scope and collection. Displays as `` `bucket`.`scope`.`collection` ``, each
/// name escaped.
#[cfg(any(test, feature = "couchbase"))]
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Keyspace {
    /// The bucket.
    pub(crate) bucket: String,
    /// The scope (`_default` when the bucket has none).
    pub(crate) scope: String,
    /// The collection (`_default` when the bucket has none).
    pub(crate) collection: String,
}

#[cfg(any(test, feature = "couchbase"))]
impl std::fmt::Display for Keyspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut text = String::new();
        for (i, name) in [&self.bucket, &self.scope, &self.collection]
            .into_iter()
            .enumerate()
        {
            if i > 0 {
                text.push('.');
            }
            push_identifier(&mut text, name);
        }
        f.write_str(&text)
    }
}

/// A SQL++ statement and its named parameters: `$name` in the text is `params["name"]`.
///
/// The text is in pieces, between which the keyspace goes: the statement is written before the store that
/// runs it is known, and a keyspace cannot be a parameter. [`Statement::request`] is what the repository
/// hands [`Store::query`](crate::store::Store::query) ([`QueryLanguage::SqlPlusPlus`](crate::store::QueryLanguage::SqlPlusPlus)).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Statement {
    /// The statement, holding no value a user gave, in pieces joined by the keyspace.
    pub(crate) pieces: Vec<String>,
    /// The values of its parameters, named without the `$`.
    pub(crate) params: Map<String, Value>,
    /// The index that serves a statement reading the model's documents ([`type_index_name`]), which the
    /// store names when the query service finds none.
    pub(crate) index: Option<String>,
}

impl Statement {
    /// A statement of `head`, the keyspace, then `tail`.
    fn around_keyspace(head: impl Into<String>, tail: impl Into<String>, params: Params) -> Self {
        Statement {
            pieces: vec![head.into(), tail.into()],
            params: params.values,
            index: None,
        }
    }

    /// This statement, naming the index that serves it.
    fn served_by(self, index: String) -> Self {
        Statement {
            index: Some(index),
            ..self
        }
    }

    /// The statement's text on `keyspace`, as the Couchbase store joins a request's pieces; logged for
    /// `.ci/run` to check against Couchbase's grammar ([`tests::log_statement`]).
    #[cfg(test)]
    pub(crate) fn text_in(&self, keyspace: &Keyspace) -> String {
        let text = self.pieces.join(&keyspace.to_string());
        tests::log_statement(&text);
        text
    }

    /// The request [`Store::query`](crate::store::Store::query) and
    /// [`Store::create_index`](crate::store::Store::create_index) take in SQL++:
    /// `{"statement": [pieces], "args": {name: value}}`, and `"index": name` for a statement reading
    /// documents.
    pub(crate) fn request(&self) -> Result<Vec<u8>, Error> {
        let mut request = serde_json::json!({
            "statement": self.pieces,
            "args": self.params,
        });
        if let Some(index) = &self.index {
            request["index"] = Value::String(index.clone());
        }
        serde_json::to_vec(&request).map_err(Error::codec)
    }
}

/// One page of `query`: `SELECT META(d).id AS id, META(d).cas AS cas, d AS doc FROM <keyspace> AS d WHERE ...`, ordered by the
/// query's order then by key, at most `query.limit + 1` rows (a row past the limit says there is a next page).
///
/// MISSING and NULL: SQL++ sorts MISSING before NULL, where [`Repo::find`](crate::Repo::find) reads a missing
/// order value as null. The statement orders by `IFMISSING(<path>, NULL)`, so a document without the field
/// sorts with those holding null, by key, as `Repo::find` has it, and the keyset condition after a cursor
/// compares the same expression. The price: the sort does not come from an index.
pub(crate) fn select<M: DocModel>(query: &Query<M>) -> Result<Statement, Error> {
    let mut params = Params::default();
    let mut text = format!(" AS {ALIAS} WHERE ");
    text.push_str(&model_condition::<M>(&query.filter, &mut params)?);
    let direction = query
        .order
        .as_ref()
        .map_or(Direction::Ascending, |(_, direction)| *direction);
    let order = query
        .order
        .as_ref()
        .map(|(path, _)| (&path[..], format!("IFMISSING({}, NULL)", field::<M>(path))));
    if let Some(cursor) = &query.after {
        let (value, key) = cursor.position().map_err(Error::codec)?;
        let order = order.as_ref().map(|(path, order)| (*path, order.as_str()));
        text.push_str(" AND ");
        text.push_str(&after::<M>(order, direction, value, key, &mut params)?);
    }
    let descending = match direction {
        Direction::Ascending => "",
        Direction::Descending => " DESC",
    };
    text.push_str(" ORDER BY ");
    if let Some((_, order)) = &order {
        text.push_str(&format!("{order}{descending}, "));
    }
    text.push_str(&format!("META({ALIAS}).id{descending} LIMIT $limit"));
    let limit = u64::try_from(query.limit.saturating_add(1)).unwrap_or(u64::MAX);
    params.named("limit", Value::from(limit));
    Ok(Statement::around_keyspace(ROW, text, params).served_by(type_index_name::<M>()))
}

/// What a statement reading documents selects: the key, the CAS and the document, as
/// [`Store::query`](crate::store::Store::query) hands them on.
const ROW: &str = "SELECT META(d).id AS id, META(d).cas AS cas, d AS doc FROM ";

/// One page of the model's documents not at its current schema, by key, after `after_key`: those holding
/// another schema value, or none (the caller parses the versions, and counts those below the current one
/// as [`Page::older_schema`](crate::Page::older_schema)).
pub(crate) fn other_schemas<M: DocModel>(after_key: Option<&str>, limit: usize) -> Statement {
    let mut params = Params::default();
    let schema = field::<M>(&envelope_path::<M>(EnvelopeField::Schema));
    let current = params.named("schema", Value::String(M::SCHEMA_TEXT.to_owned()));
    let mut text = format!(
        " AS {ALIAS} WHERE {} AND ({schema} IS NOT VALUED OR {schema} != {current})",
        type_condition::<M>()
    );
    if let Some(key) = after_key {
        let key = params.named("after_key", Value::String(key.to_owned()));
        text.push_str(&format!(" AND META({ALIAS}).id > {key}"));
    }
    text.push_str(&format!(" ORDER BY META({ALIAS}).id LIMIT $limit"));
    params.named(
        "limit",
        Value::from(u64::try_from(limit).unwrap_or(u64::MAX)),
    );
    Statement::around_keyspace(ROW, text, params).served_by(type_index_name::<M>())
}

/// The statements that create the model's indexes: one over its type field, then one per
/// [`DocModel::INDEXES`] entry, each partial on the model's documents, revision copies left out
/// ([`index_predicate`]), and named by [`model_index_name`]. `IF NOT EXISTS` makes them safe to run again; an
/// index whose definition changed gets a new name, since the name lists its paths.
///
/// A model [`adopting`] other programs' documents tells its documents by a condition on more than one
/// value or field, which an index led by the type field would not serve (an index leaves out the documents
/// whose leading key is MISSING, the untyped ones): its first index is over `META().id`, which every
/// document has and its statements bound by the model's key range ([`type_condition`]). Its indexes are
/// named with `_adopting` at the end, as on CouchDB, so that an index of the model before it adopted
/// documents (partial on its type alone) is never taken for one of them.
pub(crate) fn create_indexes<M: DocModel>() -> Vec<Statement> {
    let predicate = index_predicate::<M>();
    let type_path = envelope_path::<M>(EnvelopeField::Type);
    let type_index: &[&[&str]] = &[&type_path];
    let adopting = adopting::<M>();
    std::iter::once(type_index)
        .chain(M::INDEXES.iter().map(|index| index.paths()))
        .enumerate()
        .map(|(i, paths)| {
            let mut head = String::from("CREATE INDEX IF NOT EXISTS ");
            push_identifier(&mut head, &model_index_name::<M>(paths));
            head.push_str(" ON ");
            let mut tail = String::from("(");
            if i == 0 && adopting {
                tail.push_str("META().id");
            } else {
                for (i, path) in paths.iter().enumerate() {
                    if i > 0 {
                        tail.push_str(", ");
                    }
                    push_keyspace_path(&mut tail, &stored::<M>(path));
                }
            }
            tail.push_str(&format!(") WHERE {predicate}"));
            Statement::around_keyspace(head, tail, Params::default())
        })
        .collect()
}

/// The name of the model's first index ([`create_indexes`]), which serves every statement reading its
/// documents: `docmodel_order__type`.
fn type_index_name<M: DocModel>() -> String {
    model_index_name::<M>(&[&envelope_path::<M>(EnvelopeField::Type)])
}

/// A regular expression matching exactly the keys of `M`'s key template (its literal segments, and one or
/// more characters that are not a delimiter character for each part), anchored at both ends. It leaves out
/// revision copies (`<key><d>v<d><n>`), which hold the model's `_type` too. Written for both RE2 (SQL++) and
/// PCRE: literal characters escaped, `\z` for the end.
pub(super) fn key_shape<M: DocModel>() -> String {
    key_shape_ending::<M>("\\z")
}

/// Whether `value` is an array or object holding `null` at any depth.
fn holds_null(value: &Value) -> bool {
    match value {
        Value::Array(items) => items.iter().any(|item| item.is_null() || holds_null(item)),
        Value::Object(members) => members
            .values()
            .any(|member| member.is_null() || holds_null(member)),
        _ => false,
    }
}

/// The named parameters of a statement being written.
#[derive(Default)]
struct Params {
    /// The parameters so far, by name.
    values: Map<String, Value>,
    /// How many of them [`Params::add`] named.
    numbered: usize,
}

impl Params {
    /// A new parameter holding `value`, as it is written in the statement: `$p1`, `$p2`, ...
    fn add(&mut self, value: Value) -> String {
        self.numbered += 1;
        let name = format!("p{}", self.numbered);
        self.values.insert(name.clone(), value);
        format!("${name}")
    }

    /// The parameter `name` holding `value`, as it is written in the statement: `$name`.
    fn named(&mut self, name: &str, value: Value) -> String {
        self.values.insert(name.to_owned(), value);
        format!("${name}")
    }
}

/// A translated condition: its text, and whether it is total (only ever TRUE or FALSE, never NULL or
/// MISSING), which a negation needs to know.
struct Condition {
    /// The condition, in SQL++.
    text: String,
    /// Whether it is only ever TRUE or FALSE.
    total: bool,
}

impl Condition {
    /// A condition that is never NULL or MISSING.
    fn total(text: impl Into<String>) -> Self {
        Condition {
            text: text.into(),
            total: true,
        }
    }

    /// A condition that may be NULL or MISSING where `matches` is false.
    fn partial(text: impl Into<String>) -> Self {
        Condition {
            text: text.into(),
            total: false,
        }
    }
}

/// `WHERE`'s condition for the model's documents `filter` matches: its type, its key's shape, the filter.
///
/// A filter on a field the statement cannot read as the repository does ([`reads_exactly`]) is left out:
/// the statement then selects all the model's documents, and the repository's own match of each
/// ([`Repo::find`](crate::Repo::find) matches every row it reads) decides, as it does for Mango's candidates.
fn model_condition<M: DocModel>(filter: &Filter<M>, params: &mut Params) -> Result<String, Error> {
    // As `Repo::find` does: a value with no JSON form fails the query whatever else it holds.
    if let Some(reason) = filter.invalid() {
        return Err(invalid(reason));
    }
    let mut text = type_condition::<M>();
    if !matches!(filter.node(), Node::All) && reads_exactly::<M>(filter.node()) {
        let condition = translate::<M>(filter.node(), params)?;
        text.push_str(&format!(" AND ({})", condition.text));
    }
    Ok(text)
}

/// Whether every field `node` names reads in a stored document as the repository reads it (the document
/// under the model's names, [`as_model_names`](super::eval::as_model_names)). Two do not: an envelope field
/// with a legacy name (the repository reads it under either name), and, in the `root` layout, the type
/// (the root attribute's name, not a field).
fn reads_exactly<M: DocModel>(node: &Node) -> bool {
    let spec = &M::ENVELOPE;
    let unreadable = |path: &[&str]| {
        EnvelopeField::ALL.iter().any(|&field| {
            let renamed = spec.legacy_name(field).is_some() && spec.keeps(field);
            let rooted = field == EnvelopeField::Type && spec.layout() == Layout::Root;
            (renamed || rooted) && path.starts_with(&envelope_path::<M>(field))
        })
    };
    match node {
        Node::All | Node::Invalid(_) => true,
        Node::Compare { path, .. } | Node::In { path, .. } => !unreadable(path),
        Node::Exists(path) | Node::StartsWith(path, _) | Node::Contains(path, _) => {
            !unreadable(path)
        }
        Node::And(nodes) | Node::Or(nodes) => nodes.iter().all(reads_exactly::<M>),
        Node::Not(node) => reads_exactly::<M>(node),
    }
}

/// The model's documents: its type ([`push_model_predicate`]), and `REGEXP_CONTAINS(META(d).id, "<key
/// shape>")`, which also leaves out the copies written before copies carried the marker, and is a literal
/// so that it is compiled once. The type and the marker are written as the indexes' predicate has them
/// ([`index_predicate`]), so the planner can read a partial index. A model [`adopting`] documents starts
/// with its key range, `META(d).id >= "<prefix>" AND META(d).id < "<past it>"` (or `META(d).id IS NOT
/// MISSING` for a template starting with a part), the span of its first index ([`create_indexes`]).
fn type_condition<M: DocModel>() -> String {
    let mut text = String::new();
    if adopting::<M>() {
        match key_range::<M>() {
            (Some(low), high) => {
                text.push_str(&format!("META({ALIAS}).id >= "));
                push_string_literal(&mut text, &low);
                if let Some(high) = high {
                    text.push_str(&format!(" AND META({ALIAS}).id < "));
                    push_string_literal(&mut text, &high);
                }
            }
            (None, _) => text.push_str(&format!("META({ALIAS}).id IS NOT MISSING")),
        }
        text.push_str(" AND ");
    }
    push_model_predicate::<M>(&mut text, Some(ALIAS));
    text.push_str(&format!(" AND REGEXP_CONTAINS(META({ALIAS}).id, "));
    push_string_literal(&mut text, &key_shape::<M>());
    text.push(')');
    text
}

/// The `WHERE` of every index of the model: its documents, and not a revision copy (copies hold the model's
/// type too, and the marker `_copyOf`).
fn index_predicate<M: DocModel>() -> String {
    let mut text = String::new();
    push_model_predicate::<M>(&mut text, None);
    text
}

/// Appends the condition that a document is the model's and not a revision copy, each path under `alias`
/// if given (a query's `d.`), bare otherwise (an index's):
/// - `<type path> = "<type>" AND <copy marker path> IS MISSING`;
/// - with `aliases`, `<type path> IN ["<type>", "<alias>", ...]`;
/// - with a legacy name for the type, that condition on either name, `(<type path> = "<type>" OR <legacy
///   path> = "<type>")`;
/// - with `untyped`, or documents without the type under any of its names: `... OR (<type path> IS MISSING
///   AND <legacy path> IS MISSING)`;
/// - in the `root` layout, the root attribute holding an object, `` IS_OBJECT(`<type>`) ``, and the marker
///   under it.
///
/// A document this selects is the model's, or (with a legacy name, the type under both names) one the
/// repository's own match turns down: never fewer documents than the model reads.
fn push_model_predicate<M: DocModel>(out: &mut String, alias: Option<&str>) {
    let spec = &M::ENVELOPE;
    let push_path = |out: &mut String, path: &[&str]| match alias {
        Some(_) => out.push_str(&field::<M>(path)),
        None => push_keyspace_path(out, &stored::<M>(path)),
    };
    if spec.layout() == Layout::Root {
        out.push_str("IS_OBJECT(");
        push_path(out, &[]);
        out.push(')');
    } else {
        let mut names = vec![envelope_path::<M>(EnvelopeField::Type)];
        if let Some(legacy) = spec.legacy_name(EnvelopeField::Type) {
            names.push(match spec.layout() {
                Layout::Meta => vec![spec.meta_name(), legacy],
                Layout::Flat | Layout::Plain | Layout::Root => vec![legacy],
            });
        }
        let mut terms = Vec::new();
        for path in &names {
            let mut term = String::new();
            push_path(&mut term, path);
            match M::TYPE_ALIASES {
                [] => term.push_str(" = "),
                _ => term.push_str(" IN ["),
            }
            for (i, spelling) in std::iter::once(M::TYPE)
                .chain(M::TYPE_ALIASES.iter().copied())
                .enumerate()
            {
                if i > 0 {
                    term.push_str(", ");
                }
                push_string_literal(&mut term, spelling);
            }
            if !M::TYPE_ALIASES.is_empty() {
                term.push(']');
            }
            terms.push(term);
        }
        if M::ACCEPTS_UNTYPED {
            let mut missing = Vec::new();
            for path in &names {
                let mut term = String::new();
                push_path(&mut term, path);
                term.push_str(" IS MISSING");
                missing.push(term);
            }
            terms.push(match missing.len() {
                1 => missing.remove(0),
                _ => format!("({})", missing.join(" AND ")),
            });
        }
        match terms.len() {
            1 => out.push_str(&terms[0]),
            _ => out.push_str(&format!("({})", terms.join(" OR "))),
        }
    }
    out.push_str(" AND ");
    push_path(out, &envelope_path::<M>(EnvelopeField::CopyOf));
    out.push_str(" IS MISSING");
}

/// The rows after the cursor's position `(value, key)`, in the order `ORDER BY <order>, META(d).id` takes:
/// `order` is the order's path and expression, `None` when the query orders by key alone. Null is below
/// every other value, so ascending, the rows after a null are the nulls with a greater key and every
/// non-null; descending, the nulls come last.
fn after<M: DocModel>(
    order: Option<(&[&str], &str)>,
    direction: Direction,
    value: Value,
    key: String,
    params: &mut Params,
) -> Result<String, Error> {
    let beyond = match direction {
        Direction::Ascending => ">",
        Direction::Descending => "<",
    };
    let key = params.named("after_key", Value::String(key));
    let id = format!("META({ALIAS}).id");
    let Some((path, order)) = order else {
        return Ok(format!("{id} {beyond} {key}"));
    };
    if value.is_array() || value.is_object() {
        return Err(untranslatable::<M>(
            "Couchbase",
            path,
            "paging by an array or object value cannot be translated exactly (SQL++ compares an array \
             holding null as unknown); order by a field holding a scalar",
        ));
    }
    Ok(match (value.is_null(), direction) {
        (true, Direction::Ascending) => {
            format!("(({order} IS NULL AND {id} > {key}) OR {order} IS NOT NULL)")
        }
        (true, Direction::Descending) => format!("({order} IS NULL AND {id} < {key})"),
        (false, direction) => {
            let value = params.named("after_value", value);
            let nulls = match direction {
                Direction::Ascending => String::new(),
                Direction::Descending => format!(" OR {order} IS NULL"),
            };
            format!(
                "({order} {beyond} {value} OR ({order} = {value} AND {id} {beyond} {key}){nulls})"
            )
        }
    })
}

/// `node` as a SQL++ condition on the document `d`.
fn translate<M: DocModel>(node: &Node, params: &mut Params) -> Result<Condition, Error> {
    Ok(match node {
        Node::All => Condition::total("TRUE"),
        Node::Invalid(reason) => return Err(invalid(reason)),
        Node::Exists(path) => Condition::total(format!("{} IS NOT MISSING", field::<M>(path))),
        Node::Compare { path, op, value } => compare::<M>(path, *op, value, params)?,
        Node::In { path, values } => within::<M>(path, values, params)?,
        Node::StartsWith(path, prefix) => starts_with::<M>(path, prefix, params),
        Node::Contains(path, item) => {
            let field = field::<M>(path);
            if item.is_null() {
                Condition::partial(format!("ANY v IN {field} SATISFIES v IS NULL END"))
            } else {
                refuse_null_inside::<M>(path, item)?;
                let item = params.add(item.clone());
                Condition::partial(format!("ANY v IN {field} SATISFIES v = {item} END"))
            }
        }
        Node::And(nodes) => combine::<M>(nodes, "AND", "TRUE", params)?,
        Node::Or(nodes) => combine::<M>(nodes, "OR", "FALSE", params)?,
        Node::Not(node) => {
            let inner = translate::<M>(node, params)?;
            if inner.total {
                Condition::total(format!("NOT ({})", inner.text))
            } else {
                Condition::total(format!("NOT IFMISSINGORNULL({}, FALSE)", inner.text))
            }
        }
    })
}

/// `nodes` joined by `operator` (`AND`, `OR`), or `empty` when there are none.
fn combine<M: DocModel>(
    nodes: &[Node],
    operator: &str,
    empty: &str,
    params: &mut Params,
) -> Result<Condition, Error> {
    let parts = nodes
        .iter()
        .map(|node| translate::<M>(node, params))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(match parts.len() {
        0 => Condition::total(empty),
        1 => parts.into_iter().next().unwrap_or(Condition::total(empty)),
        _ => {
            let total = parts.iter().all(|part| part.total);
            let texts: Vec<String> = parts.into_iter().map(|part| part.text).collect();
            Condition {
                text: format!("({})", texts.join(&format!(" {operator} "))),
                total,
            }
        }
    })
}

/// A comparison of the field at `path` with `value`.
fn compare<M: DocModel>(
    path: &[&str],
    op: Op,
    value: &Value,
    params: &mut Params,
) -> Result<Condition, Error> {
    let field = field::<M>(path);
    let symbol = match op {
        Op::Eq => {
            if value.is_null() {
                return Ok(Condition::partial(format!("{field} IS NULL")));
            }
            refuse_null_inside::<M>(path, value)?;
            let value = params.add(value.clone());
            return Ok(Condition::partial(format!("{field} = {value}")));
        }
        Op::Ne => {
            if value.is_null() {
                return Ok(Condition::partial(format!("{field} IS NOT NULL")));
            }
            // There and unequal: a null field too, and (the value holding no null) an array or object that
            // SQL++ compares as NULL because the stored one holds a null.
            refuse_null_inside::<M>(path, value)?;
            let value = params.add(value.clone());
            return Ok(Condition::partial(format!(
                "({field} IS NOT MISSING AND NOT IFMISSINGORNULL({field} = {value}, FALSE))"
            )));
        }
        Op::Lt => "<",
        Op::Le => "<=",
        Op::Gt => ">",
        Op::Ge => ">=",
    };
    let kind = match value {
        // Only null is of null's kind, and it is neither below nor above itself.
        Value::Null if matches!(op, Op::Lt | Op::Gt) => return Ok(Condition::total("FALSE")),
        Value::Null => return Ok(Condition::partial(format!("{field} IS NULL"))),
        Value::Bool(_) => "IS_BOOLEAN",
        Value::Number(_) => "IS_NUMBER",
        Value::String(_) => "IS_STRING",
        Value::Array(_) | Value::Object(_) => {
            return Err(untranslatable::<M>(
                "Couchbase",
                path,
                "a range over an array or object cannot be translated exactly (SQL++ compares an array \
                 holding null as unknown and orders objects by size first)",
            ));
        }
    };
    let value = params.add(value.clone());
    Ok(Condition::partial(format!(
        "({kind}({field}) AND {field} {symbol} {value})"
    )))
}

/// The field at `path` equals one of `values`: `IN` for the non-null ones, `IS NULL` for a null one.
fn within<M: DocModel>(
    path: &[&str],
    values: &[Value],
    params: &mut Params,
) -> Result<Condition, Error> {
    let field = field::<M>(path);
    let mut present = Vec::with_capacity(values.len());
    let mut null = false;
    for value in values {
        if value.is_null() {
            null = true;
        } else {
            refuse_null_inside::<M>(path, value)?;
            present.push(value.clone());
        }
    }
    Ok(match (null, present.is_empty()) {
        (false, true) => Condition::total("FALSE"),
        (true, true) => Condition::partial(format!("{field} IS NULL")),
        (false, false) => {
            let values = params.add(Value::Array(present));
            Condition::partial(format!("{field} IN {values}"))
        }
        (true, false) => {
            let values = params.add(Value::Array(present));
            Condition::partial(format!("({field} IS NULL OR {field} IN {values})"))
        }
    })
}

/// The field at `path` is a string starting with `prefix`: the strings from `prefix` up to the first string
/// above every one starting with it ([`successor`]), which in SQL++'s byte order are exactly those.
fn starts_with<M: DocModel>(path: &[&str], prefix: &str, params: &mut Params) -> Condition {
    let field = field::<M>(path);
    if prefix.is_empty() {
        return Condition::partial(format!("IS_STRING({field})"));
    }
    let low = params.add(Value::String(prefix.to_owned()));
    let mut text = format!("(IS_STRING({field}) AND {field} >= {low}");
    if let Some(high) = successor(prefix) {
        let high = params.add(Value::String(high));
        text.push_str(&format!(" AND {field} < {high}"));
    }
    text.push(')');
    Condition::partial(text)
}

/// The least string greater than every string starting with `prefix`: `prefix` without its trailing
/// `char::MAX`s, its last character then raised by one (past the surrogates). `None` when `prefix` is all
/// `char::MAX`s, as no string is above all of those. UTF-8 byte order is code point order, so this holds for
/// SQL++'s comparison of strings.
fn successor(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let next = match last {
            '\u{D7FF}' => Some('\u{E000}'),
            _ => char::from_u32(u32::from(last) + 1),
        };
        if let Some(next) = next {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

/// Fails for an array or object `value` holding a null, which SQL++ cannot compare for equality.
fn refuse_null_inside<M: DocModel>(path: &[&str], value: &Value) -> Result<(), Error> {
    if holds_null(value) {
        return Err(untranslatable::<M>(
            "Couchbase",
            path,
            "SQL++ compares an array or object holding null as unknown, so a comparison with one cannot be \
             translated exactly",
        ));
    }
    Ok(())
}

/// The field at `path` of a model's document, as the statement reads it: `` d.`a`.`b` ``; in the `root`
/// layout, under the root attribute, `` d.`<type>`.`a`.`b` ``.
fn field<M: DocModel>(path: &[&str]) -> String {
    document_path(&stored::<M>(path))
}

/// `path` in a stored document of the model: in the `root` layout, under the root attribute (the type).
fn stored<'p, M: DocModel>(path: &[&'p str]) -> Vec<&'p str> {
    let mut stored = Vec::with_capacity(path.len() + 1);
    if M::ENVELOPE.layout() == Layout::Root {
        stored.push(M::TYPE);
    }
    stored.extend_from_slice(path);
    stored
}

/// The field at `path` of the document: `` d.`a`.`b` ``.
fn document_path(path: &[&str]) -> String {
    let mut text = String::from(ALIAS);
    for name in path {
        text.push('.');
        push_identifier(&mut text, name);
    }
    text
}

/// The field at `path` as an index key or index predicate names it: `` `a`.`b` ``.
fn push_keyspace_path(out: &mut String, path: &[&str]) {
    for (i, name) in path.iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        push_identifier(out, name);
    }
}

/// Appends `name` as an escaped identifier: in backticks, a backtick doubled and a backslash (SQL++'s
/// escape character, in identifiers too) escaped.
fn push_identifier(out: &mut String, name: &str) {
    out.push('`');
    for c in name.chars() {
        match c {
            '`' => out.push_str("``"),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('`');
}

/// Appends `text` as a double-quoted SQL++ string literal, with JSON's escapes (which SQL++ reads).
fn push_string_literal(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => {
                out.push_str(&format!("\\u{:04x}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

mod dialect;
pub(crate) mod keys;

/// Couchbase's SQL++, as the repository writes it ([`Dialect`](super::Dialect)).
pub(crate) struct SqlPlusPlus;

#[cfg(test)]
mod tests;
