//! Writing documents: a `PUT` over a `_rev` or as a new document, a `_bulk_docs` insert, a `DELETE`, the
//! counter document updated with `_rev`, and the errors a refused write becomes.

use reqwest::{Method, StatusCode};

use super::{CouchDb, wire};
use crate::store::{self, Cas, WriteOptions};
use crate::{Durability, Expiry};
use crate::{Error, StoreErrorKind};

/// How many times a counter update, or a removal without a token, is tried against other writers' changes
/// before it gives up.
const ATTEMPTS: usize = 256;

impl CouchDb {
    /// Writes `value` under `key`, over revision `rev` or as a new document.
    pub(super) async fn put(
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
    pub(super) async fn bulk_insert(
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
                        outcomes[*at] = Some(Err(store::failed_with_batch(&failed, values[*at].0)));
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
            (_, Some(error))
                if let Some(refused) = super::http::schema_refusal(key, error, &reply.reason) =>
            {
                Err(refused)
            }
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
    pub(super) fn check_options(&self, key: &str, options: &WriteOptions) -> Result<(), Error> {
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
    pub(super) async fn lost(&self, key: &str) -> Result<Error, Error> {
        Ok(match self.fetch(key).await? {
            Some(_) => Error::Conflict {
                key: key.to_owned(),
            },
            None => Error::NotFound {
                key: key.to_owned(),
            },
        })
    }

    pub(super) async fn delete(
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

    pub(super) async fn count(&self, key: &str, delta: u64) -> Result<u64, Error> {
        for _ in 0..ATTEMPTS {
            let current = self.fetch(key).await?;
            let (value, rev) = match &current {
                None => (0, None),
                Some(stored) => (
                    store::parse_counter(key, &stored.bytes)?,
                    stored.cas.as_revision(),
                ),
            };
            let value = store::add_counter(key, value, delta)?;
            match self
                .put(
                    key,
                    &store::counter_bytes(value),
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
}
