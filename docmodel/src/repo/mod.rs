//! `Repo<T>`: a model's documents in a store, with envelope upkeep, revision history, lookups and
//! compare-and-swap.
//!
//! This file holds [`Repo`], its builder and what every operation shares; each operation has a file of its own
//! holding its `impl Repo` block, and each protocol a file that its operations call:
//!
//! | file | what it holds |
//! |---|---|
//! | `insert.rs` | [`Repo::insert`], [`Repo::insert_many`] ([`InsertMany`]), [`NewDoc`], [`InsertProgress`] |
//! | `read.rs` | [`Repo::get`] and its batch and lookup forms; the history: [`Repo::revisions`], [`Repo::revision`], [`Repo::restore`] |
//! | `save.rs` | [`Repo::save`], [`Repo::update`] and its forms, [`Repo::touch`], [`UpdateResult`] |
//! | `remove.rs` | [`Repo::remove`], [`Repo::sweep`] |
//! | `resolve.rs` | [`Repo::resolve`], [`Resolve`] |
//! | `settle.rs` | [`Repo::settle_lookup`], [`SettledLookup`]: lookups servers that replicate left in conflict |
//! | `find.rs`, `native.rs` | [`Repo::find`], [`Repo::count`], [`Repo::ensure_indexes`]: through index entries or a scan, or in the store's query language |
//! | `migrate_all.rs` | [`Repo::migrate_all`] |
//! | `reindex.rs` | [`Repo::reindex`]: the lookups and index entries of documents docmodel did not write |
//! | `claims.rs` | the [lookup claims](Repo#lookup-claims) protocol, for lookups and index entries alike |
//! | `copies.rs` | the [revision copies](Repo#revision-copies) protocol |
//! | `records.rs` | what each copy records of the versions saved from it, which a merge follows |
//! | `history.rs` | each side's history as a merge follows it through those records, and the base it takes |
//! | `transact.rs` | [`Repo::update`] in one transaction of a store that runs one ([`Capabilities::transactions`](crate::store::Capabilities::transactions)) |
//! | `together.rs` | the saves of a batch in one atomic write, their claims with them ([`Repo::migrate_all`]) |
//! | `indexes.rs` | the [index entries](Repo#index-entries) a model's indexes keep |
//! | `retry.rs`, `limits.rs` | [`RetryPolicy`], [`Limits`] |
//! | `writing.rs` | the store every protocol step writes through, with the repository's expiry and durability |
//!
//! The protocol every operation keeps (the order of its store operations, and what a failure or a crash after
//! each leaves) is written on [`Repo`]'s page, where a user of the repository reads it.

mod claims;
mod copies;
mod find;
mod history;
mod indexes;
mod insert;
mod keys;
mod limits;
mod merge;
mod migrate_all;
mod native;
pub(crate) mod partition;
mod read;
mod records;
mod reindex;
mod remove;
mod resolve;
mod retry;
mod save;
mod schema_record;
mod settle;
mod together;
mod transact;
#[cfg(feature = "json-schema")]
mod validation;
mod walk;
mod writing;

use std::marker::PhantomData;
use std::sync::Arc;
#[cfg(feature = "tracing")]
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

use self::writing::Writing;
use crate::keyshape::{counter_key, lookup_keys};
use crate::store::{Store, Stored, WriteOptions};
use crate::trace::{Traced, operation};
use crate::{Doc, DocModel, EnvelopeField, Error, Key, Layout, StoreErrorKind, Timestamp};
use crate::{Durability, Expiry};

pub use self::find::Pages;
pub use self::insert::{InsertMany, InsertProgress, NewDoc};
pub use self::limits::{Limit, Limits};
pub use self::migrate_all::{Adoption, MigrateAll, MigrationFailure, MigrationReport};
pub use self::partition::{Partition, PartitionError};
pub use self::reindex::{Duplicate, Reindex, ReindexReport};
pub use self::resolve::Resolve;
pub use self::retry::RetryPolicy;
pub use self::save::UpdateResult;
pub use self::settle::SettledLookup;
pub use self::walk::Walk;

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
///
/// # The repository protocol
///
/// A repository shares its store with other repositories, other processes and crashes. It keeps these
/// promises with nothing but the [`Store`] operations (no transactions, and no scan but where a step below names one); where a store makes a batch
/// of writes atomically ([`Store::write_atomic`]), a save is one batch, which only leaves fewer crash cases:
///
/// - **Nothing committed is lost.** A document is changed only by a compare-and-swap replace of the version
///   read; a save that finds another version is [`Error::Conflict`] and has changed nothing.
/// - **Nothing another document owns is touched.** A repository writes over or removes only what it has
///   read as its own: the document (decoded as the model, `_type` checked), its revision copies (recognised by
///   type, `_ver` and `_created`: see [revision copies](Repo#revision-copies)), its lookup documents (exactly
///   `{"ref": key}` naming it: see [lookup claims](Repo#lookup-claims)). Anything else at those keys is a typed error naming the key ([`Error::WrongType`],
///   [`Error::AlreadyExists`]) and is left as it is.
/// - **No stored value panics.** Versions are counted with checked arithmetic: a `_ver` that cannot advance
///   is [`Error::VersionLimit`].
///
/// After every operation, however two writers' store operations interleave (`tests/suite/interleavings.rs` runs
/// every order of seven two-writer scenarios, and drops each operation at each of its await points):
///
/// - at most one document holds a lookup value, and every value a document holds has its lookup document
///   naming it; a lookup naming a document that does not hold its value is stale, skipped by
///   [`Repo::get_by_lookup`] and taken over by the next claim;
/// - the copies of the last `N` versions of a document are all there (no committed version is lost), but for
///   those that expired: with [`Repo::expiry`], each copy expires as long after its save as the document
///   did, and a later save or touch extends the document only, so the history of a document that expires
///   reaches back that long;
/// - an operation that returns an error has written nothing that survives, but for one value: the copy of
///   the version the document is at, when the write that made it was undone. It holds that very document,
///   is never listed, and is used by the next save from that version. It cannot be removed safely: a save
///   from that version may have read it already and be about to commit with it;
///   A failed [`Repo::resolve`] leaves its copies too, above the document's version: never listed, and
///   written over by the merge or save that reaches their keys;
/// - a crash or a dropped future leaves at most stale lookups, that copy, and copies below the window or of
///   a removed document: never listed, and removed by [`Repo::sweep`] (those of a removed document also by a
///   [`Repo::remove`] of the key that finds no document).
///
/// The store operations of each method, in order (`N` = `revisions`, `n` = the version read):
///
/// | method | operations | a failure or crash after a step leaves |
/// |---|---|---|
/// | `insert` | claim each lookup, then each index entry; insert the document; confirm each claim | claims naming a document that does not hold them (stale: skipped by readers, taken over by the next claim) |
/// | `save` | read the lookups and index entries to release; claim new lookups, then new entries; insert the copy of `n`; replace the document (the commit); confirm claims; get + remove the copy of `n - N`; release old lookups | before the commit: the old version, whole, and a copy at `n` that the next save uses; after it: the new version and leftovers no reader lists |
/// | `save` on a store with atomic writes (`MemoryStore`, `Redb`), with revisions | as above, but the copy of `n`, the replace and the removal of the copy of `n - N` (got first) are one `write_atomic`; the prune stays a step of its own when a lookup or index entry moves (its claim may yet undo the save); a batch refused because the copy's key is taken or the copy to prune changed since it was got is made in steps, as above | before the commit: the old version, whole, with no copy at `n`; after it: the new version with its window of copies (with a moved lookup or entry, or after the steps: as `save`) |
/// | `update`, `restore` | get (the copy too, for `restore`); then `save`; repeated under the [`RetryPolicy`] on a conflict or a transient failure | as `save` |
/// | `update` on a store with transactions (`MemoryStore`, `Redb`) | one [`Store::transact`]: get the document; apply the change; get, then insert or write again by its token, each lookup and index entry it takes; insert the copy of `n`; replace the document; get the copy of `n - N` and remove it; get each lookup and entry it leaves and remove it. Another writer waits rather than conflicting; repeated under the [`RetryPolicy`] on a transient failure only | the old version whole, or the new one with its lookups and copies: nothing between |
/// | `remove` | get (the document is decoded: another model's is refused); get each revision in conflict with it (decoded too); read its lookups' and index entries' tokens; remove it by its token, then each conflicting revision; release its lookups and entries; get its copies (one batch) and remove each by its token | the document gone and some of its copies left: never listed, replaced by the saves of a new document under the key, removed by [`Repo::sweep`], or by a `remove` of the key that finds no document (which scans the copy prefix, and is `NotFound`) |
/// | `touch`, `get_and_touch` | get; replace the document by its token with only `_accessed` changed (a document a write would change otherwise is saved instead, as `save`); on a conflict, again under the [`RetryPolicy`], done when the document read again was touched as late | nothing: the replace is the only write |
/// | `revisions`, `revision` | get; get the window's copies (one batch), or for `revision` the one copy | nothing: they only read |
/// | `find`, `count` | served by an index: get its markers; scan its entries in the range the filter fixes; scan the schema index's older range and get those documents; get the documents the entries name (batches of 256). Otherwise: scan the model's key range and get its documents (batches of 256) | nothing: they only read |
/// | `find`, `count` on a store with a query language | `query` (CouchDB: one or two `_find` requests a page, more when the filter turns candidates down, and two or more for the documents at another schema; a count, a request per 1000 matches) | nothing |
/// | `ensure_indexes` on a store with a query language | `create_index` for the type, the schema, `_created` and `_modified` (where kept) and each declared index; get the markers of index entries an earlier docmodel kept there, and remove each | the indexes created so far (the next call creates the rest); without a marker, an earlier program reads the model's documents rather than entries no longer kept |
/// | `ensure_indexes` | get the markers; for an incomplete index, scan the model's key range and get its documents, claim each document's entries, then write the marker | entries without a marker: the index is not read, and the next call builds it again |
/// | `migrate_all` | scan the model's key prefix (or take the keys given); per batch, get the documents (one batch); for each below the current schema (and, with `rewrite_adopted`, each adopted in another form), `save` (after a conflict: get, then `save` again). On a store with atomic writes: get the lookups and index entries the batch's saves claim and release and the copies they prune (one batch), then one `write_atomic` of every claim (inserted, or written again by its token where it names the document already), copy, replace, prune and release of the batch, which needs no confirming; a save whose claim finds a value another document's lookup names, or a key another save of the batch touches, and every save of a batch that fails, is made on its own | as `save`, for the document being written; the others are whole, old or new. With atomic writes: the batch's documents all old or all new, with their lookups |
/// | `resolve` | get (with its conflicts); get each conflicting revision; get the window's copies (one batch) and each of their conflicting revisions; read the lookups to release; claim each lookup; insert the copy of the revision read (as a save does) and of each displaced version; replace the document (the commit); confirm claims; get the copies (one batch), putting back one written over; remove each losing revision whose content is kept; release old lookups | before the commit: the conflict as it was, and copies above the document's version that no listing shows (written over by the merge or save that reaches them); after it: the merged document, and at worst losing revisions still in conflict, merged again by the next `resolve` |
///
/// A lookup claimed but lost to another writer after the write undoes the write (see
/// [lookup claims](Repo#lookup-claims)). Every `let _ =` on a store result is tidying whose failure loses nothing; the comment beside it names who
/// finishes the work.
///
/// ## Revision copies
///
/// A revision copy is what lets `revisions`, `revision` and `restore` read earlier versions by key.
///
/// ### What a copy is
///
/// The copy of version `n` of the document under `key` lives at exactly one key, `<key><d>v<d><n>`
/// ([`revision_key`](crate::revision_key)), so every operation finds it by key and none needs a scan. A value there is taken
/// for this document's copy only by what it holds: the model's `_type`, `_ver` equal to `n`, and the document's
/// `_created` (when both carry one). Anything else at that key (another model's document, whose key happens
/// to look the same) is never listed, replaced or removed: writing over it is [`Error::WrongType`] naming
/// the key and the type found.
///
/// ### The order of a save (`revisions = N`, from version `n` to `n + 1`)
///
/// 1. **insert** the copy of `n`, from the bytes the document was read with (no extra read). If the key is
///    taken: a copy of the same JSON is the same version (left by a failed save, or written by a concurrent
///    save from `n`) and is used as it is; a copy of other JSON is an orphan of an earlier document under this
///    key, or this version as it was before a [touch](Repo::touch) rewrote its `_accessed`, replaced (by its token) only after the current document is read and still carries the token this
///    save read it with, which proves that no save from `n` has committed since. Otherwise the save is
///    [`Error::Conflict`] (or [`Error::NotFound`]), and nothing was written.
/// 2. **replace** the document with compare-and-swap: the commit point.
/// 3. **get** the copy that falls out of the window (`n - N`) and **remove** it by its token if it is this
///    document's. A failure here loses nothing: the save has committed, and a copy outside the window is
///    never listed. With `revisions(keep = N, for = "30d")` this step, never part of an atomic batch, finds
///    the oldest copy held below the last `N` (a get of the copy below `n - N`, or a galloping search), then
///    from it upwards **gets** the copy after each for the time it was replaced and **removes** it by its
///    token while that is longer ago than the age, stopping at the first one kept: every copy above is
///    younger. A copy kept young is removed by a later save, once old; a crash here leaves copies the next
///    save's prune (it starts at the oldest) or [`Repo::sweep`](crate::Repo::sweep) removes.
///
/// A crash after 1 leaves a copy of `n` at a version the document is still at: never listed, and used or
/// replaced by the next save from `n`. A crash after 2 leaves one extra copy below the window: never listed,
/// removed by [`Repo::sweep`](crate::Repo::sweep).
///
/// When step 2 fails (a conflict, a failure, or a write whose answer was lost), the copy written in step 1
/// (only if this save wrote it, or may have: a write whose answer was lost) is removed when the document,
/// read again, is gone, was created again since (a later life of the key), or has moved so far that its
/// window no longer keeps `n` (by count, or with an age as a prune judges it: by the `_modified` of the copy
/// after it, a copy with none after it going); otherwise it stays, because a concurrent save from `n` may
/// have committed relying on it. A document with revisions in conflict keeps it: a losing revision's window
/// may hold it. It is removed by the token it was written
/// with or, if that changed (a save that committed with the copy recorded itself in it since, or a writer
/// left behind put it back) or was never known, as [`Repo::sweep`](crate::Repo::sweep) removes a copy: read
/// first, then the document judged again, then removed by the token just read.
///
/// ### Removing copies
///
/// A copy is removed only by its token: read after the document it belongs to was removed or moved past it
/// (a prune, a removal), read before the document is read again and found so (a sweep, a failed save's
/// tidying), or the token a failed save wrote it with, once the document shows that.
/// A save writes its copy (a fresh insert or a replace changes the token), so a removal by a token read
/// earlier does not take away a copy that a later save committed with. The exception: a save that finds
/// the identical copy (the same JSON, `_created` included) uses it as it is; a document removed and created
/// again with identical content and timestamps could then lose that copy to a removal racing with it.
///
/// ## Conflicting revisions
///
/// A store that replicates between servers (CouchDB) can hold several revisions of one document: each side
/// saved its own version before the two replicated. [`Repo::get`] returns the revision the store ranks first
/// and names the others ([`Doc::conflicts`]); a save writes over that one revision and leaves the others.
/// [`Repo::resolve`] merges them, losing nothing the model's window keeps:
///
/// 1. **read** the document and each conflicting revision, typed (a revision that is not the model's stops the
///    merge before any write), and the window's copies with their own conflicting revisions (both sides saved
///    from the same versions). The policy ([`Resolve`]) picks the version kept. Displaced are the candidates not
///    picked, and each copy revision that holds other JSON than the one kept at its key.
/// 2. **insert** the copies: a merge is a save from the revision read, so when that revision is at the highest
///    version `m`, its copy at `m` is its own bytes (what any save from it writes, so a concurrent save
///    writes the same), and the displaced versions are the copies of the versions after it, as far as the
///    merged document's window reaches (one below it is dropped, as a save's prune drops it). Only merges
///    write at those keys before a merge commits; another copy of this model found there is written over only
///    while the document still carries the token read. A merge that fails leaves its copies: above the
///    document's version, never listed, and written over by the merge or save that reaches them.
/// 3. **replace** the revision read with the picked content above them (the commit); lookups move as on a
///    save.
/// 4. **verify** the copies of step 2 are in place, putting back one that another merge of the same revisions
///    (with another policy) wrote over before this commit, then **remove** each losing revision whose content
///    is kept (its copy in place, dropped below the window, or the document itself). A revision not removed
///    stays in conflict for the next merge.
///
/// A save of a document with conflicting revisions never writes over another copy of the version it read
/// (the other side's): it fails, asking for a merge first.
///
/// A three-way merge ([`Resolve::merge`]) takes as its base only a version every side's own history reaches:
/// each copy records the digests of the versions saved from it ([`EnvelopeField::CopyNext`](crate::EnvelopeField::CopyNext)),
/// and the merge follows each side from its document through every copy recording a version it reached. A
/// merge is recorded on the copy of each revision it merged; a copy revision it renumbers keeps what it
/// recorded. A copy written over (another side's, replicated ahead of its document) passes on what it
/// recorded to the copy written in its place. A side whose
/// history stops at a copy the store does not hold (yet: copies replicate apart from their documents) is
/// [`Error::MergeHistoryMissing`], before any write. A save that finds the copy of the version it read already
/// there, without its digest (another save from that version), adds it once the save has committed; a merge
/// that removes a copy revision holding the same version as the one kept adds the digests it records to the
/// kept one first.
///
/// ## Index entries
///
/// On a store that can list keys and has no query language of its own
/// ([`Capabilities`](crate::store::Capabilities): MemoryStore, Redb), a model's indexes
/// (`#[docmodel(index = "customer_no")]`) are kept as entries: for each index and document, the key
/// `index<d><type><d><index><d><values><key>` holding `{"ref": "<key>"}`, with the values written so that the
/// keys sort as the values do (a field the document lacks sorts below every value). A model with indexes
/// keeps one more, `@schema`, over `_schema`, so that a find counts the documents below the current schema by
/// reading only those. A store with a query language (CouchDB) keeps the indexes itself
/// ([`Repo::ensure_indexes`] creates them there), and no entries are written.
///
/// An entry is a lookup that no other document can hold (its key names the document), and is written as
/// one, in the same operations: an insert or a save **claims** the entries of its new values before the
/// document is written (an entry there already is written again, so a token another operation read no
/// longer removes it), and **releases** the entries of the values it left after, each by the token read
/// before the write. An entry that was there already (held) is **confirmed** after the write, as a lookup is:
/// a removal of the document the key held before may have read its token after the claim, and releases it
/// by that token; confirmed (or inserted again if it is gone), it carries a token that removal no longer
/// holds. An entry inserted fresh needs no confirming. A removal releases every entry of the document (and of
/// its conflicting revisions) after it. A failure before the write releases what it claimed.
///
/// So an entry exists for every value a document holds, whatever fails when; a crash leaves at worst
/// entries of values a document no longer holds, which cost a read: [`Repo::find`] matches every document
/// it reads against the whole filter. A find reads an index only once [`Repo::ensure_indexes`] has built it
/// (its marker `index<d><type><d><index>` says so): documents written before the index was declared have no
/// entries until then.
///
/// ## Lookup claims
///
/// A lookup document (`customer_ref::12345 -> {"ref": "user::max"}`) names the one document that holds
/// its value.
///
/// ### The lookup document
///
/// Exactly `{"ref": "<key>"}`, where `<key>` is a key of the model, or, for a lookup declared
/// `lookup("...", ref_id)`, `{"ref": "<id>"}`, the one part of the key (`{"ref": "mmustermann@domain.com"}`
/// for `user::mmustermann@domain.com`). A value of any other shape under a lookup key (the other form
/// included) is somebody else's document: claiming it is [`Error::AlreadyExists`] naming the lookup key, and
/// it is never written over or removed.
///
/// ### The order of a write that gives a document a lookup value (insert, or a save that moves it)
///
/// 1. **claim**: insert the lookup document. If the key is taken by a lookup naming this document already
///    (left by an earlier attempt, or claimed by a concurrent operation on the same document) it is *held*:
///    written again by its token, so that a token another operation read before no longer removes it, and
///    never released by this operation, since the document may hold the value already. It is written again
///    by a save or a merge only after the document is read again at the token its replace will check: a
///    write bound to fail (a stale save of a move another writer committed) fails here with
///    [`Error::Conflict`], having changed nothing (a revision read that is still in conflict with the
///    winner, on CouchDB, is not bound to fail, and goes on). (An insert cannot know it is bound to fail: a
///    removal of the key may land before it writes.) If it names another document that still holds the value, the write stops with [`Error::AlreadyExists`]. If it names a document that no longer
///    holds it (a crash between a write and its release), it is taken over by a compare-and-swap replace
///    with the token it was read with.
/// 2. **write** the document (insert, or the save of [revision copies](Repo#revision-copies)).
/// 3. **confirm** each claim: replace the lookup document with itself, by the token of step 1. The new token
///    is the serialization point: a takeover in step 1 of another writer, based on reading this document
///    before step 2 landed, replaces by the token of step 1 too, so exactly one of the two succeeds. A
///    writer whose confirm fails has lost the value, or (the store failed) cannot know it kept it: it puts
///    its document back (removes an insert, restores the previous version of a save) and fails with
///    [`Error::AlreadyExists`], or the store's error.
/// 4. **release** the lookups the document no longer holds, each by the token read before step 2, so that a
///    lookup claimed again meanwhile (the value moved back) stays.
///
/// A failure before step 2 lands releases the claims written in step 1 (by their tokens). A crash
/// anywhere leaves at worst a lookup naming a document that does not hold its value: [`Repo::get_by_lookup`]
/// does not return it, and the next claim takes it over.
///
/// If putting the document back in step 3 fails, the caller is told so with an
/// [`Ambiguous`](crate::StoreErrorKind::Ambiguous) store error naming the lookup: the document may hold a
/// value whose lookup names another.
pub struct Repo<T, S = NoStore> {
    /// The store, each call traced with the feature `tracing`.
    store: Traced<S>,
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
        self.with_store(self.store.clone())
    }
}

impl<T, S> Repo<T, S> {
    /// A repository of model `U` over `store`, with this one's settings (actor, clock, retries, expiry and
    /// durability, limits, the hash key).
    fn with_store<U, S2>(&self, store: Traced<S2>) -> Repo<U, S2> {
        Repo {
            store,
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

    /// A repository of model `U` over this one's store, by reference, with this one's settings and tracing:
    /// what a removal with items removes the document and its items through ([`Repo::remove_with_items`]).
    pub(crate) fn over<U>(&self) -> Repo<U, &S> {
        self.with_store(Traced {
            inner: &self.store.inner,
            #[cfg(feature = "tracing")]
            tracing: self.store.tracing,
        })
    }

    /// The expiry and durability of the repository's writes.
    pub(crate) fn write_options(&self) -> WriteOptions {
        self.write
    }
}

impl<'s, T, S> Repo<T, &'s S> {
    /// [`Repo::over`] of a repository over a store by reference: the same reference, not one to it, so that
    /// a removal with items, which goes from model to model as deep as the items nest, names one store type.
    pub(crate) fn sibling<U>(&self) -> Repo<U, &'s S> {
        self.with_store(Traced {
            inner: self.store.inner,
            #[cfg(feature = "tracing")]
            tracing: self.store.tracing,
        })
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
            store: Traced::new(store),
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

/// What the repository tells a `tracing` subscriber (feature `tracing`): see [`docmodel::trace`](crate::trace).
#[cfg(feature = "tracing")]
impl<T, S> Repo<T, S> {
    /// Writes keys and query values into this repository's traces. Off by default: keys and query values
    /// are often personal data (`user_email::ada@example.com`), and a trace then shows each key as its model's
    /// key template (`user_email::{email}`) and each value as `?`.
    ///
    /// ```
    /// # use docmodel::{DocModel, Repo, store::MemoryStore};
    /// # #[derive(serde::Serialize, serde::Deserialize, DocModel)]
    /// # #[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
    /// # struct User { id: u64 }
    /// // In a test environment, or where the keys are not personal data:
    /// let users = Repo::<User>::new(MemoryStore::new()).trace_values(true);
    /// ```
    pub fn trace_values(mut self, show: bool) -> Self {
        self.store.tracing.values = show;
        self
    }

    /// Reports each operation of this repository that takes `threshold` or longer with a `WARN` event
    /// `slow operation` in its span, with its duration and the threshold (sqlx's slow-statement warning). None
    /// by default.
    ///
    /// ```
    /// use std::time::Duration;
    /// # use docmodel::{DocModel, Repo, store::MemoryStore};
    /// # #[derive(serde::Serialize, serde::Deserialize, DocModel)]
    /// # #[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
    /// # struct User { id: u64 }
    /// let users = Repo::<User>::new(MemoryStore::new()).slow_threshold(Duration::from_millis(250));
    /// ```
    pub fn slow_threshold(mut self, threshold: Duration) -> Self {
        self.store.tracing.slow = Some(threshold);
        self
    }
}

/// Translucent fields: the repository holds the application's [`HashKey`](crate::HashKey), so that the
/// code finding a user by email never handles it.
#[cfg(feature = "hashed")]
impl<T: DocModel, S> Repo<T, S> {
    /// Gives the repository the key of its model's [`Hashed`](crate::Hashed) fields, for [`Repo::hash`] and
    /// [`Repo::matches`]. The key is held in memory only; see [what a lost key costs](crate::Hashed#if-the-key-is-lost).
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
        Q: crate::HashInput + ?Sized,
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
        Q: crate::HashInput + ?Sized,
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
    /// values (see the [protocol](Repo#lookup-claims)), but nothing removes the others. Each costs a read
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
    /// use docmodel::{DocModel, Expiry, Repo, Timestamp, store::MemoryStore};
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
        let written = doc.to_vec_with(envelope)?;
        self.limits
            .check(doc.key().as_str(), written.bytes.len(), written.depth)?;
        Ok(written.bytes)
    }

    /// What an operation on the document under `key` is about, as a trace shows it.
    #[cfg(feature = "tracing")]
    fn about(key: &str) -> crate::trace::Subject<'_> {
        crate::trace::Subject::Key {
            key,
            template: T::KEY.pattern(),
        }
    }

    /// The store, making each write with the repository's expiry and durability: for the document and its
    /// revision copies.
    fn docs(&self) -> Writing<'_, Traced<S>> {
        Writing {
            store: &self.store,
            options: self.write,
        }
    }

    /// The store, making each write with the repository's durability and no expiry: for lookup documents,
    /// index entries and markers, which must outlive any one document.
    fn aux(&self) -> Writing<'_, Traced<S>> {
        Writing {
            store: &self.store,
            options: self.write.with_expiry(Expiry::Keep),
        }
    }

    /// The index entries of the document under `key` stored as `bytes`, where this repository keeps them: for
    /// a model with indexes, in a store that can list keys and has no query language of its own (see
    /// [index entries](Repo#index-entries)).
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
        // The names at the top of a document, which the store reserves.
        let top_level: Vec<&str> = match spec.layout() {
            Layout::Meta => [spec.meta_name()]
                .into_iter()
                .chain(T::BODY_FIELDS.iter().copied())
                .collect(),
            Layout::Flat | Layout::Plain => EnvelopeField::ALL
                .into_iter()
                .filter(|field| spec.keeps(*field))
                .map(|field| spec.name(field))
                .chain(T::BODY_FIELDS.iter().copied())
                .collect(),
            Layout::Root => vec![T::TYPE],
        };
        let reserved = top_level.into_iter().find(|name| name.starts_with('_'));
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
        &self.store.inner
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
        operation!(self, "next_id", T, {
            self.store.counter(&counter_key::<T>(), 1).await
        })
    }
}

/// What keeps [`NewDoc`] and [`UpdateResult`] to the types docmodel implements them for.
mod sealed {
    /// Implemented by the types a sealed trait of the repository takes.
    pub trait Sealed<T> {}
}
