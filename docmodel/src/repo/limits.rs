//! How large and how deep a document a repository writes may be.

use std::fmt;

use crate::Error;

/// How deep a document nests, counting the document itself, that every docmodel reader reads.
pub(crate) const READABLE_DEPTH: usize = crate::codec::MAX_DEPTH;

/// The largest and deepest document a [`Repo`](crate::Repo) writes ([`Repo::limits`](crate::Repo::limits)).
/// A write of a document past either is [`Error::OverLimit`], and nothing is written.
///
/// The defaults:
/// - [`max_bytes`](Limits::max_bytes): 20 MiB (20,971,520 bytes), the largest value Couchbase stores. A
///   CouchDB server refuses documents over its own `max_document_size` (8,000,000 bytes unless configured);
///   a repository on one does well to set a limit under it, leaving room for the `_id` and `_rev` the store
///   adds to each document it sends: `Limits::default().max_bytes(7_990_000)`.
/// - [`max_depth`](Limits::max_depth): 127 levels, counting the document itself: the deepest document
///   docmodel reads back. It is also the most a repository allows: a document nested deeper could be
///   written but never read.
///
/// ```
/// use docmodel::{DocModel, Error, Limit, Limits, Repo, store::MemoryStore};
/// # use serde::{Deserialize, Serialize};
///
/// #[derive(Debug, Serialize, Deserialize, DocModel)]
/// #[docmodel(type = "note", schema = "1.0", key = "note::{id}")]
/// struct Note {
///     id: u64,
///     text: String,
/// }
///
/// # pollster::block_on(async {
/// let store = MemoryStore::new();
/// let notes = Repo::<Note>::new(&store).limits(Limits::default().max_bytes(1024));
/// notes.insert(Note { id: 1, text: "short".into() }).await?;
///
/// let err = notes.insert(Note { id: 2, text: "x".repeat(2000) }).await.unwrap_err();
/// let Error::OverLimit { limit: Limit::Bytes, found, max: 1024, .. } = err else { panic!("{err}") };
/// let said = "over the limit of 1024 (`Limits::max_bytes`); nothing was written";
/// assert_eq!(err.to_string(), format!("document `note::2` is {found} bytes, {said}"));
/// assert_eq!(store.keys(), ["note::1"]);
/// # Ok::<(), docmodel::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Limits {
    max_bytes: usize,
    max_depth: usize,
}

impl Limits {
    /// The defaults: 20 MiB, 127 levels.
    pub const DEFAULT: Limits = Limits {
        max_bytes: 20 * 1024 * 1024,
        max_depth: READABLE_DEPTH,
    };

    /// The largest stored JSON a repository writes, in bytes.
    #[must_use]
    pub const fn max_bytes(mut self, bytes: usize) -> Self {
        self.max_bytes = bytes;
        self
    }

    /// The deepest a document a repository writes may nest, counting the document itself (a document
    /// with a field holding an array is 2 deep). At most 127, the deepest document docmodel reads: a larger
    /// value is taken as 127.
    #[must_use]
    pub const fn max_depth(mut self, levels: usize) -> Self {
        self.max_depth = if levels < READABLE_DEPTH {
            levels
        } else {
            READABLE_DEPTH
        };
        self
    }

    /// The largest stored JSON a repository writes, in bytes.
    pub const fn bytes(&self) -> usize {
        self.max_bytes
    }

    /// The deepest a document a repository writes may nest.
    pub const fn depth(&self) -> usize {
        self.max_depth
    }

    /// Checks the stored JSON of the document under `key`, `len` bytes nesting `depth` levels deep (as
    /// its writer counted them), against the limits.
    pub(crate) fn check(&self, key: &str, len: usize, depth: usize) -> Result<(), Error> {
        let over = |limit, found, max| Error::OverLimit {
            key: key.to_owned(),
            limit,
            found,
            max,
        };
        if len > self.max_bytes {
            return Err(over(Limit::Bytes, len, self.max_bytes));
        }
        if depth > self.max_depth {
            return Err(over(Limit::Depth, depth, self.max_depth));
        }
        Ok(())
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// Which of a repository's [`Limits`] a document is over ([`Error::OverLimit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Limit {
    /// [`Limits::max_bytes`]: the stored JSON's length.
    Bytes,
    /// [`Limits::max_depth`]: how deep it nests.
    Depth,
}

impl Limit {
    /// How a document's size under this limit reads: `is 2047 bytes`, `nests 200 levels deep`.
    pub(crate) fn describe(self, found: usize) -> Described {
        Described { limit: self, found }
    }

    /// The setting of [`Limits`] that sets this limit.
    pub(crate) fn setting(self) -> &'static str {
        match self {
            Limit::Bytes => "Limits::max_bytes",
            Limit::Depth => "Limits::max_depth",
        }
    }
}

/// A document's size under a limit, as an error message says it.
pub(crate) struct Described {
    limit: Limit,
    found: usize,
}

impl fmt::Display for Described {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.limit {
            Limit::Bytes => write!(f, "is {} bytes", self.found),
            Limit::Depth => write!(f, "nests {} levels deep", self.found),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::depth_of as depth;

    /// The check of a repository's write of `text`, with its depth counted by reading it.
    fn check(limits: &Limits, key: &str, text: &[u8]) -> Result<(), Error> {
        limits.check(key, text.len(), depth(text))
    }

    #[test]
    fn the_deepest_document_written_is_read_and_one_deeper_is_not() {
        let nested = |levels: usize| {
            let inner = levels - 1;
            format!(r#"{{"a":{}{}}}"#, "[".repeat(inner), "]".repeat(inner))
        };
        let limits = Limits::default();
        let deepest = nested(limits.depth());
        assert_eq!(depth(deepest.as_bytes()), READABLE_DEPTH);
        assert!(check(&limits, "k", deepest.as_bytes()).is_ok());
        assert!(crate::codec::strict_object(deepest.as_bytes()).is_ok());
        assert!(serde_json::from_str::<serde_json::Value>(&deepest).is_ok());

        let deeper = nested(limits.depth() + 1);
        let err = check(&limits, "k", deeper.as_bytes()).unwrap_err();
        assert!(serde_json::from_str::<serde_json::Value>(&deeper).is_err());
        assert!(crate::codec::strict_object(deeper.as_bytes()).is_err());
        assert_eq!(
            err.to_string(),
            "document `k` nests 128 levels deep, over the limit of 127 (`Limits::max_depth`); nothing \
             was written"
        );
    }

    #[test]
    fn limits_past_what_reads_are_taken_as_what_reads() {
        assert_eq!(Limits::default().max_depth(1000).depth(), READABLE_DEPTH);
        assert_eq!(Limits::default().max_depth(3).depth(), 3);
        let limits = Limits::default().max_depth(2).max_bytes(20);
        assert!(check(&limits, "k", br#"{"a":[1]}"#).is_ok());
        assert!(matches!(
            check(&limits, "k", br#"{"a":[[1]]}"#),
            Err(Error::OverLimit {
                limit: Limit::Depth,
                found: 3,
                max: 2,
                ..
            })
        ));
        assert!(matches!(
            check(&limits, "k", br#"{"a":"twenty-one bytes"}"#),
            Err(Error::OverLimit {
                limit: Limit::Bytes,
                found: 24,
                max: 20,
                ..
            })
        ));
    }
}
