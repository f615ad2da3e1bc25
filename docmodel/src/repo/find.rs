//! [`Repo::find`] and [`Repo::count`]: the model's documents that a filter matches, read through an index's
//! entries or the store's scan of the model's key range; [`Repo::ensure_indexes`].

use crate::trace::operation;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::claims::{Claims, Expect};
use super::keys::Source;
use super::{Partition, Repo, indexes};
use crate::find::{
    Cursor, Direction, Filter, Page, Query, Unreadable, at, collate, envelope_path, owns,
    stored_document, stored_projection, stored_schema,
};
use crate::keyshape::{SCHEMA_INDEX, index_entry_prefix, index_marker};
use crate::store::{KeyPages, Store, Stored};
use crate::{Doc, DocModel, EnvelopeField, Error, Key};

/// How many documents one store read of a find asks for.
const BATCH: usize = 256;

/// A document the filter matched: its order value, its key, and what the store holds, read as the model only
/// if it falls on the page.
struct Found<T> {
    order: Value,
    key: Key<T>,
    stored: Stored,
}

impl<T, S> Repo<T, S>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    /// One page of the model's documents that `query` matches, in its order (then by key), after its cursor.
    ///
    /// Only documents of the model are looked at: keys of the model's key template (so never revision copies,
    /// lookups or counters) holding the model's `_type`, or one it adopts as a read by key does (one of its
    /// `aliases`, none with `untyped`; one without a schema is at its `unversioned` version). The filter is matched against each document as
    /// stored; [`Page::older_schema`] counts those stored at an older schema, which a filter on the current
    /// fields may miss. Each document returned is migrated to the current schema, as [`Repo::get`] does.
    ///
    /// When the filter fixes the leading fields of one of the model's indexes with `eq` (at its top, or in one
    /// `and`), and perhaps bounds the next with a range, and [`Repo::ensure_indexes`] has built that index, it
    /// reads the index's entries and the documents they name (see [index entries](crate::Repo#index-entries));
    /// otherwise the model's key range (the keys starting as its key template does, up to its first part).
    /// Both go through the store's scan ([`Capabilities::scan`](crate::store::Capabilities)), read documents
    /// in batches of one `get_many` each, and sort the matches in memory; documents of models under other key
    /// prefixes do not slow it. A matched document of the page that cannot be read (say, of a newer major
    /// schema, or with a field of the wrong type) fails the query with its error, naming its key and the field,
    /// unless the query hands such documents back in [`Page::unreadable`] ([`Query::skip_unreadable`]); one
    /// outside the page does not fail it.
    ///
    /// On a store with a query language of its own ([`Capabilities::query`](crate::store::Capabilities)),
    /// the store selects candidates, sorts and pages, and the repository matches each candidate against the
    /// filter: on CouchDB, one or two `_find` requests (Mango) through the indexes [`Repo::ensure_indexes`]
    /// creates, which must have run (a find before fails with an [`Error::Store`] saying so), more when
    /// candidates the filter turns down leave the page short, and at least two to count the documents at
    /// another schema, through an index on it. The server narrows by the conditions on single fields at the
    /// top of the filter or its top-level `and` (equalities, ranges over values that are not strings, `in_`,
    /// `exists`, `missing`, `starts_with`, `contains`); `or`, `not` and ranges over strings (which CouchDB
    /// collates by Unicode) are matched by the repository only. CouchDB sorts only through an index, so a query ordered by a field needs an index on that field
    /// alone (`#[docmodel(index = "total_cents")]`; `_created` and `_modified` have theirs), or one over
    /// fields the filter fixes with `eq` and then that field (`index = "customer_no, placed_at"`, which reads
    /// only the fixed values' rows and is taken first); without either it fails naming the field.
    ///
    /// On a store with neither a scan nor a query language it fails with a permanent [`Error::Store`].
    ///
    /// ```
    /// # use docmodel::{DocModel, Query, Repo, store::MemoryStore};
    /// # #[derive(Debug, serde::Serialize, serde::Deserialize, DocModel)]
    /// # #[serde(rename_all = "camelCase")]
    /// # #[docmodel(type = "order", schema = "1.0", key = "order::{order_id}")]
    /// # struct Order { #[docmodel(get)] order_id: u64, customer_no: u64 }
    /// # pollster::block_on(async {
    /// let orders = Repo::<Order>::new(MemoryStore::new());
    /// for (order_id, customer_no) in [(1, 12345), (2, 777), (3, 12345), (4, 12345)] {
    ///     orders.insert(Order { order_id, customer_no }).await?;
    /// }
    /// let fields = Order::fields();
    /// let query = Query::new(fields.customer_no.eq(12345)).limit(2);
    /// let first = orders.find(&query).await?;
    /// let ids: Vec<u64> = first.docs.iter().map(|doc| doc.order_id()).collect();
    /// assert_eq!(ids, [1, 3]);
    /// let second = orders.find(&query.after(first.next.unwrap())).await?;
    /// assert_eq!(second.docs[0].order_id(), 4);
    /// assert_eq!(second.next, None);
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn find(&self, query: &Query<T>) -> Result<Page<T>, Error> {
        operation!(
            self,
            "find",
            T,
            crate::trace::Subject::Query(query.filter.node()),
            {
                if let Some(language) = self.store.capabilities().query {
                    return self.find_native(language, query).await;
                }
                let after = query.after_position()?;
                let direction = query
                    .order
                    .as_ref()
                    .map_or(Direction::Ascending, |(_, direction)| *direction);
                let order = |a: &Value, a_key: &str, b: &Value, b_key: &str| {
                    let order = collate(a, b).then_with(|| a_key.cmp(b_key));
                    match direction {
                        Direction::Ascending => order,
                        Direction::Descending => order.reverse(),
                    }
                };
                let in_order = |a: &Found<T>, b: &Found<T>| {
                    order(&a.order, a.key.as_str(), &b.order, b.key.as_str())
                };
                let (found, older_schema) = self
                    .matching(
                        query,
                        |value: &Value| match &query.order {
                            None => Value::Null,
                            Some((path, _)) => at(value, path).cloned().unwrap_or(Value::Null),
                        },
                        |item: &Found<T>| {
                            after.as_ref().is_none_or(|(value, key)| {
                                order(&item.order, item.key.as_str(), value, key).is_gt()
                            })
                        },
                        in_order,
                    )
                    .await?;
                let mut found = found;
                let more = found.len() > query.limit;
                found.truncate(query.limit);
                let next = match found.last() {
                    Some(last) if more => Some(Cursor::new(&last.order, last.key.as_str())),
                    _ => None,
                };
                // Only the page is read as the model: one that does not read fails the query only if it falls
                // on the page (`page_of`), as on a store that pages for the repository.
                let read = found.into_iter().map(|item| {
                    let doc = Self::from_stored(&item.key, item.stored).and_then(Doc::checked_read);
                    (item.key.as_str().to_owned(), doc)
                });
                let (docs, unreadable) = page_of(query, read)?;
                Ok(Page {
                    docs,
                    next,
                    older_schema,
                    unreadable,
                })
            }
        )
    }

    /// Every page of `query`, one [`Repo::find`] each, from its cursor on.
    ///
    /// ```
    /// # use docmodel::{DocModel, Filter, Query, Repo, store::MemoryStore};
    /// # #[derive(Debug, serde::Serialize, serde::Deserialize, DocModel)]
    /// # #[docmodel(type = "order", schema = "1.0", key = "order::{id}")]
    /// # struct Order { id: u64 }
    /// # pollster::block_on(async {
    /// let orders = Repo::<Order>::new(MemoryStore::new());
    /// for id in 1..=5 {
    ///     orders.insert(Order { id }).await?;
    /// }
    /// let mut pages = orders.pages(Query::new(Filter::all()).limit(2));
    /// let mut sizes = Vec::new();
    /// while let Some(page) = pages.next().await? {
    ///     sizes.push(page.docs.len());
    /// }
    /// assert_eq!(sizes, [2, 2, 1]);
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn pages(&self, query: Query<T>) -> Pages<'_, T, S> {
        Pages {
            repo: self,
            query: Some(query),
        }
    }

    /// How many of the model's documents `filter` matches (as [`Repo::find`] looks at them).
    pub async fn count(&self, filter: &Filter<T>) -> Result<u64, Error> {
        operation!(
            self,
            "count",
            T,
            crate::trace::Subject::Query(filter.node()),
            {
                if let Some(language) = self.store.capabilities().query {
                    return self.count_native(language, filter).await;
                }
                let mut count = 0;
                self.visit(filter, None, |_, _, _| {
                    count += 1;
                    Ok(())
                })
                .await?;
                Ok(count)
            }
        )
    }

    /// The first `query.limit + 1` of the model's documents `filter` matches after the query's cursor
    /// (`after_cursor`), in the order `in_order` gives, each with the value `order` takes from it; and how
    /// many of the model's documents are stored at an older schema. Memory holds at most twice the page
    /// (the matches are cut back to the page's each time they reach twice it), whatever the store holds.
    async fn matching(
        &self,
        query: &Query<T>,
        order: impl Fn(&Value) -> Value,
        after_cursor: impl Fn(&Found<T>) -> bool,
        in_order: impl Fn(&Found<T>, &Found<T>) -> std::cmp::Ordering,
    ) -> Result<(Vec<Found<T>>, usize), Error> {
        let keep = query.limit.saturating_add(1);
        let mut found: Vec<Found<T>> = Vec::new();
        let order_path = query.order.as_ref().map(|(path, _)| &**path);
        let older = self
            .visit(&query.filter, order_path, |key, stored, value| {
                let item = Found {
                    order: order(value),
                    key: key.clone(),
                    stored,
                };
                if after_cursor(&item) {
                    found.push(item);
                    if found.len() >= keep.saturating_mul(2) {
                        found.sort_by(&in_order);
                        found.truncate(keep);
                    }
                }
                Ok(())
            })
            .await?;
        found.sort_by(&in_order);
        found.truncate(keep);
        Ok((found, older))
    }

    /// Calls `matched` with each of the model's documents `filter` matches (its key, what the store holds,
    /// its JSON), and returns how many of the model's documents are stored at an older schema.
    async fn visit(
        &self,
        filter: &Filter<T>,
        order: Option<&[&'static str]>,
        mut matched: impl FnMut(&Key<T>, crate::store::Stored, &Value) -> Result<(), Error>,
    ) -> Result<usize, Error> {
        if let Some(reason) = filter.invalid() {
            return Err(Error::codec(
                <serde_json::Error as serde::ser::Error>::custom(reason),
            ));
        }
        if !self.store.capabilities().scan {
            return Err(Error::store_with(
                crate::StoreErrorKind::Unsupported,
                T::TYPE,
                format!(
                    "finding `{}` documents needs a store that can list keys (`Capabilities::scan`), and this \
                     one cannot",
                    T::TYPE
                ),
            ));
        }
        let (mut keys, mut older) = match self.index_plan(filter).await? {
            Some(plan) => {
                crate::trace::event!(
                    tracing::Level::DEBUG,
                    { docmodel.index = plan.name },
                    "reading an index"
                );
                (
                    Source::Given(self.indexed_keys(&plan).await?),
                    Some(self.count_older().await?),
                )
            }
            None => {
                crate::trace::event!(
                    tracing::Level::DEBUG,
                    "no index serves the filter: reading the model's keys"
                );
                (
                    Source::Listed(self.model_keys("finding", "", None, Partition::WHOLE)?),
                    None,
                )
            }
        };
        let type_path = envelope_path::<T>(EnvelopeField::Type);
        let schema_path = envelope_path::<T>(EnvelopeField::Schema);
        let copy_path = envelope_path::<T>(EnvelopeField::CopyOf);
        let counting = older.is_none();
        // What the filter and the order read of each document: only those members are built.
        let reads = reads(filter, order);
        while let Some(batch) = keys.next(BATCH).await? {
            let texts: Vec<&str> = batch.iter().map(Key::as_str).collect();
            for (key, stored) in batch.iter().zip(self.store.get_many(&texts).await?) {
                let Some(stored) = stored else { continue };
                let value = match &reads {
                    Some(reads) => stored_projection::<T>(&stored.bytes, reads),
                    None => stored_document::<T>(&stored.bytes),
                };
                let Some(value) = value else {
                    // Not JSON: not a document of this model (`get` would say so).
                    continue;
                };
                // A revision copy under a key of the model's shape (it cannot be the model's own) is not
                // one of its documents, as on CouchDB.
                if !owns::<T>(&value, &type_path) || at(&value, &copy_path).is_some() {
                    continue;
                }
                let schema = stored_schema::<T>(&value, &schema_path);
                if counting && schema.is_some_and(|schema| schema < T::SCHEMA) {
                    *older.get_or_insert(0) += 1;
                }
                if filter.matches(&value) {
                    matched(key, stored, &value)?;
                }
            }
        }
        Ok(older.unwrap_or(0))
    }

    /// The index that serves `filter`, if one narrows it and its entries are complete.
    async fn index_plan(&self, filter: &Filter<T>) -> Result<Option<indexes::Plan>, Error> {
        let Some(plan) = indexes::plan::<T>(filter.node()) else {
            return Ok(None);
        };
        let kept = indexes::all::<T>();
        let needed: Vec<&indexes::Kept> = kept
            .iter()
            .filter(|index| index.name == plan.name || index.name == SCHEMA_INDEX)
            .collect();
        let markers: Vec<String> = needed
            .iter()
            .map(|index| index_marker::<T>(index.name))
            .collect();
        let texts: Vec<&str> = markers.iter().map(String::as_str).collect();
        let found = self.store.get_many(&texts).await?;
        let complete = needed
            .iter()
            .zip(&found)
            .all(|(index, marker)| index.is_complete(marker.as_ref().map(|stored| &*stored.bytes)));
        Ok(complete.then_some(plan))
    }

    /// The keys of the documents whose entries `plan` reads, in key order, each once.
    async fn indexed_keys(&self, plan: &indexes::Plan) -> Result<Vec<Key<T>>, Error> {
        let mut keys: Vec<Key<T>> = Vec::new();
        let mut entries = KeyPages::range(&self.store, &plan.start, &plan.end);
        while let Some(page) = entries.next_page().await? {
            keys.extend(
                page.iter()
                    .filter_map(|entry| indexes::document_key(entry, plan.prefix_len, plan.fields))
                    .filter_map(|key| Key::parse(key).ok()),
            );
        }
        keys.sort_unstable_by(|a, b| a.as_str().cmp(b.as_str()));
        keys.dedup_by(|a, b| a.as_str() == b.as_str());
        Ok(keys)
    }

    /// How many of the model's documents are stored below the current schema, read through the schema
    /// index: only those documents are read.
    async fn count_older(&self) -> Result<usize, Error> {
        let keys = self.indexed_keys(&indexes::older_schema::<T>()).await?;
        let type_path = envelope_path::<T>(EnvelopeField::Type);
        let schema_path = envelope_path::<T>(EnvelopeField::Schema);
        let mut older = 0;
        for batch in keys.chunks(BATCH) {
            let texts: Vec<&str> = batch.iter().map(Key::as_str).collect();
            for stored in self.store.get_many(&texts).await?.into_iter().flatten() {
                // An entry left by a crash names a document that has moved on: it is read, not counted.
                let Some(value) = stored_document::<T>(&stored.bytes) else {
                    continue;
                };
                let schema = stored_schema::<T>(&value, &schema_path);
                if owns::<T>(&value, &type_path) && schema.is_some_and(|schema| schema < T::SCHEMA)
                {
                    older += 1;
                }
            }
        }
        Ok(older)
    }

    /// Builds the entries of every index of the model whose entries are not complete (one declared since
    /// the documents were written), then marks it complete, so that [`Repo::find`] reads it; an index whose
    /// entries are complete is left as it is. Call it once when a program starts, as on CouchDB.
    ///
    /// On a store with a query language (CouchDB) it creates the model's indexes there: one over its type,
    /// one over its type and schema, one over its type and each of `_created` and `_modified` it keeps (to
    /// order by), and one over its type and each declared index's fields, each limited to
    /// the model's documents; creating one that exists changes nothing. Run it before the first find, and
    /// again when a declared index changes (a changed index gets a new name; the old one stays until removed
    /// by hand).
    ///
    /// On a store that can list keys (MemoryStore, Redb), the repository keeps an index as entries (see
    /// [index entries](crate::Repo#index-entries)): every insert, save and removal keeps them, whether or not this
    /// was called, but a find reads an index only once this has marked it complete. Building reads every
    /// document of the model once and writes its missing entries; concurrent writers keep their own.
    /// Documents written by a program that did not declare the index are not in it until this runs again
    /// after them: declare indexes in every program that writes the model.
    ///
    /// ```
    /// # use docmodel::{DocModel, Query, Repo, store::MemoryStore};
    /// # #[derive(Debug, serde::Serialize, serde::Deserialize, DocModel)]
    /// # #[docmodel(type = "order", schema = "1.0", key = "order::{order_id}", index = "customer_no")]
    /// # struct Order { #[docmodel(get)] order_id: u64, customer_no: u64 }
    /// # pollster::block_on(async {
    /// let store = MemoryStore::new();
    /// let orders = Repo::<Order>::new(&store);
    /// orders.ensure_indexes().await?;
    /// orders.insert(Order { order_id: 1, customer_no: 12345 }).await?;
    /// let found = orders.find(&Query::new(Order::fields().customer_no.eq(12345))).await?;
    /// assert_eq!(found.docs.len(), 1);
    /// println!("{:?}", store.keys());
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn ensure_indexes(&self) -> Result<(), Error> {
        operation!(self, "ensure_indexes", T, {
            if let Some(language) = self.store.capabilities().query {
                return self.ensure_native(language).await;
            }
            let kept = indexes::all::<T>();
            if kept.is_empty() || !self.store.capabilities().scan {
                return Ok(());
            }
            let markers: Vec<String> = kept
                .iter()
                .map(|index| index_marker::<T>(index.name))
                .collect();
            let texts: Vec<&str> = markers.iter().map(String::as_str).collect();
            let found = self.store.get_many(&texts).await?;
            let incomplete: Vec<(&indexes::Kept, &String, Option<Stored>)> = kept
                .iter()
                .zip(&markers)
                .zip(found)
                .filter(|((index, _), marker)| {
                    !index.is_complete(marker.as_ref().map(|stored| &*stored.bytes))
                })
                .map(|((index, marker), stored)| (index, marker, stored))
                .collect();
            if incomplete.is_empty() {
                return Ok(());
            }
            let prefixes: Vec<String> = incomplete
                .iter()
                .map(|(index, _, _)| index_entry_prefix::<T>(index.name))
                .collect();
            let mut missing: Vec<(Key<T>, Vec<String>)> = Vec::new();
            self.visit(&Filter::all(), None, |key, stored, _| {
                let entries: Vec<String> = indexes::entry_keys::<T>(&stored.bytes, key.as_str())
                    .into_iter()
                    .filter(|entry| prefixes.iter().any(|prefix| entry.starts_with(prefix)))
                    .collect();
                missing.push((key.clone(), entries));
                Ok(())
            })
            .await?;
            for (key, entries) in &missing {
                // Held entries are written again, new ones inserted; a failure leaves the index incomplete
                // (unread) and this can run again.
                let aux = self.aux();
                let mut claims = Claims::<T, _>::new(&aux, key.as_str());
                claims.claim([], entries, Expect::Any).await?;
                claims.keep();
            }
            for (index, marker, stored) in incomplete {
                let document = index.marker_document();
                match stored {
                    None => match self.aux().insert(marker, &document).await {
                        Ok(_) | Err(Error::AlreadyExists { .. }) => {}
                        Err(err) => return Err(err),
                    },
                    Some(stored) => {
                        self.aux().replace(marker, &document, &stored.cas).await?;
                    }
                }
            }
            Ok(())
        })
    }
}

/// The pages of a query, from [`Repo::pages`]: `while let Some(page) = pages.next().await? { ... }`.
pub struct Pages<'r, T, S> {
    repo: &'r Repo<T, S>,
    /// The query of the next page; `None` after the last.
    query: Option<Query<T>>,
}

impl<T, S> Pages<'_, T, S>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    /// The next page, or `None` after the last one. A failed page can be asked for again.
    pub async fn next(&mut self) -> Result<Option<Page<T>>, Error> {
        let Some(query) = self.query.take() else {
            return Ok(None);
        };
        let page = match self.repo.find(&query).await {
            Ok(page) => page,
            Err(err) => {
                self.query = Some(query);
                return Err(err);
            }
        };
        self.query = page.next.clone().map(|cursor| query.after(cursor));
        Ok(Some(page))
    }
}

impl<T, S> std::fmt::Debug for Pages<'_, T, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pages")
            .field("query", &self.query)
            .finish_non_exhaustive()
    }
}

/// The top-level names a find reads of each document: the first names of its filter's paths and of its
/// order's; `None` when one of them is the document itself.
fn reads<T>(filter: &Filter<T>, order: Option<&[&'static str]>) -> Option<Vec<&'static str>> {
    let mut names = Vec::new();
    if let Some(path) = order {
        names.push(*path.first()?);
    }
    filter.top_level_names(&mut names)?;
    Some(names)
}

/// A page's documents, in order, and those that did not read: handed back with
/// [`Query::skip_unreadable`], the query's error otherwise (the first in the page's order).
pub(super) fn page_of<T>(
    query: &Query<T>,
    read: impl Iterator<Item = (String, Result<Doc<T>, Error>)>,
) -> Result<(Vec<Doc<T>>, Vec<Unreadable>), Error> {
    let mut docs = Vec::new();
    let mut unreadable = Vec::new();
    for (key, doc) in read {
        match doc {
            Ok(doc) => docs.push(doc),
            Err(err) if query.skip_unreadable => {
                crate::trace::event!(tracing::Level::WARN, {
                    docmodel.key = %crate::trace::Private(&key),
                    reason = %crate::trace::ErrorText::of(&err),
                }, "a document the query matched does not read: skipped");
                unreadable.push(Unreadable::new(&key, err));
            }
            Err(err) => return Err(err),
        }
    }
    Ok((docs, unreadable))
}
