//! [`Child`]: a model whose documents are the items of a parent document, each its own document (the CouchDB
//! guide's "document per item" design); [`Repo::children`], which lists a parent's items in their order; and
//! [`Repo::remove_with_items`], which removes a document with its items, leaving none without its parent.

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
/// the parent field and then the order field, through which [`Repo::children`] reads only the parent's
/// items, in their order, on every store; one over the parent field alone, which CouchDB reads the parent's
/// items without an order value through; and one over the order field alone, which CouchDB sorts the items
/// of several parents through ([`Repo::children_of`], [`Repo::roots`]). Without an `order` field, only the
/// parent's. [`Repo::ensure_indexes`] builds them.
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

    /// Makes this document an item of `parent` (its place, if it has one, kept).
    fn set_parent(&mut self, parent: Key<Self::Parent>);

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

/// A model whose documents have items: `#[docmodel(items(Bookmark, ...))]` names the models of its items,
/// each a [`Child`] of it. Implemented by the derive; [`Repo::remove_with_items`] and
/// [`Repo::finish_removals`] need it, so that a model that forgot to declare its items does not compile
/// there rather than remove a document and leave its items.
#[diagnostic::on_unimplemented(
    message = "`{Self}` declares no items",
    label = "a removal with items needs the models of the items",
    note = "name them on the model: `#[docmodel(items(Bookmark))]`, each a `Child` whose parent is `{Self}`"
)]
pub trait Parent: DocModel {}

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

    /// Refers to `parent` from now on.
    fn set(&mut self, parent: Key<Self::Parent>);

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

    fn set(&mut self, parent: Key<P>) {
        *self = Ref::new(parent);
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

    fn set(&mut self, parent: Key<P>) {
        *self = Some(Ref::new(parent));
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

/// How many items one read of a removal lists.
const ITEMS_PAGE: usize = 100;

/// Removes every item of model `C` of the document under `parent`, each with its own items, through the
/// parent's repository's store and settings: what the derive's [`DocModel::remove_items`] runs for each
/// model `#[docmodel(items(...))]` names. Reads the parent's first page of items again until there is none,
/// so that an item another writer adds meanwhile is removed too. `above` holds the marks of the documents
/// being removed above `parent`, its own last.
#[doc(hidden)]
pub async fn remove_items<C, S>(
    parents: &Repo<C::Parent, &S>,
    parent: &Key<C::Parent>,
    above: &[String],
) -> Result<(), Error>
where
    C: Child + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    let items = parents.sibling::<C>();
    // An item that does not read (of a newer schema, say) fails the removal with its error, naming it: the
    // parent stays, marked, until it reads.
    let first = C::children_query(std::slice::from_ref(parent)).limit(ITEMS_PAGE);
    loop {
        let page = items.find(&first).await?;
        if page.docs.is_empty() {
            return Ok(());
        }
        for doc in &page.docs {
            remove_tree(&items, doc.key(), above).await?;
        }
    }
}

/// Refuses a removal with items of model `C` from a document of model `P` under `key`, before anything is
/// written ([`DocModel::check_items`], which the derive writes for each model `items(...)` names): items
/// that live in another store than their parent's (on Couchbase, another collection:
/// `#[docmodel(collection = "...")]`), as a removal with items and [`Repo::orphans`] read both through one
/// store; and items stored at an older schema than their model's, which a find by the parent field may
/// miss (one read of the items, asking for one).
#[doc(hidden)]
pub async fn check_items<P, C, S>(parents: &Repo<P, &S>, key: &Key<P>) -> Result<(), Error>
where
    P: DocModel,
    C: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    one_store::<P, C>(key.as_str())?;
    let older = parents
        .sibling::<C>()
        .find(&Query::new(Filter::all()).limit(1))
        .await?
        .older_schema;
    if older > 0 {
        return Err(Error::ItemsNotMigrated {
            key: key.as_str().to_owned(),
            items: C::TYPE,
            count: older,
            schema: C::SCHEMA_TEXT,
        });
    }
    Ok(())
}

/// Whether `items` (a parent's [`DocModel::ITEMS`]) names `item`, or names nothing: what the derive asserts,
/// at compile time, of each [`Child`] model and its parent's `items(...)`, so that a parent that lists its
/// items lists them all and a removal with items leaves none behind.
#[doc(hidden)]
pub const fn listed(items: &[&str], item: &str) -> bool {
    if items.is_empty() {
        return true;
    }
    let mut at = 0;
    while at < items.len() {
        let (a, b) = (items[at].as_bytes(), item.as_bytes());
        if a.len() == b.len() {
            let mut i = 0;
            while i < a.len() && a[i] == b[i] {
                i += 1;
            }
            if i == a.len() {
                return true;
            }
        }
        at += 1;
    }
    false
}

/// [`check_items`]' first check: the items of model `C` live in the store of their parents, of model `P`.
fn one_store<P: DocModel, C: DocModel>(key: &str) -> Result<(), Error> {
    let (items, parents) = (C::COLLECTION, P::COLLECTION);
    if items == parents {
        return Ok(());
    }
    let name = |collection: Option<&str>| {
        collection.map_or("the store's own collection".to_owned(), |c| {
            format!("collection `{c}`")
        })
    };
    Err(Error::store_with(
        crate::StoreErrorKind::Unsupported,
        key,
        format!(
            "the `{}` items live in {}, their `{}` parents in {}: a removal with items and \
             `Repo::orphans` read both through one store, so they must share a collection",
            C::TYPE,
            name(items),
            P::TYPE,
            name(parents)
        ),
    ))
}

/// What a removal mark holds: the key of the document being removed, and when that document was created
/// (`null` if the model keeps no `_created`, or the document was gone): a mark [`Repo::finish_removals`]
/// meets under a document created since is left from an earlier one, and does not remove it.
#[derive(Serialize, serde::Deserialize)]
struct Mark {
    removing: String,
    created: Option<i64>,
}

/// Removes the document under `key` with its items, and theirs, through `repo`: marks it
/// ([`removal_marker`]), removes its items, then it, then the mark. A document already gone, or a mark
/// already there (a removal a failure stopped), is no error: this finishes that removal. A document whose
/// mark is in `above` is an ancestor of itself (parents in a cycle): it is removed alone, its items being
/// removed by the run above.
async fn remove_tree<T, S>(repo: &Repo<T, &S>, key: &Key<T>, above: &[String]) -> Result<(), Error>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    if T::ITEMS.is_empty() {
        return gone(repo.remove(key).await);
    }
    let marker = removal_marker::<T>(key.as_str());
    if above.contains(&marker) {
        return gone(repo.remove(key).await);
    }
    T::check_items(repo, key).await?;
    let created = repo
        .get(key)
        .await?
        .and_then(|doc| doc.envelope().created.map(crate::Timestamp::as_millis));
    let mark = serde_json::to_vec(&Mark {
        removing: key.as_str().to_owned(),
        created,
    })
    .map_err(Error::codec)?;
    // The mark's durability is the repository's; it never expires.
    let options = crate::store::WriteOptions {
        expiry: crate::Expiry::Never,
        ..repo.write_options()
    };
    match repo.store().insert_with(&marker, &mark, &options).await {
        Ok(_) | Err(Error::AlreadyExists { .. }) => {}
        Err(err) => return Err(err),
    }
    let mut chain = above.to_vec();
    chain.push(marker.clone());
    T::remove_items(repo, key, &chain).await?;
    gone(repo.remove(key).await)?;
    gone(repo.store().remove_with(&marker, None, &options).await)
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
    // On the impl, not on each method: a model without items is one error at the call, not one per await.
    T: Parent + Serialize + DeserializeOwned + Send + Sync,
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
    /// [`Repo::finish_removals`] does for every mark. Each write goes through this repository's settings
    /// (durability, retries, actor; the mark never expires), the items' through a repository of their model
    /// with the same settings, each removed as [`Repo::remove`] removes a document, with its lookups and
    /// revision copies. A document already gone is no error: its items are removed all the same.
    ///
    /// It refuses, before it removes anything, items that live in another collection than their parent
    /// (a Couchbase `collection`), and items stored at an older schema than their model's (migrate them
    /// first: a find by the parent field may miss them), before it writes anything ([`DocModel::check_items`],
    /// at each document it removes, for that document's item models). An item another writer adds to the document after
    /// its items were listed, on this store or another replica, is left without its parent: [`Repo::orphans`]
    /// finds it. So does a failure after an item whose parents make a cycle was removed alone.
    ///
    /// Each level of items is read with [`Repo::find`] through the index over the parent field, so on
    /// CouchDB (and Couchbase) [`Repo::ensure_indexes`] of the item models must have run. A model without
    /// `items(...)` is no [`Parent`], and the call does not compile.
    pub async fn remove_with_items(&self, key: &Key<T>) -> Result<(), Error> {
        remove_tree(&self.over::<T>(), key, &[]).await
    }

    /// Finishes every removal with items ([`Repo::remove_with_items`]) that a failure stopped: for each mark
    /// of this model left in the store, removes the marked document's items, the document and the mark.
    /// Returns how many it finished. A mark whose document was created again since (its `_created` differs
    /// from the mark's) is left from an earlier document: only the mark is removed, and it is not counted. Each
    /// mark is tried even when one fails; the first failure is returned after the others. Lists the marks
    /// through the store's scan ([`Capabilities::scan`](crate::store::Capabilities)). A removal still running
    /// may meet it as a [`Error::Conflict`].
    pub async fn finish_removals(&self) -> Result<usize, Error> {
        let prefix = removal_prefix::<T>();
        let mut marks = Vec::new();
        let mut listing = KeyPages::prefix(self.store(), prefix.clone());
        while let Some(page) = listing.next_page().await? {
            marks.extend(page);
        }
        let repo = self.over::<T>();
        let (mut finished, mut first_error) = (0, None);
        for mark in &marks {
            // Under the prefix, but another model's (a type holding the delimiter): not this model's mark.
            let Ok(key) = Key::<T>::parse(&mark[prefix.len()..]) else {
                continue;
            };
            match self.finish(&repo, &key, mark).await {
                Ok(true) => finished += 1,
                Ok(false) => {}
                Err(err) => {
                    first_error.get_or_insert(err);
                }
            }
        }
        first_error.map_or(Ok(finished), Err)
    }

    /// [`Repo::finish_removals`] of the mark `mark` of the document under `key`: whether it finished a
    /// removal (`false` for a mark left from an earlier document, which it removes alone).
    async fn finish(&self, repo: &Repo<T, &S>, key: &Key<T>, mark: &str) -> Result<bool, Error> {
        let Some(stored) = self.store().get(mark).await? else {
            return Ok(false);
        };
        let recorded = serde_json::from_slice::<Mark>(&stored.bytes).ok();
        if let (Some(recorded), Some(doc)) = (&recorded, repo.get(key).await?) {
            let created = doc.envelope().created.map(crate::Timestamp::as_millis);
            if recorded.created != created {
                let options = crate::store::WriteOptions {
                    expiry: crate::Expiry::Never,
                    ..repo.write_options()
                };
                gone(
                    self.store()
                        .remove_with(mark, Some(&stored.cas), &options)
                        .await,
                )?;
                return Ok(false);
            }
        }
        remove_tree(repo, key, &[]).await?;
        Ok(true)
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
        one_store::<T::Parent, T>(T::TYPE)?;
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

    /// Applies `rule` to every orphan ([`Repo::orphans`]) and returns how many it removed or moved.
    ///
    /// - [`Orphans::Remove`] removes each orphan. An orphan with items of this model makes them orphans in
    ///   turn, and they are removed too, until none is left: one walk of the model per level of them, and one
    ///   more that finds none. Items of other models are left to their own repository's call.
    /// - [`Orphans::MoveTo`] makes each orphan an item of the parent named (an [`update`](Repo::update), so
    ///   a concurrent change is read again, not overwritten). That parent must be stored: otherwise nothing
    ///   is changed, and the error is [`Error::NotFound`] naming it.
    ///
    /// Another replica that settles the same orphans meanwhile settles them alike (two removals, or two
    /// moves to one parent); with different rules, the document conflicts as any document does.
    ///
    /// ```
    /// use docmodel::{Child, DocModel, Orphans, Ref, Repo, store::MemoryStore};
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Debug, Serialize, Deserialize, DocModel)]
    /// #[docmodel(type = "folder", schema = "1.0", key = "folder::{name}")]
    /// struct Folder { name: String }
    ///
    /// #[derive(Debug, Serialize, Deserialize, DocModel)]
    /// #[docmodel(type = "link", schema = "1.0", key = "link::{id}")]
    /// struct Link { id: u64, #[docmodel(parent)] folder: Ref<Folder> }
    ///
    /// # pollster::block_on(async {
    /// let store = MemoryStore::new();
    /// let (folders, links) = (Repo::<Folder>::new(&store), Repo::<Link>::new(&store));
    /// folders.insert(Folder { name: "recovered".into() }).await?;
    /// // An item whose folder another replica removed.
    /// links.insert(Link { id: 1, folder: Ref::new(Folder::key("tech")?) }).await?;
    /// let recovered = Folder::key("recovered")?;
    /// assert_eq!(links.settle_orphans(&Orphans::MoveTo(recovered.clone())).await?, 1);
    /// let link = links.get(&Link::key(1)).await?.unwrap();
    /// assert_eq!(link.parent_key(), Some(&recovered));
    /// assert!(links.orphans().await?.is_empty());
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn settle_orphans(&self, rule: &Orphans<T::Parent>) -> Result<usize, Error> {
        match rule {
            Orphans::Remove => {
                let mut settled = 0;
                loop {
                    let orphans = self.orphans().await?;
                    if orphans.is_empty() {
                        return Ok(settled);
                    }
                    for orphan in orphans {
                        match self.remove(orphan.key()).await {
                            Ok(()) => settled += 1,
                            // Settled elsewhere meanwhile.
                            Err(Error::NotFound { .. }) => {}
                            Err(error) => return Err(error),
                        }
                    }
                }
            }
            Orphans::MoveTo(parent) => {
                if self.store().get(parent.as_str()).await?.is_none() {
                    return Err(Error::NotFound {
                        key: parent.as_str().to_owned(),
                    });
                }
                let mut settled = 0;
                for orphan in self.orphans().await? {
                    match self
                        .update(orphan.key(), |item| item.set_parent(parent.clone()))
                        .await
                    {
                        Ok(_) => settled += 1,
                        Err(Error::NotFound { .. }) => {}
                        Err(error) => return Err(error),
                    }
                }
                Ok(settled)
            }
        }
    }
}

/// What [`Repo::settle_orphans`] does with items whose parent is not in the store.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Orphans<P> {
    /// Remove them.
    Remove,
    /// Make them items of this parent.
    MoveTo(Key<P>),
}
