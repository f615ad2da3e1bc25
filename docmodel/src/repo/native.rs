//! [`Repo::find`], [`Repo::count`] and [`Repo::ensure_indexes`] on a store with a query language of its own
//! ([`Capabilities::query`](crate::store::Capabilities::query)): the store selects, sorts and pages through
//! its own indexes; the repository writes the requests, decodes what comes back and counts.
//!
//! Both languages take the same loop ([`Repo::native_rows`]): a request selects the page's rows in its order,
//! the repository matches each against the filter as every store's reading does, and a request that came
//! back full is followed by one past its last row until the page is full. Mango selects candidates (the
//! filter's conditions CouchDB can apply exactly); SQL++ applies the whole filter, and a filter it cannot
//! apply exactly fails before anything is sent.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{Repo, indexes};
use crate::find::{
    Cursor, Filter, Page, Query, as_model_names, at, envelope_path, mango, owns, position, sqlpp,
    stored_document,
};
use crate::keyshape::index_marker;
use crate::store::{QueryLanguage, Store, Stored};
use crate::{Doc, DocModel, EnvelopeField, Error, Key, SchemaVersion};

/// How many documents one request of a count, or of the older-schema count, asks for.
const PAGE: usize = 1000;
/// The fewest candidates a request of a page asks for.
const BATCH: usize = 100;

/// A document a query selected: its key, what the store holds, and the cursor just past it.
type Row<T> = (Key<T>, Stored, Cursor);

impl<T, S> Repo<T, S>
where
    T: DocModel + Serialize + DeserializeOwned + Send + Sync,
    S: Store,
{
    /// [`Repo::find`] in the store's language.
    pub(super) async fn find_native(
        &self,
        language: QueryLanguage,
        query: &Query<T>,
    ) -> Result<Page<T>, Error> {
        // Mango sorts only through an index over the order field; SQL++ sorts any.
        if language == QueryLanguage::Mango
            && let Some((path, _)) = &query.order
        {
            mango::check_order::<T>(path)?;
        }
        let mut rows = self.native_rows(language, query).await?;
        let more = rows.len() > query.limit;
        rows.truncate(query.limit);
        let next = match rows.last() {
            Some((_, _, position)) if more => Some(position.clone()),
            _ => None,
        };
        let read = rows.into_iter().map(|(key, stored, _)| {
            let doc = Self::from_stored(&key, stored).and_then(Doc::checked_read);
            (key.into_string(), doc)
        });
        let (docs, unreadable) = super::find::page_of(query, read)?;
        Ok(Page {
            docs,
            next,
            older_schema: self.older_native(language).await?,
            unreadable,
        })
    }

    /// [`Repo::count`] in the store's language: the matches' keys, a page of them a request.
    pub(super) async fn count_native(
        &self,
        language: QueryLanguage,
        filter: &Filter<T>,
    ) -> Result<u64, Error> {
        let mut query = Query::new(filter.clone()).limit(PAGE);
        let mut count = 0;
        loop {
            let rows = self.native_rows(language, &query).await?;
            if rows.len() <= PAGE {
                return Ok(count + rows.len() as u64);
            }
            count += PAGE as u64;
            let (last, _, _) = &rows[PAGE - 1];
            query = query.after(Cursor::new(&Value::Null, last.as_str()));
        }
    }

    /// [`Repo::ensure_indexes`] in the store's language: creates the model's indexes, as many requests as it
    /// has indexes, plus two (its type and its schema); an index that exists is left as it is.
    pub(super) async fn ensure_native(&self, language: QueryLanguage) -> Result<(), Error> {
        if language == QueryLanguage::SqlPlusPlus {
            for statement in sqlpp::create_indexes::<T>() {
                self.store.create_index(&statement.request()?).await?;
            }
            return Ok(());
        }
        for body in mango::index_bodies::<T>()? {
            self.store.create_index(&encode(&body)?).await?;
        }
        // Earlier builds of docmodel kept index entries on CouchDB too, and read them once a marker said they
        // were complete; entries are no longer kept here, so a program still reading them would miss what is
        // written from now on. Without their markers, it reads the model's documents instead.
        let markers: Vec<String> = indexes::all::<T>()
            .iter()
            .map(|index| index_marker::<T>(index.name))
            .collect();
        let texts: Vec<&str> = markers.iter().map(String::as_str).collect();
        for (marker, stored) in texts.iter().zip(self.store.get_many(&texts).await?) {
            if let Some(stored) = stored {
                match self.aux().remove(marker, Some(&stored.cas)).await {
                    Ok(()) | Err(Error::NotFound { .. } | Error::Conflict { .. }) => {}
                    Err(err) => return Err(err),
                }
            }
        }
        Ok(())
    }

    /// The documents of one page of `query` that its filter matches, in its order: at most
    /// `query.limit + 1`, the last saying there is a next page. The store's requests select candidates
    /// ([`mango::find_bodies`], [`sqlpp::select`]); each is matched against the filter here, and a request
    /// that came back full is followed by one past its last candidate, until the page is full or the
    /// candidates run out.
    async fn native_rows(
        &self,
        language: QueryLanguage,
        query: &Query<T>,
    ) -> Result<Vec<Row<T>>, Error> {
        let wanted = query.limit.saturating_add(1);
        let type_path = envelope_path::<T>(EnvelopeField::Type);
        let mut rows: Vec<Row<T>> = Vec::new();
        let mut requests = Requests::of(language, query)?;
        while let Some(request) = requests.next() {
            if rows.len() >= wanted {
                break;
            }
            // What the page lacks, but never fewer than a whole page (or `BATCH`, for a larger one):
            // candidates the filter turns down must not cost a request each.
            let asked = (wanted - rows.len()).max(BATCH.min(wanted));
            let request = request.asking(asked)?;
            sent(language, &request);
            let candidates = self.store.query(&request).await?;
            let full = candidates.len() >= asked;
            let mut last = None;
            for (key, stored) in candidates {
                let Ok(value) = serde_json::from_slice::<Value>(&stored.bytes) else {
                    continue;
                };
                let position = position(query, &value, &key);
                last = Some(position.clone());
                let value = as_model_names::<T>(value);
                // A key of the model's shape that does not parse (`order::01`) is not one of its documents,
                // as on a store that lists keys.
                let Ok(key) = Key::<T>::parse(&key) else {
                    continue;
                };
                // A model adopting other spellings of its type, or none, is told its documents here.
                if !owns::<T>(&value, &type_path) {
                    continue;
                }
                if rows.len() < wanted && query.filter.matches(&value) {
                    rows.push((key, stored, position));
                }
            }
            if let Some(last) = last.filter(|_| full && rows.len() < wanted) {
                // This part has more: read on past its last candidate (the parts after it come again).
                requests = Requests::of(language, &query.clone().after(last))?;
            }
        }
        Ok(rows)
    }

    /// How many of the model's documents are stored below the current schema: only the documents at
    /// another schema are read, through the schema index, and (for a model with `unversioned` below its
    /// schema) those without a schema field, by key.
    async fn older_native(&self, language: QueryLanguage) -> Result<usize, Error> {
        if language == QueryLanguage::SqlPlusPlus {
            return self.older_sqlpp().await;
        }
        let schema_path = envelope_path::<T>(EnvelopeField::Schema);
        let type_path = envelope_path::<T>(EnvelopeField::Type);
        let mut older = 0;
        if T::UNVERSIONED.is_some_and(|version| version < T::SCHEMA) {
            let mut after: Option<String> = None;
            loop {
                let body = mango::unversioned_body::<T>(after.as_deref(), PAGE)?;
                let request = encode(&body)?;
                sent(language, &request);
                let rows = self.store.query(&request).await?;
                let full = rows.len() >= PAGE;
                for (key, stored) in rows {
                    // Without a schema under the model's name, but perhaps under a legacy one.
                    let owned = stored_document::<T>(&stored.bytes).is_some_and(|value| {
                        owns::<T>(&value, &type_path) && at(&value, &schema_path).is_none()
                    });
                    if owned && Key::<T>::parse(&key).is_ok() {
                        older += 1;
                    }
                    after = Some(key);
                }
                if !full {
                    break;
                }
            }
        }
        for below in [true, false] {
            let mut after: Option<(String, String)> = None;
            loop {
                let position = after
                    .as_ref()
                    .map(|(schema, key)| (schema.as_str(), key.as_str()));
                let body = mango::other_schema_body::<T>(below, position, PAGE)?;
                let request = encode(&body)?;
                sent(language, &request);
                let rows = self.store.query(&request).await?;
                let full = rows.len() >= PAGE;
                let before = after.clone();
                for (key, stored) in rows {
                    let Some(value) = stored_document::<T>(&stored.bytes) else {
                        continue;
                    };
                    let Some(text) = at(&value, &schema_path).and_then(Value::as_str) else {
                        continue;
                    };
                    if Key::<T>::parse(&key).is_ok()
                        && owns::<T>(&value, &type_path)
                        && SchemaVersion::parse(text).is_ok_and(|schema| schema < T::SCHEMA)
                    {
                        older += 1;
                    }
                    after = Some((text.to_owned(), key));
                }
                // A page that moved nothing on (no row held a schema) would be asked for again forever.
                if !full || after == before {
                    break;
                }
            }
        }
        Ok(older)
    }

    /// [`Repo::older_native`] in SQL++: the model's documents at another schema, or none, a page of them by
    /// key a request, counted here where their version is below the current one (or, without a schema, where
    /// the model reads those as older: `unversioned`).
    async fn older_sqlpp(&self) -> Result<usize, Error> {
        let schema_path = envelope_path::<T>(EnvelopeField::Schema);
        let type_path = envelope_path::<T>(EnvelopeField::Type);
        let unversioned_older = T::UNVERSIONED.is_some_and(|version| version < T::SCHEMA);
        let mut older = 0;
        let mut after: Option<String> = None;
        loop {
            let statement = sqlpp::other_schemas::<T>(after.as_deref(), PAGE);
            let request = statement.request()?;
            sent(QueryLanguage::SqlPlusPlus, &request);
            let rows = self.store.query(&request).await?;
            let full = rows.len() >= PAGE;
            for (key, stored) in rows {
                let value = stored_document::<T>(&stored.bytes);
                let below = value.as_ref().is_some_and(|value| {
                    owns::<T>(value, &type_path)
                        && match at(value, &schema_path) {
                            None | Some(Value::Null) => unversioned_older,
                            Some(Value::String(text)) => {
                                SchemaVersion::parse(text).is_ok_and(|schema| schema < T::SCHEMA)
                            }
                            Some(_) => false,
                        }
                });
                if below && Key::<T>::parse(&key).is_ok() {
                    older += 1;
                }
                after = Some(key);
            }
            if !full {
                return Ok(older);
            }
        }
    }
}

/// The requests that select a page's candidates, in the store's language, to run in order.
enum Requests {
    /// `POST /{db}/_find` bodies, each asking for its `limit`.
    Mango(std::vec::IntoIter<Value>),
    /// The one SQL++ statement of a page, its `$limit` set when it is asked.
    SqlPlusPlus(Option<sqlpp::Statement>),
}

/// One request of [`Requests`], not yet told how many rows to ask for.
enum Request {
    Mango(Value),
    SqlPlusPlus(sqlpp::Statement),
}

impl Requests {
    fn of<T: DocModel>(language: QueryLanguage, query: &Query<T>) -> Result<Self, Error> {
        Ok(match language {
            QueryLanguage::Mango => Requests::Mango(mango::find_bodies(query)?.into_iter()),
            QueryLanguage::SqlPlusPlus => Requests::SqlPlusPlus(Some(sqlpp::select(query)?)),
        })
    }
}

impl Iterator for Requests {
    type Item = Request;

    fn next(&mut self) -> Option<Request> {
        match self {
            Requests::Mango(bodies) => bodies.next().map(Request::Mango),
            Requests::SqlPlusPlus(statement) => statement.take().map(Request::SqlPlusPlus),
        }
    }
}

impl Request {
    /// The request's bytes, asking for `asked` rows.
    fn asking(self, asked: usize) -> Result<Vec<u8>, Error> {
        match self {
            Request::Mango(mut body) => {
                body["limit"] = asked.into();
                encode(&body)
            }
            Request::SqlPlusPlus(mut statement) => {
                statement.params.insert(
                    "limit".to_owned(),
                    u64::try_from(asked).unwrap_or(u64::MAX).into(),
                );
                statement.request()
            }
        }
    }
}

/// Reports a query sent in the store's language at `DEBUG` (feature `tracing`): its text (`db.query.text`)
/// and its parameters (`db.query.parameters`), each value `?` unless the repository shows values.
fn sent(language: QueryLanguage, request: &[u8]) {
    #[cfg(feature = "tracing")]
    if tracing::enabled!(target: "docmodel", tracing::Level::DEBUG) {
        let (text, parameters) = crate::trace::query_text(language, request);
        crate::trace::event!(tracing::Level::DEBUG, {
            db.query.text = %text,
            db.query.parameters = %parameters,
        }, "query sent");
    }
    #[cfg(not(feature = "tracing"))]
    let _ = (language, request);
}

/// A request's bytes.
fn encode(body: &Value) -> Result<Vec<u8>, Error> {
    serde_json::to_vec(body).map_err(Error::codec)
}
