//! `store::CouchDb`: documents in a CouchDB database, over its HTTP API.
//!
//! Where things are: this file holds [`CouchDb`], its builder and connection, creating the database, and
//! its [`Store`] impl; `http` the requests and the errors their answers become; `reads` reading documents by
//! key; `writes` writing them (put, bulk insert, delete, the counter); `query` Mango `_find` and `_index`
//! and the paged `_all_docs` scan; `wire` the wire types and pure functions of CouchDB's protocol.

mod http;
mod query;
mod reads;
mod wire;
mod writes;

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use reqwest::{Method, StatusCode};

use super::{Capabilities, Cas, QueryLanguage, ScanPage, Store, Stored, WriteOptions};
use crate::Error;

/// How many rows one `_all_docs` request of a scan asks for.
const DEFAULT_PAGE: usize = 1000;

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

    fn system(&self) -> &'static str {
        "couchdb"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::MINIMAL
            .with_scan(true)
            .with_reserved_underscore_fields(true)
            .with_query(Some(QueryLanguage::Mango))
    }

    fn scan(
        &self,
        prefix: &str,
        page: ScanPage<'_>,
    ) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        self.list(prefix, page)
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

    /// `GET /{db}/_design/{name}`, then a `PUT` of it when its function differs.
    fn ensure_validation(
        &self,
        name: &str,
        function: &str,
    ) -> impl Future<Output = Result<bool, Error>> + Send {
        self.design_validation(name, function)
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
