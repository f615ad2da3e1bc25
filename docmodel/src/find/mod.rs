//! Finding documents: typed paths to stored fields, filters over them, and queries with keyset pages.
//!
//! The derive gives every model its field paths, `Model::fields()` ([`DocModel::fields`]): one
//! [`Field<Model, Type>`](Field) per stored body field, named as the model names it and carrying the stored
//! JSON name (after serde's renames), and the envelope's under `.envelope()` ([`EnvelopeFields`]). A filter
//! is built from those paths, so a misspelled field does not compile, and neither does a value of the wrong
//! type (a field serde writes its own way, with `with` or `serialize_with`, is compared as the JSON it
//! stores):
//!
//! ```
//! use docmodel::{DocModel, Filter, Query};
//! # use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, DocModel)]
//! #[serde(rename_all = "camelCase")]
//! #[docmodel(type = "order", schema = "1.0", key = "order::{order_id}")]
//! struct Order {
//!     order_id: u64,
//!     customer_no: u64,
//!     status: String,
//!     tags: Vec<String>,
//! }
//!
//! let fields = Order::fields();
//! assert_eq!(fields.customer_no.path(), ["customerNo"]);
//! let open_orders_of_12345: Filter<Order> = fields
//!     .customer_no
//!     .eq(12345)
//!     .and(fields.status.in_(["open", "paid"]))
//!     .and(fields.tags.contains("gift").not());
//! let query = Query::new(open_orders_of_12345).order_by(&fields.order_id).limit(20);
//! # let _ = query;
//! ```
//!
//! A comparison matches a document only where the field is there: `ne` too (use [`Field::missing`] for
//! documents without it). Values compare as JSON: numbers by their exact value (an integer and a float
//! too), strings by their UTF-8 bytes; values of different JSON kinds are never equal, and order as CouchDB
//! collates them (null, false, true, numbers, strings, arrays, objects). A float is compared as serde_json
//! reads it back, which may differ from the one written in its last digit.
//!
//! On CouchDB the server selects candidates through a Mango selector and the repository matches each against
//! the filter, so the same documents match on every store; what differs there is the order of string values
//! in an ordered query, which CouchDB collates by Unicode (`"a" < "B"`) rather than by bytes (ISO dates and
//! strings of one letter case keep their order).

// Mango is what a repository sends a CouchDB store; SQL++ is for the Couchbase store (issue 13), tested
// here until it comes.
pub(crate) mod mango;
#[allow(dead_code)]
pub(crate) mod sqlpp;

/// The models the translations' tests query: an order with a compound index, and an invoice under the
/// `meta` layout.
#[cfg(test)]
mod test_models {
    #[derive(serde::Serialize, serde::Deserialize, crate::DocModel)]
    #[docmodel(crate = crate, type = "order", schema = "2.0", key = "order::{order_id}")]
    #[docmodel(index = "customer_no", index = "customer_no, placed_at")]
    #[serde(rename_all = "camelCase")]
    pub(super) struct Order {
        pub(super) order_id: u64,
        pub(super) customer_no: u64,
        pub(super) placed_at: String,
        pub(super) tags: Vec<String>,
        pub(super) note: Option<String>,
    }

    #[derive(serde::Serialize, serde::Deserialize, crate::DocModel)]
    #[docmodel(crate = crate, type = "invoice", schema = "1.0", key = "inv:{year}:{number}")]
    #[docmodel(envelope(layout = "meta"), index = "total")]
    pub(super) struct Invoice {
        pub(super) year: u16,
        // The find tests check that a query escapes a reserved word.
        #[docmodel(allow(reserved_word))]
        pub(super) number: u32,
        pub(super) total: f64,
        pub(super) lines: Vec<Option<u32>>,
    }
}

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::marker::PhantomData;

use serde::Serialize;
use serde_json::Value;

use crate::{DocModel, EnvelopeField, Layout, SchemaVersion, Timestamp, TimestampFormat};

/// The path to a stored field of model `M` whose values are `V`: the JSON names from the document's top
/// level down. Built by the derive (`Model::fields()`); compared and ordered by [`Filter`] and [`Query`].
pub struct Field<M, V> {
    path: Cow<'static, [&'static str]>,
    types: PhantomData<fn() -> (M, V)>,
}

impl<M, V> Field<M, V> {
    /// The path to the top-level member `name`.
    #[doc(hidden)]
    pub const fn top(name: &'static [&'static str; 1]) -> Self {
        Field {
            path: Cow::Borrowed(name),
            types: PhantomData,
        }
    }

    fn owned(path: Vec<&'static str>) -> Self {
        Field {
            path: Cow::Owned(path),
            types: PhantomData,
        }
    }

    /// The JSON names from the top of the document to the field.
    pub fn path(&self) -> &[&'static str] {
        &self.path
    }

    /// The path to the member `name` of this field's object. Written by the derive of [`Embedded`].
    #[doc(hidden)]
    pub fn child<C>(&self, name: &'static str) -> Field<M, C> {
        let mut path = self.path.to_vec();
        path.push(name);
        Field::owned(path)
    }

    /// This path, for a value of another type stored there (`T` for an `Option<T>`).
    fn retype<W>(self) -> Field<M, W> {
        Field {
            path: self.path,
            types: PhantomData,
        }
    }
}

/// A struct stored inside a model's body, whose fields have paths of their own:
/// `#[derive(Embedded)]` on the struct, `#[docmodel(nested)]` on the model's field holding it, and
/// `Model::fields().address.city` is a [`Field<Model, String>`](Field) at `["address", "city"]`.
///
/// ```
/// use docmodel::{DocModel, Embedded};
/// # use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, Embedded)]
/// #[serde(rename_all = "camelCase")]
/// struct Address {
///     city: String,
///     zip_code: String,
/// }
///
/// #[derive(Serialize, Deserialize, DocModel)]
/// #[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
/// struct User {
///     id: u64,
///     #[docmodel(nested)]
///     home: Address,
///     #[docmodel(nested)]
///     work: Option<Address>,
/// }
///
/// let fields = User::fields();
/// assert_eq!(fields.home.zip_code.path(), ["home", "zipCode"]);
/// assert_eq!(fields.work.city.path(), ["work", "city"]);
/// // The struct as a whole, for `exists`, `missing` and `is_null`:
/// let without_work = fields.work.whole().missing().or(fields.work.whole().is_null());
/// # let _ = without_work;
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no nested field paths",
    label = "`#[docmodel(nested)]` needs a struct that derives `Embedded`, or an `Option` of one",
    note = "derive `docmodel::Embedded` for the struct; an array or a map of structs has no nested paths"
)]
pub trait Embedded: Sized {
    /// The paths of the struct's stored fields, under a model `M`: written by the derive.
    type Fields<M>;

    /// The paths of the struct's fields, the struct being stored at `at`.
    fn fields_at<M>(at: Field<M, Self>) -> Self::Fields<M>;
}

/// The paths of the struct, where there is one: a filter on them matches only documents holding it.
impl<T: Embedded> Embedded for Option<T> {
    type Fields<M> = T::Fields<M>;

    fn fields_at<M>(at: Field<M, Self>) -> Self::Fields<M> {
        T::fields_at(at.retype())
    }
}

impl<M: DocModel, V> Field<M, V> {
    fn compare(&self, op: Op, value: &impl Operand<V>) -> Filter<M> {
        Filter::new(match value.to_json_in(M::ENVELOPE.timestamps()) {
            Ok(value) => Node::Compare {
                path: self.path.clone(),
                op,
                value,
            },
            Err(reason) => Node::Invalid(format!("{}: {reason}", self.path.join("."))),
        })
    }

    /// The field equals `value`.
    pub fn eq(&self, value: impl Operand<V>) -> Filter<M> {
        self.compare(Op::Eq, &value)
    }

    /// The field is there and does not equal `value`.
    pub fn ne(&self, value: impl Operand<V>) -> Filter<M> {
        self.compare(Op::Ne, &value)
    }

    /// The field is less than `value`.
    pub fn lt(&self, value: impl Operand<V>) -> Filter<M> {
        self.compare(Op::Lt, &value)
    }

    /// The field is less than or equal to `value`.
    pub fn le(&self, value: impl Operand<V>) -> Filter<M> {
        self.compare(Op::Le, &value)
    }

    /// The field is greater than `value`.
    pub fn gt(&self, value: impl Operand<V>) -> Filter<M> {
        self.compare(Op::Gt, &value)
    }

    /// The field is greater than or equal to `value`.
    pub fn ge(&self, value: impl Operand<V>) -> Filter<M> {
        self.compare(Op::Ge, &value)
    }

    /// The field equals one of `values` (none: matches nothing).
    pub fn in_<O: Operand<V>>(&self, values: impl IntoIterator<Item = O>) -> Filter<M> {
        let timestamps = M::ENVELOPE.timestamps();
        let values: Result<Vec<Value>, String> = values
            .into_iter()
            .map(|value| value.to_json_in(timestamps))
            .collect();
        Filter::new(match values {
            Ok(values) => Node::In {
                path: self.path.clone(),
                values,
            },
            Err(reason) => Node::Invalid(format!("{}: {reason}", self.path.join("."))),
        })
    }

    /// The document has the field (`null` counts).
    pub fn exists(&self) -> Filter<M> {
        Filter::new(Node::Exists(self.path.clone()))
    }

    /// The document does not have the field.
    pub fn missing(&self) -> Filter<M> {
        Filter::new(Node::Exists(self.path.clone())).not()
    }

    /// The field is there and `null`.
    pub fn is_null(&self) -> Filter<M> {
        Filter::new(Node::Compare {
            path: self.path.clone(),
            op: Op::Eq,
            value: Value::Null,
        })
    }
}

impl<M: DocModel> Field<M, String> {
    /// The field is a string starting with `prefix`.
    pub fn starts_with(&self, prefix: &str) -> Filter<M> {
        Filter::new(Node::StartsWith(self.path.clone(), prefix.to_owned()))
    }
}

impl<M: DocModel, I> Field<M, Vec<I>> {
    /// The field is an array holding `item`.
    pub fn contains(&self, item: impl Operand<I>) -> Filter<M> {
        Filter::new(match item.to_json_in(M::ENVELOPE.timestamps()) {
            Ok(item) => Node::Contains(self.path.clone(), item),
            Err(reason) => Node::Invalid(format!("{}: {reason}", self.path.join("."))),
        })
    }
}

impl<M, V> Clone for Field<M, V> {
    fn clone(&self) -> Self {
        Field {
            path: self.path.clone(),
            types: PhantomData,
        }
    }
}

impl<M, V> fmt::Debug for Field<M, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Field({})", self.path.join("."))
    }
}

/// A value a [`Field<M, V>`](Field) can be compared with: a `V`, a reference to one, or for a `String`
/// field a `&str`.
#[diagnostic::on_unimplemented(
    message = "a field of type `{V}` cannot be compared with `{Self}`",
    label = "expected a `{V}`, a reference to one, or `&str` for a `String` field"
)]
pub trait Operand<V> {
    /// The value as JSON, or why it has none.
    fn to_json(&self) -> Result<Value, String>;

    /// The value as JSON in a model whose envelope writes timestamps as `timestamps`: what a filter
    /// compares. The same as [`to_json`](Operand::to_json) but for a [`Timestamp`], compared with the
    /// envelope's `_created` and `_modified` as they are stored.
    fn to_json_in(&self, timestamps: TimestampFormat) -> Result<Value, String> {
        let _ = timestamps;
        self.to_json()
    }
}

/// The value type of the envelope's timestamp paths (`Model::fields().envelope().created`): a [`Timestamp`]
/// compared in the form the model's envelope stores it, which may not be the milliseconds a `Timestamp`
/// writes in a body. It has no values; a filter takes a `Timestamp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvelopeTime {}

/// An instant, compared with `Model::fields().envelope().created` (or `modified`) in the form the model's
/// envelope stores it: a count of its epoch unit (rounded down to the unit), or ISO-8601 text.
impl Operand<EnvelopeTime> for Timestamp {
    fn to_json(&self) -> Result<Value, String> {
        Operand::<EnvelopeTime>::to_json_in(self, TimestampFormat::EpochMs)
    }

    fn to_json_in(&self, timestamps: TimestampFormat) -> Result<Value, String> {
        match self.to_epoch(timestamps) {
            Some(count) => Ok(Value::from(count)),
            None if self.fits_iso8601() => Ok(Value::String(self.to_string())),
            None => Err(format!(
                "{} ms since the epoch is outside the years ISO-8601 can write",
                self.as_millis()
            )),
        }
    }
}

impl Operand<EnvelopeTime> for &Timestamp {
    fn to_json(&self) -> Result<Value, String> {
        Operand::<EnvelopeTime>::to_json(*self)
    }

    fn to_json_in(&self, timestamps: TimestampFormat) -> Result<Value, String> {
        Operand::<EnvelopeTime>::to_json_in(*self, timestamps)
    }
}

impl<V: Serialize> Operand<V> for V {
    fn to_json(&self) -> Result<Value, String> {
        serde_json::to_value(self).map_err(|err| err.to_string())
    }
}

impl<V: Serialize> Operand<V> for &V {
    fn to_json(&self) -> Result<Value, String> {
        serde_json::to_value(*self).map_err(|err| err.to_string())
    }
}

impl Operand<String> for &str {
    fn to_json(&self) -> Result<Value, String> {
        Ok(Value::String((*self).to_owned()))
    }
}

/// The envelope's fields of model `M`, under its layout and names: `Model::fields().envelope()`.
pub struct EnvelopeFields<M> {
    /// `_type` (or the model's name for it).
    pub type_: Field<M, String>,
    /// `_schema`.
    pub schema: Field<M, String>,
    /// `_ver`.
    pub ver: Field<M, u64>,
    /// `_created`, compared with a [`Timestamp`] written as the model's envelope writes it
    /// ([`TimestampFormat`]). Matches nothing in a model whose envelope does not keep it.
    pub created: Field<M, EnvelopeTime>,
    /// `_modified`, as [`created`](EnvelopeFields::created).
    pub modified: Field<M, EnvelopeTime>,
}

impl<M: DocModel> EnvelopeFields<M> {
    /// The envelope's fields of `M`.
    pub fn of() -> Self {
        let path = envelope_path::<M>;
        EnvelopeFields {
            type_: Field::owned(path(EnvelopeField::Type)),
            schema: Field::owned(path(EnvelopeField::Schema)),
            ver: Field::owned(path(EnvelopeField::Ver)),
            created: Field::owned(path(EnvelopeField::Created)),
            modified: Field::owned(path(EnvelopeField::Modified)),
        }
    }
}

impl<M> fmt::Debug for EnvelopeFields<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EnvelopeFields")
            .field("type_", &self.type_)
            .field("schema", &self.schema)
            .field("ver", &self.ver)
            .field("created", &self.created)
            .field("modified", &self.modified)
            .finish()
    }
}

/// One index of a model, declared with `#[docmodel(index = "customer_no")]`, or over several fields with
/// `#[docmodel(index = "customer_no, placed_at")]`: the stored JSON paths of its fields, in order. An index is
/// not unique: any number of documents may share its values (a unique value is a
/// [lookup](crate::DocModel::LOOKUPS)).
///
/// ```
/// use docmodel::DocModel;
/// # use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, DocModel)]
/// #[serde(rename_all = "camelCase")]
/// #[docmodel(type = "order", schema = "1.0", key = "order::{order_id}")]
/// #[docmodel(index = "customer_no", index = "customer_no, placed_at")]
/// struct Order { order_id: u64, customer_no: u64, placed_at: String }
///
/// let [by_customer, by_customer_and_date] = Order::INDEXES else { unreachable!() };
/// assert_eq!(by_customer.name(), "customer_no");
/// assert_eq!(by_customer_and_date.paths(), [["customerNo"], ["placedAt"]]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Index {
    name: &'static str,
    paths: &'static [&'static [&'static str]],
}

impl Index {
    /// An index named `name` over the fields at `paths`. Written by the derive.
    #[doc(hidden)]
    pub const fn new(name: &'static str, paths: &'static [&'static [&'static str]]) -> Self {
        Index { name, paths }
    }

    /// Its name: the Rust names of its fields as declared, joined by `,` (`"customer_no,placed_at"`).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The stored JSON path of each of its fields, in order.
    pub fn paths(&self) -> &'static [&'static [&'static str]] {
        self.paths
    }
}

/// Which documents of model `M` a [`Query`] or [`Repo::count`](crate::Repo::count) takes.
pub struct Filter<M> {
    node: Node,
    model: PhantomData<fn() -> M>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    All,
    Compare {
        path: Cow<'static, [&'static str]>,
        op: Op,
        value: Value,
    },
    In {
        path: Cow<'static, [&'static str]>,
        values: Vec<Value>,
    },
    Exists(Cow<'static, [&'static str]>),
    StartsWith(Cow<'static, [&'static str]>, String),
    Contains(Cow<'static, [&'static str]>, Value),
    And(Vec<Node>),
    Or(Vec<Node>),
    Not(Box<Node>),
    /// A value that has no JSON form: the query fails with this reason.
    Invalid(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl<M> Filter<M> {
    fn new(node: Node) -> Self {
        Filter {
            node,
            model: PhantomData,
        }
    }

    /// The filter's tree, for the translations to a store's query language.
    pub(crate) fn node(&self) -> &Node {
        &self.node
    }

    /// Every document of the model.
    pub fn all() -> Self {
        Filter::new(Node::All)
    }

    /// Both this and `other`.
    pub fn and(self, other: Filter<M>) -> Self {
        Filter::new(match self.node {
            Node::All => other.node,
            Node::And(mut nodes) => {
                nodes.push(other.node);
                Node::And(nodes)
            }
            node => Node::And(vec![node, other.node]),
        })
    }

    /// This or `other`.
    pub fn or(self, other: Filter<M>) -> Self {
        Filter::new(match self.node {
            Node::Or(mut nodes) => {
                nodes.push(other.node);
                Node::Or(nodes)
            }
            node => Node::Or(vec![node, other.node]),
        })
    }

    /// Not this.
    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Self {
        Filter::new(match self.node {
            Node::Not(node) => *node,
            node => Node::Not(Box::new(node)),
        })
    }

    /// Why the filter cannot run: a value given to it that has no JSON form.
    pub(crate) fn invalid(&self) -> Option<&str> {
        fn find(node: &Node) -> Option<&str> {
            match node {
                Node::Invalid(reason) => Some(reason),
                Node::And(nodes) | Node::Or(nodes) => nodes.iter().find_map(find),
                Node::Not(node) => find(node),
                _ => None,
            }
        }
        find(&self.node)
    }

    /// Whether the stored document `document` (its JSON) matches.
    pub fn matches(&self, document: &Value) -> bool {
        matches(&self.node, document)
    }
}

impl<M> Clone for Filter<M> {
    fn clone(&self) -> Self {
        Filter::new(self.node.clone())
    }
}

impl<M> fmt::Debug for Filter<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.node, f)
    }
}

/// The path of envelope field `field` in model `M`'s documents: under the meta object, or at the top.
pub(crate) fn envelope_path<M: DocModel>(field: EnvelopeField) -> Vec<&'static str> {
    let spec = &M::ENVELOPE;
    match spec.layout() {
        Layout::Meta => vec![spec.meta_name(), spec.name(field)],
        Layout::Flat | Layout::Plain => vec![spec.name(field)],
    }
}

/// The schema a stored document (as JSON) is at: its schema field, or the model's `unversioned` version when
/// it has none; `None` when neither reads.
pub(crate) fn stored_schema<M: DocModel>(
    document: &Value,
    schema_path: &[&str],
) -> Option<SchemaVersion> {
    match at(document, schema_path) {
        Some(Value::String(text)) => SchemaVersion::parse(text).ok(),
        Some(_) => None,
        None => M::UNVERSIONED,
    }
}

/// The member at `path`, if the document has it.
pub(crate) fn at<'v>(document: &'v Value, path: &[&str]) -> Option<&'v Value> {
    path.iter()
        .try_fold(document, |value, name| value.as_object()?.get(*name))
}

fn matches(node: &Node, document: &Value) -> bool {
    match node {
        Node::All => true,
        Node::Compare { path, op, value } => at(document, path).is_some_and(|found| {
            let order = collate(found, value);
            match op {
                Op::Eq => order == Ordering::Equal,
                Op::Ne => order != Ordering::Equal,
                // A range compares values of one kind only, as a typed field's values are.
                Op::Lt => same_kind(found, value) && order == Ordering::Less,
                Op::Le => same_kind(found, value) && order != Ordering::Greater,
                Op::Gt => same_kind(found, value) && order == Ordering::Greater,
                Op::Ge => same_kind(found, value) && order != Ordering::Less,
            }
        }),
        Node::In { path, values } => at(document, path)
            .is_some_and(|found| values.iter().any(|value| collate(found, value).is_eq())),
        Node::Exists(path) => at(document, path).is_some(),
        Node::StartsWith(path, prefix) => at(document, path)
            .and_then(Value::as_str)
            .is_some_and(|text| text.starts_with(prefix.as_str())),
        Node::Contains(path, item) => at(document, path)
            .and_then(Value::as_array)
            .is_some_and(|items| items.iter().any(|found| collate(found, item).is_eq())),
        Node::And(nodes) => nodes.iter().all(|node| matches(node, document)),
        Node::Or(nodes) => nodes.iter().any(|node| matches(node, document)),
        Node::Not(node) => !matches(node, document),
        Node::Invalid(_) => false,
    }
}

fn rank(value: &Value) -> u8 {
    match value {
        Value::Null => 0,
        Value::Bool(false) => 1,
        Value::Bool(true) => 2,
        Value::Number(_) => 3,
        Value::String(_) => 4,
        Value::Array(_) => 5,
        Value::Object(_) => 6,
    }
}

fn same_kind(a: &Value, b: &Value) -> bool {
    rank(a) == rank(b) || (a.is_boolean() && b.is_boolean())
}

/// The order of two JSON values, as CouchDB collates them (strings by bytes rather than by Unicode
/// collation): null, false, true, numbers, strings, arrays, objects.
pub(crate) fn collate(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => compare_numbers(a, b),
        (Value::String(a), Value::String(b)) => a.cmp(b),
        (Value::Array(a), Value::Array(b)) => a
            .iter()
            .zip(b)
            .map(|(a, b)| collate(a, b))
            .find(|order| order.is_ne())
            .unwrap_or_else(|| a.len().cmp(&b.len())),
        (Value::Object(a), Value::Object(b)) => a
            .iter()
            .zip(b)
            .map(|((ka, va), (kb, vb))| ka.cmp(kb).then_with(|| collate(va, vb)))
            .find(|order| order.is_ne())
            .unwrap_or_else(|| a.len().cmp(&b.len())),
        _ => rank(a).cmp(&rank(b)),
    }
}

fn compare_numbers(a: &serde_json::Number, b: &serde_json::Number) -> Ordering {
    let exact = |n: &serde_json::Number| {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    };
    // JSON numbers are finite: a float that is not read as one is treated as 0.
    let float = |n: &serde_json::Number| n.as_f64().filter(|f| f.is_finite()).unwrap_or(0.0);
    match (exact(a), exact(b)) {
        (Some(a), Some(b)) => a.cmp(&b),
        (Some(a), None) => compare_integer_float(a, float(b)),
        (None, Some(b)) => compare_integer_float(b, float(a)).reverse(),
        // Finite, so never unordered; -0.0 equals 0.0.
        (None, None) => float(a).partial_cmp(&float(b)).unwrap_or(Ordering::Equal),
    }
}

/// `integer` against the finite `float`, exactly: no rounding of the integer to a float.
fn compare_integer_float(integer: i128, float: f64) -> Ordering {
    // Every i64 and u64 lies strictly between these, which are exact as floats.
    const BELOW: f64 = -170_141_183_460_469_231_731_687_303_715_884_105_728.0; // -2^127
    if float >= -BELOW {
        return Ordering::Less;
    }
    if float < BELOW {
        return Ordering::Greater;
    }
    let whole = float.trunc();
    // In range, and a whole number: exact as an i128.
    #[allow(clippy::cast_possible_truncation)]
    let whole_integer = whole as i128;
    integer.cmp(&whole_integer).then_with(|| {
        let fraction = float - whole;
        if fraction > 0.0 {
            Ordering::Less
        } else if fraction < 0.0 {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    })
}

/// Which way a [`Query`] orders its documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direction {
    /// Smallest first.
    #[default]
    Ascending,
    /// Largest first.
    Descending,
}

/// A filter, an order and a page size: what [`Repo::find`](crate::Repo::find) runs. Pages are keyset pages:
/// the next one starts after the last document of this one (by the order's value, then the key), never at
/// an offset, so a document inserted or removed between two pages does not make another repeat or go
/// missing (a document whose ordered value changes moves with it).
pub struct Query<M> {
    pub(crate) filter: Filter<M>,
    pub(crate) order: Option<(Cow<'static, [&'static str]>, Direction)>,
    pub(crate) limit: usize,
    pub(crate) after: Option<Cursor>,
}

impl<M> Query<M> {
    /// The documents `filter` matches, in key order, 100 to a page.
    pub fn new(filter: Filter<M>) -> Self {
        Query {
            filter,
            order: None,
            limit: 100,
            after: None,
        }
    }

    /// Ordered by `field`, smallest first (then by key).
    pub fn order_by<V>(self, field: &Field<M, V>) -> Self {
        self.order_by_dir(field, Direction::Ascending)
    }

    /// Ordered by `field` in `direction` (then by key, the same way).
    pub fn order_by_dir<V>(mut self, field: &Field<M, V>, direction: Direction) -> Self {
        self.order = Some((field.path.clone(), direction));
        self
    }

    /// At most `limit` documents to a page (at least 1).
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = limit.max(1);
        self
    }

    /// The page after the one that gave `cursor` ([`Page::next`]).
    pub fn after(mut self, cursor: Cursor) -> Self {
        self.after = Some(cursor);
        self
    }

    /// The order value and key the page starts after, read from its cursor; `None` for the first page.
    pub(crate) fn after_position(&self) -> Result<Option<(Value, String)>, crate::Error> {
        self.after
            .as_ref()
            .map(|cursor| {
                cursor
                    .position()
                    .map_err(|source| crate::Error::Codec { key: None, source })
            })
            .transpose()
    }
}

impl<M> Clone for Query<M> {
    fn clone(&self) -> Self {
        Query {
            filter: self.filter.clone(),
            order: self.order.clone(),
            limit: self.limit,
            after: self.after.clone(),
        }
    }
}

impl<M> fmt::Debug for Query<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Query")
            .field("filter", &self.filter)
            .field("order", &self.order)
            .field("limit", &self.limit)
            .field("after", &self.after)
            .finish()
    }
}

/// Where the next page starts: opaque, from [`Page::next`], handed to [`Query::after`]. Its text
/// ([`Cursor::as_str`], [`Cursor::from_text`]) can travel through a URL or a client and back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor(String);

impl Cursor {
    /// The cursor as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// A cursor from its text, as [`Cursor::as_str`] gave it. A text that is not one makes the query fail
    /// with [`Error::Codec`](crate::Error::Codec).
    pub fn from_text(text: impl Into<String>) -> Self {
        Cursor(text.into())
    }

    pub(crate) fn new(value: &Value, key: &str) -> Self {
        Cursor(serde_json::json!([value, key]).to_string())
    }

    /// The order value and key the cursor names.
    pub(crate) fn position(&self) -> Result<(Value, String), serde_json::Error> {
        serde_json::from_str(&self.0)
    }
}

/// One page of a [`Query`]'s documents.
#[non_exhaustive]
pub struct Page<T> {
    /// The documents, in the query's order.
    pub docs: Vec<crate::Doc<T>>,
    /// Where the next page starts; `None` on the last page.
    pub next: Option<Cursor>,
    /// How many documents of the model the query looked at were stored at an older schema than the
    /// current one. They are matched as stored, under the names of their schema, so a filter on the current
    /// fields may miss them: migrate them (read and save) to be sure.
    pub older_schema: usize,
}

impl<T: DocModel + fmt::Debug> fmt::Debug for Page<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Page")
            .field("docs", &self.docs)
            .field("next", &self.next)
            .field("older_schema", &self.older_schema)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_timestamp_is_compared_as_the_envelope_stores_it() {
        let at = Timestamp::from_millis(1_544_759_124_478);
        let envelope = |at: Timestamp, format| Operand::<EnvelopeTime>::to_json_in(&at, format);
        let json = |format| envelope(at, format).unwrap();
        assert_eq!(
            json(TimestampFormat::EpochMs),
            serde_json::json!(1_544_759_124_478_i64)
        );
        assert_eq!(
            json(TimestampFormat::EpochS),
            serde_json::json!(1_544_759_124)
        );
        assert_eq!(json(TimestampFormat::EpochDay), serde_json::json!(17_879));
        assert_eq!(
            json(TimestampFormat::Iso8601),
            serde_json::json!("2018-12-14T03:45:24.478Z")
        );
        let before = Timestamp::from_millis(-1);
        assert_eq!(
            envelope(before, TimestampFormat::EpochS).unwrap(),
            serde_json::json!(-1),
            "rounded down, as the envelope writes it"
        );
        let far = Timestamp::from_millis(i64::MAX);
        let err = envelope(far, TimestampFormat::Iso8601).unwrap_err();
        assert!(
            err.contains("outside the years ISO-8601 can write"),
            "{err}"
        );
        // In a body, a `Timestamp` is compared as it writes itself: epoch milliseconds.
        assert_eq!(
            Operand::<Timestamp>::to_json_in(&at, TimestampFormat::EpochS).unwrap(),
            serde_json::json!(1_544_759_124_478_i64)
        );
    }

    #[test]
    fn values_collate_as_couchdb_orders_them() {
        let ordered = [
            json!(null),
            json!(false),
            json!(true),
            json!(-1),
            json!(2),
            json!(2.5),
            json!(18446744073709551615u64),
            json!(""),
            json!("a"),
            json!("b"),
            json!([]),
            json!([1]),
            json!({}),
        ];
        for pair in ordered.windows(2) {
            assert_eq!(collate(&pair[0], &pair[1]), Ordering::Less, "{pair:?}");
        }
        assert_eq!(collate(&json!(1), &json!(1.0)), Ordering::Equal);
        assert_eq!(collate(&json!(-0.0), &json!(0.0)), Ordering::Equal);
    }

    #[test]
    fn integers_and_floats_compare_exactly_and_consistently() {
        let two_53 = 9_007_199_254_740_992_i64;
        let (low, float, high) = (json!(two_53), json!(two_53 as f64), json!(two_53 + 1));
        assert_eq!(collate(&low, &float), Ordering::Equal);
        assert_eq!(
            collate(&float, &high),
            Ordering::Less,
            "2^53 as a float is below 2^53 + 1"
        );
        assert_eq!(collate(&high, &float), Ordering::Greater);
        assert_eq!(collate(&json!(2), &json!(2.5)), Ordering::Less);
        assert_eq!(collate(&json!(-2), &json!(-2.5)), Ordering::Greater);
        assert_eq!(collate(&json!(u64::MAX), &json!(1e300)), Ordering::Less);
        assert_eq!(collate(&json!(i64::MIN), &json!(-1e300)), Ordering::Greater);
        // A sort of mixed numbers is a total order: sorted, each is at most the next.
        let mut values: Vec<Value> = (0..40)
            .map(|n| match n % 3 {
                0 => json!(two_53 + n),
                1 => json!((two_53 + n) as f64),
                _ => json!(two_53 - n),
            })
            .collect();
        values.sort_by(collate);
        for pair in values.windows(2) {
            assert_ne!(collate(&pair[0], &pair[1]), Ordering::Greater, "{pair:?}");
        }
    }

    #[test]
    fn a_path_walks_objects_only() {
        let doc = json!({"meta": {"ver": 3}, "tags": ["a"]});
        assert_eq!(at(&doc, &["meta", "ver"]), Some(&json!(3)));
        assert_eq!(at(&doc, &["tags", "0"]), None);
        assert_eq!(at(&doc, &["missing"]), None);
    }
}
