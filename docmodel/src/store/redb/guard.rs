//! The damaged-file guard: [`Engine`] holds the database and runs every call into redb under
//! `catch_unwind` ([`Engine::guard`]), marking the handle damaged once redb panics; [`FileError`] and the
//! functions here make the permanent errors that name the file.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::OnceLock;

use redb::Database;

use crate::{Error, StoreErrorKind};

/// The database, shared by a handle's clones, and whether redb panicked on it.
pub(super) struct Engine {
    /// Always `Some` until [`Engine`] is dropped, which closes it under `catch_unwind`.
    pub(super) db: Option<Database>,
    /// The file, or `None` for a store in memory.
    pub(super) path: Option<PathBuf>,
    /// `redb file `<path>``, or `redb store in memory`: what errors about the database as a whole name.
    pub(super) label: String,
    /// What redb's panic said, once it panicked: the file looks damaged, and redb is not called again.
    pub(super) damaged: OnceLock<String>,
}

impl Engine {
    pub(super) fn db(&self) -> &Database {
        self.db
            .as_ref()
            .expect("the database is taken out only when the engine is dropped")
    }

    /// Runs `op`, which calls into redb, at the store's boundary: a panic inside it marks the engine
    /// damaged and is a typed error, as is any call once it is; an error of redb's saying the file is
    /// corrupted names the file.
    pub(super) fn guard<T>(
        &self,
        key: Option<&str>,
        op: impl FnOnce() -> Result<T, Error>,
    ) -> Result<T, Error> {
        if let Some(panic) = self.damaged.get() {
            return Err(self.damaged_error(key, panic));
        }
        match catch(op) {
            Ok(result) => result.map_err(|err| self.name_file(err)),
            Err(panic) => {
                // Of two threads panicking at once, the first message is kept: either says the same.
                let panic = self.damaged.get_or_init(|| panic);
                Err(self.damaged_error(key, panic))
            }
        }
    }

    fn damaged_error(&self, key: Option<&str>, panic: &str) -> Error {
        file_error(
            key,
            FileError {
                label: self.label.clone(),
                problem: format!(
                    "looks damaged: redb panicked ({panic}); this handle no longer reads or writes it"
                ),
                source: None,
            },
        )
    }

    /// `err`, naming the file if redb reports it corrupted or failing to read or write it: a document's key
    /// alone would not say which file to look at.
    fn name_file(&self, err: Error) -> Error {
        let Error::Store { key, kind, source } = err else {
            return err;
        };
        let problem = match source.downcast_ref::<redb::Error>() {
            Some(redb::Error::Corrupted(_)) => "looks damaged",
            Some(redb::Error::Io(_) | redb::Error::PreviousIo) => "could not be read or written",
            _ => return Error::Store { key, kind, source },
        };
        Error::Store {
            key,
            kind,
            source: Box::new(FileError {
                label: self.label.clone(),
                problem: problem.to_owned(),
                source: source.downcast::<redb::Error>().ok().map(|source| *source),
            }),
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Some(db) = self.db.take() {
            // Closing writes to the file, and redb has panicked closing a damaged one (cberner/redb#1303);
            // a drop has no error to return. A close that panics is a crash to the file: the next open
            // recovers the last durable commit (an eventual handle's later writes are lost, as in a crash)
            // and its integrity check reports the damage.
            let _ = catch(move || drop(db));
        }
    }
}

/// Runs `op`, which calls into redb, giving back what a panic inside it said instead of unwinding further.
///
/// `AssertUnwindSafe`: what a panic leaves half done is redb's state, which the caller never touches again
/// (it marks the engine damaged), and nothing of the caller's.
pub(super) fn catch<T>(op: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(op)).map_err(|payload| match payload.downcast::<String>() {
        Ok(message) => *message,
        Err(payload) => payload
            .downcast_ref::<&str>()
            .map_or("a panic without a message", |message| message)
            .to_owned(),
    })
}

/// What is wrong with the file as a whole (or the store in memory): what an [`Error::Store`] about it holds.
#[derive(Debug)]
pub(super) struct FileError {
    /// `redb file `<path>``, or `redb store in memory`.
    pub(super) label: String,
    pub(super) problem: String,
    pub(super) source: Option<redb::Error>,
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the {} {}", self.label, self.problem)?;
        match &self.source {
            Some(source) => write!(f, ": {source}"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for FileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_ref()
            .map(|source| source as &(dyn std::error::Error + 'static))
    }
}

/// A permanent store error about the file, for the document `key` (`None` at open: it is about no document).
pub(super) fn file_error(key: Option<&str>, error: FileError) -> Error {
    Error::Store {
        key: key.map(str::to_owned),
        kind: StoreErrorKind::Permanent,
        source: Box::new(error),
    }
}

/// What opening the file (or making its tables) failed with, naming the file.
pub(super) fn opening(label: &str, err: impl Into<redb::Error>) -> Error {
    let err = err.into();
    let problem = match err {
        redb::Error::DatabaseAlreadyOpen => {
            "is open elsewhere (by another `Redb` in this process, or by another process); close it there \
             first"
        }
        redb::Error::Corrupted(_) => "looks damaged",
        _ => "could not be opened",
    };
    file_error(
        None,
        FileError {
            label: label.to_owned(),
            problem: problem.to_owned(),
            source: Some(err),
        },
    )
}
