//! The guide: docmodel's chapters, each a page of these docs whose every snippet is compiled and run as a
//! test (`cargo test --workspace`), so that none drifts from the API. The same chapters are Markdown files
//! under `docmodel/docs/guide/`, which the README links to.
//!
//! - [`validation`]: the model's rules, on every write and (if asked) every read.
//! - [`schema_for_other_clients`]: each model's JSON Schema, and CouchDB enforcing it for every client.
//! - [`schema_evolution`]: steps between versions, and migrating a whole store.
//! - [`adopting_documents`]: documents written before docmodel, read as they are and rewritten in the model's form.
//! - [`stores_and_revisions`]: the repository's operations, the four stores, conflicts, expiry, batches.
//! - [`finding_documents`]: typed filters, keyset pages, embedded structs and indexes, store by store.

#[doc = include_str!("../docs/guide/schema-evolution.md")]
pub mod schema_evolution {}

#[doc = include_str!("../docs/guide/finding-documents.md")]
pub mod finding_documents {}

#[doc = include_str!("../docs/guide/stores-and-revisions.md")]
pub mod stores_and_revisions {}

#[doc = include_str!("../docs/guide/adopting-documents.md")]
pub mod adopting_documents {}

#[doc = include_str!("../docs/guide/validation.md")]
pub mod validation {}

#[doc = include_str!("../docs/guide/schema-for-other-clients.md")]
pub mod schema_for_other_clients {}
