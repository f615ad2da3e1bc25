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
///
/// Its `Debug` shows its filter's values and its cursor, as [`Filter`]'s does: values the tracing feature's
/// spans hide unless `Repo::trace_values` (feature `tracing`) is on.
pub struct Query<M> {
    pub(crate) filter: Filter<M>,
    pub(crate) order: Option<(Cow<'static, [&'static str]>, Direction)>,
    pub(crate) limit: usize,
    pub(crate) after: Option<Cursor>,
    pub(crate) skip_unreadable: bool,
}

impl<M> Query<M> {
    /// The documents `filter` matches, in key order, 100 to a page.
    pub fn new(filter: Filter<M>) -> Self {
        Query {
            filter,
            order: None,
            limit: 100,
            after: None,
            skip_unreadable: false,
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

    /// Documents that match but do not read as the model (a field of the wrong type another program
    /// wrote, a migration step that fails, a broken rule with `validate_on_read`) are handed back in
    /// [`Page::unreadable`], each with its key and error, rather than failing the page. They keep their
    /// place in the order and count toward the page's [`limit`](Query::limit), so the pages after are the
    /// same either way. Without it, such a document fails the query with its error, which names its key
    /// and, for a value that does not read, the field.
    ///
    /// ```
    /// # use docmodel::{DocModel, Error, Filter, Query, Repo, store::{MemoryStore, Store}};
    /// #[derive(Debug, serde::Serialize, serde::Deserialize, DocModel)]
    /// #[docmodel(type = "country", schema = "1.0", key = "country::{code}")]
    /// struct Country { code: String, gdp: u64 }
    /// # pollster::block_on(async {
    /// let store = MemoryStore::new();
    /// let countries = Repo::<Country>::new(&store);
    /// countries.insert(Country { code: "fr".into(), gdp: 3_000 }).await?;
    /// // Another program wrote this one.
    /// store.insert("country::xx", br#"{"_type":"country","_schema":"1.0","code":"xx","gdp":"big"}"#).await?;
    ///
    /// let err = countries.find(&Query::new(Filter::all())).await.unwrap_err();
    /// assert!(matches!(&err, Error::Codec { key: Some(key), field: Some(field), .. }
    ///     if key == "country::xx" && field == "gdp"));
    ///
    /// let page = countries.find(&Query::new(Filter::all()).skip_unreadable()).await?;
    /// assert_eq!(page.docs.len(), 1);
    /// assert_eq!(page.unreadable[0].key, "country::xx");
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn skip_unreadable(mut self) -> Self {
        self.skip_unreadable = true;
        self
    }

    /// The order value and key the page starts after, read from its cursor; `None` for the first page.
    pub(crate) fn after_position(&self) -> Result<Option<(Value, String)>, crate::Error> {
        self.after
            .as_ref()
            .map(|cursor| cursor.position().map_err(crate::Error::codec))
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
            skip_unreadable: self.skip_unreadable,
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
            .field("skip_unreadable", &self.skip_unreadable)
            .finish()
    }
}

/// Where the next page starts: opaque, from [`Page::next`], handed to [`Query::after`]. Its text
/// ([`Cursor::as_str`], [`Cursor::from_text`]) can travel through a URL or a client and back.
///
/// Its text, and so its `Debug`, holds the last document's key and the value the page is ordered by: values
/// the tracing feature's spans hide unless `Repo::trace_values` (feature `tracing`) is on.
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
    /// The documents of the page that did not read as the model, in the query's order, with
    /// [`Query::skip_unreadable`] (always empty without it).
    pub unreadable: Vec<Unreadable>,
}

/// A document a query matched that does not read as the model: its key and why
/// ([`Query::skip_unreadable`]).
#[derive(Debug)]
#[non_exhaustive]
pub struct Unreadable {
    /// The document's key.
    pub key: String,
    /// What reading it gave: an [`Error::Codec`](crate::Error::Codec) naming the field, a failed
    /// migration, a broken rule.
    pub error: crate::Error,
}

impl Unreadable {
    pub(crate) fn new(key: &str, error: crate::Error) -> Self {
        Unreadable {
            key: key.to_owned(),
            error,
        }
    }
}

impl<T: DocModel + fmt::Debug> fmt::Debug for Page<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Page")
            .field("docs", &self.docs)
            .field("next", &self.next)
            .field("older_schema", &self.older_schema)
            .field("unreadable", &self.unreadable)
            .finish()
    }
}
