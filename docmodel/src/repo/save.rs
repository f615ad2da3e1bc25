//! [`Repo::save`], and the writes made of it: [`Repo::update`] (read, change, save, again on a conflict) and
//! [`Repo::touch`] (`_accessed` written in place, or a save). The order of a save's store operations is in the
//! [repository's docs](crate::Repo#revision-copies).

use crate::trace::operation;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::claims::{Claims, Expect, Undo};
use super::sealed::Sealed;
use super::writing::Writing;
use super::{Repo, RetryPolicy, copies, indexes};
use crate::keyshape::lookup_keys;
use crate::revision::RevisionWindow;
use crate::store::{Store, Stored};
use crate::trace::Traced;
use crate::{Doc, DocModel, EnvelopeField, Error, ErrorClass, Key, Timestamp};

impl<T, S> Repo<T, S>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    /// Saves a changed document: `_ver` + 1, modified now, by the actor.
    ///
    /// The document is replaced only if nobody changed it since it was read; otherwise this is
    /// [`Error::Conflict`] and nothing is changed. With `revisions = N`, the version being replaced is first
    /// copied to `<key><d>v<d><n>` from the bytes the document already holds, and after the replace the copy
    /// that falls out of the last `N` is removed (read first: only a copy of this document is removed). Two
    /// store operations (insert, replace) until the window is full, four with the prune (get and remove), one
    /// for a model without revisions. A failure at any point leaves the stored document old or new, never
    /// lost, and a retry completes. The protocol is in the [repository's docs](crate::Repo#the-repository-protocol).
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
        operation!(self, "save", T, Self::about(doc.key().as_str()), {
            self.save_claiming(doc, false).await
        })
    }

    /// [`Repo::save`]; with `claim_all`, claiming every lookup and index entry the document should hold, as
    /// an insert does, whether or not the version read held them (a document another program wrote, which
    /// [`MigrateAll::rewrite_adopted`](super::MigrateAll::rewrite_adopted) rewrites).
    pub(super) async fn save_claiming(
        &self,
        doc: &mut Doc<T>,
        claim_all: bool,
    ) -> Result<(), Error> {
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
            adopted,
        } = self.prepare_save(doc, claim_all)?;
        let aux = self.aux();
        let mut claims = Claims::<T, _>::new(&aux, &key);
        // The old lookups and entries as they are before this save: releasing exactly these tokens afterwards
        // cannot remove one another save of this document claims again in between.
        // Collected, not chained: an iterator adapter held across the awaits below makes the save's future
        // fail the `Send` bound of a spawned task.
        let (mut leaving, mut taken): (Vec<&String>, Vec<&String>) =
            moved.iter().map(|(old, new)| (old, new)).unzip();
        leaving.extend(indexes::changed(&old_entries, &new_entries));
        claims.leaving(leaving).await?;
        // An adopted document may hold none of its claims yet: it claims them all, as an insert does.
        let claimed = if adopted {
            taken = lookups.iter().collect();
            new_entries.iter().collect()
        } else {
            indexes::changed(&new_entries, &old_entries)
        };
        claims
            .claim(taken, claimed, Expect::At(&stored.cas))
            .await?;
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
                // Nothing was written, or (ambiguous) all of it: the claims stay with a write that may have
                // landed.
                Err(err) => return Err(claims.write_failed(err).await),
            }
        } else {
            None
        };
        let pruned = committed.as_ref().is_some_and(|committed| committed.pruned);
        let written = match committed {
            Some(committed) => Stored::new(bytes, committed.cas),
            None => {
                self.save_in_steps(&key, version, &stored, bytes, envelope.created, &mut claims)
                    .await?
            }
        };
        // Another document took a value over before this save was written, or the claim could not be
        // confirmed: put the previous version back. The copy of it stays, at a version the document is at
        // again, for the next save to use.
        claims
            .confirm(
                &self.docs(),
                Undo::PutBack {
                    previous: &stored.bytes,
                    written: &written.cas,
                },
            )
            .await?;
        let created = envelope.created;
        doc.written(envelope, written, lookups);
        // The save has committed: what follows only tidies up, and what it leaves behind is recognised as stale
        // (`revisions`, `get_by_lookup`, the next claim).
        if !pruned
            && let Some(pruned) =
                RevisionWindow::of::<T>(version).and_then(|window| window.pruned_by_next_save())
        {
            copies::prune::<T, _>(&self.docs(), &key, pruned, created).await;
        }
        self.prune_aged(&key, doc.envelope()).await;
        claims.release_left().await;
        Ok(())
    }

    /// After a save committed `envelope` under `key`, for a model with `revisions(keep = N, for = ...)`:
    /// prunes the copies past the count older than the age ([`copies::prune_aged`]). Nothing, not even a
    /// look at the clock, for any other model.
    pub(super) async fn prune_aged(&self, key: &str, envelope: &crate::Envelope) {
        if T::REVISIONS_FOR.is_none() {
            return;
        }
        let (current, modified, created) = (envelope.ver, envelope.modified, envelope.created);
        let now = (self.clock)();
        copies::prune_aged::<T, _>(&self.docs(), key, current, modified, created, now).await;
    }

    /// What a save of `doc` writes, computed before the first write: everything that can refuse the save
    /// ([`Error::NotFound`], [`Error::VersionLimit`], the encoding and the model's rules) refuses it here.
    pub(super) fn prepare_save(&self, doc: &Doc<T>, claim_all: bool) -> Result<Prepared, Error> {
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
        let adopted = (!new_entries.is_empty() || !lookups.is_empty())
            && (claim_all || !indexes::kept_by_writes::<T>(&stored.bytes));
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
            adopted,
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
        claims: &mut Claims<'_, T, Writing<'_, Traced<S>>>,
    ) -> Result<Stored, Error> {
        // What the copy records as saved from `version`: the version this save writes ([`crate::lineage`]).
        let next = T::REVISIONS.map(|_| crate::lineage::version_digest::<T>(&bytes));
        let copy = match &next {
            Some(next) => {
                match copies::keep::<T, _>(
                    &self.docs(),
                    key,
                    version,
                    &stored.bytes,
                    &stored.cas,
                    next,
                    !stored.conflicts.is_empty(),
                )
                .await
                {
                    Ok(copy) => Some(copy),
                    Err(err) => {
                        // A write whose outcome is unknown may have put the copy in place.
                        if err.class() == ErrorClass::Ambiguous {
                            copies::after_failed_save::<T, _>(
                                &self.docs(),
                                key,
                                version,
                                created,
                                None,
                                &err,
                                (self.clock)(),
                            )
                            .await;
                        }
                        return Err(claims.abandon(err).await);
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
                let err = claims.write_failed(err).await;
                if let Some(copy) = copy.as_ref().and_then(copies::Kept::written) {
                    copies::after_failed_save::<T, _>(
                        &self.docs(),
                        key,
                        version,
                        created,
                        Some(copy),
                        &err,
                        (self.clock)(),
                    )
                    .await;
                }
                return Err(err);
            }
        };
        if let (Some(copies::Kept::Unrecorded), Some(next)) = (&copy, &next) {
            copies::record_next::<T, _>(&self.docs(), key, version, next).await;
        }
        Ok(written)
    }

    /// Reads the document under `key`, applies `change` to its body and saves it, again while another writer
    /// got there first or the store failed transiently, as the [`RetryPolicy`] allows. On a store that runs a
    /// read-modify-write in one transaction ([`Capabilities::transactions`](crate::store::Capabilities::transactions):
    /// `MemoryStore`, `Redb`), the read, `change` and the save are one: another writer waits for it, and
    /// an update never fails with [`Error::Conflict`] there (`change` runs inside the transaction, so it
    /// must not use the store). CouchDB and Couchbase compare and swap, and try again. `change` may return
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
        operation!(self, "update", T, Self::about(key.as_str()), {
            let mut attempt = 1;
            if self.store.capabilities().transactions {
                // One transaction: no other writer comes between the read and the write.
                self.check_store()?;
                let mut change = |doc: &mut Doc<T>| {
                    change(doc)
                        .into_result()
                        .map_err(|err| err.with_key(key.as_str()))
                };
                loop {
                    match self.update_in_transaction(key, &mut change) {
                        Ok(Some(doc)) => {
                            // The transaction pruned by count; an age's prune reads the copies' times.
                            self.prune_aged(key.as_str(), doc.envelope()).await;
                            return Ok(doc);
                        }
                        // Not run: compare and swap, below.
                        Ok(None) => break,
                        Err(err)
                            if RetryPolicy::retries(&err) && attempt < self.retry.attempts() =>
                        {
                            self.retry.pause(attempt, &err).await;
                            attempt += 1;
                        }
                        Err(err) => return Err(err),
                    }
                }
            }
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
                        self.retry.pause(attempt, &err).await;
                        attempt += 1;
                    }
                    Err(err) => return Err(err),
                }
            }
        })
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
        operation!(self, "touch", T, Self::about(key.as_str()), {
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
                        self.retry.pause(attempt, &err).await;
                        attempt += 1;
                    }
                    Err(err) => return Err(err),
                }
            }
        })
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
}

/// What an [`Repo::update`] closure returns: `()` or `Result<(), Error>` ([`Repo::try_update`] takes the
/// application's own error type).
pub trait UpdateResult: Sealed<()> {
    /// As a `Result`.
    #[doc(hidden)]
    fn into_result(self) -> Result<(), Error>;
}

impl Sealed<()> for () {}
impl Sealed<()> for Result<(), Error> {}

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

/// A save of one document, before its first write ([`Repo::prepare_save`]).
pub(super) struct Prepared {
    pub(super) key: String,
    /// The document as read: the bytes its copy holds, the token its replace checks.
    pub(super) stored: Stored,
    /// The version read, which the save moves on from.
    pub(super) version: u64,
    /// The envelope written: the next version, modified now by the actor.
    pub(super) envelope: crate::Envelope,
    pub(super) bytes: Vec<u8>,
    /// The lookups the written document holds.
    pub(super) lookups: Vec<String>,
    /// The lookups that change: (held before, held after).
    pub(super) moved: Vec<(String, String)>,
    pub(super) old_entries: Vec<String>,
    pub(super) new_entries: Vec<String>,
    /// Whether the document read is an adopted one with lookups or index entries, which the save claims all
    /// (it may hold none of them yet).
    pub(super) adopted: bool,
}
