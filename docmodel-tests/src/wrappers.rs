//! The wrapper stores the suites use most, each a [`Hooked`] store with hooks of its own: one that records
//! every operation ([`CountingStore`]), one that fails a chosen one ([`FailingStore`]) and one that holds a
//! chosen one until the test lets it go ([`PauseStore`]).
//!
//! Each says it has no atomic batches ([`Capabilities::atomic_writes`]) unless made with `atomic` (the
//! pausing one never), so that a repository over it takes the steps a network store takes, and a test sees,
//! fails or holds each of them.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use docmodel::Error;
use docmodel::store::{Capabilities, Store};

use crate::{Call, Forgetting, Hooked, Hooks, Operation};

/// Whether a wrapper made with `atomic` reports the atomic batches and the transactions of `inner` (without,
/// a repository makes every operation one the wrapper sees).
fn atomic_writes<S: Store>(inner: &S, atomic: bool) -> Capabilities {
    let capabilities = inner.capabilities();
    capabilities
        .with_atomic_writes(atomic && capabilities.atomic_writes)
        .with_transactions(atomic && capabilities.transactions)
}

// ---- Counting ----------------------------------------------------------------------------------------

/// One store operation, as a [`CountingStore`] records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    Get(String),
    GetMany(Vec<String>),
    GetRevision(String),
    Insert(String),
    /// A bulk insert, its keys.
    InsertMany(Vec<String>),
    Replace(String),
    Remove(String),
    Counter(String),
    /// An atomic batch, the keys it writes.
    WriteAtomic(Vec<String>),
    Scan(String),
    ScanRange(String, String),
    /// A query, its text.
    Query(String),
    /// An index created, its definition.
    CreateIndex(String),
    /// A validation function installed, its design document.
    EnsureValidation(String),
    /// An operation docmodel added since, its name.
    Other(&'static str),
}

impl Op {
    fn of(call: Call<'_>) -> Op {
        let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
        match call {
            Call::Get { key, .. } => Op::Get(key.to_owned()),
            Call::GetMany { keys, .. } => {
                Op::GetMany(keys.iter().map(|&key| key.to_owned()).collect())
            }
            Call::GetRevision { key, .. } => Op::GetRevision(key.to_owned()),
            Call::Insert { key, .. } => Op::Insert(key.to_owned()),
            Call::InsertMany { values, .. } => {
                Op::InsertMany(values.iter().map(|(key, _)| (*key).to_owned()).collect())
            }
            Call::Replace { key, .. } => Op::Replace(key.to_owned()),
            Call::Remove { key, .. } => Op::Remove(key.to_owned()),
            Call::WriteAtomic { writes, .. } => {
                Op::WriteAtomic(writes.iter().map(|write| write.key().to_owned()).collect())
            }
            Call::Counter { key, .. } => Op::Counter(key.to_owned()),
            Call::Scan { prefix, .. } => Op::Scan(prefix.to_owned()),
            Call::ScanRange { start, end, .. } => Op::ScanRange(start.to_owned(), end.to_owned()),
            Call::Query { query, .. } => Op::Query(text(query)),
            Call::CreateIndex { definition, .. } => Op::CreateIndex(text(definition)),
            Call::EnsureValidation { name, .. } => Op::EnsureValidation(name.to_owned()),
            other => Op::Other(other.operation().name()),
        }
    }
}

/// A store that records every operation before passing it on.
pub type CountingStore<S> = Hooked<S, Counting>;

/// The hooks of a [`CountingStore`].
#[derive(Debug, Default)]
pub struct Counting {
    ops: Mutex<Vec<Op>>,
    atomic: bool,
}

impl<S> Hooked<S, Counting> {
    pub fn new(inner: S) -> Self {
        Hooked::with(inner, Counting::default())
    }

    /// A counting store that passes on the atomic batches of `inner`, if it makes them.
    pub fn atomic(inner: S) -> Self {
        let counting = Counting {
            atomic: true,
            ..Counting::default()
        };
        Hooked::with(inner, counting)
    }

    /// The operations so far, and forget them.
    pub fn take(&self) -> Vec<Op> {
        std::mem::take(&mut *self.hooks.ops.lock().unwrap())
    }
}

impl<S: Sync> Hooks<S> for Counting {
    fn capabilities(&self, inner: &S) -> Capabilities
    where
        S: Store,
    {
        atomic_writes(inner, self.atomic)
    }

    async fn before(&self, _: &S, call: Call<'_>) -> Result<(), Error> {
        self.ops.lock().unwrap().push(Op::of(call));
        Ok(())
    }
}

// ---- Failing -----------------------------------------------------------------------------------------

/// A store whose `k`-th operation (counting from 1) fails without being carried out, as if the process
/// died or the connection dropped just before it; every other operation passes through. A bulk insert is
/// one operation per value, each of which can fail; an atomic batch (made with
/// `FailingStore::atomic`) is one, which fails whole or is carried out whole.
pub type FailingStore<S> = Forgetting<Hooked<S, Failing>>;

/// The hooks of a [`FailingStore`].
#[derive(Debug, Default)]
pub struct Failing {
    fail_at: AtomicUsize,
    count: AtomicUsize,
    atomic: bool,
}

/// A bulk insert is made through the trait's default, one insert per value.
fn unbatched(operation: Operation) -> bool {
    operation != Operation::InsertMany
}

impl<S> Forgetting<Hooked<S, Failing>> {
    pub fn new(inner: S) -> Self {
        Forgetting::passing(Hooked::with(inner, Failing::default()), unbatched)
    }

    /// A failing store that passes on the atomic batches of `inner` (if it makes them), each one
    /// operation: it fails whole, or is carried out whole.
    pub fn atomic(inner: S) -> Self {
        let failing = Failing {
            atomic: true,
            ..Failing::default()
        };
        Forgetting::passing(Hooked::with(inner, failing), unbatched)
    }
}

impl<S> Hooked<S, Failing> {
    /// Makes the `k`-th operation from now fail (0: none).
    pub fn fail_at(&self, k: usize) {
        self.hooks.count.store(0, Ordering::SeqCst);
        self.hooks.fail_at.store(k, Ordering::SeqCst);
    }

    /// How many operations ran since the last `fail_at`.
    pub fn count(&self) -> usize {
        self.hooks.count.load(Ordering::SeqCst)
    }
}

impl<S: Sync> Hooks<S> for Failing {
    fn capabilities(&self, inner: &S) -> Capabilities
    where
        S: Store,
    {
        atomic_writes(inner, self.atomic)
    }

    async fn before(&self, _: &S, call: Call<'_>) -> Result<(), Error> {
        let n = self.count.fetch_add(1, Ordering::SeqCst) + 1;
        if n == self.fail_at.load(Ordering::SeqCst) {
            return Err(Error::store(
                first_key(&call),
                format!("injected failure of operation {n}"),
            ));
        }
        Ok(())
    }
}

/// The key a call names, or a batch's first: what a test's failure and pause name the call by.
pub fn first_key<'a>(call: &Call<'a>) -> &'a str {
    match *call {
        Call::GetMany { keys, .. } => keys.first().copied().unwrap_or(""),
        Call::InsertMany { values, .. } => values.first().map_or("", |(key, _)| key),
        Call::WriteAtomic { writes, .. } => writes.first().map_or("", |write| write.key()),
        Call::EnsureValidation { name, .. } => name,
        _ => call.key().unwrap_or(""),
    }
}

// ---- Pausing -----------------------------------------------------------------------------------------

/// A store that holds one chosen operation until the test lets it go, to play two writers' steps in a
/// chosen order. A bulk insert is one insert per value, each of which can be held.
pub type PauseStore<S> = Forgetting<Hooked<S, Pausing>>;

/// The hooks of a [`PauseStore`]: the operations to hold, each once.
#[derive(Debug, Default)]
pub struct Pausing(Mutex<Vec<(Operation, String, Arc<Pause>)>>);

/// One held operation: `reached` fires when it is held, `release` lets it run.
#[derive(Debug, Default)]
pub struct Pause {
    pub reached: tokio::sync::Notify,
    pub release: tokio::sync::Notify,
}

impl<S> Forgetting<Hooked<S, Pausing>> {
    /// A bulk insert is made one insert per value, and there are no atomic batches.
    pub fn new(inner: S) -> Self {
        Forgetting::passing(Hooked::with(inner, Pausing::default()), |operation| {
            !matches!(operation, Operation::InsertMany | Operation::WriteAtomic)
        })
    }
}

impl<S> Hooked<S, Pausing> {
    /// Holds the next `operation` on `key` (a batch read's first key), once.
    pub fn pause(&self, operation: Operation, key: &str) -> Arc<Pause> {
        let pause = Arc::new(Pause::default());
        self.hooks
            .0
            .lock()
            .unwrap()
            .push((operation, key.to_owned(), Arc::clone(&pause)));
        pause
    }
}

impl Pausing {
    fn take(&self, call: Call<'_>) -> Option<Arc<Pause>> {
        let mut pauses = self.0.lock().unwrap();
        let at = pauses.iter().position(|(operation, key, _)| {
            *operation == call.operation() && key == first_key(&call)
        })?;
        Some(pauses.remove(at).2)
    }
}

impl<S: Sync> Hooks<S> for Pausing {
    /// No atomic batches or transactions: a repository over it takes one step per operation, each of which
    /// can be held.
    fn capabilities(&self, inner: &S) -> Capabilities
    where
        S: Store,
    {
        inner
            .capabilities()
            .with_atomic_writes(false)
            .with_transactions(false)
    }

    async fn before(&self, _: &S, call: Call<'_>) -> Result<(), Error> {
        if let Some(pause) = self.take(call) {
            pause.reached.notify_one();
            pause.release.notified().await;
        }
        Ok(())
    }
}
