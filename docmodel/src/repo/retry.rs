//! Retries: how [`Repo::update`](crate::Repo::update) and [`Repo::restore`](crate::Repo::restore) try again
//! after another writer got there first, without hammering a network store.
//!
//! An attempt reads the document, changes it and saves it with compare-and-swap. It is repeated only when it
//! provably wrote nothing: on [`ErrorClass::Conflict`] (another writer's save landed first) and on
//! [`ErrorClass::Transient`] (the store did not carry the operation out). An
//! [`Ambiguous`](ErrorClass::Ambiguous) failure is returned at once: the save may have landed, and applying
//! the change again could apply it twice. Between attempts the task sleeps for a random time up to an
//! exponentially growing bound ("full jitter"), so that writers that collided spread out.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Condvar, Mutex, OnceLock};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use crate::{Error, ErrorClass};

/// How often and how patiently a repository retries an update that lost a race.
///
/// ```
/// use std::time::Duration;
/// use docmodel::RetryPolicy;
///
/// let policy = RetryPolicy::default()
///     .with_attempts(20)
///     .with_delays(Duration::from_millis(2), Duration::from_millis(500));
/// assert_eq!(policy.attempts(), 20);
/// assert!(policy.delay_bound(1) <= Duration::from_millis(2));
/// assert_eq!(policy.delay_bound(30), Duration::from_millis(500));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    attempts: u32,
    first_delay: Duration,
    max_delay: Duration,
}

impl Default for RetryPolicy {
    /// 10 attempts, sleeping up to 1 ms before the first retry, doubling to at most 100 ms.
    fn default() -> Self {
        RetryPolicy {
            attempts: 10,
            first_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(100),
        }
    }
}

impl RetryPolicy {
    /// This policy with at most `attempts` attempts in all (at least 1: the first try).
    pub const fn with_attempts(mut self, attempts: u32) -> Self {
        self.attempts = if attempts == 0 { 1 } else { attempts };
        self
    }

    /// This policy sleeping up to `first` before the first retry, twice as long at most before each next
    /// one, and never more than `max`. Zero delays only let other tasks run.
    pub const fn with_delays(mut self, first: Duration, max: Duration) -> Self {
        self.first_delay = first;
        self.max_delay = max;
        self
    }

    /// How many attempts are made in all.
    pub const fn attempts(&self) -> u32 {
        self.attempts
    }

    /// The longest sleep before retry number `retry` (1 for the first retry).
    pub fn delay_bound(&self, retry: u32) -> Duration {
        let doublings = retry.saturating_sub(1).min(31);
        self.first_delay
            .saturating_mul(1 << doublings)
            .min(self.max_delay)
    }

    /// Whether an attempt that failed with `error` is tried again.
    pub(crate) fn retries(error: &Error) -> bool {
        matches!(error.class(), ErrorClass::Conflict | ErrorClass::Transient)
    }

    /// Waits before retry number `retry`, after an attempt failed with `error`: a random time up to
    /// [`delay_bound`](RetryPolicy::delay_bound). With the feature `tracing`, a retry event, and the next
    /// attempt's number on the operation's span.
    pub(crate) async fn pause(&self, retry: u32, error: &Error) {
        let bound = self.delay_bound(retry);
        let nanos = u64::try_from(bound.as_nanos()).unwrap_or(u64::MAX);
        let delay = Duration::from_nanos(if nanos == 0 {
            0
        } else {
            random() % nanos.saturating_add(1)
        });
        #[cfg(feature = "tracing")]
        {
            let class = crate::trace::class_name(error);
            tracing::Span::current().record("docmodel.attempt", retry + 1);
            crate::trace::event!(tracing::Level::INFO, {
                docmodel.attempt = retry + 1,
                delay_ms = delay.as_secs_f64() * 1000.0,
                docmodel.error = class,
            }, "retrying after {class}");
        }
        #[cfg(not(feature = "tracing"))]
        let _ = error;
        Sleep::new(delay).await;
    }
}

/// A random number for jitter (xorshift, seeded per thread from the clock and the thread's stack).
fn random() -> u64 {
    use std::cell::Cell;
    thread_local!(static STATE: Cell<u64> = const { Cell::new(0) });
    STATE.with(|state| {
        let mut x = state.get();
        if x == 0 {
            let clock = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |since| since.subsec_nanos());
            let place = std::ptr::from_ref(state) as usize as u64;
            x = (u64::from(clock) ^ place.rotate_left(17)) | 1;
        }
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        state.set(x);
        x
    })
}

/// A future that completes after a duration, on any executor: a single timer thread, started on first use,
/// wakes it. A zero duration (or a machine that cannot start the thread) only lets other tasks run first.
struct Sleep {
    deadline: Instant,
    yielded: bool,
}

impl Sleep {
    fn new(duration: Duration) -> Self {
        Sleep {
            // A delay beyond what `Instant` can count is as good as forever: a century will do.
            deadline: Instant::now()
                .checked_add(duration)
                .unwrap_or_else(|| Instant::now() + Duration::from_secs(100 * 365 * 86_400)),
            yielded: false,
        }
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.yielded && Instant::now() >= self.deadline {
            return Poll::Ready(());
        }
        self.yielded = true;
        match timer() {
            Some(timer) if Instant::now() < self.deadline => {
                timer.wake_at(self.deadline, cx.waker().clone());
            }
            _ => {
                self.deadline = Instant::now();
                cx.waker().wake_by_ref();
            }
        }
        Poll::Pending
    }
}

struct Timer {
    queue: Mutex<Vec<(Instant, Waker)>>,
    changed: Condvar,
}

impl Timer {
    fn wake_at(&self, deadline: Instant, waker: Waker) {
        let mut queue = self
            .queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        queue.push((deadline, waker));
        self.changed.notify_one();
    }

    fn run(&self) {
        let mut queue = self
            .queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        loop {
            let now = Instant::now();
            let mut due = Vec::new();
            queue.retain(|(deadline, waker)| {
                let waiting = *deadline > now;
                if !waiting {
                    due.push(waker.clone());
                }
                waiting
            });
            if !due.is_empty() {
                drop(queue);
                due.into_iter().for_each(Waker::wake);
                queue = self
                    .queue
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                continue;
            }
            queue = match queue.iter().map(|(deadline, _)| *deadline).min() {
                None => self
                    .changed
                    .wait(queue)
                    .unwrap_or_else(std::sync::PoisonError::into_inner),
                Some(next) => {
                    self.changed
                        .wait_timeout(queue, next.saturating_duration_since(now))
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .0
                }
            };
        }
    }
}

/// The timer thread, started on first use; `None` if the thread cannot be started.
fn timer() -> Option<&'static Timer> {
    static TIMER: OnceLock<Option<&'static Timer>> = OnceLock::new();
    *TIMER.get_or_init(|| {
        let timer: &'static Timer = Box::leak(Box::new(Timer {
            queue: Mutex::new(Vec::new()),
            changed: Condvar::new(),
        }));
        std::thread::Builder::new()
            .name("docmodel-timer".into())
            .spawn(move || timer.run())
            .ok()
            .map(|_| timer)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_double_up_to_the_bound() {
        let policy =
            RetryPolicy::default().with_delays(Duration::from_millis(1), Duration::from_millis(10));
        let bounds: Vec<u128> = (1..=6).map(|n| policy.delay_bound(n).as_millis()).collect();
        assert_eq!(bounds, [1, 2, 4, 8, 10, 10]);
        assert_eq!(policy.delay_bound(u32::MAX), Duration::from_millis(10));
        assert_eq!(RetryPolicy::default().with_attempts(0).attempts(), 1);
    }

    #[test]
    fn only_conflicts_and_transient_failures_are_retried() {
        use crate::StoreErrorKind;
        let conflict = Error::Conflict { key: "k".into() };
        assert!(RetryPolicy::retries(&conflict));
        assert!(RetryPolicy::retries(&Error::store_with(
            StoreErrorKind::Transient,
            "k",
            "busy"
        )));
        assert!(!RetryPolicy::retries(&Error::store_with(
            StoreErrorKind::Ambiguous,
            "k",
            "timeout"
        )));
        assert!(!RetryPolicy::retries(&Error::store("k", "broken")));
        assert!(!RetryPolicy::retries(&Error::NotFound { key: "k".into() }));
    }

    #[test]
    fn a_sleep_waits_about_its_time_on_any_executor() {
        let start = Instant::now();
        pollster::block_on(Sleep::new(Duration::from_millis(20)));
        let slept = start.elapsed();
        assert!(slept >= Duration::from_millis(20), "{slept:?}");
        pollster::block_on(Sleep::new(Duration::ZERO));
    }
}
