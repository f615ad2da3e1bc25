//! Read transactions: the [`Snapshot`] one opens, which leaves out values that expired, and the reads made
//! on it (one value, many in one snapshot, the keys under a prefix or in a range).

use std::ops::Bound;
use std::sync::atomic::Ordering;

use redb::ReadableDatabase;

use super::{EXPIRES, Redb, VALUES, backend};
use crate::store::{Cas, ScanPage, Stored};
use crate::{Error, Timestamp};

/// The tables of one read transaction.
struct Snapshot {
    values: redb::ReadOnlyTable<&'static str, (u64, &'static [u8])>,
    /// Open when a value may expire.
    expires: Option<redb::ReadOnlyTable<&'static str, i64>>,
    now: Timestamp,
}

impl Snapshot {
    /// Whether the value under `key` (if any) has not expired.
    fn live(&self, key: &str) -> Result<bool, Error> {
        let Some(expires) = &self.expires else {
            return Ok(true);
        };
        let deadline = expires.get(key).map_err(|err| backend(key, err))?;
        Ok(deadline.is_none_or(|deadline| deadline.value() > self.now.as_millis()))
    }

    fn get(&self, key: &str) -> Result<Option<Stored>, Error> {
        let found = self.values.get(key).map_err(|err| backend(key, err))?;
        let Some(found) = found else {
            return Ok(None);
        };
        if !self.live(key)? {
            return Ok(None);
        }
        let (cas, bytes) = found.value();
        Ok(Some(Stored::new(bytes, Cas::from_u64(cas))))
    }
}

impl Redb {
    /// Runs `read` on one read transaction, at the store's boundary.
    fn read<T>(
        &self,
        key: &str,
        read: impl FnOnce(&Snapshot) -> Result<T, Error>,
    ) -> Result<T, Error> {
        // Read outside the guard: a panic of the user's clock is no sign of a damaged file.
        let now = self.now();
        self.engine
            .guard(Some(key), || read(&self.snapshot(key, now)?))
    }

    /// One read transaction: its values, and their expiry where a value may expire.
    fn snapshot(&self, key: &str, now: Timestamp) -> Result<Snapshot, Error> {
        let txn = self
            .engine
            .db()
            .begin_read()
            .map_err(|err| backend(key, err))?;
        let expires = if self.expiring.load(Ordering::Acquire) {
            Some(txn.open_table(EXPIRES).map_err(|err| backend(key, err))?)
        } else {
            None
        };
        Ok(Snapshot {
            values: txn.open_table(VALUES).map_err(|err| backend(key, err))?,
            expires,
            now,
        })
    }

    pub(super) fn get_now(&self, key: &str) -> Result<Option<Stored>, Error> {
        self.read(key, |snapshot| snapshot.get(key))
    }

    pub(super) fn get_many_now(&self, keys: &[&str]) -> Result<Vec<Option<Stored>>, Error> {
        let Some(first) = keys.first() else {
            return Ok(Vec::new());
        };
        // One read transaction: the values are one consistent snapshot.
        self.read(first, |snapshot| {
            keys.iter().map(|key| snapshot.get(key)).collect()
        })
    }

    pub(super) fn scan_now(&self, prefix: &str, page: ScanPage<'_>) -> Result<Vec<String>, Error> {
        self.read(prefix, |snapshot| Self::scan_prefix(snapshot, prefix, page))
    }

    fn scan_prefix(
        snapshot: &Snapshot,
        prefix: &str,
        page: ScanPage<'_>,
    ) -> Result<Vec<String>, Error> {
        let from = match page.after {
            Some(after) if after >= prefix => Bound::Excluded(after),
            _ => Bound::Included(prefix),
        };
        let mut found = Vec::new();
        for entry in snapshot
            .values
            .range::<&str>((from, Bound::Unbounded))
            .map_err(|err| backend(prefix, err))?
        {
            if found.len() >= page.limit {
                break;
            }
            let (key, _) = entry.map_err(|err| backend(prefix, err))?;
            let key = key.value();
            if !key.starts_with(prefix) {
                break;
            }
            if snapshot.live(key)? {
                found.push(key.to_owned());
            }
        }
        Ok(found)
    }

    pub(super) fn scan_range_now(
        &self,
        start: &str,
        end: &str,
        page: ScanPage<'_>,
    ) -> Result<Vec<String>, Error> {
        let from = match page.after {
            Some(after) if after >= start => after,
            _ => start,
        };
        if from >= end {
            return Ok(Vec::new());
        }
        self.read(start, |snapshot| {
            Self::scan_between(snapshot, start, end, page)
        })
    }

    fn scan_between(
        snapshot: &Snapshot,
        start: &str,
        end: &str,
        page: ScanPage<'_>,
    ) -> Result<Vec<String>, Error> {
        let from = match page.after {
            Some(after) if after >= start => Bound::Excluded(after),
            _ => Bound::Included(start),
        };
        let mut found = Vec::new();
        for entry in snapshot
            .values
            .range::<&str>((from, Bound::Excluded(end)))
            .map_err(|err| backend(start, err))?
        {
            if found.len() >= page.limit {
                break;
            }
            let (key, _) = entry.map_err(|err| backend(start, err))?;
            if snapshot.live(key.value())? {
                found.push(key.value().to_owned());
            }
        }
        Ok(found)
    }
}
