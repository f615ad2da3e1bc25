//! docmodel's integration tests, one module per subject, built as one test binary: after a change to docmodel
//! one binary is linked again, not one per file, and `cargo test` starts one CouchDB-protocol server for all
//! of them.
//!
//! Run one subject with a filter on its module path, e.g.
//! `cargo test -p docmodel-tests --test suite interleavings:: -- --nocapture`. Helpers the modules share (the
//! CouchDB-protocol server, stores that pause or fail, schedules) are in `docmodel_tests`, the package's library.

// The Couchbase SDK's futures (`stores`, feature `couchbase`) nest deeply: their layout needs more than the
// default 128 levels.
#![recursion_limit = "256"]

mod body;
mod claims;
mod couchdb;
mod damaged;
mod expiry;
mod find;
mod foreign;
mod hashed;
mod indexes;
mod interleavings;
mod json_schema;
mod keys;
mod limits;
/// Generated code under strict lints of a user's crate; public so that `missing_docs` sees its models.
pub mod lints;
mod lookup;
mod migrate;
mod migrate_all;
mod model;
mod protocol;
mod public_api;
mod races;
mod replication;
mod repo;
mod rustdoc;
mod seeds;
mod sqlpp;
mod stores;
#[cfg(feature = "tracing")]
mod tracing;
mod validate;
mod validation;
