//! The guide: docmodel's chapters, each a page of these docs whose every snippet is compiled and run as a
//! test (`cargo test --workspace`), so that none drifts from the API. The same chapters are Markdown files
//! under `docmodel/docs/guide/`, which the README links to.
//!
//! 1. [`the_attribute`]: every option of `#[docmodel(...)]`, on the model and on its fields.
//! 2. [`compile_time_checks`]: what the derive refuses, at your token.
//! 3. [`validation`]: the model's rules, on every write and (if asked) every read.
//! 4. [`schema_for_other_clients`]: each model's JSON Schema, and CouchDB enforcing it for every client.
//! 5. [`schema_evolution`]: steps between versions, and migrating a whole store.
//! 6. [`adopting_documents`]: documents written before docmodel, read as they are and rewritten in the model's form.
//! 7. [`stores_and_revisions`]: the repository's operations, the four stores, conflicts, expiry, batches.
//! 8. [`finding_documents`]: typed filters, keyset pages, embedded structs and indexes, store by store.
//! 9. [`dates`]: `Timestamp` in the body, its serde adapters and conversions.
//! 10. [`smaller_documents`]: the seeds' advice for the body, with its sizes.
//! 11. [`limits`]: what a read accepts and a repository writes.
//! 12. [`keys`]: how keys are built and checked, and models whose keys cannot meet.
//! 13. [`tracing`]: spans and events, keys and values hidden.
//! 14. [`replicated_data`]: the CouchDB guide's four designs for data two replicas change at once, side by side;
//!     the event log.

#[doc = include_str!("../docs/guide/the-attribute.md")]
pub mod the_attribute {}

#[doc = include_str!("../docs/guide/compile-time-checks.md")]
pub mod compile_time_checks {}

#[doc = include_str!("../docs/guide/validation.md")]
pub mod validation {}

#[doc = include_str!("../docs/guide/schema-for-other-clients.md")]
pub mod schema_for_other_clients {}

#[doc = include_str!("../docs/guide/schema-evolution.md")]
pub mod schema_evolution {}

#[doc = include_str!("../docs/guide/adopting-documents.md")]
pub mod adopting_documents {}

#[doc = include_str!("../docs/guide/stores-and-revisions.md")]
pub mod stores_and_revisions {}

#[doc = include_str!("../docs/guide/finding-documents.md")]
pub mod finding_documents {}

#[doc = include_str!("../docs/guide/dates.md")]
pub mod dates {}

#[doc = include_str!("../docs/guide/smaller-documents.md")]
pub mod smaller_documents {}

#[doc = include_str!("../docs/guide/limits.md")]
pub mod limits {}

#[doc = include_str!("../docs/guide/keys.md")]
pub mod keys {}

#[doc = include_str!("../docs/guide/tracing.md")]
pub mod tracing {}

#[doc = include_str!("../docs/guide/replicated-data.md")]
pub mod replicated_data {}
