//! Translation of a [`Query`](super::Query) to a CouchDB Mango `_find` request.
