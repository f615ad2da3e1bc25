//! The traits a model implements: [`DocModel`], written by the derive, and [`KeyInBody`].

use crate::{EnvelopeSpec, Error, FieldError, Index, Key, KeyTemplate, SchemaVersion};
#[cfg(feature = "json-schema")]
use crate::{Shapes, json_schema::BodySchema};
use crate::{lookup::Lookup, migrate::Migration};

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

    /// How long a copy past [`REVISIONS`](DocModel::REVISIONS) is still kept after its version stopped being
    /// current (`#[docmodel(revisions(keep = N, for = "30d"))]`): a copy goes only when it is both past the
    /// count and older than this, so replicas apart for less than it always find the version they forked
    /// from. `None`: the count alone decides.
    const REVISIONS_FOR: Option<core::time::Duration> = None;

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

    /// The Couchbase collection the model's documents live in (`#[docmodel(collection = "users")]`):
    /// `Couchbase::repo` opens the model's repository on it, in the store's scope. Other stores hold every
    /// model in one keyspace and ignore it.
    const COLLECTION: Option<&'static str> = None;

    /// How a three-way merge decides what both sides changed differently (`#[docmodel(merge = ...)]` on
    /// the model and its fields): [`Resolve::merge`](crate::Resolve::merge) and
    /// [`Repo::save_merging`](crate::Repo::save_merging). No rules report every such place.
    const MERGE: crate::merge::MergeRules = crate::merge::MergeRules::NONE;

    /// Whether reading a document checks its body with [`validate_body`](DocModel::validate_body) too
    /// (`#[docmodel(validate_on_read)]`): a stored body that breaks the rules is then
    /// [`Error::Validation`], naming its key, instead of a value.
    const VALIDATES_ON_READ: bool = false;

    /// Checks the whole body against the model's rules, `#[docmodel(validate = path)]` and
    /// `#[docmodel(garde)]`, returning every failing field. [`Doc::new`](crate::Doc::new) and every write of
    /// [`Doc`](crate::Doc) (and so [`Repo::insert`](crate::Repo::insert), [`Repo::save`](crate::Repo::save) and [`Repo::update`](crate::Repo::update)) call it before anything is
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

    /// Typed paths to the model's stored fields: one [`Field`](crate::Field) per stored body field, named as the model
    /// names it, and [`EnvelopeFields`](crate::EnvelopeFields) under `.envelope()`. See [`DocModel::fields`].
    type Fields;

    /// The model's field paths, for filters and queries: `Order::fields().customer_no.eq(12345)` (see the
    /// [`Filter`](crate::Filter) docs). A trait function, so that a model's own `fields` function or accessor keeps its name.
    fn fields() -> Self::Fields;

    /// The model's indexes, from `#[docmodel(index = "...")]`: what [`Repo::find`](crate::Repo::find) reads instead of the
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
    fn __body_schema(shapes: &mut Shapes) -> BodySchema {
        let _ = shapes;
        BodySchema::unknown()
    }

    /// The names of [`BODY_FIELDS`](DocModel::BODY_FIELDS) that no field reads (`#[serde(skip_deserializing)]`,
    /// a `rename(deserialize = ...)` to another name). A stored field of one of these names is not kept as an
    /// unknown field, since the body writes it again.
    #[doc(hidden)]
    const WRITTEN_NOT_READ: &'static [&'static str] = &[];

    /// The body fields the writer may leave out: `Presence` fields when `Missing`, and the fields of
    /// `#[docmodel(skip_empty)]`.
    #[doc(hidden)]
    const OMIT: &'static [Omit<Self>] = &[];

    /// The model's stored fields as its schema lock records them, and where its locks are ([`crate::lock`]).
    #[doc(hidden)]
    const __LOCK: crate::__private::LockSpec = crate::__private::LockSpec::NONE;

    /// The lookup documents the repository keeps for this model (`#[docmodel(lookup = "...")]`).
    #[doc(hidden)]
    const LOOKUPS: &'static [Lookup<Self>] = &[];

    /// The migration chain, oldest first: generated from `migrate_from(...)`.
    #[doc(hidden)]
    const MIGRATIONS: &'static [Migration<Self>] = &[];

    /// How many bytes a key of this model usually takes.
    #[doc(hidden)]
    const KEY_CAPACITY: usize = 32;

    /// Whether the key has parts the body does not store (`#[docmodel(from_key)]`), which a read fills from
    /// the key ([`fill_from_key`](DocModel::fill_from_key)).
    #[doc(hidden)]
    const KEY_ONLY_PARTS: bool = false;

    /// The `_type` of each model whose documents are this one's items (`#[docmodel(items(...))]`), which
    /// [`Repo::remove_with_items`](crate::Repo::remove_with_items) removes with them; empty for a model
    /// without items.
    #[doc(hidden)]
    const ITEMS: &'static [&'static str] = &[];

    /// Refuses, before anything is written, a removal with items that could not remove them all: item
    /// models in another collection than this one, or with documents stored at an older schema (which a
    /// find by the parent field may miss). Nothing for a model without items.
    #[doc(hidden)]
    fn check_items<'a, 's: 'a, S: crate::store::Store>(
        repo: &'a crate::Repo<Self, &'s S>,
        key: &'a Key<Self>,
    ) -> Removal<'a>
    where
        Self: Sized,
    {
        let _ = (repo, key);
        Box::pin(std::future::ready(Ok(())))
    }

    /// Removes every item of the document under `key` through `repo`'s store and settings, each with its
    /// own items: the models `#[docmodel(items(...))]` names, in order. `above` holds the marks of the
    /// documents being removed above it, so that an item that is its own ancestor (a cycle of parents) is
    /// removed without going round again. Nothing for a model without items.
    #[doc(hidden)]
    fn remove_items<'a, 's: 'a, S: crate::store::Store>(
        repo: &'a crate::Repo<Self, &'s S>,
        key: &'a Key<Self>,
        above: &'a [String],
    ) -> Removal<'a>
    where
        Self: Sized,
    {
        let _ = (repo, key, above);
        Box::pin(std::future::ready(Ok(())))
    }

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

/// A model whose body stores every part of its key: what [`Doc::from_slice`](crate::Doc::from_slice) reads, with no key given.
///
/// The derive implements it for every model without `#[docmodel(from_key)]` fields. A model with one keeps
/// that part of its key out of its body, so only a read that has the key fills it: [`Doc::from_slice_at`](crate::Doc::from_slice_at),
/// and every read of a [`Repo`](crate::Repo).
#[diagnostic::on_unimplemented(
    message = "`Doc::from_slice` reads no key, so it reads only a model that stores its whole key in its body, and `{Self}` is not known to",
    label = "`{Self}` is not `KeyInBody`",
    note = "a model with `#[docmodel(from_key)]` fields is read with `Doc::from_slice_at(key, bytes)`, which fills them from the key; in generic code, bound the type by `docmodel::KeyInBody`"
)]
pub trait KeyInBody: DocModel {}

/// A body field the writer may leave out of the stored JSON.
#[doc(hidden)]
pub struct Omit<T> {
    /// The name the field is written under.
    pub name: &'static str,
    /// Left out when `null`, `""`, `[]` or `{}` (`skip_empty`); a `Presence::Missing` always is.
    pub empty: bool,
    /// Left out when this says the field holds its type's default (`skip_empty(default)`).
    pub default: Option<fn(&T) -> bool>,
}

/// The future of a removal of items ([`DocModel::remove_items`]), boxed: a model's items may be of its own
/// model, or hold items of their own, to any depth.
#[doc(hidden)]
pub type Removal<'a> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), Error>> + Send + 'a>>;
