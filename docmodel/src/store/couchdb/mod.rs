//! `store::CouchDb`: documents in a CouchDB database, over its HTTP API.

mod wire;

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use reqwest::{Method, StatusCode};

use super::{Capabilities, Cas, Durability, Expiry, QueryLanguage, Store, Stored, WriteOptions};
use crate::{Error, StoreErrorKind};
use wire::{Fetched, ServerError};

/// How many rows one `_all_docs` request of a scan asks for.
const DEFAULT_PAGE: usize = 1000;
/// How many times a counter update, or a removal without a token, is tried against other writers' changes
/// before it gives up.
const ATTEMPTS: usize = 256;

/// A store in a CouchDB database (or a server speaking its protocol, as `pouchdb-server`).
///
/// - A docmodel key is the document's `_id` and the `Cas` is its `_rev`. The documents are stored as docmodel
///   writes them; CouchDB's own members (`_id`, `_rev`, `_conflicts`, ...) are added on the wire and taken
///   out on read, so they never reach a body, an envelope or the unknown fields.
/// - CouchDB refuses top-level fields starting with `_` and ids starting with `_`: models on it use the
///   `plain` or `meta` envelope layout (a [`Repo`](crate::Repo) of a `flat` model is refused), and a key
///   starting with `_` is refused with [`Error::InvalidKey`] before any request.
/// - Errors: a changed `_rev` is [`Error::Conflict`], a taken id [`Error::AlreadyExists`], a missing one
///   [`Error::NotFound`]; everything else is [`Error::Store`] naming the database, classed for a retry: a
///   request that never reached the server is `Transient`, a write whose answer was lost (timeout, 5xx,
///   an answer without `rev`) is `Ambiguous`, a refusal (401, 403, 400) is `Permanent`.
/// - [`Store::counter`] is a counter document updated with `_rev`: atomic among the callers of one server,
///   **not** across servers that replicate (each side counts on its own). Use UUID key parts
///   (`docmodel::uuid`, feature `uuid`) for documents created on replicated databases.
/// - Under replication a document can hold conflicting revisions: [`Store::get`] reads the winning one with
///   the others in [`Stored::conflicts`] (`?conflicts=true`), [`Store::get_revision`] reads one of them
///   (`?rev=`), and [`Store::remove`] with its token deletes it. A repository surfaces them
///   ([`Doc::conflicts`](crate::Doc::conflicts)) and merges them ([`Repo::resolve`](crate::Repo::resolve)).
/// - Its query language is Mango ([`QueryLanguage::Mango`]): [`Store::query`] is one `POST /{db}/_find`,
///   [`Store::create_index`] one `POST /{db}/_index`. A repository finds documents through them
///   ([`Repo::find`](crate::Repo::find)) after creating the model's indexes
///   ([`Repo::ensure_indexes`](crate::Repo::ensure_indexes)).
///
/// The futures need a [Tokio](https://tokio.rs) runtime (the HTTP client's). Cloning the store shares its
/// connections.
///
/// ```no_run
/// use docmodel::store::{CouchDb, Store};
///
/// # async fn run() -> Result<(), docmodel::Error> {
/// let store = CouchDb::connect("http://admin:secret@127.0.0.1:5984", "docmodel").await?;
/// store.create_db_if_missing().await?;
/// let rev = store.insert("user::1", br#"{"name":"Ada"}"#).await?;
/// assert!(rev.as_revision().unwrap().starts_with("1-"));
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct CouchDb {
    inner: Arc<Inner>,
}

struct Inner {
    client: reqwest::Client,
    /// `scheme://host:port/path` of the server, without credentials or a trailing `/`.
    server: String,
    /// The database's name, as given.
    db: String,
    /// `{server}/{db, escaped}`.
    db_url: String,
    credentials: Option<(String, String)>,
    page: usize,
    requests: AtomicU64,
}

impl std::fmt::Debug for CouchDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the password.
        f.debug_struct("CouchDb")
            .field("server", &self.inner.server)
            .field("db", &self.inner.db)
            .finish_non_exhaustive()
    }
}

/// Settings of a [`CouchDb`] beyond its URL and database: from [`CouchDb::builder`].
///
/// ```no_run
/// # async fn run() -> Result<(), docmodel::Error> {
/// use std::time::Duration;
/// use docmodel::store::CouchDb;
///
/// let store = CouchDb::builder("https://couch.example.com", "users")
///     .credentials("app", "secret")
///     .timeout(Duration::from_secs(10))
///     .connect()
///     .await?;
/// # Ok(()) }
/// ```
#[must_use = "a builder does nothing until `connect` is called"]
pub struct CouchDbBuilder {
    url: String,
    db: String,
    credentials: Option<(String, String)>,
    timeout: Option<Duration>,
    connect_timeout: Duration,
    page: usize,
}

impl std::fmt::Debug for CouchDbBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the password, in the URL or given.
        f.debug_struct("CouchDbBuilder")
            .field("url", &redact(&self.url))
            .field("db", &self.db)
            .field("user", &self.credentials.as_ref().map(|(user, _)| user))
            .field("timeout", &self.timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("page", &self.page)
            .finish()
    }
}

impl CouchDbBuilder {
    /// Basic-auth credentials, in place of any in the URL.
    pub fn credentials(mut self, user: impl Into<String>, password: impl Into<String>) -> Self {
        self.credentials = Some((user.into(), password.into()));
        self
    }

    /// The longest a request may take, start to answer (none by default). A write that times out is
    /// `Ambiguous`: it may have been carried out.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The longest a new connection may take to open (10 s by default).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How many keys one request of [`Store::scan`] lists (1000 by default; at least 2).
    pub fn scan_page(mut self, rows: usize) -> Self {
        self.page = rows.max(2);
        self
    }

    /// Checks the URL and the database name, and asks the server whether the database is there. The database
    /// need not exist yet ([`CouchDb::create_db_if_missing`] creates it); a server that does not answer, or
    /// refuses the credentials, is an error.
    pub async fn connect(self) -> Result<CouchDb, Error> {
        let store = self.build()?;
        let response = store.request(Method::GET, &store.inner.db_url);
        let (status, body) = store.send(response, &store.inner.db, false).await?;
        match status {
            StatusCode::OK | StatusCode::NOT_FOUND => Ok(store),
            _ => Err(store.refused(&store.inner.db, status, &body, false)),
        }
    }

    fn build(self) -> Result<CouchDb, Error> {
        let invalid = |reason: String| Error::store(&self.db, reason);
        if let Some(reason) = wire::refuse_database(&self.db) {
            return Err(invalid(format!(
                "cannot use `{}` as a CouchDB database: {reason}",
                self.db
            )));
        }
        let mut url = reqwest::Url::parse(&self.url)
            .map_err(|err| invalid(format!("`{}` is not a URL: {err}", redact(&self.url))))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(invalid(format!(
                "`{}` is not an http:// or https:// URL",
                redact(&self.url)
            )));
        }
        let from_url = (!url.username().is_empty()).then(|| {
            (
                percent_decode(url.username()),
                url.password().map(percent_decode).unwrap_or_default(),
            )
        });
        // Credentials travel in a header, never in the URL (nor in an error message).
        let _ = url.set_username("");
        let _ = url.set_password(None);
        url.set_query(None);
        url.set_fragment(None);
        let server = url.as_str().trim_end_matches('/').to_owned();
        let mut db_url = server.clone();
        db_url.push('/');
        wire::push_segment(&mut db_url, &self.db);
        let mut client = reqwest::Client::builder().connect_timeout(self.connect_timeout);
        if let Some(timeout) = self.timeout {
            client = client.timeout(timeout);
        }
        let client = client
            .build()
            .map_err(|err| invalid(format!("cannot build the HTTP client: {err}")))?;
        Ok(CouchDb {
            inner: Arc::new(Inner {
                client,
                server,
                db: self.db,
                db_url,
                credentials: self.credentials.or(from_url),
                page: self.page,
                requests: AtomicU64::new(0),
            }),
        })
    }
}

impl CouchDb {
    /// Connects to database `db` of the server at `url` (`http://user:password@host:5984`; the credentials,
    /// if any, are sent as basic auth), as [`CouchDbBuilder::connect`] does.
    pub async fn connect(url: &str, db: &str) -> Result<CouchDb, Error> {
        CouchDb::builder(url, db).connect().await
    }

    /// A store of database `db` at `url`, with settings.
    pub fn builder(url: &str, db: &str) -> CouchDbBuilder {
        CouchDbBuilder {
            url: url.to_owned(),
            db: db.to_owned(),
            credentials: None,
            timeout: None,
            connect_timeout: Duration::from_secs(10),
            page: DEFAULT_PAGE,
        }
    }

    /// Creates the database unless it exists. Returns whether it created it.
    pub async fn create_db_if_missing(&self) -> Result<bool, Error> {
        let db = &self.inner.db;
        let request = self.request(Method::PUT, &self.inner.db_url);
        let (status, body) = self.send(request, db, true).await?;
        match status {
            StatusCode::CREATED | StatusCode::ACCEPTED => Ok(true),
            StatusCode::PRECONDITION_FAILED => Ok(false),
            _ => Err(self.refused(db, status, &body, true)),
        }
    }

    /// The database's name.
    pub fn db(&self) -> &str {
        &self.inner.db
    }

    /// How many HTTP requests this store (and its clones) has sent: what each operation costs, for metrics
    /// and tests.
    pub fn requests(&self) -> u64 {
        self.inner.requests.load(Ordering::Relaxed)
    }

    fn request(&self, method: Method, url: &str) -> reqwest::RequestBuilder {
        let request = self
            .inner
            .client
            .request(method, url)
            .header(reqwest::header::ACCEPT, "application/json");
        match &self.inner.credentials {
            Some((user, password)) => request.basic_auth(user, Some(password)),
            None => request,
        }
    }

    /// Refuses, before any request, a key CouchDB cannot hold as a document id.
    fn check_key(&self, key: &str) -> Result<(), Error> {
        match wire::refuse_key(key) {
            None => Ok(()),
            Some(reason) => Err(Error::InvalidKey {
                model: "",
                key: key.to_owned(),
                reason: format!("{reason} (database `{}`)", self.inner.db),
            }),
        }
    }

    /// The URL of document `key`, or the error that refuses it before any request.
    fn doc_url(&self, key: &str) -> Result<String, Error> {
        self.check_key(key)?;
        let mut url = String::with_capacity(self.inner.db_url.len() + key.len() * 3 + 1);
        url.push_str(&self.inner.db_url);
        url.push('/');
        wire::push_segment(&mut url, key);
        Ok(url)
    }

    /// Sends a request and reads its whole answer. `write` says whether it changes anything, which decides
    /// how a failure is classed.
    async fn send(
        &self,
        request: reqwest::RequestBuilder,
        key: &str,
        write: bool,
    ) -> Result<(StatusCode, Vec<u8>), Error> {
        self.inner.requests.fetch_add(1, Ordering::Relaxed);
        let failed = |err: reqwest::Error| {
            // A connection that never opened sent nothing; anything later may have reached the server.
            let kind = if err.is_connect() || !write {
                StoreErrorKind::Transient
            } else {
                StoreErrorKind::Ambiguous
            };
            Error::store_with(
                kind,
                key,
                format!("CouchDB database `{}`: {}", self.inner.db, Chain(&err)),
            )
        };
        let response = request.send().await.map_err(failed)?;
        let status = response.status();
        let body = response.bytes().await.map_err(failed)?;
        Ok((status, body.to_vec()))
    }

    /// The error for an answer the operation does not expect.
    fn refused(&self, key: &str, status: StatusCode, body: &[u8], write: bool) -> Error {
        let db = &self.inner.db;
        let server = ServerError::of(body);
        let kind = match status {
            // Asked to come back later: nothing was done.
            StatusCode::REQUEST_TIMEOUT | StatusCode::TOO_MANY_REQUESTS => {
                StoreErrorKind::Transient
            }
            // The server failed, or answered a success this operation does not know: a write may stand.
            _ if status.is_server_error() || status.is_success() => {
                if write {
                    StoreErrorKind::Ambiguous
                } else {
                    StoreErrorKind::Transient
                }
            }
            _ => StoreErrorKind::Permanent,
        };
        let what = match status {
            StatusCode::UNAUTHORIZED => format!(
                "CouchDB refused the credentials for database `{db}` at {} (401)",
                self.inner.server
            ),
            StatusCode::FORBIDDEN => format!(
                "CouchDB does not allow this on database `{db}` at {} (403)",
                self.inner.server
            ),
            StatusCode::NOT_FOUND => format!(
                "CouchDB database `{db}` does not exist at {} (create it with `create_db_if_missing`)",
                self.inner.server
            ),
            _ => format!("CouchDB database `{db}` answered {status}"),
        };
        Error::store_with(kind, key, format!("{what}: {server}"))
    }

    /// The error for an answer that is not what CouchDB sends: a proxy's page, a truncated body. Nothing was
    /// read, and a retry may read it.
    fn malformed(&self, key: &str, what: impl std::fmt::Display) -> Error {
        Error::store_with(
            StoreErrorKind::Transient,
            key,
            format!("CouchDB database `{}`: {what}", self.inner.db),
        )
    }

    /// Whether a 404 means "no such document" rather than "no such database".
    fn missing_doc(body: &[u8]) -> bool {
        let server = ServerError::of(body);
        matches!(server.reason.as_str(), "missing" | "deleted")
    }

    /// `_all_docs` with `keys`: the documents under `keys`, in order, in one request.
    async fn fetch_many(&self, keys: &[&str]) -> Result<Vec<Option<Stored>>, Error> {
        let first = keys.first().copied().unwrap_or_default();
        for key in keys {
            self.check_key(key)?;
        }
        let body = serde_json::to_vec(&serde_json::json!({ "keys": keys }))
            .map_err(|source| Error::Codec { key: None, source })?;
        let url = format!("{}/_all_docs", self.inner.db_url);
        let request = self
            .request(Method::POST, &url)
            .query(&[("include_docs", "true"), ("conflicts", "true")])
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body);
        let (status, body) = self.send(request, first, false).await?;
        if status != StatusCode::OK {
            return Err(self.refused(first, status, &body, false));
        }
        let malformed = |what: String| self.malformed(first, what);
        let rows: wire::Rows<'_> = serde_json::from_slice(&body).map_err(|err| {
            malformed(format!("`_all_docs` answered what is not its JSON: {err}"))
        })?;
        if rows.rows.len() != keys.len() {
            return Err(malformed(format!(
                "`_all_docs` answered {} rows for {} keys",
                rows.rows.len(),
                keys.len()
            )));
        }
        keys.iter()
            .zip(rows.rows)
            .map(|(key, row)| {
                if row.key.as_deref().is_some_and(|found| found != *key) {
                    return Err(malformed(format!(
                        "`_all_docs` answered row `{}` for key `{key}`",
                        row.key.unwrap_or_default()
                    )));
                }
                match (row.doc, row.error.as_deref()) {
                    (Some(doc), _) => self.stored(key, doc.get().as_bytes()),
                    (None, None | Some("not_found")) => Ok(None),
                    (None, Some(error)) => Err(malformed(format!(
                        "`_all_docs` answered `{error}` for key `{key}`"
                    ))),
                }
            })
            .collect()
    }

    /// A document as CouchDB sent it, as a store holds it; `None` for a deleted revision.
    fn stored(&self, key: &str, body: &[u8]) -> Result<Option<Stored>, Error> {
        let fetched = wire::fetched(body).map_err(|err| {
            self.malformed(key, format!("the document is not a JSON object: {err}"))
        })?;
        self.stored_from(key, fetched)
    }

    /// A document as CouchDB sent it, its bookkeeping read, as a store holds it; `None` for a deleted
    /// revision.
    fn stored_from(&self, key: &str, fetched: Fetched) -> Result<Option<Stored>, Error> {
        let Fetched {
            bytes,
            rev,
            conflicts,
            deleted,
            ..
        } = fetched;
        if deleted {
            return Ok(None);
        }
        let rev =
            rev.ok_or_else(|| self.malformed(key, "the document came without `_rev`".to_owned()))?;
        Ok(Some(
            Stored::new(bytes, Cas::from_revision(rev))
                .with_conflicts(conflicts.into_iter().map(Cas::from_revision).collect()),
        ))
    }

    /// `POST /{db}/_find`: the documents the Mango query `body` selects, in its order, each with its id.
    async fn find(&self, body: &[u8]) -> Result<Vec<(String, Stored)>, Error> {
        let db = &self.inner.db;
        let reply = self.post_query("_find", body).await?;
        let found: wire::FindReply<'_> = serde_json::from_slice(&reply).map_err(|err| {
            self.malformed(db, format!("`_find` answered what is not its JSON: {err}"))
        })?;
        let mut documents = Vec::with_capacity(found.docs.len());
        for doc in found.docs {
            let mut fetched = wire::fetched(doc.get().as_bytes()).map_err(|err| {
                self.malformed(
                    db,
                    format!("`_find` answered a document that is not a JSON object: {err}"),
                )
            })?;
            let id = fetched.id.take().ok_or_else(|| {
                self.malformed(db, "`_find` answered a document without `_id`".to_owned())
            })?;
            if let Some(stored) = self.stored_from(&id, fetched)? {
                documents.push((id, stored));
            }
        }
        Ok(documents)
    }

    /// `POST /{db}/_index`: creates the Mango index `body` defines, unless it exists.
    async fn index(&self, body: &[u8]) -> Result<(), Error> {
        self.post_query("_index", body).await.map(drop)
    }

    /// `POST /{db}/{endpoint}` with the JSON `body`, which changes no document: the answer's body.
    async fn post_query(&self, endpoint: &str, body: &[u8]) -> Result<Vec<u8>, Error> {
        let db = &self.inner.db;
        let url = format!("{}/{endpoint}", self.inner.db_url);
        let request = self
            .request(Method::POST, &url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_vec());
        let (status, reply) = self.send(request, db, false).await?;
        if status.is_success() {
            return Ok(reply);
        }
        let server = ServerError::of(&reply);
        if server.error == "no_usable_index" {
            return Err(Error::store(
                db,
                format!(
                    "CouchDB database `{db}` has no index for this query (`Repo::ensure_indexes` creates a \
                     model's indexes): {server}"
                ),
            ));
        }
        Err(self.refused(db, status, &reply, false))
    }

    /// The document under `key`, with its conflicting revisions; revision `rev` of it, if given.
    async fn fetch_at(&self, key: &str, rev: Option<&str>) -> Result<Option<Stored>, Error> {
        let url = self.doc_url(key)?;
        let request = self.request(Method::GET, &url);
        let request = match rev {
            None => request.query(&[("conflicts", "true")]),
            Some(rev) => request.query(&[("rev", rev)]),
        };
        let (status, body) = self.send(request, key, false).await?;
        match status {
            StatusCode::OK => self.stored(key, &body),
            StatusCode::NOT_FOUND if Self::missing_doc(&body) => Ok(None),
            _ => Err(self.refused(key, status, &body, false)),
        }
    }

    fn fetch(&self, key: &str) -> impl Future<Output = Result<Option<Stored>, Error>> + Send {
        self.fetch_at(key, None)
    }

    /// Revision `cas` of `key`: a conflicting one, or the winner.
    async fn fetch_revision(&self, key: &str, cas: &Cas) -> Result<Option<Stored>, Error> {
        let Some(rev) = cas.as_revision() else {
            // A numeric token is never a CouchDB revision.
            self.check_key(key)?;
            return Ok(None);
        };
        self.fetch_at(key, Some(rev)).await
    }

    /// Writes `value` under `key`, over revision `rev` or as a new document.
    async fn put(
        &self,
        key: &str,
        value: &[u8],
        rev: Option<&str>,
        options: &WriteOptions,
    ) -> Result<Cas, Error> {
        self.check_options(key, options)?;
        let url = self.doc_url(key)?;
        let body = match rev {
            Some(rev) => wire::with_rev(value, rev),
            None => wire::is_object(value).then(|| value.to_vec()),
        }
        .ok_or_else(|| self.not_an_object(key))?;
        let request = self
            .request(Method::PUT, &url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body);
        let (status, body) = self.send(request, key, true).await?;
        match status {
            StatusCode::ACCEPTED if options.durability > Durability::None => {
                Err(self.below_quorum(key, options))
            }
            StatusCode::CREATED | StatusCode::ACCEPTED => {
                let rev = serde_json::from_slice::<wire::WriteReply>(&body)
                    .ok()
                    .and_then(|reply| reply.rev)
                    .ok_or_else(|| {
                        Error::store_with(
                            StoreErrorKind::Ambiguous,
                            key,
                            format!(
                                "CouchDB database `{}` accepted the write but answered no `rev`: {:?}",
                                self.inner.db,
                                String::from_utf8_lossy(&body)
                            ),
                        )
                    })?;
                Ok(Cas::from_revision(rev))
            }
            StatusCode::CONFLICT => Err(match rev {
                None => Error::AlreadyExists {
                    key: key.to_owned(),
                },
                Some(_) => self.lost(key).await?,
            }),
            _ => Err(self.refused(key, status, &body, true)),
        }
    }

    /// Inserts `values` with one `POST /{db}/_bulk_docs`: each document is written or refused on its own
    /// (a key taken is [`Error::AlreadyExists`]). A value refused before the request (a key CouchDB cannot
    /// hold, a value that is not a JSON object) is not sent; a failure of the request is every sent value's.
    async fn bulk_insert(
        &self,
        values: &[(&str, &[u8])],
        options: &WriteOptions,
    ) -> Vec<Result<Cas, Error>> {
        let mut outcomes: Vec<Option<Result<Cas, Error>>> = Vec::with_capacity(values.len());
        let mut body = Vec::with_capacity(values.iter().map(|(_, value)| value.len() + 64).sum());
        body.extend_from_slice(b"{\"docs\":[");
        let mut sent = Vec::with_capacity(values.len());
        for (at, (key, value)) in values.iter().enumerate() {
            if let Err(refused) = self
                .check_options(key, options)
                .and_then(|()| self.check_key(key))
            {
                outcomes.push(Some(Err(refused)));
                continue;
            }
            if !sent.is_empty() {
                body.push(b',');
            }
            if !wire::with_first_member(&mut body, value, "_id", key) {
                if body.last() == Some(&b',') {
                    body.pop();
                }
                outcomes.push(Some(Err(self.not_an_object(key))));
                continue;
            }
            outcomes.push(None);
            sent.push(at);
        }
        body.extend_from_slice(b"]}");
        if !sent.is_empty() {
            let first = values[sent[0]].0;
            let url = format!("{}/_bulk_docs", self.inner.db_url);
            let request = self
                .request(Method::POST, &url)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body);
            let answered = match self.send(request, first, true).await {
                Ok((status @ (StatusCode::CREATED | StatusCode::ACCEPTED), body)) => {
                    match serde_json::from_slice::<Vec<wire::BulkReply>>(&body) {
                        Ok(replies) if replies.len() == sent.len() => Ok((status, replies)),
                        _ => Err(Error::store_with(
                            StoreErrorKind::Ambiguous,
                            first,
                            format!(
                                "CouchDB database `{}` answered a bulk write of {} documents with {:?}",
                                self.inner.db,
                                sent.len(),
                                String::from_utf8_lossy(&body)
                            ),
                        )),
                    }
                }
                Ok((status, body)) => Err(self.refused(first, status, &body, true)),
                Err(failed) => Err(failed),
            };
            match answered {
                Ok((status, replies)) => {
                    for (at, reply) in sent.iter().zip(replies) {
                        let key = values[*at].0;
                        outcomes[*at] = Some(self.bulk_outcome(key, status, reply, options));
                    }
                }
                Err(failed) => {
                    for at in &sent {
                        outcomes[*at] = Some(Err(super::failed_with_batch(&failed, values[*at].0)));
                    }
                }
            }
        }
        outcomes
            .into_iter()
            .map(|outcome| outcome.unwrap_or_else(|| unreachable!("every value has an outcome")))
            .collect()
    }

    /// What one line of a `_bulk_docs` answer says of the insert of `key`.
    fn bulk_outcome(
        &self,
        key: &str,
        status: StatusCode,
        reply: wire::BulkReply,
        options: &WriteOptions,
    ) -> Result<Cas, Error> {
        if reply.id.as_deref().is_some_and(|id| id != key) {
            return Err(Error::store_with(
                StoreErrorKind::Ambiguous,
                key,
                format!(
                    "CouchDB database `{}` answered a bulk write out of order (`{}` where `{key}` was sent)",
                    self.inner.db,
                    reply.id.unwrap_or_default()
                ),
            ));
        }
        match (reply.rev, reply.error.as_deref()) {
            (Some(_), None)
                if status == StatusCode::ACCEPTED && options.durability > Durability::None =>
            {
                Err(self.below_quorum(key, options))
            }
            (Some(rev), None) => Ok(Cas::from_revision(rev)),
            (_, Some("conflict")) => Err(Error::AlreadyExists {
                key: key.to_owned(),
            }),
            (_, error) => Err(Error::store(
                key,
                format!(
                    "CouchDB database `{}` refused the document: {}: {}",
                    self.inner.db,
                    error.unwrap_or("no `rev` and no error"),
                    reply.reason
                ),
            )),
        }
    }

    /// The error for a value CouchDB cannot hold, as it is not a JSON object.
    fn not_an_object(&self, key: &str) -> Error {
        Error::store(
            key,
            format!(
                "CouchDB database `{}` stores JSON objects only, and this value is not one",
                self.inner.db
            ),
        )
    }

    /// Refuses what CouchDB cannot do before a request: an expiry (it has none).
    fn check_options(&self, key: &str, options: &WriteOptions) -> Result<(), Error> {
        match options.expiry {
            Expiry::After(_) => Err(Error::store_with(
                StoreErrorKind::Unsupported,
                key,
                format!(
                    "CouchDB database `{}` cannot expire a document (CouchDB has no expiry); \
                     write it without `Expiry::After`",
                    self.inner.db
                ),
            )),
            Expiry::Keep | Expiry::Never => Ok(()),
        }
    }

    /// The error for a write CouchDB accepted (`202`) without a quorum of its nodes, when `options` ask for a
    /// durability: the write is on at least one node, and may or may not reach the others.
    fn below_quorum(&self, key: &str, options: &WriteOptions) -> Error {
        Error::store_with(
            StoreErrorKind::Ambiguous,
            key,
            format!(
                "CouchDB database `{}` accepted the write on fewer nodes than its write quorum (202 Accepted), \
                 and durability {:?} was asked for",
                self.inner.db, options.durability
            ),
        )
    }

    /// The error for a write with a `_rev` that CouchDB refused: the document changed, or it is gone.
    async fn lost(&self, key: &str) -> Result<Error, Error> {
        Ok(match self.fetch(key).await? {
            Some(_) => Error::Conflict {
                key: key.to_owned(),
            },
            None => Error::NotFound {
                key: key.to_owned(),
            },
        })
    }

    async fn delete(
        &self,
        key: &str,
        cas: Option<&Cas>,
        options: &WriteOptions,
    ) -> Result<(), Error> {
        let url = self.doc_url(key)?;
        match cas {
            Some(cas) => match cas.as_revision() {
                Some(rev) => self.delete_rev(key, &url, rev, options).await,
                // A numeric token is never a CouchDB revision: the value it came with is not this one.
                None => Err(self.lost(key).await?),
            },
            // Whatever is there: read its revision and delete that, again if another writer came between.
            None => {
                for _ in 0..ATTEMPTS {
                    let Some(stored) = self.fetch(key).await? else {
                        return Err(Error::NotFound {
                            key: key.to_owned(),
                        });
                    };
                    let rev = stored.cas.as_revision().unwrap_or_default();
                    match self.delete_rev(key, &url, rev, options).await {
                        Err(Error::Conflict { .. }) => {}
                        done => return done,
                    }
                }
                Err(Error::store_with(
                    StoreErrorKind::Transient,
                    key,
                    format!(
                        "`{key}` in CouchDB database `{}` changed under each of {ATTEMPTS} removals",
                        self.inner.db
                    ),
                ))
            }
        }
    }

    /// Deletes revision `rev` of `key`.
    async fn delete_rev(
        &self,
        key: &str,
        url: &str,
        rev: &str,
        options: &WriteOptions,
    ) -> Result<(), Error> {
        let request = self.request(Method::DELETE, url).query(&[("rev", rev)]);
        let (status, body) = self.send(request, key, true).await?;
        match status {
            StatusCode::ACCEPTED if options.durability > Durability::None => {
                Err(self.below_quorum(key, options))
            }
            StatusCode::OK | StatusCode::ACCEPTED => Ok(()),
            // CouchDB answers 409 to a stale `rev`, pouchdb-server 404.
            StatusCode::CONFLICT => Err(self.lost(key).await?),
            StatusCode::NOT_FOUND if Self::missing_doc(&body) => Err(self.lost(key).await?),
            _ => Err(self.refused(key, status, &body, true)),
        }
    }

    async fn count(&self, key: &str, delta: u64) -> Result<u64, Error> {
        for _ in 0..ATTEMPTS {
            let current = self.fetch(key).await?;
            let (value, rev) = match &current {
                None => (0, None),
                Some(stored) => (
                    super::parse_counter(key, &stored.bytes)?,
                    stored.cas.as_revision(),
                ),
            };
            let value = super::add_counter(key, value, delta)?;
            match self
                .put(
                    key,
                    &super::counter_bytes(value),
                    rev,
                    &WriteOptions::DEFAULT,
                )
                .await
            {
                Ok(_) => return Ok(value),
                // Another caller counted first: read its value and count again.
                Err(
                    Error::Conflict { .. } | Error::AlreadyExists { .. } | Error::NotFound { .. },
                ) => {}
                Err(err) => return Err(err),
            }
        }
        Err(Error::store_with(
            StoreErrorKind::Transient,
            key,
            format!(
                "the counter `{key}` in CouchDB database `{}` changed under each of {ATTEMPTS} updates",
                self.inner.db
            ),
        ))
    }

    async fn list(&self, prefix: &str) -> Result<Vec<String>, Error> {
        #[derive(serde::Deserialize)]
        struct Page {
            rows: Vec<Key>,
        }
        #[derive(serde::Deserialize)]
        struct Key {
            id: String,
        }
        let url = format!("{}/_all_docs", self.inner.db_url);
        // The highest code point: every id with the prefix sorts at or below `prefix` followed by it, in
        // CouchDB's raw collation of ids and in pouchdb's.
        let end = serde_json::to_string(&format!("{prefix}\u{10FFFF}")).unwrap_or_default();
        let limit = self.inner.page.to_string();
        let mut start = serde_json::to_string(prefix).unwrap_or_default();
        // The id the previous page ended with: the next page starts there (it may be gone by then, so it is
        // dropped by name rather than skipped by count).
        let mut after: Option<String> = None;
        let mut keys = Vec::new();
        loop {
            let request = self.request(Method::GET, &url).query(&[
                ("startkey", start.as_str()),
                ("endkey", end.as_str()),
                ("limit", limit.as_str()),
            ]);
            let (status, body) = self.send(request, prefix, false).await?;
            if status != StatusCode::OK {
                return Err(self.refused(prefix, status, &body, false));
            }
            let page: Page = serde_json::from_slice(&body).map_err(|err| {
                self.malformed(
                    prefix,
                    format!("`_all_docs` answered what is not its JSON: {err}"),
                )
            })?;
            let full = page.rows.len() >= self.inner.page;
            let last = page.rows.last().map(|row| row.id.clone());
            let fresh: Vec<String> = page
                .rows
                .into_iter()
                .map(|row| row.id)
                .filter(|id| after.as_deref() != Some(id.as_str()))
                .collect();
            let progressed = !fresh.is_empty();
            keys.extend(
                fresh
                    .into_iter()
                    .filter(|id| id.starts_with(prefix) && !id.starts_with('_')),
            );
            // A full page of only the id already seen cannot happen with a page of 2 or more; with a page of
            // 1 it would repeat forever, so a page that brought nothing new ends the scan.
            let Some(last) = last.filter(|_| full && progressed) else {
                break;
            };
            start = serde_json::to_string(&last).unwrap_or_default();
            after = Some(last);
        }
        Ok(keys)
    }
}

impl Store for CouchDb {
    fn get(&self, key: &str) -> impl Future<Output = Result<Option<Stored>, Error>> + Send {
        self.fetch(key)
    }

    /// One `_all_docs` request for every key.
    async fn get_many(&self, keys: &[&str]) -> Result<Vec<Option<Stored>>, Error> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        self.fetch_many(keys).await
    }

    /// One `GET` with `rev`.
    fn get_revision(
        &self,
        key: &str,
        cas: &Cas,
    ) -> impl Future<Output = Result<Option<Stored>, Error>> + Send {
        self.fetch_revision(key, cas)
    }

    /// One `PUT`. An expiry is refused (CouchDB has none); with a durability, a write accepted below the
    /// write quorum (`202`) is ambiguous.
    fn insert_with(
        &self,
        key: &str,
        value: &[u8],
        options: &WriteOptions,
    ) -> impl Future<Output = Result<Cas, Error>> + Send {
        self.put(key, value, None, options)
    }

    /// One `POST /{db}/_bulk_docs`.
    fn insert_many(
        &self,
        values: &[(&str, &[u8])],
        options: &WriteOptions,
    ) -> impl Future<Output = Vec<Result<Cas, Error>>> + Send {
        self.bulk_insert(values, options)
    }

    /// One `PUT` with the `_rev`, as [`CouchDb::insert_with`].
    async fn replace_with(
        &self,
        key: &str,
        value: &[u8],
        cas: &Cas,
        options: &WriteOptions,
    ) -> Result<Cas, Error> {
        self.check_options(key, options)?;
        let Some(rev) = cas.as_revision() else {
            // A numeric token is never a CouchDB revision: the value it came with is not this one.
            return Err(self.lost(key).await?);
        };
        self.put(key, value, Some(rev), options).await
    }

    fn remove_with(
        &self,
        key: &str,
        cas: Option<&Cas>,
        options: &WriteOptions,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        self.delete(key, cas, options)
    }

    fn counter(&self, key: &str, delta: u64) -> impl Future<Output = Result<u64, Error>> + Send {
        self.count(key, delta)
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::MINIMAL
            .with_scan(true)
            .with_reserved_underscore_fields(true)
            .with_query(Some(QueryLanguage::Mango))
    }

    fn scan(&self, prefix: &str) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        self.list(prefix)
    }

    /// One `POST /{db}/_find`.
    fn query(
        &self,
        query: &[u8],
    ) -> impl Future<Output = Result<Vec<(String, Stored)>, Error>> + Send {
        self.find(query)
    }

    /// One `POST /{db}/_index`.
    fn create_index(&self, definition: &[u8]) -> impl Future<Output = Result<(), Error>> + Send {
        self.index(definition)
    }
}

/// A URL with its password hidden, for messages.
fn redact(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            let _ = parsed.set_password(Some("***"));
            parsed.to_string()
        }
        Ok(_) => url.to_owned(),
        Err(_) => "the given URL".to_owned(),
    }
}

/// `%XX` sequences of a URL's user or password, decoded (invalid ones are kept as they are).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = |byte: u8| char::from(byte).to_digit(16);
        if bytes[at] == b'%'
            && let (Some(high), Some(low)) = (
                bytes.get(at + 1).copied().and_then(hex),
                bytes.get(at + 2).copied().and_then(hex),
            )
        {
            out.push((high * 16 + low) as u8);
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// An error with its sources, one after another: reqwest's own message says little ("error sending
/// request"); the cause says what happened ("connection refused").
struct Chain<'a>(&'a (dyn std::error::Error + 'static));

impl std::fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)?;
        let mut source = self.0.source();
        while let Some(err) = source {
            write!(f, ": {err}")?;
            source = err.source();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_come_out_of_the_url() {
        let store = CouchDb::builder("http://ad%40min:p%3Ass@127.0.0.1:5984/", "users")
            .build()
            .unwrap();
        assert_eq!(store.inner.server, "http://127.0.0.1:5984");
        assert_eq!(store.inner.db_url, "http://127.0.0.1:5984/users");
        assert_eq!(
            store.inner.credentials,
            Some(("ad@min".to_owned(), "p:ss".to_owned()))
        );
        assert!(!format!("{store:?}").contains("p:ss"));
    }

    #[test]
    fn a_server_under_a_path_and_a_database_with_a_slash() {
        let store = CouchDb::builder("https://example.com/couch", "team/users")
            .credentials("u", "p")
            .build()
            .unwrap();
        assert_eq!(store.inner.db_url, "https://example.com/couch/team%2Fusers");
        assert_eq!(
            store.doc_url("user::1").unwrap(),
            "https://example.com/couch/team%2Fusers/user%3A%3A1"
        );
    }

    #[test]
    fn bad_urls_and_names_are_refused_without_the_password() {
        let err = CouchDb::builder("ftp://u:secret@host", "users")
            .build()
            .unwrap_err();
        assert!(
            err.to_string().contains("not an http:// or https:// URL"),
            "{err}"
        );
        assert!(!err.to_string().contains("secret"), "{err}");
        let err = CouchDb::builder("not a url", "users").build().unwrap_err();
        assert!(err.to_string().contains("is not a URL"), "{err}");
        let err = CouchDb::builder("http://host", "Users")
            .build()
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("cannot use `Users` as a CouchDB database"),
            "{err}"
        );
    }

    #[test]
    fn a_reserved_key_is_an_invalid_key() {
        let store = CouchDb::builder("http://127.0.0.1:5984", "users")
            .build()
            .unwrap();
        let err = store.doc_url("_design/x").unwrap_err();
        assert!(matches!(&err, Error::InvalidKey { key, .. } if key == "_design/x"));
        assert_eq!(
            err.to_string(),
            "invalid key \"_design/x\": CouchDB reserves document ids starting with `_` (`_design/`, \
             `_local/`) (database `users`)"
        );
    }

    #[test]
    fn percent_decoding_keeps_what_is_not_an_escape() {
        assert_eq!(percent_decode("a%20b%2"), "a b%2");
        assert_eq!(percent_decode("%zz%41"), "%zzA");
    }
}
