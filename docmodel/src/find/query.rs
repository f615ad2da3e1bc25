//! Queries and their pages: [`Query`] (a filter, an order, a page size and where the page starts), the
//! [`Direction`] of its order, the [`Cursor`] one page hands the next, and the [`Page`] itself.

use std::borrow::Cow;
use std::fmt;

use serde_json::Value;

use super::filter::Filter;
use super::path::Field;
use crate::DocModel;

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
