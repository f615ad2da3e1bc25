//! The schema lock: the stored shape of each schema version of a model, kept in files beside the model's
//! source, so that a struct changed without a version bump is caught.
//!
//! The files are `docmodel-locks/<file>/<Model>/<version>.json` in the directory of the file the model is
//! written in (`src/docmodel-locks/models/User/3.0.json` for `User` in `src/models.rs`). Each lists the
//! stored fields of its version (Rust name, stored name, type as written, whether a document without it
//! reads) and, with the feature `json-schema`, the shapes of the structs the body holds (the JSON Schema's
//! `$defs`), with an optional `<version>.sample.json` beside it: a document of that version. They are
//! written by [`check`] (and [`check_with_sample`]) when the environment variable `DOCMODEL_BLESS` is `1`,
//! and are meant to be committed.
//!
//! Three checks hold a version to its lock:
//!
//! - **At compile time**, the derive compares the model with the lock of the version it declares, and fails at
//!   `schema = "..."` naming each change (a field added, removed, renamed, its type changed, made required)
//!   and the fix. The lock is part of the build: editing it rebuilds the model.
//! - **At test time**, [`check`] does the same for every locked version, by docmodel's read rules: the
//!   current version must match its lock; an older minor version that is read without a step may differ
//!   only by fields added that read when missing (`Option`, `Presence`, `#[serde(default)]`); every locked
//!   version must still be read (a step from it, or an older model's); and each sample is read through
//!   the chain.
//! - **At deploy time**, [`Repo::ensure_schema`](crate::Repo::ensure_schema) records each version's shape
//!   fingerprint in the store, and refuses a program whose shape differs for the same version.
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

mod changes;

use crate::{Doc, DocModel, SchemaVersion};
pub use changes::Change;
use changes::{changes, defs_changes};

/// The environment variable that makes [`check`] write the locks: `DOCMODEL_BLESS=1 cargo test`.
pub const BLESS: &str = "DOCMODEL_BLESS";

/// One stored field of a model, as its lock records it: what the derive writes as
/// [`DocModel::SHAPE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldShape {
    field: &'static str,
    stored: &'static str,
    ty: &'static str,
    required: bool,
    reads: &'static [&'static str],
}

impl FieldShape {
    /// The field `field` (its Rust name), stored as `stored`, of type `ty` as written, which a document must
    /// hold (`required`) or may leave out.
    pub const fn new(
        field: &'static str,
        stored: &'static str,
        ty: &'static str,
        required: bool,
    ) -> Self {
        FieldShape {
            field,
            stored,
            ty,
            required,
            reads: &[],
        }
    }

    /// Read from `names` too (`alias`, `rename(deserialize = ...)`): every name it is read from, where
    /// that is not just the one it is stored under.
    pub const fn reads(mut self, names: &'static [&'static str]) -> Self {
        self.reads = names;
        self
    }

    /// The names it is read from, where they are not just [`stored`](FieldShape::stored); empty otherwise.
    pub fn read_names(&self) -> &'static [&'static str] {
        self.reads
    }

    /// The Rust field's name.
    pub fn field(&self) -> &'static str {
        self.field
    }

    /// The name it is stored under.
    pub fn stored(&self) -> &'static str {
        self.stored
    }

    /// Its type, as written.
    pub fn ty(&self) -> &'static str {
        self.ty
    }

    /// Whether a document without it does not read.
    pub fn required(&self) -> bool {
        self.required
    }
}

/// A field as a lock file records it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Recorded {
    field: String,
    stored: String,
    #[serde(rename = "type")]
    ty: String,
    required: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    reads: Vec<String>,
}

impl Recorded {
    /// The names it is read from.
    fn read_names(&self) -> Vec<String> {
        match self.reads.is_empty() {
            true => vec![self.stored.clone()],
            false => self.reads.clone(),
        }
    }
}

impl From<&FieldShape> for Recorded {
    fn from(shape: &FieldShape) -> Self {
        Recorded {
            field: shape.field.to_owned(),
            stored: shape.stored.to_owned(),
            ty: shape.ty.to_owned(),
            required: shape.required,
            reads: shape.reads.iter().map(|name| (*name).to_owned()).collect(),
        }
    }
}

/// A lock file.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct LockFile {
    #[serde(rename = "type")]
    type_name: String,
    schema: String,
    fields: Vec<Recorded>,
    /// The shapes of the structs the body holds (`Embedded` ones, by name), from the model's JSON Schema:
    /// written with the feature `json-schema`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    defs: Option<serde_json::Map<String, serde_json::Value>>,
}

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
            LockProblem::NotLocked { version } => write!(
                f,
                "{version} is not locked: write its lock with `{BLESS}=1 cargo test`, and commit it"
            ),
            LockProblem::Changed { version, changes } => write!(
                f,
                "{version} is locked with another stored shape: {}; bump the version (a minor for fields \
                 added that read when missing, else a major with a step from {version}), or, if {version} \
                 was never released, write its lock again with `{BLESS}=1 cargo test`",
                listed(changes)
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
            LockProblem::Sample { version, error } => {
                write!(f, "the sample document of {version} does not read: {error}")
            }
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

/// A locked version: its fields, and the shapes of the structs its body holds where the lock has them.
type Locked = (
    SchemaVersion,
    Vec<Recorded>,
    Option<serde_json::Map<String, serde_json::Value>>,
    String,
);

/// The locks in `dir`: each locked version.
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
        let file: LockFile = serde_json::from_str(&text)
            .map_err(|err| file_problem(format!("not a lock: {err}")))?;
        locks.push((version, file.fields, file.defs, file.type_name));
    }
    locks.sort_by_key(|(version, ..)| *version);
    Ok(locks)
}

/// The model's shape, as a lock records it.
fn current<T: DocModel>() -> Vec<Recorded> {
    T::SHAPE.iter().map(Recorded::from).collect()
}

/// The text of model `T`'s lock: one field per line, for diffs.
fn lock_text<T: DocModel>() -> String {
    let mut text = format!(
        "{{\n  \"type\": {},\n  \"schema\": {},\n  \"fields\": [\n",
        serde_json::Value::from(T::TYPE),
        serde_json::Value::from(T::SCHEMA.to_string())
    );
    let fields = current::<T>();
    for (at, field) in fields.iter().enumerate() {
        let line = serde_json::to_string(field).unwrap_or_default();
        let comma = if at + 1 < fields.len() { "," } else { "" };
        text.push_str(&format!("    {line}{comma}\n"));
    }
    text.push_str("  ]");
    if let Some(defs) = current_defs::<T>() {
        let defs = serde_json::to_string_pretty(&defs).unwrap_or_default();
        text.push_str(",\n  \"defs\": ");
        text.push_str(&defs.replace('\n', "\n  "));
    }
    text.push_str("\n}\n");
    text
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
                error: Box::new(error),
            }],
        })?;
    run::<T>(Some(bytes))
}

/// [`check`] of the locks in `dir`, rather than beside the model: for locks kept elsewhere, and tests. It
/// only checks: `DOCMODEL_BLESS` writes nothing here.
pub fn check_at<T: DocModel + DeserializeOwned>(dir: impl AsRef<Path>) -> Result<(), LockError> {
    verify::<T>(dir.as_ref())
}

fn run<T: DocModel + DeserializeOwned>(sample: Option<String>) -> Result<(), LockError> {
    let fail = |problems| LockError {
        type_name: T::TYPE,
        problems,
    };
    let Some(dir) = T::LOCK_DIR.map(Path::new) else {
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
    verify::<T>(dir)
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
    let current_lock = locked(dir)?
        .into_iter()
        .find(|(locked, ..)| *locked == T::SCHEMA);
    let same = current_lock.is_some_and(|(_, fields, defs, type_name)| {
        let mut changes = changes(&fields, &current::<T>());
        if type_name != T::TYPE && !T::TYPE_ALIASES.contains(&type_name.as_str()) {
            changes.push(Change::TypeRenamed {
                from: type_name,
                to: T::TYPE.to_owned(),
            });
        }
        if let (Some(defs), Some(now)) = (defs, current_defs::<T>()) {
            changes.extend(defs_changes(&defs, &now));
        }
        changes.is_empty()
    });
    if !same {
        write(dir.join(format!("{version}.json")), &lock_text::<T>())?;
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
fn verify<T: DocModel + DeserializeOwned>(dir: &Path) -> Result<(), LockError> {
    let fail = |problems| LockError {
        type_name: T::TYPE,
        problems,
    };
    let locks = locked(dir).map_err(|problem| fail(vec![problem]))?;
    let now = current::<T>();
    let now_defs = current_defs::<T>();
    let mut problems = Vec::new();
    if !locks.iter().any(|(version, ..)| *version == T::SCHEMA) {
        problems.push(LockProblem::NotLocked { version: T::SCHEMA });
    }
    for (version, fields, defs, type_name) in &locks {
        let mut changes = changes(fields, &now);
        // A type renamed with its old name kept as an alias still reads its documents.
        if type_name != T::TYPE && !T::TYPE_ALIASES.contains(&type_name.as_str()) {
            changes.insert(
                0,
                Change::TypeRenamed {
                    from: type_name.clone(),
                    to: T::TYPE.to_owned(),
                },
            );
        }
        // The structs the body holds, where both the lock and this build know their shapes.
        if let (Some(locked_defs), Some(now_defs)) = (defs, &now_defs) {
            changes.extend(defs_changes(locked_defs, now_defs));
        }
        if *version == T::SCHEMA {
            if !changes.is_empty() {
                problems.push(LockProblem::Changed {
                    version: *version,
                    changes,
                });
            }
        } else if *version > T::SCHEMA {
            problems.push(LockProblem::Newer { version: *version });
        } else {
            match route::<T>(*version) {
                Route::Read if !changes.iter().all(Change::is_additive) => {
                    problems.push(LockProblem::NotAdditive {
                        version: *version,
                        changes,
                    });
                }
                Route::Read | Route::Migrate(_) => {}
                Route::Unsupported => problems.push(LockProblem::Unreadable { version: *version }),
                Route::TooNew => problems.push(LockProblem::Newer { version: *version }),
            }
        }
        let sample = dir.join(format!("{version}.sample.json"));
        match std::fs::read(&sample) {
            Ok(bytes) => {
                if let Err(error) = crate::migrate::read::read::<T>(&bytes) {
                    problems.push(LockProblem::Sample {
                        version: *version,
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

/// A fingerprint of model `T`'s stored shape at its version: 16 hex digits of a hash of its stored fields
/// (each one's stored name, type and whether it is required, in the order of their names: the Rust names
/// and the order of the fields are not the stored shape), which
/// [`Repo::ensure_schema`](crate::Repo::ensure_schema) records in the store.
pub fn fingerprint<T: DocModel>() -> String {
    let mut fields: Vec<(&str, &str, bool)> = T::SHAPE
        .iter()
        .map(|field| (field.stored, field.ty, field.required))
        .collect();
    fields.sort_unstable();
    let text = serde_json::to_string(&fields).unwrap_or_default();
    format!("{:016x}", crate::repo::partition::fnv1a64(text.as_bytes()))
}
