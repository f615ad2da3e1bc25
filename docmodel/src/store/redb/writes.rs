//! Write transactions: the [`Tables`] one opens, [`Redb::write`], which runs one at the store's boundary and
//! hands out the next CAS token, and the writes made with it (one value, an atomic batch, many inserts).

use std::sync::atomic::Ordering;

use redb::ReadableTable;

use super::{EXPIRES, LAST_CAS, META, Redb, VALUES, backend, stored_cas};
use crate::store::{self, Cas, Expect, Stored, Transaction, Write, WriteOptions};
use crate::{Durability, Expiry};
use crate::{Error, Timestamp};

/// The tables of one write transaction, as [`Redb::write`] hands them out.
pub(super) struct Tables<'t> {
    pub(super) values: redb::Table<'t, &'static str, (u64, &'static [u8])>,
    /// Open when a value may expire, or this write sets an expiry.
    expires: Option<redb::Table<'t, &'static str, i64>>,
    now: Timestamp,
}

impl Tables<'_> {
    /// The token of the value under `key` and when it expires; a value that expired is taken out, and
    /// is `None`.
    pub(super) fn current(&mut self, key: &str) -> Result<Option<(u64, Option<i64>)>, Error> {
        let Some(cas) = self
            .values
            .get(key)
            .map_err(|err| backend(key, err))?
            .map(|found| found.value().0)
        else {
            return Ok(None);
        };
        let Some(expires) = &mut self.expires else {
            return Ok(Some((cas, None)));
        };
        let deadline = expires
            .get(key)
            .map_err(|err| backend(key, err))?
            .map(|found| found.value());
        match deadline {
            Some(deadline) if deadline <= self.now.as_millis() => {
                self.remove(key)?;
                Ok(None)
            }
            _ => Ok(Some((cas, deadline))),
        }
    }

    /// Writes `value` under `key` with token `cas`, expiring at `deadline`.
    pub(super) fn put(
        &mut self,
        key: &str,
        cas: u64,
        value: &[u8],
        deadline: Option<i64>,
    ) -> Result<(), Error> {
        self.values
            .insert(key, (cas, value))
            .map_err(|err| backend(key, err))?;
        if let Some(expires) = &mut self.expires {
            match deadline {
                Some(deadline) => expires.insert(key, deadline).map(drop),
                None => expires.remove(key).map(drop),
            }
            .map_err(|err| backend(key, err))?;
        }
        Ok(())
    }

    /// Makes `write` in these tables, checked against what they hold (its token, or its absence), expiring
    /// as `options` say: the new token, or `None` for a removal. What an atomic batch and a transaction
    /// both do with each of their writes.
    fn apply(
        &mut self,
        write: &Write<'_>,
        options: &WriteOptions,
        next_cas: &mut dyn FnMut() -> Result<Cas, Error>,
    ) -> Result<Option<Cas>, Error> {
        let key = write.key();
        let current = self.current(key)?;
        let current_cas = current.map(|(cas, _)| Cas::from_u64(cas));
        let (value, expect) = match *write {
            Write::Insert { value, .. } => (value, Expect::Absent),
            Write::Replace { value, cas, .. } => (value, Expect::Cas(cas)),
            Write::Remove { cas, .. } => {
                store::check_cas(key, current_cas.as_ref(), cas)?;
                self.remove(key)?;
                return Ok(None);
            }
        };
        options.expiry.check(key)?;
        expect.check(key, current_cas.as_ref())?;
        let deadline = options
            .expiry
            .deadline(self.now, current.and_then(|(_, deadline)| deadline));
        let cas = next_cas()?;
        self.put(key, stored_cas(&cas).unwrap_or_default(), value, deadline)?;
        Ok(Some(cas))
    }

    pub(super) fn remove(&mut self, key: &str) -> Result<(), Error> {
        self.values.remove(key).map_err(|err| backend(key, err))?;
        if let Some(expires) = &mut self.expires {
            expires.remove(key).map_err(|err| backend(key, err))?;
        }
        Ok(())
    }
}

/// A [`Store::transact`](crate::store::Store::transact) on a [`Redb`]: the tables of its one write
/// transaction, and the next token.
struct RedbTransaction<'a, 't> {
    tables: &'a mut Tables<'t>,
    next_cas: &'a mut dyn FnMut() -> Result<Cas, Error>,
}

impl Transaction for RedbTransaction<'_, '_> {
    fn get(&mut self, key: &str) -> Result<Option<Stored>, Error> {
        if self.tables.current(key)?.is_none() {
            return Ok(None);
        }
        let found = self
            .tables
            .values
            .get(key)
            .map_err(|err| backend(key, err))?;
        Ok(found.map(|found| {
            let (cas, bytes) = found.value();
            Stored::new(bytes, Cas::from_u64(cas))
        }))
    }

    fn write(&mut self, write: &Write<'_>, options: &WriteOptions) -> Result<Option<Cas>, Error> {
        if !matches!(write, Write::Remove { .. })
            && matches!(options.expiry, Expiry::After(_))
            && self.tables.expires.is_none()
        {
            options.expiry.check(write.key())?;
            return Err(Error::store_with(
                crate::StoreErrorKind::Unsupported,
                write.key(),
                "a write with an expiry in a transaction whose options set none",
            ));
        }
        self.tables.apply(write, options, self.next_cas)
    }
}

impl Redb {
    /// Runs `work` in one write transaction ([`Store::transact`](crate::store::Store::transact)), committed
    /// when it returns `Ok`. A panic of `work` (the caller's code) aborts the transaction and goes on
    /// unwinding outside the store's boundary: it is no sign of a damaged file.
    pub(super) fn transact_now(
        &self,
        options: &WriteOptions,
        work: &mut dyn FnMut(&mut dyn Transaction) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let mut panicked = None;
        // Writes may set an expiry where the transaction's options have one.
        let sets_expiry = matches!(options.expiry, Expiry::After(_));
        let result = self.write("", sets_expiry, options.durability, |tables, next_cas| {
            let mut transaction = RedbTransaction { tables, next_cas };
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&mut transaction)))
            {
                Ok(result) => result,
                Err(panic) => {
                    panicked = Some(panic);
                    Err(Error::store("", "the transaction's work panicked"))
                }
            }
        });
        if let Some(panic) = panicked {
            std::panic::resume_unwind(panic);
        }
        result
    }

    /// Stores `value` under `key` with a new token, in one transaction, if what is there is what `expect`
    /// says, expiring as `options` say.
    pub(super) fn put(
        &self,
        key: &str,
        value: &[u8],
        expect: Expect<'_>,
        options: &WriteOptions,
    ) -> Result<Cas, Error> {
        options.expiry.check(key)?;
        let sets_expiry = matches!(options.expiry, Expiry::After(_));
        self.write(key, sets_expiry, options.durability, |tables, next_cas| {
            let current = tables.current(key)?;
            let current_cas = current.map(|(cas, _)| Cas::from_u64(cas));
            expect.check(key, current_cas.as_ref())?;
            let deadline = options
                .expiry
                .deadline(tables.now, current.and_then(|(_, deadline)| deadline));
            let cas = next_cas()?;
            tables.put(key, stored_cas(&cas).unwrap_or_default(), value, deadline)?;
            Ok(cas)
        })
    }

    /// Makes `writes` in one transaction: an error in any of them aborts it, and nothing is written.
    pub(super) fn write_all(
        &self,
        writes: &[Write<'_>],
        options: &WriteOptions,
    ) -> Result<Vec<Option<Cas>>, Error> {
        let Some(first) = writes.first() else {
            return Ok(Vec::new());
        };
        let sets_expiry = matches!(options.expiry, Expiry::After(_));
        self.write(
            first.key(),
            sets_expiry,
            options.durability,
            |tables, next_cas| {
                writes
                    .iter()
                    .map(|write| tables.apply(write, options, next_cas))
                    .collect()
            },
        )
    }

    /// Makes each insert of `values` in one transaction; one that fails its check fails alone. A failure of
    /// the transaction itself is every insert's.
    pub(super) fn insert_all(
        &self,
        values: &[(&str, &[u8])],
        options: &WriteOptions,
    ) -> Vec<Result<Cas, Error>> {
        let Some((first, _)) = values.first() else {
            return Vec::new();
        };
        let sets_expiry = matches!(options.expiry, Expiry::After(_));
        let written = self.write(
            first,
            sets_expiry,
            options.durability,
            |tables, next_cas| {
                let mut outcomes = Vec::with_capacity(values.len());
                for (key, value) in values {
                    if let Err(refused) = options.expiry.check(key) {
                        outcomes.push(Err(refused));
                        continue;
                    }
                    if tables.current(key)?.is_some() {
                        outcomes.push(Err(Error::AlreadyExists {
                            key: (*key).to_owned(),
                        }));
                        continue;
                    }
                    let cas = next_cas()?;
                    let deadline = options.expiry.deadline(tables.now, None);
                    tables.put(key, stored_cas(&cas).unwrap_or_default(), value, deadline)?;
                    outcomes.push(Ok(cas));
                }
                Ok(outcomes)
            },
        );
        written.unwrap_or_else(|failure| {
            values
                .iter()
                .map(|(key, _)| Err(store::failed_with_batch(&failure, key)))
                .collect()
        })
    }

    /// Runs `write` in one write transaction, committed only when it returns `Ok`. `sets_expiry`: the write
    /// may give a value an expiry, so the expiry table is opened even if no value had one yet. The commit
    /// waits for the disk unless this handle is [eventual](Redb::eventual) and `durability` asks for
    /// nothing more.
    pub(super) fn write<T>(
        &self,
        key: &str,
        sets_expiry: bool,
        durability: Durability,
        write: impl FnOnce(&mut Tables<'_>, &mut dyn FnMut() -> Result<Cas, Error>) -> Result<T, Error>,
    ) -> Result<T, Error> {
        // Read outside the guard: a panic of the user's clock is no sign of a damaged file.
        let now = self.now();
        self.engine.guard(Some(key), || {
            self.write_at(key, sets_expiry, durability, now, write)
        })
    }

    fn write_at<T>(
        &self,
        key: &str,
        sets_expiry: bool,
        durability: Durability,
        now: Timestamp,
        write: impl FnOnce(&mut Tables<'_>, &mut dyn FnMut() -> Result<Cas, Error>) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let mut txn = self
            .engine
            .db()
            .begin_write()
            .map_err(|err| backend(key, err))?;
        if self.eventual && durability == Durability::None {
            txn.set_durability(redb::Durability::None)
                .map_err(|err| backend(key, err))?;
        }
        let result = {
            if sets_expiry {
                // Set before the commit: a reader that sees the value sees the flag, and checks its expiry.
                self.expiring.store(true, Ordering::Release);
            }
            let expires = if self.expiring.load(Ordering::Acquire) {
                Some(txn.open_table(EXPIRES).map_err(|err| backend(key, err))?)
            } else {
                None
            };
            let mut tables = Tables {
                values: txn.open_table(VALUES).map_err(|err| backend(key, err))?,
                expires,
                now,
            };
            let mut meta = txn.open_table(META).map_err(|err| backend(key, err))?;
            let mut next_cas = || {
                let last = meta
                    .get(LAST_CAS)
                    .map_err(|err| backend(key, err))?
                    .map_or(0, |last| last.value());
                let next = last.checked_add(1).ok_or_else(|| {
                    Error::store(
                        key,
                        "the store has handed out every CAS token a u64 can count",
                    )
                })?;
                meta.insert(LAST_CAS, next)
                    .map_err(|err| backend(key, err))?;
                Ok(Cas::from_u64(next))
            };
            write(&mut tables, &mut next_cas)?
        };
        txn.commit().map_err(|err| backend(key, err))?;
        Ok(result)
    }
}
