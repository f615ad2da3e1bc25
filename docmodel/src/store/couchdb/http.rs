//! The HTTP exchange with the server: a request with the credentials, the URL of a document (refusing a key
//! CouchDB cannot hold), sending a request and reading its answer, and the errors an answer it does not
//! expect becomes.

use std::sync::atomic::Ordering;

use reqwest::{Method, StatusCode};

use super::CouchDb;
use super::wire::{self, ServerError};
use crate::{Error, StoreErrorKind};

impl CouchDb {
    pub(super) fn request(&self, method: Method, url: &str) -> reqwest::RequestBuilder {
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
    pub(super) fn check_key(&self, key: &str) -> Result<(), Error> {
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
    pub(super) fn doc_url(&self, key: &str) -> Result<String, Error> {
        self.check_key(key)?;
        let mut url = String::with_capacity(self.inner.db_url.len() + key.len() * 3 + 1);
        url.push_str(&self.inner.db_url);
        url.push('/');
        wire::push_segment(&mut url, key);
        Ok(url)
    }

    /// Sends a request and reads its whole answer. `write` says whether it changes anything, which decides
    /// how a failure is classed.
    pub(super) async fn send(
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
    pub(super) fn refused(&self, key: &str, status: StatusCode, body: &[u8], write: bool) -> Error {
        let db = &self.inner.db;
        let server = ServerError::of(body);
        if let Some(refused) = schema_refusal(key, &server.error, &server.reason) {
            return refused;
        }
        let kind = match status {
            // Refused for what it asked, said so in the body: nothing was done, and nothing will be.
            _ if server.is_refusal() => StoreErrorKind::Permanent,
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
    pub(super) fn malformed(&self, key: &str, what: impl std::fmt::Display) -> Error {
        Error::store_with(
            StoreErrorKind::Transient,
            key,
            format!("CouchDB database `{}`: {what}", self.inner.db),
        )
    }

    /// Whether a 404 means "no such document" rather than "no such database".
    pub(super) fn missing_doc(body: &[u8]) -> bool {
        let server = ServerError::of(body);
        matches!(server.reason.as_str(), "missing" | "deleted")
    }
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

/// The [`Error::Validation`] of a write a model's `validate_doc_update` function refused
/// ([`Store::ensure_validation`](crate::store::Store::ensure_validation)), naming the field it names.
pub(super) fn schema_refusal(key: &str, error: &str, reason: &str) -> Option<Error> {
    let (path, message) = crate::json_schema::couchdb::refused_field(error, reason)?;
    Some(Error::Validation {
        key: Some(key.to_owned()),
        errors: vec![crate::FieldError::new(path, message)],
    })
}
