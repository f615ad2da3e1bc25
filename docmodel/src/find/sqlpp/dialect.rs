//! [`SqlPlusPlus`]: Couchbase's query language as a [`Dialect`].

use std::future::Future;

use serde_json::Value;

use super::{SqlPlusPlus, Statement, create_indexes, keys, other_schemas, select};
use crate::find::{Dialect, Query, Run, at, envelope_path, owns, stored_document};
use crate::store::QueryLanguage;
use crate::{DocModel, EnvelopeField, Error, Key, SchemaVersion};

/// How many documents one request of the older-schema count asks for.
const PAGE: usize = 1000;

// `count_older` as an `async move` block: the trait declares its future `Send`.
#[allow(clippy::manual_async_fn)]
impl Dialect for SqlPlusPlus {
    const LANGUAGE: QueryLanguage = QueryLanguage::SqlPlusPlus;

    const KEPT_INDEX_ENTRIES: bool = false;

    /// A statement, its `$limit` set when it is asked.
    type Request = Statement;

    /// SQL++ sorts by any field; a filter it cannot apply exactly fails in [`select`](Dialect::select).
    fn check<M: DocModel>(_: &Query<M>) -> Result<(), Error> {
        Ok(())
    }

    /// One statement a page: it applies the whole filter.
    fn select<M: DocModel>(query: &Query<M>) -> Result<Vec<Statement>, Error> {
        Ok(vec![select(query)?])
    }

    fn asking(mut statement: Statement, rows: usize) -> Result<Vec<u8>, Error> {
        statement.params.insert(
            "limit".to_owned(),
            u64::try_from(rows).unwrap_or(u64::MAX).into(),
        );
        statement.request()
    }

    /// The collection's key index first (what a key listing reads: [`keys::create_key_index`]), then the
    /// model's.
    fn indexes<M: DocModel>() -> Result<Vec<Vec<u8>>, Error> {
        std::iter::once(keys::create_key_index())
            .chain(create_indexes::<M>())
            .map(|statement| statement.request())
            .collect()
    }

    /// The model's documents at another schema, or none, a page of them by key a request, counted where their
    /// version is below the current one (or, without a schema, where the model reads those as older:
    /// `unversioned`).
    fn count_older<M: DocModel, R: Run>(
        run: &R,
    ) -> impl Future<Output = Result<usize, Error>> + Send {
        async move {
            let schema_path = envelope_path::<M>(EnvelopeField::Schema);
            let type_path = envelope_path::<M>(EnvelopeField::Type);
            let unversioned_older = M::UNVERSIONED.is_some_and(|version| version < M::SCHEMA);
            let mut older = 0;
            let mut after: Option<String> = None;
            loop {
                let request = other_schemas::<M>(after.as_deref(), PAGE).request()?;
                let rows = run.run(request).await?;
                let full = rows.len() >= PAGE;
                for (key, stored) in rows {
                    let value = stored_document::<M>(&stored.bytes);
                    let below = value.as_ref().is_some_and(|value| {
                        owns::<M>(value, &type_path)
                            && match at(value, &schema_path) {
                                None | Some(Value::Null) => unversioned_older,
                                Some(Value::String(text)) => SchemaVersion::parse(text)
                                    .is_ok_and(|schema| schema < M::SCHEMA),
                                Some(_) => false,
                            }
                    });
                    if below && Key::<M>::parse(&key).is_ok() {
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

    /// The statement, the keyspace written `<keyspace>`, and its named arguments, hidden unless `show`.
    #[cfg(feature = "tracing")]
    fn traced(mut request: Value, show: bool) -> (String, String) {
        let text = request["statement"]
            .as_array()
            .map(|pieces| {
                let pieces: Vec<&str> = pieces.iter().filter_map(Value::as_str).collect();
                pieces.join("<keyspace>")
            })
            .unwrap_or_default();
        let mut args = request["args"].take();
        if !show {
            crate::find::dialect::hide(&mut args);
        }
        (text, args.to_string())
    }
}
