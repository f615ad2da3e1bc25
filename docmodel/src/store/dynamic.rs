//! `DynStore`: a store chosen at run time, behind one type.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use super::{Capabilities, Cas, ScanPage, Store, Stored, Transaction, Write, WriteOptions};
use crate::Error;

/// A boxed, `Send` future, as [`ErasedStore`] returns them.
type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// [`Store`] with boxed futures, so that it can be a trait object: what a [`DynStore`] holds. Implemented for
/// every `Store`.
trait ErasedStore: Send + Sync {
    /// [`Store::get`].
    fn erased_get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Stored>, Error>>;
    /// [`Store::get_many`].
    fn erased_get_many<'a>(
        &'a self,
        keys: &'a [&'a str],
    ) -> BoxFuture<'a, Result<Vec<Option<Stored>>, Error>>;
    /// [`Store::get_revision`].
    fn erased_get_revision<'a>(
        &'a self,
        key: &'a str,
        cas: &'a Cas,
    ) -> BoxFuture<'a, Result<Option<Stored>, Error>>;
    /// [`Store::insert_with`].
    fn erased_insert_with<'a>(
        &'a self,
        key: &'a str,
        value: &'a [u8],
        options: &'a WriteOptions,
    ) -> BoxFuture<'a, Result<Cas, Error>>;
    /// [`Store::replace_with`].
    fn erased_replace_with<'a>(
        &'a self,
        key: &'a str,
        value: &'a [u8],
        cas: &'a Cas,
        options: &'a WriteOptions,
    ) -> BoxFuture<'a, Result<Cas, Error>>;
    /// [`Store::remove_with`].
    fn erased_remove_with<'a>(
        &'a self,
        key: &'a str,
        cas: Option<&'a Cas>,
        options: &'a WriteOptions,
    ) -> BoxFuture<'a, Result<(), Error>>;
    /// [`Store::write_atomic`].
    fn erased_write_atomic<'a>(
        &'a self,
        writes: &'a [Write<'a>],
        options: &'a WriteOptions,
    ) -> BoxFuture<'a, Result<Vec<Option<Cas>>, Error>>;
    /// [`Store::transact`].
    fn erased_transact(
        &self,
        options: &WriteOptions,
        work: &mut dyn FnMut(&mut dyn Transaction) -> Result<(), Error>,
    ) -> Result<(), Error>;
    /// [`Store::insert_many`].
    fn erased_insert_many<'a>(
        &'a self,
        values: &'a [(&'a str, &'a [u8])],
        options: &'a WriteOptions,
    ) -> BoxFuture<'a, Vec<Result<Cas, Error>>>;
    /// [`Store::counter`].
    fn erased_counter<'a>(&'a self, key: &'a str, delta: u64) -> BoxFuture<'a, Result<u64, Error>>;
    /// [`Store::capabilities`].
    fn erased_capabilities(&self) -> Capabilities;
    /// [`Store::system`].
    fn erased_system(&self) -> &'static str;
    /// [`Store::scan`].
    fn erased_scan<'a>(
        &'a self,
        prefix: &'a str,
        page: ScanPage<'a>,
    ) -> BoxFuture<'a, Result<Vec<String>, Error>>;
    /// [`Store::scan_range`].
    fn erased_scan_range<'a>(
        &'a self,
        start: &'a str,
        end: &'a str,
        page: ScanPage<'a>,
    ) -> BoxFuture<'a, Result<Vec<String>, Error>>;
    /// [`Store::query`].
    fn erased_query<'a>(
        &'a self,
        query: &'a [u8],
    ) -> BoxFuture<'a, Result<Vec<(String, Stored)>, Error>>;
    /// [`Store::create_index`].
    fn erased_create_index<'a>(&'a self, definition: &'a [u8]) -> BoxFuture<'a, Result<(), Error>>;
    /// [`Store::ensure_validation`].
    fn erased_ensure_validation<'a>(
        &'a self,
        name: &'a str,
        function: &'a str,
    ) -> BoxFuture<'a, Result<bool, Error>>;
}

impl<S: Store> ErasedStore for S {
    fn erased_get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Stored>, Error>> {
        Box::pin(self.get(key))
    }

    fn erased_get_many<'a>(
        &'a self,
        keys: &'a [&'a str],
    ) -> BoxFuture<'a, Result<Vec<Option<Stored>>, Error>> {
        Box::pin(self.get_many(keys))
    }

    fn erased_get_revision<'a>(
        &'a self,
        key: &'a str,
        cas: &'a Cas,
    ) -> BoxFuture<'a, Result<Option<Stored>, Error>> {
        Box::pin(self.get_revision(key, cas))
    }

    fn erased_insert_with<'a>(
        &'a self,
        key: &'a str,
        value: &'a [u8],
        options: &'a WriteOptions,
    ) -> BoxFuture<'a, Result<Cas, Error>> {
        Box::pin(self.insert_with(key, value, options))
    }

    fn erased_replace_with<'a>(
        &'a self,
        key: &'a str,
        value: &'a [u8],
        cas: &'a Cas,
        options: &'a WriteOptions,
    ) -> BoxFuture<'a, Result<Cas, Error>> {
        Box::pin(self.replace_with(key, value, cas, options))
    }

    fn erased_remove_with<'a>(
        &'a self,
        key: &'a str,
        cas: Option<&'a Cas>,
        options: &'a WriteOptions,
    ) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(self.remove_with(key, cas, options))
    }

    fn erased_write_atomic<'a>(
        &'a self,
        writes: &'a [Write<'a>],
        options: &'a WriteOptions,
    ) -> BoxFuture<'a, Result<Vec<Option<Cas>>, Error>> {
        Box::pin(self.write_atomic(writes, options))
    }

    fn erased_transact(
        &self,
        options: &WriteOptions,
        work: &mut dyn FnMut(&mut dyn Transaction) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.transact(options, work)
    }

    fn erased_insert_many<'a>(
        &'a self,
        values: &'a [(&'a str, &'a [u8])],
        options: &'a WriteOptions,
    ) -> BoxFuture<'a, Vec<Result<Cas, Error>>> {
        Box::pin(self.insert_many(values, options))
    }

    fn erased_counter<'a>(&'a self, key: &'a str, delta: u64) -> BoxFuture<'a, Result<u64, Error>> {
        Box::pin(self.counter(key, delta))
    }

    fn erased_capabilities(&self) -> Capabilities {
        self.capabilities()
    }

    fn erased_system(&self) -> &'static str {
        self.system()
    }

    fn erased_scan<'a>(
        &'a self,
        prefix: &'a str,
        page: ScanPage<'a>,
    ) -> BoxFuture<'a, Result<Vec<String>, Error>> {
        Box::pin(self.scan(prefix, page))
    }

    fn erased_scan_range<'a>(
        &'a self,
        start: &'a str,
        end: &'a str,
        page: ScanPage<'a>,
    ) -> BoxFuture<'a, Result<Vec<String>, Error>> {
        Box::pin(self.scan_range(start, end, page))
    }

    fn erased_query<'a>(
        &'a self,
        query: &'a [u8],
    ) -> BoxFuture<'a, Result<Vec<(String, Stored)>, Error>> {
        Box::pin(self.query(query))
    }

    fn erased_create_index<'a>(&'a self, definition: &'a [u8]) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(self.create_index(definition))
    }

    fn erased_ensure_validation<'a>(
        &'a self,
        name: &'a str,
        function: &'a str,
    ) -> BoxFuture<'a, Result<bool, Error>> {
        Box::pin(self.ensure_validation(name, function))
    }
}

/// A store chosen at run time: any [`Store`] behind one type, with one boxed future per operation.
/// Cloning it shares the same store.
///
/// ```
/// use docmodel::store::{DynStore, MemoryStore, Store};
///
/// # pollster::block_on(async {
/// fn open(file: Option<&str>) -> Result<DynStore, docmodel::Error> {
///     Ok(match file {
///         None => DynStore::new(MemoryStore::new()),
///         # #[cfg(feature = "redb")]
///         Some(file) => DynStore::new(docmodel::store::Redb::open(file)?),
///         # #[cfg(not(feature = "redb"))]
///         # Some(_) => unreachable!(),
///     })
/// }
/// let store = open(None)?;
/// store.insert("user::1", b"{}").await?;
/// assert!(store.capabilities().scan);
/// # Ok::<(), docmodel::Error>(())
/// # }).unwrap();
/// ```
#[derive(Clone)]
pub struct DynStore(Arc<dyn ErasedStore>);

impl DynStore {
    /// `store`, behind the one type.
    pub fn new(store: impl Store + 'static) -> Self {
        DynStore(Arc::new(store))
    }
}

impl std::fmt::Debug for DynStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DynStore")
            .field("capabilities", &self.0.erased_capabilities())
            .finish_non_exhaustive()
    }
}

impl Store for DynStore {
    async fn get(&self, key: &str) -> Result<Option<Stored>, Error> {
        self.0.erased_get(key).await
    }

    async fn get_many(&self, keys: &[&str]) -> Result<Vec<Option<Stored>>, Error> {
        self.0.erased_get_many(keys).await
    }

    async fn get_revision(&self, key: &str, cas: &Cas) -> Result<Option<Stored>, Error> {
        self.0.erased_get_revision(key, cas).await
    }

    async fn insert_with(
        &self,
        key: &str,
        value: &[u8],
        options: &WriteOptions,
    ) -> Result<Cas, Error> {
        self.0.erased_insert_with(key, value, options).await
    }

    async fn replace_with(
        &self,
        key: &str,
        value: &[u8],
        cas: &Cas,
        options: &WriteOptions,
    ) -> Result<Cas, Error> {
        self.0.erased_replace_with(key, value, cas, options).await
    }

    async fn remove_with(
        &self,
        key: &str,
        cas: Option<&Cas>,
        options: &WriteOptions,
    ) -> Result<(), Error> {
        self.0.erased_remove_with(key, cas, options).await
    }

    async fn write_atomic(
        &self,
        writes: &[Write<'_>],
        options: &WriteOptions,
    ) -> Result<Vec<Option<Cas>>, Error> {
        self.0.erased_write_atomic(writes, options).await
    }

    async fn insert_many(
        &self,
        values: &[(&str, &[u8])],
        options: &WriteOptions,
    ) -> Vec<Result<Cas, Error>> {
        self.0.erased_insert_many(values, options).await
    }

    fn transact(
        &self,
        options: &WriteOptions,
        work: &mut dyn FnMut(&mut dyn Transaction) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.0.erased_transact(options, work)
    }

    async fn counter(&self, key: &str, delta: u64) -> Result<u64, Error> {
        self.0.erased_counter(key, delta).await
    }

    fn capabilities(&self) -> Capabilities {
        self.0.erased_capabilities()
    }

    fn system(&self) -> &'static str {
        self.0.erased_system()
    }

    async fn scan(&self, prefix: &str, page: ScanPage<'_>) -> Result<Vec<String>, Error> {
        self.0.erased_scan(prefix, page).await
    }

    async fn scan_range(
        &self,
        start: &str,
        end: &str,
        page: ScanPage<'_>,
    ) -> Result<Vec<String>, Error> {
        self.0.erased_scan_range(start, end, page).await
    }

    async fn query(&self, query: &[u8]) -> Result<Vec<(String, Stored)>, Error> {
        self.0.erased_query(query).await
    }

    async fn create_index(&self, definition: &[u8]) -> Result<(), Error> {
        self.0.erased_create_index(definition).await
    }

    async fn ensure_validation(&self, name: &str, function: &str) -> Result<bool, Error> {
        self.0.erased_ensure_validation(name, function).await
    }
}
