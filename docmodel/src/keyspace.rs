//! Which keys models write, and which of them can meet.
//!
//! Every model writes documents at keys of a few shapes: its key (`user::{id}`), its lookups
//! (`customer_ref::{no}`), its id counter (`count::user`), with `revisions = N` its revision copies
//! (`user::{id}::v::{n}`), with indexes their markers and entries (`index::user::email::{values}user::{id}`),
//! and with `items(...)` the marks of removals with items (`removing::folder::folder::{id}`). Two models
//! whose shapes can produce the same key share documents: the repository
//! refuses to write over or remove a document that is not its own ([`Error::WrongType`](crate::Error),
//! [`Error::AlreadyExists`](crate::Error)), but the second model cannot store the document it meant to
//! either. [`check`] finds every such pair before it happens; call it in a test with all of a crate's models:
//!
//! ```
//! use docmodel::{keyspace, DocModel};
//! # use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, DocModel)]
//! #[docmodel(type = "profile", schema = "1.0", key = "user::{name}", revisions = 3)]
//! struct Profile { name: String }
//!
//! #[derive(Serialize, Deserialize, DocModel)]
//! #[docmodel(type = "sub", schema = "1.0", key = "user::{a}::{b}::{n}")]
//! struct Sub { a: String, b: String, n: u64 }
//!
//! let overlaps = keyspace::check(&[keyspace::of::<Profile>(), keyspace::of::<Sub>()]).unwrap_err();
//! assert_eq!(
//!     overlaps.to_string(),
//!     "1 pair of key patterns can produce the same key:\n  \
//!      the revision copies of `profile` (user::{name}::v::{n}) and the key of `sub` (user::{a}::{b}::{n}) \
//!      both produce `user::0::v::0`"
//! );
//! ```
//!
//! The check is exact for the characters each part may hold: a text part anything but a character of the
//! model's delimiter (one or more of them); an integer part (a field written as one of Rust's integer types,
//! `u64`, `i32`, ...) only digits, after a `-` where the type is signed; a revision number only digits; an
//! index entry's values the characters docmodel encodes them with. So `{customer_id}:orders` with a `u64`
//! part never meets the counter `count:orders`, while a `String` part would. A part whose type the derive
//! cannot see as an integer (a type alias, a newtype) counts as text: a pair may then be reported that never
//! meets in practice. Renaming a prefix, or giving one model a different delimiter, separates them.

use std::collections::VecDeque;
use std::collections::hash_map::{Entry, HashMap};
use std::fmt;

use crate::DocModel;
pub use crate::keyshape::Role;
use crate::keyshape::{self, Chars, Piece, Shape};

/// One shape of key a model writes: `user::{id}::v::{n}` for the revision copies of `user`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    model: &'static str,
    role: Role,
    text: String,
    tokens: Vec<Token>,
}

impl Pattern {
    /// The model's type (`_type`).
    pub fn model(&self) -> &'static str {
        self.model
    }

    /// What the model writes there.
    pub fn role(&self) -> Role {
        self.role
    }

    /// The pattern as text, with `{name}` for each part.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    fn new(model: &'static str, shape: Shape) -> Pattern {
        let mut text = String::new();
        let mut tokens = Vec::new();
        for piece in shape.pieces {
            match piece {
                Piece::Text(literal) => {
                    text.push_str(literal);
                    tokens.extend(literal.chars().map(Token::Char));
                }
                Piece::Part { name, chars } => {
                    text.push('{');
                    text.push_str(name);
                    text.push('}');
                    if let Chars::Digits { signed: true } = chars {
                        tokens.push(Token::Sign);
                    }
                    tokens.push(Token::Part(chars));
                }
            }
        }
        Pattern {
            model,
            role: shape.role,
            text,
            tokens,
        }
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} of `{}` ({})", self.role, self.model, self.text)
    }
}

/// The key patterns of model `T`: its key, its lookups, its counter; with revisions, its copies; with
/// indexes, the marker and the entries of each (the schema index's too), which a repository writes on a store
/// that keeps index entries (MemoryStore, Redb); with items, the marks of its removals with items.
pub fn of<T: DocModel>() -> Vec<Pattern> {
    keyshape::shapes::<T>()
        .into_iter()
        .map(|shape| Pattern::new(T::TYPE, shape))
        .collect()
}

/// The key patterns of the event logs of `F` ([`EventLog`](crate::EventLog)): its events and its baselines,
/// named by the log's name. Check them beside the models of the same store:
///
/// ```
/// use docmodel::{keyspace, DocModel, Fold};
/// # use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, DocModel)]
/// #[docmodel(type = "note", schema = "1.0", key = "notes::{owner}::{kind}::{n}::{tag}")]
/// struct Note { owner: String, kind: String, n: u64, tag: String }
///
/// #[derive(Default, Serialize, Deserialize)]
/// struct Notes { count: u64 }
///
/// impl Fold for Notes {
///     const LOG: &'static str = "notes";
///     type Event = ();
///     fn apply(&mut self, _: &()) { self.count += 1 }
/// }
///
/// let overlaps = keyspace::check(&[keyspace::of::<Note>(), keyspace::of_log::<Notes>()]).unwrap_err();
/// assert_eq!(overlaps.0.len(), 2);
/// assert_eq!(
///     overlaps.0[0].to_string(),
///     "the key of `note` (notes::{owner}::{kind}::{n}::{tag}) and the events of `notes` \
///      (notes::{stream}::e::{stamp}::{replica}) both produce `notes::0::e::0::0`"
/// );
/// ```
pub fn of_log<F: crate::Fold>() -> Vec<Pattern> {
    crate::event_log::shapes::<F>()
        .into_iter()
        .map(|shape| Pattern::new(F::LOG, shape))
        .collect()
}

/// Two patterns that can produce the same key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlap {
    /// The first pattern, in the order given to [`check`].
    pub first: Pattern,
    /// The second.
    pub second: Pattern,
    /// A key both can produce.
    pub example: String,
}

impl fmt::Display for Overlap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} and {} both produce `{}`",
            self.first, self.second, self.example
        )
    }
}

/// Every pair of patterns that can produce the same key, as an error listing them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlaps(pub Vec<Overlap>);

impl fmt::Display for Overlaps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.len() {
            1 => f.write_str("1 pair of key patterns can produce the same key:")?,
            n => write!(f, "{n} pairs of key patterns can produce the same key:")?,
        }
        for overlap in &self.0 {
            write!(f, "\n  {overlap}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Overlaps {}

/// Checks the patterns of a set of models ([`of`] for each) and reports every pair, of two models or of one,
/// that can produce the same key, with an example key.
pub fn check(models: &[Vec<Pattern>]) -> Result<(), Overlaps> {
    let patterns: Vec<&Pattern> = models.iter().flatten().collect();
    let mut overlaps = Vec::new();
    for (at, first) in patterns.iter().enumerate() {
        for second in &patterns[at + 1..] {
            if let Some(example) = meet(&first.tokens, &second.tokens) {
                overlaps.push(Overlap {
                    first: (*first).clone(),
                    second: (*second).clone(),
                    example,
                });
            }
        }
    }
    if overlaps.is_empty() {
        Ok(())
    } else {
        Err(Overlaps(overlaps))
    }
}

/// One character of a pattern, a part (a non-empty run of the characters it holds), or the optional `-` that
/// starts a signed integer part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Char(char),
    Part(Chars),
    Sign,
}

impl Token {
    fn accepts(self, c: char) -> bool {
        match self {
            Token::Char(own) => own == c,
            Token::Sign => c == '-',
            Token::Part(Chars::NotIn(excluded)) => !excluded.contains(c),
            Token::Part(Chars::Digits { .. }) => c.is_ascii_digit(),
            Token::Part(Chars::IndexValues) => matches!(c, '0'..='9' | 'a'..='f' | '!' | '-'),
        }
    }

    /// A character both tokens accept, if there is one.
    fn common(self, other: Token) -> Option<char> {
        let candidates = match (self, other) {
            (Token::Char(c), _) | (_, Token::Char(c)) => vec![c],
            (Token::Sign, _) | (_, Token::Sign) => vec!['-'],
            _ => "0x19yz!".chars().collect(),
        };
        candidates
            .into_iter()
            .find(|c| self.accepts(*c) && other.accepts(*c))
    }
}

/// Where a pattern is in matching a key: before token `at`, or inside the part at `at` (one character or
/// more read).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct State {
    at: usize,
    in_part: bool,
}

impl State {
    /// The tokens the next character can be read by, with the state after it.
    fn steps(self, tokens: &[Token]) -> Vec<(Token, State)> {
        let mut steps = Vec::new();
        if self.in_part {
            steps.push((
                tokens[self.at],
                State {
                    at: self.at,
                    in_part: true,
                },
            ));
            // Or the part has ended: the next character is read by the next token.
            let next = State {
                at: self.at + 1,
                in_part: false,
            };
            steps.extend(next.steps(tokens));
        } else if let Some(token) = tokens.get(self.at) {
            let next = State {
                at: self.at + 1,
                in_part: false,
            };
            match token {
                Token::Char(_) => steps.push((*token, next)),
                Token::Part(_) => steps.push((
                    *token,
                    State {
                        at: self.at,
                        in_part: true,
                    },
                )),
                // A `-`, or none: the next character is read by the part that follows.
                Token::Sign => {
                    steps.push((*token, next));
                    steps.extend(next.steps(tokens));
                }
            }
        }
        steps
    }

    fn done(self, tokens: &[Token]) -> bool {
        (self.in_part && self.at + 1 == tokens.len()) || (!self.in_part && self.at == tokens.len())
    }
}

/// The shortest key both patterns produce, if any: a search of the two patterns read side by side.
fn meet(a: &[Token], b: &[Token]) -> Option<String> {
    let start = (
        State {
            at: 0,
            in_part: false,
        },
        State {
            at: 0,
            in_part: false,
        },
    );
    let mut seen = HashMap::new();
    seen.insert(start, None::<((State, State), char)>);
    let mut queue = VecDeque::from([start]);
    while let Some(pair) = queue.pop_front() {
        if pair.0.done(a) && pair.1.done(b) {
            let mut key = Vec::new();
            let mut at = pair;
            while let Some(Some((previous, c))) = seen.get(&at) {
                key.push(*c);
                at = *previous;
            }
            return Some(key.into_iter().rev().collect());
        }
        for (token_a, next_a) in pair.0.steps(a) {
            for (token_b, next_b) in pair.1.steps(b) {
                let Some(c) = token_a.common(token_b) else {
                    continue;
                };
                let next = (next_a, next_b);
                if let Entry::Vacant(entry) = seen.entry(next) {
                    entry.insert(Some((pair, c)));
                    queue.push_back(next);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{Pattern, Role, meet};
    use crate::KeyTemplate;
    use crate::key::Segment;
    use crate::keyshape::{Chars, Piece, Shape, copy_pieces, template_pieces};

    fn pattern(delimiter: &'static str, segments: &'static [Segment], copy: bool) -> Pattern {
        let template = KeyTemplate::new("", delimiter, segments);
        let pieces = match copy {
            false => template_pieces(&template),
            true => copy_pieces(&template),
        };
        Pattern::new(
            "m",
            Shape {
                role: Role::Key,
                pieces,
            },
        )
    }

    fn meets(a: &Pattern, b: &Pattern) -> Option<String> {
        meet(&a.tokens, &b.tokens)
    }

    const USER: &[Segment] = &[Segment::Literal("user"), Segment::Part("id")];
    const SUB: &[Segment] = &[
        Segment::Literal("user"),
        Segment::Part("a"),
        Segment::Part("b"),
        Segment::Part("n"),
    ];

    #[test]
    fn a_models_key_and_its_copies_never_meet() {
        let key = pattern("::", USER, false);
        let copies = pattern("::", USER, true);
        assert_eq!(copies.as_str(), "user::{id}::v::{n}");
        assert_eq!(meets(&key, &copies), None);
        let key = pattern("_", USER, false);
        assert_eq!(meets(&key, &pattern("_", USER, true)), None);
    }

    #[test]
    fn keys_of_two_shapes_meet_where_a_part_can_hold_the_literal() {
        assert_eq!(
            meets(&pattern("::", USER, true), &pattern("::", SUB, false)).as_deref(),
            Some("user::0::v::0")
        );
        assert_eq!(
            meets(&pattern("::", USER, false), &pattern("::", USER, false)).as_deref(),
            Some("user::0")
        );
    }

    #[test]
    fn delimiters_that_parts_cannot_hold_keep_shapes_apart() {
        // `user:{id}` parts cannot hold `:`, so `user::...` is not one of its keys.
        assert_eq!(
            meets(&pattern(":", USER, false), &pattern("::", USER, false)),
            None
        );
        // `user_{id}` starts `user_`, `user::{a}::{b}::{n}` starts `user:`.
        assert_eq!(
            meets(&pattern("_", USER, false), &pattern("::", SUB, false)),
            None
        );
        // But a part of `order_{id}` may hold `:`, so `order_x::{b}` meets it.
        const ORDER: &[Segment] = &[Segment::Literal("order"), Segment::Part("id")];
        const ORDER_X: &[Segment] = &[Segment::Literal("order_x"), Segment::Part("b")];
        assert_eq!(
            meets(&pattern("_", ORDER, false), &pattern("::", ORDER_X, false)).as_deref(),
            Some("order_x::0")
        );
    }

    #[test]
    fn a_revision_number_is_digits() {
        const WORD: &[Segment] = &[
            Segment::Literal("user"),
            Segment::Part("id"),
            Segment::Literal("v"),
            Segment::Literal("latest"),
        ];
        assert_eq!(
            meets(&pattern("::", USER, true), &pattern("::", WORD, false)),
            None
        );
    }

    fn shape(pieces: Vec<Piece>) -> Pattern {
        Pattern::new(
            "m",
            Shape {
                role: Role::Key,
                pieces,
            },
        )
    }

    #[test]
    fn an_integer_part_is_digits_after_a_sign_where_signed() {
        let integer = |signed| {
            shape(vec![
                Piece::Text("t::"),
                Piece::Part {
                    name: "n",
                    chars: Chars::Digits { signed },
                },
            ])
        };
        let after = |literal| {
            shape(vec![
                Piece::Text(literal),
                Piece::Part {
                    name: "s",
                    chars: Chars::NotIn("::"),
                },
            ])
        };
        assert_eq!(
            meets(&integer(true), &after("t::-")).as_deref(),
            Some("t::-0")
        );
        assert_eq!(meets(&integer(false), &after("t::-")), None);
        assert_eq!(
            meets(&integer(true), &after("t::0-")),
            None,
            "a sign comes first"
        );
        assert_eq!(meets(&integer(true), &after("t::x")), None);
        assert_eq!(
            meets(&integer(false), &after("t::1")).as_deref(),
            Some("t::10")
        );
    }
}
