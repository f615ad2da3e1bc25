//! The same comparison as `codec.rs`, for an instruction counter rather than a clock: run it under
//! `valgrind --tool=callgrind` and compare the inclusive counts of the `*_serde_json` (or `decode_checked`,
//! the floor of a read) and `*_docmodel` functions, which do the same work 10,000 times each. Counts repeat exactly from run to run, where times on
//! a shared machine do not.
//!
//! ```sh
//! cargo bench -p docmodel-benches --bench instructions --no-run
//! valgrind --tool=callgrind --callgrind-out-file=cg.out target/release/deps/instructions-*[^.d]
//! callgrind_annotate --inclusive=yes cg.out | grep -E 'instructions::(decode|encode|migrate|typed)_'
//! ```

use std::hint::black_box;

use docmodel::Doc;

mod common;
use common::{
    HandWritten, Migrated, TypedUser, User, V1, V2, convert_by_hand, documents, migrate_by_hand,
};

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

#[inline(never)]
fn migrate_by_hand_value() {
    for _ in 0..ROUNDS {
        black_box(migrate_by_hand(black_box(V1)));
    }
}

#[inline(never)]
fn migrate_docmodel() {
    for _ in 0..ROUNDS {
        black_box(Doc::<Migrated>::from_slice(black_box(V1)).unwrap());
    }
}

#[inline(never)]
fn typed_by_hand_from() {
    for _ in 0..ROUNDS {
        black_box(convert_by_hand(black_box(V2)));
    }
}

#[inline(never)]
fn typed_docmodel() {
    for _ in 0..ROUNDS {
        black_box(Doc::<TypedUser>::from_slice(black_box(V2)).unwrap());
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
    migrate_by_hand_value();
    migrate_docmodel();
    typed_by_hand_from();
    typed_docmodel();
}
