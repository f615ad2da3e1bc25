//! [`Layer`]: a store around another store, written once. Tracing, metrics, a test's hooks and the
//! repository's own write options are layers: each says what it does around a call, and the one
//! implementation of [`Store`] for every layer passes each operation and each capability on, so a wrapper
//! cannot forget one.

use std::future::Future;

use super::{Capabilities, Cas, Page, Store, Stored, Write, WriteOptions};
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
    /// Every operation, in the order of the [`Store`] trait.
    pub const ALL: [Operation; 14] = [
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

    /// Whether it names one key of its own ([`Call::key`]): a single read or write, or a listing's prefix
    /// or start. A batch, a query and an index do not.
    pub const fn is_keyed(self) -> bool {
        matches!(
            self,
            Operation::Get
                | Operation::GetRevision
                | Operation::Insert
                | Operation::Replace
                | Operation::Remove
                | Operation::Counter
                | Operation::Scan
                | Operation::ScanRange
        )
    }
}

/// One call of a store operation, as a [`Layer`] sees it pass: the operation and its arguments (the fields
/// an operation does not have are empty).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Call<'a> {
    /// Which operation it is.
    pub operation: Operation,
    /// The key it names: a batch's first key, a listing's prefix or start, a validation's design document;
    /// `""` for a query or an index.
    pub key: &'a str,
    /// The keys of a batch read.
    pub keys: &'a [&'a str],
    /// The bytes an insert or a replace writes.
    pub value: &'a [u8],
    /// The token a read, a replace or a removal names.
    pub cas: Option<&'a Cas>,
    /// The values of a bulk insert, each a key and its bytes.
    pub values: &'a [(&'a str, &'a [u8])],
    /// The writes of an atomic batch.
    pub writes: &'a [Write<'a>],
    /// The options of a write, as the layer passes them on ([`Layer::write_options`]).
    pub options: Option<&'a WriteOptions>,
    /// The page a listing asks for.
    pub page: Option<Page<'a>>,
    /// The end of a range listing.
    pub end: &'a str,
    /// The text of a query, an index definition or a validation function.
    pub text: &'a [u8],
}

impl<'a> Call<'a> {
    /// A call of `operation` about `key`, with no other argument.
    pub const fn new(operation: Operation, key: &'a str) -> Self {
        Call {
            operation,
            key,
            keys: &[],
            value: &[],
            cas: None,
            values: &[],
            writes: &[],
            options: None,
            page: None,
            end: "",
            text: &[],
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
        call.values
            .iter()
            .map(|(key, _)| Err(super::failed_with_batch(&error, key)))
            .collect()
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
            let call = Call::new(Operation::Get, key);
            self.around(call, move || self.inner().get(key)).await
        }
    }

    fn get_many(
        &self,
        keys: &[&str],
    ) -> impl Future<Output = Result<Vec<Option<Stored>>, Error>> + Send {
        async move {
            let call = Call {
                keys,
                ..Call::new(Operation::GetMany, keys.first().copied().unwrap_or(""))
            };
            self.around(call, move || self.inner().get_many(keys)).await
        }
    }

    fn get_revision(
        &self,
        key: &str,
        cas: &Cas,
    ) -> impl Future<Output = Result<Option<Stored>, Error>> + Send {
        async move {
            let call = Call {
                cas: Some(cas),
                ..Call::new(Operation::GetRevision, key)
            };
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
            let call = Call {
                value,
                options: Some(options),
                ..Call::new(Operation::Insert, key)
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
            let first = values.first().map_or("", |(key, _)| key);
            let call = Call {
                values,
                options: Some(options),
                ..Call::new(Operation::InsertMany, first)
            };
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
            let call = Call {
                value,
                cas: Some(cas),
                options: Some(options),
                ..Call::new(Operation::Replace, key)
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
            let call = Call {
                cas,
                options: Some(options),
                ..Call::new(Operation::Remove, key)
            };
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
            let call = Call {
                writes,
                options: Some(options),
                ..Call::new(
                    Operation::WriteAtomic,
                    writes.first().map_or("", Write::key),
                )
            };
            self.around(call, move || self.inner().write_atomic(writes, options))
                .await
        }
    }

    fn counter(&self, key: &str, delta: u64) -> impl Future<Output = Result<u64, Error>> + Send {
        async move {
            let call = Call::new(Operation::Counter, key);
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
        page: Page<'_>,
    ) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        async move {
            let call = Call {
                page: Some(page),
                ..Call::new(Operation::Scan, prefix)
            };
            self.around(call, move || self.inner().scan(prefix, page))
                .await
        }
    }

    fn scan_range(
        &self,
        start: &str,
        end: &str,
        page: Page<'_>,
    ) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        async move {
            let call = Call {
                page: Some(page),
                end,
                ..Call::new(Operation::ScanRange, start)
            };
            self.around(call, move || self.inner().scan_range(start, end, page))
                .await
        }
    }

    fn query(
        &self,
        query: &[u8],
    ) -> impl Future<Output = Result<Vec<(String, Stored)>, Error>> + Send {
        async move {
            let call = Call {
                text: query,
                ..Call::new(Operation::Query, "")
            };
            self.around(call, move || self.inner().query(query)).await
        }
    }

    fn create_index(&self, definition: &[u8]) -> impl Future<Output = Result<(), Error>> + Send {
        async move {
            let call = Call {
                text: definition,
                ..Call::new(Operation::CreateIndex, "")
            };
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
            let call = Call {
                text: function.as_bytes(),
                ..Call::new(Operation::EnsureValidation, name)
            };
            self.around(call, move || self.inner().ensure_validation(name, function))
                .await
        }
    }
}
