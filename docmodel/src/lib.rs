//! Typed, versioned JSON document models for Couchbase, CouchDB and embedded stores.
//!
//! `#[derive(DocModel)]` on a serde struct gives it an identity (`type`), a schema version, a typed key built
//! from its fields, accessors with validation hooks, and a managed envelope (`_type`, `_schema`, `_ver`,
//! `_created`, `_modified`, ...), all checked by the compiler. [`Doc<T>`] reads and writes the stored JSON.
//!
//! ```
//! use docmodel::{Doc, DocModel};
//! use serde::{Deserialize, Serialize};
//!
//! /// A registered user.
//! #[derive(Debug, Serialize, Deserialize, DocModel)]
//! #[serde(rename_all = "camelCase")]
//! #[docmodel(type = "user", schema = "3.0", key = "user::{user_id}")]
//! pub struct User {
//!     /// The user's id, fixed at creation.
//!     #[docmodel(get)]
//!     user_id: u64,
//!     /// Given name.
//!     #[docmodel(get, set)]
//!     first_name: String,
//! }
//!
//! assert_eq!(User::key(123).as_str(), "user::123");
//!
//! let doc = Doc::new(User { user_id: 123, first_name: "Joe".into() })?;
//! let stored = doc.to_vec()?;
//! assert_eq!(stored, br#"{"_type":"user","_schema":"3.0","_ver":1,"userId":123,"firstName":"Joe"}"#);
//! # Ok::<(), docmodel::Error>(())
//! ```
//!
//! The attribute's grammar is in the [`DocModel`](derive@DocModel) derive's documentation.
//!
//! # In a store
//!
//! [`Repo<T>`] keeps a model's documents in a [`Store`](store::Store): it stamps the envelope, migrates
//! older documents on read (along the `migrate_from` chain), keeps revision copies, and saves with compare-and-swap so a stale
//! copy never overwrites newer data.
//!
//! ```
//! # use docmodel::DocModel;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Debug, Serialize, Deserialize, DocModel)]
//! # #[serde(rename_all = "camelCase")]
//! # #[docmodel(type = "user", schema = "3.0", key = "user::{user_id}", revisions = 10)]
//! # pub struct User {
//! #     #[docmodel(get)]
//! #     user_id: u64,
//! #     #[docmodel(get, set)]
//! #     first_name: String,
//! # }
//! use docmodel::{Error, Repo, store::MemoryStore};
//!
//! # pollster::block_on(async {
//! let store = MemoryStore::new(); // or `docmodel::store::Redb::open("app.db")?`
//! let users = Repo::<User>::new(&store).actor("admin");
//! users.insert(User { user_id: 123, first_name: "Joe".into() }).await?;
//!
//! let mut stale = users.get(&User::key(123)).await?.unwrap();
//! users.update(&User::key(123), |user| user.set_first_name("Joseph")).await?;
//! stale.set_first_name("Jo");
//! assert!(matches!(users.save(&mut stale).await, Err(Error::Conflict { .. })));
//!
//! let history = users.revisions(&User::key(123)).await?;
//! assert_eq!((history[0].first_name(), history[0].envelope().ver), ("Joe", 1));
//! # Ok::<(), Error>(())
//! # }).unwrap();
//! ```
//!
//! The protocol a repository keeps with other writers and crashes is on [`Repo`]'s page.
//!
//! # Where things are
//!
//! Each public item has one path. What a model and its repository use is at the crate root, from private
//! modules (as redb does): [`Doc`], [`Repo`] and its options and reports, [`Key`], [`Filter`] and
//! [`Query`], [`Timestamp`], [`Presence`], `Hashed`, [`Error`]. A module is public only where it is a
//! namespace of its own, holding what only some users reach for, and its items are there alone:
//!
//! | module | holds |
//! |---|---|
//! | [`store`] | the [`Store`](store::Store) trait, its types, and the stores: [`MemoryStore`](store::MemoryStore), `Redb`, `CouchDb`, `Couchbase`, [`DynStore`](store::DynStore) |
//! | [`timestamp`] | serde adapters for a body field's time format (`#[serde(with = "docmodel::timestamp::epoch_s")]`), and [`OutOfRange`](timestamp::OutOfRange) |
//! | [`ref_id`] | the serde adapter that stores a [`Ref`] as its bare id |
//! | `uuid_simple` | serde adapters for dash-less UUIDs in a body (feature `uuid`) |
//! | [`keyspace`] | the check that no two models' keys can meet |
//! | [`guide`] | the guide's chapters, every snippet a test |
//!
//! `__private` holds what generated code calls; it is not public API.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod child;
mod codec;
mod doc;
mod envelope;
mod error;
mod event_log;
mod find;
pub mod guide;
#[cfg(feature = "hashed")]
mod hashed;
#[cfg(test)]
mod json_places;
#[cfg(feature = "json-schema")]
mod json_schema;
mod key;
mod keyshape;
pub mod keyspace;
mod lineage;
pub mod lock;
mod lookup;
pub mod merge;
mod migrate;
mod model;
mod order_key;
mod presence;
mod reference;
mod repo;
mod revision;
pub mod store;
pub mod timestamp;
#[cfg(feature = "tracing")]
pub mod trace;
#[cfg(not(feature = "tracing"))]
mod trace;
#[cfg(feature = "uuid")]
pub mod uuid_simple;
mod validate;

#[cfg(feature = "hashed")]
pub use crate::hashed::{HashInput, HashKey, Hashed};
#[cfg(feature = "uuid")]
pub use uuid;

pub use crate::child::{Child, Orphans, Parent};
pub use crate::codec::{JsonMap, JsonObject, JsonValue};
pub use crate::doc::Doc;
pub use crate::envelope::{
    Conventions, DefaultConventions, Envelope, EnvelopeField, EnvelopeSpec, Layout,
};
pub use crate::error::{Error, ErrorClass, MigrationError, StoreErrorKind};
pub use crate::event_log::{Compaction, EventLog, Fold, Folded};
pub use crate::find::{
    Cursor, Direction, Embedded, EnvelopeFields, EnvelopeTime, Field, Filter, Index, Operand, Page,
    Query, Unreadable,
};
#[cfg(feature = "json-schema")]
pub use crate::json_schema::{Shapes, StoredShape, json_schema, json_schemas};
pub use crate::key::{Key, KeyPart, KeyTemplate};
pub use crate::keyshape::revision_key;
pub use crate::model::{DocModel, KeyInBody};
pub use crate::order_key::{OrderKey, OrderKeyError};
pub use crate::presence::{EmptyValue, Presence};
pub use crate::reference::{Ref, ref_id};
#[doc(hidden)]
pub use crate::repo::NoStore;
pub use crate::repo::{
    Adoption, Clock, Duplicate, InsertMany, InsertProgress, Limit, Limits, MigrateAll,
    MigrationFailure, MigrationReport, NewDoc, Pages, Partition, PartitionError, Reindex,
    ReindexReport, Repo, Resolve, RetryPolicy, SettledLookup, UpdateResult, Walk,
};
// Schema versions have one grammar, which the derive reads declared versions with at compile time and the
// runtime reads documents' versions with: it lives in the crate both depend on.
pub use crate::store::write::{Durability, Expiry};
pub use crate::timestamp::instant::{Timestamp, TimestampFormat};
pub use crate::validate::FieldError;
#[doc(inline)]
pub use docmodel_shape::{SchemaVersion, SchemaVersionError};

/// Derives [`DocModel`](trait@DocModel), the model's key constructor and its accessors.
///
/// ```
/// use docmodel::DocModel;
/// use serde::{Deserialize, Serialize};
///
/// # mod phone { pub fn normalize(p: Vec<String>) -> Result<Vec<String>, docmodel::Error> { Ok(p) } }
/// #[derive(Serialize, Deserialize, DocModel)]
/// #[serde(rename_all = "camelCase")]
/// #[docmodel(type = "user", schema = "3.0", key = "user::{domain}::{user_id}")]
/// #[docmodel(envelope(layout = "plain", timestamps = "epoch_s", created_by))]
/// pub struct User {
///     #[docmodel(get)]
///     domain: String,
///     #[docmodel(get)]
///     user_id: u64,
///     /// Given name.
///     #[docmodel(get, set)]
///     first_name: String,
///     #[docmodel(get, set(with = phone::normalize), push = add_phone)]
///     phones: Vec<String>,
/// }
///
/// let mut user = User { domain: "foo.org".into(), user_id: 1, first_name: "Jo".into(), phones: vec![] };
/// user.set_first_name("Joe");
/// user.add_phone("1234567890")?;
/// assert_eq!(User::key("foo.org", 1)?.as_str(), "user::foo.org::1");
/// # Ok::<(), docmodel::Error>(())
/// ```
///
/// # On the struct
///
/// Several `#[docmodel(...)]` attributes are merged; an option given twice is an error.
///
/// | option | meaning |
/// |---|---|
/// | `type = "user"` | required: the document type, stored in `_type` |
/// | `schema = "3.0"` | required: the schema version, `major.minor[.patch]`, stored in `_schema` |
/// | `key = "user::{user_id}"` | required: the key template; `{field}` placeholders name fields, and the one delimiter (`::`, `:`, `_`, `\|`, ...) separates every segment |
/// | `envelope(layout = "...")` | `"flat"` (default), `"plain"` (no leading underscores, for Sync Gateway), `"meta"` (one `meta` object) or `"root"` (the data-modeling guide's root attribute: `{"track": {...}}`, one top-level attribute named by the type holding the rest; queries see the fields under it) |
/// | `envelope(created_by, modified_by, accessed, geo)` | keep these optional envelope fields |
/// | `envelope(timestamps = "...")` | `"epoch_ms"` (default), `"epoch_s"`, `"epoch_min"`, `"epoch_h"`, `"epoch_day"`, `"iso8601"`; changing it is a schema change (see below) |
/// | `envelope(names(type = "docType", ..., meta = "_meta"))` | store envelope fields under other names |
/// | `envelope(legacy_names(type = "_type", ...))` | also read envelope fields under other names (another program's spelling), never written: see [`EnvelopeSpec::with_legacy_name`] |
/// | `envelope(zoneless = "utc")` | read stored times that carry no zone (`"2015-01-28T13:50:56"`, `[2015, 1, 28, 13, 50, 56]`) as UTC, or at an offset such as `"+01:00"`; without it they are an error naming the field and the value. Times are written back in the model's format |
/// | `unversioned = "1.0"` | a stored document without a schema field is read as this version (and migrated from it like any); without it, such a document is [`Error::MissingSchema`] |
/// | `aliases("userProfile", "UserProfile")` | other spellings of the type, read as the model's and written back as `type` |
/// | `untyped = "accept"` | a document under the model's keys may have no type field (written back with one); queries see it, revision copies are typed |
/// | `collection = "users"` | the Couchbase collection the model's documents live in: `Couchbase::repo::<Model>()` opens its repository there, in the store's scope; other stores ignore it. A name Couchbase takes (1 to 251 of `A-Z a-z 0-9 _ - %`, not starting with `_` or `%`) |
/// | `migrate_from("1.0" = step_fn, "2.0" = OlderModel)` | the migration chain, oldest first; or one step per attribute, `migrate_from = "2.0" = step_fn`. A step named with a capital letter is an older `DocModel` converted with `TryFrom`; any other is a `fn(&mut JsonObject) -> Result<(), MigrationError>` |
/// | `revisions = N` | a save keeps the replaced version under `<key><d>v<d><n>`, the last `N` of them (see [`Repo::save`]) |
/// | `lookup = "customer_ref::{customer_no}"` | a lookup document the repository keeps for the fields named, `{"ref": key}` (repeatable; see [`Repo::get_by_lookup`]) |
/// | `lookup("customer_ref::{customer_no}", ref_id)` | the same, naming the document by its bare id, the one part of its key: `{"ref": "mmustermann@domain.com"}` for `user::mmustermann@domain.com`, as the seeds' lookup documents do (a key of one part only) |
/// | `index = "customer_no"`, `index = "status, total_cents"` | a non-unique index over one or more stored fields, for [`Repo::find`] (repeatable) |
/// | `items(Bookmark, Folder)` | the models whose documents are this one's items (each a [`Child`] of it); the model is then a [`Parent`]: [`Repo::remove_with_items`] removes a document with them, and theirs, leaving none without its parent |
/// | `conventions = Path` | start from a [`Conventions`] type shared by a crate's models |
/// | `merge = "newer"` | the rule a three-way merge ([`merge`], [`Resolve::merge`], [`Repo::save_merging`]) decides what both sides changed differently by, in every field without its own: `"ours"`, `"theirs"`, `"newer"`, `"max"`, `"min"` or `"union"` ([`merge::MergeRule`]) |
/// | `bound = "K: KeyPart + 'static"` | the where-clause of the generated impls, instead of the derive's (`P: 'static` for every type parameter, `K: KeyPart` for one that is a key part) |
/// | `crate = "path"` | where the `docmodel` crate is, if it is re-exported |
///
/// # On a field
///
/// | option | generates |
/// |---|---|
/// | `get` | `fn field(&self)`: by value for numbers, `bool` and `char`; `&str` for `String`; `&[T]` for `Vec<T>`; `Option<&T>` (`Option<&str>`) for `Option<T>`; `&T` otherwise |
/// | `get(copy)` | the getter returns a copy, for your own `Copy` types |
/// | `set` | `fn set_field(&mut self, value: impl Into<T>)`; a field without `set` cannot be changed through the API, and a key part cannot have one |
/// | `set(with = path)` | the setter passes the value through `path: fn(T) -> Result<T, docmodel::Error>`, which may normalize it, and returns its error with the field unchanged |
/// | `push = add_item` | `fn add_item(&mut self, item: impl Into<Item>)` on a `Vec<Item>` field; with `set(with = ...)` it validates the whole list the same way and returns `Result` |
/// | `nested` | its path in `Model::fields()` is the struct's own paths ([`Embedded`](trait@Embedded)): `Model::fields().address.city`; the field's type derives `Embedded` (or is an `Option` of one) |
/// | `merge = "union"`, `merge(union, order_by = "at")` | the rule of this field's true conflicts in a three-way merge, as on the struct; `union` for append-only lists, sorted by the elements' `order_by` field |
/// | `merge = my_merge`, `merge(with = my_merge)` | this field's conflicts merged by `fn(base: Option<F>, ours: F, theirs: F) -> F`, for a field of type `F` |
/// | `merge(by = "id")` | in a merge, the elements of the lists in this field line up by their field `id` (with a rule: `merge(union, by = "id")`) |
/// | `parent` | the field, a [`Ref`] (or an `Option<Ref>` where items nest), refers to the document this one is an item of: the model is a [`Child`], listed by [`Repo::children`], with indexes over the field alone and over the field then the `order` field |
/// | `order` | beside `parent`: the field (an [`OrderKey`], say) gives the item's place among its siblings, with an index on it alone as well |
/// | `from_key` | with `#[serde(skip)]`: a key part the stored body leaves out, filled from the key by every read that has one; the model is then not [`KeyInBody`], so [`Doc::from_slice`] (which has no key) does not compile for it and [`Doc::from_slice_at`] reads it. The field has no path and no index |
///
/// The field's own `///` docs are carried onto its accessors.
///
/// # Changing the timestamp format is a schema change
///
/// Stored timestamps carry no unit: `1544759124478` read as seconds is the year 50921. Reading therefore
/// refuses an epoch value outside the years 0000 to 9999 of the model's format with [`Error::Codec`] naming
/// the field, and a model that changes `timestamps` raises its schema version and converts the older
/// documents with a migration step:
///
/// ```
/// use docmodel::{Doc, DocModel, JsonObject, MigrationError};
/// use serde::{Deserialize, Serialize};
///
/// /// Schema 1.0 wrote milliseconds; 2.0 writes seconds.
/// fn millis_to_seconds(doc: &mut JsonObject) -> Result<(), MigrationError> {
///     for field in ["_created", "_modified"] {
///         if let Some(millis) = doc.get(field).and_then(serde_json::Value::as_i64) {
///             doc.insert(field.into(), (millis / 1000).into());
///         }
///     }
///     Ok(())
/// }
///
/// #[derive(Serialize, Deserialize, DocModel)]
/// #[docmodel(type = "event", schema = "2.0", key = "event::{id}", migrate_from("1.0" = millis_to_seconds))]
/// #[docmodel(envelope(timestamps = "epoch_s"))]
/// struct Event {
///     id: u64,
/// }
///
/// let old = br#"{"_type":"event","_schema":"1.0","_ver":1,"_created":1544759124478,"_modified":1544759124478,"id":1}"#;
/// let doc = Doc::<Event>::from_slice(old)?;
/// assert_eq!(doc.envelope().created.unwrap().to_string(), "2018-12-14T03:45:24.000Z");
///
/// // Without the step (the format changed, the schema did not), the value is refused, not misread:
/// let misread = br#"{"_type":"event","_schema":"2.0","_ver":1,"_created":1544759124478,"id":1}"#;
/// let err = Doc::<Event>::from_slice(misread).err().unwrap();
/// assert!(err.to_string().contains("`_created` = 1544759124478 is out of range for `epoch_s`"));
/// # Ok::<(), docmodel::Error>(())
/// ```
///
/// # Keys
///
/// `Model::key(parts...)` takes each key part in template order: integers by value, `String` parts as `&str`,
/// other types by reference. It returns [`Key<Model>`] when every part is an unsigned integer (nothing can go
/// wrong) and `Result<Key<Model>, Error>` otherwise: a part that is empty or contains a character of the
/// delimiter is refused with [`Error::InvalidKey`], so a key always parses back to the parts it was built from.
pub use docmodel_derive::DocModel;

/// Derives [`Embedded`](trait@Embedded): field paths for a struct stored inside a model's body, which a model's
/// field marked `#[docmodel(nested)]` gives under its own path.
///
/// The paths follow serde's names (`rename_all`, `rename`); a field serde skips has none, one serde writes its
/// own way (`with`, `serialize_with`) is compared as the JSON it stores, and a field marked
/// `#[docmodel(nested)]` nests again. `#[serde(flatten)]`, `#[serde(transparent)]`, enums, tuple structs and
/// generic structs are refused with an error naming why. The generated paths struct,
/// `<Struct as Embedded>::Fields<M>`, has a member per stored field and `whole()`, the path of the struct
/// itself.
///
/// ```
/// use docmodel::Embedded;
/// # use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, Embedded)]
/// struct Geo {
///     #[serde(rename = "lat")]
///     latitude: f64,
///     #[serde(rename = "lon")]
///     longitude: f64,
/// }
/// ```
pub use docmodel_derive::Embedded;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

/// [`__private`] under a name that holds this crate's version: the derive's expansion reaches the runtime
/// through it (`docmodel_derive::runtime::private_module`), so a derive of another version fails to compile
/// at its `use`, naming the version it expands for. The name follows the package's version (a unit test
/// holds it to it).
#[doc(hidden)]
pub use crate::__private as __private_0_1_0;

/// A [`JsonValue`] from JSON text with Rust expressions in it, as `serde_json::json!` builds it: for the
/// values a JSON step writes, without a dependency on `serde_json` of the step's own.
///
/// ```
/// use docmodel::{JsonObject, MigrationError, json};
///
/// fn phone_to_phones(doc: &mut JsonObject) -> Result<(), MigrationError> {
///     let phone = doc.remove("phone").unwrap_or_default();
///     doc.insert("phones".into(), json!([{ "type": "home", "number": phone }]));
///     Ok(())
/// }
///
/// let mut doc = JsonObject::new();
/// doc.insert("phone".into(), json!("555-1234"));
/// phone_to_phones(&mut doc).unwrap();
/// assert_eq!(doc["phones"][0]["number"], "555-1234");
/// ```
#[macro_export]
macro_rules! json {
    ($($json:tt)+) => {
        $crate::__private::serde_json::json!($($json)+)
    };
}

#[cfg(test)]
mod tests {
    /// The derive names the hidden module after its own version; the runtime's must be the same.
    #[test]
    fn the_hidden_module_is_named_after_the_version() {
        let version = env!("CARGO_PKG_VERSION").replace(['.', '-', '+'], "_");
        let alias = format!("pub use crate::__private as __private_{version};");
        assert!(
            include_str!("lib.rs").contains(&alias),
            "lib.rs must hold `{alias}` (the derive of this version names that module)"
        );
    }
}
