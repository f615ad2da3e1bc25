//! [`Repo::reindex`]: the lookups and index entries of the documents a store holds, claimed as an insert
//! claims them, for the documents docmodel did not write.

use crate::trace::operation;
use std::collections::BTreeMap;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::claims::{Claims, Expect};
use super::{MigrationFailure, Partition, Repo};
use crate::keyshape::lookup_keys;
use crate::lookup::lookup_target;
use crate::store::Store;
use crate::{DocModel, Error, Key};

/// How many documents, lookups or entries one store read of a reindex asks for.
const BATCH: usize = 256;

/// What [`Repo::reindex`] found and wrote.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct ReindexReport {
    /// The model's documents read.
    pub visited: u64,
    /// Lookup documents written: values a document holds that no lookup named it for.
    pub lookups: u64,
    /// Index entries written for documents that lacked them (on a store where the repository keeps them:
    /// MemoryStore, Redb), besides those [`Repo::ensure_indexes`] built at the start of the run for an index
    /// first built then.
    pub entries: u64,
    /// Unique values held by more than one document, each with every holder. No lookup is written or
    /// changed for them, and no document: settle each (change or remove all holders but one), then run
    /// the reindex again.
    pub duplicates: Vec<Duplicate>,
    /// The documents that could not be read, or whose claims failed, each with its key and why; the run
    /// goes on past them.
    pub failed: Vec<MigrationFailure>,
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
    /// type, none, no schema field). Each lookup value is claimed as an insert claims it, with the same
    /// guarantees: a value two of the documents hold, or one already claimed by another document that holds
    /// it, is listed in [`ReindexReport::duplicates`] with every holder, and its lookup is neither written
    /// nor changed. A lookup naming a document that no longer holds its value is taken over. A second run
    /// over a reindexed store writes nothing.
    ///
    /// Every lookup value of the model is held in memory until the end of the run, to find the duplicates.
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
    /// assert_eq!((report.visited, report.lookups), (3, 1));
    /// assert_eq!(report.duplicates[0].lookup, "email::bob@example.com");
    /// assert_eq!(report.duplicates[0].keys, ["user::2", "user::3"]);
    /// assert!(users.get_by_lookup("email::ada@example.com").await?.is_some());
    /// assert!(store.get("email::bob@example.com").await?.is_none());
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Fails only when the store does: one that refuses this repository's writes, one that cannot list keys,
    /// or an error listing or reading a batch.
    pub async fn reindex(&self) -> Result<ReindexReport, Error> {
        operation!(self, "reindex", T, {
            self.check_store()?;
            self.ensure_indexes().await?;
            let mut report = ReindexReport::default();
            // Each lookup value, with the documents holding it; each document's index entries.
            let mut holders: BTreeMap<String, Vec<String>> = BTreeMap::new();
            let mut entries: Vec<(String, Vec<String>)> = Vec::new();
            let mut keys = self.model_keys("reindexing", "", None, Partition::WHOLE)?;
            while let Some(chunk) = keys.next_batch(BATCH).await? {
                let texts: Vec<&str> = chunk.iter().map(Key::as_str).collect();
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
                    let lookups = match lookup_keys(doc.body()) {
                        Ok(lookups) => lookups,
                        Err(error) => {
                            report
                                .failed
                                .push(MigrationFailure::new(key.as_str(), error));
                            continue;
                        }
                    };
                    for lookup in lookups {
                        let keys = holders.entry(lookup).or_default();
                        // Two lookup templates of one document may give one key: it holds it once.
                        if keys.last().map(String::as_str) != Some(key.as_str()) {
                            keys.push(key.as_str().to_owned());
                        }
                    }
                    let kept = doc
                        .stored()
                        .map(|stored| self.entries(&stored.bytes, key.as_str()))
                        .unwrap_or_default();
                    if !kept.is_empty() {
                        entries.push((key.as_str().to_owned(), kept));
                    }
                }
            }
            self.claim_lookups(holders, &mut report).await?;
            self.claim_entries(entries, &mut report).await?;
            Ok(report)
        })
    }

    /// Claims each lookup one document holds and no lookup names it for; lists the values more than one
    /// holds.
    async fn claim_lookups(
        &self,
        holders: BTreeMap<String, Vec<String>>,
        report: &mut ReindexReport,
    ) -> Result<(), Error> {
        let mut single = Vec::new();
        for (lookup, keys) in holders {
            match <[String; 1]>::try_from(keys) {
                Ok([key]) => single.push((lookup, key)),
                Err(keys) => report.duplicates.push(Duplicate { lookup, keys }),
            }
        }
        let aux = self.aux();
        for chunk in single.chunks(BATCH) {
            let texts: Vec<&str> = chunk.iter().map(|(lookup, _)| lookup.as_str()).collect();
            let found = self.store.get_many(&texts).await?;
            for ((lookup, key), existing) in chunk.iter().zip(found) {
                let named =
                    existing.and_then(|existing| lookup_target::<T>(lookup, &existing.bytes));
                if named.as_deref() == Some(key.as_str()) {
                    continue;
                }
                let mut claims = Claims::<T, _>::new(&aux, key);
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
                        let mut keys: Vec<String> = holder.into_iter().collect();
                        keys.push(key.clone());
                        keys.sort();
                        report.duplicates.push(Duplicate {
                            lookup: lookup.clone(),
                            keys,
                        });
                    }
                    Err(error) => report.failed.push(MigrationFailure::new(key, error)),
                }
            }
        }
        report.duplicates.sort_by(|a, b| a.lookup.cmp(&b.lookup));
        Ok(())
    }

    /// Writes the index entries each document lacks.
    async fn claim_entries(
        &self,
        entries: Vec<(String, Vec<String>)>,
        report: &mut ReindexReport,
    ) -> Result<(), Error> {
        let aux = self.aux();
        // One read for the entries of a batch of documents, not one per document.
        for chunk in entries.chunks(BATCH) {
            let texts: Vec<&str> = chunk
                .iter()
                .flat_map(|(_, kept)| kept.iter().map(String::as_str))
                .collect();
            let mut found = self.store.get_many(&texts).await?.into_iter();
            for (key, kept) in chunk {
                let missing: Vec<&String> = kept
                    .iter()
                    .zip(found.by_ref())
                    .filter(|(entry, existing)| {
                        existing
                            .as_ref()
                            .and_then(|existing| lookup_target::<T>(entry, &existing.bytes))
                            .as_deref()
                            != Some(key.as_str())
                    })
                    .map(|(entry, _)| entry)
                    .collect();
                if missing.is_empty() {
                    continue;
                }
                let mut claims = Claims::<T, _>::new(&aux, key);
                match claims.claim([], missing.iter().copied(), Expect::Any).await {
                    Ok(()) => {
                        claims.keep();
                        report.entries += missing.len() as u64;
                    }
                    Err(error) => report.failed.push(MigrationFailure::new(key, error)),
                }
            }
        }
        Ok(())
    }
}
