//! [`Mango`]: CouchDB's query language as a [`Dialect`].

use std::future::Future;

use serde_json::Value;

use super::{Mango, check_order, find_bodies, index_bodies, other_schema_body, unversioned_body};
use crate::find::dialect::encode;
use crate::find::{Dialect, Query, Run, at, envelope_path, owns, stored_document};
use crate::store::QueryLanguage;
use crate::{DocModel, EnvelopeField, Error, Key, SchemaVersion};

/// How many documents one request of the older-schema count asks for.
const PAGE: usize = 1000;

// `count_older` as an `async move` block: the trait declares its future `Send`.
#[allow(clippy::manual_async_fn)]
impl Dialect for Mango {
    const LANGUAGE: QueryLanguage = QueryLanguage::Mango;

    // Earlier builds kept index entries on CouchDB too, and read them once a marker said they were complete.
    const KEPT_INDEX_ENTRIES: bool = true;

    /// A `POST /{db}/_find` body.
    type Request = Value;

    /// Mango sorts only through an index ending with the order field ([`check_order`]).
    fn check<M: DocModel>(query: &Query<M>) -> Result<(), Error> {
        match &query.order {
            Some((path, _)) => check_order::<M>(query.filter.node(), path),
            None => Ok(()),
        }
    }

    fn select<M: DocModel>(query: &Query<M>) -> Result<Vec<Value>, Error> {
        find_bodies(query)
    }

    fn asking(mut body: Value, rows: usize) -> Result<Vec<u8>, Error> {
        body["limit"] = rows.into();
        encode(&body)
    }

    fn indexes<M: DocModel>() -> Result<Vec<Vec<u8>>, Error> {
        index_bodies::<M>()?.iter().map(encode).collect()
    }

    /// The documents without a schema field, by key, where the model reads those as older (`unversioned`),
    /// then those whose schema text sorts below the current one's, then above it (versions do not compare as
    /// text), each walk through the schema index by schema text and key.
    fn count_older<M: DocModel, R: Run>(
        run: &R,
    ) -> impl Future<Output = Result<usize, Error>> + Send {
        async move {
            let schema_path = envelope_path::<M>(EnvelopeField::Schema);
            let type_path = envelope_path::<M>(EnvelopeField::Type);
            let mut older = 0;
            if M::UNVERSIONED.is_some_and(|version| version < M::SCHEMA) {
                let mut after: Option<String> = None;
                loop {
                    let request = encode(&unversioned_body::<M>(after.as_deref(), PAGE)?)?;
                    let rows = run.run(request).await?;
                    let full = rows.len() >= PAGE;
                    for (key, stored) in rows {
                        // Without a schema under the model's name, but perhaps under a legacy one.
                        let owned = stored_document::<M>(&stored.bytes).is_some_and(|value| {
                            owns::<M>(&value, &type_path) && at(&value, &schema_path).is_none()
                        });
                        if owned && Key::<M>::parse(&key).is_ok() {
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
                    let request = encode(&other_schema_body::<M>(below, position, PAGE)?)?;
                    let rows = run.run(request).await?;
                    let full = rows.len() >= PAGE;
                    let before = after.clone();
                    for (key, stored) in rows {
                        let Some(value) = stored_document::<M>(&stored.bytes) else {
                            continue;
                        };
                        let Some(text) = at(&value, &schema_path).and_then(Value::as_str) else {
                            continue;
                        };
                        if Key::<M>::parse(&key).is_ok()
                            && owns::<M>(&value, &type_path)
                            && SchemaVersion::parse(text).is_ok_and(|schema| schema < M::SCHEMA)
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
    }

    /// The `_find` body, the selector's values hidden unless `show`.
    #[cfg(feature = "tracing")]
    fn traced(mut request: Value, show: bool) -> (String, String) {
        if !show && let Some(selector) = request.get_mut("selector") {
            crate::find::dialect::hide(selector);
        }
        (request.to_string(), String::new())
    }
}
