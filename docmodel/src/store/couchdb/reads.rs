//! Reading documents by key: one document (`GET`, with its conflicting revisions or at one revision), many
//! in one `_all_docs` request, and a body CouchDB sent made into what a store holds.

use std::future::Future;

use reqwest::{Method, StatusCode};

use super::CouchDb;
use super::wire::{self, Fetched};
use crate::Error;
use crate::store::{Cas, Stored};

impl CouchDb {
    /// `_all_docs` with `keys`: the documents under `keys`, in order, in one request.
    pub(super) async fn fetch_many(&self, keys: &[&str]) -> Result<Vec<Option<Stored>>, Error> {
        let first = keys.first().copied().unwrap_or_default();
        for key in keys {
            self.check_key(key)?;
        }
        let body =
            serde_json::to_vec(&serde_json::json!({ "keys": keys })).map_err(Error::codec)?;
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
    pub(super) fn stored_from(&self, key: &str, fetched: Fetched) -> Result<Option<Stored>, Error> {
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

    pub(super) fn fetch(
        &self,
        key: &str,
    ) -> impl Future<Output = Result<Option<Stored>, Error>> + Send {
        self.fetch_at(key, None)
    }

    /// Revision `cas` of `key`: a conflicting one, or the winner.
    pub(super) async fn fetch_revision(
        &self,
        key: &str,
        cas: &Cas,
    ) -> Result<Option<Stored>, Error> {
        let Some(rev) = cas.as_revision() else {
            // A numeric token is never a CouchDB revision.
            self.check_key(key)?;
            return Ok(None);
        };
        self.fetch_at(key, Some(rev)).await
    }
}
