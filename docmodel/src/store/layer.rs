//! [`Layer`]: a store around another store, written once. Tracing, metrics, a test's hooks and the
//! repository's own write options are layers: each says what it does around a call, and the one
//! implementation of [`Store`] for every layer passes each operation and each capability on, so a wrapper
//! cannot forget one.

use std::future::Future;

use super::{Capabilities, Cas, ScanPage, Store, Stored, Transaction, Write, WriteOptions};
use crate::Error;

/// Which operation of [`Store`] a [`Call`] is. `insert`, `replace` and `remove` are their `_with` forms
/// (what a store implements).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Operation {
    /// [`Store::get`].
    Get,
    /// [`Store::get_many`].
    GetMany,
    /// [`Store::get_revision`].
    GetRevision,
    /// [`Store::insert_with`] (and [`Store::insert`]).
    Insert,
    /// [`Store::insert_many`].
    InsertMany,
    /// [`Store::replace_with`] (and [`Store::replace`]).
    Replace,
    /// [`Store::remove_with`] (and [`Store::remove`]).
    Remove,
    /// [`Store::write_atomic`].
    WriteAtomic,
    /// [`Store::counter`].
    Counter,
    /// [`Store::scan`].
    Scan,
    /// [`Store::scan_range`].
    ScanRange,
    /// [`Store::query`].
    Query,
    /// [`Store::create_index`].
    CreateIndex,
    /// [`Store::ensure_validation`].
    EnsureValidation,
}

impl Operation {
    /// Every operation, in the order of the [`Store`] trait: as many as this version of docmodel has (a later
    /// one may add more).
    pub const ALL: &'static [Operation] = &[
        Operation::Get,
        Operation::GetMany,
        Operation::GetRevision,
        Operation::Insert,
        Operation::InsertMany,
        Operation::Replace,
        Operation::Remove,
        Operation::WriteAtomic,
        Operation::Counter,
        Operation::Scan,
        Operation::ScanRange,
        Operation::Query,
        Operation::CreateIndex,
        Operation::EnsureValidation,
    ];

    /// Its name, as the [`Store`] method's (`insert` for `insert_with`): what traces call it.
    ///
    /// ```
    /// use docmodel::store::Operation;
    ///
    /// assert_eq!(Operation::GetMany.name(), "get_many");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Operation::Get => "get",
            Operation::GetMany => "get_many",
            Operation::GetRevision => "get_revision",
            Operation::Insert => "insert",
            Operation::InsertMany => "insert_many",
            Operation::Replace => "replace",
            Operation::Remove => "remove",
            Operation::WriteAtomic => "write_atomic",
            Operation::Counter => "counter",
            Operation::Scan => "scan",
            Operation::ScanRange => "scan_range",
            Operation::Query => "query",
            Operation::CreateIndex => "create_index",
            Operation::EnsureValidation => "ensure_validation",
        }
    }
}

/// One call of a store operation, as a [`Layer`] sees it pass: the operation, with its own arguments.
///
/// ```
/// use docmodel::store::Call;
///
/// /// The keys a call writes.
/// fn written<'a>(call: &Call<'a>) -> Vec<&'a str> {
///     match *call {
///         Call::Insert { key, .. } | Call::Replace { key, .. } | Call::Remove { key, .. } => vec![key],
///         Call::InsertMany { values, .. } => values.iter().map(|(key, _)| *key).collect(),
///         Call::WriteAtomic { writes, .. } => writes.iter().map(|write| write.key()).collect(),
///         Call::Counter { key, .. } => vec![key],
///         _ => Vec::new(),
///     }
/// }
/// # let _ = written;
/// ```
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Call<'a> {
    /// [`Store::get`].
    #[non_exhaustive]
    Get {
        /// The key read.
        key: &'a str,
    },
    /// [`Store::get_many`].
    #[non_exhaustive]
    GetMany {
        /// The keys read.
        keys: &'a [&'a str],
    },
    /// [`Store::get_revision`].
    #[non_exhaustive]
    GetRevision {
        /// The key read.
        key: &'a str,
        /// The revision asked for.
        cas: &'a Cas,
    },
    /// [`Store::insert_with`] (and [`Store::insert`]).
    #[non_exhaustive]
    Insert {
        /// The key written.
        key: &'a str,
        /// The bytes written.
        value: &'a [u8],
        /// The write's options, as the layer passes them on ([`Layer::write_options`]).
        options: &'a WriteOptions,
    },
    /// [`Store::insert_many`].
    #[non_exhaustive]
    InsertMany {
        /// Each key and the bytes written under it.
        values: &'a [(&'a str, &'a [u8])],
        /// The writes' options, as the layer passes them on.
        options: &'a WriteOptions,
    },
    /// [`Store::replace_with`] (and [`Store::replace`]).
    #[non_exhaustive]
    Replace {
        /// The key written.
        key: &'a str,
        /// The bytes written.
        value: &'a [u8],
        /// The token the stored value must still have.
        cas: &'a Cas,
        /// The write's options, as the layer passes them on.
        options: &'a WriteOptions,
    },
    /// [`Store::remove_with`] (and [`Store::remove`]).
    #[non_exhaustive]
    Remove {
        /// The key removed.
        key: &'a str,
        /// The token the stored value must still have, if any.
        cas: Option<&'a Cas>,
        /// The removal's options, as the layer passes them on.
        options: &'a WriteOptions,
    },
    /// [`Store::write_atomic`].
    #[non_exhaustive]
    WriteAtomic {
        /// The batch's writes.
        writes: &'a [Write<'a>],
        /// Their options, as the layer passes them on.
        options: &'a WriteOptions,
    },
    /// [`Store::counter`].
    #[non_exhaustive]
    Counter {
        /// The counter's key.
        key: &'a str,
        /// What it is incremented by.
        delta: u64,
    },
    /// [`Store::scan`].
    #[non_exhaustive]
    Scan {
        /// The prefix of the keys listed.
        prefix: &'a str,
        /// The page asked for.
        page: ScanPage<'a>,
    },
    /// [`Store::scan_range`].
    #[non_exhaustive]
    ScanRange {
        /// The first key of the range.
        start: &'a str,
        /// The end of the range, not in it.
        end: &'a str,
        /// The page asked for.
        page: ScanPage<'a>,
    },
    /// [`Store::query`].
    #[non_exhaustive]
    Query {
        /// The query, in the store's language.
        query: &'a [u8],
    },
    /// [`Store::create_index`].
    #[non_exhaustive]
    CreateIndex {
        /// The index's definition, in the store's language.
        definition: &'a [u8],
    },
    /// [`Store::ensure_validation`].
    #[non_exhaustive]
    EnsureValidation {
        /// The validation's name (CouchDB's design document).
        name: &'a str,
        /// The function's source.
        function: &'a str,
    },
}

impl<'a> Call<'a> {
    /// Which operation it is.
    pub const fn operation(&self) -> Operation {
        match self {
            Call::Get { .. } => Operation::Get,
            Call::GetMany { .. } => Operation::GetMany,
            Call::GetRevision { .. } => Operation::GetRevision,
            Call::Insert { .. } => Operation::Insert,
            Call::InsertMany { .. } => Operation::InsertMany,
            Call::Replace { .. } => Operation::Replace,
            Call::Remove { .. } => Operation::Remove,
            Call::WriteAtomic { .. } => Operation::WriteAtomic,
            Call::Counter { .. } => Operation::Counter,
            Call::Scan { .. } => Operation::Scan,
            Call::ScanRange { .. } => Operation::ScanRange,
            Call::Query { .. } => Operation::Query,
            Call::CreateIndex { .. } => Operation::CreateIndex,
            Call::EnsureValidation { .. } => Operation::EnsureValidation,
        }
    }

    /// The one key it names, where it names one: the key read or written, a listing's prefix or start. `None` for a batch, a query, an index and a validation function.
    pub const fn key(&self) -> Option<&'a str> {
        match *self {
            Call::Get { key }
            | Call::GetRevision { key, .. }
            | Call::Insert { key, .. }
            | Call::Replace { key, .. }
            | Call::Remove { key, .. }
            | Call::Counter { key, .. }
            | Call::Scan { prefix: key, .. }
            | Call::ScanRange { start: key, .. } => Some(key),
            Call::GetMany { .. }
            | Call::InsertMany { .. }
            | Call::WriteAtomic { .. }
            | Call::Query { .. }
            | Call::CreateIndex { .. }
            | Call::EnsureValidation { .. } => None,
        }
    }
}

mod sealed {
    pub trait Sealed {}
    impl<T> Sealed for Result<T, crate::Error> {}
    impl Sealed for Vec<Result<super::Cas, crate::Error>> {}
}

/// What a store operation returns, as a [`Layer`] handles any of them: whether it succeeded, and the reply
/// of a call the layer refuses. Implemented for the replies of [`Store`]'s operations only.
pub trait Reply: Send + Sized + sealed::Sealed {
    /// Whether the operation succeeded (a bulk insert: every value was written).
    fn succeeded(&self) -> bool;

    /// The reply of `call` refused with `error` before it reached the store: the error, or for a bulk insert
    /// each value's, naming its key.
    fn refused(call: &Call<'_>, error: Error) -> Self;
}

impl<T: Send> Reply for Result<T, Error> {
    fn succeeded(&self) -> bool {
        self.is_ok()
    }

    fn refused(_: &Call<'_>, error: Error) -> Self {
        Err(error)
    }
}

impl Reply for Vec<Result<Cas, Error>> {
    fn succeeded(&self) -> bool {
        self.iter().all(Result::is_ok)
    }

    fn refused(call: &Call<'_>, error: Error) -> Self {
        match call {
            Call::InsertMany { values, .. } => values
                .iter()
                .map(|(key, _)| Err(super::failed_with_batch(&error, key)))
                .collect(),
            _ => vec![Err(error)],
        }
    }
}

/// A store around another (its [`inner`](Layer::inner) store), written as what it does around each call:
/// every `Layer` is a [`Store`] that passes each operation on to the inner store through
/// [`around`](Layer::around), and the inner store's capabilities with it. Nothing is restated per operation,
/// so a layer cannot drop one (as a hand-written wrapper whose `write_atomic` is the trait's default would,
/// and refuse every batch its capabilities promise).
///
/// A layer that counts the calls it sees:
///
/// ```
/// use std::future::Future;
/// use std::sync::atomic::{AtomicUsize, Ordering};
///
/// use docmodel::store::{Call, Layer, MemoryStore, Reply, Store};
///
/// struct Counted<S> {
///     inner: S,
///     calls: AtomicUsize,
/// }
///
/// impl<S: Store> Layer for Counted<S> {
///     type Inner = S;
///
///     fn inner(&self) -> &S {
///         &self.inner
///     }
///
///     fn around<'a, F>(
///         &'a self,
///         _call: Call<'a>,
///         operation: impl FnOnce() -> F + Send + 'a,
///     ) -> impl Future<Output = F::Output> + Send + 'a
///     where
///         F: Future + Send + 'a,
///         F::Output: Reply,
///     {
///         self.calls.fetch_add(1, Ordering::Relaxed);
///         operation()
///     }
/// }
///
/// # pollster::block_on(async {
/// let store = Counted { inner: MemoryStore::new(), calls: AtomicUsize::new(0) };
/// store.insert("user::1", b"{}").await?;
/// assert!(store.get("user::1").await?.is_some());
/// assert!(store.capabilities().atomic_writes, "MemoryStore's, passed on");
/// assert_eq!(store.calls.load(Ordering::Relaxed), 2);
/// # Ok::<(), docmodel::Error>(())
/// # }).unwrap();
/// ```
pub trait Layer: Send + Sync {
    /// The store this layer wraps.
    type Inner: Store + ?Sized;

    /// The store this layer wraps.
    fn inner(&self) -> &Self::Inner;

    /// Makes `call` on the inner store: `operation` makes it there, and returns its future. The default
    /// calls it and changes nothing. A layer may act before (a span entered, a gate waited at), after (a
    /// count kept, from [`Reply::succeeded`]), or instead: a call refused with [`Reply::refused`] never
    /// reaches the store.
    fn around<'a, F>(
        &'a self,
        call: Call<'a>,
        operation: impl FnOnce() -> F + Send + 'a,
    ) -> impl Future<Output = F::Output> + Send + 'a
    where
        F: Future + Send + 'a,
        F::Output: Reply,
    {
        let _ = call;
        operation()
    }

    /// The options each write passes on, given those it was called with. The default passes them as given;
    /// a repository's layer puts its own ([`Repo::expiry`](crate::Repo::expiry),
    /// [`Repo::durability`](crate::Repo::durability)) on every write.
    fn write_options<'a>(&'a self, given: &'a WriteOptions) -> &'a WriteOptions {
        given
    }

    /// The capabilities the layer reports, given its inner store's (`inner`): those, unless the layer takes
    /// some away (a test playing a store without atomic batches). One that adds any must carry them out
    /// itself.
    fn capabilities_from(&self, inner: Capabilities) -> Capabilities {
        inner
    }
}

/// A borrowed store, one shared with spawned tasks, or one boxed: the store itself.
impl<S: Store + ?Sized> Layer for &S {
    type Inner = S;

    fn inner(&self) -> &S {
        self
    }
}

impl<S: Store + ?Sized> Layer for std::sync::Arc<S> {
    type Inner = S;

    fn inner(&self) -> &S {
        self
    }
}

impl<S: Store + ?Sized> Layer for Box<S> {
    type Inner = S;

    fn inner(&self) -> &S {
        self
    }
}

/// Every operation through [`Layer::around`], to the inner store's own; `insert`, `replace` and `remove`
/// as their `_with` forms with [`WriteOptions::DEFAULT`], as the trait's contract has them.
// Futures as `async move` blocks rather than `async fn`: the future of an `async fn` here is not provably
// `Send` for every lifetime (`tokio::spawn` of a repository over a layer then fails to compile).
#[allow(clippy::manual_async_fn)]
impl<L: Layer> Store for L {
    fn get(&self, key: &str) -> impl Future<Output = Result<Option<Stored>, Error>> + Send {
        async move {
            let call = Call::Get { key };
            self.around(call, move || self.inner().get(key)).await
        }
    }

    fn get_many(
        &self,
        keys: &[&str],
    ) -> impl Future<Output = Result<Vec<Option<Stored>>, Error>> + Send {
        async move {
            let call = Call::GetMany { keys };
            self.around(call, move || self.inner().get_many(keys)).await
        }
    }

    fn get_revision(
        &self,
        key: &str,
        cas: &Cas,
    ) -> impl Future<Output = Result<Option<Stored>, Error>> + Send {
        async move {
            let call = Call::GetRevision { key, cas };
            self.around(call, move || self.inner().get_revision(key, cas))
                .await
        }
    }

    fn insert(&self, key: &str, value: &[u8]) -> impl Future<Output = Result<Cas, Error>> + Send {
        self.insert_with(key, value, &WriteOptions::DEFAULT)
    }

    fn insert_with(
        &self,
        key: &str,
        value: &[u8],
        options: &WriteOptions,
    ) -> impl Future<Output = Result<Cas, Error>> + Send {
        async move {
            let options = self.write_options(options);
            let call = Call::Insert {
                key,
                value,
                options,
            };
            self.around(call, move || self.inner().insert_with(key, value, options))
                .await
        }
    }

    fn insert_many(
        &self,
        values: &[(&str, &[u8])],
        options: &WriteOptions,
    ) -> impl Future<Output = Vec<Result<Cas, Error>>> + Send {
        async move {
            let options = self.write_options(options);
            let call = Call::InsertMany { values, options };
            self.around(call, move || self.inner().insert_many(values, options))
                .await
        }
    }

    fn replace(
        &self,
        key: &str,
        value: &[u8],
        cas: &Cas,
    ) -> impl Future<Output = Result<Cas, Error>> + Send {
        self.replace_with(key, value, cas, &WriteOptions::DEFAULT)
    }

    fn replace_with(
        &self,
        key: &str,
        value: &[u8],
        cas: &Cas,
        options: &WriteOptions,
    ) -> impl Future<Output = Result<Cas, Error>> + Send {
        async move {
            let options = self.write_options(options);
            let call = Call::Replace {
                key,
                value,
                cas,
                options,
            };
            self.around(call, move || {
                self.inner().replace_with(key, value, cas, options)
            })
            .await
        }
    }

    fn remove(
        &self,
        key: &str,
        cas: Option<&Cas>,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        self.remove_with(key, cas, &WriteOptions::DEFAULT)
    }

    fn remove_with(
        &self,
        key: &str,
        cas: Option<&Cas>,
        options: &WriteOptions,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        async move {
            let options = self.write_options(options);
            let call = Call::Remove { key, cas, options };
            self.around(call, move || self.inner().remove_with(key, cas, options))
                .await
        }
    }

    fn write_atomic(
        &self,
        writes: &[Write<'_>],
        options: &WriteOptions,
    ) -> impl Future<Output = Result<Vec<Option<Cas>>, Error>> + Send {
        async move {
            let options = self.write_options(options);
            let call = Call::WriteAtomic { writes, options };
            self.around(call, move || self.inner().write_atomic(writes, options))
                .await
        }
    }

    /// Passed on as it is, with the layer's write options: a transaction's reads and writes are the inner
    /// store's own, which no [`Layer::around`] sees (a layer that must see them takes
    /// [`Capabilities::transactions`] away).
    fn transact(
        &self,
        options: &WriteOptions,
        work: &mut dyn FnMut(&mut dyn Transaction) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.inner().transact(self.write_options(options), work)
    }

    fn counter(&self, key: &str, delta: u64) -> impl Future<Output = Result<u64, Error>> + Send {
        async move {
            let call = Call::Counter { key, delta };
            self.around(call, move || self.inner().counter(key, delta))
                .await
        }
    }

    fn capabilities(&self) -> Capabilities {
        self.capabilities_from(self.inner().capabilities())
    }

    fn system(&self) -> &'static str {
        self.inner().system()
    }

    fn scan(
        &self,
        prefix: &str,
        page: ScanPage<'_>,
    ) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        async move {
            let call = Call::Scan { prefix, page };
            self.around(call, move || self.inner().scan(prefix, page))
                .await
        }
    }

    fn scan_range(
        &self,
        start: &str,
        end: &str,
        page: ScanPage<'_>,
    ) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        async move {
            let call = Call::ScanRange { start, end, page };
            self.around(call, move || self.inner().scan_range(start, end, page))
                .await
        }
    }

    fn query(
        &self,
        query: &[u8],
    ) -> impl Future<Output = Result<Vec<(String, Stored)>, Error>> + Send {
        async move {
            let call = Call::Query { query };
            self.around(call, move || self.inner().query(query)).await
        }
    }

    fn create_index(&self, definition: &[u8]) -> impl Future<Output = Result<(), Error>> + Send {
        async move {
            let call = Call::CreateIndex { definition };
            self.around(call, move || self.inner().create_index(definition))
                .await
        }
    }

    fn ensure_validation(
        &self,
        name: &str,
        function: &str,
    ) -> impl Future<Output = Result<bool, Error>> + Send {
        async move {
            let call = Call::EnsureValidation { name, function };
            self.around(call, move || self.inner().ensure_validation(name, function))
                .await
        }
    }
}
