//! [`CouchbaseBuilder`]: a store's connection settings, and the connection.

use std::sync::Arc;
use std::time::Duration;

use couchbase::authenticator::PasswordAuthenticator;
use couchbase::cluster::Cluster;
use couchbase::options::cluster_options::ClusterOptions;

use super::errors::{Operation, within};
use super::{Couchbase, DEFAULT_TIMEOUT, QueryConsistency};
use crate::find::sqlpp::Keyspace;
use crate::{Durability, Error};

/// Connection settings for a [`Couchbase`] store: [`Couchbase::builder`]. Its `Debug` shows the user, not
/// the password.
#[derive(Clone)]
#[must_use]
pub struct CouchbaseBuilder {
    connection: String,
    bucket: String,
    scope: String,
    collection: String,
    credentials: Option<(String, String)>,
    durability: Durability,
    consistency: QueryConsistency,
    timeout: Duration,
}

impl std::fmt::Debug for CouchbaseBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CouchbaseBuilder")
            .field("connection", &self.connection)
            .field("bucket", &self.bucket)
            .field("scope", &self.scope)
            .field("collection", &self.collection)
            .field("user", &self.credentials.as_ref().map(|(user, _)| user))
            .field("durability", &self.durability)
            .field("consistency", &self.consistency)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl CouchbaseBuilder {
    /// Settings for a store on `bucket` of the cluster at `connection`, in its `_default` scope and
    /// collection ([`Couchbase::builder`]).
    pub(super) fn new(connection: String, bucket: String) -> Self {
        CouchbaseBuilder {
            connection,
            bucket,
            scope: "_default".into(),
            collection: "_default".into(),
            credentials: None,
            durability: Durability::None,
            consistency: QueryConsistency::RequestPlus,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// The user and password to sign in with (Couchbase's role-based access).
    pub fn credentials(mut self, user: impl Into<String>, password: impl Into<String>) -> Self {
        self.credentials = Some((user.into(), password.into()));
        self
    }

    /// The scope of the collection; `_default` unless set.
    pub fn scope(mut self, scope: impl Into<String>) -> Self {
        self.scope = scope.into();
        self
    }

    /// The collection the documents are kept in; `_default` unless set.
    pub fn collection(mut self, collection: impl Into<String>) -> Self {
        self.collection = collection.into();
        self
    }

    /// The durability every write of the store asks for at least; [`Durability::None`] unless set. A write
    /// that asks for more ([`WriteOptions::durability`](crate::store::WriteOptions::durability), [`Repo::durability`](crate::Repo::durability)) gets
    /// the stronger of the two.
    pub fn durability(mut self, durability: Durability) -> Self {
        self.durability = durability;
        self
    }

    /// How long one operation may take (10 s unless set). A read that takes longer is a
    /// [`Transient`](crate::StoreErrorKind::Transient) failure; a write,
    /// [`Ambiguous`](crate::StoreErrorKind::Ambiguous), since it may have reached the server.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How current the documents the store's queries see are; [`QueryConsistency::RequestPlus`] unless
    /// set.
    pub fn query_consistency(mut self, consistency: QueryConsistency) -> Self {
        self.consistency = consistency;
        self
    }

    /// Connects to the cluster and opens the collection.
    ///
    /// Fails with a permanent [`Error::Store`] without credentials or when the connection string is not
    /// one, and with the SDK's error, classed, when the cluster refuses or cannot be reached in time.
    pub async fn connect(self) -> Result<Couchbase, Error> {
        // Boxed, as every operation is (`operation`): the SDK's connection future nests deeply.
        super::operation(async move {
            let label = format!(
                "{}/{}/{}/{}",
                self.connection, self.bucket, self.scope, self.collection
            );
            let Some((user, password)) = self.credentials else {
                return Err(Error::store(
                    &label,
                    "Couchbase needs a user and password: `Couchbase::builder(..).credentials(user, password)`",
                ));
            };
            let options = ClusterOptions::new(PasswordAuthenticator::new(user, password).into());
            let cluster = within(
                self.timeout,
                Operation::Read,
                &label,
                Cluster::connect(&self.connection, options),
            )
            .await?;
            let scope = cluster.bucket(&self.bucket).scope(&self.scope);
            let collection = scope.collection(&self.collection);
            Ok(Couchbase {
                cluster,
                scope,
                collection,
                keyspace: Keyspace {
                    bucket: self.bucket,
                    scope: self.scope,
                    collection: self.collection,
                },
                durability: self.durability,
                consistency: self.consistency,
                own_writes: Arc::default(),
                timeout: self.timeout,
            })
        })
        .await
    }
}
