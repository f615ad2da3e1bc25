//! The schema lock: the stored shape of each schema version of a model, kept in files beside the model's
//! source, so that a struct changed without a version bump is caught.
//!
//! The files are `docmodel-locks/<file>/<type>/<version>.json` in the directory of the file the model is
//! written in (`src/docmodel-locks/models/user/3.0.json` for the type `user` in `src/models.rs`): one
//! directory per document type, so that renaming the struct keeps its locks, and the structs of one type's
//! versions in one file share one history. Each lists the stored fields of its version (Rust name, stored
//! name, type as written, whether a document without it reads, the names it is read from), the struct that
//! wrote it, and, with the feature `json-schema`, the shapes of the structs the body holds (the JSON
//! Schema's `$defs`), with an optional `<version>.sample.json` beside it: a document of that version. They
//! are written by [`check`] (and [`check_with_sample`]) when the environment variable `DOCMODEL_BLESS` is
//! `1`, and are meant to be committed.
//!
//! Three checks hold a version to its lock:
//!
//! - **At compile time**, the derive compares the model with the lock of the version it declares, and fails at
//!   `schema = "..."` naming each change (a field added, removed, renamed, its type changed, made required)
//!   and the fix. The lock is part of the build: editing it, or setting `DOCMODEL_BLESS`, rebuilds the model.
//!   A model whose lock is found under another type (the type renamed, the lock not moved) is an error
//!   naming the lock.
//! - **At test time**, [`check`] does the same for every locked version, by docmodel's read rules: the
//!   current version must match its lock; an older minor version that is read without a step may differ
//!   only by fields added that read when missing (`Option`, `Presence`, `#[serde(default)]`); every locked
//!   version must still be read (a step from it, or an older model's); and each sample is read through
//!   the chain.
//! - **At deploy time**, [`Repo::ensure_schema`](crate::Repo::ensure_schema) records each version's shape,
//!   as its lock records it, and its fingerprint in the store, and refuses a program whose shape differs for
//!   the same version (compared as here).
//!
//! ```no_run
//! # use docmodel::DocModel;
//! # #[derive(serde::Serialize, serde::Deserialize, DocModel)]
//! # #[docmodel(type = "user", schema = "3.0", key = "user::{id}")]
//! # struct User { id: u64 }
//! #[test]
//! fn the_user_schema_is_locked() {
//!     docmodel::lock::check::<User>().unwrap();
//! }
//! ```

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::migrate::route::{Route, route};

use crate::{Doc, DocModel, SchemaVersion};
pub use docmodel_shape::Change;
use docmodel_shape::{Record, Shape};

/// The environment variable that makes [`check`] write the locks: `DOCMODEL_BLESS=1 cargo test`.
pub const BLESS: &str = "DOCMODEL_BLESS";

/// The shapes of the structs model `T`'s body holds, by name: its JSON Schema's `$defs`.
#[cfg(feature = "json-schema")]
fn current_defs<T: DocModel>() -> Option<serde_json::Map<String, serde_json::Value>> {
    match crate::json_schema::<T>().get("$defs") {
        Some(serde_json::Value::Object(defs)) => Some(defs.clone()),
        _ => Some(serde_json::Map::new()),
    }
}

#[cfg(not(feature = "json-schema"))]
#[allow(clippy::extra_unused_type_parameters)] // the signature of the feature's own
fn current_defs<T: DocModel>() -> Option<serde_json::Map<String, serde_json::Value>> {
    None
}

/// What [`check`] found wrong, each problem naming the model, the version and the fix.
#[derive(Debug)]
pub struct LockError {
    /// The model's type.
    pub type_name: &'static str,
    /// Each problem, in version order.
    pub problems: Vec<LockProblem>,
}

/// One problem [`check`] found.
#[derive(Debug)]
#[non_exhaustive]
pub enum LockProblem {
    /// The derive could not tell where the model's source is (a model written by another macro).
    NoDirectory,
    /// No lock of the model's version.
    NotLocked {
        /// The version.
        version: SchemaVersion,
        /// Where it was looked for.
        dir: PathBuf,
        /// Whether [`check`] writes it there under `DOCMODEL_BLESS=1` (not so [`check_at`]).
        written_by_check: bool,
    },
    /// The lock of the model's version is under another type: the type was renamed, and its locks were not
    /// moved.
    Moved {
        /// The version.
        version: SchemaVersion,
        /// The lock found.
        path: PathBuf,
        /// Where the model's locks are now.
        dir: PathBuf,
        /// The type the lock found is of.
        old_type: String,
    },
    /// The model differs from the lock of its own version.
    Changed {
        /// The version.
        version: SchemaVersion,
        /// What changed.
        changes: Vec<Change>,
    },
    /// An older minor version, read as the model without a step, differs by more than fields that read
    /// when missing.
    NotAdditive {
        /// The locked version.
        version: SchemaVersion,
        /// What changed since it.
        changes: Vec<Change>,
    },
    /// A locked version the model no longer reads: no step migrates from it.
    Unreadable {
        /// The locked version.
        version: SchemaVersion,
    },
    /// A locked version newer than the model's.
    Newer {
        /// The locked version.
        version: SchemaVersion,
    },
    /// A lock or sample file that could not be read or written.
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A version's sample document that does not read through the chain.
    Sample {
        /// The locked version.
        version: SchemaVersion,
        /// The sample's file (empty for a sample that could not be written).
        path: PathBuf,
        /// Why it does not read.
        error: Box<crate::Error>,
    },
}

impl fmt::Display for LockProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let listed = |changes: &[Change]| {
            changes
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        };
        match self {
            LockProblem::NoDirectory => f.write_str(
                "the derive could not tell which file the model is written in, so it has no lock directory",
            ),
            LockProblem::NotLocked {
                version,
                dir,
                written_by_check: true,
            } => write!(
                f,
                "{version} is not locked (no `{version}.json` in `{}`): write its lock with `{BLESS}=1 cargo \
                 test`, and commit it",
                dir.display()
            ),
            LockProblem::NotLocked { version, dir, .. } => write!(
                f,
                "{version} is not locked (no `{version}.json` in `{}`): `check_at` only reads; write the lock \
                 beside the model with `lock::check` under `{BLESS}=1 cargo test`, and copy it there",
                dir.display()
            ),
            LockProblem::Moved {
                version,
                path,
                dir,
                old_type,
            } => write!(
                f,
                "{version} is locked under another type (`{}`): the type was renamed from `{old_type}` and its \
                 locks were not moved; move the directory to `{}`, and keep its documents readable with \
                 `aliases(\"{old_type}\")`",
                path.display(),
                dir.display()
            ),
            LockProblem::Changed { version, changes } => write!(
                f,
                "{version} is locked with another stored shape: {}; {}; or, if {version} was never released, \
                 write its lock again with `{BLESS}=1 cargo test`",
                listed(changes),
                docmodel_shape::fix(
                    changes,
                    version.major,
                    version.minor,
                    &version.to_string()
                )
            ),
            LockProblem::NotAdditive { version, changes } => write!(
                f,
                "{version} is read as the current version without a step (an older minor version), but \
                 differs by more than fields added that read when missing: {}; add a step from it \
                 (`migrate_from(\"{version}\" = step)`) or bump the major version",
                listed(changes)
            ),
            LockProblem::Unreadable { version } => write!(
                f,
                "{version} is locked but no longer read: no step migrates from it; add one \
                 (`migrate_from(\"{version}\" = step)`), or remove its lock if no document of it is stored"
            ),
            LockProblem::Newer { version } => write!(
                f,
                "{version} is locked, but is newer than the model's version: a lock of a version not yet \
                 released, or a model that went back; remove the lock if no document of it is stored"
            ),
            LockProblem::File { path, reason } => write!(f, "`{}`: {reason}", path.display()),
            LockProblem::Sample {
                version,
                path,
                error,
            } => write!(
                f,
                "the sample document of {version} (`{}`) does not read: {error}; if {version} was never \
                 released and its lock was written again, remove the sample too, and `{BLESS}=1 cargo test` \
                 writes it again",
                path.display()
            ),
        }
    }
}

impl fmt::Display for LockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the schema lock of `{}`:", self.type_name)?;
        for problem in &self.problems {
            write!(f, "\n  - {problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for LockError {}

/// A locked version, read from its file.
struct Locked {
    version: SchemaVersion,
    shape: Shape,
}

/// The locks in `dir`: each locked version, in version order.
fn locked(dir: &Path) -> Result<Vec<Locked>, LockProblem> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => {
            return Err(LockProblem::File {
                path: dir.to_owned(),
                reason: err.to_string(),
            });
        }
    };
    let mut locks = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(name) = path.file_name().and_then(|name| name.to_str()) else {
            continue;
        };
        let Some(version) = name
            .strip_suffix(".json")
            .filter(|stem| !stem.ends_with(".sample"))
        else {
            continue;
        };
        let file_problem = |reason: String| LockProblem::File {
            path: path.clone(),
            reason,
        };
        let version: SchemaVersion = version
            .parse()
            .map_err(|err| file_problem(format!("not named by a schema version: {err}")))?;
        let text = std::fs::read_to_string(&path).map_err(|err| file_problem(err.to_string()))?;
        let shape =
            Shape::parse(&text).map_err(|why| file_problem(format!("not a lock: {why}")))?;
        locks.push(Locked { version, shape });
    }
    locks.sort_by_key(|locked| locked.version);
    Ok(locks)
}

/// Model `T`'s stored shape at its version, as its lock records it.
pub(crate) fn current<T: DocModel>() -> Shape {
    Shape {
        type_name: T::TYPE.to_owned(),
        schema: T::SCHEMA.to_string(),
        model: Some(T::__LOCK.model.to_owned()).filter(|model| !model.is_empty()),
        fields: T::__LOCK
            .fields
            .iter()
            .map(|&(field, stored, ty, required, reads)| Record {
                field: field.to_owned(),
                stored: stored.to_owned(),
                ty: ty.to_owned(),
                required,
                reads: reads.iter().map(|name| (*name).to_owned()).collect(),
            })
            .collect(),
        defs: current_defs::<T>(),
    }
}

fn blessing() -> bool {
    std::env::var(BLESS).is_ok_and(|value| value == "1")
}

/// Checks model `T` against its locks (see the [module](self)). With `DOCMODEL_BLESS=1`, first writes the lock
/// of its version where there is none or it differs (a lock that differs only in order is left as it is),
/// then checks the rest; refused where the environment variable `CI` is set, as a CI run must not write its
/// own expectations.
pub fn check<T: DocModel + DeserializeOwned>() -> Result<(), LockError> {
    run::<T>(None)
}

/// [`check`]; with `DOCMODEL_BLESS=1`, also writes `sample`, as the model stores it, as the sample document
/// of its version (where there is none), which later checks read through the chain.
pub fn check_with_sample<T: DocModel + Serialize + DeserializeOwned>(
    sample: T,
) -> Result<(), LockError> {
    let bytes = Doc::new(sample)
        .and_then(|doc| doc.to_string_pretty())
        .map_err(|error| LockError {
            type_name: T::TYPE,
            problems: vec![LockProblem::Sample {
                version: T::SCHEMA,
                path: PathBuf::new(),
                error: Box::new(error),
            }],
        })?;
    run::<T>(Some(bytes))
}

/// [`check`] of the locks in `dir`, rather than beside the model: for locks kept elsewhere, and tests. It
/// only checks: `DOCMODEL_BLESS` writes nothing here.
pub fn check_at<T: DocModel + DeserializeOwned>(dir: impl AsRef<Path>) -> Result<(), LockError> {
    verify::<T>(dir.as_ref(), Written::Elsewhere)
}

/// Who writes the locks a check reads.
#[derive(Clone, Copy)]
enum Written {
    /// [`check`], with `DOCMODEL_BLESS=1`.
    ByCheck,
    /// Nobody: [`check_at`] only reads.
    Elsewhere,
}

fn run<T: DocModel + DeserializeOwned>(sample: Option<String>) -> Result<(), LockError> {
    let fail = |problems| LockError {
        type_name: T::TYPE,
        problems,
    };
    let Some(dir) = T::__LOCK.dir.map(Path::new) else {
        return Err(fail(vec![LockProblem::NoDirectory]));
    };
    if blessing() {
        if std::env::var_os("CI").is_some() {
            return Err(fail(vec![LockProblem::File {
                path: dir.to_owned(),
                reason: format!("`{BLESS}=1` writes locks, and `CI` is set: a CI run checks them"),
            }]));
        }
        bless::<T>(dir, sample).map_err(|problem| fail(vec![problem]))?;
    }
    verify::<T>(dir, Written::ByCheck)
}

/// Writes the lock of `T`'s version where there is none or it differs, and `sample` where there is none.
fn bless<T: DocModel>(dir: &Path, sample: Option<String>) -> Result<(), LockProblem> {
    let version = T::SCHEMA.to_string();
    let write = |path: PathBuf, text: &str| {
        std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(&path, text))
            .map_err(|err| LockProblem::File {
                path,
                reason: err.to_string(),
            })
    };
    let now = current::<T>();
    // The same shape, whoever wrote it (two structs of one type and version share one lock): left as it is.
    let same = locked(dir)?
        .into_iter()
        .find(|locked| locked.version == T::SCHEMA)
        .is_some_and(|locked| locked.shape.compare(&now, T::TYPE_ALIASES).is_empty());
    if !same {
        write(docmodel_shape::lock_file(dir, &version), &now.lock_text())?;
    }
    let sample_path = dir.join(format!("{version}.sample.json"));
    if let Some(sample) = sample
        && !sample_path.exists()
    {
        write(sample_path, &format!("{sample}\n"))?;
    }
    Ok(())
}

/// The checks of [`check`], of the locks in `dir`.
fn verify<T: DocModel + DeserializeOwned>(dir: &Path, written: Written) -> Result<(), LockError> {
    let fail = |problems| LockError {
        type_name: T::TYPE,
        problems,
    };
    let locks = locked(dir).map_err(|problem| fail(vec![problem]))?;
    let now = current::<T>();
    let mut problems = Vec::new();
    if !locks.iter().any(|locked| locked.version == T::SCHEMA) {
        // Beside the model only: `check_at`'s directory is the caller's, not where the model's locks move.
        let beside = matches!(written, Written::ByCheck);
        let moved = T::__LOCK.root.filter(|_| beside).and_then(|root| {
            docmodel_shape::moved_lock(
                Path::new(root),
                T::__LOCK.model,
                T::TYPE,
                &T::SCHEMA.to_string(),
                T::TYPE_ALIASES,
            )
        });
        problems.push(match moved {
            Some((path, shape)) => LockProblem::Moved {
                version: T::SCHEMA,
                path,
                dir: dir.to_owned(),
                old_type: shape.type_name,
            },
            None => LockProblem::NotLocked {
                version: T::SCHEMA,
                dir: dir.to_owned(),
                written_by_check: matches!(written, Written::ByCheck),
            },
        });
    }
    for Locked { version, shape } in &locks {
        let version = *version;
        let changes = shape.compare(&now, T::TYPE_ALIASES);
        if version == T::SCHEMA {
            if !changes.is_empty() {
                problems.push(LockProblem::Changed { version, changes });
            }
        } else if version > T::SCHEMA {
            problems.push(LockProblem::Newer { version });
        } else {
            match route::<T>(version) {
                Route::Read if !changes.iter().all(Change::is_additive) => {
                    problems.push(LockProblem::NotAdditive { version, changes });
                }
                Route::Read | Route::Migrate(_) => {}
                Route::Unsupported => problems.push(LockProblem::Unreadable { version }),
                Route::TooNew => problems.push(LockProblem::Newer { version }),
            }
        }
        let sample = dir.join(format!("{version}.sample.json"));
        match std::fs::read(&sample) {
            Ok(bytes) => {
                if let Err(error) = crate::migrate::read::read::<T>(&bytes) {
                    problems.push(LockProblem::Sample {
                        version,
                        path: sample,
                        error: Box::new(error),
                    });
                }
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => problems.push(LockProblem::File {
                path: sample,
                reason: err.to_string(),
            }),
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(fail(problems))
    }
}

/// A fingerprint of model `T`'s stored shape at its version: 16 hex digits of a hash of its stored fields,
/// each one's stored name, type, whether it is required and the names it is read from (in the order of
/// their stored names: the Rust names and the order of the fields are not the stored shape). What
/// [`Repo::ensure_schema`](crate::Repo::ensure_schema) records in the store beside the shape itself, which
/// it compares as [`check`] does (the structs the body holds included, where both programs know them).
pub fn fingerprint<T: DocModel>() -> String {
    current::<T>().fingerprint()
}
