//! Schema migration: a model's chain of steps from every older schema to the current one, the routing of a
//! stored document by its schema version, and the read entry that puts the codec and the chain together.
//!
//! A document carries its schema version. Reading one of the current major version takes the one-pass path
//! of every read; only a document an older major version wrote (or one a listed step names) is parsed into a
//! [`JsonObject`](crate::JsonObject) and moved up the chain step by step.
//!
//! # Files
//!
//! - `chain.rs`: the chain as the derive generates it ([`Migration`], [`Step`], [`TypedRead`],
//!   [`TypedFailure`]), and what the runtime does around a JSON step: it checks the document's type, adopts a
//!   document written under an alias, without a type or without a schema, runs the step, and writes the
//!   schema the step moved the document to.
//! - `route.rs`: which way a document of a schema version goes for a model (read as stored, up the chain
//!   from one entry, too new, unsupported), and the same answer as the one-pass reader takes it (`at_schema`:
//!   read, stop, refuse).
//! - `read.rs`: the read entry, `read::read`, which `Doc` calls, and [`typed_step`], the read of a typed
//!   step.
//!
//! # The read path
//!
//! Data flows one way: `read` uses `route`, `chain` and the codec; `route` uses `chain` and the codec's
//! `AtSchema`; `chain` uses the codec's types. The codec uses nothing of this module: the router's answer
//! reaches the one-pass reader as a function it is given (`route::at_schema`), and a document to migrate
//! comes back from it as a value (`NotRead::Stopped`) that `read` acts on.
//!
//! 1. `read::read` first looks where docmodel writes the schema (`codec::leading_schema`): a document of a
//!    model with a chain, beginning with a schema the chain migrates, goes straight to step 3, unparsed.
//! 2. Otherwise `codec::decode` reads the document in one pass as the current model, asking
//!    `route::at_schema` at the schema it reads. A document of a schema the model reads comes back decoded;
//!    one the chain reads stops the pass (`NotRead::Stopped`) and goes to step 3; one the model reads no
//!    document of comes back `NotRead::Refused`, which `read` reports as [`Error::SchemaTooNew`] or
//!    [`Error::UnsupportedSchema`], naming the key when the body gave one.
//! 3. `read::migrate` runs the chain from the entry `route::route` names. A model that adopts documents has
//!    them parsed first by the codec's strict parser (`codec::strict_object`) and rewritten
//!    (`chain::adopt`). JSON steps share one parsed object (`chain::apply_json`, after `chain::check_type`);
//!    a typed step hands the bytes (the stored ones, or the object written out) to its [`TypedRead`]
//!    ([`typed_step`]: `read::read` of the older model, with its own chain, then `TryFrom`), whose result is
//!    the document read, and no later entry runs. After JSON steps the object must be of the model's type
//!    and decode as the current model, with `codec::decode` from its exact text where a stored number needs
//!    it, else with `codec::decode_object`: anything else is [`Error::Migration`].
//!
//! [`Error::SchemaTooNew`]: crate::Error::SchemaTooNew
//! [`Error::UnsupportedSchema`]: crate::Error::UnsupportedSchema
//! [`Error::Migration`]: crate::Error::Migration

mod chain;
pub(crate) mod read;
pub(crate) mod route;

pub use chain::{Migration, Step, TypedFailure, TypedRead};
pub use read::typed_step;
