//! How a write is made: [`WriteOptions`], with the value's [`Expiry`] and the [`Durability`] it waits for.

use std::time::Duration;

use crate::{Error, Timestamp};

/// How a store makes one write: when the value expires, and how durable it must be before the write
/// returns. [`Store::insert_with`](super::Store::insert_with), [`Store::replace_with`](super::Store::replace_with)
/// and [`Store::remove_with`](super::Store::remove_with) take it; a repository passes the ones set with
/// [`Repo::expiry`](crate::Repo::expiry) and [`Repo::durability`](crate::Repo::durability).
///
/// ```
/// use std::time::Duration;
/// use docmodel::store::WriteOptions;
/// use docmodel::{Durability, Expiry};
///
/// let options = WriteOptions::new()
///     .with_expiry(Expiry::After(Duration::from_secs(30 * 60)))
///     .with_durability(Durability::Majority);
/// assert_eq!(options.durability, Durability::Majority);
/// assert_eq!(WriteOptions::default().expiry, Expiry::Keep);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub struct WriteOptions {
    /// When the value written expires. Ignored by a removal.
    pub expiry: Expiry,
    /// How many servers must hold the write before it returns.
    pub durability: Durability,
}

impl WriteOptions {
    /// A plain write: the value's expiry kept (none for a new one), no durability asked beyond the store's own.
    pub const DEFAULT: WriteOptions = WriteOptions {
        expiry: Expiry::Keep,
        durability: Durability::None,
    };

    /// [`WriteOptions::DEFAULT`].
    pub const fn new() -> Self {
        WriteOptions::DEFAULT
    }

    /// These options, with the expiry given.
    pub const fn with_expiry(mut self, expiry: Expiry) -> Self {
        self.expiry = expiry;
        self
    }

    /// These options, with the durability given.
    pub const fn with_durability(mut self, durability: Durability) -> Self {
        self.durability = durability;
        self
    }
}

/// When a value expires: after it, a store holds nothing under its key (a read finds nothing, an insert
/// succeeds, a replace or removal is [`Error::NotFound`]). What sessions and caches need (the seeds: "when you
/// want a document to expire, if at all").
///
/// Couchbase counts expiry in whole seconds: a duration is rounded up to the next second there, and an
/// expiry past the year 2106 is refused (a permanent [`Error::Store`]). It keeps an expiry on a replace with
/// [`Expiry::Keep`] through `preserve_expiry`, which needs Couchbase Server 7.0 or later.
/// [`MemoryStore`](super::MemoryStore) and [`Redb`](super::Redb) count milliseconds, on a clock a test can
/// set. CouchDB has no expiry ([`Capabilities::expiry`](super::Capabilities::expiry) is off): a write with
/// [`Expiry::After`] is refused there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Expiry {
    /// A replace keeps the expiry the value has; an insert writes a value that never expires.
    #[default]
    Keep,
    /// The value never expires (a replace takes away the expiry it had).
    Never,
    /// The value expires this long after the write (a replace sets it again: a sliding expiry). The duration
    /// must be above zero.
    After(Duration),
}

impl Expiry {
    /// Refuses an expiry no store can keep: [`Expiry::After`] a zero duration.
    pub(crate) fn check(self, key: &str) -> Result<(), Error> {
        match self {
            Expiry::After(duration) if duration.is_zero() => Err(Error::store(
                key,
                "an expiry of zero (`Expiry::After` needs a duration above zero; \
                 `Expiry::Never` is a value that does not expire)",
            )),
            _ => Ok(()),
        }
    }

    /// When a value written at `now` expires, in milliseconds since the Unix epoch (`None`: never), given
    /// the expiry of the value it replaces (`None` for an insert or a value that does not expire).
    pub(crate) fn deadline(self, now: Timestamp, current: Option<i64>) -> Option<i64> {
        match self {
            Expiry::Keep => current,
            Expiry::Never => None,
            // A part of a millisecond counts as a whole one: a value never expires early.
            Expiry::After(duration) => {
                let millis = duration
                    .as_nanos()
                    .div_ceil(1_000_000)
                    .try_into()
                    .unwrap_or(i64::MAX);
                Some(now.as_millis().saturating_add(millis))
            }
        }
    }
}

/// How many servers must hold a write before the store acknowledges it: Couchbase's durability levels,
/// ordered from the weakest. A write that cannot be confirmed at the level asked for is
/// [`Ambiguous`](crate::StoreErrorKind::Ambiguous): it may have happened.
///
/// On Couchbase each level is passed to the SDK. A CouchDB cluster writes to a quorum: any level above
/// `None` turns its "accepted, but not by a quorum" answer (`202`) into an ambiguous error. A
/// [`Redb`](super::Redb) file is one server, and a write is on its disk when it returns, which meets every
/// level (on a handle made [`eventual`](super::Redb::eventual), only a write that asks for a level above
/// `None` waits for the disk). A [`MemoryStore`](super::MemoryStore) and a [`Redb::in_memory`](super::Redb::in_memory) take every
/// level and keep nothing past the process: they are for tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[non_exhaustive]
pub enum Durability {
    /// Acknowledged once the server that owns the key holds it in memory (the default of every store).
    #[default]
    None,
    /// Held in memory by a majority of the replicas.
    Majority,
    /// In memory on a majority, and on disk on the active server.
    MajorityAndPersistActive,
    /// On disk on a majority of the replicas.
    PersistToMajority,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines_count_whole_milliseconds_and_never_come_early() {
        let now = Timestamp::from_millis(1_000);
        assert_eq!(Expiry::Keep.deadline(now, Some(5_000)), Some(5_000));
        assert_eq!(Expiry::Keep.deadline(now, None), None);
        assert_eq!(Expiry::Never.deadline(now, Some(5_000)), None);
        let after = |duration| Expiry::After(duration).deadline(now, Some(5_000));
        assert_eq!(after(Duration::from_secs(2)), Some(3_000));
        assert_eq!(after(Duration::from_micros(1)), Some(1_001));
        assert_eq!(after(Duration::MAX), Some(i64::MAX));
    }

    #[test]
    fn a_zero_expiry_is_refused_naming_the_key() {
        let err = Expiry::After(Duration::ZERO)
            .check("session::1")
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "document `session::1`: the store failed: an expiry of zero (`Expiry::After` needs a duration \
             above zero; `Expiry::Never` is a value that does not expire)"
        );
        assert!(Expiry::After(Duration::from_millis(1)).check("k").is_ok());
        assert!(Expiry::Never.check("k").is_ok());
    }
}

/// One write of a batch that [`Store::write_atomic`](super::Store::write_atomic) makes all at once: each
/// is checked as its single form ([`Store::insert`](super::Store::insert),
/// [`Store::replace`](super::Store::replace), [`Store::remove`](super::Store::remove)) checks it, against
/// the store as the writes before it in the batch leave it.
///
/// ```
/// use docmodel::store::{Cas, Write};
///
/// let cas = Cas::from_u64(7);
/// let writes = [
///     Write::Insert { key: "user::1::v::1", value: b"{}" },
///     Write::Replace { key: "user::1", value: b"{}", cas: &cas },
/// ];
/// assert_eq!(writes[1].key(), "user::1");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Write<'a> {
    /// Stores `value` under `key`, which must be free.
    Insert {
        /// The key written.
        key: &'a str,
        /// The bytes stored.
        value: &'a [u8],
    },
    /// Replaces the value under `key` if its token is still `cas`.
    Replace {
        /// The key written.
        key: &'a str,
        /// The bytes stored.
        value: &'a [u8],
        /// The token the value must still carry.
        cas: &'a super::Cas,
    },
    /// Removes the value under `key`; with `cas`, only if its token is still that one.
    Remove {
        /// The key removed.
        key: &'a str,
        /// The token the value must still carry, if any.
        cas: Option<&'a super::Cas>,
    },
}

impl Write<'_> {
    /// The key this write changes.
    pub fn key(&self) -> &str {
        match self {
            Write::Insert { key, .. } | Write::Replace { key, .. } | Write::Remove { key, .. } => {
                key
            }
        }
    }
}

/// What the work of a [`Store::transact`](super::Store::transact) reads and writes through: the store as the
/// transaction sees it, its own writes included. Nothing another writer does comes between its first read
/// and its commit.
pub trait Transaction {
    /// The value under `key`, as the writes of this transaction so far leave it.
    fn get(&mut self, key: &str) -> Result<Option<super::Stored>, Error>;

    /// Makes `write` (expiring as `options` say; their durability is the transaction's), checked as its
    /// single form checks it against the store as this transaction leaves it: a write that fails its check
    /// ([`Error::AlreadyExists`], [`Error::Conflict`], [`Error::NotFound`]) changes nothing, and the work
    /// may go on. Returns the new token of an insert or a replace, `None` for a removal. Nothing is written
    /// until the work returns `Ok`.
    fn write(
        &mut self,
        write: &Write<'_>,
        options: &WriteOptions,
    ) -> Result<Option<super::Cas>, Error>;
}
