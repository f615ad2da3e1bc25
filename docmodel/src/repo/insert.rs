//! [`Repo::insert`] and [`Repo::insert_many`] (with its [`InsertProgress`]): a new document, its lookups and index entries claimed first (the
//! [protocol](crate::Repo#lookup-claims)).

use std::future::{Future, IntoFuture};
use std::pin::Pin;

use crate::trace::operation;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::Repo;
use super::claims::{Claims, Expect, Undo};
use super::sealed::Sealed;
use crate::keyshape::lookup_keys;
use crate::store::{Store, Stored, WriteOptions};
use crate::{Doc, DocModel, Error, Timestamp};

impl<T, S> Repo<T, S>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
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
        let new = new.into_doc()?;
        operation!(self, "insert", T, Self::about(new.key().as_str()), {
            let new = self.prepare_insert(new, (self.clock)())?;
            self.insert_claiming(new).await
        })
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
    pub fn insert_many<I>(&self, new: I) -> InsertMany<'_, T, S, I>
    where
        I: IntoIterator,
        I::Item: NewDoc<T>,
    {
        InsertMany {
            repo: self,
            new,
            progress: None,
        }
    }

    /// The run an [`InsertMany`] describes.
    async fn run_insert_many<I>(
        &self,
        new: I,
        mut progress: impl FnMut(&InsertProgress) + Send,
    ) -> Result<Vec<Result<Doc<T>, Error>>, Error>
    where
        I: IntoIterator,
        I::Item: NewDoc<T>,
    {
        operation!(self, "insert_many", T, {
            self.check_store()?;
            let now = (self.clock)();
            let new = new.into_iter();
            let mut report = InsertProgress {
                done: 0,
                failed: 0,
                total: match new.size_hint() {
                    (lower, Some(upper)) if lower == upper => Some(lower as u64),
                    _ => None,
                },
            };
            progress(&report);
            let mut outcomes = Vec::new();
            let mut batch: Vec<(usize, NewInsert<T>)> = Vec::with_capacity(INSERT_BATCH);
            for new in new {
                let at = outcomes.len();
                outcomes.push(None);
                match new.into_doc().and_then(|doc| self.prepare_insert(doc, now)) {
                    Err(refused) => {
                        outcomes[at] = Some(Err(refused));
                        report.handled(1, 1);
                    }
                    Ok(new) if !new.lookups.is_empty() || !new.entries.is_empty() => {
                        let outcome = self.insert_claiming(new).await;
                        report.handled(1, u64::from(outcome.is_err()));
                        outcomes[at] = Some(outcome);
                        progress(&report);
                    }
                    Ok(new) => {
                        batch.push((at, new));
                        if batch.len() == INSERT_BATCH {
                            let failed = self.insert_batch(&mut batch, &mut outcomes).await;
                            report.handled(INSERT_BATCH as u64, failed);
                            progress(&report);
                        }
                    }
                }
            }
            let left = batch.len() as u64;
            let failed = self.insert_batch(&mut batch, &mut outcomes).await;
            report.handled(left, failed);
            progress(&report);
            Ok(outcomes
                .into_iter()
                .map(|outcome| {
                    outcome.unwrap_or_else(|| unreachable!("every document has an outcome"))
                })
                .collect())
        })
    }

    /// Inserts the documents of `batch` (none with claims) with one [`Store::insert_many`], puts each
    /// one's outcome at its place in `outcomes`, and returns how many failed.
    async fn insert_batch(
        &self,
        batch: &mut Vec<(usize, NewInsert<T>)>,
        outcomes: &mut [Option<Result<Doc<T>, Error>>],
    ) -> u64 {
        if batch.is_empty() {
            return 0;
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
        let mut failed = 0;
        for ((at, new), written) in batch.drain(..).zip(written) {
            failed += u64::from(written.is_err());
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
        failed
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
        let aux = self.aux();
        let mut claims = Claims::<T, _>::new(&aux, &key);
        claims.claim(&lookups, &entries, Expect::Any).await?;
        let cas = match self.docs().insert(&key, &bytes).await {
            Ok(cas) => cas,
            Err(err) => return Err(claims.write_failed(err).await),
        };
        // Another writer took a value over before this document was written, or the claim could not be
        // confirmed: the document goes again.
        claims
            .confirm(&self.docs(), Undo::Remove { written: &cas })
            .await?;
        doc.written(envelope, Stored::new(bytes, cas), lookups);
        Ok(doc)
    }
}

/// How far a [`Repo::insert_many`] has come, as [`InsertMany::progress`] hears it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct InsertProgress {
    /// The documents handled so far: written, or refused (their outcome is an error).
    pub done: u64,
    /// Of those, the ones refused or not written.
    pub failed: u64,
    /// How many documents were given, where their iterator says so exactly (a `Vec`, an array, a map of
    /// either); `None` otherwise.
    pub total: Option<u64>,
}

impl InsertProgress {
    fn handled(&mut self, done: u64, failed: u64) {
        self.done += done;
        self.failed += failed;
    }
}

/// What [`Repo::insert`] stores: a body, or a [`Doc`] carrying envelope values of its own. Sealed: these two
/// are all there is.
pub trait NewDoc<T>: Sealed<T> {
    /// The document to insert; its rules are checked as it is written.
    #[doc(hidden)]
    fn into_doc(self) -> Result<Doc<T>, Error>;
}

impl<T: DocModel> Sealed<T> for T {}
impl<T: DocModel> Sealed<T> for Doc<T> {}

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

/// A run of [`Repo::insert_many`]: the documents, and who hears of its progress; awaiting it runs it
/// ([`IntoFuture`]).
#[must_use = "an insert does nothing until it is awaited"]
pub struct InsertMany<'a, T, S, I> {
    repo: &'a Repo<T, S>,
    new: I,
    progress: Option<Progress<'a>>,
}

/// The callback of [`InsertMany::progress`].
type Progress<'a> = Box<dyn FnMut(&InsertProgress) + Send + 'a>;

impl<T, S, I> std::fmt::Debug for InsertMany<'_, T, S, I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InsertMany")
            .field("progress", &self.progress.is_some())
            .finish_non_exhaustive()
    }
}

impl<'a, T, S, I> InsertMany<'a, T, S, I> {
    /// Calls `progress` with how far the insert has come: before the first write (with
    /// [`InsertProgress::total`] where the documents say how many they are, as a `Vec` or an array does),
    /// after each batch the store writes, after each document inserted on its own (one with lookups or index
    /// entries), and at the end.
    ///
    /// ```
    /// # use docmodel::{DocModel, Repo, store::MemoryStore};
    /// # #[derive(Debug, serde::Serialize, serde::Deserialize, DocModel)]
    /// # #[docmodel(type = "city", schema = "1.0", key = "city::{id}")]
    /// # struct City { id: u64 }
    /// # pollster::block_on(async {
    /// let cities = Repo::<City>::new(MemoryStore::new());
    /// let mut seen = Vec::new();
    /// let cities_to_load: Vec<City> = (0..2_500).map(|id| City { id }).collect();
    /// cities
    ///     .insert_many(cities_to_load)
    ///     .progress(|progress| seen.push((progress.done, progress.total)))
    ///     .await?;
    /// assert_eq!(seen, [(0, Some(2_500)), (1_000, Some(2_500)), (2_000, Some(2_500)), (2_500, Some(2_500))]);
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn progress(mut self, progress: impl FnMut(&InsertProgress) + Send + 'a) -> Self {
        self.progress = Some(Box::new(progress));
        self
    }
}

impl<'a, T, S, I> IntoFuture for InsertMany<'a, T, S, I>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
    I: IntoIterator + Send + 'a,
    I::IntoIter: Send,
    I::Item: NewDoc<T> + Send,
{
    type Output = Result<Vec<Result<Doc<T>, Error>>, Error>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        let InsertMany {
            repo,
            new,
            mut progress,
        } = self;
        Box::pin(repo.run_insert_many(new, move |report| {
            if let Some(progress) = &mut progress {
                progress(report);
            }
        }))
    }
}
