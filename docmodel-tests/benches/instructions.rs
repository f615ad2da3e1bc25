//! The same comparison as `codec.rs`, for an instruction counter rather than a clock: run it under
//! `valgrind --tool=callgrind` and compare the inclusive counts of the `*_serde_json` (or `decode_checked`,
//! the floor of a read) and `*_docmodel` functions, which do the same work 10,000 times each. Counts repeat exactly from run to run, where times on
//! a shared machine do not.
//!
//! ```sh
//! cargo bench -p docmodel-tests --bench instructions --no-run
//! valgrind --tool=callgrind --callgrind-out-file=cg.out target/release/deps/instructions-*[^.d]
//! callgrind_annotate --inclusive=yes cg.out | grep -E 'instructions::(decode|encode)_'
//! ```

use std::hint::black_box;

use docmodel::Doc;

mod common;
use common::{HandWritten, User, documents};

const ROUNDS: usize = 10_000;

#[inline(never)]
fn decode_serde_json(bytes: &[u8]) {
    for _ in 0..ROUNDS {
        black_box(serde_json::from_slice::<HandWritten>(black_box(bytes)).unwrap());
    }
}

#[inline(never)]
fn decode_checked(bytes: &[u8]) {
    for _ in 0..ROUNDS {
        black_box(HandWritten::read(black_box(bytes)).unwrap());
    }
}

#[inline(never)]
fn decode_docmodel(bytes: &[u8]) {
    for _ in 0..ROUNDS {
        black_box(Doc::<User>::from_slice(black_box(bytes)).unwrap());
    }
}

#[inline(never)]
fn encode_serde_json(hand: &HandWritten) {
    for _ in 0..ROUNDS {
        black_box(serde_json::to_vec(black_box(hand)).unwrap());
    }
}

#[inline(never)]
fn encode_docmodel(doc: &Doc<User>) {
    for _ in 0..ROUNDS {
        black_box(black_box(doc).to_vec().unwrap());
    }
}

fn main() {
    // `cargo bench` passes `--bench`; the counts are the same either way.
    let (doc, hand, bytes) = documents();
    decode_serde_json(&bytes);
    decode_checked(&bytes);
    decode_docmodel(&bytes);
    encode_serde_json(&hand);
    encode_docmodel(&doc);
}
