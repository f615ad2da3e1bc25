//! [`Repo::reindex`]: the lookups and index entries of the documents a store holds, claimed as an insert
//! claims them, for the documents docmodel did not write.

use crate::trace::operation;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt;
use std::future::{Future, IntoFuture};
use std::pin::Pin;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::claims::{Claims, Expect};
use super::{MigrationFailure, Partition, Repo};
use crate::keyshape::lookup_keys;
use crate::lookup::{lookup_document, lookup_target};
use crate::store::{Cas, Store, WriteOptions};
use crate::{DocModel, Error, Key};

/// How many documents, lookups or entries one store read of a reindex asks for, unless
/// [`Reindex::batch`] says otherwise.
const BATCH: usize = 256;

/// A run of [`Repo::reindex`]: its batch, its part and where it starts, each set by a method; awaiting it
/// runs it ([`IntoFuture`]).
#[must_use = "a reindex does nothing until it is awaited"]
pub struct Reindex<'a, T, S> {
    repo: &'a Repo<T, S>,
    batch: usize,
    partition: Partition,
    resume_after: Option<String>,
    progress: Option<Progress<'a>>,
}

/// The callback of [`Reindex::progress`].
type Progress<'a> = Box<dyn FnMut(&ReindexReport) + Send + 'a>;

impl<T, S> fmt::Debug for Reindex<'_, T, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reindex")
            .field("batch", &self.batch)
            .field("partition", &self.partition)
            .field("resume_after", &self.resume_after)
            .field("progress", &self.progress.is_some())
            .finish_non_exhaustive()
    }
}

impl<'a, T, S> Reindex<'a, T, S> {
    /// Reads `size` documents at a time (one [`Store::get_many`] each, and one for their lookups), and
    /// reports progress after each batch. A size of 0 is taken as 1.
    pub fn batch(mut self, size: usize) -> Self {
        self.batch = size.max(1);
        self
    }

    /// Reindexes one part of the documents split `partition.count()` ways ([`Partition::holds`]): the n
    /// parts of one count, run anywhere, write the lookups and entries one run writes and together list
    /// every duplicate and its holders (each part lists the holders it met, with the one the lookup names).
    /// Within a part the first holder of a duplicated value in key order gets its lookup; between parts,
    /// the part that claims it first.
    pub fn partition(mut self, partition: Partition) -> Self {
        self.partition = partition;
        self
    }

    /// Starts after the key `cursor`: the [`ReindexReport::cursor`] of a run that stopped.
    pub fn resume_after(mut self, cursor: impl Into<String>) -> Self {
        self.resume_after = Some(cursor.into());
        self
    }

    /// Calls `progress` with the report so far before the first batch (with [`ReindexReport::total`] set)
    /// and after each batch.
    pub fn progress(mut self, progress: impl FnMut(&ReindexReport) + Send + 'a) -> Self {
        self.progress = Some(Box::new(progress));
        self
    }
}

/// What [`Repo::reindex`] found and wrote.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct ReindexReport {
    /// How many keys the run visits (those of its part, after the cursor it resumes from): with a
    /// [`progress`](Reindex::progress) callback, known before the first batch; without one, counted as the run
    /// goes.
    pub total: u64,
    /// The model's documents read.
    pub visited: u64,
    /// Lookup documents written: values a document holds that no lookup named it for.
    pub lookups: u64,
    /// Index entries written for documents that lacked them (on a store where the repository keeps them:
    /// MemoryStore, Redb), besides those [`Repo::ensure_indexes`] built at the start of the run for an index
    /// first built then.
    pub entries: u64,
    /// Unique values held by more than one document, each with every holder the run met, in key order. The
    /// lookup names the first holder in key order the run met (or the one it named before the run; among
    /// the parts of a [`partition`](Reindex::partition)ed run, the holder whose part claimed it first), as
    /// the first insert of a value claims it, so the value is unique from then on; no document is written.
    /// Settle each (change or remove all holders but one), then run the reindex again.
    pub duplicates: Vec<Duplicate>,
    /// The documents that could not be read, or whose claims failed, each with its key and why; the run
    /// goes on past them.
    pub failed: Vec<MigrationFailure>,
    /// The last key visited: [`Reindex::resume_after`] it to go on from there. `None` before the first
    /// batch.
    pub cursor: Option<String>,
    /// Every key was visited.
    pub done: bool,
}

/// A unique value held by more than one document ([`ReindexReport::duplicates`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Duplicate {
    /// The lookup's key (`email::ada@example.com`).
    pub lookup: String,
    /// The keys of the documents holding the value, in key order.
    pub keys: Vec<String>,
}

/// A document of a batch, read: its key, its lookups, and the index entries it should hold.
struct Read {
    key: String,
    lookups: Vec<String>,
    entries: Vec<String>,
}

impl<T, S> Repo<T, S>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    /// Gives every document of the model the lookups and index entries it should hold, writing only those it
    /// lacks: what a store loaded by another program needs before its lookups find anything and keep their
    /// values unique (docmodel's own writes keep them as they go). The documents are not written; a
    /// [`migrate_all`](Repo::migrate_all) with [`MigrateAll::rewrite_adopted`](super::MigrateAll::rewrite_adopted)
    /// writes them in the model's form.
    ///
    /// It runs [`Repo::ensure_indexes`] first, then reads the model's keys in key order, in batches, and
    /// each document as [`Repo::get`] reads it (so documents the model adopts count: another spelling of the
    /// type, none, no schema field). Each lookup value is claimed as an insert claims it, in key order, with
    /// the same guarantees: the first holder of a value gets its lookup (unless one already names a
    /// document holding it), and every other holder is listed with it in [`ReindexReport::duplicates`]. A
    /// lookup naming a document that no longer holds its value is taken over. A second run over a reindexed
    /// store writes nothing. Memory holds a page of keys, a batch, and the duplicates found.
    ///
    /// ```
    /// # use docmodel::{DocModel, Repo, store::{MemoryStore, Store}};
    /// #[derive(Debug, serde::Serialize, serde::Deserialize, DocModel)]
    /// #[docmodel(type = "user", schema = "1.0", key = "user::{id}", lookup = "email::{email}")]
    /// #[docmodel(unversioned = "1.0")]
    /// struct User { id: u64, email: String }
    /// # pollster::block_on(async {
    /// let store = MemoryStore::new();
    /// // Written by another program: no schema field, and no lookup.
    /// store.insert("user::1", br#"{"_type":"user","id":1,"email":"ada@example.com"}"#).await?;
    /// store.insert("user::2", br#"{"_type":"user","id":2,"email":"bob@example.com"}"#).await?;
    /// store.insert("user::3", br#"{"_type":"user","id":3,"email":"bob@example.com"}"#).await?;
    /// let users = Repo::<User>::new(&store);
    ///
    /// let report = users.reindex().await?;
    /// assert_eq!((report.visited, report.lookups), (3, 2));
    /// assert_eq!(report.duplicates[0].lookup, "email::bob@example.com");
    /// assert_eq!(report.duplicates[0].keys, ["user::2", "user::3"]);
    /// assert!(users.get_by_lookup("email::ada@example.com").await?.is_some());
    /// // The first holder has the lookup: the value is unique from now on.
    /// let bob = users.get_by_lookup("email::bob@example.com").await?.unwrap();
    /// assert_eq!(bob.key().as_str(), "user::2");
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Fails only when the store does: one that refuses this repository's writes, one that cannot list keys,
    /// or an error listing or reading a batch (the cursor of the last progress report resumes the run from
    /// there).
    pub fn reindex(&self) -> Reindex<'_, T, S> {
        Reindex {
            repo: self,
            batch: BATCH,
            partition: Partition::WHOLE,
            resume_after: None,
            progress: None,
        }
    }

    /// The run a [`Reindex`] describes.
    async fn run_reindex(&self, run: Reindex<'_, T, S>) -> Result<ReindexReport, Error> {
        operation!(self, "reindex", T, {
            let Reindex {
                repo: _,
                batch,
                partition,
                resume_after,
                mut progress,
            } = run;
            self.check_store()?;
            self.ensure_indexes().await?;
            let after = resume_after.as_deref();
            let mut keys = self.model_keys("reindexing", "", after, partition)?;
            // Counted before the first batch for the progress reports; a run nobody watches counts as it
            // goes rather than listing twice.
            let counted = match progress {
                Some(_) => Some(keys.count(None).await?),
                None => None,
            };
            let mut report = ReindexReport {
                total: counted.unwrap_or(0),
                cursor: resume_after,
                ..ReindexReport::default()
            };
            if let Some(progress) = &mut progress {
                progress(&report);
            }
            // Each duplicated value, with every holder met.
            let mut duplicates: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
            while let Some(chunk) = keys.next_batch(batch).await? {
                if counted.is_none() {
                    report.total += chunk.len() as u64;
                }
                let read = self.read_batch(&chunk, &mut report).await?;
                self.claim_lookups(&read, &mut report, &mut duplicates)
                    .await?;
                self.claim_entries(&read, &mut report).await?;
                report.cursor = chunk.last().map(|key| key.as_str().to_owned());
                if let Some(progress) = &mut progress {
                    report.duplicates = listed(&duplicates);
                    progress(&report);
                }
            }
            report.duplicates = listed(&duplicates);
            report.done = true;
            Ok(report)
        })
    }

    /// The documents under `chunk`, each read as `get` reads it, with the lookups and entries it should hold.
    async fn read_batch(
        &self,
        chunk: &[Key<T>],
        report: &mut ReindexReport,
    ) -> Result<Vec<Read>, Error> {
        let texts: Vec<&str> = chunk.iter().map(Key::as_str).collect();
        let mut read = Vec::with_capacity(chunk.len());
        for (key, stored) in chunk.iter().zip(self.store.get_many(&texts).await?) {
            let Some(stored) = stored else { continue };
            let doc = match Self::from_stored(key, stored) {
                Ok(doc) => doc,
                // Another model's value under this model's key shape.
                Err(Error::WrongType { .. }) => continue,
                Err(error) => {
                    report.visited += 1;
                    report
                        .failed
                        .push(MigrationFailure::new(key.as_str(), error));
                    continue;
                }
            };
            report.visited += 1;
            let mut lookups = match lookup_keys(doc.body()) {
                Ok(lookups) => lookups,
                Err(error) => {
                    report
                        .failed
                        .push(MigrationFailure::new(key.as_str(), error));
                    continue;
                }
            };
            // Two lookup templates of one document may give one key: it holds it once.
            lookups.sort();
            lookups.dedup();
            let entries = doc
                .stored()
                .map(|stored| self.entries(&stored.bytes, key.as_str()))
                .unwrap_or_default();
            read.push(Read {
                key: key.as_str().to_owned(),
                lookups,
                entries,
            });
        }
        Ok(read)
    }

    /// Claims, in key order, each lookup a document of the batch holds and no lookup names it for; a value
    /// another document holds is added to `duplicates` with both holders.
    async fn claim_lookups(
        &self,
        read: &[Read],
        report: &mut ReindexReport,
        duplicates: &mut BTreeMap<String, BTreeSet<String>>,
    ) -> Result<(), Error> {
        let texts: Vec<&str> = read
            .iter()
            .flat_map(|doc| doc.lookups.iter().map(String::as_str))
            .collect();
        if texts.is_empty() {
            return Ok(());
        }
        let found = self.store.get_many(&texts).await?;
        // Each lookup a document should hold, and what names it now.
        // (A value two documents of the batch hold is inserted for the first only: the second's claim finds it.)
        let mut wanted = Vec::with_capacity(texts.len());
        let mut inserting = HashSet::new();
        let mut found = found.into_iter();
        for doc in read {
            for (lookup, existing) in doc.lookups.iter().zip(found.by_ref()) {
                let named = existing
                    .as_ref()
                    .and_then(|existing| lookup_target::<T>(lookup, &existing.bytes));
                if named.as_deref() != Some(doc.key.as_str()) {
                    let absent = existing.is_none() && inserting.insert(lookup.as_str());
                    wanted.push((doc, lookup, absent));
                }
            }
        }
        // Those no document holds yet, written in one bulk insert (one transaction on Redb, one request on
        // CouchDB); the others claimed one at a time, in key order, as an insert claims them.
        let mut inserted = self.insert_absent(&wanted).await.into_iter();
        let aux = self.aux();
        for (doc, lookup, absent) in wanted {
            if absent {
                match inserted.next() {
                    Some(Ok(_)) => {
                        report.lookups += 1;
                        continue;
                    }
                    // Taken meanwhile (by a document before this one in the batch, or another writer): a
                    // claim of its own says by whom.
                    Some(Err(Error::AlreadyExists { .. })) => {}
                    Some(Err(error)) => {
                        report.failed.push(MigrationFailure::new(&doc.key, error));
                        continue;
                    }
                    None => {}
                }
            }
            let mut claims = Claims::<T, _>::new(&aux, &doc.key);
            match claims.claim([lookup], [], Expect::Any).await {
                Ok(()) => {
                    claims.keep();
                    report.lookups += 1;
                }
                // Held by another document that holds the value.
                Err(Error::AlreadyExists { .. }) => {
                    let holder = self
                        .store
                        .get(lookup)
                        .await?
                        .and_then(|existing| lookup_target::<T>(lookup, &existing.bytes));
                    let holders = duplicates.entry(lookup.clone()).or_default();
                    holders.extend(holder);
                    holders.insert(doc.key.clone());
                }
                Err(error) => report.failed.push(MigrationFailure::new(&doc.key, error)),
            }
        }
        Ok(())
    }

    /// Writes, in one bulk insert (one transaction on Redb, one request on CouchDB), the lookup documents
    /// (or index entries) of `wanted` marked absent, each naming its document: one outcome each, in order.
    async fn insert_absent(&self, wanted: &[(&Read, &String, bool)]) -> Vec<Result<Cas, Error>> {
        let absent: Vec<(&str, Vec<u8>)> = wanted
            .iter()
            .filter(|(_, _, absent)| *absent)
            .map(|(doc, key, _)| (key.as_str(), lookup_document::<T>(key, &doc.key)))
            .collect();
        let values: Vec<(&str, &[u8])> = absent
            .iter()
            .map(|(key, bytes)| (*key, bytes.as_slice()))
            .collect();
        self.aux()
            .insert_many(&values, &WriteOptions::DEFAULT)
            .await
    }

    /// Writes the index entries each document of the batch lacks, after one read of them all: those no
    /// value stands under in one bulk insert, the others (an entry under the key another value took) claimed
    /// one document at a time.
    async fn claim_entries(&self, read: &[Read], report: &mut ReindexReport) -> Result<(), Error> {
        let texts: Vec<&str> = read
            .iter()
            .flat_map(|doc| doc.entries.iter().map(String::as_str))
            .collect();
        if texts.is_empty() {
            return Ok(());
        }
        let mut found = self.store.get_many(&texts).await?.into_iter();
        // Each entry a document lacks, and whether no value stands under its key.
        let mut missing: Vec<(&Read, &String, bool)> = Vec::new();
        for doc in read {
            for entry in &doc.entries {
                let existing = found.next().flatten();
                let named = existing
                    .as_ref()
                    .and_then(|existing| lookup_target::<T>(entry, &existing.bytes));
                if named.as_deref() != Some(doc.key.as_str()) {
                    missing.push((doc, entry, existing.is_none()));
                }
            }
        }
        let mut inserted = self.insert_absent(&missing).await.into_iter();
        // The entries left to claim, by document, in key order.
        let mut left: Vec<(&Read, Vec<String>)> = Vec::new();
        for (doc, entry, absent) in missing {
            if absent {
                match inserted.next() {
                    Some(Ok(_)) => {
                        report.entries += 1;
                        continue;
                    }
                    Some(Err(Error::AlreadyExists { .. })) | None => {}
                    Some(Err(error)) => {
                        report.failed.push(MigrationFailure::new(&doc.key, error));
                        continue;
                    }
                }
            }
            match left.last_mut() {
                Some((last, entries)) if std::ptr::eq(*last, doc) => entries.push(entry.clone()),
                _ => left.push((doc, vec![entry.clone()])),
            }
        }
        let aux = self.aux();
        for (doc, entries) in left {
            let mut claims = Claims::<T, _>::new(&aux, &doc.key);
            match claims.claim([], &entries, Expect::Any).await {
                Ok(()) => {
                    claims.keep();
                    report.entries += entries.len() as u64;
                }
                Err(error) => report.failed.push(MigrationFailure::new(&doc.key, error)),
            }
        }
        Ok(())
    }
}

/// The duplicates found, as the report lists them: by lookup, each with its holders in key order.
fn listed(duplicates: &BTreeMap<String, BTreeSet<String>>) -> Vec<Duplicate> {
    duplicates
        .iter()
        .map(|(lookup, keys)| Duplicate {
            lookup: lookup.clone(),
            keys: keys.iter().cloned().collect(),
        })
        .collect()
}

impl<'a, T, S> IntoFuture for Reindex<'a, T, S>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    type Output = Result<ReindexReport, Error>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.repo.run_reindex(self))
    }
}
