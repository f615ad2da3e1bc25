//! What a failed or unanswered SDK call is to docmodel: docmodel's own errors for a missing, taken or changed
//! document, and a class for the rest (`Transient` to try again, `Ambiguous` for a write that may have
//! landed, `Permanent`), whether the call was a key-value operation or a query.

use std::future::Future;
use std::time::Duration;

use couchbase::error::ErrorKind;

use crate::{Error, StoreErrorKind};

/// Whether an operation can have changed the store when it failed without an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Operation<'a> {
    Read,
    Write,
    /// A SQL++ query reading documents, and the index that serves it, if the request named one.
    Query {
        index: Option<&'a str>,
    },
}

/// Runs `future`, giving up after `timeout`: a read that took too long did nothing, a write may have.
pub(super) async fn within<T>(
    timeout: Duration,
    operation: Operation<'_>,
    key: &str,
    future: impl Future<Output = couchbase::error::Result<T>>,
) -> Result<T, Error> {
    match tokio::time::timeout(timeout, future).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(err)) => Err(map_error(err.kind(), operation, key, err.to_string())),
        Err(_) => Err(Error::store_with(
            timed_out(operation),
            key,
            format!("Couchbase did not answer within {timeout:?}"),
        )),
    }
}

pub(super) fn timed_out(operation: Operation<'_>) -> StoreErrorKind {
    match operation {
        Operation::Read | Operation::Query { .. } => StoreErrorKind::Transient,
        Operation::Write => StoreErrorKind::Ambiguous,
    }
}

/// The docmodel error of a failed SDK operation on `key`.
pub(super) fn map_error(
    kind: &ErrorKind,
    operation: Operation<'_>,
    key: &str,
    message: String,
) -> Error {
    let key_owned = || key.to_owned();
    if no_query_service(kind) {
        return Error::store_with(
            StoreErrorKind::Unsupported,
            key,
            format!(
                "Couchbase: this cluster has no query service (SQL++ was answered 501 Not Implemented): \
                 `find`, `count`, `ensure_indexes` and the store's key listing need one; {message}"
            ),
        );
    }
    let class = match kind {
        ErrorKind::DocumentNotFound => return Error::NotFound { key: key_owned() },
        ErrorKind::DocumentExists => return Error::AlreadyExists { key: key_owned() },
        ErrorKind::CasMismatch => return Error::Conflict { key: key_owned() },
        // The server did not take the request: it may succeed later.
        ErrorKind::TemporaryFailure
        | ErrorKind::RateLimitedFailure
        | ErrorKind::DocumentLocked
        | ErrorKind::DurabilityWriteInProgress
        | ErrorKind::DurableWriteRecommitInProgress
        | ErrorKind::ServiceNotAvailable(_) => StoreErrorKind::Transient,
        // The write reached the server, and whether it stands is not known.
        ErrorKind::DurabilityAmbiguous => StoreErrorKind::Ambiguous,
        // A query the planner cannot serve: most often, no index (`Repo::ensure_indexes` creates them).
        ErrorKind::IndexNotFound | ErrorKind::PlanningFailure => {
            let advice = match operation {
                Operation::Query { index: Some(index) } => format!(
                    "the index `{index}` serves this query: `Repo::ensure_indexes` creates it, with the \
                     model's other indexes"
                ),
                _ => "where no index serves the query, create the model's indexes with \
                      `Repo::ensure_indexes`"
                    .to_owned(),
            };
            return Error::store_with(
                StoreErrorKind::Permanent,
                key,
                format!("Couchbase: {message}; {advice}"),
            );
        }
        // No answer, or a broken connection: a write may have landed.
        ErrorKind::ServerTimeout | ErrorKind::RequestCanceled | ErrorKind::OtherFailure(_) => {
            timed_out(operation)
        }
        _ => StoreErrorKind::Permanent,
    };
    Error::store_with(class, key, format!("Couchbase: {message}"))
}

/// Whether the query service answered 501 Not Implemented: a cluster (or mock) that serves no SQL++ at all,
/// which no retry changes. The SDK reports such an answer, whose body is empty or holds no error, as a
/// failure of its own with the status in the message.
fn no_query_service(kind: &ErrorKind) -> bool {
    matches!(kind, ErrorKind::OtherFailure(message)
        if message.to_ascii_lowercase().contains("status code received 501"))
}

#[cfg(test)]
mod tests {
    use couchbase::error::InvalidArgumentErrorKind;
    use couchbase::service_type::ServiceType;

    use super::*;
    use crate::ErrorClass;

    fn class(kind: ErrorKind, operation: Operation) -> ErrorClass {
        map_error(&kind, operation, "user::1", "it failed".into()).class()
    }

    #[test]
    fn document_errors_are_docmodels_own() {
        let err = map_error(
            &ErrorKind::DocumentNotFound,
            Operation::Write,
            "user::1",
            String::new(),
        );
        assert!(
            matches!(&err, Error::NotFound { key } if key == "user::1"),
            "{err:?}"
        );
        let err = map_error(
            &ErrorKind::DocumentExists,
            Operation::Write,
            "user::1",
            String::new(),
        );
        assert!(
            matches!(&err, Error::AlreadyExists { key } if key == "user::1"),
            "{err:?}"
        );
        let err = map_error(
            &ErrorKind::CasMismatch,
            Operation::Write,
            "user::1",
            String::new(),
        );
        assert!(
            matches!(&err, Error::Conflict { key } if key == "user::1"),
            "{err:?}"
        );
    }

    #[test]
    fn failures_are_classed_for_a_retry() {
        for kind in [
            ErrorKind::TemporaryFailure,
            ErrorKind::RateLimitedFailure,
            ErrorKind::DocumentLocked,
            ErrorKind::DurabilityWriteInProgress,
            ErrorKind::ServiceNotAvailable(ServiceType::KV),
        ] {
            assert_eq!(
                class(kind.clone(), Operation::Write),
                ErrorClass::Transient,
                "{kind:?}"
            );
        }
        assert_eq!(
            class(ErrorKind::DurabilityAmbiguous, Operation::Write),
            ErrorClass::Ambiguous
        );
        for kind in [
            ErrorKind::ServerTimeout,
            ErrorKind::RequestCanceled,
            ErrorKind::OtherFailure("connection reset".into()),
        ] {
            assert_eq!(
                class(kind.clone(), Operation::Write),
                ErrorClass::Ambiguous,
                "{kind:?}"
            );
            assert_eq!(
                class(kind.clone(), Operation::Read),
                ErrorClass::Transient,
                "{kind:?}"
            );
        }
        for kind in [
            ErrorKind::AuthenticationFailure,
            ErrorKind::ValueTooLarge,
            ErrorKind::CollectionNotFound,
            ErrorKind::DurabilityImpossible,
            ErrorKind::ClusterDropped,
            ErrorKind::InvalidArgument(InvalidArgumentErrorKind::new(Some("id".to_owned()), "bad")),
        ] {
            assert_eq!(
                class(kind.clone(), Operation::Write),
                ErrorClass::Permanent,
                "{kind:?}"
            );
        }
        let err = map_error(
            &ErrorKind::AuthenticationFailure,
            Operation::Read,
            "user::1",
            "auth".into(),
        );
        assert_eq!(
            err.to_string(),
            "document `user::1`: the store failed: Couchbase: auth"
        );
    }

    /// The SDK's messages for a 501 answer with an empty body, and with a body holding no error (issue 61:
    /// it was classed transient, "a retry may succeed").
    #[test]
    fn a_query_service_answering_501_is_unsupported_and_permanent() {
        for message in [
            "non-200 status code received 501 Not Implemented but parsing error response body failed \
             EOF while parsing a value at line 1 column 0",
            "Non-200 status code received 501 Not Implemented but response body contained no errors",
        ] {
            let err = map_error(
                &ErrorKind::OtherFailure(message.into()),
                Operation::Query { index: None },
                "`default`.`_default`.`users`",
                message.into(),
            );
            assert_eq!(err.class(), ErrorClass::Permanent, "{err}");
            assert!(
                matches!(
                    &err,
                    Error::Store {
                        kind: StoreErrorKind::Unsupported,
                        ..
                    }
                ),
                "{err:?}"
            );
            assert!(
                err.to_string().contains(
                    "this cluster has no query service (SQL++ was answered 501 Not Implemented)"
                ),
                "{err}"
            );
        }
        // Another failure without an answer is still one a retry may mend.
        assert_eq!(
            class(
                ErrorKind::OtherFailure("connection reset".into()),
                Operation::Query { index: None }
            ),
            ErrorClass::Transient
        );
    }

    #[test]
    fn a_timeout_is_transient_for_a_read_and_ambiguous_for_a_write() {
        assert_eq!(timed_out(Operation::Read), StoreErrorKind::Transient);
        assert_eq!(timed_out(Operation::Write), StoreErrorKind::Ambiguous);
    }

    #[test]
    fn query_failures_are_classed() {
        for kind in [ErrorKind::ParsingFailure, ErrorKind::AuthenticationFailure] {
            assert_eq!(
                class(kind.clone(), Operation::Read),
                ErrorClass::Permanent,
                "{kind:?}"
            );
        }
        let query = Operation::Query {
            index: Some("docmodel_order__type"),
        };
        for kind in [ErrorKind::PlanningFailure, ErrorKind::IndexNotFound] {
            let err = map_error(
                &kind,
                query,
                "`shop`.`sales`.`orders`",
                "No index available".into(),
            );
            assert_eq!(err.class(), ErrorClass::Permanent);
            assert_eq!(
                err.to_string(),
                "document ``shop`.`sales`.`orders``: the store failed: Couchbase: No index available; the index \
                 `docmodel_order__type` serves this query: `Repo::ensure_indexes` creates it, with the model's \
                 other indexes"
            );
        }
        // A query naming no index (another program's request) is told to create the model's.
        let err = map_error(
            &ErrorKind::IndexNotFound,
            Operation::Query { index: None },
            "`shop`.`sales`.`orders`",
            "No index available".into(),
        );
        assert!(
            err.to_string()
                .ends_with("create the model's indexes with `Repo::ensure_indexes`"),
            "{err}"
        );
        // A query is a read: no answer in time, and it may be asked again.
        assert_eq!(
            class(ErrorKind::ServerTimeout, query),
            ErrorClass::Transient
        );
    }
}
