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
    /// Installs the model's rules on a CouchDB database as the design document `_design/docmodel_<type>`,
    /// whose `validate_doc_update` function the server runs on every write, whoever makes it, so that every
    /// document the server accepts as the model's is one docmodel reads. The function is generated from what
    /// docmodel's reader decides by, and decides as it does: whether a document is the model's (its type, an
    /// alias, a legacy name, none at the model's key shape where the model adopts untyped documents, the root
    /// attribute), whether it is a revision copy (only under its copy key), whether every value reads (depth,
    /// numbers, text), which model of the migration chain reads its schema version (refusing one none reads,
    /// or a newer major), that `_ver` only grows, and the [JSON Schema](crate::json_schemas) of the model
    /// that reads it (a version a JSON step reads: its envelope). A refusal is `403 forbidden` naming the
    /// field and the rule, never the value; a write through a repository that the server refuses is an
    /// [`Error::Validation`] naming the field. Deletions and other models' documents pass.
    ///
    /// What the server cannot check stays with the client: the model's `validate` function, garde's rules, a
    /// text key part against the body, a field docmodel cannot see through (left open in the schema), the body
    /// of a version a JSON step reads, and revision copies. Numbers reach the function as doubles: past 2^53
    /// it refuses what it cannot tell from a number past the type's range (the README's "The schema other
    /// clients meet" says what that costs). Install it from the program that declares the newest version of
    /// the model: a function from an older program refuses newer documents; and run it at startup, since a
    /// database's admins can change a design document.
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
