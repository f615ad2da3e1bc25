//! Where documents live: the async [`Store`] trait and its backends.
//!
//! A store keeps bytes under string keys with an opaque compare-and-swap token ([`Cas`]) per value. The
//! repository ([`Repo`](crate::Repo)) builds everything else (envelope, revisions, lookups) from these six
//! operations, so a backend is small and every backend behaves the same.

mod memory;
#[cfg(feature = "redb")]
mod redb;

use std::fmt;
use std::future::Future;
use std::sync::Arc;

pub use self::memory::MemoryStore;
#[cfg(feature = "redb")]
pub use self::redb::Redb;
use crate::Error;

/// A compare-and-swap token: what a store returned with a value, handed back to replace or remove exactly
/// that value. Opaque to the runtime: Couchbase's 64-bit CAS and CouchDB's `_rev` string both fit.
///
/// ```
/// use docmodel::store::Cas;
///
/// assert_eq!(Cas::from_u64(7).as_u64(), Some(7));
/// assert_eq!(Cas::from_revision("2-967a00dff5e02add41819138abb3284d").as_u64(), None);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Cas(CasValue);

#[derive(Clone, PartialEq, Eq, Hash)]
enum CasValue {
    Number(u64),
    Revision(Arc<str>),
}

impl Cas {
    /// A numeric token, as Couchbase and the embedded stores use.
    pub fn from_u64(value: u64) -> Self {
        Cas(CasValue::Number(value))
    }

    /// A revision string, as CouchDB's `_rev`.
    pub fn from_revision(revision: impl Into<Arc<str>>) -> Self {
        Cas(CasValue::Revision(revision.into()))
    }

    /// The numeric token, if it is one.
    pub fn as_u64(&self) -> Option<u64> {
        match &self.0 {
            CasValue::Number(value) => Some(*value),
            CasValue::Revision(_) => None,
        }
    }

    /// The revision string, if it is one.
    pub fn as_revision(&self) -> Option<&str> {
        match &self.0 {
            CasValue::Number(_) => None,
            CasValue::Revision(revision) => Some(revision),
        }
    }
}

impl fmt::Debug for Cas {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            CasValue::Number(value) => write!(f, "Cas({value})"),
            CasValue::Revision(revision) => write!(f, "Cas({revision:?})"),
        }
    }
}

/// A value as a store holds it: the bytes and their compare-and-swap token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// The stored bytes.
    pub bytes: Arc<[u8]>,
    /// The token to replace or remove exactly these bytes.
    pub cas: Cas,
}

/// A key-value store of documents, with compare-and-swap.
///
/// Methods are `async` and their futures are `Send`, so any executor can drive them. The built-in stores do
/// their work when a method is called (an embedded store has nothing to wait for); a network store does it
/// when the future is polled. Errors are
/// [`Error::NotFound`], [`Error::AlreadyExists`], [`Error::Conflict`] (a CAS mismatch) or [`Error::Store`]
/// (the backend failed); each names the key.
pub trait Store: Send + Sync {
    /// The value under `key`, if any.
    fn get(&self, key: &str) -> impl Future<Output = Result<Option<Stored>, Error>> + Send;

    /// Stores `value` under `key`, which must be free: [`Error::AlreadyExists`] otherwise.
    fn insert(&self, key: &str, value: &[u8]) -> impl Future<Output = Result<Cas, Error>> + Send;

    /// Replaces the value under `key` if its token is still `cas`: [`Error::Conflict`] if it changed,
    /// [`Error::NotFound`] if it is gone.
    fn replace(
        &self,
        key: &str,
        value: &[u8],
        cas: &Cas,
    ) -> impl Future<Output = Result<Cas, Error>> + Send;

    /// Removes the value under `key`; with `cas`, only if its token is still that one.
    fn remove(
        &self,
        key: &str,
        cas: Option<&Cas>,
    ) -> impl Future<Output = Result<(), Error>> + Send;

    /// Adds `delta` to the counter under `key` (created at 0) and returns its new value, atomically.
    fn counter(&self, key: &str, delta: u64) -> impl Future<Output = Result<u64, Error>> + Send;

    /// Every value whose key starts with `prefix`, in key order.
    fn scan(
        &self,
        prefix: &str,
    ) -> impl Future<Output = Result<Vec<(String, Stored)>, Error>> + Send;
}

macro_rules! forward_store {
    ($($wrapper:ty),*) => {$(
        impl<S: Store + ?Sized> Store for $wrapper {
            fn get(&self, key: &str) -> impl Future<Output = Result<Option<Stored>, Error>> + Send {
                (**self).get(key)
            }

            fn insert(&self, key: &str, value: &[u8]) -> impl Future<Output = Result<Cas, Error>> + Send {
                (**self).insert(key, value)
            }

            fn replace(&self, key: &str, value: &[u8], cas: &Cas) -> impl Future<Output = Result<Cas, Error>> + Send {
                (**self).replace(key, value, cas)
            }

            fn remove(&self, key: &str, cas: Option<&Cas>) -> impl Future<Output = Result<(), Error>> + Send {
                (**self).remove(key, cas)
            }

            fn counter(&self, key: &str, delta: u64) -> impl Future<Output = Result<u64, Error>> + Send {
                (**self).counter(key, delta)
            }

            fn scan(&self, prefix: &str) -> impl Future<Output = Result<Vec<(String, Stored)>, Error>> + Send {
                (**self).scan(prefix)
            }
        }
    )*};
}

// A repository over a borrowed store, or one shared with spawned tasks.
forward_store!(&S, Arc<S>);

/// A counter's value as stored: its decimal digits, as Couchbase keeps counters.
pub(crate) fn parse_counter(key: &str, bytes: &[u8]) -> Result<u64, Error> {
    std::str::from_utf8(bytes)
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .ok_or_else(|| {
            Error::store(
                key,
                format!(
                    "the value under `{key}` is not a counter: {:?}",
                    String::from_utf8_lossy(bytes)
                ),
            )
        })
}

pub(crate) fn add_counter(key: &str, current: u64, delta: u64) -> Result<u64, Error> {
    current
        .checked_add(delta)
        .ok_or_else(|| Error::store(key, format!("the counter `{key}` would overflow")))
}

/// The compare-and-swap rule every backend applies to `replace` and `remove`: the value must exist, and with
/// a token, still carry it.
pub(crate) fn check_cas(
    key: &str,
    current: Option<&Cas>,
    expected: Option<&Cas>,
) -> Result<(), Error> {
    match (current, expected) {
        (None, _) => Err(Error::NotFound {
            key: key.to_owned(),
        }),
        (Some(current), Some(expected)) if current != expected => Err(Error::Conflict {
            key: key.to_owned(),
        }),
        (Some(_), _) => Ok(()),
    }
}
