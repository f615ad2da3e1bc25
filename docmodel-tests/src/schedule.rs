//! A deterministic scheduler that runs two writers' store operations in every order.
//!
//! Each writer reaches the store through its own [`GatedStore`], which holds every operation at a [`Gate`]
//! until the scheduler lets it through. [`every_order`] runs a scenario once for each sequence of choices
//! at the points where both writers wait (a depth-first walk of the tree of orders), so every interleaving
//! of the two writers' store operations is run exactly once. The futures are polled by hand; a writer that
//! is pending without waiting at the gate (a retry's pause) is polled again until it reaches the store.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use docmodel::Error;
use docmodel::store::{Capabilities, Store};

use crate::{Call, Forgetting, Hooked, Hooks, Operation};

/// Where the two writers' operations wait for their turn.
#[derive(Debug, Default)]
pub struct Gate {
    state: Mutex<[Turn; 2]>,
}

#[derive(Debug, Default, Clone, Copy)]
struct Turn {
    waiting: bool,
    granted: bool,
}

impl Gate {
    fn waiting(&self, writer: usize) -> bool {
        self.state.lock().unwrap()[writer].waiting
    }

    fn grant(&self, writer: usize) {
        self.state.lock().unwrap()[writer].granted = true;
    }

    fn enter(&self, writer: usize) -> Enter<'_> {
        Enter {
            gate: self,
            writer,
            registered: false,
        }
    }
}

struct Enter<'g> {
    gate: &'g Gate,
    writer: usize,
    registered: bool,
}

impl Future for Enter<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        let mut state = self.gate.state.lock().unwrap();
        let turn = &mut state[self.writer];
        if !self.registered {
            turn.waiting = true;
            drop(state);
            self.registered = true;
            return Poll::Pending;
        }
        if turn.granted {
            *turn = Turn::default();
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

/// Writer `writer`'s view of a shared store: every operation waits at the gate first.
///
/// It says it has no atomic batches ([`Capabilities::atomic_writes`]) unless made with
/// [`GatedStore::atomic`], so that the schedules play the steps a store without them takes. A bulk insert
/// is one insert per value, each at the gate.
pub type GatedStore<S> = Forgetting<Hooked<Arc<S>, Gated>>;

/// The hooks of a [`GatedStore`]: the gate, and which writer passes it.
#[derive(Debug)]
pub struct Gated {
    gate: Arc<Gate>,
    writer: usize,
    atomic: bool,
}

impl<S> Forgetting<Hooked<Arc<S>, Gated>> {
    /// Writer `writer` (0 or 1) of `inner`.
    pub fn new(inner: Arc<S>, gate: Arc<Gate>, writer: usize) -> Self {
        Self::made(inner, gate, writer, false)
    }

    /// Writer `writer` of `inner`, passing on its atomic batches (if it makes them), each one operation at
    /// the gate.
    pub fn atomic(inner: Arc<S>, gate: Arc<Gate>, writer: usize) -> Self {
        Self::made(inner, gate, writer, true)
    }

    /// A bulk insert goes through the trait's default, one insert per value.
    fn made(inner: Arc<S>, gate: Arc<Gate>, writer: usize, atomic: bool) -> Self {
        let gated = Gated {
            gate,
            writer,
            atomic,
        };
        Forgetting::passing(Hooked::with(inner, gated), |operation| {
            operation != Operation::InsertMany
        })
    }
}

impl<S: Sync> Hooks<S> for Gated {
    fn capabilities(&self, inner: &S) -> Capabilities
    where
        S: Store,
    {
        let capabilities = inner.capabilities();
        capabilities.with_atomic_writes(self.atomic && capabilities.atomic_writes)
    }

    async fn before(&self, _: &S, _: Call<'_>) -> Result<(), Error> {
        self.gate.enter(self.writer).await;
        Ok(())
    }
}

/// A writer's operation, boxed.
pub type Writer = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Runs `scenario` once per order of its two writers' store operations, and returns how many orders there
/// were. `scenario` sets up a fresh store, and returns the two writers (reaching the store through
/// [`GatedStore`]s over the gate it is given, writer 0 and writer 1) and the check to run once both are done.
pub fn every_order(mut scenario: impl FnMut(Arc<Gate>) -> ([Writer; 2], Writer)) -> usize {
    let mut to_run: Vec<Vec<usize>> = vec![Vec::new()];
    let mut runs = 0;
    while let Some(prefix) = to_run.pop() {
        runs += 1;
        let gate = Arc::new(Gate::default());
        let (writers, check) = scenario(Arc::clone(&gate));
        let mut writers = writers.map(Some);
        let mut taken = Vec::new();
        loop {
            for (writer, future) in writers.iter_mut().enumerate() {
                advance(future, &gate, writer);
            }
            let waiting: Vec<usize> = (0..2)
                .filter(|writer| writers[*writer].is_some() && gate.waiting(*writer))
                .collect();
            let next = match waiting[..] {
                [] => break,
                [only] => only,
                _ => {
                    let choice = match prefix.get(taken.len()) {
                        Some(choice) => *choice,
                        None => {
                            let mut other = taken.clone();
                            other.push(1);
                            to_run.push(other);
                            0
                        }
                    };
                    taken.push(choice);
                    waiting[choice]
                }
            };
            gate.grant(next);
        }
        block_on(check);
    }
    runs
}

/// Polls a writer until it is done or waits at the gate.
fn advance(future: &mut Option<Writer>, gate: &Gate, writer: usize) {
    let mut context = Context::from_waker(Waker::noop());
    while let Some(running) = future {
        if running.as_mut().poll(&mut context).is_ready() {
            *future = None;
        } else if gate.waiting(writer) {
            return;
        } else {
            // Pending elsewhere (a retry's pause): poll again shortly.
            std::thread::yield_now();
        }
    }
}

/// Runs a future to completion on this thread.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut context = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
        std::thread::yield_now();
    }
}

/// Runs one writer (reaching the store through a [`GatedStore`] of writer 0 over `gate`) for `ops` store
/// operations, then drops it where it waits, as a cancelled future is dropped at an await point. Returns
/// whether it finished first.
pub fn cancel_after(future: Writer, gate: &Gate, ops: usize) -> bool {
    let mut future = Some(future);
    run_for(&mut future, gate, ops)
}

/// Runs one writer (reaching the store through a [`GatedStore`] of writer 0 over `gate`) for `ops` more
/// store operations, and leaves it waiting at the gate before its next one, for the test to change the
/// store in between. Returns whether it finished first (`future` is `None` then).
pub fn run_for(future: &mut Option<Writer>, gate: &Gate, ops: usize) -> bool {
    for _ in 0..ops {
        advance(future, gate, 0);
        if future.is_none() {
            return true;
        }
        gate.grant(0);
    }
    advance(future, gate, 0);
    future.is_none()
}
