//! The same comparison as `codec.rs`, for an instruction counter rather than a clock: run it under
//! `valgrind --tool=callgrind` and compare the inclusive counts of the `*_serde_json` (or `decode_checked`,
//! the floor of a read) and `*_docmodel` functions, which do the same work 10,000 times each. Counts repeat exactly from run to run, where times on
//! a shared machine do not.
//!
//! ```sh
//! cargo bench -p docmodel-benches --bench instructions --no-run
//! valgrind --tool=callgrind --callgrind-out-file=cg.out target/release/deps/instructions-*[^.d]
//! callgrind_annotate --inclusive=yes cg.out | grep -E 'instructions::(decode|encode|migrate|typed|repo)_'
//! ```
//!
//! `encode_unknown_docmodel` writes a user holding 100 fields the model does not know (kept as read), against
//! `encode_unknown_value`, the write of the same document as a `serde_json::Value`.
//!
//! The `repo_*` functions count `Repo::get` and `Repo::save` on MemoryStore; built again with `--features
//! tracing`, they give what the feature costs with no subscriber installed. `repo_save_revisions_*` and
//! `repo_revisions_*` count a save of a model keeping 10 revisions and the listing of its 10 copies, each
//! against the same store operations written by hand (the listing 1,000 times: each reads 11 documents).

use std::hint::black_box;

use docmodel::store::{MemoryStore, Store};
use docmodel::{Doc, Key, Repo};

mod common;
use common::{
    HandSaves, HandWritten, Migrated, Revised, TypedUser, User, V1, V2, convert_by_hand, documents,
    migrate_by_hand, with_unknown, with_unknown_fields,
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

/// `decode_docmodel` on the same user with `common::UNKNOWN` short string fields this model does not know, which it keeps: the
/// difference over `UNKNOWN` is what one kept field costs.
#[inline(never)]
fn decode_unknown_docmodel(bytes: &[u8]) {
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

/// How many kept unknown fields the `encode_unknown_*` pair writes.
const KEPT: usize = 100;

/// The write half of a `serde_json::Value` round trip, the other way to keep fields one does not know: the
/// user with [`KEPT`] fields this model does not know, as a `Value`, written.
#[inline(never)]
fn encode_unknown_value(value: &serde_json::Value) {
    for _ in 0..ROUNDS {
        black_box(serde_json::to_vec(black_box(value)).unwrap());
    }
}

/// The same document read as a `Doc<User>` (its [`KEPT`] unknown fields kept as raw text), written.
#[inline(never)]
fn encode_unknown_docmodel(doc: &Doc<User>) {
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

/// `Repo::get` of a current user on MemoryStore; with `--features tracing` and no subscriber, what the
/// feature costs it.
#[inline(never)]
fn repo_get_docmodel(users: &Repo<User, &MemoryStore>, key: &Key<User>) {
    for _ in 0..ROUNDS {
        black_box(pollster::block_on(users.get(black_box(key))).unwrap());
    }
}

/// `Repo::save` of a user without copies on MemoryStore, as [`repo_get_docmodel`].
#[inline(never)]
fn repo_save_docmodel(users: &Repo<User, &MemoryStore>, doc: &mut Doc<User>) {
    for _ in 0..ROUNDS {
        pollster::block_on(users.save(black_box(&mut *doc))).unwrap();
    }
}

/// A save of a user with 10 revision copies, its window full, by hand: the store operations `Repo::save`
/// makes on MemoryStore (a get, one batch of three writes) after `to_vec`.
#[inline(never)]
fn repo_save_revisions_by_hand(hand: &mut HandSaves<'_, MemoryStore>) {
    for _ in 0..ROUNDS {
        hand.save();
    }
}

/// The same save through `Repo::save`.
#[inline(never)]
fn repo_save_revisions_docmodel(users: &Repo<Revised, &MemoryStore>, doc: &mut Doc<Revised>) {
    for _ in 0..ROUNDS {
        pollster::block_on(users.save(black_box(&mut *doc))).unwrap();
    }
}

/// The 10 kept versions of that user, listed by hand: the document read, its copies read in one batch,
/// each read and checked.
#[inline(never)]
fn repo_revisions_by_hand(hand: &HandSaves<'_, MemoryStore>) {
    for _ in 0..ROUNDS / 10 {
        black_box(hand.revisions());
    }
}

/// The same listing through `Repo::revisions`.
#[inline(never)]
fn repo_revisions_docmodel(users: &Repo<Revised, &MemoryStore>, key: &Key<Revised>) {
    for _ in 0..ROUNDS / 10 {
        black_box(pollster::block_on(users.revisions(black_box(key))).unwrap());
    }
}

fn main() {
    // `cargo bench` passes `--bench`; the counts are the same either way.
    let (doc, hand, bytes) = documents();
    decode_serde_json(&bytes);
    decode_checked(&bytes);
    decode_docmodel(&bytes);
    decode_unknown_docmodel(&with_unknown(&bytes));
    encode_serde_json(&hand);
    encode_docmodel(&doc);
    let kept = with_unknown_fields(&bytes, KEPT);
    let kept_doc = Doc::<User>::from_slice(&kept).unwrap();
    assert_eq!(kept_doc.unknown_fields().count(), KEPT);
    let kept_value: serde_json::Value = serde_json::from_slice(&kept).unwrap();
    let written: serde_json::Value = serde_json::from_slice(&kept_doc.to_vec().unwrap()).unwrap();
    assert_eq!(written, kept_value, "every kept field written back");
    encode_unknown_value(&kept_value);
    encode_unknown_docmodel(&kept_doc);
    migrate_by_hand_value();
    migrate_docmodel();
    typed_by_hand_from();
    typed_docmodel();

    let store = MemoryStore::new();
    let key = User::key(123_456);
    pollster::block_on(store.insert(key.as_str(), &bytes)).unwrap();
    let users = Repo::<User>::new(&store);
    repo_get_docmodel(&users, &key);
    let mut doc = pollster::block_on(users.get(&key)).unwrap().unwrap();
    repo_save_docmodel(&users, &mut doc);

    // Saved past its window first, so that every measured save prunes a copy.
    let by_hand = MemoryStore::new();
    let mut hand = HandSaves::new(&by_hand);
    for _ in 0..12 {
        hand.save();
    }
    repo_save_revisions_by_hand(&mut hand);
    repo_revisions_by_hand(&hand);
    let kept = MemoryStore::new();
    let revised = Repo::<Revised>::new(&kept);
    let mut doc = pollster::block_on(revised.insert(Revised::new())).unwrap();
    for _ in 0..12 {
        pollster::block_on(revised.save(&mut doc)).unwrap();
    }
    repo_save_revisions_docmodel(&revised, &mut doc);
    let key = doc.key().clone();
    repo_revisions_docmodel(&revised, &key);
}
