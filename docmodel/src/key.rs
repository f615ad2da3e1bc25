//! Typed document keys built from a model's fields.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

use crate::{DocModel, Error};

/// The key pattern of a model, as the derive read it from `key = "..."`: `DocModel::KEY`.
///
/// A key is its segments joined by the delimiter: `user::{domain}::{id}` has the segments `user`, `{domain}`,
/// `{id}` and the delimiter `::`. Literal segments never contain a character of the delimiter, and neither may
/// a part, which is what makes every key parse back to exactly the parts it was built from. Only the derive
/// builds templates, after checking those rules.
///
/// ```
/// use docmodel::DocModel;
/// # #[derive(serde::Serialize, serde::Deserialize, DocModel)]
/// # #[docmodel(type = "user", schema = "1.0", key = "user::{domain}::{id}")]
/// # struct User { domain: String, id: u64 }
///
/// assert_eq!(User::KEY.pattern(), "user::{domain}::{id}");
/// assert_eq!(User::KEY.delimiter(), "::");
/// assert_eq!(User::KEY.part_names().collect::<Vec<_>>(), ["domain", "id"]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyTemplate {
    pattern: &'static str,
    delimiter: &'static str,
    segments: &'static [Segment],
    /// `#[docmodel(allow(control_chars_in_keys))]`: a part may hold the characters [`is_deceptive`] refuses.
    any_text: bool,
}

/// One segment of a [`KeyTemplate`].
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Segment {
    /// Fixed text, such as the type prefix `user`.
    Literal(&'static str),
    /// A value taken from the named field.
    Part(&'static str),
    /// A value taken from the named field, of one of Rust's integer types (as the derive reads the field's
    /// type): only digits, after a `-` where `signed`.
    Integer { name: &'static str, signed: bool },
}

impl Segment {
    /// The field a part is taken from; `None` for a literal.
    pub(crate) const fn part(&self) -> Option<&'static str> {
        match *self {
            Segment::Literal(_) => None,
            Segment::Part(name) | Segment::Integer { name, .. } => Some(name),
        }
    }
}

impl KeyTemplate {
    /// A template of checked segments; the derive's expansion builds it through `__private`.
    pub(crate) const fn new(
        pattern: &'static str,
        delimiter: &'static str,
        segments: &'static [Segment],
    ) -> Self {
        KeyTemplate {
            pattern,
            delimiter,
            segments,
            any_text: false,
        }
    }

    /// The template whose parts may hold control, bidirectional and invisible characters.
    pub(crate) const fn allowing_any_text(self) -> Self {
        KeyTemplate {
            any_text: true,
            ..self
        }
    }

    /// The template as the model wrote it: `user::{domain}::{id}`.
    pub const fn pattern(&self) -> &'static str {
        self.pattern
    }

    /// The text between two segments: `::`.
    pub const fn delimiter(&self) -> &'static str {
        self.delimiter
    }

    /// The segments, in order.
    pub(crate) const fn segments(&self) -> &'static [Segment] {
        self.segments
    }

    /// The names of the fields the key is built from, in order.
    pub fn part_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.segments.iter().filter_map(Segment::part)
    }

    /// Splits `text` into its parts, checking every literal segment and delimiter.
    pub(crate) fn split<'t, const N: usize>(
        &self,
        model: &'static str,
        text: &'t str,
    ) -> Result<[&'t str; N], Error> {
        let invalid = |reason: String| Error::InvalidKey {
            model,
            key: text.to_owned(),
            reason,
        };
        let mut parts = [""; N];
        let mut found = 0;
        let mut pieces = text.split(self.delimiter);
        for segment in self.segments {
            let Some(piece) = pieces.next() else {
                return Err(invalid(format!(
                    "it does not match the pattern `{}`",
                    self.pattern
                )));
            };
            match segment {
                Segment::Literal(literal) if piece != *literal => {
                    return Err(invalid(format!(
                        "expected `{literal}` where it has `{piece}` (pattern `{}`)",
                        self.pattern
                    )));
                }
                Segment::Literal(_) => {}
                Segment::Part(name) | Segment::Integer { name, .. } => {
                    check_part(name, piece, self).map_err(invalid)?;
                    if let Some(slot) = parts.get_mut(found) {
                        *slot = piece;
                    }
                    found += 1;
                }
            }
        }
        if pieces.next().is_some() || found != N {
            return Err(invalid(format!(
                "it has more segments than the pattern `{}`",
                self.pattern
            )));
        }
        Ok(parts)
    }

    /// Whether `text` is a key of this template: what [`KeyTemplate::split`] accepts, whatever its parts.
    pub(crate) fn matches(&self, text: &str) -> bool {
        let mut pieces = text.split(self.delimiter);
        let segments_match = self.segments.iter().all(|segment| {
            let Some(piece) = pieces.next() else {
                return false;
            };
            match segment {
                Segment::Literal(literal) => piece == *literal,
                Segment::Part(name) | Segment::Integer { name, .. } => {
                    check_part(name, piece, self).is_ok()
                }
            }
        });
        segments_match && pieces.next().is_none()
    }
}

/// A value that can be a part of a document key.
///
/// Implemented for the integer types, `String` and `str`. Implement it for a newtype to use it in a key; the
/// written form must be canonical (`parse_part` of what `write_part` wrote gives the value back, and no other
/// text parses to it), so that one value always gives one key.
///
/// ```
/// use docmodel::KeyPart;
///
/// let mut key = String::new();
/// 42u64.write_part(&mut key);
/// assert_eq!(key, "42");
/// assert_eq!(u64::parse_part("42"), Some(42));
/// assert_eq!(u64::parse_part("042"), None, "not canonical");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a part of a document key",
    label = "used in the key template",
    note = "key parts are integers and strings; implement `docmodel::KeyPart` for a newtype to use it in a key"
)]
pub trait KeyPart {
    /// Appends the key form of `self` to `out`.
    fn write_part(&self, out: &mut String);

    /// Reads a part back from its key form; `None` if `text` is not the canonical form of a value.
    fn parse_part(text: &str) -> Option<Self>
    where
        Self: Sized;
}

impl KeyPart for str {
    fn write_part(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl KeyPart for String {
    fn write_part(&self, out: &mut String) {
        out.push_str(self);
    }

    fn parse_part(text: &str) -> Option<Self> {
        Some(text.to_owned())
    }
}

macro_rules! integer_key_parts {
    ($($int:ty)*) => {$(
        impl KeyPart for $int {
            fn write_part(&self, out: &mut String) {
                out.push_str(itoa::Buffer::new().format(*self));
            }

            fn parse_part(text: &str) -> Option<Self> {
                let value: $int = text.parse().ok()?;
                // Only the canonical form: no `+`, no leading zeros, no `-0`.
                (itoa::Buffer::new().format(value) == text).then_some(value)
            }
        }
    )*};
}

integer_key_parts!(u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize);

/// A UUID key part is written as 32 lowercase hex digits without dashes (the seeds: 4 bytes smaller), and
/// read back only in that form.
///
/// ```
/// use docmodel::{KeyPart, uuid::Uuid};
///
/// let id = Uuid::parse_str("67e55044-10b1-426f-9247-bb680e5fe0c8").unwrap();
/// let mut key = String::new();
/// id.write_part(&mut key);
/// assert_eq!(key, "67e5504410b1426f9247bb680e5fe0c8");
/// assert_eq!(Uuid::parse_part(&key), Some(id));
/// assert_eq!(Uuid::parse_part("67e55044-10b1-426f-9247-bb680e5fe0c8"), None, "not the key form");
/// ```
#[cfg(feature = "uuid")]
impl KeyPart for uuid::Uuid {
    fn write_part(&self, out: &mut String) {
        out.push_str(self.simple().encode_lower(&mut uuid::Uuid::encode_buffer()));
    }

    fn parse_part(text: &str) -> Option<Self> {
        let canonical = text.len() == 32
            && text
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        canonical
            .then(|| uuid::Uuid::try_parse(text).ok())
            .flatten()
    }
}

/// The typed key of a document of model `T`: a string such as `user::123` that is known to match `T`'s
/// key template.
///
/// Build one from the parts with the generated `T::key(...)`, from a value with [`DocModel::doc_key`], or from
/// text with [`Key::parse`].
///
/// ```
/// use docmodel::{DocModel, Key};
/// # #[derive(serde::Serialize, serde::Deserialize, DocModel)]
/// # #[docmodel(type = "user", schema = "1.0", key = "user::{domain}::{id}")]
/// # struct User { domain: String, id: u64 }
///
/// let key = User::key("foo.org", 12345)?;
/// assert_eq!(key.as_str(), "user::foo.org::12345");
///
/// let parsed = Key::<User>::parse("user::foo.org::12345")?;
/// assert_eq!(parsed, key);
/// assert_eq!(parsed.parts()?, ("foo.org".to_owned(), 12345));
///
/// let err = User::key("foo::org", 1).unwrap_err();
/// assert!(matches!(err, docmodel::Error::InvalidKey { .. }));
/// # Ok::<(), docmodel::Error>(())
/// ```
pub struct Key<T: ?Sized> {
    text: String,
    model: PhantomData<fn() -> T>,
}

impl<T: DocModel> Key<T> {
    /// Reads a key, checking it against `T`'s template and parsing every part.
    pub fn parse(text: &str) -> Result<Self, Error> {
        T::parse_key_parts(text)?;
        Ok(Key::from_checked(text.to_owned()))
    }

    /// The parts the key was built from, as a tuple in template order.
    pub fn parts(&self) -> Result<T::KeyParts, Error> {
        T::parse_key_parts(&self.text)
    }
}

impl<T: ?Sized> Key<T> {
    /// A key whose text is known to match the template. Only the runtime and generated code call it.
    pub(crate) fn from_checked(text: String) -> Self {
        Key {
            text,
            model: PhantomData,
        }
    }

    /// The key text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The key text, owned.
    pub fn into_string(self) -> String {
        self.text
    }
}

impl<T: ?Sized> Clone for Key<T> {
    fn clone(&self) -> Self {
        Key::from_checked(self.text.clone())
    }
}

impl<T: ?Sized> fmt::Debug for Key<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Key").field(&self.text).finish()
    }
}

impl<T: ?Sized> fmt::Display for Key<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl<T: ?Sized> PartialEq for Key<T> {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl<T: ?Sized> Eq for Key<T> {}

impl<T: ?Sized> PartialOrd for Key<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<T: ?Sized> Ord for Key<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.text.cmp(&other.text)
    }
}

impl<T: ?Sized> Hash for Key<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.text.hash(state);
    }
}

impl<T: ?Sized> AsRef<str> for Key<T> {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

impl<T: ?Sized> Borrow<str> for Key<T> {
    fn borrow(&self) -> &str {
        &self.text
    }
}

impl<T: ?Sized> PartialEq<str> for Key<T> {
    fn eq(&self, other: &str) -> bool {
        self.text == other
    }
}

impl<T: ?Sized> PartialEq<&str> for Key<T> {
    fn eq(&self, other: &&str) -> bool {
        self.text == *other
    }
}

impl<T: ?Sized> serde::Serialize for Key<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl<'de, T: DocModel> serde::Deserialize<'de> for Key<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        T::parse_key_parts(&text).map_err(serde::de::Error::custom)?;
        Ok(Key::from_checked(text))
    }
}

/// Appends a part to a key being built with `write`, refusing an empty part or one that holds a delimiter
/// character.
pub(crate) fn push_part(
    out: &mut String,
    template: &KeyTemplate,
    model: &'static str,
    name: &'static str,
    write: impl FnOnce(&mut String),
) -> Result<(), Error> {
    let start = out.len();
    write(out);
    // A writer that removed text it did not write is refused like any other bad part.
    let written = out.get(start..).unwrap_or_default();
    let checked = if out.len() < start {
        Err(format!("the part `{name}` removed text from the key"))
    } else {
        check_part(name, written, template)
    };
    let Err(reason) = checked else { return Ok(()) };
    Err(Error::InvalidKey {
        model,
        key: out.clone(),
        reason,
    })
}

/// The rules of a part: not empty and without a character of the delimiter, which makes keys injective; and,
/// unless the template allows any text, without a character that makes a key print as something it is not.
fn check_part(name: &str, part: &str, template: &KeyTemplate) -> Result<(), String> {
    if part.is_empty() {
        return Err(format!("the part `{name}` is empty"));
    }
    if ascii_part_is_clean(part, template) {
        return Ok(());
    }
    let delimiter = template.delimiter;
    let refused = |c: char| delimiter.contains(c) || (!template.any_text && is_deceptive(c));
    match part.chars().find(|c| refused(*c)) {
        None => Ok(()),
        Some(c) if delimiter.contains(c) => Err(format!(
            "the part `{name}` = {part:?} contains {c:?}, a character of the delimiter {delimiter:?}"
        )),
        Some(c) => Err(format!(
            "the part `{name}` = {part:?} contains {c:?}, {}: a key holding it prints as something it is not; \
             `#[docmodel(allow(control_chars_in_keys))]` on the model allows it",
            deception(c)
        )),
    }
}

/// The common case of [`check_part`] in one pass over bytes: a part of ASCII characters only, none of them a
/// character of an ASCII delimiter or (unless the template allows any text) an ASCII control character.
/// `false` sends the part to the full check, which also reads characters past ASCII and says what it found.
fn ascii_part_is_clean(part: &str, template: &KeyTemplate) -> bool {
    let delimiter = template.delimiter.as_bytes();
    if !delimiter.is_ascii() {
        return false;
    }
    let refuses_controls = !template.any_text;
    part.bytes().all(|b| {
        b.is_ascii() && !delimiter.contains(&b) && !(refuses_controls && b.is_ascii_control())
    })
}

/// Whether `c` is a character a key part refuses by default: a control character (newline, NUL, escape, ...),
/// a bidirectional control (U+202E RIGHT-TO-LEFT OVERRIDE and its kin) or an invisible one (U+200B ZERO
/// WIDTH SPACE, U+2060 WORD JOINER, U+FEFF). Such a key can be shown as another in a log or a review. The
/// joiners U+200C and U+200D, which some scripts and emoji need, are allowed.
fn is_deceptive(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{200B}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'
                | '\u{2066}'..='\u{2069}'
                | '\u{FEFF}'
        )
}

/// What kind of character `c` is, for the error of a part that holds it.
fn deception(c: char) -> &'static str {
    if c.is_control() {
        "a control character"
    } else if matches!(c, '\u{200B}' | '\u{2060}' | '\u{FEFF}') {
        "an invisible character"
    } else {
        "a bidirectional control"
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// [`check_part`] as it was before its ASCII pass: every character read as a `char`.
    fn by_chars(part: &str, template: &KeyTemplate) -> bool {
        !part.is_empty()
            && !part
                .chars()
                .any(|c| template.delimiter.contains(c) || (!template.any_text && is_deceptive(c)))
    }

    const SEGMENTS: &[Segment] = &[Segment::Literal("user"), Segment::Part("name")];

    proptest! {
        /// The ASCII pass and the full check agree on every part, whatever the delimiter and the characters:
        /// ASCII letters, delimiters and controls, and characters past ASCII (a bidirectional control, an
        /// accented letter, a delimiter of its own).
        #[test]
        fn the_ascii_pass_agrees_with_the_full_check(
            part in proptest::collection::vec(
                prop_oneof![
                    Just('a'), Just('Z'), Just('0'), Just(':'), Just('_'), Just('-'), Just('\n'), Just('\u{7f}'),
                    Just('é'), Just('\u{202E}'), Just('\u{85}'), Just('→'),
                ],
                0..8,
            ).prop_map(|chars| chars.into_iter().collect::<String>()),
            delimiter in prop_oneof![Just("::"), Just(":"), Just("_"), Just("→")],
            any_text in any::<bool>(),
        ) {
            let mut template = KeyTemplate::new("user::{name}", delimiter, SEGMENTS);
            if any_text {
                template = template.allowing_any_text();
            }
            prop_assert_eq!(check_part("name", &part, &template).is_ok(), by_chars(&part, &template));
        }
    }
}
