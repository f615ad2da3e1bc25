//! [`Repo::find`], [`Repo::count`] and [`Repo::ensure_indexes`] on a store with a query language of its own
//! ([`Capabilities::query`](crate::store::Capabilities::query)): the store selects, sorts and pages through
//! its own indexes; the repository writes the requests, decodes what comes back and counts.
//!
//! Every language ([`Dialect`]) takes the same loop ([`Repo::native_rows`]): a request selects the page's rows in its order,
//! the repository matches each against the filter as every store's reading does, and a request that came
//! back full is followed by one past its last row until the page is full. Mango selects candidates (the
//! filter's conditions CouchDB can apply exactly); SQL++ applies the whole filter, and a filter it cannot
//! apply exactly fails before anything is sent.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{Repo, indexes};
use crate::find::{
    Cursor, Dialect, Filter, Page, Query, Run, as_model_names, envelope_path, owns, position,
    with_dialect,
};
use crate::keyshape::index_marker;
use crate::store::{QueryLanguage, Store, Stored};
use crate::{Doc, DocModel, EnvelopeField, Error, Key};

/// How many documents one request of a count asks for.
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
        with_dialect!(language, D => self.find_in::<D>(query).await)
    }

    /// [`Repo::count`] in the store's language.
    pub(super) async fn count_native(
        &self,
        language: QueryLanguage,
        filter: &Filter<T>,
    ) -> Result<u64, Error> {
        with_dialect!(language, D => self.count_in::<D>(filter).await)
    }

    /// [`Repo::ensure_indexes`] in the store's language.
    pub(super) async fn ensure_native(&self, language: QueryLanguage) -> Result<(), Error> {
        with_dialect!(language, D => self.ensure_in::<D>().await)
    }

    /// [`Repo::find`] in the dialect `D`.
    async fn find_in<D: Dialect>(&self, query: &Query<T>) -> Result<Page<T>, Error> {
        D::check(query)?;
        let mut rows = self.native_rows::<D>(query).await?;
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
        let runner = Runner {
            repo: self,
            language: D::LANGUAGE,
        };
        Ok(Page {
            docs,
            next,
            older_schema: D::count_older::<T, _>(&runner).await?,
            unreadable,
        })
    }

    /// [`Repo::count`] in the dialect `D`: the matches' keys, a page of them a request.
    async fn count_in<D: Dialect>(&self, filter: &Filter<T>) -> Result<u64, Error> {
        let mut query = Query::new(filter.clone()).limit(PAGE);
        let mut count = 0;
        loop {
            let rows = self.native_rows::<D>(&query).await?;
            if rows.len() <= PAGE {
                return Ok(count + rows.len() as u64);
            }
            count += PAGE as u64;
            let (last, _, _) = &rows[PAGE - 1];
            query = query.after(Cursor::new(&Value::Null, last.as_str()));
        }
    }

    /// [`Repo::ensure_indexes`] in the dialect `D`: creates the model's indexes, a request each; an index
    /// that exists is left as it is.
    async fn ensure_in<D: Dialect>(&self) -> Result<(), Error> {
        for definition in D::indexes::<T>()? {
            self.store.create_index(&definition).await?;
        }
        if D::KEPT_INDEX_ENTRIES {
            self.retire_index_entries().await?;
        }
        Ok(())
    }

    /// Earlier builds of docmodel kept index entries on CouchDB too, and read them once a marker said they
    /// were complete; entries are no longer kept there, so a program still reading them would miss what is
    /// written from now on. Without their markers, it reads the model's documents instead.
    async fn retire_index_entries(&self) -> Result<(), Error> {
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
    /// `query.limit + 1`, the last saying there is a next page. The dialect's requests select candidates
    /// ([`Dialect::select`]); each is matched against the filter here, and a request that came back full is
    /// followed by one past its last candidate, until the page is full or the candidates run out.
    async fn native_rows<D: Dialect>(&self, query: &Query<T>) -> Result<Vec<Row<T>>, Error> {
        let wanted = query.limit.saturating_add(1);
        let type_path = envelope_path::<T>(EnvelopeField::Type);
        let mut rows: Vec<Row<T>> = Vec::new();
        let mut requests = D::select(query)?.into_iter();
        while let Some(request) = requests.next() {
            if rows.len() >= wanted {
                break;
            }
            // What the page lacks, but never fewer than a whole page (or `BATCH`, for a larger one):
            // candidates the filter turns down must not cost a request each.
            let asked = (wanted - rows.len()).max(BATCH.min(wanted));
            let request = D::asking(request, asked)?;
            sent(D::LANGUAGE, &request);
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
                requests = D::select(&query.clone().after(last))?.into_iter();
            }
        }
        Ok(rows)
    }
}

/// The repository's store as a dialect's walks run their requests ([`Run`]), each one traced.
struct Runner<'r, T, S> {
    repo: &'r Repo<T, S>,
    language: QueryLanguage,
}

impl<T: Sync, S: Store> Run for Runner<'_, T, S> {
    async fn run(&self, request: Vec<u8>) -> Result<Vec<(String, Stored)>, Error> {
        sent(self.language, &request);
        self.repo.store.query(&request).await
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
