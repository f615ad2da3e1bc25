//! `Couchbase`: a store on one collection of a Couchbase cluster, through the official SDK.
//!
//! - `mod.rs`: the store and its key-value operations;
//! - `builder.rs`: its connection settings, and the connection;
//! - `query.rs`: SQL++ requests, read into statements on the store's collection, and their consistency;
//! - `errors.rs`: what a failed or unanswered SDK call is to docmodel;
//! - `options.rs`: the SDK's options of each write.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use couchbase::cluster::Cluster;
use couchbase::collection::Collection;
use couchbase::error::ErrorKind;
use couchbase::mutation_state::MutationState;
use couchbase::options::query_options::ScanConsistency;
use couchbase::results::kv_results::MutationResult;
use couchbase::scope::Scope;
use couchbase::subdoc::lookup_in_specs::{GetSpecOptions, LookupInSpec};
use couchbase::transcoding::{DataType, encode_common_flags};
use futures_util::{StreamExt as _, TryStreamExt as _, stream};

use serde_json::Value;

mod builder;
mod errors;
mod options;
mod query;

pub use self::builder::CouchbaseBuilder;
pub use self::query::QueryConsistency;

use self::errors::{Operation, within};
use self::options::{
    increment_options, insert_options, keeping, preserve_expiry_refused, remaining, remove_options,
    replace_options,
};
use self::query::{Row, scan_consistency, statement};
use super::{Capabilities, Cas, QueryLanguage, ScanPage, Store, Stored, WriteOptions};
use crate::Durability;
use crate::Error;
use crate::find::sqlpp::{Keyspace, keys};

/// How long an operation may take before it is given up, unless the builder says otherwise.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// How many key-value operations of one bulk call ([`Store::get_many`], [`Store::insert_many`]) are in flight
/// at once, as Couchbase's SDKs batch bulk work: enough to keep the connections busy, few enough that a large
/// batch does not queue thousands of requests whose timeouts all start at once.
const IN_FLIGHT: usize = 64;

/// A store on one collection of a Couchbase cluster (feature `couchbase`), through the official
/// [`couchbase`](https://docs.rs/couchbase) SDK; its futures need a Tokio runtime.
///
/// Documents are stored as JSON under their docmodel key, and Couchbase's CAS is the compare-and-swap
/// token. Counters are Couchbase's binary counters. Its key-value API lists no keys, so the store lists
/// them through SQL++ ([`Store::scan`]): keyset pages of `META().id` in byte order, served by the
/// collection's index `docmodel__keys`, which [`Repo::ensure_indexes`](crate::Repo::ensure_indexes) creates
/// (`CREATE INDEX IF NOT EXISTS`, Couchbase Server 7.0 or later for a named collection), at the store's
/// [`QueryConsistency`]. Whole-store work ([`Repo::migrate_all`](crate::Repo::migrate_all),
/// [`Repo::reindex`](crate::Repo::reindex), [`Repo::all`](crate::Repo::all)) then needs no key list.
///
/// Its query language is SQL++ ([`QueryLanguage::SqlPlusPlus`]): [`Repo::find`](crate::Repo::find),
/// [`count`](crate::Repo::count) and [`ensure_indexes`](crate::Repo::ensure_indexes) run as statements of
/// the query service on the store's collection, every value a named parameter, each query at the store's
/// [`QueryConsistency`] (by default, seeing every write made before it).
///
/// Written for Couchbase Server 7.0 or later (scopes and collections, SQL++ indexes on them). A replace keeps the
/// document's expiry ([`Expiry::Keep`](crate::Expiry::Keep)) through PreserveExpiry; on a server without it
/// (before 7.0) the store reads the expiry and sets it again, under the replace's compare-and-swap. A cluster
/// with no query service (its query service answers 501) makes every SQL++ operation an
/// [`Unsupported`](crate::StoreErrorKind::Unsupported) error naming it.
///
/// A value is one collection over one cluster connection, cheap to clone: clones, and the stores
/// [`Couchbase::collection`] and [`Couchbase::in_scope`] make for other collections and scopes of the bucket,
/// share the connection. [`Couchbase::repo`] opens a model's repository on the collection the model names
/// (`#[docmodel(collection = "users")]`).
///
/// ```no_run
/// # async fn run() -> Result<(), docmodel::Error> {
/// use docmodel::Durability;
/// use docmodel::store::Couchbase;
///
/// let store = Couchbase::builder("couchbase://127.0.0.1", "travel-sample")
///     .credentials("Administrator", "password")
///     .scope("inventory")
///     .collection("users")
///     .durability(Durability::Majority)
///     .connect()
///     .await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Couchbase {
    /// The cluster's connections, shared by every store made from this one ([`Couchbase::collection`],
    /// [`Couchbase::in_scope`]); the SDK closes them when the last `Cluster` goes.
    cluster: Cluster,
    /// Where the queries run: their keyspace names resolve in it.
    scope: Scope,
    collection: Collection,
    /// The collection's whole name, which the store writes into a statement's pieces.
    keyspace: Keyspace,
    durability: Durability,
    consistency: QueryConsistency,
    /// The mutation tokens of the writes this value and its clones made, newest per partition: what a query
    /// at [`QueryConsistency::OwnWrites`] waits for.
    own_writes: Arc<Mutex<MutationState>>,
    timeout: Duration,
}

impl std::fmt::Debug for Couchbase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Couchbase")
            .field("keyspace", &self.keyspace.to_string())
            .field("durability", &self.durability)
            .field("consistency", &self.consistency)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl Couchbase {
    /// The longest key Couchbase holds, in bytes: a longer one is [`Error::InvalidKey`] before any request.
    pub const MAX_KEY_BYTES: usize = 250;

    /// This store, its queries at `consistency`: for a repository of its own (it shares the connections,
    /// and the writes [`QueryConsistency::OwnWrites`] waits for).
    ///
    /// ```no_run
    /// # async fn run(store: docmodel::store::Couchbase) {
    /// use docmodel::store::QueryConsistency;
    /// // A dashboard that may lag behind by a moment, beside repositories that must not.
    /// let dashboard = store.with_query_consistency(QueryConsistency::NotBounded);
    /// # }
    /// ```
    #[must_use]
    pub fn with_query_consistency(&self, consistency: QueryConsistency) -> Couchbase {
        Couchbase {
            consistency,
            ..self.clone()
        }
    }

    /// A store on another collection of this store's scope, over this store's cluster connection: no
    /// connection is opened, so a store per collection costs a handle. Its settings (durability,
    /// consistency, timeout) are this store's, and so are the writes [`QueryConsistency::OwnWrites`] waits
    /// for: those of every store made from the same connection (their tokens are the bucket's).
    ///
    /// ```no_run
    /// # async fn run(store: docmodel::store::Couchbase) {
    /// let orders = store.collection("orders");
    /// let invoices = store.collection("invoices");
    /// # }
    /// ```
    #[must_use]
    pub fn collection(&self, collection: impl Into<String>) -> Couchbase {
        let scope = self.keyspace.scope.clone();
        self.in_scope(scope, collection)
    }

    /// A store on a collection of another scope of the same bucket (Couchbase 7's scopes keep tenants
    /// apart), over this store's cluster connection, as [`Couchbase::collection`].
    ///
    /// ```no_run
    /// # async fn run(store: docmodel::store::Couchbase) {
    /// let tenant = store.in_scope("tenant_42", "users");
    /// # }
    /// ```
    #[must_use]
    pub fn in_scope(&self, scope: impl Into<String>, collection: impl Into<String>) -> Couchbase {
        let keyspace = Keyspace {
            bucket: self.keyspace.bucket.clone(),
            scope: scope.into(),
            collection: collection.into(),
        };
        let scope = self.cluster.bucket(&keyspace.bucket).scope(&keyspace.scope);
        Couchbase {
            cluster: self.cluster.clone(),
            collection: scope.collection(&keyspace.collection),
            scope,
            keyspace,
            durability: self.durability,
            consistency: self.consistency,
            own_writes: Arc::clone(&self.own_writes),
            timeout: self.timeout,
        }
    }

    /// The repository of model `T` on the collection it names (`#[docmodel(collection = "users")]`) in this
    /// store's scope, or on this store's collection when it names none.
    ///
    /// ```no_run
    /// # async fn run(store: docmodel::store::Couchbase) {
    /// # #[derive(serde::Serialize, serde::Deserialize, docmodel::DocModel)]
    /// #[docmodel(type = "user", schema = "1.0", key = "user::{id}", collection = "users")]
    /// # #[docmodel(envelope(layout = "plain"))]
    /// struct User { id: u64 }
    ///
    /// // Each tenant's scope, the model's collection in it.
    /// let users = store.in_scope("tenant_42", "_default").repo::<User>();
    /// assert_eq!(users.store().collection_name(), "users");
    /// # }
    /// ```
    pub fn repo<T: crate::DocModel>(&self) -> crate::Repo<T, Couchbase> {
        let store = match T::COLLECTION {
            Some(collection) if collection != self.keyspace.collection => {
                self.collection(collection)
            }
            _ => self.clone(),
        };
        crate::Repo::new(store)
    }

    /// The bucket this store is on.
    pub fn bucket_name(&self) -> &str {
        &self.keyspace.bucket
    }

    /// The scope this store is on.
    pub fn scope_name(&self) -> &str {
        &self.keyspace.scope
    }

    /// The collection this store is on.
    pub fn collection_name(&self) -> &str {
        &self.keyspace.collection
    }

    /// Keeps the mutation token of a write, for [`QueryConsistency::OwnWrites`].
    fn wrote(&self, written: &MutationResult) {
        if let Some(token) = written.mutation_token() {
            let mut own = self
                .own_writes
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            *own = std::mem::take(&mut *own).push_token(token.clone());
        }
    }

    /// The SDK's scan consistency of a query now.
    fn scan_consistency(&self) -> ScanConsistency {
        let own_writes = self
            .own_writes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        scan_consistency(self.consistency, own_writes)
    }

    /// Settings for a store on `bucket` of the cluster at `connection` (`couchbase://host`, or
    /// `couchbases://host` for TLS), in its `_default` scope and collection until set otherwise.
    pub fn builder(connection: impl Into<String>, bucket: impl Into<String>) -> CouchbaseBuilder {
        CouchbaseBuilder::new(connection.into(), bucket.into())
    }

    /// Connects to `bucket`'s default collection of the cluster at `connection` as `user`.
    pub async fn connect(
        connection: impl Into<String>,
        user: impl Into<String>,
        password: impl Into<String>,
        bucket: impl Into<String>,
    ) -> Result<Couchbase, Error> {
        Couchbase::builder(connection, bucket)
            .credentials(user, password)
            .connect()
            .await
    }
}

/// Refuses a key Couchbase cannot hold, before any request.
fn check_key(key: &str) -> Result<(), Error> {
    let reason = if key.is_empty() {
        "Couchbase keys cannot be empty".to_owned()
    } else if key.len() > Couchbase::MAX_KEY_BYTES {
        format!(
            "Couchbase keys are at most {} bytes, and this one is {}",
            Couchbase::MAX_KEY_BYTES,
            key.len()
        )
    } else {
        return Ok(());
    };
    Err(Error::InvalidKey {
        model: "",
        key: key.to_owned(),
        reason,
    })
}

impl Store for Couchbase {
    async fn get(&self, key: &str) -> Result<Option<Stored>, Error> {
        operation(async move {
            check_key(key)?;
            match within(
                self.timeout,
                Operation::Read,
                key,
                self.collection.get(key, None),
            )
            .await
            {
                Ok(found) => {
                    let (bytes, _flags) = found.content_as_raw();
                    Ok(Some(Stored::new(bytes, Cas::from_u64(found.cas()))))
                }
                Err(Error::NotFound { .. }) => Ok(None),
                Err(err) => Err(err),
            }
        })
        .await
    }

    /// The reads run 64 at a time, in the keys' order.
    async fn get_many(&self, keys: &[&str]) -> Result<Vec<Option<Stored>>, Error> {
        operation(async move {
            // The futures collected first: a stream holding the closure would not be `Send` for every lifetime
            // of the keys, as the trait's future must be.
            let reads: Vec<_> = keys.iter().map(|key| self.get(key)).collect();
            stream::iter(reads).buffered(IN_FLIGHT).try_collect().await
        })
        .await
    }

    /// The inserts run 64 at a time, each with its own outcome, in the values' order: Couchbase
    /// has no bulk request, and one insert after another would wait for each answer in turn.
    async fn insert_many(
        &self,
        values: &[(&str, &[u8])],
        options: &WriteOptions,
    ) -> Vec<Result<Cas, Error>> {
        operation(async move {
            let inserts: Vec<_> = values
                .iter()
                .map(|(key, value)| self.insert_with(key, value, options))
                .collect();
            stream::iter(inserts).buffered(IN_FLIGHT).collect().await
        })
        .await
    }

    async fn insert_with(
        &self,
        key: &str,
        value: &[u8],
        options: &WriteOptions,
    ) -> Result<Cas, Error> {
        operation(async move {
            check_key(key)?;
            options.expiry.check(key)?;
            let written = within(
                self.timeout,
                Operation::Write,
                key,
                self.collection.insert_raw(
                    key,
                    value,
                    encode_common_flags(DataType::Json),
                    insert_options(self.durability, options),
                ),
            )
            .await?;
            self.wrote(&written);
            Ok(Cas::from_u64(written.cas()))
        })
        .await
    }

    async fn replace_with(
        &self,
        key: &str,
        value: &[u8],
        cas: &Cas,
        options: &WriteOptions,
    ) -> Result<Cas, Error> {
        operation(async move {
            check_key(key)?;
            options.expiry.check(key)?;
            let token = numeric(key, cas)?;
            let flags = encode_common_flags(DataType::Json);
            let replace = replace_options(self.durability, options, token);
            let replaced = async {
                match self
                    .collection
                    .replace_raw(key, value, flags, replace.clone())
                    .await
                {
                    // A server before 7.0 (no PreserveExpiry): the SDK refused the replace before sending
                    // it. The expiry is read and set again; a change in between fails the replace's CAS.
                    Err(err) if preserve_expiry_refused(err.kind()) => {
                        let expiry = self.expiry_of(key).await?;
                        self.collection
                            .replace_raw(key, value, flags, keeping(replace, expiry))
                            .await
                    }
                    replaced => replaced,
                }
            };
            let written = within(self.timeout, Operation::Write, key, replaced).await?;
            self.wrote(&written);
            Ok(Cas::from_u64(written.cas()))
        })
        .await
    }

    async fn remove_with(
        &self,
        key: &str,
        cas: Option<&Cas>,
        options: &WriteOptions,
    ) -> Result<(), Error> {
        operation(async move {
            check_key(key)?;
            let token = cas.map(|cas| numeric(key, cas)).transpose()?;
            let removed = within(
                self.timeout,
                Operation::Write,
                key,
                self.collection
                    .remove(key, remove_options(self.durability, options, token)),
            )
            .await?;
            self.wrote(&removed);
            Ok(())
        })
        .await
    }

    async fn counter(&self, key: &str, delta: u64) -> Result<u64, Error> {
        operation(async move {
            check_key(key)?;
            let counted = within(
                self.timeout,
                Operation::Write,
                key,
                self.collection
                    .binary()
                    .increment(key, increment_options(self.durability, delta)),
            )
            .await?;
            Ok(counted.content())
        })
        .await
    }

    /// One SQL++ statement ([`QueryLanguage::SqlPlusPlus`]), read-only, on the store's collection.
    async fn query(&self, query: &[u8]) -> Result<Vec<(String, Stored)>, Error> {
        operation(async move {
            let prepared = statement(query, &self.keyspace, self.scan_consistency())?;
            let label = self.keyspace.to_string();
            let rows = async {
                let options = prepared.options.read_only(true);
                let mut result = self.scope.query(prepared.text, options).await?;
                result.rows::<Row>().try_collect::<Vec<Row>>().await
            };
            let index = prepared.index.as_deref();
            let rows = within(self.timeout, Operation::Query { index }, &label, rows).await?;
            Ok(rows
                .into_iter()
                .map(|row| {
                    let bytes = row.doc.get().as_bytes().to_vec();
                    (row.id, Stored::new(bytes, Cas::from_u64(row.cas)))
                })
                .collect())
        })
        .await
    }

    /// The keys under `prefix`, a page at a time, through SQL++ over `META().id` (the index
    /// `docmodel__keys`, which [`Repo::ensure_indexes`](crate::Repo::ensure_indexes) creates). A listing
    /// sees every write made before it (`request_plus`), whatever the store's [`QueryConsistency`] but
    /// [`NotBounded`](QueryConsistency::NotBounded): a whole-store job run in a new process must not miss a
    /// document another program wrote a moment ago.
    async fn scan(&self, prefix: &str, page: ScanPage<'_>) -> Result<Vec<String>, Error> {
        operation(async move {
            self.list_keys(keys::prefix_page(prefix, page.after, page.limit))
                .await
        })
        .await
    }

    /// The keys `k` with `start <= k < end`, a page at a time, as [`Couchbase::scan`] lists them.
    async fn scan_range(
        &self,
        start: &str,
        end: &str,
        page: ScanPage<'_>,
    ) -> Result<Vec<String>, Error> {
        operation(async move {
            if start >= end {
                return Ok(Vec::new());
            }
            self.list_keys(keys::key_page(start, Some(end), page.after, page.limit))
                .await
        })
        .await
    }

    /// One SQL++ `CREATE INDEX IF NOT EXISTS` statement ([`QueryLanguage::SqlPlusPlus`]) on the store's
    /// collection.
    async fn create_index(&self, definition: &[u8]) -> Result<(), Error> {
        operation(async move {
            let prepared = statement(definition, &self.keyspace, self.scan_consistency())?;
            let label = self.keyspace.to_string();
            let created = async {
                match self.scope.query(prepared.text, prepared.options).await {
                    Ok(mut result) => result.rows::<Value>().try_collect::<Vec<Value>>().await,
                    // Made by another program since `IF NOT EXISTS` looked: left as it is.
                    Err(err) if matches!(err.kind(), ErrorKind::IndexExists) => Ok(Vec::new()),
                    Err(err) => Err(err),
                }
            };
            // A statement that may not have run runs again safely: `IF NOT EXISTS`.
            within(self.timeout, Operation::Read, &label, created).await?;
            Ok(())
        })
        .await
    }

    fn system(&self) -> &'static str {
        "couchbase"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::MINIMAL
            .with_expiry(true)
            .with_scan(true)
            .with_query(Some(QueryLanguage::SqlPlusPlus))
    }
}

impl Couchbase {
    /// What is left of the expiry of the document under `key`, in whole seconds (`None`: it does not
    /// expire), read from its metadata (`$document.exptime`) without its body.
    async fn expiry_of(&self, key: &str) -> couchbase::error::Result<Option<Duration>> {
        let spec = LookupInSpec::get("$document.exptime", GetSpecOptions::new().xattr(true));
        let found = self.collection.lookup_in(key, &[spec], None).await?;
        let expires_at: u64 = found.content_as(0)?;
        Ok(remaining(expires_at, std::time::SystemTime::now()))
    }

    /// The keys a statement of [`keys`] selects.
    async fn list_keys(
        &self,
        statement: crate::find::sqlpp::Statement,
    ) -> Result<Vec<String>, Error> {
        let request = statement.request()?;
        let consistency = match self.consistency {
            QueryConsistency::NotBounded => ScanConsistency::NotBounded,
            QueryConsistency::RequestPlus | QueryConsistency::OwnWrites => {
                ScanConsistency::RequestPlus
            }
        };
        let prepared = self::query::statement(&request, &self.keyspace, consistency)?;
        let label = self.keyspace.to_string();
        let rows = async {
            let options = prepared.options.read_only(true);
            let mut result = self.scope.query(prepared.text, options).await?;
            result.rows::<String>().try_collect::<Vec<String>>().await
        };
        let index = prepared.index.as_deref();
        within(self.timeout, Operation::Query { index }, &label, rows).await
    }
}

/// A store operation's future, boxed: the SDK's futures nest deeply, and held inline in the futures of
/// docmodel's repository they made a user's `async fn` with a few dozen store calls overflow the compiler's
/// default recursion limit when it computed their layout (issue 61). Behind the box, the operation's layout
/// is computed once, in docmodel, whatever holds its future; the cost is an allocation per operation, beside
/// the request's own.
fn operation<'a, T>(
    future: impl Future<Output = T> + Send + 'a,
) -> Pin<Box<dyn Future<Output = T> + Send + 'a>> {
    Box::pin(future)
}

/// Couchbase's CAS out of a token: one of another store's (a CouchDB revision) cannot name a Couchbase value.
fn numeric(key: &str, cas: &Cas) -> Result<u64, Error> {
    cas.as_u64().ok_or_else(|| {
        Error::store(
            key,
            format!("{cas:?} is not a Couchbase CAS; it came from another store"),
        )
    })
}

#[cfg(test)]
mod tests {
    use couchbase::durability_level::DurabilityLevel;

    use super::options::{level, whole_seconds};
    use super::*;
    use crate::{ErrorClass, Expiry};

    #[test]
    fn keys_over_250_bytes_are_refused_before_a_request() {
        assert!(check_key(&"k".repeat(250)).is_ok());
        let err = check_key(&"k".repeat(251)).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "invalid key {:?}: Couchbase keys are at most 250 bytes, and this one is 251",
                "k".repeat(251)
            )
        );
        // Bytes, not characters: 126 two-byte characters are 252 bytes.
        assert!(check_key(&"é".repeat(126)).is_err());
        assert!(check_key("").is_err());
    }

    #[test]
    fn options_carry_the_cas_the_durability_and_the_counters_start() {
        assert_eq!(level(Durability::None), None);
        assert_eq!(level(Durability::Majority), Some(DurabilityLevel::MAJORITY));
        assert_eq!(
            level(Durability::MajorityAndPersistActive),
            Some(DurabilityLevel::MAJORITY_AND_PERSIST_ACTIVE)
        );
        assert_eq!(
            level(Durability::PersistToMajority),
            Some(DurabilityLevel::PERSIST_TO_MAJORITY)
        );
        let plain = WriteOptions::DEFAULT;
        let insert = insert_options(Durability::Majority, &plain);
        assert_eq!(insert.durability_level, Some(DurabilityLevel::MAJORITY));
        assert_eq!(insert.expiry, None);
        let replace = replace_options(Durability::None, &plain, 42);
        assert_eq!(
            (replace.cas, replace.durability_level.clone()),
            (Some(42), None)
        );
        let remove = remove_options(Durability::PersistToMajority, &plain, Some(7));
        assert_eq!(
            (remove.cas, remove.durability_level.clone()),
            (Some(7), Some(DurabilityLevel::PERSIST_TO_MAJORITY))
        );
        assert_eq!(remove_options(Durability::None, &plain, None).cas, None);
        let counter = increment_options(Durability::None, 5);
        assert_eq!((counter.delta, counter.initial), (Some(5), Some(5)));
        assert_eq!(numeric("k", &Cas::from_u64(42)).unwrap(), 42);
        assert!(numeric("k", &Cas::from_revision("1-abc")).is_err());
    }

    #[test]
    fn a_write_gets_the_stronger_of_the_stores_and_its_own_durability() {
        let majority = WriteOptions::new().with_durability(Durability::Majority);
        let persist = WriteOptions::new().with_durability(Durability::PersistToMajority);
        assert_eq!(
            insert_options(Durability::None, &majority).durability_level,
            Some(DurabilityLevel::MAJORITY)
        );
        assert_eq!(
            replace_options(Durability::MajorityAndPersistActive, &majority, 1).durability_level,
            Some(DurabilityLevel::MAJORITY_AND_PERSIST_ACTIVE)
        );
        assert_eq!(
            remove_options(Durability::Majority, &persist, None).durability_level,
            Some(DurabilityLevel::PERSIST_TO_MAJORITY)
        );
    }

    #[test]
    fn a_replace_keeps_takes_away_or_sets_the_expiry_in_whole_seconds() {
        let with = |expiry| WriteOptions::new().with_expiry(expiry);
        let keep = replace_options(Durability::None, &with(Expiry::Keep), 1);
        assert_eq!((keep.preserve_expiry, keep.expiry), (Some(true), None));
        let never = replace_options(Durability::None, &with(Expiry::Never), 1);
        assert_eq!((never.preserve_expiry, never.expiry), (None, None));
        let after = replace_options(
            Durability::None,
            &with(Expiry::After(Duration::from_millis(1_500))),
            1,
        );
        assert_eq!(
            (after.preserve_expiry, after.expiry),
            (None, Some(Duration::from_secs(2))),
            "1.5 s is 2 s: a document never expires early"
        );
        let insert = insert_options(
            Durability::None,
            &with(Expiry::After(Duration::from_secs(1_800))),
        );
        assert_eq!(insert.expiry, Some(Duration::from_secs(1_800)));
        assert_eq!(
            insert_options(Durability::None, &with(Expiry::Never)).expiry,
            None
        );
        assert_eq!(
            whole_seconds(Duration::from_nanos(1)),
            Duration::from_secs(1)
        );
        assert_eq!(whole_seconds(Duration::MAX), Duration::from_secs(u64::MAX));
    }

    /// Issue 61: on a server without PreserveExpiry (before 7.0) the SDK refuses a replace that keeps the
    /// expiry; the store then sets the expiry it reads (the suite's `expiry` runs against such a mock).
    #[test]
    fn a_replace_without_preserve_expiry_sets_the_expiry_it_read() {
        use couchbase::error::InvalidArgumentErrorKind;
        let refused = ErrorKind::InvalidArgument(InvalidArgumentErrorKind::new(
            Some("preserve_expiry".to_owned()),
            "cannot use preserve expiry when its not enabled",
        ));
        assert!(preserve_expiry_refused(&refused));
        let other = ErrorKind::InvalidArgument(InvalidArgumentErrorKind::new(
            Some("expiry".to_owned()),
            "too large",
        ));
        assert!(!preserve_expiry_refused(&other));
        assert!(!preserve_expiry_refused(&ErrorKind::CasMismatch));

        let keep = replace_options(Durability::Majority, &WriteOptions::DEFAULT, 7);
        assert_eq!(keep.preserve_expiry, Some(true));
        let kept = keeping(keep.clone(), Some(Duration::from_secs(30)));
        assert_eq!(
            (kept.preserve_expiry, kept.expiry, kept.cas),
            (None, Some(Duration::from_secs(30)), Some(7))
        );
        assert_eq!(kept.durability_level, Some(DurabilityLevel::MAJORITY));
        let none = keeping(keep, None);
        assert_eq!((none.preserve_expiry, none.expiry), (None, None));

        let at = |secs: u64, nanos: u32| std::time::UNIX_EPOCH + Duration::new(secs, nanos);
        assert_eq!(remaining(0, at(1_000, 0)), None, "0: no expiry");
        assert_eq!(
            remaining(1_030, at(1_000, 999_000_000)),
            Some(Duration::from_secs(30)),
            "counted from the start of the second: never early"
        );
        assert_eq!(remaining(1_000, at(1_000, 0)), Some(Duration::from_secs(1)));
        assert_eq!(remaining(900, at(1_000, 0)), Some(Duration::from_secs(1)));
    }

    #[test]
    fn the_password_is_not_shown() {
        let builder =
            Couchbase::builder("couchbase://127.0.0.1", "app").credentials("admin", "s3cret");
        let shown = format!("{builder:?}");
        assert!(
            shown.contains("admin") && !shown.contains("s3cret"),
            "{shown}"
        );
    }

    #[tokio::test]
    async fn connecting_without_credentials_is_refused_before_a_request() {
        let err = Couchbase::builder("couchbase://127.0.0.1", "app")
            .connect()
            .await
            .unwrap_err();
        assert_eq!(err.class(), ErrorClass::Permanent);
        assert!(
            err.to_string().contains("needs a user and password"),
            "{err}"
        );
    }
}
