//! The read entry: a stored document read as the current model. `Doc`'s readers call [`read`]
//! ([`Doc::from_slice`](crate::Doc::from_slice), and `Doc::read_at`, which every repository read goes
//! through); a typed step reads the document as its older model through [`typed_step`], which calls
//! [`read`] for that model.
//!
//! [`read`] decodes in one pass, and for a document of an older schema goes route -> steps -> decode. The
//! flow goes one way; the codec reads, the router decides, the chain's steps move.

use std::borrow::Cow;
use std::error::Error as StdError;

use serde::de::DeserializeOwned;

use crate::codec::{self, Decoded, NotRead, Parsed};
use crate::envelope::{Layout, rename_legacy};
use crate::migrate::chain::{self, Migration, Step, TypedFailure, TypedRead};
use crate::migrate::route::{self, Route};
use crate::{DocModel, Error, MigrationError, SchemaVersion};

/// Reads `bytes` as model `T`, migrating a document of an older schema to the current one.
pub(crate) fn read<T: DocModel + DeserializeOwned>(bytes: &[u8]) -> Result<Decoded<T>, Error> {
    if let Some((version, start)) = leading_route::<T>(bytes) {
        return migrate(bytes, version, start);
    }
    let (version, key) = match codec::decode::<T>(bytes, route::at_schema::<T>) {
        Ok(decoded) => return Ok(decoded),
        Err(NotRead::Failed(err)) => return Err(err),
        Err(NotRead::Stopped(version)) => match route::route::<T>(version) {
            Route::Migrate(start) => return migrate(bytes, version, start),
            // The reader stops only where the chain reads.
            _ => (version, None),
        },
        Err(NotRead::Refused { version, key }) => (version, key),
    };
    let err = if route::route::<T>(version) == Route::TooNew {
        Error::SchemaTooNew {
            key: None,
            found: version.to_string(),
            current: T::SCHEMA_TEXT.to_owned(),
        }
    } else {
        Error::UnsupportedSchema {
            key: None,
            found: version.to_string(),
            current: T::SCHEMA_TEXT.to_owned(),
            reason: route::supported::<T>(),
        }
    };
    Err(match key {
        Some(key) => err.with_key(&key),
        None => err,
    })
}

/// Where the chain starts on a document it migrates whose schema is where docmodel writes it: found without
/// the one-pass reader, which would read up to `_schema` only to stop there. `None` sends the document to
/// that reader, which finds any schema and reports what is wrong with it.
fn leading_route<T: DocModel>(bytes: &[u8]) -> Option<(SchemaVersion, usize)> {
    if T::MIGRATIONS.is_empty() {
        return None;
    }
    let text = codec::leading_schema(bytes, &T::ENVELOPE)?;
    if text == T::SCHEMA_TEXT.as_bytes() {
        return None;
    }
    let version = SchemaVersion::parse_bytes(text)?;
    match route::route::<T>(version) {
        Route::Migrate(start) => Some((version, start)),
        _ => None,
    }
}

/// Runs the chain from entry `start` on a document of schema `version`, then reads the result as the current
/// model. JSON steps share one parsed object; a typed step reads bytes (the stored ones when it comes first, so
/// that path parses no `JsonObject`).
fn migrate<T: DocModel + DeserializeOwned>(
    bytes: &[u8],
    version: SchemaVersion,
    start: usize,
) -> Result<Decoded<T>, Error> {
    // No schema routes to the chain of a model that has none, so its reads never come here; and as the
    // condition is a constant, such a model compiles none of what follows (the JSON and typed steps, and
    // the second reader, from a `JsonObject`, that reads their result).
    if const { T::MIGRATIONS.is_empty() } {
        return Err(Error::UnsupportedSchema {
            key: None,
            found: version.to_string(),
            current: T::SCHEMA_TEXT.to_owned(),
            reason: route::supported::<T>(),
        });
    }
    let chain = T::MIGRATIONS;
    let mut parsed: Option<Parsed<'_>> = None;
    if chain::adopts::<T>() {
        // Every step, typed ones included, sees the model's type and the schema it reads the document as
        // (a typed step's older model checks its own type), each under the model's name.
        let mut adopted = codec::strict_object(bytes)?;
        rename_legacy(&T::ENVELOPE, &mut adopted.object)?;
        if matches!(
            chain.get(start).map(|entry| &entry.step),
            Some(Step::Json { .. })
        ) {
            chain::check_type::<T>(&adopted.object)?;
        }
        chain::adopt::<T>(&mut adopted.object, version);
        parsed = Some(adopted);
    }
    for (at, entry) in chain.iter().enumerate().skip(start) {
        match entry.step {
            Step::Typed { read, .. } => {
                let bytes = match &parsed {
                    None => Cow::Borrowed(bytes),
                    Some(parsed) => Cow::Owned(parsed.to_bytes()),
                };
                return typed(read, &bytes, entry, version);
            }
            Step::Json { run, .. } => {
                let parsed = match &mut parsed {
                    Some(parsed) => parsed,
                    None => {
                        let first = codec::strict_object(bytes)?;
                        chain::check_type::<T>(&first.object)?;
                        parsed.insert(first)
                    }
                };
                let to = chain
                    .get(at + 1)
                    .map_or(T::SCHEMA_TEXT, |next| next.from_text);
                chain::apply_json(entry, run, to, &mut parsed.object)?;
            }
        }
    }
    // Whatever keeps the result from reading as the current model is the chain's doing.
    let not_read = |message: String, source: Box<dyn StdError + Send + Sync>| Error::Migration {
        key: None,
        from: version.to_string(),
        to: T::SCHEMA_TEXT.to_owned(),
        source: MigrationError::with_source(message, source),
    };
    const CURRENT: &str = "the migrated document does not read as the current model";
    let not_current = |source| not_read(CURRENT.to_owned(), source);
    let Some(parsed) = parsed else {
        // A chain always has a step: the loop ran one.
        return Err(not_current("no step ran".into()));
    };
    chain::check_type::<T>(&parsed.object).map_err(|err| not_current(err.into()))?;
    // Values no step changed that a JSON value does not hold as stored are read from their stored text.
    let read = match parsed.exact_bytes() {
        Some(exact) => codec::decode::<T>(&exact, route::at_schema::<T>),
        None => codec::decode_object::<T>(parsed.object, route::at_schema::<T>),
    };
    match read {
        Ok(mut decoded) => {
            decoded.migrated_from = Some(version);
            Ok(decoded)
        }
        Err(NotRead::Stopped(at) | NotRead::Refused { version: at, .. }) => Err(not_current(
            format!("the chain left it at schema {at}").into(),
        )),
        Err(NotRead::Failed(err)) => {
            let message = match &err {
                Error::Codec {
                    field: Some(field), ..
                } => format!(
                    "the migrated document's field `{field}` does not read as the current model's"
                ),
                _ => CURRENT.to_owned(),
            };
            Err(not_read(message, err.into()))
        }
    }
}

fn step_failed<T>(entry: &Migration<T>, to: &str, source: MigrationError) -> Error {
    Error::Migration {
        key: None,
        from: entry.from_text.to_owned(),
        to: to.to_owned(),
        source,
    }
}

/// Runs a typed step on `bytes`: the older model's own errors (its type, its schema, its chain) come back as
/// they are, except that a body the older model cannot read, or the conversion refuses, is this step's
/// `Migration` error, naming the versions and the older model.
fn typed<T: DocModel>(
    read: TypedRead<T>,
    bytes: &[u8],
    entry: &Migration<T>,
    version: SchemaVersion,
) -> Result<Decoded<T>, Error> {
    let mut decoded = read(bytes).map_err(|failure| match failure {
        // Bytes that are not JSON are the document's fault; JSON the older model's fields refuse is the step's.
        TypedFailure::Read(Error::Codec {
            key, field, source, ..
        }) if source.is_data() => {
            let message = match field {
                Some(field) => format!(
                    "the older model `{}` cannot read its field `{field}`",
                    entry.step.name()
                ),
                None => format!("the older model `{}` cannot read it", entry.step.name()),
            };
            let err = step_failed(
                entry,
                T::SCHEMA_TEXT,
                MigrationError::with_source(message, source),
            );
            match key {
                Some(key) => err.with_key(&key),
                None => err,
            }
        }
        TypedFailure::Read(err) => err,
        TypedFailure::Convert(source) => step_failed(entry, T::SCHEMA_TEXT, source),
    })?;
    decoded.migrated_from = Some(version);
    Ok(decoded)
}

/// A typed step: reads the document as the older model `Old` (which migrates it up to its own schema) and
/// converts it with `TryFrom`, keeping its envelope and the fields neither model knows.
pub fn typed_step<T, Old>(bytes: &[u8]) -> Result<Decoded<T>, TypedFailure>
where
    T: DocModel,
    Old: DocModel + DeserializeOwned,
    T: TryFrom<Old>,
    T::Error: StdError + Send + Sync + 'static,
{
    let mut old = read::<Old>(bytes).map_err(|err| TypedFailure::Read(asked_of::<T, Old>(err)))?;
    // The older model's own key rules hold for what it reads, as on any read of it (where its body holds
    // its key: parts it leaves to the key are filled by the read of the current model, which has the key).
    if !Old::KEY_ONLY_PARTS {
        old.body.doc_key().map_err(TypedFailure::Read)?;
    }
    // The schema text of a newer minor of `Old` means nothing to `T`, which writes its own.
    old.newer_schema = None;
    let (body, old) = old.take_body();
    let body = T::try_from(body).map_err(|err| {
        let message = format!("converting `{}` failed", std::any::type_name::<Old>());
        TypedFailure::Convert(MigrationError::with_source(message, err))
    })?;
    let mut converted = old.with_body(body);
    forget_fields_written::<T>(&mut converted);
    Ok(converted)
}

/// Drops the fields the older model kept as unknown that the current model `T` writes itself: its body's
/// fields, its envelope's (under any of their names), its `meta` object. The converted body says what they
/// hold now, as a JSON step's `insert` replaces a member; kept, each would be written twice, and the
/// document would not read back.
fn forget_fields_written<T: DocModel>(doc: &mut Decoded<T>) {
    let spec = &T::ENVELOPE;
    let body_field = |name: &str| T::BODY_FIELDS.contains(&name);
    let envelope_field = |name: &str| spec.field_named(name).is_some();
    match spec.layout() {
        Layout::Meta => {
            doc.unknown
                .retain(|name| name != spec.meta_name() && !body_field(name));
            doc.meta_unknown.retain(|name| !envelope_field(name));
        }
        Layout::Flat | Layout::Plain | Layout::Root => doc
            .unknown
            .retain(|name| !envelope_field(name) && !body_field(name)),
    }
}

/// An error of the older model `Old` as the model the caller asked for, `T`, reports it: a version neither
/// reads names `T`, what `T` reads, and what it reads through `Old`.
fn asked_of<T: DocModel, Old: DocModel>(err: Error) -> Error {
    let Error::UnsupportedSchema { key, found, .. } = err else {
        return err;
    };
    let old = std::any::type_name::<Old>();
    let old = old.rsplit("::").next().unwrap_or(old);
    Error::UnsupportedSchema {
        key,
        found,
        current: T::SCHEMA_TEXT.to_owned(),
        reason: format!(
            "the model {}; versions before {} go through the older model `{old}` (schema {}), which {}; no \
             step reads this version",
            route::readable::<T>(),
            T::MIGRATIONS
                .first()
                .map_or(T::SCHEMA_TEXT, |first| first.from_text),
            Old::SCHEMA_TEXT,
            route::readable::<Old>()
        ),
    }
}
