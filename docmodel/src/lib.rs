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

mod codec;
mod doc;
mod envelope;
mod error;
mod find;
pub mod guide;
#[cfg(feature = "hashed")]
mod hashed;
#[cfg(feature = "json-schema")]
mod json_schema;
mod key;
mod keyshape;
pub mod keyspace;
mod lookup;
mod migrate;
mod presence;
mod reference;
mod repo;
mod revision;
mod schema;
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

pub use crate::codec::{JsonMap, JsonObject, JsonValue};
pub use crate::doc::Doc;
pub use crate::envelope::{
    Conventions, DefaultConventions, Envelope, EnvelopeField, EnvelopeSpec, Layout,
};
pub use crate::error::{Error, ErrorClass, MigrationError, StoreErrorKind};
pub use crate::find::{
    Cursor, Direction, Embedded, EnvelopeFields, EnvelopeTime, Field, Filter, Index, Operand, Page,
    Query, Unreadable,
};
#[cfg(feature = "json-schema")]
pub use crate::json_schema::{Shapes, StoredShape, json_schema, json_schemas};
pub use crate::key::{Key, KeyPart, KeyTemplate};
pub use crate::keyshape::revision_key;
pub use crate::presence::{EmptyValue, Presence};
pub use crate::reference::{Ref, ref_id};
#[doc(hidden)]
pub use crate::repo::NoStore;
pub use crate::repo::{
    Adoption, Clock, Duplicate, InsertMany, InsertProgress, Limit, Limits, MigrateAll,
    MigrationFailure, MigrationReport, NewDoc, Pages, ReindexReport, Repo, Resolve, RetryPolicy,
    SettledLookup, UpdateResult,
};
pub use crate::schema::{SchemaVersion, SchemaVersionError};
pub use crate::store::write::{Durability, Expiry};
pub use crate::timestamp::instant::{Timestamp, TimestampFormat};
pub use crate::validate::FieldError;

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
/// | `migrate_from("1.0" = step_fn, "2.0" = OlderModel)` | the migration chain, oldest first; or one step per attribute, `migrate_from = "2.0" = step_fn`. A step named with a capital letter is an older `DocModel` converted with `TryFrom`; any other is a `fn(&mut JsonObject) -> Result<(), MigrationError>` |
/// | `revisions = N` | a save keeps the replaced version under `<key><d>v<d><n>`, the last `N` of them (see [`Repo::save`]) |
/// | `lookup = "customer_ref::{customer_no}"` | a lookup document the repository keeps for the fields named, `{"ref": key}` (repeatable; see [`Repo::get_by_lookup`]) |
/// | `lookup("customer_ref::{customer_no}", ref_id)` | the same, naming the document by its bare id, the one part of its key: `{"ref": "mmustermann@domain.com"}` for `user::mmustermann@domain.com`, as the seeds' lookup documents do (a key of one part only) |
/// | `index = "customer_no"`, `index = "status, total_cents"` | a non-unique index over one or more stored fields, for [`Repo::find`] (repeatable) |
/// | `conventions = Path` | start from a [`Conventions`] type shared by a crate's models |
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

/// A document model: a struct with a type, a schema version, a key template and an envelope layout.
///
/// Implemented by `#[derive(DocModel)]`; the derive checks the model when it compiles. Writing an impl by
/// hand is possible but loses those checks.
pub trait DocModel: Sized + 'static {
    /// The document type, stored in `_type`.
    const TYPE: &'static str;
    /// The current schema version.
    const SCHEMA: SchemaVersion;
    /// The current schema version as the model writes it in `_schema` (`"3.0"`).
    const SCHEMA_TEXT: &'static str;
    /// The key template.
    const KEY: KeyTemplate;
    /// The envelope layout, names and timestamp format.
    const ENVELOPE: EnvelopeSpec;

    /// How many earlier versions a save keeps as revision copies (`#[docmodel(revisions = N)]`); `None`
    /// keeps none, though saves still count versions in `_ver` and use compare-and-swap.
    const REVISIONS: Option<u64> = None;

    /// The schema a stored document without a schema field is read as (`#[docmodel(unversioned = "1.0")]`):
    /// one written before its documents carried a version goes through the migration chain like any
    /// document of that version. `None`: such a document is [`Error::MissingSchema`].
    const UNVERSIONED: Option<SchemaVersion> = None;

    /// Other spellings of [`TYPE`](DocModel::TYPE) a stored document may carry
    /// (`#[docmodel(aliases("userProfile"))]`): read as the model's, and written back under `TYPE`.
    const TYPE_ALIASES: &'static [&'static str] = &[];

    /// Whether a document under the model's keys may have no type field at all
    /// (`#[docmodel(untyped = "accept")]`); written back with one. Queries and index entries see such
    /// documents (JSON objects under the model's key shape) as a read by key does; revision copies are
    /// recognised by their type.
    const ACCEPTS_UNTYPED: bool = false;

    /// Whether reading a document checks its body with [`validate_body`](DocModel::validate_body) too
    /// (`#[docmodel(validate_on_read)]`): a stored body that breaks the rules is then
    /// [`Error::Validation`], naming its key, instead of a value.
    const VALIDATES_ON_READ: bool = false;

    /// Checks the whole body against the model's rules, `#[docmodel(validate = path)]` and
    /// `#[docmodel(garde)]`, returning every failing field. [`Doc::new`] and every write of
    /// [`Doc`] (and so [`Repo::insert`], [`Repo::save`] and [`Repo::update`]) call it before anything is
    /// written, and fail with [`Error::Validation`]. A model without rules accepts every body.
    fn validate_body(&self) -> Result<(), Vec<FieldError>> {
        Ok(())
    }

    /// The values a key is built from, as a tuple in template order (`(u64,)` for `user::{user_id}`).
    type KeyParts;

    /// The key of this value: `user.doc_key()?` (the derive's associated `User::key(123)` builds one from
    /// the parts, without a value).
    ///
    /// Fails with [`Error::InvalidKey`] if a key field is empty or holds a character of the delimiter.
    fn doc_key(&self) -> Result<Key<Self>, Error> {
        let mut text = String::with_capacity(Self::KEY_CAPACITY);
        self.write_key(&mut text)?;
        Ok(Key::from_checked(text))
    }

    /// Splits `key` into its parts, checking it against [`KEY`](DocModel::KEY).
    fn parse_key_parts(key: &str) -> Result<Self::KeyParts, Error>;

    /// Typed paths to the model's stored fields: one [`Field`] per stored body field, named as the model
    /// names it, and [`EnvelopeFields`] under `.envelope()`. See [`DocModel::fields`].
    type Fields;

    /// The model's field paths, for filters and queries: `Order::fields().customer_no.eq(12345)` (see the
    /// [`Filter`] docs). A trait function, so that a model's own `fields` function or accessor keeps its name.
    fn fields() -> Self::Fields;

    /// The model's indexes, from `#[docmodel(index = "...")]`: what [`Repo::find`] reads instead of the
    /// model's documents when a filter fixes their fields, and what
    /// [`Repo::ensure_indexes`](crate::Repo::ensure_indexes) builds.
    const INDEXES: &'static [Index] = &[];

    // What follows is written by the derive for the runtime; not public API.

    /// The JSON names the body writes.
    #[doc(hidden)]
    const BODY_FIELDS: &'static [&'static str] = &[];

    /// The body's stored fields with their JSON Schemas, for [`json_schema`](crate::json_schema).
    #[cfg(feature = "json-schema")]
    #[doc(hidden)]
    fn __body_schema(shapes: &mut Shapes) -> __private::BodySchema {
        let _ = shapes;
        __private::BodySchema::unknown()
    }

    /// The names of [`BODY_FIELDS`](DocModel::BODY_FIELDS) that no field reads (`#[serde(skip_deserializing)]`,
    /// a `rename(deserialize = ...)` to another name). A stored field of one of these names is not kept as an
    /// unknown field, since the body writes it again.
    #[doc(hidden)]
    const WRITTEN_NOT_READ: &'static [&'static str] = &[];

    /// The body fields the writer may leave out: `Presence` fields when `Missing`, and the fields of
    /// `#[docmodel(skip_empty)]`.
    #[doc(hidden)]
    const OMIT: &'static [__private::Omit<Self>] = &[];

    /// The lookup documents the repository keeps for this model (`#[docmodel(lookup = "...")]`).
    #[doc(hidden)]
    const LOOKUPS: &'static [__private::Lookup<Self>] = &[];

    /// The migration chain, oldest first: generated from `migrate_from(...)`.
    #[doc(hidden)]
    const MIGRATIONS: &'static [__private::Migration<Self>] = &[];

    /// How many bytes a key of this model usually takes.
    #[doc(hidden)]
    const KEY_CAPACITY: usize = 32;

    /// Whether the key has parts the body does not store (`#[docmodel(from_key)]`), which a read fills from
    /// the key ([`fill_from_key`](DocModel::fill_from_key)).
    #[doc(hidden)]
    const KEY_ONLY_PARTS: bool = false;

    /// Sets the body's `from_key` fields from `key`, the key the document is read under.
    #[doc(hidden)]
    fn fill_from_key(&mut self, key: &str) -> Result<(), Error> {
        let _ = key;
        Ok(())
    }

    /// Appends the key of this value to `out`.
    ///
    /// Fails with [`Error::InvalidKey`] if a key field is empty or holds a character of the delimiter; `out`
    /// then holds the key as far as it was built.
    #[doc(hidden)]
    fn write_key(&self, out: &mut String) -> Result<(), Error>;
}

/// A model whose body stores every part of its key: what [`Doc::from_slice`] reads, with no key given.
///
/// The derive implements it for every model without `#[docmodel(from_key)]` fields. A model with one keeps
/// that part of its key out of its body, so only a read that has the key fills it: [`Doc::from_slice_at`],
/// and every read of a [`Repo`].
#[diagnostic::on_unimplemented(
    message = "`Doc::from_slice` reads no key, so it reads only a model that stores its whole key in its body, and `{Self}` is not known to",
    label = "`{Self}` is not `KeyInBody`",
    note = "a model with `#[docmodel(from_key)]` fields is read with `Doc::from_slice_at(key, bytes)`, which fills them from the key; in generic code, bound the type by `docmodel::KeyInBody`"
)]
pub trait KeyInBody: DocModel {}

/// [`__private`] under a name that holds this crate's version: the derive's expansion reaches the runtime
/// through it (`docmodel_derive::runtime::private_module`), so a derive of another version fails to compile
/// at its `use`, naming the version it expands for. The name follows the package's version (a unit test
/// holds it to it).
#[doc(hidden)]
pub use crate::__private as __private_0_1_0;

#[doc(hidden)]
/// Not public API: what the derive's expansion calls.
pub mod __private {
    pub use core;
    #[doc(hidden)]
    pub use serde_json;
    pub use std::string::String;
    pub use std::vec::Vec;

    pub use crate::validate::GardeModel;

    use crate::{DocModel, Error, Key, KeyPart, KeyTemplate};

    /// A body field the writer may leave out of the stored JSON.
    pub struct Omit<T> {
        /// The name the field is written under.
        pub name: &'static str,
        /// Left out when `null`, `""`, `[]` or `{}` (`skip_empty`); a `Presence::Missing` always is.
        pub empty: bool,
        /// Left out when this says the field holds its type's default (`skip_empty(default)`).
        pub default: Option<fn(&T) -> bool>,
    }

    /// Appends one part to a key under construction from `template`, refusing empty parts and parts
    /// holding a delimiter character.
    #[inline]
    pub fn push_part<P: KeyPart + ?Sized>(
        out: &mut String,
        template: &KeyTemplate,
        model: &'static str,
        name: &'static str,
        part: &P,
    ) -> Result<(), Error> {
        crate::key::push_part(out, template, model, name, |out| part.write_part(out))
    }

    /// [`push_part`] with the part's writer given, for parts whose type the expansion checked once.
    #[inline]
    pub fn push_part_with(
        out: &mut String,
        template: &KeyTemplate,
        model: &'static str,
        name: &'static str,
        write: impl FnOnce(&mut String),
    ) -> Result<(), Error> {
        crate::key::push_part(out, template, model, name, write)
    }

    /// A key whose text the expansion built from the template.
    #[inline]
    pub fn key<T: DocModel>(text: String) -> Key<T> {
        Key::from_checked(text)
    }

    // The key functions below take the model's type and template as values, not the model as a type
    // parameter: a crate of models then compiles them once per part type, not once per model.

    /// Splits a key of model `model` into the `N` parts of `template`.
    #[inline]
    pub fn split_key<'k, const N: usize>(
        template: &KeyTemplate,
        model: &'static str,
        text: &'k str,
    ) -> Result<[&'k str; N], Error> {
        template.split(model, text)
    }

    /// Parses one part of a key of model `model`.
    #[inline]
    pub fn parse_part<P: KeyPart>(
        text: &str,
        key: &str,
        model: &'static str,
        name: &'static str,
    ) -> Result<P, Error> {
        parse_part_with(text, key, model, name, P::parse_part)
    }

    /// [`parse_part`] with the part's parser given.
    #[inline]
    pub fn parse_part_with<P>(
        text: &str,
        key: &str,
        model: &'static str,
        name: &'static str,
        parse: fn(&str) -> Option<P>,
    ) -> Result<P, Error> {
        match parse(text) {
            Some(part) => Ok(part),
            None => Err(invalid_part(
                text,
                key,
                model,
                name,
                core::any::type_name::<P>(),
            )),
        }
    }

    /// The error of a key part that does not parse as `type_name`.
    #[cold]
    fn invalid_part(
        text: &str,
        key: &str,
        model: &'static str,
        name: &'static str,
        type_name: &'static str,
    ) -> Error {
        Error::InvalidKey {
            model,
            key: key.to_owned(),
            reason: format!("the part `{name}` = {text:?} is not a valid `{type_name}`"),
        }
    }

    pub use crate::codec::Decoded;
    pub use crate::envelope::{
        assert_delimiter, assert_envelope_valid, assert_no_collision, assert_root_layout, str_eq,
    };
    #[cfg(feature = "json-schema")]
    pub use crate::json_schema::couchdb::validation_level;
    #[cfg(feature = "json-schema")]
    pub use crate::json_schema::{BodySchema, Open, Probe, ViaShape, object_shape, open_shape};
    pub use crate::key::Segment;
    pub use crate::lookup::Lookup;
    pub use crate::migrate::{Migration, Step, TypedFailure, TypedRead, typed_step};
    pub use crate::schema::SchemaVersion;
    /// A stored field's JSON: the value type of the path of a field serde writes its own way.
    pub type JsonValue = serde_json::Value;

    /// A key template of segments the derive checked.
    pub const fn key_template(
        pattern: &'static str,
        delimiter: &'static str,
        segments: &'static [Segment],
    ) -> KeyTemplate {
        KeyTemplate::new(pattern, delimiter, segments)
    }

    /// [`key_template`] for a model with `allow(control_chars_in_keys)`.
    pub const fn key_template_allowing_any_text(
        pattern: &'static str,
        delimiter: &'static str,
        segments: &'static [Segment],
    ) -> KeyTemplate {
        KeyTemplate::new(pattern, delimiter, segments).allowing_any_text()
    }

    /// The writer and parser of a key part type, named once so that a type that is not a [`KeyPart`] is
    /// reported once, at the field's type.
    pub type PartFns<P> = (fn(&P, &mut String), fn(&str) -> Option<P>);
}

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
