//! [`Child`]: a model whose documents are the items of a parent document, each its own document (the CouchDB
//! guide's "document per item" design), and [`Repo::children`], which lists a parent's items in their order.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::repo::Pages;
use crate::store::Store;
use crate::{DocModel, Field, Filter, Key, Query, Ref, Repo};

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
