//! `Repo::migrate_all`: a whole store brought to the model's current schema, the seeds' "mass migration".

use crate::trace::operation;
use std::collections::BTreeMap;
use std::fmt;
use std::future::{Future, IntoFuture};
use std::pin::Pin;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::keys::Source;
use super::save::Prepared;
use super::{Partition, Repo, RetryPolicy};
use serde_json::Value;

use crate::codec;
use crate::find::{at, envelope_path, stored_document};
use crate::store::Store;
use crate::{Doc, DocModel, EnvelopeField, Error, Key, SchemaVersion};

/// How many documents [`Repo::migrate_all`] reads at once unless [`MigrateAll::batch`] says otherwise.
const BATCH: usize = 256;

/// A run of [`Repo::migrate_all`]: which keys, from where, how many, whether it writes, and who hears of its
/// progress, each set by a method; awaiting it runs it ([`IntoFuture`]).
///
/// ```
/// # use docmodel::{DocModel, Repo, store::MemoryStore};
/// # #[derive(Debug, serde::Serialize, serde::Deserialize, DocModel)]
/// # #[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
/// # struct User { id: u64 }
/// # pollster::block_on(async {
/// let users = Repo::<User>::new(MemoryStore::new());
/// let report = users
///     .migrate_all()
///     .dry_run(true)
///     .resume_after("user::41")
///     .progress(|report| eprintln!("{} visited", report.visited))
///     .await?;
/// assert!(report.done);
/// # Ok::<(), docmodel::Error>(())
/// # }).unwrap();
/// ```
#[must_use = "a migration does nothing until it is awaited"]
pub struct MigrateAll<'a, T, S> {
    repo: &'a Repo<T, S>,
    dry_run: bool,
    rewrite_adopted: bool,
    batch: usize,
    resume_after: Option<String>,
    limit: Option<u64>,
    keys: Option<Vec<Key<T>>>,
    partition: Partition,
    progress: Option<Progress<'a>>,
}

/// The callback of [`MigrateAll::progress`].
type Progress<'a> = Box<dyn FnMut(&MigrationReport) + Send + 'a>;

impl<T, S> fmt::Debug for MigrateAll<'_, T, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MigrateAll")
            .field("dry_run", &self.dry_run)
            .field("rewrite_adopted", &self.rewrite_adopted)
            .field("batch", &self.batch)
            .field("resume_after", &self.resume_after)
            .field("limit", &self.limit)
            .field("keys", &self.keys.as_ref().map(Vec::len))
            .field("partition", &self.partition)
            .field("progress", &self.progress.is_some())
            .finish_non_exhaustive()
    }
}

impl<'a, T, S> MigrateAll<'a, T, S> {
    /// Reads and migrates every document, and reports what a run would write, without writing anything.
    pub fn dry_run(mut self, dry_run: bool) -> Self {
        self.dry_run = dry_run;
        self
    }

    /// Also writes the documents the model adopts in its own form: those read without a migration step but
    /// stored otherwise than the model writes them (under an alias of its type, without a type, without a
    /// schema field, or otherwise: times without a zone, no revision counter, an older minor schema without a
    /// step). Each is saved as [`Repo::save`] saves (a new
    /// version; its bytes as they were kept as the revision copy where the model keeps them; every lookup and
    /// index entry it should hold claimed, as an insert claims them, so a value another document holds fails
    /// it with [`Error::AlreadyExists`] naming the lookup: [`Repo::reindex`] lists such duplicates first) and
    /// counted in [`MigrationReport::adopted`] by why. Without it they are left as stored and counted as
    /// [`skipped`](MigrationReport::skipped).
    pub fn rewrite_adopted(mut self, rewrite: bool) -> Self {
        self.rewrite_adopted = rewrite;
        self
    }

    /// Reads `size` documents at a time (one [`Store::get_many`] each), and reports progress after each batch.
    /// A size of 0 is taken as 1.
    pub fn batch(mut self, size: usize) -> Self {
        self.batch = size.max(1);
        self
    }

    /// Starts after the key `cursor`: the [`MigrationReport::cursor`] of a run that stopped (interrupted,
    /// or with a [`limit`](MigrateAll::limit)). Keys are visited in key order, so every key up to the
    /// cursor was visited.
    pub fn resume_after(mut self, cursor: impl Into<String>) -> Self {
        self.resume_after = Some(cursor.into());
        self
    }

    /// Stops after `keys` keys of the listing (or of the keys given), with [`MigrationReport::done`] false and
    /// the cursor to resume from.
    pub fn limit(mut self, keys: u64) -> Self {
        self.limit = Some(keys);
        self
    }

    /// Visits these keys (in key order) rather than listing the model's keys: some of them, from an index or
    /// a list the application keeps, or all of them on a store that cannot list keys
    /// ([`Capabilities::scan`](crate::store::Capabilities::scan) off).
    pub fn keys(mut self, keys: impl IntoIterator<Item = Key<T>>) -> Self {
        self.keys = Some(keys.into_iter().collect());
        self
    }

    /// Runs one part of the job split `partition.count()` ways: visits only the keys of
    /// [`Partition::holds`] (of the listing, or of [`keys`](MigrateAll::keys)). n runs given the n parts of
    /// one count, in tasks, processes or machines, together visit and migrate what one run does; each
    /// reports its own counts and cursor, and a part stopped is resumed alone after its report's cursor.
    pub fn partition(mut self, partition: Partition) -> Self {
        self.partition = partition;
        self
    }

    /// Calls `progress` with the report so far before the first batch (with [`MigrationReport::total`] set)
    /// and after each batch.
    pub fn progress(mut self, progress: impl FnMut(&MigrationReport) + Send + 'a) -> Self {
        self.progress = Some(Box::new(progress));
        self
    }
}

/// What [`Repo::migrate_all`] did (or, in a dry run, would do), and where it stopped.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct MigrationReport {
    /// How many keys the run visits: the keys listed (or given) after the cursor it resumes from, up to its
    /// limit. With a [`progress`](MigrateAll::progress) callback, known before the first batch (the listing
    /// is counted first), so that a progress bar has a length; without one, the keys the run handed out,
    /// counted as it goes. Some may hold nothing by the time they are read, or another model's value.
    pub total: u64,
    /// The keys of the model's pattern read (a key with nothing under it any more is not counted).
    pub visited: u64,
    /// The documents written at the current schema (in a dry run, that would be).
    pub migrated: u64,
    /// The documents read without a step but written in the model's form, by why
    /// ([`MigrateAll::rewrite_adopted`]; in a dry run, that would be).
    pub adopted: BTreeMap<Adoption, u64>,
    /// Left as they are: the documents read without a migration step (at the current schema already, or
    /// brought to it by another writer meanwhile; and, without [`MigrateAll::rewrite_adopted`], an older
    /// minor version without a step, a document adopted under an alias, without a type or a schema field, or
    /// with zone-less times, which a read takes as they are), and values of other models under keys of this
    /// model's pattern.
    pub skipped: u64,
    /// The documents that could not be migrated or written, each with its key and why; the run goes on
    /// past them. Each is as it was, but after an error of class
    /// [`Ambiguous`](crate::ErrorClass::Ambiguous), whose write may have happened.
    pub failed: Vec<MigrationFailure>,
    /// How many documents were migrated from each older schema.
    pub from_versions: BTreeMap<SchemaVersion, u64>,
    /// The last key visited: [`MigrateAll::resume_after`] it to go on from there. `None` before the
    /// first batch.
    pub cursor: Option<String>,
    /// Every key was visited.
    pub done: bool,
    /// Nothing was written: what `migrated` counts would have been.
    pub dry_run: bool,
}

/// Why a document the model read without a migration step is not in its form
/// ([`MigrationReport::adopted`]). A document with more than one of these counts under the first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Adoption {
    /// No type field (`untyped = "accept"`).
    Untyped,
    /// Its type under one of the model's `aliases`.
    Alias,
    /// An envelope field under a legacy name (`envelope(legacy_names(...))`).
    LegacyNames,
    /// No schema field (`unversioned`).
    Unversioned,
    /// Stored otherwise than the model writes it: times without a zone or in another format, no revision
    /// counter, an older minor schema without a step.
    Form,
}

impl fmt::Display for Adoption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Adoption::Untyped => "without a type",
            Adoption::Alias => "under an alias",
            Adoption::LegacyNames => "under legacy envelope names",
            Adoption::Unversioned => "without a schema",
            Adoption::Form => "in another form",
        })
    }
}

/// A document [`Repo::migrate_all`] could not migrate or write.
#[derive(Debug)]
#[non_exhaustive]
pub struct MigrationFailure {
    /// Its key.
    pub key: String,
    /// Why: the migration step's error, the model's rules, a conflict the retries did not get past, or the
    /// store's error.
    pub error: Error,
}

impl MigrationFailure {
    pub(super) fn new(key: &str, error: Error) -> Self {
        MigrationFailure {
            key: key.to_owned(),
            error,
        }
    }
}

impl fmt::Display for MigrationReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verb = if self.dry_run {
            "would migrate"
        } else {
            "migrated"
        };
        write!(f, "visited {}, {verb} {}", self.visited, self.migrated)?;
        if !self.from_versions.is_empty() {
            let versions: Vec<String> = self
                .from_versions
                .iter()
                .map(|(version, count)| format!("{count} from {version}"))
                .collect();
            write!(f, " ({})", versions.join(", "))?;
        }
        if !self.adopted.is_empty() {
            let verb = if self.dry_run {
                "would rewrite"
            } else {
                "rewrote"
            };
            let reasons: Vec<String> = self
                .adopted
                .iter()
                .map(|(why, count)| format!("{count} {why}"))
                .collect();
            write!(
                f,
                ", {verb} {} adopted ({})",
                self.adopted.values().sum::<u64>(),
                reasons.join(", ")
            )?;
        }
        write!(
            f,
            ", skipped {}, failed {}",
            self.skipped,
            self.failed.len()
        )?;
        if !self.done
            && let Some(cursor) = &self.cursor
        {
            write!(f, "; stopped after `{cursor}`")?;
        }
        Ok(())
    }
}

/// What became of one document.
enum Outcome {
    Migrated(SchemaVersion),
    Adopted(Adoption),
    Current,
}

impl MigrationReport {
    /// Counts what became of the document under `key`.
    fn count(&mut self, key: &str, outcome: Result<Outcome, Error>) {
        match outcome {
            Ok(Outcome::Migrated(from)) => {
                self.migrated += 1;
                *self.from_versions.entry(from).or_default() += 1;
            }
            Ok(Outcome::Adopted(why)) => *self.adopted.entry(why).or_default() += 1,
            Ok(Outcome::Current) => self.skipped += 1,
            Err(error) => {
                crate::trace::event!(tracing::Level::WARN, {
                    docmodel.key = %crate::trace::Private(key),
                    reason = %crate::trace::ErrorText::of(&error),
                }, "migrate_all could not migrate a document");
                self.failed.push(MigrationFailure {
                    key: key.to_owned(),
                    error,
                });
            }
        }
    }
}

impl<T, S> Repo<T, S>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    /// Brings every document of the model that a migration step reads to the current schema: reads the
    /// model's keys in key order, in batches, migrates each such document on read and saves it back with
    /// compare-and-swap, as [`Repo::save`] does (a new version, the old one kept as a revision copy where the
    /// model keeps them, lookups moved). Documents read without a step are counted as
    /// [`skipped`](MigrationReport::skipped) and left as stored (see there). A document
    /// another writer changed meanwhile is read again and migrated again, never written over; one that cannot
    /// be migrated or written is listed in [`MigrationReport::failed`] with its key and the reason, and the run
    /// goes on. Revision copies, lookup documents, counters and other models' documents are left alone.
    ///
    /// On a store with atomic batches ([`Capabilities::atomic_writes`](crate::store::Capabilities::atomic_writes):
    /// `MemoryStore`, `Redb`), the saves of a batch's documents are one write: every lookup and index entry
    /// claimed or released, copy, replace and prune in one transaction, after one read of the lookups, entries
    /// and copies they touch. Documents docmodel did not write (no `_ver`, and with
    /// [`MigrateAll::rewrite_adopted`] those under an alias, without a type or a schema field) claim all their
    /// lookups there, as an insert does. A document whose claim finds a value another document's lookup
    /// names, or one another document of the batch claims too, and every document of a batch the store
    /// refuses (one changed meanwhile), is saved on its own.
    ///
    /// The keys come from the store's listing of the model's key prefix, a page at a time (on Couchbase,
    /// through SQL++ over the key index [`Repo::ensure_indexes`] creates), or from [`MigrateAll::keys`]. The
    /// run can be split into parts ([`MigrateAll::partition`]), stopped
    /// ([`MigrateAll::limit`], or by dropping the future) and resumed after the report's cursor; a second
    /// run over a migrated store writes nothing.
    ///
    /// ```
    /// use docmodel::{DocModel, JsonObject, MigrationError, Repo, store::{MemoryStore, Store}};
    /// # #[derive(Debug, serde::Serialize, serde::Deserialize, DocModel)]
    /// # #[docmodel(type = "user", schema = "2.0", key = "user::{id}", migrate_from("1.0" = add_plan))]
    /// # struct User { id: u64, plan: String }
    /// # fn add_plan(doc: &mut JsonObject) -> Result<(), MigrationError> {
    /// #     doc.insert("plan".into(), "free".into());
    /// #     Ok(())
    /// # }
    ///
    /// # pollster::block_on(async {
    /// let store = MemoryStore::new();
    /// store.insert("user::1", br#"{"_type":"user","_schema":"1.0","id":1}"#).await?;
    /// store.insert("user::2", br#"{"_type":"user","_schema":"2.0","id":2,"plan":"pro"}"#).await?;
    /// let users = Repo::<User>::new(&store);
    ///
    /// let report = users.migrate_all().await?;
    /// assert_eq!((report.visited, report.migrated, report.skipped), (2, 1, 1));
    /// assert_eq!(report.to_string(), "visited 2, migrated 1 (1 from 1.0), skipped 1, failed 0");
    /// assert_eq!(users.migrate_all().await?.migrated, 0);
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Fails only when the store does: a store that refuses this repository's writes (as [`Repo::save`]
    /// would), one that cannot list keys and no [`MigrateAll::keys`], the listing's own error, or an
    /// error reading a batch (the cursor of the last progress report resumes the run from there).
    pub fn migrate_all(&self) -> MigrateAll<'_, T, S> {
        MigrateAll {
            repo: self,
            dry_run: false,
            rewrite_adopted: false,
            batch: BATCH,
            resume_after: None,
            limit: None,
            keys: None,
            partition: Partition::WHOLE,
            progress: None,
        }
    }

    /// The run a [`MigrateAll`] describes.
    async fn run_migrate_all(&self, run: MigrateAll<'_, T, S>) -> Result<MigrationReport, Error> {
        operation!(self, "migrate_all", T, {
            let MigrateAll {
                repo: _,
                dry_run,
                rewrite_adopted,
                batch,
                resume_after,
                limit,
                keys,
                partition,
                mut progress,
            } = run;
            // A repository the store refuses writes nothing: a dry run says so too, rather than promising writes.
            self.check_store()?;
            let (mut source, total) = match keys {
                Some(mut keys) => {
                    keys.sort_by(|a, b| a.as_str().cmp(b.as_str()));
                    keys.dedup_by(|a, b| a.as_str() == b.as_str());
                    keys.retain(|key| {
                        partition.holds(key.as_str())
                            && resume_after
                                .as_ref()
                                .is_none_or(|cursor| key.as_str() > cursor.as_str())
                    });
                    let total = keys.len() as u64;
                    (Source::Given(keys), Some(total))
                }
                None => {
                    let hint = ": give the keys with `migrate_all().keys(..)`";
                    let after = resume_after.as_deref();
                    let mut listed = self.model_keys("migrating", hint, after, partition)?;
                    // Counted before the first batch (up to the limit) for the progress reports; a run nobody
                    // watches counts as it goes rather than listing twice.
                    let total = match progress {
                        Some(_) => Some(listed.count(limit).await?),
                        None => None,
                    };
                    (Source::Listed(listed), total)
                }
            };
            let mut report = MigrationReport {
                total: total.map_or(0, |total| limit.map_or(total, |limit| limit.min(total))),
                cursor: resume_after,
                dry_run,
                ..MigrationReport::default()
            };
            if let Some(progress) = &mut progress {
                progress(&report);
            }
            // On a store with atomic batches, the documents of a batch are written in one.
            let together = !dry_run && self.store.capabilities().atomic_writes;
            // Every key the listing holds when its page is read (written meanwhile too), up to the limit.
            let mut left = limit;
            let mut over = false;
            while left != Some(0) {
                let wanted = left.map_or(batch, |left| {
                    batch.min(usize::try_from(left).unwrap_or(usize::MAX))
                });
                let Some(chunk) = source.next(wanted).await? else {
                    over = true;
                    break;
                };
                if let Some(left) = &mut left {
                    *left -= chunk.len() as u64;
                }
                if total.is_none() {
                    report.total += chunk.len() as u64;
                }
                let texts: Vec<&str> = chunk.iter().map(Key::as_str).collect();
                let found = self.store.get_many(&texts).await?;
                let mut pending = Vec::new();
                for (key, stored) in chunk.iter().zip(found) {
                    let Some(stored) = stored else { continue };
                    report.visited += 1;
                    let doc = match Self::from_stored(key, stored) {
                        Ok(doc) => doc,
                        Err(Error::WrongType { .. }) => {
                            report.skipped += 1;
                            continue;
                        }
                        Err(error) => {
                            crate::trace::event!(tracing::Level::WARN, {
                                docmodel.key = %crate::trace::Private(key.as_str()),
                                reason = %crate::trace::ErrorText::of(&error),
                            }, "migrate_all could not read a document");
                            report.failed.push(MigrationFailure {
                                key: key.as_str().to_owned(),
                                error,
                            });
                            continue;
                        }
                    };
                    let outcome = if dry_run {
                        self.check_migration(doc, rewrite_adopted)
                    } else if together {
                        match rewritten(&doc, rewrite_adopted) {
                            Ok(Outcome::Current) => Ok(Outcome::Current),
                            Ok(outcome) => {
                                pending.push((doc, outcome));
                                continue;
                            }
                            Err(error) => Err(error),
                        }
                    } else {
                        self.migrate_one(doc, rewrite_adopted).await
                    };
                    report.count(key.as_str(), outcome);
                }
                for (key, outcome) in self.migrate_together(pending, rewrite_adopted).await {
                    report.count(&key, outcome);
                }
                report.cursor = chunk.last().map(|key| key.as_str().to_owned());
                if let Some(progress) = &mut progress {
                    progress(&report);
                }
            }
            report.done = over || !source.has_more().await?;
            Ok(report)
        })
    }

    /// What a save of `doc` would do, without writing: everything a save computes before its first write
    /// (the encoding with the envelope it would write, the model's rules, the repository's limits).
    fn check_migration(&self, doc: Doc<T>, rewrite_adopted: bool) -> Result<Outcome, Error> {
        let outcome = rewritten(&doc, rewrite_adopted)?;
        if !matches!(outcome, Outcome::Current) {
            self.prepare_save(&doc, matches!(outcome, Outcome::Adopted(_)))?;
        }
        Ok(outcome)
    }

    /// Saves `docs` (each with what becomes of it: read below the current schema, or adopted in another
    /// form), in one atomic batch ([`together`](super::together)): each document's claims of the lookups and
    /// index entries it takes, its copy (where the model keeps revisions), its compare-and-swap replace, the
    /// prune of the copy leaving its window and the release of what it leaves, as [`Repo::save`] makes them,
    /// after one read of the lookups, entries and copies they touch. A save whose claims are not plain (a
    /// value another document's lookup names, a key two of them touch), and every one of a batch the store
    /// refuses (one changed meanwhile), is made on its own ([`Repo::migrate_one`]). What became of each, with
    /// its key, in key order.
    async fn migrate_together(
        &self,
        docs: Vec<(Doc<T>, Outcome)>,
        rewrite_adopted: bool,
    ) -> Vec<(String, Result<Outcome, Error>)> {
        let mut outcomes = Vec::with_capacity(docs.len());
        let mut alone = Vec::new();
        let mut saves = Vec::with_capacity(docs.len());
        for (doc, outcome) in docs {
            // An adopted document may hold none of its lookups and entries, whatever its form says.
            let claim_all = matches!(outcome, Outcome::Adopted(_));
            match self.prepare_save(&doc, claim_all) {
                Ok(prepared) if prepared.stored.conflicts.is_empty() => {
                    saves.push(((doc, outcome), prepared));
                }
                Ok(_) => alone.push(doc),
                Err(error) => outcomes.push((doc.key().as_str().to_owned(), Err(error))),
            }
        }
        if saves.len() > 1 {
            let (batched, rest) = self.plan_together(saves).await;
            alone.extend(rest.into_iter().map(|(doc, _)| doc));
            match self.write_together(&batched).await {
                Ok(()) => {
                    for ((_, outcome), batch) in batched {
                        let Prepared { key, envelope, .. } = batch.prepared;
                        self.prune_aged(&key, &envelope).await;
                        outcomes.push((key, Ok(outcome)));
                    }
                }
                // Nothing was written (or, ambiguous, all of it: each save on its own then finds its document
                // migrated already, or conflicts and reads it again).
                Err(_) => alone.extend(batched.into_iter().map(|((doc, _), _)| doc)),
            }
        } else {
            alone.extend(saves.into_iter().map(|((doc, _), _)| doc));
        }
        for doc in alone {
            let key = doc.key().as_str().to_owned();
            outcomes.push((key, self.migrate_one(doc, rewrite_adopted).await));
        }
        outcomes.sort_by(|a, b| a.0.cmp(&b.0));
        outcomes
    }

    /// Saves `doc`, read below the current schema (or, with `rewrite_adopted`, adopted in another form),
    /// again on a conflict or a transient failure as the retry policy allows, reading it again each time: one
    /// that another writer brought to the current schema and form (or removed) meanwhile is left as it is.
    async fn migrate_one(&self, mut doc: Doc<T>, rewrite_adopted: bool) -> Result<Outcome, Error> {
        let mut attempt = 1;
        loop {
            let outcome = rewritten(&doc, rewrite_adopted)?;
            if matches!(outcome, Outcome::Current) {
                return Ok(outcome);
            }
            // An adopted document may hold none of its lookups and entries, whatever its form says.
            let claim_all = matches!(outcome, Outcome::Adopted(_));
            match self.save_claiming(&mut doc, claim_all).await {
                Ok(()) => return Ok(outcome),
                Err(err) if RetryPolicy::retries(&err) && attempt < self.retry.attempts() => {
                    self.retry.pause(attempt, &err).await;
                    attempt += 1;
                    match self.read(doc.key()).await? {
                        Some(again) => doc = again,
                        None => return Ok(Outcome::Current),
                    }
                }
                Err(err) => return Err(err),
            }
        }
    }
}

impl<'a, T, S> IntoFuture for MigrateAll<'a, T, S>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    type Output = Result<MigrationReport, Error>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.repo.run_migrate_all(self))
    }
}

/// What a run makes of `doc`: migrated from the schema it was read at, rewritten in the model's form (with
/// `rewrite_adopted`, one read without a step but stored otherwise), or left as it is.
fn rewritten<T: DocModel + Serialize>(
    doc: &Doc<T>,
    rewrite_adopted: bool,
) -> Result<Outcome, Error> {
    if let Some(from) = doc.migrated_from() {
        return Ok(Outcome::Migrated(from));
    }
    if !rewrite_adopted {
        return Ok(Outcome::Current);
    }
    Ok(adoption(doc)?.map_or(Outcome::Current, Outcome::Adopted))
}

/// Why `doc`, read without a migration step, is not stored as the model writes it; `None` when it is.
fn adoption<T: DocModel + Serialize>(doc: &Doc<T>) -> Result<Option<Adoption>, Error> {
    let Some(stored) = doc.stored() else {
        return Ok(None);
    };
    let Some(value) = stored_document::<T>(&stored.bytes) else {
        return Ok(None);
    };
    match at(&value, &envelope_path::<T>(EnvelopeField::Type)) {
        None => return Ok(Some(Adoption::Untyped)),
        Some(Value::String(found)) if found != T::TYPE => return Ok(Some(Adoption::Alias)),
        Some(_) => {}
    }
    if T::ENVELOPE.has_legacy_names()
        && codec::peek::<T>(&stored.bytes).is_some_and(|peeked| peeked.legacy_names)
    {
        return Ok(Some(Adoption::LegacyNames));
    }
    if at(&value, &envelope_path::<T>(EnvelopeField::Schema)).is_none() {
        return Ok(Some(Adoption::Unversioned));
    }
    let written = doc.to_vec_as_read(doc.envelope())?;
    Ok((!codec::same_json(&written, &stored.bytes)).then_some(Adoption::Form))
}
