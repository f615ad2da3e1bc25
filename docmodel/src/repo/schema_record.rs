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
    /// under `docmodel::schema::<type>::<version>` holding the shape's
    /// fingerprint ([`lock::fingerprint`](crate::lock::fingerprint)) and its fields.
    ///
    /// Fails with [`Error::SchemaMismatch`], naming the type, the version and both fingerprints, when the
    /// store already holds another shape for the same version: another program changed the struct without
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
            let ours = crate::lock::fingerprint::<T>();
            let record = serde_json::json!({
                "docmodel": "schema",
                "model": T::TYPE,
                "schema": T::SCHEMA.to_string(),
                "fingerprint": ours,
                "fields": T::SHAPE.iter().map(|field| serde_json::json!({
                    "field": field.field(),
                    "stored": field.stored(),
                    "type": field.ty(),
                    "required": field.required(),
                })).collect::<Vec<_>>(),
            });
            let bytes = serde_json::to_vec(&record).map_err(Error::codec)?;
            match self.aux().insert(&key, &bytes).await {
                Ok(_) => return Ok(()),
                Err(Error::AlreadyExists { .. }) => {}
                Err(err) => return Err(err),
            }
            let stored = self.store.get(&key).await?;
            let recorded = stored
                .as_ref()
                .and_then(|stored| serde_json::from_slice::<serde_json::Value>(&stored.bytes).ok())
                .and_then(|value| value.get("fingerprint")?.as_str().map(str::to_owned));
            match recorded {
                Some(theirs) if theirs == ours => Ok(()),
                Some(theirs) => Err(Error::SchemaMismatch {
                    type_name: T::TYPE,
                    version: T::SCHEMA,
                    recorded: theirs,
                    ours,
                }),
                None => Err(Error::store(
                    &key,
                    "the record of this schema version holds no fingerprint: something other than \
                     docmodel wrote it; remove it, and record the version again",
                )),
            }
        })
    }
}
