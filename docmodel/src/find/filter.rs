//! The filter IR: [`Filter`], a typed wrapper around a tree of [`Node`]s, with [`Op`] for comparisons. The
//! typed paths ([`Field`](super::path::Field)) build it; four consumers read it, and each variant's
//! documentation states what they keep of it.
//!
//! # The consumers
//!
//! - **The evaluator**, [`Filter::matches`] ([`eval`](super::eval)): the reference. It decides which
//!   documents match, on every store.
//! - **The index planner** (`repo::indexes::plan`, run by `Repo::find` on a store that can list keys): picks
//!   the index entries to read from the comparisons at the top of the filter (alone, or the direct members of
//!   its top-level [`Node::And`]). It reads a superset of the matches; each document read is matched by the
//!   evaluator.
//! - **Mango** ([`mango`](super::mango), CouchDB): a `_find` selector that selects a superset of the matches,
//!   each candidate then matched by the evaluator. What the server cannot apply exactly is left out of the
//!   selector.
//! - **SQL++** (`sqlpp`, Couchbase): a `WHERE` condition that must be TRUE exactly where the evaluator
//!   matches; what it cannot translate exactly fails with a permanent [`Error::Store`](crate::Error::Store)
//!   naming the field, before anything is sent.
//!
//! # Paths, missing fields and null
//!
//! A path is the JSON names from the top of the document down, and each step goes into an object only
//! ([`at`](super::eval::at)): a path that meets an array, a scalar or no member finds nothing, and the field
//! is **missing**. A member holding JSON `null` is **there**, and its value is null.
//!
//! # Values
//!
//! Values compare as [`collate`](super::eval::collate) orders them, which is CouchDB's order of kinds:
//! null, false, true, numbers, strings, arrays, objects. Values of different kinds are never equal.
//! Numbers compare by exact value (an integer and a float too: `1` equals `1.0`); strings by their UTF-8
//! bytes (Unicode code point order, not a collation: `"B" < "a"`); arrays item by item, then by length;
//! objects member by member in the order their parsed maps hold them (by name, unless serde_json's
//! `preserve_order` feature keeps them as written), name then value, then by size.
//! Where a consumer compares otherwise, the variant says what it does about it.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde_json::Value;

/// Which documents of model `M` a [`Query`](crate::Query) or [`Repo::count`](crate::Repo::count) takes.
///
/// Its `Debug` shows the values it compares, which may be personal data: the tracing feature's spans show a
/// filter with each value as `?` unless `Repo::trace_values` (feature `tracing`) is on, and a
/// program that logs a filter's `Debug` chooses to show them.
pub struct Filter<M> {
    node: Node,
    model: PhantomData<fn() -> M>,
}

/// A filter's tree. See the [module documentation](self) for what a path finds, what a missing field is and
/// how values compare; each variant says what the four consumers do with it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    /// Every document.
    ///
    /// Evaluator: true. Planner: gives no index. Mango: adds no condition; under [`Node::Not`] it matches
    /// nothing and no request is sent. SQL++: `TRUE` (a filter of only this adds no condition).
    All,
    /// The field at `path` is there and compares with `value` as `op` says ([`Op`]). A missing field never
    /// matches, whatever `op` ([`Op::Ne`] too); a field holding null is there.
    ///
    /// Evaluator: [`collate`](super::eval::collate), ranges within the value's kind. Planner: for a value
    /// that is not an array or object, [`Op::Eq`] fixes an index's field and [`Op::Lt`] to [`Op::Ge`] bound
    /// the next one ([`Op::Ne`] is not used); a missing field's entry sorts below every value, outside both.
    /// Mango: see each
    /// [`Op`]; nothing is sent for a value that is or holds an object (CouchDB compares objects member by
    /// member in stored order). SQL++: see each [`Op`]; a comparison with a MISSING field is MISSING, which
    /// leaves the document out.
    Compare {
        /// The field's path.
        path: Cow<'static, [&'static str]>,
        /// How the field compares with `value`.
        op: Op,
        /// The value, as JSON.
        value: Value,
    },
    /// The field at `path` is there and equals (as [`Op::Eq`]) one of `values`; with no values, no document
    /// matches. A field holding an array is compared as a whole, not by its items.
    ///
    /// Evaluator: [`collate`](super::eval::collate) equal to one value. Planner: not used. Mango: no values
    /// send no request; `$in` when no value is an array or object (CouchDB's `$in` also takes an array field
    /// holding one of the values: a superset), else nothing. SQL++: `IS NULL` for a null value, `IN` for
    /// the others, `FALSE` for none; an array or object value holding null fails with `Error::Store`.
    In {
        /// The field's path.
        path: Cow<'static, [&'static str]>,
        /// The values, as JSON.
        values: Vec<Value>,
    },
    /// The field at the path is there: a field holding null is. `Not(Exists)` is a missing field.
    ///
    /// Evaluator: [`at`](super::eval::at) finds it. Planner: not used. Mango: `$exists: true` (and
    /// `$exists: false` under [`Node::Not`]). SQL++: `IS NOT MISSING`, only ever TRUE or FALSE.
    Exists(Cow<'static, [&'static str]>),
    /// The field at the path is a string starting with the prefix, compared as UTF-8 bytes (the empty prefix:
    /// any string). A missing field, null, or a value of another kind does not match.
    ///
    /// Evaluator: [`str::starts_with`]. Planner: not used. Mango: `$regex` of `^` and the escaped prefix,
    /// which matches strings only. SQL++: `IS_STRING` and the byte-order range from the prefix up to the
    /// least string above every string starting with it (`IS_STRING` alone for the empty prefix).
    StartsWith(Cow<'static, [&'static str]>, String),
    /// The field at the path is an array holding an item equal (as [`Op::Eq`]) to the value; null too, for a
    /// null item. A missing field, or one not holding an array, does not match.
    ///
    /// Evaluator: an item [`collate`](super::eval::collate) equal. Planner: not used. Mango:
    /// `$elemMatch: {"$eq": value}` unless the value is or holds an object, else nothing. SQL++:
    /// `ANY v IN <field> SATISFIES v = <value> END` (`v IS NULL` for null); an array or object value holding
    /// null fails with `Error::Store`.
    Contains(Cow<'static, [&'static str]>, Value),
    /// Every node matches; none: every document. [`Filter::and`] appends to its left side's `And`, so a
    /// member may be an `And` again.
    ///
    /// Evaluator: all. Planner: reads its direct members only (not a nested `And`'s). Mango: the conditions
    /// of each member, nested `And`s included, on one selector's fields (a second value for an operator a
    /// field holds already is left to the evaluator); a member that can match nothing sends no request.
    /// SQL++: `AND` (`TRUE` for none).
    And(Vec<Node>),
    /// One of the nodes matches; none: no document ([`Filter::or`] never builds an empty one).
    ///
    /// Evaluator: any. Planner: gives no index. Mango: adds no condition, left to the evaluator. SQL++: `OR`
    /// (`FALSE` for none).
    Or(Vec<Node>),
    /// The node does not match, with two truth values: `Not(Compare { .. })` matches every document without
    /// the field. [`Filter::not`] takes a `Not` off rather than nesting one.
    ///
    /// Evaluator: the negation. Planner: gives no index. Mango: only `Not(All)` (no request) and
    /// `Not(Exists)` (`$exists: false`) narrow; any other is left to the evaluator. SQL++:
    /// `NOT IFMISSINGORNULL(<node>, FALSE)`, or `NOT (<node>)` when the node is only ever TRUE or FALSE.
    Not(Box<Node>),
    /// A value that has no JSON form: the query fails with this reason.
    ///
    /// Every consumer fails first: the repository, Mango and SQL++ look for one anywhere in the tree
    /// ([`Filter::invalid`]) before reading or sending anything, and fail with `Error::Codec` whatever else
    /// the filter holds. Evaluator: matches nothing.
    Invalid(String),
}

/// How a [`Node::Compare`] compares the field with its value, the field being there (a missing field never
/// matches). Values compare as [`collate`](super::eval::collate) orders them (see the
/// [module documentation](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// Equal: same kind and same value (numbers by value, strings by bytes, arrays and objects as wholes);
    /// with a null value, the field holds null.
    ///
    /// Planner: fixes an index's field to the value's entry (numbers as `f64`, so numbers beyond its
    /// precision share one: a superset). Mango: `$eq`. SQL++: `<field> = <value>`, or `IS NULL` for null;
    /// an array or object value holding null fails with `Error::Store` (SQL++ compares it as unknown).
    Eq,
    /// Unequal: any value of another kind, null included, is unequal; with a null value, the field holds
    /// anything but null.
    ///
    /// Planner: not used. Mango: `$ne` (a Mango condition on a missing field is false). SQL++:
    /// `<field> IS NOT MISSING AND NOT IFMISSINGORNULL(<field> = <value>, FALSE)`, or `IS NOT NULL` for
    /// null; an array or object value holding null fails with `Error::Store`.
    Ne,
    /// Less than, for a field of the value's kind only (false and true are one kind; null is the only
    /// value of its kind, so a null value matches nothing). Strings by UTF-8 bytes.
    ///
    /// Planner: the upper bound of the field after the fixed ones, within the value's kind, read inclusive
    /// (the evaluator decides). Mango: nothing for a null value (no request), a string (CouchDB collates
    /// strings by Unicode, not bytes) or a value holding an object; else `$type` of the value's kind and
    /// `$lt` (an array value too, though CouchDB collates the strings inside it by Unicode). SQL++:
    /// `IS_<KIND>(<field>) AND <field> < <value>`, `FALSE` for null; an array or object value fails with
    /// `Error::Store`.
    Lt,
    /// Less than or equal, for a field of the value's kind only; a null value matches a field holding null.
    /// Strings by UTF-8 bytes.
    ///
    /// Planner: as [`Op::Lt`]. Mango: `$eq: null` for a null value; otherwise as [`Op::Lt`], with `$lte`.
    /// SQL++: as [`Op::Lt`] with `<=`, `IS NULL` for null.
    Le,
    /// Greater than, for a field of the value's kind only; a null value matches nothing. Strings by UTF-8
    /// bytes.
    ///
    /// Planner: the lower bound, as [`Op::Lt`] is the upper one. Mango: as [`Op::Lt`], with `$gt`. SQL++: as
    /// [`Op::Lt`] with `>`.
    Gt,
    /// Greater than or equal, for a field of the value's kind only; a null value matches a field holding
    /// null. Strings by UTF-8 bytes.
    ///
    /// Planner: as [`Op::Gt`]. Mango: as [`Op::Le`], with `$gte`. SQL++: as [`Op::Le`] with `>=`.
    Ge,
}

#[cfg(feature = "tracing")]
impl Node {
    /// Writes the node as a trace shows a query: `customerNo = ? AND (state IN ? OR NOT note EXISTS)`, each
    /// value as `?` unless `values`.
    pub(crate) fn write_shape(
        &self,
        f: &mut std::fmt::Formatter<'_>,
        values: bool,
    ) -> std::fmt::Result {
        let value = |f: &mut std::fmt::Formatter<'_>, value: &dyn std::fmt::Display| {
            if values {
                write!(f, "{value}")
            } else {
                f.write_str("?")
            }
        };
        let list = |f: &mut std::fmt::Formatter<'_>, nodes: &[Node], join: &str| {
            f.write_str("(")?;
            for (i, node) in nodes.iter().enumerate() {
                if i > 0 {
                    f.write_str(join)?;
                }
                node.write_shape(f, values)?;
            }
            f.write_str(")")
        };
        match self {
            Node::All => f.write_str("ALL"),
            Node::Compare { path, op, value: v } => {
                let symbol = match op {
                    Op::Eq => "=",
                    Op::Ne => "!=",
                    Op::Lt => "<",
                    Op::Le => "<=",
                    Op::Gt => ">",
                    Op::Ge => ">=",
                };
                write!(f, "{} {symbol} ", path.join("."))?;
                value(f, v)
            }
            Node::In { path, values: vs } => {
                write!(f, "{} IN ", path.join("."))?;
                value(f, &Value::Array(vs.clone()))
            }
            Node::Exists(path) => write!(f, "{} EXISTS", path.join(".")),
            Node::StartsWith(path, prefix) => {
                write!(f, "{} STARTS WITH ", path.join("."))?;
                value(f, &Value::String(prefix.clone()))
            }
            Node::Contains(path, item) => {
                write!(f, "{} CONTAINS ", path.join("."))?;
                value(f, item)
            }
            Node::And(nodes) => list(f, nodes, " AND "),
            Node::Or(nodes) => list(f, nodes, " OR "),
            Node::Not(node) => {
                f.write_str("NOT ")?;
                node.write_shape(f, values)
            }
            Node::Invalid(_) => f.write_str("INVALID"),
        }
    }
}

impl<M> Filter<M> {
    /// The filter of `node`: what the paths ([`Field`](super::path::Field)) and the combinators build.
    pub(super) fn new(node: Node) -> Self {
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
