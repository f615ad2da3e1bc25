//! Finding documents: typed paths to stored fields, filters over them, and queries with keyset pages.
//!
//! The derive gives every model its field paths, `Model::fields()`
//! ([`DocModel::fields`](crate::DocModel::fields)): one [`Field<Model, Type>`](Field) per stored body field,
//! named as the model names it and carrying the stored JSON name (after serde's renames), and the
//! envelope's under `.envelope()` ([`EnvelopeFields`]). A filter is built from those paths, so a misspelled
//! field does not compile, and neither does a value of the wrong type (a field serde writes its own way,
//! with `with` or `serialize_with`, is compared as the JSON it stores):
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

// The parts, each importing from its siblings: the typed paths build the filter IR, the evaluator matches it,
// a query pages through what it matches, and the dialects translate both to a store's query language.
mod dialect;
mod eval;
mod filter;
mod path;
mod query;

// What a repository sends a store in the store's own query language: Mango (CouchDB) and SQL++ (Couchbase).
pub(crate) mod mango;
pub(crate) mod sqlpp;

#[cfg(test)]
mod test_models;

pub(crate) use self::dialect::{Dialect, Run, position, with_dialect};
pub(crate) use self::eval::{
    as_model_names, at, collate, owns, stored_document, stored_projection, stored_schema,
};
pub use self::filter::Filter;
pub(crate) use self::filter::{Node, Op};
pub(crate) use self::path::envelope_path;
pub use self::path::{Embedded, EnvelopeFields, EnvelopeTime, Field, Index, Operand};
pub use self::query::{Cursor, Direction, Page, Query, Unreadable};
