//! [`Hooked`]: the one wrapper store a test configures, rather than writing a `Store` of its own: a
//! [`Layer`] whose [`Hooks`] see each operation before and after it reaches the wrapped store, can fail it
//! there, or change the capabilities the wrapper reports. [`Forgetting`] plays the other kind of store: one
//! written by hand that leaves some operations to the `Store` trait's defaults.
//!
//! ```
//! use docmodel::store::{Capabilities, MemoryStore, Store};
//! use docmodel_tests::{Hooked, Hooks};
//!
//! /// MemoryStore, saying it cannot scan (as Couchbase).
//! struct NoScan;
//!
//! impl Hooks<MemoryStore> for NoScan {
//!     fn capabilities(&self, inner: &MemoryStore) -> Capabilities {
//!         inner.capabilities().with_scan(false)
//!     }
//! }
//!
//! let store = Hooked::with(MemoryStore::new(), NoScan);
//! assert!(!store.capabilities().scan);
//! ```

use std::future::Future;
use std::ops::Deref;

use docmodel::store::{
    Call, Capabilities, Cas, Layer, Operation, Reply, ScanPage, Store, Stored, Write, WriteOptions,
};
use docmodel::{Error, StoreErrorKind};

/// Whether the `Store` trait requires `operation` (`get`, the three writes, `counter`): what a store that
/// implements only those passes on, its other operations being the trait's defaults.
pub fn required(operation: Operation) -> bool {
    matches!(
        operation,
        Operation::Get
            | Operation::Insert
            | Operation::Replace
            | Operation::Remove
            | Operation::Counter
    )
}

/// What a [`Hooked`] store does around the store it wraps. Every method has a default that changes
/// nothing, so a test writes only what it changes.
pub trait Hooks<S>: Send + Sync {
    /// The capabilities the wrapper reports: the wrapped store's, unless changed, but for its transactions
    /// ([`Capabilities::transactions`]), whose reads and writes no hook would see: a repository over it makes
    /// each update's operations one at a time, where the hooks run.
    fn capabilities(&self, inner: &S) -> Capabilities
    where
        S: Store,
    {
        inner.capabilities().with_transactions(false)
    }

    /// Runs before `call` reaches the store (which `inner` is, for a hook that writes there itself). An error
    /// fails the call with it, and the store sees nothing of it.
    fn before(&self, inner: &S, call: Call<'_>) -> impl Future<Output = Result<(), Error>> + Send {
        let _ = (inner, call);
        std::future::ready(Ok(()))
    }

    /// Runs after `call` reached the store, with whether it succeeded (a bulk insert: every value written).
    fn after(&self, call: Call<'_>, succeeded: bool) {
        let _ = (call, succeeded);
    }
}

/// No hooks: the store as it is.
impl<S> Hooks<S> for () {}

/// A store `S` with `hooks` around each of its operations.
#[derive(Debug, Default)]
pub struct Hooked<S, H = ()> {
    pub inner: S,
    pub hooks: H,
}

impl<S, H> Hooked<S, H> {
    /// `inner` with `hooks` around it.
    pub fn with(inner: S, hooks: H) -> Self {
        Hooked { inner, hooks }
    }
}

impl<S: Store, H: Hooks<S>> Layer for Hooked<S, H> {
    type Inner = S;

    fn inner(&self) -> &S {
        &self.inner
    }

    async fn around<'a, F>(
        &'a self,
        call: Call<'a>,
        operation: impl FnOnce() -> F + Send + 'a,
    ) -> F::Output
    where
        F: Future + Send + 'a,
        F::Output: Reply,
    {
        if let Err(error) = self.hooks.before(&self.inner, call).await {
            return F::Output::refused(&call, error);
        }
        let reply = operation().await;
        self.hooks.after(call, reply.succeeded());
        reply
    }

    fn capabilities_from(&self, _: Capabilities) -> Capabilities {
        self.hooks.capabilities(&self.inner)
    }
}

/// A store written by hand around `inner` that passes on the operations `passes` names and the ones the
/// `Store` trait requires, and leaves the others to the trait's defaults: a bulk insert made one insert at
/// a time, a `write_atomic` that refuses (as a user's wrapper that forgets to pass it on), a `scan` that
/// cannot list. It reports `inner`'s capabilities.
pub struct Forgetting<S> {
    pub inner: S,
    passes: fn(Operation) -> bool,
}

impl<S> Forgetting<S> {
    /// `inner`, passing on the operations `passes` names (and the required ones).
    pub fn passing(inner: S, passes: fn(Operation) -> bool) -> Self {
        Forgetting { inner, passes }
    }

    fn passes(&self, operation: Operation) -> bool {
        required(operation) || (self.passes)(operation)
    }
}

impl<S> Deref for Forgetting<S> {
    type Target = S;

    fn deref(&self) -> &S {
        &self.inner
    }
}

impl<S: std::fmt::Debug> std::fmt::Debug for Forgetting<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Forgetting")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

/// A store whose operations are `T`'s where the trait requires them and the trait's defaults elsewhere:
/// what a [`Forgetting`] store runs for an operation it does not pass on.
struct Defaults<'a, T>(&'a T);

impl<T: Store> Store for Defaults<'_, T> {
    fn get(&self, key: &str) -> impl Future<Output = Result<Option<Stored>, Error>> + Send {
        self.0.get(key)
    }

    fn insert_with(
        &self,
        key: &str,
        value: &[u8],
        options: &WriteOptions,
    ) -> impl Future<Output = Result<Cas, Error>> + Send {
        self.0.insert_with(key, value, options)
    }

    fn replace_with(
        &self,
        key: &str,
        value: &[u8],
        cas: &Cas,
        options: &WriteOptions,
    ) -> impl Future<Output = Result<Cas, Error>> + Send {
        self.0.replace_with(key, value, cas, options)
    }

    fn remove_with(
        &self,
        key: &str,
        cas: Option<&Cas>,
        options: &WriteOptions,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        self.0.remove_with(key, cas, options)
    }

    fn counter(&self, key: &str, delta: u64) -> impl Future<Output = Result<u64, Error>> + Send {
        self.0.counter(key, delta)
    }

    fn scan(
        &self,
        prefix: &str,
        page: ScanPage<'_>,
    ) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        self.0.scan(prefix, page)
    }
}

impl<S: Store> Store for Forgetting<S> {
    async fn get(&self, key: &str) -> Result<Option<Stored>, Error> {
        self.inner.get(key).await
    }

    async fn get_many(&self, keys: &[&str]) -> Result<Vec<Option<Stored>>, Error> {
        if self.passes(Operation::GetMany) {
            self.inner.get_many(keys).await
        } else {
            Defaults(self).get_many(keys).await
        }
    }

    async fn get_revision(&self, key: &str, cas: &Cas) -> Result<Option<Stored>, Error> {
        if self.passes(Operation::GetRevision) {
            self.inner.get_revision(key, cas).await
        } else {
            Defaults(self).get_revision(key, cas).await
        }
    }

    async fn insert_with(
        &self,
        key: &str,
        value: &[u8],
        options: &WriteOptions,
    ) -> Result<Cas, Error> {
        self.inner.insert_with(key, value, options).await
    }

    async fn insert_many(
        &self,
        values: &[(&str, &[u8])],
        options: &WriteOptions,
    ) -> Vec<Result<Cas, Error>> {
        if self.passes(Operation::InsertMany) {
            self.inner.insert_many(values, options).await
        } else {
            Defaults(self).insert_many(values, options).await
        }
    }

    async fn replace_with(
        &self,
        key: &str,
        value: &[u8],
        cas: &Cas,
        options: &WriteOptions,
    ) -> Result<Cas, Error> {
        self.inner.replace_with(key, value, cas, options).await
    }

    async fn remove_with(
        &self,
        key: &str,
        cas: Option<&Cas>,
        options: &WriteOptions,
    ) -> Result<(), Error> {
        self.inner.remove_with(key, cas, options).await
    }

    async fn write_atomic(
        &self,
        writes: &[Write<'_>],
        options: &WriteOptions,
    ) -> Result<Vec<Option<Cas>>, Error> {
        if self.passes(Operation::WriteAtomic) {
            self.inner.write_atomic(writes, options).await
        } else {
            Defaults(self).write_atomic(writes, options).await
        }
    }

    async fn counter(&self, key: &str, delta: u64) -> Result<u64, Error> {
        self.inner.counter(key, delta).await
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    fn system(&self) -> &'static str {
        self.inner.system()
    }

    async fn scan(&self, prefix: &str, page: ScanPage<'_>) -> Result<Vec<String>, Error> {
        if self.passes(Operation::Scan) {
            self.inner.scan(prefix, page).await
        } else {
            Err(Error::store_with(
                StoreErrorKind::Unsupported,
                prefix,
                "this store cannot list keys by prefix (it has no scan)",
            ))
        }
    }

    async fn scan_range(
        &self,
        start: &str,
        end: &str,
        page: ScanPage<'_>,
    ) -> Result<Vec<String>, Error> {
        if self.passes(Operation::ScanRange) {
            self.inner.scan_range(start, end, page).await
        } else {
            Defaults(self).scan_range(start, end, page).await
        }
    }

    async fn query(&self, query: &[u8]) -> Result<Vec<(String, Stored)>, Error> {
        if self.passes(Operation::Query) {
            self.inner.query(query).await
        } else {
            Defaults(self).query(query).await
        }
    }

    async fn create_index(&self, definition: &[u8]) -> Result<(), Error> {
        if self.passes(Operation::CreateIndex) {
            self.inner.create_index(definition).await
        } else {
            Defaults(self).create_index(definition).await
        }
    }

    async fn ensure_validation(&self, name: &str, function: &str) -> Result<bool, Error> {
        if self.passes(Operation::EnsureValidation) {
            self.inner.ensure_validation(name, function).await
        } else {
            Defaults(self).ensure_validation(name, function).await
        }
    }
}
