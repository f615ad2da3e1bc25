//! docmodel's integration tests, one module per subject, built as one test binary: after a change to docmodel
//! one binary is linked again, not one per file, and `cargo test` starts one CouchDB-protocol server for all
//! of them.
//!
//! Run one subject with a filter on its module path, e.g.
//! `cargo test -p docmodel-tests --test suite interleavings:: -- --nocapture`. Helpers the modules share (the
//! CouchDB-protocol server, stores that pause or fail, schedules) are in `docmodel_tests`, the package's library.
//!
//! # Where a behaviour is tested
//!
//! | behaviour | module |
//! |---|---|
//! | a model's keys, accessors, envelope and JSON (the seeds' User) | `model` |
//! | keys parse back to their parts, never shared | `keys` |
//! | fields' presence, `skip_empty`, UUIDs, nested structs in the body | `body` |
//! | the seeds' printed documents read as they are | `seeds` |
//! | documents other programs wrote: aliases, untyped, legacy names, roots | `foreign` |
//! | schema evolution of one document; of a whole store | `migrate`; `migrate_all` |
//! | whole-store jobs: the walk of a model (`Repo::all`), jobs split into partitions | `jobs` |
//! | what a stored document may hold (depth, numbers, text) | `limits` |
//! | validation on write and read | `validate` |
//! | the repository in the flat layout: envelope upkeep, updates, failures | `repo` |
//! | one behavioural suite on every store (CRUD, CAS, counters, bulk, revisions) | `stores` |
//! | stores around stores (a user's `Layer`, `DynStore`); key listings in pages | `wrappers` |
//! | expiry and durability through the repository | `expiry` |
//! | lookup documents; claims and failed writes around them | `lookup`; `claims` |
//! | indexes the repository keeps; `find` and `count` on every store | `indexes`; `find` |
//! | SQL++ as the repository meets it | `sqlpp` |
//! | two writers in every order; interleaved step by step | `interleavings`; `races` |
//! | where the repository meets other models and earlier lives of a key | `protocol` |
//! | CouchDB's own: ids, requests per operation, the key listing | `couchdb` |
//! | replication conflicts and their resolution | `replication` |
//! | order keys sort the same on every store; items listed under their parent in order | `order_keys`; `children` |
//! | an event log's events folded in one order, compacted, and a compaction stopped at any step | `event_log` |
//! | three-way merges: conflicts and stale saves merged from the base | `merge` |
//! | the schema lock: the seeds' User locked at each version, changes classified, two programs' shapes | `lock` |
//! | a damaged Redb file | `damaged` |
//! | translucent (hashed) fields | `hashed` |
//! | the JSON Schema; the server's validation function against the reader | `json_schema`; `validation` |
//! | tracing spans and events | `tracing` |
//! | generated code under strict lints; the model's rustdoc page | `lints`; `rustdoc` |
//! | 40 calls in one `async fn` compile without a recursion limit, on every store | `awaits` |
//! | the README's example, compiled and run (the guide's snippets are docmodel's doctests) | `readme` |
//! | the runtime's public API listing (ignored here, run by `.ci/run`) | `public_api` |

// No `#![recursion_limit]`: a user's program needs none, on any store (`awaits`).

/// One test per store for each of a module's suites written once, generic over the store (`async fn
/// suite<S: Fresh>()`), named `<store>::<suite>`: MemoryStore, Redb, CouchDB, and Couchbase where a cluster is
/// given (reported as ignored otherwise). Suites that need SQL++ on Couchbase (`find`, `count`, indexes,
/// the key listing, whole-store jobs) are given as `on_every_store!(sqlpp [...])`: on a cluster without a
/// query service (`DOCMODEL_COUCHBASE_QUERY=none`, see `docmodel_tests::couchbase`) they are reported as
/// ignored, "not run on this cluster: no query service".
macro_rules! on_every_store {
    ([$($suite:ident),* $(,)?]) => {
        on_every_store!(@stores [$($suite),*]);
        // Never applies: every cluster runs these.
        on_every_store!(@couchbase [$($suite),*] cfg_attr(any(), ignore));
    };
    (sqlpp [$($suite:ident),* $(,)?]) => {
        on_every_store!(@stores [$($suite),*]);
        on_every_store!(@couchbase [$($suite),*] cfg_attr(
            all(couchbase_cluster, not(couchbase_query)),
            ignore = "not run on this cluster: no query service (SQL++ answered 501; DOCMODEL_COUCHBASE_QUERY=none)"
        ));
    };
    (@stores [$($suite:ident),*]) => {
        on_every_store!(@store memory: ::docmodel::store::MemoryStore, [$($suite),*]);
        on_every_store!(@store redb: ::docmodel::store::Redb, [$($suite),*]);
        on_every_store!(@store couchdb: ::docmodel::store::CouchDb, [$($suite),*]);
    };
    // Only where a cluster is given; otherwise each test is reported as ignored, naming the variables to set.
    (@couchbase [$($suite:ident),*] $attr:meta) => {
        #[cfg(feature = "couchbase")]
        mod couchbase {
            $(
                #[tokio::test]
                #[cfg_attr(
                    not(couchbase_cluster),
                    ignore = "not run: no Couchbase cluster; set DOCMODEL_COUCHBASE_URL, DOCMODEL_COUCHBASE_USER, \
                              DOCMODEL_COUCHBASE_PASSWORD and DOCMODEL_COUCHBASE_BUCKET"
                )]
                #[$attr]
                async fn $suite() {
                    super::$suite::<docmodel_tests::couchbase::Listed>().await;
                }
            )*
        }
    };
    (@store $store:ident: $ty:ty, [$($suite:ident),*]) => {
        mod $store {
            $(
                #[tokio::test]
                async fn $suite() {
                    super::$suite::<$ty>().await;
                }
            )*
        }
    };
}

mod awaits;
mod body;
mod children;
mod claims;
mod couchdb;
mod damaged;
mod event_log;
mod expiry;
mod find;
mod foreign;
mod hashed;
mod indexes;
mod interleavings;
mod jobs;
mod json_schema;
mod keys;
mod limits;
/// Generated code under strict lints of a user's crate; public so that `missing_docs` sees its models.
pub mod lints;
mod lock;
mod lookup;
mod merge;
mod migrate;
mod migrate_all;
mod model;
mod order_keys;
mod protocol;
mod public_api;
mod races;
mod readme;
mod replication;
mod repo;
mod retention;
mod rustdoc;
mod seeds;
mod sqlpp;
mod stores;
#[cfg(feature = "tracing")]
mod tracing;
mod validate;
mod validation;
mod wrappers;
