//! The model's keys, listed a page at a time: what whole-store work (`migrate_all`, `reindex`, `find`
//! without an index) walks.

use std::collections::VecDeque;

use super::{Partition, Repo};
use crate::store::{DEFAULT_PAGE, KeyPages, Store};
use crate::trace::Traced;
use crate::{DocModel, Error, Key, StoreErrorKind};

/// The keys of a model's documents as its store lists them, in batches: the keys under the model's key
/// prefix that parse as the model's (revision copies, lookups and other models' keys under the prefix left
/// out), in the store's key order, those of one [`Partition`]. The store is asked for a page of keys at a time
/// ([`DEFAULT_PAGE`]), so memory holds a page and a batch, whatever the store holds.
pub(super) struct ModelKeys<'s, T, S> {
    /// The model's key prefix, what is listed.
    prefix: &'static str,
    pages: KeyPages<'s, Traced<S>>,
    /// The part of the keys handed out.
    partition: Partition,
    /// The model's keys listed and not yet handed out.
    listed: VecDeque<Key<T>>,
    /// Whether the store's listing is over.
    over: bool,
}

impl<'s, T: DocModel, S: Store> ModelKeys<'s, T, S> {
    /// Lists until `batch` keys are held, or the listing is over.
    async fn fill(&mut self, batch: usize) -> Result<(), Error> {
        while self.listed.len() < batch && !self.over {
            if let Some(page) = self.pages.next_page().await? {
                let keys = page.iter().filter(|key| self.partition.holds(key));
                self.listed
                    .extend(keys.filter_map(|key| Key::parse(key).ok()));
            }
            self.over = self.pages.is_done();
        }
        Ok(())
    }

    /// The next `batch` keys of the model (fewer at the end), or `None` when the listing is over.
    pub(super) async fn next_batch(&mut self, batch: usize) -> Result<Option<Vec<Key<T>>>, Error> {
        let batch = batch.max(1);
        self.fill(batch).await?;
        if self.listed.is_empty() {
            return Ok(None);
        }
        let take = batch.min(self.listed.len());
        Ok(Some(self.listed.drain(..take).collect()))
    }

    /// How many keys are left (at most `cap`), with no key handed out: those of the first page where the
    /// listing ends there or they reach `cap`, and otherwise the rest counted by a listing of its own, a page
    /// in memory at a time, until the count reaches `cap`.
    pub(super) async fn count(&mut self, cap: Option<u64>) -> Result<u64, Error> {
        let cap = cap.unwrap_or(u64::MAX);
        self.fill(1).await?;
        let mut counted = self.listed.len() as u64;
        if self.over || counted >= cap {
            return Ok(counted.min(cap));
        }
        let mut rest = KeyPages::prefix(self.pages.store(), self.prefix).page_size(DEFAULT_PAGE);
        if let Some(after) = self.pages.cursor() {
            rest = rest.resume_after(after);
        }
        while counted < cap
            && let Some(page) = rest.next_page().await?
        {
            counted += page
                .iter()
                .filter(|key| self.partition.holds(key) && Key::<T>::parse(key).is_ok())
                .count() as u64;
        }
        Ok(counted.min(cap))
    }

    /// Whether every key listed was handed out and the listing is over: there is no next batch.
    pub(super) fn is_exhausted(&self) -> bool {
        self.over && self.listed.is_empty()
    }

    /// Whether the listing holds another key.
    async fn has_more(&mut self) -> Result<bool, Error> {
        self.fill(1).await?;
        Ok(!self.listed.is_empty())
    }
}

impl<T: DocModel, S: Store> Repo<T, S> {
    /// The model's keys of `partition` from after `after` (the model's key prefix; see [`ModelKeys`]).
    /// `doing` says what needs them, and `hint` what to do instead, for the error of a store that cannot list
    /// keys.
    pub(super) fn model_keys(
        &self,
        doing: &str,
        hint: &str,
        after: Option<&str>,
        partition: Partition,
    ) -> Result<ModelKeys<'_, T, S>, Error> {
        if !self.store.capabilities().scan {
            return Err(Error::store_with(
                StoreErrorKind::Unsupported,
                T::TYPE,
                format!(
                    "{doing} every `{}` document needs a store that can list keys (`Capabilities::scan`), \
                     and this one cannot{hint}",
                    T::TYPE
                ),
            ));
        }
        let pattern = T::KEY.pattern();
        let prefix = &pattern[..pattern.find('{').unwrap_or(pattern.len())];
        let mut pages = KeyPages::prefix(&self.store, prefix).page_size(DEFAULT_PAGE);
        if let Some(after) = after {
            pages = pages.resume_after(after);
        }
        Ok(ModelKeys {
            prefix,
            pages,
            partition,
            listed: VecDeque::new(),
            over: false,
        })
    }
}

/// Where a whole-store job's keys come from: a list (the caller's, or an index's), or the store's listing of
/// the model's keys.
pub(super) enum Source<'s, T, S> {
    Given(Vec<Key<T>>),
    Listed(ModelKeys<'s, T, S>),
}

impl<T: DocModel, S: Store> Source<'_, T, S> {
    /// Whether there is another key, after those handed out.
    pub(super) async fn has_more(&mut self) -> Result<bool, Error> {
        match self {
            Source::Given(keys) => Ok(!keys.is_empty()),
            Source::Listed(listing) => listing.has_more().await,
        }
    }

    /// The next `batch` keys (fewer at the end), or `None` when there are no more.
    pub(super) async fn next(&mut self, batch: usize) -> Result<Option<Vec<Key<T>>>, Error> {
        match self {
            Source::Given(keys) if keys.is_empty() => Ok(None),
            Source::Given(keys) => {
                let rest = keys.split_off(batch.clamp(1, keys.len()));
                Ok(Some(std::mem::replace(keys, rest)))
            }
            Source::Listed(listing) => listing.next_batch(batch).await,
        }
    }
}
