//! Allocations per operation, counted by a global allocator: the same every run, where times are not.
//!
//! ```sh
//! cargo bench -p docmodel-benches --bench allocations
//! ```
//!
//! Prints, for a read of the seeds' user, the allocations of the hand-written checked read and of docmodel's,
//! and what one kept unknown field adds (the user with [`UNKNOWN`] short string fields the model does not
//! know, less the user without them, over `UNKNOWN`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

use docmodel::Doc;

// The shared models and documents; this program uses some.
#[allow(dead_code)]
mod common;
use common::{HandWritten, UNKNOWN, User, documents, with_unknown};

/// The system allocator, counting the allocations it makes (a reallocation counts as one).
struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const ROUNDS: usize = 1_000;

/// The allocations `f` makes per call, over [`ROUNDS`] calls.
fn per_call(mut f: impl FnMut()) -> f64 {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    for _ in 0..ROUNDS {
        f();
    }
    (ALLOCATIONS.load(Ordering::Relaxed) - before) as f64 / ROUNDS as f64
}

fn main() {
    let (_, _, bytes) = documents();
    let unknown = with_unknown(&bytes);
    let hand = per_call(|| {
        black_box(HandWritten::read(black_box(&bytes)).unwrap());
    });
    let plain = per_call(|| {
        black_box(Doc::<User>::from_slice(black_box(&bytes)).unwrap());
    });
    let kept = per_call(|| {
        let doc = Doc::<User>::from_slice(black_box(&unknown)).unwrap();
        assert_eq!(doc.unknown_fields().count(), UNKNOWN);
        black_box(doc);
    });
    println!("allocations per read of the seeds' user:");
    println!("  hand-written checked read           {hand:6.2}");
    println!("  Doc::from_slice                     {plain:6.2}");
    println!(
        "  one kept unknown field adds         {:6.2}   ({UNKNOWN} fields: {kept:.2})",
        (kept - plain) / UNKNOWN as f64
    );
}
