//! SQL++ on the store's collection: a request as the repository writes it
//! ([`QueryLanguage::SqlPlusPlus`](crate::store::QueryLanguage::SqlPlusPlus)), read into a statement and the
//! SDK's options, the rows it gives back, and how current the documents a query sees are.

use couchbase::mutation_state::MutationState;
use couchbase::options::query_options::{QueryOptions, ScanConsistency};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::Error;
use crate::find::sqlpp::Keyspace;

/// How current the documents a [`Couchbase`](super::Couchbase) store's queries see are: SQL++'s scan
/// consistency, set with [`CouchbaseBuilder::query_consistency`](super::CouchbaseBuilder::query_consistency).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum QueryConsistency {
    /// Every write made before the query is in the index it reads (`request_plus`): a `find` after a
    /// `save` in the same program sees the save. The query waits for the index to catch up, longer while
    /// the collection takes many writes.
    #[default]
    RequestPlus,
    /// Every write this store value and its clones made is in the index (`at_plus`, with the mutation
    /// tokens those writes returned); other programs' writes as the index has them. A `find` after a `save`
    /// through the same store sees the save, and waits for nothing else.
    OwnWrites,
    /// The index as it is (`not_bounded`): no wait, and a document written a moment ago may be missing from
    /// the results, or matched as it was before.
    NotBounded,
}

/// A row of a statement reading documents ([`crate::find::sqlpp::select`]).
#[derive(Deserialize)]
pub(super) struct Row {
    pub(super) id: String,
    pub(super) cas: u64,
    /// The document as the query service wrote it.
    pub(super) doc: Box<RawValue>,
}

/// A SQL++ request as the repository writes it
/// ([`QueryLanguage::SqlPlusPlus`](crate::store::QueryLanguage::SqlPlusPlus)).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    statement: Vec<String>,
    #[serde(default)]
    args: Map<String, Value>,
    /// The index that serves a query reading documents.
    #[serde(default)]
    index: Option<String>,
}

/// A request read for the SDK: the statement on the store's keyspace, its options, and the index that
/// serves it (named when the query service finds no index).
#[derive(Debug)]
pub(super) struct Prepared {
    pub(super) text: String,
    pub(super) options: QueryOptions,
    pub(super) index: Option<String>,
}

/// SQL++'s scan consistency of `consistency`, given the tokens of the store's own writes: without any,
/// [`QueryConsistency::OwnWrites`] has nothing to wait for.
pub(super) fn scan_consistency(
    consistency: QueryConsistency,
    own_writes: MutationState,
) -> ScanConsistency {
    match consistency {
        QueryConsistency::RequestPlus => ScanConsistency::RequestPlus,
        QueryConsistency::OwnWrites if own_writes.tokens().is_empty() => {
            ScanConsistency::NotBounded
        }
        QueryConsistency::OwnWrites => ScanConsistency::AtPlus(own_writes),
        QueryConsistency::NotBounded => ScanConsistency::NotBounded,
    }
}

/// The statement of `request` on `keyspace` (its pieces joined by the keyspace's name), and the SDK's options:
/// its arguments as named parameters, at `consistency`.
pub(super) fn statement(
    request: &[u8],
    keyspace: &Keyspace,
    consistency: ScanConsistency,
) -> Result<Prepared, Error> {
    let label = keyspace.to_string();
    let request: Request = serde_json::from_slice(request).map_err(|err| {
        Error::store(
            &label,
            format!("not a SQL++ request (`{{\"statement\": [...], \"args\": {{...}}}}`): {err}"),
        )
    })?;
    let mut options = QueryOptions::new().scan_consistency(consistency);
    for (name, value) in request.args {
        options = options
            .add_named_parameter(name, value)
            .map_err(|err| Error::store(&label, format!("a SQL++ argument: {err}")))?;
    }
    Ok(Prepared {
        text: request.statement.join(&label),
        options,
        index: request.index,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorClass;

    fn keyspace() -> Keyspace {
        Keyspace {
            bucket: "shop".into(),
            scope: "sales".into(),
            collection: "orders".into(),
        }
    }

    #[test]
    fn a_sql_request_is_one_statement_on_the_stores_keyspace_with_named_parameters() {
        let request = serde_json::json!({
            "statement": ["SELECT META(d).id AS id FROM ", " AS d WHERE d.`n` = $p1 LIMIT $limit"],
            "args": {"p1": 5, "limit": 11},
            "index": "docmodel_order__type",
        });
        let Prepared {
            text,
            options,
            index,
        } = statement(
            &serde_json::to_vec(&request).unwrap(),
            &keyspace(),
            ScanConsistency::RequestPlus,
        )
        .unwrap();
        assert_eq!(index.as_deref(), Some("docmodel_order__type"));
        assert_eq!(
            text,
            "SELECT META(d).id AS id FROM `shop`.`sales`.`orders` AS d WHERE d.`n` = $p1 LIMIT $limit"
        );
        let params = options.named_parameters.clone().unwrap();
        assert_eq!(params.len(), 2);
        assert_eq!(params["p1"], serde_json::json!(5));
        assert_eq!(params["limit"], serde_json::json!(11));
        assert!(matches!(
            options.scan_consistency,
            Some(ScanConsistency::RequestPlus)
        ));
        let Prepared { options, index, .. } = statement(
            br#"{"statement": ["CREATE INDEX IF NOT EXISTS `i` ON ", "(`a`)"]}"#,
            &keyspace(),
            ScanConsistency::NotBounded,
        )
        .unwrap();
        assert_eq!(index, None);
        assert!(options.named_parameters.is_none());
        assert!(matches!(
            options.scan_consistency,
            Some(ScanConsistency::NotBounded)
        ));
    }

    #[test]
    fn own_writes_wait_for_the_newest_token_of_each_partition_written() {
        assert!(matches!(
            scan_consistency(QueryConsistency::OwnWrites, MutationState::new()),
            ScanConsistency::NotBounded
        ));
        // A token as the SDK reads one back (its constructor is internal to it).
        let token = |partition: u16, sequence: u64| -> couchbase::mutation_state::MutationToken {
            let state: MutationState = serde_json::from_str(&format!(
                r#"{{"shop": {{"{partition}": [{sequence}, "11"]}}}}"#
            ))
            .unwrap();
            state.tokens().remove(0)
        };
        let state = MutationState::new()
            .push_token(token(3, 40))
            .push_token(token(3, 42))
            .push_token(token(9, 7));
        let ScanConsistency::AtPlus(state) = scan_consistency(QueryConsistency::OwnWrites, state)
        else {
            panic!("own writes are waited for");
        };
        let mut tokens: Vec<(u16, u64)> = state
            .tokens()
            .iter()
            .map(|token| (token.partition_id(), token.sequence_number()))
            .collect();
        tokens.sort_unstable();
        assert_eq!(tokens, [(3, 42), (9, 7)]);
        assert!(matches!(
            scan_consistency(QueryConsistency::RequestPlus, MutationState::new()),
            ScanConsistency::RequestPlus
        ));
        assert!(matches!(
            scan_consistency(
                QueryConsistency::NotBounded,
                MutationState::new().push_token(token(1, 1))
            ),
            ScanConsistency::NotBounded
        ));
    }

    #[test]
    fn a_request_that_is_not_sql_is_refused_naming_the_keyspace() {
        for request in [
            &b"SELECT 1"[..],
            br#"{"statement": "SELECT 1"}"#,
            br#"{"statement": [], "limit": 1}"#,
        ] {
            let err = statement(request, &keyspace(), ScanConsistency::RequestPlus).unwrap_err();
            assert_eq!(err.class(), ErrorClass::Permanent, "{err}");
            let text = err.to_string();
            assert!(
                text.contains("`shop`.`sales`.`orders`") && text.contains("not a SQL++ request"),
                "{text}"
            );
        }
    }
}
