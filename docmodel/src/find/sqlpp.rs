//! Translation of a [`Query`](super::Query) to SQL++ (Couchbase).
