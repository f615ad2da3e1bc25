//! Every key a model's documents use, built here and nowhere else.
//!
//! | shape | key | built by |
//! |---|---|---|
//! | the document | the model's template: `user::{id}` | the generated `write_key`, checked by [`KeyTemplate`] |
//! | a lookup | a lookup's template: `customer_ref::{no}` | [`lookup_keys`] |
//! | a revision copy | `<key><d>v<d><n>`: `user::123::v::4` | [`revision_key`] |
//! | the id counter | `count<d><type>`: `count::user` | [`counter_key`] |
//! | an index marker | `index<d><type><d><index>`: `index::order::customer_no` | [`index_marker`] |
//! | an index entry | `<marker><d><values><key>` | [`index_entry_prefix`], then the values (the repository's index code) and the key |
//! | a removal marker | `removing<d><type><d><key>`: `removing::folder::folder::7` | [`removal_marker`] |
//!
//! `<d>` is the model's delimiter. Whoever recognises keys rather than builds them (the overlap check of
//! [`keyspace`](crate::keyspace), a query's key predicate) reads the same shapes through [`shapes`]: each
//! shape as literal text and parts, with what characters each part can hold.

use std::fmt;

use crate::key::Segment;
use crate::{DocModel, Error, KeyTemplate};

/// The name of the index every model with indexes keeps over `_schema`, so that a find served by an index
/// counts the documents stored below the current schema by reading only theirs.
pub(crate) const SCHEMA_INDEX: &str = "@schema";

/// The key of the copy of version `version` of the document under `key`.
///
/// ```
/// # use docmodel::DocModel;
/// # #[derive(serde::Serialize, serde::Deserialize, DocModel)]
/// # #[docmodel(type = "user", schema = "1.0", key = "user:{id}")]
/// # struct User { id: u64 }
/// assert_eq!(docmodel::revision_key::<User>("user:123", 1), "user:123:v:1");
/// ```
pub fn revision_key<T: DocModel>(key: &str, version: u64) -> String {
    let mut text = revision_prefix::<T>(key);
    text.push_str(itoa::Buffer::new().format(version));
    text
}

/// The prefix every revision copy of the document under `key` shares: `user:123:v:`.
pub(crate) fn revision_prefix<T: DocModel>(key: &str) -> String {
    let delimiter = T::KEY.delimiter();
    let mut text = String::with_capacity(key.len() + 2 * delimiter.len() + 20);
    text.push_str(key);
    text.push_str(delimiter);
    text.push('v');
    text.push_str(delimiter);
    text
}

/// The version a revision key names, if `copy_key` is exactly one of `key`'s (`<key><d>v<d><n>`, with `n`
/// written as docmodel writes it: no sign, no leading zero).
pub(crate) fn revision_number<T: DocModel>(key: &str, copy_key: &str) -> Option<u64> {
    let number = copy_key.strip_prefix(&revision_prefix::<T>(key))?;
    let version: u64 = number.parse().ok()?;
    (itoa::Buffer::new().format(version) == number).then_some(version)
}

/// The key of a model's id counter: `count<d><type>`.
pub(crate) fn counter_key<T: DocModel>() -> String {
    format!("count{}{}", T::KEY.delimiter(), T::TYPE)
}

/// The lookup keys of `body`, one per lookup of its model, in order.
pub(crate) fn lookup_keys<T: DocModel>(body: &T) -> Result<Vec<String>, Error> {
    T::LOOKUPS
        .iter()
        .map(|lookup| {
            let mut key = String::new();
            (lookup.write)(body, &mut key)?;
            Ok(key)
        })
        .collect()
}

/// The marker key of index `name` (`index::order::customer_no`): its entries follow it, after the delimiter.
pub(crate) fn index_marker<T: DocModel>(name: &str) -> String {
    let d = T::KEY.delimiter();
    format!("index{d}{}{d}{name}", T::TYPE)
}

/// What every entry key of index `name` starts with: its marker and the delimiter. The values and the
/// document's key follow.
pub(crate) fn index_entry_prefix<T: DocModel>(name: &str) -> String {
    let mut prefix = index_marker::<T>(name);
    prefix.push_str(T::KEY.delimiter());
    prefix
}

/// The key that marks the document under `key` as being removed with its items
/// ([`Repo::remove_with_items`](crate::Repo::remove_with_items)): `removing<d><type><d><key>`.
pub(crate) fn removal_marker<T: DocModel>(key: &str) -> String {
    let mut marker = removal_prefix::<T>();
    marker.push_str(key);
    marker
}

/// What every removal marker of model `T` starts with: `removing<d><type><d>`.
pub(crate) fn removal_prefix<T: DocModel>() -> String {
    let d = T::KEY.delimiter();
    format!("removing{d}{}{d}", T::TYPE)
}

/// What a model writes at the keys of a shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Role {
    /// The model's documents (`key = "..."`).
    Key,
    /// One of its lookup documents (`lookup = "..."`).
    Lookup,
    /// Its id counter, `count<d><type>` ([`Repo::next_id`](crate::Repo::next_id)).
    Counter,
    /// Its revision copies, `<key><d>v<d><n>` (`revisions = N`).
    RevisionCopy,
    /// The marker of one of its indexes, `index<d><type><d><index>`, on a store that keeps index entries.
    IndexMarker,
    /// The entries of one of its indexes, `index<d><type><d><index><d><values><key>`.
    IndexEntry,
    /// The marks of its documents being removed with their items, `removing<d><type><d><key>`
    /// (`#[docmodel(items(...))]`).
    RemovalMarker,
    /// The events of an [`EventLog`](crate::EventLog), `<log><d><stream><d>e<d><stamp><d><replica>`.
    Event,
    /// The baselines of an [`EventLog`](crate::EventLog), `<log><d><stream><d>base<d><stamp><d><replica>`.
    Baseline,
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Key => "the key",
            Role::Lookup => "a lookup",
            Role::Counter => "the counter",
            Role::RevisionCopy => "the revision copies",
            Role::IndexMarker => "an index marker",
            Role::IndexEntry => "the index entries",
            Role::RemovalMarker => "the removal markers",
            Role::Event => "the events",
            Role::Baseline => "the baselines",
        })
    }
}

/// What characters a part of a shape can hold: one or more of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Chars {
    /// Any character but those of the text given (a text part: the model's delimiter).
    NotIn(&'static str),
    /// ASCII digits, after an optional `-` if `signed` (an integer part, a revision number).
    Digits { signed: bool },
    /// The values of an index entry: lowercase hexadecimal digits, `!` and `-`.
    IndexValues,
}

/// One piece of a shape: literal text, or a part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Piece {
    Text(&'static str),
    /// A part named as the template names it (`n` for a revision number, `values` for an index entry's).
    Part {
        name: &'static str,
        chars: Chars,
    },
}

/// One shape of key a model writes: what it writes there, and the pieces of its keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shape {
    pub(crate) role: Role,
    pub(crate) pieces: Vec<Piece>,
}

/// Every shape of key model `T` writes: its key, its lookups, its counter; with revisions, its copies; for
/// a model with indexes, each index's marker and entries (the schema index's too), which a repository writes
/// on a store that keeps entries.
pub(crate) fn shapes<T: DocModel>() -> Vec<Shape> {
    let d = T::KEY.delimiter();
    let mut shapes = vec![Shape {
        role: Role::Key,
        pieces: template_pieces(&T::KEY),
    }];
    shapes.extend(T::LOOKUPS.iter().map(|lookup| Shape {
        role: Role::Lookup,
        pieces: template_pieces(&lookup.template),
    }));
    shapes.push(Shape {
        role: Role::Counter,
        pieces: vec![Piece::Text("count"), Piece::Text(d), Piece::Text(T::TYPE)],
    });
    if !T::ITEMS.is_empty() {
        let mut pieces = vec![
            Piece::Text("removing"),
            Piece::Text(d),
            Piece::Text(T::TYPE),
            Piece::Text(d),
        ];
        pieces.extend(template_pieces(&T::KEY));
        shapes.push(Shape {
            role: Role::RemovalMarker,
            pieces,
        });
    }
    if T::REVISIONS.is_some() {
        shapes.push(Shape {
            role: Role::RevisionCopy,
            pieces: copy_pieces(&T::KEY),
        });
    }
    if !T::INDEXES.is_empty() {
        let names = T::INDEXES
            .iter()
            .map(|index| index.name())
            .chain([SCHEMA_INDEX]);
        for name in names {
            let marker = vec![
                Piece::Text("index"),
                Piece::Text(d),
                Piece::Text(T::TYPE),
                Piece::Text(d),
                Piece::Text(name),
            ];
            let mut entry = marker.clone();
            entry.extend([
                Piece::Text(d),
                Piece::Part {
                    name: "values",
                    chars: Chars::IndexValues,
                },
            ]);
            entry.extend(template_pieces(&T::KEY));
            shapes.push(Shape {
                role: Role::IndexMarker,
                pieces: marker,
            });
            shapes.push(Shape {
                role: Role::IndexEntry,
                pieces: entry,
            });
        }
    }
    shapes
}

/// The pieces of the keys `template` builds: its literals, its delimiters, and its parts. A text part
/// holds anything but a character of the delimiter (the template refuses an empty part and one holding such
/// a character); an integer part holds digits, and a `-` first where its type is signed and the delimiter
/// does not hold one (a template with a `-` in its delimiter refuses negative numbers).
pub(crate) fn template_pieces(template: &KeyTemplate) -> Vec<Piece> {
    let d = template.delimiter();
    let mut pieces = Vec::new();
    for (at, segment) in template.segments().iter().enumerate() {
        if at > 0 {
            pieces.push(Piece::Text(d));
        }
        pieces.push(match *segment {
            Segment::Literal(literal) => Piece::Text(literal),
            Segment::Part(name) => Piece::Part {
                name,
                chars: Chars::NotIn(d),
            },
            Segment::Integer { name, signed } => Piece::Part {
                name,
                chars: Chars::Digits {
                    signed: signed && !d.contains('-'),
                },
            },
        });
    }
    pieces
}

/// The pieces of the revision copies of documents whose keys `template` builds.
pub(crate) fn copy_pieces(template: &KeyTemplate) -> Vec<Piece> {
    let d = template.delimiter();
    let mut pieces = template_pieces(template);
    pieces.extend([
        Piece::Text(d),
        Piece::Text("v"),
        Piece::Text(d),
        Piece::Part {
            name: "n",
            chars: Chars::Digits { signed: false },
        },
    ]);
    pieces
}
