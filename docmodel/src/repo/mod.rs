//! `Repo<T>`: a model's documents in a store, with envelope upkeep, revision history, lookups and
//! compare-and-swap.
//!
//! # The repository protocol
//!
//! A repository shares its store with other repositories, other processes and crashes. It keeps these
//! promises with nothing but the [`Store`] operations (no transactions, no scan); where a store makes a batch
//! of writes atomically ([`Store::write_atomic`]), a save is one batch, which only leaves fewer crash cases:
//!
//! - **Nothing committed is lost.** A document is changed only by a compare-and-swap replace of the version
//!   read; a save that finds another version is [`Error::Conflict`] and has changed nothing.
//! - **Nothing another document owns is touched.** A repository writes over or removes only what it has
//!   read as its own: the document (decoded as the model, `_type` checked), its revision copies (recognised by
//!   type, `_ver` and `_created`: see [revision copies](#revision-copies)), its lookup documents (exactly
//!   `{"ref": key}` naming it: see [lookup claims](#lookup-claims)). Anything else at those keys is a typed error naming the key ([`Error::WrongType`],
//!   [`Error::AlreadyExists`]) and is left as it is.
//! - **No stored value panics.** Versions are counted with checked arithmetic: a `_ver` that cannot advance
//!   is [`Error::VersionLimit`].
//!
//! After every operation, however two writers' store operations interleave (`tests/interleavings.rs` runs
//! every order of six two-writer scenarios, and drops each operation at each of its await points):
//!
//! - at most one document holds a lookup value, and every value a document holds has its lookup document
//!   naming it; a lookup naming a document that does not hold its value is stale, skipped by
//!   [`Repo::get_by_lookup`] and taken over by the next claim;
//! - the copies of the last `N` versions of a document are all there (no committed version is lost), but for
//!   those that expired: with [`Repo::expiry`], each copy expires as long after its save as the document
//!   did, and a later save or touch extends the document only, so the history of a document that expires
//!   reaches back that long;
//! - an operation that returns an error has written nothing that survives, but for one value: the copy of
//!   the version the document is at, when the write that made it was undone. It holds that very document,
//!   is never listed, and is used by the next save from that version. It cannot be removed safely: a save
//!   from that version may have read it already and be about to commit with it;
//!   A failed [`Repo::resolve`] leaves its copies too, above the document's version: never listed, and
//!   written over by the merge or save that reaches their keys;
//! - a crash or a dropped future leaves at most stale lookups, that copy, and copies below the window or of
//!   a removed document: never listed, and removed by [`Repo::sweep`].
//!
//! The store operations of each method, in order (`N` = `revisions`, `n` = the version read):
//!
//! | method | operations | a failure or crash after a step leaves |
//! |---|---|---|
//! | `insert` | claim each lookup, then each index entry; insert the document; confirm each claim | claims naming a document that does not hold them (stale: skipped by readers, taken over by the next claim) |
//! | `save` | read the lookups and index entries to release; claim new lookups, then new entries; insert the copy of `n`; replace the document (the commit); confirm claims; get + remove the copy of `n - N`; release old lookups | before the commit: the old version, whole, and a copy at `n` that the next save uses; after it: the new version and leftovers no reader lists |
//! | `save` on a store with atomic writes (`MemoryStore`, `Redb`), with revisions | as above, but the copy of `n`, the replace and the removal of the copy of `n - N` (got first) are one `write_atomic`; the prune stays a step of its own when a lookup or index entry moves (its claim may yet undo the save); a batch refused because the copy's key is taken or the copy to prune changed since it was got is made in steps, as above | before the commit: the old version, whole, with no copy at `n`; after it: the new version with its window of copies (with a moved lookup or entry, or after the steps: as `save`) |
//! | `update`, `restore` | get (the copy too, for `restore`); then `save`; repeated under the [`RetryPolicy`] on a conflict or a transient failure | as `save` |
//! | `remove` | get (the document is decoded: another model's is refused); get each revision in conflict with it (decoded too); read its lookups' and index entries' tokens; remove it by its token, then each conflicting revision; release its lookups and entries; get its copies (one batch) and remove each by its token | the document gone and some of its copies left: never listed, replaced by the saves of a new document under the key, removed by [`Repo::sweep`] |
//! | `touch`, `get_and_touch` | get; replace the document by its token with only `_accessed` changed (a document a write would change otherwise is saved instead, as `save`); on a conflict, again under the [`RetryPolicy`], done when the document read again was touched as late | nothing: the replace is the only write |
//! | `revisions`, `revision` | get; get the window's copies (one batch), or for `revision` the one copy | nothing: they only read |
//! | `find`, `count` | served by an index: get its markers; scan its entries in the range the filter fixes; scan the schema index's older range and get those documents; get the documents the entries name (batches of 256). Otherwise: scan the model's key range and get its documents (batches of 256) | nothing: they only read |
//! | `find`, `count` on a store with a query language | `query` (CouchDB: one or two `_find` requests a page, more when the filter turns candidates down, and two or more for the documents at another schema; a count, a request per 1000 matches) | nothing |
//! | `ensure_indexes` on a store with a query language | `create_index` for the type, the schema, `_created` and `_modified` (where kept) and each declared index; get the markers of index entries an earlier docmodel kept there, and remove each | the indexes created so far (the next call creates the rest); without a marker, an earlier program reads the model's documents rather than entries no longer kept |
//! | `ensure_indexes` | get the markers; for an incomplete index, scan the model's key range and get its documents, claim each document's entries, then write the marker | entries without a marker: the index is not read, and the next call builds it again |
//! | `migrate_all` | scan the model's key prefix (or take the keys given); per batch, get the documents (one batch); for each below the current schema, `save` (after a conflict: get, then `save` again). On a store with atomic writes: get the copies to prune (one batch), then one `write_atomic` of every copy, replace and prune of the batch; after it fails, each document is saved on its own | as `save`, for the document being written; the others are whole, old or new. With atomic writes: the batch's documents all old or all new |
//! | `resolve` | get (with its conflicts); get each conflicting revision; get the window's copies (one batch) and each of their conflicting revisions; read the lookups to release; claim each lookup; insert the copy of the revision read (as a save does) and of each displaced version; replace the document (the commit); confirm claims; get the copies (one batch), putting back one written over; remove each losing revision whose content is kept; release old lookups | before the commit: the conflict as it was, and copies above the document's version that no listing shows (written over by the merge or save that reaches them); after it: the merged document, and at worst losing revisions still in conflict, merged again by the next `resolve` |
//!
//! A lookup claimed but lost to another writer after the write undoes the write (see
//! [lookup claims](#lookup-claims)). Every `let _ =` on a store result is tidying whose failure loses nothing; the comment beside it names who
//! finishes the work.
//!
//! ## Revision copies
//!
//! A revision copy is what lets `revisions`, `revision` and `restore` read earlier versions by key.
//!
//! ### What a copy is
//!
//! The copy of version `n` of the document under `key` lives at exactly one key, `<key><d>v<d><n>`
//! ([`revision_key`]), so every operation finds it by key and none needs a scan. A value there is taken
//! for this document's copy only by what it holds: the model's `_type`, `_ver` equal to `n`, and the document's
//! `_created` (when both carry one). Anything else at that key (another model's document, whose key happens
//! to look the same) is never listed, replaced or removed: writing over it is [`Error::WrongType`] naming
//! the key and the type found.
//!
//! ### The order of a save (`revisions = N`, from version `n` to `n + 1`)
//!
//! 1. **insert** the copy of `n`, from the bytes the document was read with (no extra read). If the key is
//!    taken: a copy of the same JSON is the same version (left by a failed save, or written by a concurrent
//!    save from `n`) and is used as it is; a copy of other JSON is an orphan of an earlier document under this
//!    key, or this version as it was before a [touch](Repo::touch) rewrote its `_accessed`, replaced (by its token) only after the current document is read and still carries the token this
//!    save read it with, which proves that no save from `n` has committed since. Otherwise the save is
//!    [`Error::Conflict`] (or [`Error::NotFound`]), and nothing was written.
//! 2. **replace** the document with compare-and-swap: the commit point.
//! 3. **get** the copy that falls out of the window (`n - N`) and **remove** it by its token if it is this
//!    document's. A failure here loses nothing: the save has committed, and a copy outside the window is
//!    never listed.
//!
//! A crash after 1 leaves a copy of `n` at a version the document is still at: never listed, and used or
//! replaced by the next save from `n`. A crash after 2 leaves one extra copy below the window: never listed,
//! removed by [`Repo::sweep`](crate::Repo::sweep).
//!
//! When step 2 fails, the copy written in step 1 (only if this save wrote it: it holds its token) is
//! removed when the document is gone, when it was created again since (a later life of the key), or when
//! it has moved so far that `n` is outside its window; otherwise it stays, because a concurrent save from
//! `n` may have committed relying on it.
//!
//! ### Removing copies
//!
//! A copy is removed only by its token, read after the document it belongs to was removed or moved past it.
//! A save writes its copy (a fresh insert or a replace changes the token), so a removal by a token read
//! earlier does not take away a copy that a later save committed with. The exception: a save that finds
//! the identical copy (the same JSON, `_created` included) uses it as it is; a document removed and created
//! again with identical content and timestamps could then lose that copy to a removal racing with it.
//!
//! ## Conflicting revisions
//!
//! A store that replicates between servers (CouchDB) can hold several revisions of one document: each side
//! saved its own version before the two replicated. [`Repo::get`] returns the revision the store ranks first
//! and names the others ([`Doc::conflicts`]); a save writes over that one revision and leaves the others.
//! [`Repo::resolve`] merges them, losing nothing the model's window keeps:
//!
//! 1. **read** the document and each conflicting revision, typed (a revision that is not the model's stops the
//!    merge before any write), and the window's copies with their own conflicting revisions (both sides saved
//!    from the same versions). The policy ([`Resolve`]) picks the version kept. Displaced are the candidates not
//!    picked, and each copy revision that holds other JSON than the one kept at its key.
//! 2. **insert** the copies: a merge is a save from the revision read, so when that revision is at the highest
//!    version `m`, its copy at `m` is its own bytes (what any save from it writes, so a concurrent save
//!    writes the same), and the displaced versions are the copies of the versions after it, as far as the
//!    merged document's window reaches (one below it is dropped, as a save's prune drops it). Only merges
//!    write at those keys before a merge commits; another copy of this model found there is written over only
//!    while the document still carries the token read. A merge that fails leaves its copies: above the
//!    document's version, never listed, and written over by the merge or save that reaches them.
//! 3. **replace** the revision read with the picked content above them (the commit); lookups move as on a
//!    save.
//! 4. **verify** the copies of step 2 are in place, putting back one that another merge of the same revisions
//!    (with another policy) wrote over before this commit, then **remove** each losing revision whose content
//!    is kept (its copy in place, dropped below the window, or the document itself). A revision not removed
//!    stays in conflict for the next merge.
//!
//! A save of a document with conflicting revisions never writes over another copy of the version it read
//! (the other side's): it fails, asking for a merge first.
//!
//! ## Index entries
//!
//! On a store that can list keys and has no query language of its own
//! ([`Capabilities`](crate::store::Capabilities): MemoryStore, Redb), a model's indexes
//! (`#[docmodel(index = "customer_no")]`) are kept as entries: for each index and document, the key
//! `index<d><type><d><index><d><values><key>` holding `{"ref": "<key>"}`, with the values written so that the
//! keys sort as the values do (a field the document lacks sorts below every value). A model with indexes
//! keeps one more, `@schema`, over `_schema`, so that a find counts the documents below the current schema by
//! reading only those. A store with a query language (CouchDB) keeps the indexes itself
//! ([`Repo::ensure_indexes`] creates them there), and no entries are written.
//!
//! An entry is a lookup that no other document can hold (its key names the document), and is written as
//! one, in the same operations: an insert or a save **claims** the entries of its new values before the
//! document is written (an entry there already is written again, so a token another operation read no
//! longer removes it), and **releases** the entries of the values it left after, each by the token read
//! before the write. An entry that was there already (held) is **confirmed** after the write, as a lookup is:
//! a removal of the document the key held before may have read its token after the claim, and releases it
//! by that token; confirmed (or inserted again if it is gone), it carries a token that removal no longer
//! holds. An entry inserted fresh needs no confirming. A removal releases every entry of the document (and of
//! its conflicting revisions) after it. A failure before the write releases what it claimed.
//!
//! So an entry exists for every value a document holds, whatever fails when; a crash leaves at worst
//! entries of values a document no longer holds, which cost a read: [`Repo::find`] matches every document
//! it reads against the whole filter. A find reads an index only once [`Repo::ensure_indexes`] has built it
//! (its marker `index<d><type><d><index>` says so): documents written before the index was declared have no
//! entries until then.
//!
//! ## Lookup claims
//!
//! A lookup document (`customer_ref::12345 -> {"ref": "user::max"}`) names the one document that holds
//! its value.
//!
//! ### The lookup document
//!
//! Exactly `{"ref": "<key>"}`, where `<key>` is a key of the model. A value of any other shape under a lookup
//! key is somebody else's document: claiming it is [`Error::AlreadyExists`] naming the lookup key, and it
//! is never written over or removed.
//!
//! ### The order of a write that gives a document a lookup value (insert, or a save that moves it)
//!
//! 1. **claim**: insert the lookup document. If the key is taken by a lookup naming this document already
//!    (left by an earlier attempt, or claimed by a concurrent operation on the same document) it is *held*:
//!    written again by its token, so that a token another operation read before no longer removes it, and
//!    never released by this operation, since the document may hold the value already. If it names another document that still
//!    holds the value, the write stops with [`Error::AlreadyExists`]. If it names a document that no longer
//!    holds it (a crash between a write and its release), it is taken over by a compare-and-swap replace
//!    with the token it was read with.
//! 2. **write** the document (insert, or the save of [revision copies](#revision-copies)).
//! 3. **confirm** each claim: replace the lookup document with itself, by the token of step 1. The new token
//!    is the serialization point: a takeover in step 1 of another writer, based on reading this document
//!    before step 2 landed, replaces by the token of step 1 too, so exactly one of the two succeeds. A
//!    writer whose confirm fails has lost the value, or (the store failed) cannot know it kept it: it puts
//!    its document back (removes an insert, restores the previous version of a save) and fails with
//!    [`Error::AlreadyExists`], or the store's error.
//! 4. **release** the lookups the document no longer holds, each by the token read before step 2, so that a
//!    lookup claimed again meanwhile (the value moved back) stays.
//!
//! A failure before step 2 lands releases the claims written in step 1 (by their tokens). A crash
//! anywhere leaves at worst a lookup naming a document that does not hold its value: [`Repo::get_by_lookup`]
//! does not return it, and the next claim takes it over.
//!
//! If putting the document back in step 3 fails, the caller is told so with an
//! [`Ambiguous`](crate::StoreErrorKind::Ambiguous) store error naming the lookup: the document may hold a
//! value whose lookup names another.
//!

mod claims;
mod copies;
mod find;
mod indexes;
mod limits;
mod migrate_all;
mod native;
mod resolve;
mod retry;

use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::lookup::{lookup_keys, lookup_target};
use crate::revision::{RevisionWindow, revision_key};
use crate::store::{Cas, Durability, Expiry, Store, Stored, WriteOptions};
use crate::{
    Doc, DocModel, EnvelopeField, Error, ErrorClass, Key, Layout, Ref, StoreErrorKind, Timestamp,
};

pub use self::find::Pages;
pub use self::limits::{Limit, Limits};
pub use self::migrate_all::{MigrateOptions, MigrationFailure, MigrationReport};
pub use self::resolve::Resolve;
pub use self::retry::RetryPolicy;

/// Where a repository reads the time for `_created` and `_modified`.
pub type Clock = Arc<dyn Fn() -> Timestamp + Send + Sync>;

/// The documents of model `T` in store `S`.
///
/// ```
/// use docmodel::{DocModel, Repo, store::MemoryStore};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
/// #[docmodel(type = "user", schema = "1.0", key = "user::{id}", revisions = 3)]
/// struct User {
///     #[docmodel(get)]
///     id: u64,
///     #[docmodel(get, set)]
///     name: String,
/// }
///
/// # pollster::block_on(async {
/// let store = MemoryStore::new();
/// let users = Repo::<User>::new(&store).actor("admin");
/// users.insert(User { id: 1, name: "Joe".into() }).await?;
///
/// let mut doc = users.get(&User::key(1)).await?.unwrap();
/// doc.set_name("Joseph");
/// users.save(&mut doc).await?;
/// assert_eq!(doc.envelope().ver, 2);
///
/// let history = users.revisions(&User::key(1)).await?;
/// assert_eq!(history[0].name(), "Joe");
/// assert_eq!(store.keys(), ["user::1", "user::1::v::1"]);
/// # Ok::<(), docmodel::Error>(())
/// # }).unwrap();
/// ```
pub struct Repo<T, S = NoStore> {
    store: S,
    actor: Option<String>,
    clock: Clock,
    retry: RetryPolicy,
    /// The expiry and durability of the repository's writes.
    write: WriteOptions,
    /// The largest and deepest document the repository writes.
    limits: Limits,
    /// The key of the model's `Hashed` fields ([`Repo::hash_key`]).
    #[cfg(feature = "hashed")]
    hash_key: Option<crate::HashKey>,
    model: PhantomData<fn() -> T>,
}

impl<T, S: Clone> Clone for Repo<T, S> {
    fn clone(&self) -> Self {
        Repo {
            store: self.store.clone(),
            actor: self.actor.clone(),
            clock: Arc::clone(&self.clock),
            retry: self.retry,
            write: self.write,
            limits: self.limits,
            #[cfg(feature = "hashed")]
            hash_key: self.hash_key.clone(),
            model: PhantomData,
        }
    }
}

/// The store type of [`Repo::new`] before it is given one; never used as a store.
#[derive(Debug, Clone, Copy)]
pub struct NoStore;

impl<T> Repo<T> {
    /// A repository over `store` (a store, or a reference to one), with the system clock and no actor:
    /// `Repo::<User>::new(&store)`.
    pub fn new<S: Store>(store: S) -> Repo<T, S> {
        Repo {
            store,
            actor: None,
            clock: Arc::new(Timestamp::now),
            retry: RetryPolicy::default(),
            write: WriteOptions::DEFAULT,
            limits: Limits::DEFAULT,
            #[cfg(feature = "hashed")]
            hash_key: None,
            model: PhantomData,
        }
    }
}

/// Translucent fields: the repository holds the application's [`HashKey`](crate::HashKey), so that the
/// code finding a user by email never handles it.
#[cfg(feature = "hashed")]
impl<T: DocModel, S> Repo<T, S> {
    /// Gives the repository the key of its model's [`Hashed`](crate::Hashed) fields, for [`Repo::hash`] and
    /// [`Repo::matches`]. The key is held in memory only; see [what a lost key costs](crate::hashed#if-the-key-is-lost).
    pub fn hash_key(mut self, key: crate::HashKey) -> Self {
        self.hash_key = Some(key);
        self
    }

    /// The digest of `value` under the repository's key: to build the key of a document keyed or looked up
    /// by a hashed value. `value` is hashed as it is given (normalise an email first).
    ///
    /// [`Error::HashKey`] if the repository was given no key.
    ///
    /// ```
    /// use docmodel::{DocModel, HashKey, Hashed, Repo, store::MemoryStore};
    /// # use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Debug, Serialize, Deserialize, DocModel)]
    /// #[docmodel(type = "user", schema = "1.0", key = "user_by_email::{email}")]
    /// struct User {
    ///     email: Hashed<String>,
    ///     name: String,
    /// }
    ///
    /// # pollster::block_on(async {
    /// let store = MemoryStore::new();
    /// let users = Repo::<User>::new(&store).hash_key(HashKey::from_bytes(&[0x42; 32])?);
    /// users.insert(User { email: users.hash("ada@example.com")?, name: "Ada".into() }).await?;
    ///
    /// let ada = users.get(&User::key(&users.hash("ada@example.com")?)?).await?.unwrap();
    /// assert_eq!(ada.name, "Ada");
    /// assert!(users.matches(&ada.email, "ada@example.com")?);
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn hash<V, Q>(&self, value: &Q) -> Result<crate::Hashed<V>, Error>
    where
        V: std::borrow::Borrow<Q> + ?Sized,
        Q: crate::hashed::HashInput + ?Sized,
    {
        Ok(crate::Hashed::new(self.given_hash_key()?, value))
    }

    /// Whether `hashed` is the digest of `value` under the repository's key, compared in constant time
    /// ([`Hashed::matches`](crate::Hashed::matches)).
    ///
    /// [`Error::HashKey`] if the repository was given no key.
    pub fn matches<V, Q>(&self, hashed: &crate::Hashed<V>, value: &Q) -> Result<bool, Error>
    where
        V: std::borrow::Borrow<Q> + ?Sized,
        Q: crate::hashed::HashInput + ?Sized,
    {
        Ok(hashed.matches(self.given_hash_key()?, value))
    }

    fn given_hash_key(&self) -> Result<&crate::HashKey, Error> {
        self.hash_key.as_ref().ok_or_else(|| Error::HashKey {
            reason: format!(
                "the repository of type `{}` has none; give it one with `Repo::hash_key`",
                T::TYPE
            ),
        })
    }
}

impl<T, S> Repo<T, S>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    /// Writes `actor` as `_createdBy` and `_modifiedBy` (where the model's envelope keeps them).
    pub fn actor(mut self, actor: impl Into<String>) -> Self {
        self.actor = Some(actor.into());
        self
    }

    /// Reads `_created` and `_modified` from `clock` instead of the system clock.
    pub fn clock(mut self, clock: impl Fn() -> Timestamp + Send + Sync + 'static) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// How [`Repo::update`] and [`Repo::restore`] retry after a conflict or a transient store failure
    /// ([`RetryPolicy::default`] unless set).
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Documents this repository writes expire as `expiry` says: with [`Expiry::After`], each insert, save and
    /// [touch](Repo::touch) sets the document to expire that long after (a sliding expiry: a session kept in
    /// use stays); [`Expiry::Never`] takes an expiry away; [`Expiry::Keep`] (the default) writes new
    /// documents that never expire and keeps the expiry of those it saves.
    ///
    /// The revision copies a save writes are written with the same expiry as the document: with
    /// [`Expiry::After`] each expires as long after its save as the document did, and the history reaches
    /// back that long (a later save extends the document, not its older copies). A save with
    /// [`Expiry::Keep`] cannot know the document's expiry (no store reports it) and writes copies that do not
    /// expire: give every repository of a model that expires the same `expiry`.
    ///
    /// Lookup documents and index entries do not expire (a document saved later would outlive them): those of
    /// an expired document are stale, skipped by readers and taken over by the next document to claim their
    /// values (see the [protocol](self#lookup-claims)), but nothing removes the others. Each costs a read
    /// in an indexed [`Repo::find`]: a model whose documents expire in great numbers under new keys is best
    /// kept without lookups and indexes on a store that keeps them as entries (MemoryStore, Redb).
    ///
    /// On a store that cannot expire values ([`Capabilities::expiry`](crate::store::Capabilities::expiry)
    /// off: CouchDB), a repository with [`Expiry::After`] refuses each insert, save, touch, removal and merge
    /// before it writes anything.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use std::sync::atomic::{AtomicI64, Ordering};
    /// use std::time::Duration;
    /// use docmodel::{DocModel, Repo, Timestamp, store::{Expiry, MemoryStore}};
    /// # #[derive(Debug, serde::Serialize, serde::Deserialize, DocModel)]
    /// # #[docmodel(type = "session", schema = "1.0", key = "session::{id}", envelope(accessed))]
    /// # struct Session { id: u64 }
    ///
    /// # pollster::block_on(async {
    /// let minutes = Arc::new(AtomicI64::new(0));
    /// let (store_time, repo_time) = (minutes.clone(), minutes.clone());
    /// let now = move |minutes: &AtomicI64| Timestamp::from_millis(minutes.load(Ordering::SeqCst) * 60_000);
    /// let store = MemoryStore::new().with_clock(move || now(&store_time));
    /// let sessions = Repo::<Session>::new(&store)
    ///     .clock(move || now(&repo_time))
    ///     .expiry(Expiry::After(Duration::from_secs(30 * 60)));
    /// sessions.insert(Session { id: 1 }).await?;
    ///
    /// minutes.store(29, Ordering::SeqCst);
    /// sessions.touch(&Session::key(1)).await?; // in use: 30 more minutes
    /// minutes.store(58, Ordering::SeqCst);
    /// assert!(sessions.get(&Session::key(1)).await?.is_some());
    /// minutes.store(59, Ordering::SeqCst);
    /// assert!(sessions.get(&Session::key(1)).await?.is_none());
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn expiry(mut self, expiry: Expiry) -> Self {
        self.write.expiry = expiry;
        self
    }

    /// Every write of this repository (documents, revision copies, lookups, index entries, removals) waits
    /// for `durability` ([`Durability::None`] unless set): on Couchbase, the SDK's durability level (the
    /// stronger of this and the store's own); see [`Durability`] for the other stores. The one exception is
    /// the id counter of [`Repo::next_id`] ([`Store::counter`] takes no options): on Couchbase it has the
    /// store's own durability. A counter lost in a failover hands out an id again, and the insert under
    /// it is [`Error::AlreadyExists`]: nothing is written over.
    pub fn durability(mut self, durability: Durability) -> Self {
        self.write.durability = durability;
        self
    }

    /// The largest and deepest document this repository writes ([`Limits::DEFAULT`] unless set): an insert,
    /// a save, an update, a restore, a merge or a migration of a document past either is
    /// [`Error::OverLimit`], and writes nothing. What a repository writes back as it read it (a touch that
    /// only sets `_accessed`, the revision copy of a stored version) is not held to them: it is in the store
    /// already. A touch of a document that must be saved (read at an older schema) is a save, and is.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The stored JSON of `doc` with the envelope values `envelope`, as a write makes it: the model's rules
    /// and the repository's limits checked.
    fn encode(&self, doc: &Doc<T>, envelope: &crate::Envelope) -> Result<Vec<u8>, Error> {
        let bytes = doc.to_vec_with(envelope)?;
        self.limits.check(doc.key().as_str(), &bytes)?;
        Ok(bytes)
    }

    /// The store, making each write with the repository's expiry and durability: for the document and its
    /// revision copies.
    fn docs(&self) -> Writing<'_, S> {
        Writing {
            store: &self.store,
            options: self.write,
        }
    }

    /// The store, making each write with the repository's durability and no expiry: for lookup documents,
    /// index entries and markers, which must outlive any one document.
    fn aux(&self) -> Writing<'_, S> {
        Writing {
            store: &self.store,
            options: self.write.with_expiry(Expiry::Keep),
        }
    }

    /// The index entries of the document under `key` stored as `bytes`, where this repository keeps them: for
    /// a model with indexes, in a store that can list keys and has no query language of its own (see
    /// [index entries](self#index-entries)).
    fn entries(&self, bytes: &[u8], key: &str) -> Vec<String> {
        let capabilities = self.store.capabilities();
        if T::INDEXES.is_empty() || !capabilities.scan || capabilities.query.is_some() {
            return Vec::new();
        }
        indexes::entry_keys::<T>(bytes, key)
    }

    /// Refuses a store that cannot hold this model's documents: one that reserves top-level fields
    /// starting with `_` (CouchDB) for a model that writes such fields.
    fn check_store(&self) -> Result<(), Error> {
        let capabilities = self.store.capabilities();
        if let Expiry::After(_) = self.write.expiry
            && !capabilities.expiry
        {
            return Err(Error::store_with(
                StoreErrorKind::Unsupported,
                T::TYPE,
                format!(
                    "the repository of model `{}` writes documents that expire (`Repo::expiry`), and this \
                     store cannot expire values (`Capabilities::expiry`)",
                    T::TYPE
                ),
            ));
        }
        if !capabilities.reserves_underscore_fields {
            return Ok(());
        }
        let spec = &T::ENVELOPE;
        let envelope_names: Vec<&str> = match spec.layout() {
            Layout::Meta => vec![spec.meta_name()],
            Layout::Flat | Layout::Plain => EnvelopeField::ALL
                .into_iter()
                .filter(|field| spec.keeps(*field))
                .map(|field| spec.name(field))
                .collect(),
        };
        let reserved = envelope_names
            .into_iter()
            .chain(T::BODY_FIELDS.iter().copied())
            .find(|name| name.starts_with('_'));
        match reserved {
            None => Ok(()),
            Some(name) => Err(Error::store(
                T::TYPE,
                format!(
                    "model `{}` writes the top-level field `{name}`, and this store refuses fields starting \
                     with `_`; use `#[docmodel(envelope(layout = \"plain\"))]` or `layout = \"meta\"` with a \
                     meta name without `_`, and body names without it",
                    T::TYPE
                ),
            )),
        }
    }

    /// A document as the store holds it under `key` (a current document or a revision copy), with what the
    /// store holds and the lookup keys of its body.
    /// A document as the store holds it, read without the model's rules (`validate_on_read` applies to
    /// what [`Repo::get`], [`Repo::get_many`], [`Repo::get_by_lookup`] and [`Repo::find`] hand out, not to
    /// the reads a write, a removal or a history listing makes).
    fn from_stored(key: &Key<T>, stored: Stored) -> Result<Doc<T>, Error> {
        let mut doc = Doc::read_at(key.clone(), &stored.bytes)?;
        let lookups = lookup_keys(doc.body())?;
        doc.set_stored(stored, lookups);
        Ok(doc)
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// The next number of the model's atomic counter `count<d><type>` (the seeds' `count::user`), starting
    /// at 1: an id no other caller of the same store gets, for a key built from a counter.
    ///
    /// Counter ids are unique per server, **not** across servers that replicate (CouchDB's multi-master
    /// replication, Couchbase XDCR): each side counts on its own, and two documents created on two sides get
    /// the same id. For a model whose documents are created on replicated databases, use a UUID key part
    /// (feature `uuid`; a v7 UUID keeps keys in creation order) rather than a counter.
    ///
    /// ```
    /// # use docmodel::{DocModel, Repo, store::MemoryStore};
    /// # #[derive(Debug, serde::Serialize, serde::Deserialize, DocModel)]
    /// # #[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
    /// # struct User { id: u64 }
    /// # pollster::block_on(async {
    /// let store = MemoryStore::new();
    /// let users = Repo::<User>::new(&store);
    /// let id = users.next_id().await?;
    /// users.insert(User { id }).await?;
    /// assert_eq!(store.keys(), ["count::user", "user::1"]);
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn next_id(&self) -> Result<u64, Error> {
        self.store.counter(&counter_key::<T>(), 1).await
    }

    /// Stores a new document: version 1, created and modified now, by the actor. Takes a body, or a
    /// [`Doc`] built with envelope values the repository does not set itself (`_geo`, `_accessed`), so that
    /// they go in with the document:
    ///
    /// ```
    /// # use docmodel::{Doc, DocModel, Repo, store::MemoryStore};
    /// # #[derive(Debug, serde::Serialize, serde::Deserialize, DocModel)]
    /// # #[docmodel(type = "shop", schema = "1.0", key = "shop::{id}", envelope(geo))]
    /// # struct Shop { id: u64 }
    /// # pollster::block_on(async {
    /// let shops = Repo::<Shop>::new(MemoryStore::new());
    /// let shop = shops.insert(Doc::new(Shop { id: 7 })?.with_geo("u4pruydqqvj")).await?;
    /// assert_eq!(shop.envelope().geo.as_deref(), Some("u4pruydqqvj"));
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Fails with [`Error::Validation`] if the body breaks the model's rules, [`Error::AlreadyExists`] if its
    /// key is taken, or a lookup value is held by another document; nothing is written then.
    pub async fn insert(&self, new: impl NewDoc<T>) -> Result<Doc<T>, Error> {
        self.check_store()?;
        let new = self.prepare_insert(new.into_doc()?, (self.clock)())?;
        self.insert_claiming(new).await
    }

    /// Stores new documents, as [`Repo::insert`] does each, and returns each one's outcome in the order
    /// given: one that fails (its rules broken, its key taken, a lookup value held) fails alone, and the
    /// others are stored. It is the path for loading data: the documents go to the store in batches of
    /// 1,000 through [`Store::insert_many`] (on [`Redb`](crate::store::Redb), one transaction a batch; on
    /// CouchDB, one `_bulk_docs` request), where one at a time costs a transaction or a round trip each.
    /// A document with lookups or index entries to claim is inserted on its own, as `insert` does, so that
    /// its claims come first. Not atomic: for all of a batch or none, see [`Store::write_atomic`].
    ///
    /// ```
    /// # use docmodel::{DocModel, Error, Repo, store::MemoryStore};
    /// # #[derive(Debug, serde::Serialize, serde::Deserialize, DocModel)]
    /// # #[docmodel(type = "city", schema = "1.0", key = "city::{code}")]
    /// # struct City { code: String, name: String }
    /// # pollster::block_on(async {
    /// let cities = Repo::<City>::new(MemoryStore::new());
    /// cities.insert(City { code: "par".into(), name: "Paris".into() }).await?;
    /// let outcomes = cities
    ///     .insert_many([("lon", "London"), ("par", "Paris"), ("ber", "Berlin")].map(|(code, name)| City {
    ///         code: code.into(),
    ///         name: name.into(),
    ///     }))
    ///     .await?;
    /// assert_eq!(outcomes.len(), 3);
    /// assert_eq!(outcomes[0].as_ref().unwrap().body().name, "London");
    /// assert!(matches!(&outcomes[1], Err(Error::AlreadyExists { key }) if key == "city::par"));
    /// assert!(outcomes[2].is_ok());
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Fails as a whole, before writing anything, only where [`Repo::insert`] would fail for any document:
    /// a store that cannot hold the model's documents.
    pub async fn insert_many<N: NewDoc<T>>(
        &self,
        new: impl IntoIterator<Item = N>,
    ) -> Result<Vec<Result<Doc<T>, Error>>, Error> {
        self.check_store()?;
        let now = (self.clock)();
        let mut outcomes = Vec::new();
        let mut batch: Vec<(usize, NewInsert<T>)> = Vec::with_capacity(INSERT_BATCH);
        for new in new {
            let at = outcomes.len();
            outcomes.push(None);
            match new.into_doc().and_then(|doc| self.prepare_insert(doc, now)) {
                Err(refused) => outcomes[at] = Some(Err(refused)),
                Ok(new) if !new.lookups.is_empty() || !new.entries.is_empty() => {
                    outcomes[at] = Some(self.insert_claiming(new).await);
                }
                Ok(new) => {
                    batch.push((at, new));
                    if batch.len() == INSERT_BATCH {
                        self.insert_batch(&mut batch, &mut outcomes).await;
                    }
                }
            }
        }
        self.insert_batch(&mut batch, &mut outcomes).await;
        Ok(outcomes
            .into_iter()
            .map(|outcome| outcome.unwrap_or_else(|| unreachable!("every document has an outcome")))
            .collect())
    }

    /// Inserts the documents of `batch` (none with claims) with one [`Store::insert_many`], and puts each
    /// one's outcome at its place in `outcomes`.
    async fn insert_batch(
        &self,
        batch: &mut Vec<(usize, NewInsert<T>)>,
        outcomes: &mut [Option<Result<Doc<T>, Error>>],
    ) {
        if batch.is_empty() {
            return;
        }
        let values: Vec<(&str, &[u8])> = batch
            .iter()
            .map(|(_, new)| (new.key.as_str(), new.bytes.as_slice()))
            .collect();
        let written = self
            .docs()
            .insert_many(&values, &WriteOptions::DEFAULT)
            .await;
        drop(values);
        for ((at, new), written) in batch.drain(..).zip(written) {
            let NewInsert {
                mut doc,
                envelope,
                bytes,
                lookups,
                ..
            } = new;
            outcomes[at] = Some(written.map(|cas| {
                doc.written(envelope, Stored::new(bytes, cas), lookups);
                doc
            }));
        }
    }

    /// What an insert of `doc` at `now` writes, computed before the first write.
    fn prepare_insert(&self, doc: Doc<T>, now: Timestamp) -> Result<NewInsert<T>, Error> {
        let mut envelope = doc.envelope().clone();
        envelope.ver = 1;
        envelope.created = Some(now);
        envelope.modified = Some(now);
        envelope.created_by.clone_from(&self.actor);
        envelope.modified_by.clone_from(&self.actor);
        let bytes = self.encode(&doc, &envelope)?;
        let key = doc.key().as_str().to_owned();
        let lookups = lookup_keys(doc.body())?;
        let entries = self.entries(&bytes, &key);
        Ok(NewInsert {
            doc,
            envelope,
            bytes,
            key,
            lookups,
            entries,
        })
    }

    /// Inserts `new`: its lookups and index entries claimed first, the document, then the claims confirmed.
    async fn insert_claiming(&self, new: NewInsert<T>) -> Result<Doc<T>, Error> {
        let NewInsert {
            mut doc,
            envelope,
            bytes,
            key,
            lookups,
            entries,
        } = new;
        // Lookups are claimed first: a value another document holds stops the insert before it writes.
        let mut claims = claims::claim_all::<T, _>(&self.aux(), lookups.iter(), &key).await?;
        match claims::claim_entries::<T, _>(&self.aux(), entries.iter(), &key).await {
            Ok(entries) => claims.extend(entries),
            Err(err) => {
                claims::release(&self.aux(), &claims).await;
                return Err(err);
            }
        }
        let cas = match self.docs().insert(&key, &bytes).await {
            Ok(cas) => cas,
            Err(err) => {
                // An ambiguous insert may have landed, holding these lookups: they stay.
                if err.class() != ErrorClass::Ambiguous {
                    claims::release(&self.aux(), &claims).await;
                }
                return Err(err);
            }
        };
        if let Err(unconfirmed) = claims::confirm_all(&self.aux(), &mut claims, &key).await {
            // Another writer took a value over before this document was written, or the claim could not be
            // confirmed: the document goes again.
            let (cause, error) = unconfirmed_error(unconfirmed);
            return match self.docs().remove(&key, Some(&cas)).await {
                Ok(()) => {
                    claims::release(&self.aux(), &claims).await;
                    Err(error)
                }
                Err(err) => Err(undo_failed(&key, &cause, "removing it again", &err)),
            };
        }
        doc.written(envelope, Stored::new(bytes, cas), lookups);
        Ok(doc)
    }

    /// The document under `key`, migrated to the current schema if it is older; `None` if there is none.
    ///
    /// A document of another model under that key is [`Error::WrongType`]; with `validate_on_read`, one
    /// that breaks the model's rules is [`Error::Validation`].
    pub async fn get(&self, key: &Key<T>) -> Result<Option<Doc<T>>, Error> {
        self.read(key).await?.map(Doc::checked_read).transpose()
    }

    /// [`Repo::get`] without the model's rules, for the reads of a write or a removal.
    async fn read(&self, key: &Key<T>) -> Result<Option<Doc<T>>, Error> {
        let Some(stored) = self.store.get(key.as_str()).await? else {
            return Ok(None);
        };
        Self::from_stored(key, stored).map(Some)
    }

    /// The documents under `keys`, in the same order, each migrated to the current schema if it is older;
    /// `None` where there is none. One [`Store::get_many`]: one request on CouchDB, one read transaction on
    /// Redb.
    ///
    /// A document of another model under one of the keys is [`Error::WrongType`] naming that key.
    ///
    /// ```
    /// # use docmodel::{DocModel, Repo, store::MemoryStore};
    /// # #[derive(Debug, serde::Serialize, serde::Deserialize, DocModel)]
    /// # #[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
    /// # struct User { #[docmodel(get)] id: u64 }
    /// # pollster::block_on(async {
    /// let users = Repo::<User>::new(MemoryStore::new());
    /// users.insert(User { id: 1 }).await?;
    /// users.insert(User { id: 3 }).await?;
    /// let found = users.get_many(&[User::key(3), User::key(2), User::key(1)]).await?;
    /// let ids: Vec<Option<u64>> = found.iter().map(|doc| doc.as_ref().map(|doc| doc.id())).collect();
    /// assert_eq!(ids, [Some(3), None, Some(1)]);
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn get_many(&self, keys: &[Key<T>]) -> Result<Vec<Option<Doc<T>>>, Error> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let texts: Vec<&str> = keys.iter().map(Key::as_str).collect();
        let found = self.store.get_many(&texts).await?;
        keys.iter()
            .zip(found)
            .map(|(key, stored)| {
                stored
                    .map(|stored| Self::from_stored(key, stored).and_then(Doc::checked_read))
                    .transpose()
            })
            .collect()
    }

    /// The documents `references` point to, in the same order; `None` for each that is gone. One round
    /// trip, as [`Repo::get_many`]: a playlist's tracks are loaded with one request, not one per track.
    pub async fn load_many(&self, references: &[Ref<T>]) -> Result<Vec<Option<Doc<T>>>, Error> {
        let keys: Vec<Key<T>> = references
            .iter()
            .map(|reference| reference.key().clone())
            .collect();
        self.get_many(&keys).await
    }

    /// The document a lookup key refers to (`customer_ref::12345`), if the lookup document exists and the
    /// document it names still holds that value.
    pub async fn get_by_lookup(&self, lookup: &str) -> Result<Option<Doc<T>>, Error> {
        let Some(stored) = self.store.get(lookup).await? else {
            return Ok(None);
        };
        let target = lookup_target(&stored.bytes).ok_or_else(|| Error::InvalidKey {
            model: T::TYPE,
            key: lookup.to_owned(),
            reason: "the document under it is not a lookup document (`{\"ref\": key}`)".to_owned(),
        })?;
        let Some(doc) = self.read(&Key::parse(&target)?).await? else {
            return Ok(None);
        };
        if !doc.stored_lookups().iter().any(|held| held == lookup) {
            return Ok(None);
        }
        doc.checked_read().map(Some)
    }

    /// Saves a changed document: `_ver` + 1, modified now, by the actor.
    ///
    /// The document is replaced only if nobody changed it since it was read; otherwise this is
    /// [`Error::Conflict`] and nothing is changed. With `revisions = N`, the version being replaced is first
    /// copied to `<key><d>v<d><n>` from the bytes the document already holds, and after the replace the copy
    /// that falls out of the last `N` is removed (read first: only a copy of this document is removed). Two
    /// store operations (insert, replace) until the window is full, four with the prune (get and remove), one
    /// for a model without revisions. A failure at any point leaves the stored document old or new, never
    /// lost, and a retry completes. The protocol is in the [module docs](self).
    ///
    /// On a store that makes a batch of writes atomically ([`Capabilities::atomic_writes`](crate::store::Capabilities::atomic_writes):
    /// [`MemoryStore`](crate::store::MemoryStore), [`Redb`](crate::store::Redb)), the copy, the replace and
    /// the prune are one [`Store::write_atomic`], after a get of the copy to prune once the window is full:
    /// one operation, or two. A failure or a crash then leaves the old version whole, without the copy a save
    /// in steps leaves, or the new one with its window of copies. A save that moves a lookup or index entry
    /// keeps the prune a step of its own, after its claims are confirmed; a batch refused because the copy's
    /// key is taken or the copy to prune changed since it was got is made in steps, as above.
    ///
    /// A lookup whose field changed is claimed before all this, confirmed after the replace, and the old one
    /// released: a get, an insert, a replace and a remove per moved lookup.
    ///
    /// Fails with [`Error::NotFound`] if the document was never stored or is gone, [`Error::InvalidKey`] if
    /// its key fields were changed, [`Error::VersionLimit`] if `_ver` cannot count another save; nothing is
    /// written then.
    pub async fn save(&self, doc: &mut Doc<T>) -> Result<(), Error> {
        self.check_store()?;
        let Prepared {
            key,
            stored,
            version,
            envelope,
            bytes,
            lookups,
            moved,
            old_entries,
            new_entries,
        } = self.prepare_save(doc)?;
        // The old lookups and entries as they are before this save: releasing exactly these tokens afterwards
        // cannot remove one another save of this document claims again in between.
        let released = claims::owned(
            &self.aux(),
            moved
                .iter()
                .map(|(old, _)| old)
                .chain(indexes::changed(&old_entries, &new_entries)),
            &key,
        )
        .await?;
        let mut claims =
            claims::claim_all::<T, _>(&self.aux(), moved.iter().map(|(_, new)| new), &key).await?;
        match claims::claim_entries::<T, _>(
            &self.aux(),
            indexes::changed(&new_entries, &old_entries).into_iter(),
            &key,
        )
        .await
        {
            Ok(entries) => claims.extend(entries),
            Err(err) => {
                claims::release(&self.aux(), &claims).await;
                return Err(err);
            }
        }
        // On a store that makes a batch atomically, the copy, the replace and the prune are one write. Not the
        // prune when claims may yet undo the save: the document would be back at a version whose window holds
        // the pruned copy.
        let batch = T::REVISIONS.is_some()
            && stored.conflicts.is_empty()
            && self.store.capabilities().atomic_writes;
        let prune_in_batch = batch && claims.is_empty();
        let committed = if batch {
            match copies::save_atomic::<T, _>(
                &self.docs(),
                &key,
                version,
                &stored,
                &bytes,
                envelope.created,
                prune_in_batch,
            )
            .await
            {
                Ok(committed) => committed,
                Err(err) => {
                    // Nothing was written, or (ambiguous) all of it: the claims stay with a write that may
                    // have landed.
                    if err.class() != ErrorClass::Ambiguous {
                        claims::release(&self.aux(), &claims).await;
                    }
                    return Err(err);
                }
            }
        } else {
            None
        };
        let pruned = committed.as_ref().is_some_and(|committed| committed.pruned);
        let written = match committed {
            Some(committed) => Stored::new(bytes, committed.cas),
            None => {
                self.save_in_steps(&key, version, &stored, bytes, envelope.created, &claims)
                    .await?
            }
        };
        if let Err(unconfirmed) = claims::confirm_all(&self.aux(), &mut claims, &key).await {
            // Another document took a value over before this save was written, or the claim could not be
            // confirmed: put the previous version back. The copy of it stays, at a version the document is at
            // again, for the next save to use.
            let (cause, error) = unconfirmed_error(unconfirmed);
            return match self.docs().replace(&key, &stored.bytes, &written.cas).await {
                Ok(_) => {
                    claims::release(&self.aux(), &claims).await;
                    Err(error)
                }
                Err(err) => Err(undo_failed(
                    &key,
                    &cause,
                    "putting the previous version back",
                    &err,
                )),
            };
        }
        let created = envelope.created;
        doc.written(envelope, written, lookups);
        // The save has committed: what follows only tidies up, and what it leaves behind is recognised as stale
        // (`revisions`, `get_by_lookup`, the next claim).
        if let Some(keep) = T::REVISIONS
            && !pruned
            && let Some(pruned) = RevisionWindow::new(version, keep).pruned_by_next_save()
        {
            copies::prune::<T, _>(&self.docs(), &key, pruned, created).await;
        }
        claims::release(&self.aux(), &released).await;
        Ok(())
    }

    /// What a save of `doc` writes, computed before the first write: everything that can refuse the save
    /// ([`Error::NotFound`], [`Error::VersionLimit`], the encoding and the model's rules) refuses it here.
    fn prepare_save(&self, doc: &Doc<T>) -> Result<Prepared, Error> {
        let key = doc.key().as_str().to_owned();
        let Some(stored) = doc.stored().cloned() else {
            return Err(Error::NotFound { key });
        };
        let version = doc.envelope().ver;
        let next = version.checked_add(1).ok_or_else(|| Error::VersionLimit {
            key: key.clone(),
            ver: version,
        })?;
        let mut envelope = doc.envelope().clone();
        envelope.ver = next;
        envelope.modified = Some((self.clock)());
        envelope.modified_by.clone_from(&self.actor);
        let bytes = self.encode(doc, &envelope)?;
        let lookups = lookup_keys(doc.body())?;
        let moved: Vec<(String, String)> = doc
            .stored_lookups()
            .iter()
            .zip(&lookups)
            .filter(|(old, new)| old != new)
            .map(|(old, new)| (old.clone(), new.clone()))
            .collect();
        let (old_entries, new_entries) = (
            self.entries(&stored.bytes, &key),
            self.entries(&bytes, &key),
        );
        Ok(Prepared {
            key,
            stored,
            version,
            envelope,
            bytes,
            lookups,
            moved,
            old_entries,
            new_entries,
        })
    }

    /// Steps 1 and 2 of a save, each its own store operation: the copy of `version` (with revisions), then
    /// the replace of the document read as `stored` with `bytes`. On a failure, the `claims` are released
    /// (unless the replace may have landed) and the copy this save wrote is removed if nothing can rely on
    /// it.
    async fn save_in_steps(
        &self,
        key: &str,
        version: u64,
        stored: &Stored,
        bytes: Vec<u8>,
        created: Option<Timestamp>,
        claims: &[claims::Claim],
    ) -> Result<Stored, Error> {
        let copy = match T::REVISIONS {
            Some(_) => {
                match copies::keep::<T, _>(
                    &self.docs(),
                    key,
                    version,
                    &stored.bytes,
                    &stored.cas,
                    !stored.conflicts.is_empty(),
                )
                .await
                {
                    Ok(copy) => copy,
                    Err(err) => {
                        claims::release(&self.aux(), claims).await;
                        return Err(err);
                    }
                }
            }
            None => None,
        };
        let written = match self.docs().replace(key, &bytes, &stored.cas).await {
            // The revisions in conflict with the one replaced are still there.
            Ok(cas) => Stored::new(bytes, cas).with_conflicts(stored.conflicts.clone()),
            Err(err) => {
                // An ambiguous replace may have landed, holding these lookups: they stay.
                if err.class() != ErrorClass::Ambiguous {
                    claims::release(&self.aux(), claims).await;
                }
                if let Some(copy) = &copy {
                    copies::after_failed_save::<T, _>(
                        &self.docs(),
                        key,
                        version,
                        created,
                        copy,
                        &err,
                    )
                    .await;
                }
                return Err(err);
            }
        };
        Ok(written)
    }

    /// Reads the document under `key`, applies `change` to its body and saves it, again while another writer
    /// got there first or the store failed transiently, as the [`RetryPolicy`] allows. `change` may return
    /// `()` or `Result<(), Error>`; an error stops the update and nothing is written. For a closure that
    /// fails with the application's own error type, see [`Repo::try_update`].
    ///
    /// Fails with [`Error::NotFound`] if there is no document under `key`, [`Error::Validation`] if the
    /// changed body breaks the model's rules, and with the last attempt's error when the policy gives up.
    pub async fn update<R: UpdateResult>(
        &self,
        key: &Key<T>,
        mut change: impl FnMut(&mut T) -> R,
    ) -> Result<Doc<T>, Error> {
        self.update_doc(key, |doc| change(doc)).await
    }

    /// [`Repo::update`] with a closure that fails with the application's own error (any
    /// `std::error::Error + Send + Sync + 'static`): it stops the update, nothing is written, and it comes
    /// back as [`Error::Application`], which [`Error::into_application`] turns into its type again. A
    /// docmodel [`Error`] the closure returns (a setter's, through `?` and `From`) comes back as itself.
    ///
    /// ```
    /// # use docmodel::{DocModel, Error, Repo, store::MemoryStore};
    /// # #[derive(Debug, serde::Serialize, serde::Deserialize, DocModel)]
    /// # #[docmodel(type = "account", schema = "1.0", key = "account::{id}")]
    /// # struct Account { id: u64, #[docmodel(get)] balance: i64 }
    /// #[derive(Debug, PartialEq, thiserror::Error)]
    /// #[error("the balance would be {0}")]
    /// struct Overdrawn(i64);
    ///
    /// fn withdraw(amount: i64) -> impl FnMut(&mut Account) -> Result<(), Overdrawn> {
    ///     move |account| {
    ///         let balance = account.balance - amount;
    ///         if balance < 0 {
    ///             return Err(Overdrawn(balance));
    ///         }
    ///         account.balance = balance;
    ///         Ok(())
    ///     }
    /// }
    ///
    /// # pollster::block_on(async {
    /// let accounts = Repo::<Account>::new(MemoryStore::new());
    /// accounts.insert(Account { id: 1, balance: 10 }).await?;
    /// let account = accounts.try_update(&Account::key(1), withdraw(4)).await?;
    /// assert_eq!(account.balance(), 6);
    ///
    /// let err = accounts.try_update(&Account::key(1), withdraw(7)).await.unwrap_err();
    /// assert_eq!(err.to_string(), "document `account::1`: the update was stopped: the balance would be -1");
    /// assert_eq!(err.into_application::<Overdrawn>().unwrap(), Overdrawn(-1));
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn try_update<E>(
        &self,
        key: &Key<T>,
        mut change: impl FnMut(&mut T) -> Result<(), E>,
    ) -> Result<Doc<T>, Error>
    where
        E: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        self.update_doc(key, |doc| change(doc).map_err(Error::application))
            .await
    }

    /// [`Repo::update`] with the whole [`Doc`]: `change` reaches the envelope too, through
    /// [`Doc::envelope_mut`] (`_geo`, `_accessed`). The repository sets `_ver`, `_modified` and
    /// `_modifiedBy` itself, and keeps `_created` as read: changes to those are not written.
    pub async fn update_doc<R: UpdateResult>(
        &self,
        key: &Key<T>,
        mut change: impl FnMut(&mut Doc<T>) -> R,
    ) -> Result<Doc<T>, Error> {
        let mut attempt = 1;
        loop {
            let mut doc = self.read(key).await?.ok_or_else(|| Error::NotFound {
                key: key.as_str().to_owned(),
            })?;
            let (ver, created) = (doc.envelope().ver, doc.envelope().created);
            change(&mut doc)
                .into_result()
                .map_err(|err| err.with_key(key.as_str()))?;
            // The version read and its creation time are what the save's compare-and-swap and revision copy
            // stand on: a change to them is not kept.
            (doc.envelope_mut().ver, doc.envelope_mut().created) = (ver, created);
            match self.save(&mut doc).await {
                Ok(()) => return Ok(doc),
                Err(err) if RetryPolicy::retries(&err) && attempt < self.retry.attempts() => {
                    self.retry.pause(attempt).await;
                    attempt += 1;
                }
                Err(err) => return Err(err),
            }
        }
    }

    /// Records that the document under `key` was read, writing `_accessed` (now, by the repository's
    /// clock) for a model that keeps it (`envelope(accessed)`), and returns the document.
    ///
    /// A touch is not a new version: `_ver`, `_modified` and the revision copies stay as they are, and the
    /// body is written back byte for byte as it was read, with compare-and-swap. A document whose stored
    /// form a write would change (one read at an older schema, or adopted under an alias, without a type or
    /// with zone-less times) is saved instead: a new version in the model's envelope, with its rules
    /// checked, as any save. Touching changes the document's token, so a [`Doc`] read before it and saved
    /// after is [`Error::Conflict`], as after any other write.
    ///
    /// Readers touching one document at once do not fight: a touch that meets another (a conflict) reads
    /// again, and is done if that one recorded a time at or after its own. With [`Repo::expiry`] set, a
    /// touch sets the document's expiry again: a session in use stays.
    ///
    /// ```
    /// # use docmodel::{DocModel, Repo, Timestamp, store::MemoryStore};
    /// # #[derive(Debug, serde::Serialize, serde::Deserialize, DocModel)]
    /// # #[docmodel(type = "session", schema = "1.0", key = "session::{id}", envelope(accessed))]
    /// # struct Session { id: u64 }
    /// # pollster::block_on(async {
    /// let sessions = Repo::<Session>::new(MemoryStore::new()).clock(|| Timestamp::from_millis(1_000));
    /// sessions.insert(Session { id: 1 }).await?;
    /// let sessions = sessions.clock(|| Timestamp::from_millis(5_000));
    /// let session = sessions.touch(&Session::key(1)).await?;
    /// assert_eq!(session.envelope().accessed, Some(Timestamp::from_millis(5_000)));
    /// assert_eq!(session.envelope().ver, 1);
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Fails with [`Error::NotFound`] if there is no document under `key`, with [`Error::Validation`] if the
    /// model checks reads (`validate_on_read`) and the document breaks its rules, and with a permanent
    /// [`Error::Store`] naming the option for a model that does not keep `_accessed`; nothing is written
    /// then.
    pub async fn touch(&self, key: &Key<T>) -> Result<Doc<T>, Error> {
        self.get_and_touch(key)
            .await?
            .ok_or_else(|| Error::NotFound {
                key: key.as_str().to_owned(),
            })
    }

    /// The document under `key`, with its reading recorded in `_accessed` as [`Repo::touch`] does;
    /// `None` (and nothing written) if there is none. No store here reads and writes in one operation, so
    /// this is a read and a compare-and-swap replace.
    pub async fn get_and_touch(&self, key: &Key<T>) -> Result<Option<Doc<T>>, Error> {
        self.check_store()?;
        if !T::ENVELOPE.keeps(EnvelopeField::Accessed) {
            return Err(Error::store(
                key.as_str(),
                format!(
                    "the model `{}` does not keep `_accessed`; add `envelope(accessed)` to record reads",
                    T::TYPE
                ),
            ));
        }
        let now = (self.clock)();
        let mut attempt = 1;
        loop {
            let Some(mut doc) = self.get(key).await? else {
                return Ok(None);
            };
            if attempt > 1 && doc.envelope().accessed >= Some(now) {
                // Another reader touched it meanwhile, as late as this one would.
                return Ok(Some(doc));
            }
            match self.touch_read(&mut doc, now).await {
                Ok(()) => return Ok(Some(doc)),
                Err(err) if RetryPolicy::retries(&err) && attempt < self.retry.attempts() => {
                    self.retry.pause(attempt).await;
                    attempt += 1;
                }
                Err(err) => return Err(err),
            }
        }
    }

    /// Writes `_accessed` into a document just read: in place when the rest of it is written back byte for
    /// byte as stored, by a save otherwise.
    async fn touch_read(&self, doc: &mut Doc<T>, now: Timestamp) -> Result<(), Error> {
        let key = doc.key().as_str().to_owned();
        let Some(stored) = doc.stored().cloned() else {
            return Err(Error::NotFound { key });
        };
        if doc.migrated_from().is_some() || doc.to_vec_as_read(doc.envelope())? != *stored.bytes {
            doc.envelope_mut().accessed = Some(now);
            return self.save(doc).await;
        }
        let mut envelope = doc.envelope().clone();
        envelope.accessed = Some(now);
        let bytes = doc.to_vec_as_read(&envelope)?;
        let cas = self.docs().replace(&key, &bytes, &stored.cas).await?;
        let lookups = doc.stored_lookups().to_vec();
        doc.written(
            envelope,
            Stored::new(bytes, cas).with_conflicts(stored.conflicts),
            lookups,
        );
        Ok(())
    }

    /// Removes the document under `key`, its lookups and its revision copies, and any revisions in conflict
    /// with it ([`Doc::conflicts`]) with their lookups.
    ///
    /// Fails with [`Error::NotFound`] if there is none, [`Error::WrongType`] if the key holds another model's
    /// document, [`Error::Conflict`] if the document changed while it was being removed; nothing is removed
    /// then, but for a document with conflicting revisions: its revision read is removed, and another writer
    /// saved one of the others meanwhile (that document stands, with its lookups and copies). A failure after the document is gone leaves copies that no listing shows; [`Repo::sweep`]
    /// removes them.
    pub async fn remove(&self, key: &Key<T>) -> Result<(), Error> {
        self.check_store()?;
        let doc = self.read(key).await?.ok_or_else(|| Error::NotFound {
            key: key.as_str().to_owned(),
        })?;
        // Revisions a replicating server wrote beside this one would take its place: they go too, once read
        // as this model's (another model's revision stops the removal before it starts).
        let mut conflicts = Vec::new();
        for cas in doc.conflicts() {
            if let Some(stored) = self.store.get_revision(key.as_str(), cas).await? {
                conflicts.push(Self::from_stored(key, stored)?);
            }
        }
        let mut values: Vec<&String> = doc
            .stored_lookups()
            .iter()
            .chain(
                conflicts
                    .iter()
                    .flat_map(|conflict| conflict.stored_lookups()),
            )
            .collect();
        let entries: Vec<String> = doc
            .stored()
            .into_iter()
            .chain(conflicts.iter().filter_map(Doc::stored))
            .flat_map(|stored| self.entries(&stored.bytes, key.as_str()))
            .collect();
        values.extend(&entries);
        values.sort_unstable();
        values.dedup();
        // The lookups' and entries' tokens are read before the document goes: one a new document under the
        // key claims afterwards is written again, so these tokens no longer remove it.
        let released = claims::owned(&self.aux(), values.into_iter(), key.as_str()).await?;
        self.docs().remove(key.as_str(), doc.cas()).await?;
        for conflict in &conflicts {
            match self.docs().remove(key.as_str(), conflict.cas()).await {
                Ok(()) => {}
                // Written over or removed by another writer meanwhile: if a document stands under the key
                // now, it is that writer's, and its lookups and copies stay.
                Err(Error::NotFound { .. } | Error::Conflict { .. }) => {
                    if self.store.get(key.as_str()).await?.is_some() {
                        return Err(Error::Conflict {
                            key: key.as_str().to_owned(),
                        });
                    }
                }
                Err(err) => return Err(err),
            }
        }
        claims::release(&self.aux(), &released).await;
        if let Some(keep) = T::REVISIONS {
            let envelope = doc.envelope();
            copies::remove_all::<T, _>(
                &self.docs(),
                key.as_str(),
                envelope.ver,
                envelope.created,
                keep,
            )
            .await?;
        }
        Ok(())
    }

    /// Removes the revision copies under `key` that no document keeps: those left by failures (a prune that
    /// failed after its save, a remove that failed after its document) or kept by an earlier document under
    /// the key. Returns how many it removed. Needs a store that can scan
    /// ([`Capabilities::scan`](crate::store::Capabilities)); other values under the prefix are left alone.
    pub async fn sweep(&self, key: &Key<T>) -> Result<usize, Error> {
        copies::sweep::<T, _>(&self.docs(), key.as_str()).await
    }

    /// The kept earlier versions of the document under `key`, newest first, each migrated to the current
    /// schema if it is older: with `revisions = N`, the copies of the `N` versions before the current one
    /// that are there. Two store operations (the document, then its copies in one batch); no scan.
    pub async fn revisions(&self, key: &Key<T>) -> Result<Vec<Doc<T>>, Error> {
        let Some(keep) = T::REVISIONS else {
            return Ok(Vec::new());
        };
        let Some(current) = self.read(key).await? else {
            return Ok(Vec::new());
        };
        let envelope = current.envelope();
        copies::list::<T, _>(
            &self.docs(),
            key.as_str(),
            envelope.ver,
            envelope.created,
            keep,
        )
        .await?
        .into_iter()
        .map(|(_, stored)| Self::from_stored(key, stored))
        .collect()
    }

    /// The document a reference points to; `None` if it is gone. A document of another type under that key is
    /// [`Error::WrongType`].
    pub async fn load(&self, reference: &Ref<T>) -> Result<Option<Doc<T>>, Error> {
        self.get(reference.key()).await
    }

    /// Version `version` of the document under `key`, if a copy of it is kept: one of the last `N` versions
    /// before the current one.
    pub async fn revision(&self, key: &Key<T>, version: u64) -> Result<Option<Doc<T>>, Error> {
        Ok(self
            .current_and_revision(key, version)
            .await?
            .and_then(|(_, copy)| copy))
    }

    /// The current document under `key` and its kept copy of `version`, if any.
    async fn current_and_revision(
        &self,
        key: &Key<T>,
        version: u64,
    ) -> Result<Option<(Doc<T>, Option<Doc<T>>)>, Error> {
        let Some(current) = self.read(key).await? else {
            return Ok(None);
        };
        let Some(keep) = T::REVISIONS else {
            return Ok(Some((current, None)));
        };
        let envelope = current.envelope();
        if !RevisionWindow::new(envelope.ver, keep).contains(version) {
            return Ok(Some((current, None)));
        }
        let copy = copies::read::<T, _>(&self.docs(), key.as_str(), version, envelope.created)
            .await?
            .map(|stored| Self::from_stored(key, stored))
            .transpose()?;
        Ok(Some((current, copy)))
    }

    /// Brings kept version `version` back, whole (its body, the fields this code does not know, its schema
    /// when a newer minor wrote it), as a new version: the current one is kept as a revision like on any save.
    /// Fails with [`Error::NotFound`] naming the key if there is no document, and naming the revision key if no
    /// copy of that version is kept.
    pub async fn restore(&self, key: &Key<T>, version: u64) -> Result<Doc<T>, Error> {
        let mut attempt = 1;
        loop {
            let not_found = || Error::NotFound {
                key: revision_key::<T>(key.as_str(), version),
            };
            let (mut current, old) =
                self.current_and_revision(key, version)
                    .await?
                    .ok_or_else(|| Error::NotFound {
                        key: key.as_str().to_owned(),
                    })?;
            current.take_content(old.ok_or_else(not_found)?);
            match self.save(&mut current).await {
                Ok(()) => return Ok(current),
                Err(err) if RetryPolicy::retries(&err) && attempt < self.retry.attempts() => {
                    self.retry.pause(attempt).await;
                    attempt += 1;
                }
                Err(err) => return Err(err),
            }
        }
    }
}

/// Why a write is undone (for [`undo_failed`]), and the error the caller gets once it is.
fn unconfirmed_error(unconfirmed: claims::Unconfirmed) -> (String, Error) {
    match unconfirmed {
        claims::Unconfirmed::Lost(lookup) => (
            format!("another document took the lookup `{lookup}` meanwhile"),
            Error::AlreadyExists { key: lookup },
        ),
        claims::Unconfirmed::Failed { lookup, error } => (
            format!("the lookup `{lookup}` could not be confirmed ({error})"),
            error,
        ),
    }
}

/// The error of a write that could not keep a lookup and could not be undone: the caller must know that
/// its document may stand, holding a value whose lookup names another.
fn undo_failed(key: &str, cause: &str, undo: &str, err: &Error) -> Error {
    Error::store_with(
        StoreErrorKind::Ambiguous,
        key,
        format!(
            "the document was written, but {cause}, and {undo} failed ({err}); read the document before \
             writing it again"
        ),
    )
}

/// The key of a model's id counter: `count<d><type>`.
fn counter_key<T: DocModel>() -> String {
    format!("count{}{}", T::KEY.delimiter(), T::TYPE)
}

/// What [`Repo::insert`] stores: a body, or a [`Doc`] carrying envelope values of its own.
pub trait NewDoc<T> {
    /// The document to insert; its rules are checked as it is written.
    fn into_doc(self) -> Result<Doc<T>, Error>;
}

impl<T: DocModel> NewDoc<T> for T {
    fn into_doc(self) -> Result<Doc<T>, Error> {
        Doc::unchecked(self)
    }
}

impl<T: DocModel> NewDoc<T> for Doc<T> {
    fn into_doc(self) -> Result<Doc<T>, Error> {
        Ok(self)
    }
}

/// What an [`Repo::update`] closure returns: `()` or `Result<(), Error>` ([`Repo::try_update`] takes the
/// application's own error type).
pub trait UpdateResult {
    /// As a `Result`.
    fn into_result(self) -> Result<(), Error>;
}

impl UpdateResult for () {
    fn into_result(self) -> Result<(), Error> {
        Ok(())
    }
}

impl UpdateResult for Result<(), Error> {
    fn into_result(self) -> Result<(), Error> {
        self
    }
}

/// How many documents [`Repo::insert_many`] hands the store at once.
const INSERT_BATCH: usize = 1_000;

/// What an insert writes, computed before the first write.
struct NewInsert<T> {
    doc: Doc<T>,
    envelope: crate::Envelope,
    bytes: Vec<u8>,
    key: String,
    lookups: Vec<String>,
    /// The index entries the repository keeps for it (none on a store with a query language).
    entries: Vec<String>,
}

/// A save of one document, before its first write ([`Repo::prepare_save`]).
struct Prepared {
    key: String,
    /// The document as read: the bytes its copy holds, the token its replace checks.
    stored: Stored,
    /// The version read, which the save moves on from.
    version: u64,
    /// The envelope written: the next version, modified now by the actor.
    envelope: crate::Envelope,
    bytes: Vec<u8>,
    /// The lookups the written document holds.
    lookups: Vec<String>,
    /// The lookups that change: (held before, held after).
    moved: Vec<(String, String)>,
    old_entries: Vec<String>,
    new_entries: Vec<String>,
}

impl Prepared {
    /// Whether the save claims or releases nothing: no lookup moves, no index entry changes.
    fn claims_nothing(&self) -> bool {
        self.moved.is_empty() && self.old_entries == self.new_entries
    }
}

/// A repository's store with the repository's [`WriteOptions`] on every write (the options of the call are
/// replaced): what the protocol's code writes through, so no write can forget them.
struct Writing<'s, S> {
    store: &'s S,
    options: WriteOptions,
}

impl<S: Store> Store for Writing<'_, S> {
    fn get(&self, key: &str) -> impl Future<Output = Result<Option<Stored>, Error>> + Send {
        self.store.get(key)
    }

    fn get_many(
        &self,
        keys: &[&str],
    ) -> impl Future<Output = Result<Vec<Option<Stored>>, Error>> + Send {
        self.store.get_many(keys)
    }

    fn get_revision(
        &self,
        key: &str,
        cas: &Cas,
    ) -> impl Future<Output = Result<Option<Stored>, Error>> + Send {
        self.store.get_revision(key, cas)
    }

    fn insert_with(
        &self,
        key: &str,
        value: &[u8],
        _options: &WriteOptions,
    ) -> impl Future<Output = Result<Cas, Error>> + Send {
        self.store.insert_with(key, value, &self.options)
    }

    fn replace_with(
        &self,
        key: &str,
        value: &[u8],
        cas: &Cas,
        _options: &WriteOptions,
    ) -> impl Future<Output = Result<Cas, Error>> + Send {
        self.store.replace_with(key, value, cas, &self.options)
    }

    fn remove_with(
        &self,
        key: &str,
        cas: Option<&Cas>,
        _options: &WriteOptions,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        self.store.remove_with(key, cas, &self.options)
    }

    fn write_atomic(
        &self,
        writes: &[crate::store::Write<'_>],
        _options: &WriteOptions,
    ) -> impl Future<Output = Result<Vec<Option<Cas>>, Error>> + Send {
        self.store.write_atomic(writes, &self.options)
    }

    fn insert_many(
        &self,
        values: &[(&str, &[u8])],
        _options: &WriteOptions,
    ) -> impl Future<Output = Vec<Result<Cas, Error>>> + Send {
        self.store.insert_many(values, &self.options)
    }

    fn counter(&self, key: &str, delta: u64) -> impl Future<Output = Result<u64, Error>> + Send {
        self.store.counter(key, delta)
    }

    fn capabilities(&self) -> crate::store::Capabilities {
        self.store.capabilities()
    }

    fn scan(&self, prefix: &str) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        self.store.scan(prefix)
    }

    fn scan_range(
        &self,
        start: &str,
        end: &str,
    ) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        self.store.scan_range(start, end)
    }

    fn query(
        &self,
        query: &[u8],
    ) -> impl Future<Output = Result<Vec<(String, Stored)>, Error>> + Send {
        self.store.query(query)
    }

    fn create_index(&self, definition: &[u8]) -> impl Future<Output = Result<(), Error>> + Send {
        self.store.create_index(definition)
    }
}
