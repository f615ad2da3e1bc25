//! [`Repo::ensure_schema`]: each version's stored shape recorded in the store, so that two programs sharing
//! it cannot hold one version to two shapes.

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::Repo;
use crate::store::Store;
use crate::{DocModel, Error};

/// The key of the record of model `T`'s shape at its version: `docmodel::schema::user::3.0`, whatever the
/// model's delimiter, so that every program's models of one type meet at one key.
pub(crate) fn record_key<T: DocModel>() -> String {
    format!("docmodel::schema::{}::{}", T::TYPE, T::SCHEMA)
}

impl<T, S> Repo<T, S>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    /// Records the model's stored shape at its schema version in the store, or checks it against the one
    /// recorded there: for programs that share a store, each at deploy time. The record is a small document
    /// under `docmodel::schema::<type>::<version>` holding the shape as the model's lock records it (its
    /// fields, the names each is read from, and with the feature `json-schema` the structs the body holds)
    /// and its fingerprint ([`lock::fingerprint`](crate::lock::fingerprint)).
    ///
    /// Fails with [`Error::SchemaMismatch`], naming the type, the version, both fingerprints and what
    /// changed, when the store already holds another shape for the same version (compared as
    /// [`lock::check`](crate::lock::check) compares a lock): another program changed the struct without
    /// bumping the version (or this one did). Another program's older or newer version is its own record,
    /// and fine. Nothing is written then.
    ///
    /// ```
    /// # use docmodel::{DocModel, Repo, store::MemoryStore};
    /// # #[derive(serde::Serialize, serde::Deserialize, DocModel)]
    /// # #[docmodel(type = "user", schema = "3.0", key = "user::{id}")]
    /// # struct User { id: u64 }
    /// # pollster::block_on(async {
    /// let users = Repo::<User>::new(MemoryStore::new());
    /// users.ensure_schema().await?; // records 3.0's shape
    /// users.ensure_schema().await?; // the same shape: fine
    /// # Ok::<(), docmodel::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn ensure_schema(&self) -> Result<(), Error> {
        crate::trace::operation!(self, "ensure_schema", T, {
            let key = record_key::<T>();
            let shape = crate::lock::current::<T>();
            let ours = shape.fingerprint();
            let bytes = serde_json::to_vec(&shape.record()).map_err(Error::codec)?;
            match self.aux().insert(&key, &bytes).await {
                Ok(_) => return Ok(()),
                Err(Error::AlreadyExists { .. }) => {}
                Err(err) => return Err(err),
            }
            let stored = self.store.get(&key).await?;
            let recorded = stored
                .as_ref()
                .and_then(|stored| serde_json::from_slice::<serde_json::Value>(&stored.bytes).ok())
                .and_then(|value| {
                    let fingerprint = value.get("fingerprint")?.as_str()?.to_owned();
                    Some((fingerprint, docmodel_shape::Shape::from_json(&value).ok()?))
                });
            let Some((theirs, recorded)) = recorded else {
                return Err(Error::store(
                    &key,
                    "the record of this schema version holds no fingerprint and shape: something other than \
                     docmodel wrote it, or an earlier docmodel; remove it, and record the version again",
                ));
            };
            let changes = recorded.compare(&shape, T::TYPE_ALIASES);
            if theirs == ours && changes.is_empty() {
                return Ok(());
            }
            Err(Error::SchemaMismatch {
                type_name: T::TYPE,
                version: T::SCHEMA,
                recorded: theirs,
                ours,
                changes,
            })
        })
    }
}
