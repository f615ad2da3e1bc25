//! [`Repo::ensure_validation`]: the model's schemas enforced by the server, for every client that writes.

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::Repo;
use crate::json_schema::couchdb::{design_name, validate_function};
use crate::store::Store;
use crate::trace::operation;
use crate::{DocModel, Error};

impl<T, S> Repo<T, S>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    /// Installs the model's schemas ([`json_schemas`](crate::json_schemas)) on a CouchDB database as the
    /// design document `_design/docmodel_<type>`, whose `validate_doc_update` function the server runs on
    /// every write, whoever makes it: a document of the model's type is refused (`403 forbidden`, naming the
    /// field) when its stored shape breaks the schema of its version (a wrong JSON type, a missing field),
    /// when its schema version is newer than the model's major, or when its `_ver` is lower than the
    /// document's before. Other documents (other models, lookups, counters, docmodel's revision copies) and
    /// deletions pass untouched. A refused write through a repository is an [`Error::Validation`] naming the
    /// field.
    ///
    /// What the server cannot check stays with the client: the model's `validate` function, garde's rules,
    /// a key that matches the body, a field docmodel cannot see through (left open in the schema). Install it
    /// from the program that declares the newest version of the model: a function from an older program
    /// refuses newer documents.
    ///
    /// Returns `true` when it wrote the design document, `false` when it was installed as it is already
    /// (installing again writes nothing). On a store that runs no validation of its own (MemoryStore, Redb,
    /// Couchbase) it is an [`Unsupported`](crate::StoreErrorKind::Unsupported) store error: there docmodel's
    /// own writes are the only ones it sees validated.
    pub async fn ensure_validation(&self) -> Result<bool, Error> {
        operation!(self, "ensure_validation", T, {
            self.store
                .ensure_validation(&design_name::<T>(), &validate_function::<T>())
                .await
        })
    }
}
