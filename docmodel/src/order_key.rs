//! [`OrderKey`]: a position in a list kept as one document per item (the CouchDB guide's second design for
//! data two replicas change at once), which a new item between any two others always finds without moving
//! them.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The digits of an order key, in the order they sort: the same by bytes (Redb's keys, SQL++) and by Unicode
/// collation (CouchDB's views and Mango `sort`), which puts digits before letters and orders lowercase letters
/// alphabetically. Upper case and punctuation sort differently there, so no key holds them.
const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";

/// The key [`OrderKey::first`] gives: the integer 0.
const FIRST: &str = "n0";

/// How many digits the integer part of a key has, by its head (its first character): `n` to `z` begin the
/// integers from 0 up, with 1 to 13 digits; `m` down to `a` the integers below 0, with 1 to 13 digits.
fn integer_digits(head: u8) -> Option<usize> {
    match head {
        b'a'..=b'm' => Some(usize::from(b'm' - head) + 1),
        b'n'..=b'z' => Some(usize::from(head - b'n') + 1),
        _ => None,
    }
}

/// The JSON Schema `pattern` of an order key's text: exactly the texts [`OrderKey::parse`] takes (a head
/// letter, the integer digits it gives, a fraction not ending with `0`, and not the smallest integer alone),
/// written without look-around, so that every validator (the CouchDB guard's JavaScript, Rust's) reads it.
#[cfg(feature = "json-schema")]
pub(crate) fn json_pattern() -> String {
    let fraction = "(?:[0-9a-z]*[1-9a-z])?";
    let heads: Vec<String> = (b'a'..=b'z')
        .map(|head| {
            let digits = integer_digits(head).unwrap_or(1);
            if head == b'a' {
                // Not 13 zeros, unless a fraction follows.
                let not_zero: Vec<String> = (0..digits)
                    .map(|zeros| format!("0{{{zeros}}}[1-9a-z][0-9a-z]{{{}}}", digits - 1 - zeros))
                    .collect();
                format!(
                    "a(?:(?:{}){fraction}|0{{{digits}}}[0-9a-z]*[1-9a-z])",
                    not_zero.join("|")
                )
            } else {
                format!("{}[0-9a-z]{{{digits}}}{fraction}", char::from(head))
            }
        })
        .collect();
    format!("^(?:{})$", heads.join("|"))
}

/// The value of a digit.
fn value(digit: u8) -> Option<usize> {
    DIGITS.iter().position(|known| *known == digit)
}

/// A position in an ordered list, as a short string of digits and lowercase letters that sorts by plain byte
/// order the same way on every store (Redb keys, CouchDB's collation and Mango `sort`, SQL++): a list kept as
/// one document per item sorts by it, and an item put between two others takes a new key between theirs, so
/// no other item is written again. The CouchDB guide, on lists of items as documents: a floating-point index
/// "will fail after a while when you run out of precision"; this key never runs out.
///
/// An order key is an integer part (a head letter giving its length, then its digits, base 36) and a fraction
/// that never ends with `0`. [`OrderKey::after`] the last key counts the integer up, and
/// [`OrderKey::before`] the first counts it down, so appending or prepending `n` items keeps keys of about
/// `log36(n) + 2` characters (at most 14 up to 36^13 items); [`OrderKey::between`] takes the middle of the
/// fraction, which grows by one character about every 5 items put repeatedly at one place (each halves what
/// is left there: 1,000 items put after one item, each before the one put last, reach 169 characters), and
/// stays short where items go at places apart (100,000 items put at random places: at most 9 characters).
/// A replica's tag adds its length at each level of items put between tagged keys (10,000 items from three
/// replicas, often at one place at once, with 2-character tags: at most 44). The unit tests pin these.
///
/// Two replicas that put an item at the same place apart compute the same key; [`OrderKey::between_on`] (and
/// `after_on`, `before_on`) appends a replica's own tag, so that their keys differ and both items keep a
/// place, in the same order on both replicas, with no item renumbered.
///
/// ```
/// use docmodel::OrderKey;
///
/// let first = OrderKey::first();
/// let second = first.after();
/// let between = OrderKey::between(&first, &second)?;
/// assert!(first < between && between < second);
/// assert_eq!((first.as_str(), second.as_str(), between.as_str()), ("n0", "n1", "n0i"));
/// // A replica's tag keeps two replicas' items at one place apart.
/// let laptop = OrderKey::between_on(&first, &second, "lap1")?;
/// let pc = OrderKey::between_on(&first, &second, "pc1")?;
/// assert!(first < laptop && laptop < pc && pc < second);
/// # Ok::<(), docmodel::OrderKeyError>(())
/// ```
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OrderKey(String);

/// Why a text is not an [`OrderKey`], or why no key lies where one was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum OrderKeyError {
    /// The text is not an order key.
    Invalid {
        /// The text given.
        text: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// [`OrderKey::between`] was given a first key that does not sort before the second.
    NotBetween {
        /// The key given first.
        low: String,
        /// The key given second.
        high: String,
    },
    /// A replica's tag is not digits and lowercase letters, or ends with `0`.
    Tag {
        /// The tag given.
        tag: String,
    },
}

impl std::fmt::Display for OrderKeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OrderKeyError::Invalid { text, reason } => {
                write!(f, "`{text}` is not an order key: {reason}")
            }
            OrderKeyError::NotBetween { low, high } => write!(
                f,
                "no order key lies between `{low}` and `{high}`: the first must sort before the second"
            ),
            OrderKeyError::Tag { tag } => write!(
                f,
                "`{tag}` is not a replica's tag: one to 16 digits and lowercase letters, not ending with `0`"
            ),
        }
    }
}

impl std::error::Error for OrderKeyError {}

impl OrderKey {
    /// The key of the first item of an empty list.
    pub fn first() -> Self {
        OrderKey(FIRST.to_owned())
    }

    /// The text `text` as an order key, checked: digits and lowercase letters, a head letter and as many
    /// integer digits as it says, and a fraction that does not end with `0`.
    pub fn parse(text: &str) -> Result<Self, OrderKeyError> {
        let invalid = |reason| OrderKeyError::Invalid {
            text: text.to_owned(),
            reason,
        };
        let bytes = text.as_bytes();
        let Some(&head) = bytes.first() else {
            return Err(invalid("it is empty"));
        };
        let digits = integer_digits(head).ok_or_else(|| invalid("it does not begin with a-z"))?;
        if bytes.len() < digits + 1 {
            return Err(invalid(
                "its integer part is shorter than its first letter says",
            ));
        }
        if bytes.iter().any(|byte| value(*byte).is_none()) {
            return Err(invalid("it holds a character other than 0-9 and a-z"));
        }
        if bytes.len() > digits + 1 && bytes.last() == Some(&b'0') {
            return Err(invalid("its fraction ends with 0"));
        }
        if bytes.len() == digits + 1 && head == b'a' && bytes[1..].iter().all(|byte| *byte == b'0')
        {
            return Err(invalid(
                "it is the smallest integer, which no key is, so that one sorts before it",
            ));
        }
        Ok(OrderKey(text.to_owned()))
    }

    /// The key as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// A key after this one, for an item put last: the next integer, or where the integers are used up,
    /// one with a longer fraction.
    pub fn after(&self) -> Self {
        let (integer, fraction) = self.split();
        match increment(integer) {
            Some(next) => OrderKey(text(next)),
            None => OrderKey(text(join(integer, &midpoint(fraction, None)))),
        }
    }

    /// A key before this one, for an item put first: the integer before, or below the smallest, one with a
    /// fraction.
    pub fn before(&self) -> Self {
        let (integer, fraction) = self.split();
        if is_smallest(integer) {
            // Below the smallest integer: a smaller fraction of it (a key there always has one).
            return OrderKey(text(join(integer, &midpoint(b"", Some(fraction)))));
        }
        if !fraction.is_empty() {
            return OrderKey(text(integer.to_vec()));
        }
        match decrement(integer) {
            Some(previous) if !is_smallest(&previous) => OrderKey(text(previous)),
            // The smallest integer is no key: one of its fractions is.
            Some(smallest) => OrderKey(text(join(&smallest, &midpoint(b"", None)))),
            None => OrderKey(text(join(integer, &midpoint(b"", Some(fraction))))),
        }
    }

    /// A key between `low` and `high`, for an item put between them: `low` must sort before `high`.
    pub fn between(low: &OrderKey, high: &OrderKey) -> Result<Self, OrderKeyError> {
        if low >= high {
            return Err(OrderKeyError::NotBetween {
                low: low.0.clone(),
                high: high.0.clone(),
            });
        }
        let ((low_integer, low_fraction), (high_integer, high_fraction)) =
            (low.split(), high.split());
        if low_integer == high_integer {
            return Ok(OrderKey(text(join(
                low_integer,
                &midpoint(low_fraction, Some(high_fraction)),
            ))));
        }
        // The next integer, where it is below `high`; else a longer fraction of `low`'s integer.
        match increment(low_integer) {
            Some(next) if next.as_slice() < high.0.as_bytes() => Ok(OrderKey(text(next))),
            _ => Ok(OrderKey(text(join(
                low_integer,
                &midpoint(low_fraction, None),
            )))),
        }
    }

    /// [`OrderKey::between`], with the tag of the replica that puts the item there appended (one to 16
    /// digits and lowercase letters, not ending with `0`; each replica its own): two replicas that put an
    /// item at the same place apart get two keys, in the order of their tags, both between `low` and `high`.
    pub fn between_on(
        low: &OrderKey,
        high: &OrderKey,
        replica: &str,
    ) -> Result<Self, OrderKeyError> {
        let key = OrderKey::between(low, high)?;
        tagged(key, Some(high), replica)
    }

    /// [`OrderKey::after`], with the replica's tag appended ([`OrderKey::between_on`]).
    pub fn after_on(&self, replica: &str) -> Result<Self, OrderKeyError> {
        tagged(self.after(), None, replica)
    }

    /// [`OrderKey::before`], with the replica's tag appended ([`OrderKey::between_on`]).
    pub fn before_on(&self, replica: &str) -> Result<Self, OrderKeyError> {
        tagged(self.before(), Some(self), replica)
    }

    /// The integer part and the fraction.
    fn split(&self) -> (&[u8], &[u8]) {
        let bytes = self.0.as_bytes();
        // Every key was checked: its head gives its integer's length.
        let digits = bytes
            .first()
            .and_then(|head| integer_digits(*head))
            .unwrap_or(0);
        bytes.split_at((digits + 1).min(bytes.len()))
    }
}

/// `replica`, if it is a replica's tag: one to 16 digits and lowercase letters, not ending with `0`. The
/// same tag names a replica's order keys and its [event log](crate::EventLog)'s events.
pub(crate) fn check_tag(replica: &str) -> Result<&str, OrderKeyError> {
    let tag = replica.as_bytes();
    if tag.is_empty()
        || tag.len() > 16
        || tag.iter().any(|byte| value(*byte).is_none())
        || tag.last() == Some(&b'0')
    {
        return Err(OrderKeyError::Tag {
            tag: replica.to_owned(),
        });
    }
    Ok(replica)
}

/// `key` with `replica`'s tag appended, kept below `high`: where `key` begins `high`, digits of the middle of
/// what follows in `high` come first, until it no longer does.
fn tagged(
    key: OrderKey,
    high: Option<&OrderKey>,
    replica: &str,
) -> Result<OrderKey, OrderKeyError> {
    let tag = check_tag(replica)?.as_bytes();
    let mut bytes = key.0.into_bytes();
    if let Some(high) = high {
        let high = high.0.as_bytes();
        while high.starts_with(&bytes) && high.len() > bytes.len() {
            let rest = midpoint(b"", Some(&high[bytes.len()..]));
            bytes.extend(rest);
        }
    }
    bytes.extend_from_slice(tag);
    Ok(OrderKey(text(bytes)))
}

/// A fraction strictly between the fractions `low` and `high` (`None`: 1), neither ending with `0`, that ends
/// with no `0` itself: the middle digit of the first place where they differ by more than one, after their
/// common beginning.
fn midpoint(low: &[u8], high: Option<&[u8]>) -> Vec<u8> {
    let mut out = Vec::new();
    let (mut low, mut high) = (low, high);
    loop {
        if let Some(upper) = high {
            // Their common beginning, `low` read with zeros after its end.
            let common = upper
                .iter()
                .enumerate()
                .take_while(|(at, digit)| low.get(*at).copied().unwrap_or(b'0') == **digit)
                .count();
            if common > 0 {
                out.extend_from_slice(&upper[..common]);
                low = low.get(common..).unwrap_or(&[]);
                high = Some(&upper[common..]);
                continue;
            }
        }
        let low_digit = low.first().and_then(|digit| value(*digit)).unwrap_or(0);
        let high_digit = match high {
            Some(upper) => upper.first().and_then(|digit| value(*digit)).unwrap_or(0),
            None => DIGITS.len(),
        };
        if high_digit > low_digit + 1 {
            out.push(DIGITS[(low_digit + high_digit).div_ceil(2)]);
            return out;
        }
        match high {
            // Its first digit alone is below it, and above `low`.
            Some(upper) if upper.len() > 1 => {
                out.push(upper[0]);
                return out;
            }
            _ => {
                out.push(DIGITS[low_digit]);
                low = low.get(1..).unwrap_or(&[]);
                high = None;
            }
        }
    }
}

/// The integer after `integer`, or `None` after the largest.
fn increment(integer: &[u8]) -> Option<Vec<u8>> {
    let (&head, digits) = integer.split_first()?;
    let mut digits = digits.to_vec();
    for at in (0..digits.len()).rev() {
        let digit = value(digits[at])?;
        if digit + 1 < DIGITS.len() {
            digits[at] = DIGITS[digit + 1];
            return Some(join(&[head], &digits));
        }
        digits[at] = b'0';
    }
    // Every digit was the largest: the smallest integer of the next head.
    let next = head.checked_add(1).filter(|head| *head <= b'z')?;
    Some(join(&[next], &vec![b'0'; integer_digits(next)?]))
}

/// The integer before `integer`, or `None` before the smallest.
fn decrement(integer: &[u8]) -> Option<Vec<u8>> {
    let (&head, digits) = integer.split_first()?;
    let mut digits = digits.to_vec();
    for at in (0..digits.len()).rev() {
        let digit = value(digits[at])?;
        if digit > 0 {
            digits[at] = DIGITS[digit - 1];
            return Some(join(&[head], &digits));
        }
        digits[at] = DIGITS[DIGITS.len() - 1];
    }
    // Every digit was 0: the largest integer of the head before.
    let previous = head.checked_sub(1).filter(|head| *head >= b'a')?;
    Some(join(
        &[previous],
        &vec![DIGITS[DIGITS.len() - 1]; integer_digits(previous)?],
    ))
}

/// Whether `integer` is the smallest integer (`a` and 13 zeros), which no key is.
fn is_smallest(integer: &[u8]) -> bool {
    integer.first() == Some(&b'a') && integer[1..].iter().all(|digit| *digit == b'0')
}

fn join(first: &[u8], second: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(first.len() + second.len());
    out.extend_from_slice(first);
    out.extend_from_slice(second);
    out
}

/// Digits as text: every byte is one of [`DIGITS`], which are ASCII.
fn text(bytes: Vec<u8>) -> String {
    bytes.into_iter().map(char::from).collect()
}

impl fmt::Display for OrderKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for OrderKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OrderKey({:?})", self.0)
    }
}

impl std::str::FromStr for OrderKey {
    type Err = OrderKeyError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        OrderKey::parse(text)
    }
}

impl Serialize for OrderKey {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for OrderKey {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        OrderKey::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests;
