//! A damaged Redb file is an error, never a panic: a cleanly closed file damaged in 22 ways (bytes flipped
//! in the header and in the pages holding documents and copies, truncations, noise), then opened, read, scanned and saved to; the same
//! damage made under an open store, where redb panics and the store turns the panic into a typed error; the
//! error of a file that is already open.
//!
//! No test here catches a panic: one would fail it.

use docmodel_tests::{TempFile, redb_path};
use std::path::Path;

use docmodel::store::{Redb, ScanPage, Store};
use docmodel::{DocModel, Error, Repo, StoreErrorKind, Timestamp};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "1.0", key = "user::{user_id}", revisions = 2)]
struct User {
    user_id: u64,
    #[docmodel(get, set)]
    name: String,
}

/// The users the clean file holds, each saved once after its insert (so with a revision copy).
const USERS: u64 = 200;

fn users(store: &Redb) -> Repo<User, &Redb> {
    Repo::new(store).clock(|| Timestamp::from_millis(1_544_759_124_478))
}

/// A file of [`USERS`] users, closed cleanly; the same bytes every run.
fn clean_file() -> TempFile {
    let path = redb_path("clean");
    let store = Redb::open(&path).unwrap();
    let users = users(&store);
    pollster::block_on(async {
        for user_id in 0..USERS {
            let name = format!("user {user_id} {}", "x".repeat(user_id as usize % 50));
            let mut doc = users.insert(User { user_id, name }).await.unwrap();
            doc.set_name(format!("renamed {user_id}"));
            users.save(&mut doc).await.unwrap();
        }
    });
    drop(store);
    path
}

/// How a file is damaged.
#[derive(Debug, Clone, Copy)]
enum Damage {
    /// Every bit of the byte at this offset flipped.
    Flip(usize),
    /// The file cut to this length.
    Truncate(usize),
    /// `len` bytes from `at` overwritten with noise from `seed`.
    Noise { at: usize, len: usize, seed: u64 },
}

impl Damage {
    fn apply(self, path: &Path) {
        let mut bytes = std::fs::read(path).unwrap();
        match self {
            Damage::Flip(at) => bytes[at] ^= 0xFF,
            Damage::Truncate(len) => bytes.truncate(len),
            Damage::Noise { at, len, seed } => {
                let mut state = seed;
                for byte in &mut bytes[at..at + len] {
                    // xorshift64: deterministic noise without a rand crate.
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    *byte = state as u8;
                }
            }
        }
        std::fs::write(path, bytes).unwrap();
    }
}

/// The damage done, named; `panicked` marks those that made `Redb::open` panic inside redb before it
/// checked the file's integrity and caught panics.
fn damages(file: &[u8]) -> Vec<(&'static str, Damage, bool)> {
    const PAGE: usize = 4096;
    let len = file.len();
    // The first byte (redb's page type) of the leaf page holding `text`, wherever the layout of the file puts
    // it: damage to the tree's structure, which a reader walking the tree runs into.
    let page_of = |text: &str| -> usize {
        let at = file
            .windows(text.len())
            .position(|window| window == text.as_bytes())
            .unwrap_or_else(|| panic!("the clean file holds {text:?}"));
        at / PAGE * PAGE
    };
    vec![
        ("flip the magic number", Damage::Flip(0), false),
        ("flip the god byte", Damage::Flip(9), false),
        ("flip header byte 40", Damage::Flip(40), false),
        ("flip the primary commit slot", Damage::Flip(70), false),
        ("flip header byte 200", Damage::Flip(200), false),
        ("flip the second page", Damage::Flip(PAGE + 17), false),
        ("flip at a quarter", Damage::Flip(len / 4), false),
        (
            "flip the page of a document",
            Damage::Flip(page_of("\"renamed 100\"")),
            true,
        ),
        (
            "flip the page of a revision copy",
            Damage::Flip(page_of("\"user 150 ")),
            true,
        ),
        ("flip the last byte", Damage::Flip(len - 1), false),
        ("truncate to nothing", Damage::Truncate(0), false),
        ("truncate into the header", Damage::Truncate(100), false),
        ("truncate to one page", Damage::Truncate(PAGE), false),
        ("truncate to half", Damage::Truncate(len / 2), false),
        ("truncate a page off", Damage::Truncate(len - PAGE), false),
        ("truncate a byte off", Damage::Truncate(len - 1), false),
        (
            "noise over the header",
            Damage::Noise {
                at: 0,
                len: 512,
                seed: 1,
            },
            false,
        ),
        (
            "noise over the commit slots",
            Damage::Noise {
                at: 64,
                len: 64,
                seed: 6,
            },
            false,
        ),
        (
            "noise over the second page",
            Damage::Noise {
                at: PAGE,
                len: PAGE,
                seed: 2,
            },
            false,
        ),
        // Over the start of a page the tree uses (its header): where the file's middle falls moves with what
        // the documents and their copies hold, and it may be a page no read reaches.
        (
            "noise over the start of a middle document's page",
            Damage::Noise {
                at: page_of(&format!("\"renamed {}\"", USERS / 2)),
                len: 64,
                seed: 3,
            },
            true,
        ),
        (
            "noise over a page at a third",
            Damage::Noise {
                at: len / 3 / PAGE * PAGE,
                len: PAGE,
                seed: 4,
            },
            true,
        ),
        // Over a page the tree uses: the file's last page need not be one (its layout moves with what the
        // documents and their copies hold).
        (
            "noise over the page of the last document",
            Damage::Noise {
                at: page_of(&format!("\"renamed {}\"", USERS - 1)),
                len: PAGE,
                seed: 5,
            },
            true,
        ),
    ]
}

/// What each operation gave, in a line for the failure message.
type Outcomes = Vec<(&'static str, Result<(), Error>)>;

/// A get, a range read and a save through `store`, each `Ok` or an error (a panic fails the test).
fn use_store(store: &Redb) -> Outcomes {
    let users = users(store);
    pollster::block_on(async {
        let got = users.get(&User::key(100)).await;
        let scanned = store
            .scan_range("user::", "user::~", ScanPage::first(usize::MAX))
            .await;
        let saved = match &got {
            Ok(Some(doc)) => {
                let mut doc = doc.clone();
                doc.set_name("saved again");
                users.save(&mut doc).await
            }
            _ => users
                .insert(User {
                    user_id: 1_000,
                    name: "new".into(),
                })
                .await
                .map(drop),
        };
        vec![
            ("get", got.map(drop)),
            ("scan_range", scanned.map(drop)),
            ("save", saved),
        ]
    })
}

/// Every error of `outcomes` is a permanent store error naming the file.
fn assert_errors_name_the_file(damage: &str, path: &Path, outcomes: &Outcomes) {
    for (operation, outcome) in outcomes {
        if let Err(err) = outcome {
            assert!(
                matches!(
                    err,
                    Error::Store {
                        kind: StoreErrorKind::Permanent,
                        ..
                    }
                ) && err.to_string().contains(&path.display().to_string()),
                "{damage}: {operation}: {err:?}"
            );
        }
    }
}

#[test]
fn a_damaged_file_is_an_error_naming_it_never_a_panic() {
    let clean = clean_file();
    let file = std::fs::read(&clean).unwrap();
    for (name, damage, panicked) in damages(&file) {
        let path = redb_path("damaged");
        std::fs::copy(&clean, &path).unwrap();
        damage.apply(&path);
        let outcomes = match Redb::open(&path) {
            Ok(store) => use_store(&store),
            Err(err) => vec![("open", Err(err))],
        };
        assert_errors_name_the_file(name, &path, &outcomes);
        if panicked {
            // The integrity check's report; redb's own words after the colon.
            let (_, opened) = &outcomes[0];
            let message = opened.as_ref().expect_err(name).to_string();
            let expected = format!(
                "the store failed: the redb file `{}` looks damaged: DB corrupted: ",
                path.display()
            );
            assert!(message.starts_with(&expected), "{name}: {message}");
        }
    }
}

/// The integrity check on open cannot see damage made after it: there redb panics, and the store says the
/// file looks damaged, then fails every later operation the same way without calling redb again.
#[test]
fn damage_under_an_open_store_is_an_error_naming_it_then_every_operation_fails_fast() {
    let clean = clean_file();
    let file = std::fs::read(&clean).unwrap();
    for (name, damage, panicked) in damages(&file) {
        let path = redb_path("damaged-open");
        std::fs::copy(&clean, &path).unwrap();
        let store = Redb::open(&path).unwrap();
        damage.apply(&path);
        let outcomes = use_store(&store);
        assert_errors_name_the_file(name, &path, &outcomes);
        if panicked {
            // A range read crosses every leaf, so it reaches the damaged page: redb panics.
            let (_, scanned) = &outcomes[1];
            let message = scanned.as_ref().expect_err(name).to_string();
            assert!(
                message.starts_with(&format!(
                    "document `user::`: the store failed: the redb file `{}` looks damaged: redb \
                     panicked (",
                    path.display()
                )) && message.ends_with("); this handle no longer reads or writes it"),
                "{name}: {message}"
            );
            // The save after it, and a read of a page redb would find whole, fail the same way.
            let (_, saved) = &outcomes[2];
            assert!(
                saved
                    .as_ref()
                    .expect_err(name)
                    .to_string()
                    .ends_with(&message["document `user::`".len()..]),
                "{name}: {saved:?}"
            );
            let got = pollster::block_on(store.get("user::0")).unwrap_err();
            assert_eq!(
                got.to_string(),
                format!(
                    "document `user::0`{}",
                    &message["document `user::`".len()..]
                )
            );
        }
        // Closing the damaged file does not panic either; opening it again finds the damage.
        drop(store);
        if panicked {
            let err = Redb::open(&path).unwrap_err().to_string();
            assert!(err.contains("looks damaged"), "{name}: {err}");
        }
    }
}

#[test]
fn a_file_already_open_is_an_error_naming_it() {
    let path = redb_path("open-twice");
    let store = Redb::open(&path).unwrap();
    let err = Redb::open(&path).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Store {
                key: None,
                kind: StoreErrorKind::Permanent,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "the store failed: the redb file `{}` is open elsewhere (by another `Redb` in this process, or \
             by another process); close it there first: Database already open. Cannot acquire lock.",
            path.display()
        )
    );
    // Closed, it opens.
    drop(store);
    drop(Redb::open(&path).unwrap());
}
