//! [`Hooked`]: the one wrapper store a test configures, rather than writing a `Store` of its own. Its
//! [`Hooks`] see each operation before and after it reaches the wrapped store, can fail it there, change
//! the capabilities the wrapper reports, answer a scan, or leave an operation to the `Store` trait's default
//! (as a user's wrapper that forgets to pass it on).
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

use docmodel::store::{Capabilities, Cas, Store, Stored, Write, WriteOptions};
use docmodel::{Error, StoreErrorKind};

/// Which store operation a [`Call`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operation {
    Get,
    GetMany,
    GetRevision,
    Insert,
    InsertMany,
    Replace,
    Remove,
    WriteAtomic,
    Counter,
    Scan,
    ScanRange,
    Query,
    CreateIndex,
}

impl Operation {
    /// Whether the `Store` trait requires it (`get`, the three writes, `counter`): what a wrapper that
    /// forwards only those passes on, its other operations being the trait's defaults.
    pub fn is_required(self) -> bool {
        matches!(
            self,
            Operation::Get
                | Operation::Insert
                | Operation::Replace
                | Operation::Remove
                | Operation::Counter
        )
    }
}

/// One store operation as the hooks see it.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    pub operation: Operation,
    /// The key it names: a batch's first, a scan's prefix or start, `""` for a query.
    pub key: &'a str,
    /// The options of a write.
    pub options: Option<&'a WriteOptions>,
    /// The keys of a batch read.
    pub keys: &'a [&'a str],
    /// The values of a bulk insert, each a key and its bytes.
    pub values: &'a [(&'a str, &'a [u8])],
    /// The writes of an atomic batch.
    pub writes: &'a [Write<'a>],
    /// The end of a range scan.
    pub end: &'a str,
    /// The text of a query or an index definition.
    pub text: &'a [u8],
}

impl<'a> Call<'a> {
    fn new(operation: Operation, key: &'a str) -> Self {
        Call {
            operation,
            key,
            options: None,
            keys: &[],
            values: &[],
            writes: &[],
            end: "",
            text: &[],
        }
    }

    fn write(operation: Operation, key: &'a str, options: &'a WriteOptions) -> Self {
        Call {
            options: Some(options),
            ..Call::new(operation, key)
        }
    }
}

/// What a [`Hooked`] store does around the store it wraps. Every method has a default that changes
/// nothing, so a test writes only what it changes.
pub trait Hooks<S>: Send + Sync {
    /// The capabilities the wrapper reports: the wrapped store's, unless changed.
    fn capabilities(&self, inner: &S) -> Capabilities
    where
        S: Store,
    {
        inner.capabilities()
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

    /// Whether the wrapper passes `operation` on to the store. Where it does not, the `Store` trait's default
    /// runs instead, through the wrapper's own operations. Only the operations the trait has a default for
    /// can be left out (`get`, the three writes and `counter` always pass).
    fn passes(&self, operation: Operation) -> bool {
        let _ = operation;
        true
    }

    /// The keys under `prefix`, where the hooks answer a scan themselves rather than the store.
    fn scan(&self, prefix: &str) -> Option<Vec<String>> {
        let _ = prefix;
        None
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

impl<S: Store, H: Hooks<S>> Hooked<S, H> {
    /// `call`, made by `operation` once the hooks let it through.
    async fn run<T, F>(&self, call: Call<'_>, operation: impl FnOnce() -> F) -> Result<T, Error>
    where
        F: Future<Output = Result<T, Error>>,
    {
        self.hooks.before(&self.inner, call).await?;
        let outcome = operation().await;
        self.hooks.after(call, outcome.is_ok());
        outcome
    }
}

/// A store whose operations are `T`'s where the trait requires them (and `scan`, which the defaults of
/// `scan_range` read) and the trait's defaults elsewhere: what a [`Hooked`] store runs for an operation it
/// does not pass on.
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

    fn scan(&self, prefix: &str) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        self.0.scan(prefix)
    }
}

impl<S: Store, H: Hooks<S>> Store for Hooked<S, H> {
    async fn get(&self, key: &str) -> Result<Option<Stored>, Error> {
        self.run(Call::new(Operation::Get, key), || self.inner.get(key))
            .await
    }

    async fn get_many(&self, keys: &[&str]) -> Result<Vec<Option<Stored>>, Error> {
        if !self.hooks.passes(Operation::GetMany) {
            return Defaults(self).get_many(keys).await;
        }
        let call = Call {
            keys,
            ..Call::new(Operation::GetMany, keys.first().copied().unwrap_or(""))
        };
        self.run(call, || self.inner.get_many(keys)).await
    }

    async fn get_revision(&self, key: &str, cas: &Cas) -> Result<Option<Stored>, Error> {
        if !self.hooks.passes(Operation::GetRevision) {
            return Defaults(self).get_revision(key, cas).await;
        }
        self.run(Call::new(Operation::GetRevision, key), || {
            self.inner.get_revision(key, cas)
        })
        .await
    }

    async fn insert_with(
        &self,
        key: &str,
        value: &[u8],
        options: &WriteOptions,
    ) -> Result<Cas, Error> {
        self.run(Call::write(Operation::Insert, key, options), || {
            self.inner.insert_with(key, value, options)
        })
        .await
    }

    async fn insert_many(
        &self,
        values: &[(&str, &[u8])],
        options: &WriteOptions,
    ) -> Vec<Result<Cas, Error>> {
        if !self.hooks.passes(Operation::InsertMany) {
            return Defaults(self).insert_many(values, options).await;
        }
        // The batch is one call to the hooks, as the store sees it; failed there, each value fails naming
        // its key.
        let first = values.first().map_or("", |(key, _)| *key);
        let call = Call {
            values,
            ..Call::write(Operation::InsertMany, first, options)
        };
        if let Err(err) = self.hooks.before(&self.inner, call).await {
            return values
                .iter()
                .map(|(key, _)| Err(Error::store(key, err.to_string())))
                .collect();
        }
        let outcomes = self.inner.insert_many(values, options).await;
        self.hooks
            .after(call, outcomes.iter().all(|outcome| outcome.is_ok()));
        outcomes
    }

    async fn replace_with(
        &self,
        key: &str,
        value: &[u8],
        cas: &Cas,
        options: &WriteOptions,
    ) -> Result<Cas, Error> {
        self.run(Call::write(Operation::Replace, key, options), || {
            self.inner.replace_with(key, value, cas, options)
        })
        .await
    }

    async fn remove_with(
        &self,
        key: &str,
        cas: Option<&Cas>,
        options: &WriteOptions,
    ) -> Result<(), Error> {
        self.run(Call::write(Operation::Remove, key, options), || {
            self.inner.remove_with(key, cas, options)
        })
        .await
    }

    async fn write_atomic(
        &self,
        writes: &[Write<'_>],
        options: &WriteOptions,
    ) -> Result<Vec<Option<Cas>>, Error> {
        if !self.hooks.passes(Operation::WriteAtomic) {
            return Defaults(self).write_atomic(writes, options).await;
        }
        let first = writes.first().map_or("", Write::key);
        let call = Call {
            writes,
            ..Call::write(Operation::WriteAtomic, first, options)
        };
        self.run(call, || self.inner.write_atomic(writes, options))
            .await
    }

    async fn counter(&self, key: &str, delta: u64) -> Result<u64, Error> {
        self.run(Call::new(Operation::Counter, key), || {
            self.inner.counter(key, delta)
        })
        .await
    }

    fn capabilities(&self) -> Capabilities {
        self.hooks.capabilities(&self.inner)
    }

    async fn scan(&self, prefix: &str) -> Result<Vec<String>, Error> {
        if let Some(keys) = self.hooks.scan(prefix) {
            return Ok(keys);
        }
        if !self.hooks.passes(Operation::Scan) {
            return Err(Error::store_with(
                StoreErrorKind::Unsupported,
                prefix,
                "this store cannot list keys by prefix (it has no scan)",
            ));
        }
        self.run(Call::new(Operation::Scan, prefix), || {
            self.inner.scan(prefix)
        })
        .await
    }

    async fn scan_range(&self, start: &str, end: &str) -> Result<Vec<String>, Error> {
        if !self.hooks.passes(Operation::ScanRange) || self.hooks.scan(start).is_some() {
            return Defaults(self).scan_range(start, end).await;
        }
        let call = Call {
            end,
            ..Call::new(Operation::ScanRange, start)
        };
        self.run(call, || self.inner.scan_range(start, end)).await
    }

    async fn query(&self, query: &[u8]) -> Result<Vec<(String, Stored)>, Error> {
        if !self.hooks.passes(Operation::Query) {
            return Defaults(self).query(query).await;
        }
        let call = Call {
            text: query,
            ..Call::new(Operation::Query, "")
        };
        self.run(call, || self.inner.query(query)).await
    }

    async fn create_index(&self, definition: &[u8]) -> Result<(), Error> {
        if !self.hooks.passes(Operation::CreateIndex) {
            return Defaults(self).create_index(definition).await;
        }
        let call = Call {
            text: definition,
            ..Call::new(Operation::CreateIndex, "")
        };
        self.run(call, || self.inner.create_index(definition)).await
    }
}
