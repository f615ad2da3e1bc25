//! Finding documents other than by key: Mango queries (`POST /{db}/_find`), their indexes
//! (`POST /{db}/_index`), and the paged `_all_docs` listing of keys behind
//! [`Store::scan`](crate::store::Store::scan); and the design documents that hold a model's
//! `validate_doc_update` function ([`Store::ensure_validation`](crate::store::Store::ensure_validation)).

use reqwest::{Method, StatusCode};

use super::CouchDb;
use super::wire::{self, ServerError};
use crate::Error;
use crate::store::{ScanPage, Stored};

impl CouchDb {
    /// `POST /{db}/_find`: the documents the Mango query `body` selects, in its order, each with its id.
    pub(super) async fn find(&self, body: &[u8]) -> Result<Vec<(String, Stored)>, Error> {
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

    /// `_design/{name}` with `function` as its `validate_doc_update`: read, and written (over the revision
    /// read) only when its function or language differs. `true` when it wrote it.
    pub(super) async fn design_validation(
        &self,
        name: &str,
        function: &str,
    ) -> Result<bool, Error> {
        let id = format!("_design/{name}");
        let mut url = format!("{}/_design/", self.inner.db_url);
        wire::push_segment(&mut url, name);
        let (status, reply) = self
            .send(self.request(Method::GET, &url), &id, false)
            .await?;
        let mut design = match status {
            StatusCode::OK => {
                serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(&reply)
                    .map_err(|err| {
                        self.malformed(&id, format!("`{id}` is not a JSON object: {err}"))
                    })?
            }
            StatusCode::NOT_FOUND if Self::missing_doc(&reply) => serde_json::Map::new(),
            _ => return Err(self.refused(&id, status, &reply, false)),
        };
        let same =
            |field: &str, value: &str| design.get(field).and_then(|v| v.as_str()) == Some(value);
        if same("validate_doc_update", function) && same("language", "javascript") {
            return Ok(false);
        }
        // The design document's other members (views, filters another program keeps there) stay.
        design.insert("language".into(), "javascript".into());
        design.insert("validate_doc_update".into(), function.into());
        design.insert("_id".into(), id.clone().into());
        let body = serde_json::to_vec(&design).expect("JSON values write");
        let request = self
            .request(Method::PUT, &url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body);
        let (status, reply) = self.send(request, &id, true).await?;
        match status {
            StatusCode::OK | StatusCode::CREATED | StatusCode::ACCEPTED => Ok(true),
            // Another program installed one between the read and the write: the same function is ours; another
            // is a conflict for the caller to settle (install again, from the newest program).
            StatusCode::CONFLICT => {
                let (status, reply) = self
                    .send(self.request(Method::GET, &url), &id, false)
                    .await?;
                let current = match status {
                    StatusCode::OK => serde_json::from_slice::<serde_json::Value>(&reply).ok(),
                    _ => None,
                };
                match current {
                    Some(current) if current["validate_doc_update"] == function => Ok(false),
                    _ => Err(Error::Conflict { key: id }),
                }
            }
            _ => Err(self.refused(&id, status, &reply, true)),
        }
    }

    /// `POST /{db}/_index`: creates the Mango index `body` defines, unless it exists.
    pub(super) async fn index(&self, body: &[u8]) -> Result<(), Error> {
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

    pub(super) async fn list(
        &self,
        prefix: &str,
        page: ScanPage<'_>,
    ) -> Result<Vec<String>, Error> {
        #[derive(serde::Deserialize)]
        struct Rows {
            rows: Vec<Row>,
        }
        #[derive(serde::Deserialize)]
        struct Row {
            id: String,
        }
        let url = format!("{}/_all_docs", self.inner.db_url);
        let mut listing = wire::Listing::resuming(prefix, page.after);
        let mut keys = Vec::new();
        while keys.len() < page.limit {
            let Some(start) = listing.next_start() else {
                break;
            };
            // The ids still wanted, at most a request's page of them, and, where the request starts at the id
            // listed last, that one too: a request always brings an id not seen.
            let seen = usize::from(listing.resumes());
            let rows = (page.limit - keys.len()).min(self.inner.page).max(1) + seen;
            let limit = rows.to_string();
            let start = serde_json::to_string(start).unwrap_or_default();
            let mut request = self
                .request(Method::GET, &url)
                .query(&[("startkey", start.as_str()), ("limit", limit.as_str())]);
            if let Some(end) = listing.end() {
                let end = serde_json::to_string(&end).unwrap_or_default();
                request = request.query(&[("endkey", end.as_str()), ("inclusive_end", "false")]);
            }
            let (status, body) = self.send(request, prefix, false).await?;
            if status != StatusCode::OK {
                return Err(self.refused(prefix, status, &body, false));
            }
            let listed: Rows = serde_json::from_slice(&body).map_err(|err| {
                self.malformed(
                    prefix,
                    format!("`_all_docs` answered what is not its JSON: {err}"),
                )
            })?;
            let ids = listed.rows.into_iter().map(|row| row.id).collect();
            keys.extend(listing.take(ids, rows));
        }
        keys.truncate(page.limit);
        Ok(keys)
    }
}
