//! [`Child`]: a model whose documents are the items of a parent document, each its own document (the CouchDB
//! guide's "document per item" design); [`Repo::children`], which lists a parent's items in their order; and
//! [`Repo::remove_with_items`], which removes a document with its items, leaving none without its parent.

use std::future::Future;
use std::pin::Pin;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::keyshape::{removal_marker, removal_prefix};
use crate::repo::Pages;
use crate::store::{KeyPages, Store};
use crate::{DocModel, Error, Field, Filter, Key, Query, Ref, Repo};

/// A model whose documents each belong to a parent document: one field refers to the parent
/// (`#[docmodel(parent)]`, a [`Ref`], or an `Option<Ref>` where the items nest and the top level has none),
/// and another may give the item's place among its siblings (`#[docmodel(order)]`, usually an
/// [`OrderKey`](crate::OrderKey)). Implemented by the derive.
///
/// Adding or removing an item is adding or removing a document, which never conflicts with another
/// replica's edits of other items. Unless the model declares them itself, the derive declares an index over
/// the parent field and then the order field (the parent field alone without one), through which
/// [`Repo::children`] reads only the parent's items, in their order, on every store; and one over the order
/// field alone, which CouchDB sorts the items of several parents through ([`Repo::children_of`],
/// [`Repo::roots`]). [`Repo::ensure_indexes`] builds them.
///
/// ```
/// use docmodel::{Child, DocModel, OrderKey, Ref, Repo, store::MemoryStore};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Debug, Serialize, Deserialize, DocModel)]
/// #[docmodel(type = "folder", schema = "1.0", key = "folder::{id}")]
/// struct Folder {
///     id: u64,
///     name: String,
/// }
///
/// #[derive(Debug, Serialize, Deserialize, DocModel)]
/// #[docmodel(type = "bookmark", schema = "1.0", key = "bookmark::{id}")]
/// struct Bookmark {
///     id: u64,
///     #[docmodel(parent)]
///     folder: Ref<Folder>,
///     #[docmodel(order)]
///     place: OrderKey,
///     url: String,
/// }
///
/// # pollster::block_on(async {
/// let store = MemoryStore::new();
/// let bookmarks = Repo::<Bookmark>::new(&store);
/// let work = Folder::key(1);
/// let first = OrderKey::first();
/// let last = first.after();
/// for (id, place, url) in [
///     (1, last.clone(), "https://couchdb.apache.org"),
///     (2, first.clone(), "https://www.rust-lang.org"),
///     (3, OrderKey::between(&first, &last)?, "https://docs.rs"),
/// ] {
///     let folder = Ref::new(work.clone());
///     bookmarks.insert(Bookmark { id, folder, place, url: url.into() }).await?;
/// }
/// bookmarks.ensure_indexes().await?;
///
/// let mut pages = bookmarks.children(&work);
/// let mut urls = Vec::new();
/// while let Some(page) = pages.next().await? {
///     urls.extend(page.docs.iter().map(|doc| doc.url.clone()));
/// }
/// assert_eq!(urls, ["https://www.rust-lang.org", "https://docs.rs", "https://couchdb.apache.org"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
pub trait Child: DocModel {
    /// The parent's model.
    type Parent: DocModel;

    /// The key of the parent this document belongs to; `None` for an item at the top of nested items
    /// (a parent field of type `Option<Ref<_>>` holding `None`).
    fn parent_key(&self) -> Option<&Key<Self::Parent>>;

    /// The query of the items of any of `parents` (none: matches nothing), in their order, then by key:
    /// [`Repo::children`] and [`Repo::children_of`] run it, with pages of 100; [`Query::limit`] sets another
    /// size, and [`Repo::pages`] runs it then.
    fn children_query(parents: &[Key<Self::Parent>]) -> Query<Self>
    where
        Self: Sized;

    /// The query of the items at the top of nested items, those whose parent field holds `None` (or lacks
    /// it), in their order, then by key; a parent field of type `Ref<_>` has none.
    fn roots_query() -> Query<Self>
    where
        Self: Sized;
}

/// The type of a `#[docmodel(parent)]` field: what the derive's [`Child`] impl asks of it. Implemented for
/// `Ref<P>` and `Option<Ref<P>>`.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`#[docmodel(parent)]` is on a field of type `{Self}`",
    label = "a parent field is a `Ref<Parent>`, or an `Option<Ref<Parent>>` where items nest",
    note = "the field refers to the document the item belongs to, by its key: `folder: Ref<Folder>`"
)]
pub trait ParentField: Sized {
    /// The parent's model.
    type Parent: DocModel;

    /// The key the field refers to.
    fn parent_key(&self) -> Option<&Key<Self::Parent>>;

    /// The filter matching documents whose field at `field` refers to one of `parents`.
    fn among<M: DocModel>(field: &Field<M, Self>, parents: &[Key<Self::Parent>]) -> Filter<M>;

    /// The filter matching documents whose field at `field` refers to no parent.
    fn none<M: DocModel>(field: &Field<M, Self>) -> Filter<M>;
}

impl<P: DocModel> ParentField for Ref<P> {
    type Parent = P;

    fn parent_key(&self) -> Option<&Key<P>> {
        Some(self.key())
    }

    fn among<M: DocModel>(field: &Field<M, Self>, parents: &[Key<P>]) -> Filter<M> {
        match parents {
            [parent] => field.eq(Ref::new(parent.clone())),
            _ => field.in_(parents.iter().cloned().map(Ref::new)),
        }
    }

    fn none<M: DocModel>(field: &Field<M, Self>) -> Filter<M> {
        // A `Ref` always refers to a parent: the empty `in_` matches nothing.
        field.in_(std::iter::empty::<Ref<P>>())
    }
}

impl<P: DocModel> ParentField for Option<Ref<P>> {
    type Parent = P;

    fn parent_key(&self) -> Option<&Key<P>> {
        self.as_ref().map(Ref::key)
    }

    fn among<M: DocModel>(field: &Field<M, Self>, parents: &[Key<P>]) -> Filter<M> {
        match parents {
            [parent] => field.eq(Some(Ref::new(parent.clone()))),
            _ => field.in_(parents.iter().cloned().map(|key| Some(Ref::new(key)))),
        }
    }

    fn none<M: DocModel>(field: &Field<M, Self>) -> Filter<M> {
        field.is_null().or(field.missing())
    }
}

impl<T, S> Repo<T, S>
where
    T: Child + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    /// The items of `parent`, in their order (then by key), a page of 100 at a time: [`Repo::pages`] of
    /// [`Child::children_query`]. Each page is a [`find`](Repo::find) through the index over the parent and
    /// order fields where [`Repo::ensure_indexes`] has built it (on CouchDB, which sorts through an index, it
    /// must have), reading only this parent's items.
    pub fn children(&self, parent: &Key<T::Parent>) -> Pages<'_, T, S> {
        self.pages(T::children_query(std::slice::from_ref(parent)))
    }

    /// The items of every parent in `parents`, a page of 100 at a time: one listing for a whole level of
    /// nested items, however many parents it has. They come in their order across the parents (then by
    /// key), so each parent's items, taken apart by [`Child::parent_key`], are in their order.
    pub fn children_of(&self, parents: &[Key<T::Parent>]) -> Pages<'_, T, S> {
        self.pages(T::children_query(parents))
    }

    /// The items at the top of nested items (their parent field `None`), in their order, a page of 100 at a
    /// time: where listing a tree level by level starts.
    pub fn roots(&self) -> Pages<'_, T, S> {
        self.pages(T::roots_query())
    }
}

/// The future of a removal of items ([`DocModel::remove_items`]), boxed: a model's items may be of its own
/// model, or hold items of their own, to any depth.
#[doc(hidden)]
pub type Removal<'a> = Pin<Box<dyn Future<Output = Result<(), Error>> + Send + 'a>>;

/// How many items one read of a removal lists.
const ITEMS_PAGE: usize = 100;

/// Removes every item of model `C` of the document under `parent` in `store`, each with its own items:
/// what the derive's [`DocModel::remove_items`] runs for each model `#[docmodel(items(...))]` names. Reads
/// the parent's first page of items again until there is none, so that an item another writer adds
/// meanwhile is removed too. `above` holds the marks of the documents being removed above `parent`, its own
/// last.
#[doc(hidden)]
pub async fn remove_items<C, S>(
    store: &S,
    parent: &Key<C::Parent>,
    above: &[String],
) -> Result<(), Error>
where
    C: Child + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    let items = Repo::<C>::new(store);
    // An item that does not read (of a newer schema, say) fails the removal with its error, naming it: the
    // parent stays, marked, until it reads.
    let first = C::children_query(std::slice::from_ref(parent)).limit(ITEMS_PAGE);
    loop {
        let page = items.find(&first).await?;
        if page.docs.is_empty() {
            return Ok(());
        }
        for doc in &page.docs {
            remove_tree::<C, S>(store, doc.key(), above).await?;
        }
    }
}

/// Removes the document under `key` with its items, and theirs: marks it ([`removal_marker`]), removes its
/// items, then it, then the mark. A document already gone, or a mark already there (a removal a failure
/// stopped), is no error: this finishes that removal. A document whose mark is in `above` is an ancestor of
/// itself (parents in a cycle): it is removed alone, its items being removed by the run above.
async fn remove_tree<T, S>(store: &S, key: &Key<T>, above: &[String]) -> Result<(), Error>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    let repo = Repo::<T>::new(store);
    if !T::HAS_ITEMS {
        return gone(repo.remove(key).await);
    }
    let marker = removal_marker::<T>(key.as_str());
    if above.contains(&marker) {
        return gone(repo.remove(key).await);
    }
    let mark = serde_json::to_vec(&serde_json::json!({ "removing": key.as_str() }))
        .map_err(Error::codec)?;
    match store.insert(&marker, &mark).await {
        Ok(_) | Err(Error::AlreadyExists { .. }) => {}
        Err(err) => return Err(err),
    }
    let mut chain = above.to_vec();
    chain.push(marker.clone());
    T::remove_items(store, key, &chain).await?;
    gone(repo.remove(key).await)?;
    gone(store.remove(&marker, None).await)
}

/// `result`, with a document that is not there taken as removed.
fn gone(result: Result<(), Error>) -> Result<(), Error> {
    match result {
        Err(Error::NotFound { .. }) => Ok(()),
        other => other,
    }
}

impl<T, S> Repo<T, S>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    /// Removes the document under `key` with its items (the models `#[docmodel(items(...))]` names, each a
    /// [`Child`] of this model), and theirs, so that no item is left whose parent is gone: the guide's "care
    /// is needed when deleting a list or sub-list, to ensure that all associated bookmarks are also deleted,
    /// otherwise they will become orphaned".
    ///
    /// The document is marked first (a marker document, `removing::<type>::<key>`), then its items are
    /// removed, each with its own items the same way, then the document, then the mark. A removal a failure
    /// stops leaves the document and its mark, and some items: calling it again finishes it, as
    /// [`Repo::finish_removals`] does for every mark. It is never left without its document while an item
    /// of it stands. Each item is removed as [`Repo::remove`] removes a document, with its lookups and
    /// revision copies, by a repository of the item's model with the default settings. A document already
    /// gone is no error: its items are removed all the same.
    ///
    /// An item another replica adds to the document while it is removed here is not seen: after
    /// replication it is an orphan, which [`Repo::orphans`] finds on either side.
    ///
    /// Each level of items is read with [`Repo::find`] through the index over the parent field, so on
    /// CouchDB (and Couchbase) [`Repo::ensure_indexes`] of the item models must have run. On a model without
    /// items it is [`Repo::remove`], but that a document already gone is no error.
    pub async fn remove_with_items(&self, key: &Key<T>) -> Result<(), Error> {
        remove_tree::<T, _>(self.store(), key, &[]).await
    }

    /// Finishes every removal with items ([`Repo::remove_with_items`]) that a failure stopped: for each mark
    /// of this model left in the store, removes the marked document's items, the document and the mark.
    /// Returns how many it finished. Lists the marks through the store's scan
    /// ([`Capabilities::scan`](crate::store::Capabilities)); nothing to do for a model without items.
    pub async fn finish_removals(&self) -> Result<usize, Error> {
        if !T::HAS_ITEMS {
            return Ok(0);
        }
        let prefix = removal_prefix::<T>();
        let mut marks = Vec::new();
        let mut listing = KeyPages::prefix(self.store(), prefix.clone());
        while let Some(page) = listing.next_page().await? {
            marks.extend(page);
        }
        for mark in &marks {
            let key = Key::<T>::parse(&mark[prefix.len()..])?;
            self.remove_with_items(&key).await?;
        }
        Ok(marks.len())
    }
}

impl<T, S> Repo<T, S>
where
    T: Child + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    /// The model's items whose parent document is not in the store: an item another replica added to a
    /// parent removed here (or the other way round), once the two have replicated. Reads every item of the
    /// model (a walk, [`Repo::pages`] of all of them) and their parents' keys ([`Store::get_many`], a batch
    /// per page); an item at the top of nested items (no parent) is none. What to do with them is the
    /// application's: remove them, or move them to another parent.
    pub async fn orphans(&self) -> Result<Vec<crate::Doc<T>>, Error> {
        let mut orphans = Vec::new();
        let mut pages = self.pages(Query::new(Filter::all()).limit(ITEMS_PAGE));
        while let Some(page) = pages.next().await? {
            let parents: Vec<&str> = page
                .docs
                .iter()
                .filter_map(|doc| doc.parent_key().map(Key::as_str))
                .collect();
            let found = self.store().get_many(&parents).await?;
            let mut found = found.into_iter();
            for doc in page.docs {
                if doc.parent_key().is_some() && found.next().flatten().is_none() {
                    orphans.push(doc);
                }
            }
        }
        Ok(orphans)
    }
}
