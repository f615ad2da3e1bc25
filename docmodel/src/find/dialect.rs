//! The query languages of stores ([`Dialect`]: Mango for CouchDB, SQL++ for Couchbase), and what their
//! translations of a [`Query`](crate::Query) share: the names of the model's indexes, the regular expression
//! of its key shape, and the errors of a filter that cannot be translated.

use std::future::Future;

use serde_json::Value;

use super::eval::at;
use super::query::{Cursor, Query};
use crate::keyshape::{self, Piece};
use crate::store::{QueryLanguage, Stored};
use crate::{DocModel, EnvelopeField, Error, Layout};

/// A store's query language, as the repository writes its requests: what
/// [`Repo::find`](crate::Repo::find), [`count`](crate::Repo::count) and
/// [`ensure_indexes`](crate::Repo::ensure_indexes) need of it on a store that names it in
/// [`Capabilities::query`](crate::store::Capabilities::query). The repository runs the requests, matches
/// each row against the filter and pages (`repo/native.rs`); a dialect only writes requests and, for the
/// older-schema count, walks its own pages through [`Run`].
///
/// Implemented by [`mango::Mango`](super::mango::Mango) (CouchDB) and
/// [`sqlpp::SqlPlusPlus`](super::sqlpp::SqlPlusPlus) (Couchbase), each beside its translator; a third
/// language is a file implementing it and an arm in [`with_dialect!`].
pub(crate) trait Dialect {
    /// The language a store names in its capabilities.
    const LANGUAGE: QueryLanguage;

    /// Whether earlier builds of docmodel kept index entries of their own on the stores of this language,
    /// which [`ensure_indexes`](crate::Repo::ensure_indexes) retires (CouchDB).
    const KEPT_INDEX_ENTRIES: bool;

    /// One request selecting candidates of a page, not yet told how many rows it asks for.
    type Request: Send;

    /// Refuses, before anything is sent, a query the store cannot run as asked (Mango: an order no index
    /// serves).
    fn check<M: DocModel>(query: &Query<M>) -> Result<(), Error>;

    /// The requests that select the candidates of `query`'s page from its cursor on, to run in order: a
    /// superset of its matches, in its order.
    fn select<M: DocModel>(query: &Query<M>) -> Result<Vec<Self::Request>, Error>;

    /// The bytes of `request` ([`Store::query`](crate::store::Store::query) takes them), asking for `rows`
    /// rows.
    fn asking(request: Self::Request, rows: usize) -> Result<Vec<u8>, Error>;

    /// The definitions of the model's indexes, each what
    /// [`Store::create_index`](crate::store::Store::create_index) takes; creating one again changes nothing.
    fn indexes<M: DocModel>() -> Result<Vec<Vec<u8>>, Error>;

    /// How many of the model's documents are stored below its current schema
    /// ([`Page::older_schema`](crate::Page::older_schema)), each request made through `run`: only documents
    /// at another schema (or none) are read.
    fn count_older<M: DocModel, R: Run>(
        run: &R,
    ) -> impl Future<Output = Result<usize, Error>> + Send;

    /// A request as a trace shows it: its text and its parameters, each value `?` unless `show`.
    #[cfg(feature = "tracing")]
    fn traced(request: Value, show: bool) -> (String, String);
}

/// What runs a [`Dialect`]'s requests on the store: the repository's store, each request traced.
pub(crate) trait Run: Sync {
    /// The rows `request` selects: each key with the document as the store holds it.
    fn run(
        &self,
        request: Vec<u8>,
    ) -> impl Future<Output = Result<Vec<(String, Stored)>, Error>> + Send;
}

/// Runs `$body` with `$dialect` the [`Dialect`] of the language `$language`: the one place a language is
/// chosen.
macro_rules! with_dialect {
    ($language:expr, $dialect:ident => $body:expr) => {
        match $language {
            $crate::store::QueryLanguage::Mango => {
                type $dialect = $crate::find::mango::Mango;
                $body
            }
            $crate::store::QueryLanguage::SqlPlusPlus => {
                type $dialect = $crate::find::sqlpp::SqlPlusPlus;
                $body
            }
        }
    };
}
pub(crate) use with_dialect;

/// `value` with every scalar in it `?`: what a trace shows of a request's values unless it shows values.
#[cfg(feature = "tracing")]
pub(super) fn hide(value: &mut Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(hide),
        Value::Object(members) => members.values_mut().for_each(hide),
        other => *other = Value::String("?".to_owned()),
    }
}

/// A request's bytes.
pub(super) fn encode(body: &Value) -> Result<Vec<u8>, Error> {
    serde_json::to_vec(body).map_err(Error::codec)
}

/// The name of the index of model type `type_name` over `paths`, the same for SQL++ and Mango:
/// `docmodel_<type>_<path>_<path>`, each path's names joined by `_`, every character but ASCII letters,
/// digits and `_` replaced by `_`.
pub(super) fn index_name(type_name: &str, paths: &[&[&str]]) -> String {
    let mut name = String::from("docmodel_");
    name.push_str(type_name);
    for path in paths {
        name.push('_');
        name.push_str(&path.join("_"));
    }
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// The name of model `M`'s index over `paths` ([`index_name`]), with `_adopting` at the end for a model
/// [`adopting`] documents: its indexes are defined otherwise (on Mango, over `paths` alone rather than led by
/// the type field; on SQL++, partial on a wider condition), and a name of their own keeps an index made
/// before the model adopted documents from being taken for one of them.
pub(super) fn model_index_name<M: DocModel>(paths: &[&[&str]]) -> String {
    let name = index_name(M::TYPE, paths);
    if adopting::<M>() {
        name + "_adopting"
    } else {
        name
    }
}

/// A regular expression matching exactly the keys of `M`'s key template (its literal segments, and one or
/// more characters that are not a delimiter character for each part), anchored at the start by `^` and at
/// the end by `end`, which each dialect writes its own way (`\z` in SQL++, a lookahead in Mango). It leaves
/// out revision copies (`<key><d>v<d><n>`), which hold the model's `_type` too. Literal characters are
/// escaped for RE2 and PCRE alike ([`push_regex_literal`]).
pub(super) fn key_shape_ending<M: DocModel>(end: &str) -> String {
    let template = M::KEY;
    let mut part = String::from("[^");
    let mut seen = String::new();
    for c in template.delimiter().chars() {
        if !seen.contains(c) {
            seen.push(c);
            push_regex_literal(&mut part, c.encode_utf8(&mut [0; 4]));
        }
    }
    part.push_str("]+");
    let mut shape = String::from("^");
    for piece in keyshape::template_pieces(&template) {
        match piece {
            Piece::Text(text) => push_regex_literal(&mut shape, text),
            // Any part as text, integer parts too: the key shape tells the model's keys from its copies'
            // (`<key><d>v<d><n>`), which the parts' own characters never need to.
            Piece::Part { .. } => shape.push_str(&part),
        }
    }
    shape.push_str(end);
    shape
}

/// Whether `M` reads documents under other spellings of its type, or none: its documents are then told
/// apart by key (the model's key range, then [`owns`](super::eval::owns) in the repository), since an index
/// led by a type field with several values no longer orders ties by key.
pub(super) const fn adopting<M: DocModel>() -> bool {
    M::ACCEPTS_UNTYPED
        || !M::TYPE_ALIASES.is_empty()
        || M::ENVELOPE.legacy_name(EnvelopeField::Type).is_some()
        || matches!(M::ENVELOPE.layout(), Layout::Root)
}

/// The range of ids the model's keys fall in: from the text its key template starts with (up to its first
/// part) to just past every key starting so; `None` where the template starts with a part.
pub(super) fn key_range<M: DocModel>() -> (Option<String>, Option<String>) {
    let pattern = M::KEY.pattern();
    let prefix = &pattern[..pattern.find('{').unwrap_or(pattern.len())];
    let Some(last) = prefix.chars().last() else {
        return (None, None);
    };
    let high = char::from_u32(u32::from(last) + 1).map(|next| {
        let mut high = prefix[..prefix.len() - last.len_utf8()].to_owned();
        high.push(next);
        high
    });
    (Some(prefix.to_owned()), high)
}

/// Appends `text` to a regular expression as literal text, for RE2 and PCRE alike: ASCII letters, digits,
/// `_` and non-ASCII characters as they are, control characters as `\xHH`, any other ASCII character behind
/// a backslash (both read a backslash before punctuation as the character itself).
pub(super) fn push_regex_literal(out: &mut String, text: &str) {
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || !c.is_ascii() {
            out.push(c);
        } else if c.is_ascii_control() {
            out.push_str(&format!("\\x{:02X}", u32::from(c)));
        } else {
            out.push('\\');
            out.push(c);
        }
    }
}

/// The error for a filter or cursor that `store` cannot run with `matches`' results: permanent, naming the
/// field and why.
pub(super) fn untranslatable<M: DocModel>(store: &str, path: &[&str], why: &str) -> Error {
    Error::store(
        M::TYPE,
        format!(
            "cannot find `{}` documents on {store}: `{}`: {why}",
            M::TYPE,
            path.join(".")
        ),
    )
}

/// The error of a filter holding a value with no JSON form, as [`Repo::find`](crate::Repo::find) reports it.
pub(super) fn invalid(reason: &str) -> Error {
    Error::codec(<serde_json::Error as serde::ser::Error>::custom(reason))
}

/// The cursor at a document a store's query selected for `query` (its JSON as stored, and its key): a
/// request with it reads what comes after the document. The order field is read where the store reads it,
/// under the model's own names (in the `root` layout, under the root attribute): a field stored under a
/// legacy name is missing to the store, and so to the cursor.
pub(crate) fn position<M: DocModel>(query: &Query<M>, stored: &Value, key: &str) -> Cursor {
    let document = match crate::envelope::body_attribute(&M::ENVELOPE, M::TYPE) {
        Some(attribute) => stored.get(attribute),
        None => Some(stored),
    };
    let order = match &query.order {
        None => Value::Null,
        Some((path, _)) => document
            .and_then(|document| at(document, path))
            .cloned()
            .unwrap_or(Value::Null),
    };
    Cursor::new(&order, key)
}
