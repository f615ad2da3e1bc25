//! The write decorator every protocol step writes through.

use std::future::Future;

use crate::Error;
use crate::store::{Cas, Store, Stored, WriteOptions};

/// A repository's store with the repository's [`WriteOptions`] on every write (the options of the call are
/// replaced): what the protocol's code writes through, so no write can forget them.
pub(super) struct Writing<'s, S> {
    pub(super) store: &'s S,
    pub(super) options: WriteOptions,
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

    fn system(&self) -> &'static str {
        self.store.system()
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

    fn ensure_validation(
        &self,
        name: &str,
        function: &str,
    ) -> impl Future<Output = Result<bool, Error>> + Send {
        self.store.ensure_validation(name, function)
    }
}
