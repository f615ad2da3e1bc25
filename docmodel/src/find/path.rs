//! The typed-path DSL: [`Field`], the path to a stored field that a filter compares and a query orders by,
//! the operands it compares with ([`Operand`]), the paths of the envelope ([`EnvelopeFields`]) and of an
//! embedded struct ([`Embedded`]), and a model's declared indexes ([`Index`]).

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Serialize;
use serde_json::Value;

use super::filter::{Filter, Node, Op};
use crate::{DocModel, EnvelopeField, Layout, Timestamp, TimestampFormat};

/// The path to a stored field of model `M` whose values are `V`: the JSON names from the document's top
/// level down. Built by the derive (`Model::fields()`); compared and ordered by [`Filter`] and
/// [`Query`](crate::Query).
pub struct Field<M, V> {
    /// The JSON names, from the top of the document: what a filter and a query's order keep.
    pub(super) path: Cow<'static, [&'static str]>,
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

    /// The paths of the struct's fields, the struct being stored at `at`: what the derive calls.
    #[doc(hidden)]
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
// Not listed under a wrong operand's error: the message says what a field takes.
#[diagnostic::do_not_recommend]
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

// Not listed under a wrong operand's error: the message says what a field takes.
#[diagnostic::do_not_recommend]
impl Operand<EnvelopeTime> for &Timestamp {
    fn to_json(&self) -> Result<Value, String> {
        Operand::<EnvelopeTime>::to_json(*self)
    }

    fn to_json_in(&self, timestamps: TimestampFormat) -> Result<Value, String> {
        Operand::<EnvelopeTime>::to_json_in(*self, timestamps)
    }
}

// Not listed under a wrong operand's error: the message says what a field takes.
#[diagnostic::do_not_recommend]
impl<V: Serialize> Operand<V> for V {
    fn to_json(&self) -> Result<Value, String> {
        serde_json::to_value(self).map_err(|err| err.to_string())
    }
}

// Not listed under a wrong operand's error: the message says what a field takes.
#[diagnostic::do_not_recommend]
impl<V: Serialize> Operand<V> for &V {
    fn to_json(&self) -> Result<Value, String> {
        serde_json::to_value(*self).map_err(|err| err.to_string())
    }
}

// Not listed under a wrong operand's error: the message says what a field takes.
#[diagnostic::do_not_recommend]
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

/// The path of envelope field `field` in model `M`'s documents: under the meta object, or at the top. (In
/// the `root` layout, the top of the root attribute's object, which the repository reads a document as, with
/// the type under its `plain` name: see `find::stored_document`.)
pub(crate) fn envelope_path<M: DocModel>(field: EnvelopeField) -> Vec<&'static str> {
    let spec = &M::ENVELOPE;
    match spec.layout() {
        Layout::Meta => vec![spec.meta_name(), spec.name(field)],
        Layout::Flat | Layout::Plain | Layout::Root => vec![spec.name(field)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
