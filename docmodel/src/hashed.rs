//! Translucent fields: [`Hashed`] values, kept only as their HMAC-SHA-256 under a [`HashKey`] (feature
//! `hashed`); what they are and how to keep their key is on [`Hashed`]'s page.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
use std::sync::Arc;

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::{Error, KeyPart};

/// The number of bytes of an HMAC-SHA-256 digest.
const DIGEST_LEN: usize = 32;

/// The digest as it is stored: two lowercase hex digits per byte.
const HEX_LEN: usize = DIGEST_LEN * 2;

/// What a stored `Hashed` value must look like, for error messages.
const EXPECTED: &str = "64 lowercase hex digits, the HMAC-SHA-256 digest of a `docmodel::Hashed`";

/// The application's secret for [`Hashed`] fields: the key of their HMAC-SHA-256.
///
/// At least [`HashKey::MIN_LEN`] (32) bytes, which should be random (`openssl rand -hex 32` gives 64 hex
/// digits, themselves usable as the key's bytes), kept in the application's secret store and never in the
/// database. A clone shares the key; `Debug` shows none of it.
///
/// ```
/// use docmodel::Error;
/// use docmodel::HashKey;
///
/// // From `openssl rand -hex 32`, read from the application's secret store:
/// let secret = "5b1f0c3e9a7d4b2e8c6f1a0d3b5e7c9f2a4d6b8e0c1f3a5d7b9e2c4f6a8d0b1e";
/// let key = HashKey::from_bytes(secret.as_bytes())?;
/// assert_eq!(format!("{key:?}"), "HashKey(..)");
///
/// let err = HashKey::from_bytes(b"hunter2").unwrap_err();
/// assert!(matches!(err, Error::HashKey { .. }));
/// assert_eq!(
///     err.to_string(),
///     "hash key: it is 7 bytes long; an HMAC-SHA-256 key needs at least 32 random bytes"
/// );
/// # Ok::<(), Error>(())
/// ```
#[derive(Clone)]
pub struct HashKey {
    /// The HMAC keyed once; each digest starts from a copy of this state. The key's bytes are not kept.
    mac: Arc<Hmac<Sha256>>,
}

impl HashKey {
    /// The shortest key accepted, in bytes: the digest's length, below which the key is the weaker part.
    pub const MIN_LEN: usize = DIGEST_LEN;

    /// A key of `bytes`; [`Error::HashKey`] if there are fewer than [`MIN_LEN`](HashKey::MIN_LEN).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        if bytes.len() < Self::MIN_LEN {
            return Err(Error::HashKey {
                reason: format!(
                    "it is {} bytes long; an HMAC-SHA-256 key needs at least {} random bytes",
                    bytes.len(),
                    Self::MIN_LEN
                ),
            });
        }
        // HMAC takes a key of any length (a long one is hashed first): this error never happens.
        let mac = <Hmac<Sha256> as KeyInit>::new_from_slice(bytes).map_err(|_| Error::HashKey {
            reason: "HMAC-SHA-256 refused it".to_owned(),
        })?;
        Ok(HashKey { mac: Arc::new(mac) })
    }

    /// The HMAC of `value`'s bytes, ready to finalize or verify.
    fn mac_of<Q: HashInput + ?Sized>(&self, value: &Q) -> Hmac<Sha256> {
        let mut mac = Hmac::clone(&self.mac);
        value.write_input(&mut |bytes| mac.update(bytes));
        mac
    }
}

impl fmt::Debug for HashKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("HashKey(..)")
    }
}

/// A value of type `T` kept only as its HMAC-SHA-256 under a [`HashKey`]: stored, and written in keys, as
/// 64 lowercase hex digits.
///
/// `T` names what was hashed (`Hashed<String>` for an email), so that a digest of one kind is not compared
/// with a value of another. What is hashed, and what a lost key costs, are [below](#what-is-hashed).
///
/// ```
/// use docmodel::KeyPart;
/// use docmodel::{HashKey, Hashed};
///
/// let key = HashKey::from_bytes(&[0x42; 32])?;
/// let id: Hashed<u64> = Hashed::new(&key, &12345);
/// assert!(id.matches(&key, &12345));
/// assert_eq!(id.to_string(), "946b699eb933cf4da941fe827582efa8abec8dae7295c6d40458bbdf88c8fed3");
/// assert_eq!(Hashed::<u64>::parse_part(&id.to_string()), Some(id));
/// assert_eq!(Hashed::<u64>::parse_part("946B699E"), None, "only the stored form parses");
/// # Ok::<(), docmodel::Error>(())
/// ```
///
/// # Translucent fields
///
/// The CouchDB seed's "translucent database" scrambles sensitive values with a one-way function at the
/// client before storing them: the database holds something that can be compared, never the value. A
/// [`Hashed<T>`] field is that, hardened: it holds the HMAC-SHA-256 of the value under a [`HashKey`] the
/// application keeps outside the database, stored as 64 lowercase hex digits. Given a value, the
/// application can tell whether it is the one stored ([`Hashed::matches`]) and can compute its key part,
/// so a user is found by their email without the email being stored anywhere.
///
/// ```
/// use docmodel::{HashKey, Hashed};
/// use docmodel::{Doc, DocModel};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, DocModel)]
/// #[docmodel(type = "user", schema = "1.0", key = "user::{email}")]
/// struct User {
///     /// The user's email, kept only as its HMAC.
///     email: Hashed<String>,
///     plan: String,
/// }
///
/// // In an application: 32 random bytes from its secret store, never from the database.
/// let key = HashKey::from_bytes(&[0x42; 32])?;
/// let email: Hashed<String> = Hashed::new(&key, "ada@example.com");
/// assert!(email.matches(&key, "ada@example.com"));
/// assert!(!email.matches(&key, "ada@example.org"));
///
/// let doc = Doc::new(User { email, plan: "pro".into() })?;
/// let digest = "ecf1c1cd04d9c5e9e2db502a9143e61b7ee1984696bc8a3d23096e8be9ae8b54";
/// assert_eq!(doc.key().as_str(), format!("user::{digest}"));
/// assert_eq!(
///     String::from_utf8(doc.to_vec()?).unwrap(),
///     format!(r#"{{"_type":"user","_schema":"1.0","_ver":1,"email":"{digest}","plan":"pro"}}"#),
/// );
/// # Ok::<(), docmodel::Error>(())
/// ```
///
/// A repository given the key once ([`Repo::hash_key`](crate::Repo::hash_key)) hashes and matches without
/// handing it around: [`Repo::hash`](crate::Repo::hash), [`Repo::matches`](crate::Repo::matches).
///
/// # What is hashed
///
/// The bytes [`HashInput`] gives for the value: the UTF-8 of a string, the decimal text of an integer, the
/// bytes of a byte string. Nothing is normalised: `Ada@Example.com ` and `ada@example.com` give two digests.
/// An application that treats them as one email normalises it (trim, lowercase, whatever its rule is) before
/// every [`Hashed::new`] and [`Hashed::matches`], the same way every time.
///
/// The digest depends on the key and the bytes only, not on the field or the model: the same email hashes
/// alike in every field under the same key, which is what lets a lookup document or another model find it.
/// Fields that must not be linkable to each other take keys of their own.
///
/// # Why HMAC, not SHA-256
///
/// The seed hashes with bare SHA-256. Names, emails and phone numbers come from small spaces that are easy
/// to list: whoever reads the database hashes a list of candidate emails and looks the digests up, which
/// recovers every value on the list in seconds (a dictionary attack; a salt per document does not help a
/// field that must be found by value). An HMAC under a secret key cannot be computed without the key, so
/// the stored digests tell a reader of the database nothing but which documents share a value. The
/// protection is exactly as good as the key's secrecy: keep it out of the database, its backups and its
/// logs ([`HashKey`]'s `Debug` prints nothing of it).
///
/// HMAC-SHA-256 is fast on purpose (a lookup computes one per request). It is not a password hash: a
/// password is stored with argon2, scrypt or bcrypt, whose cost guards it even when the key leaks.
///
/// # If the key is lost
///
/// Nothing can be recovered. docmodel never stores the key or the values, so without the key:
/// - no stored digest can be matched: [`Hashed::matches`] is false for every value under any other key;
/// - no digest can be computed again, so a document keyed or looked up by a hashed value can no longer be
///   found by that value (its key is still listed by a scan, but nothing tells whose it is);
/// - the values themselves are gone for good: that is the point of a one-way function.
///
/// Back the key up apart from the database, as the only way to reach these fields.
///
/// # Changing the key
///
/// A digest under the old key cannot be turned into one under the new key: the plain value is needed, and
/// docmodel never stored it. A migration step cannot do it either. Keys change the way passwords do: keep
/// both keys for a while, and when a user presents the value (signs in with their email), check it against
/// the old digest and store the new one.
pub struct Hashed<T: ?Sized> {
    digest: [u8; DIGEST_LEN],
    value: PhantomData<fn() -> T>,
}

impl<T: ?Sized> Hashed<T> {
    /// The digest of `value` under `key`. `value` is a `T` or what `T` borrows as (`&str` for a
    /// `Hashed<String>`); it is hashed as it is given, without normalising it.
    pub fn new<Q>(key: &HashKey, value: &Q) -> Self
    where
        T: Borrow<Q>,
        Q: HashInput + ?Sized,
    {
        Hashed::from_digest(key.mac_of(value).finalize().into_bytes().into())
    }

    /// Whether this is the digest of `value` under `key`, compared in constant time: how long the check
    /// takes tells nothing about how much of the digest matched.
    pub fn matches<Q>(&self, key: &HashKey, value: &Q) -> bool
    where
        T: Borrow<Q>,
        Q: HashInput + ?Sized,
    {
        key.mac_of(value).verify_slice(&self.digest).is_ok()
    }

    /// A digest computed elsewhere (HMAC-SHA-256 of a value's [`HashInput`] bytes).
    pub const fn from_digest(digest: [u8; 32]) -> Self {
        Hashed {
            digest,
            value: PhantomData,
        }
    }

    /// The digest's 32 bytes.
    pub const fn digest(&self) -> &[u8; 32] {
        &self.digest
    }

    /// The digest as stored: 64 lowercase hex digits.
    fn hex(&self) -> [u8; HEX_LEN] {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut hex = [0; HEX_LEN];
        for (pair, byte) in hex.chunks_exact_mut(2).zip(self.digest) {
            pair.copy_from_slice(&[
                DIGITS[usize::from(byte >> 4)],
                DIGITS[usize::from(byte & 0xf)],
            ]);
        }
        hex
    }

    /// Reads the stored form; `None` unless `text` is exactly 64 lowercase hex digits.
    fn from_hex(text: &str) -> Option<Self> {
        let text = text.as_bytes();
        if text.len() != HEX_LEN {
            return None;
        }
        let nibble = |digit: u8| match digit {
            b'0'..=b'9' => Some(digit - b'0'),
            b'a'..=b'f' => Some(digit - b'a' + 10),
            _ => None,
        };
        let mut digest = [0; DIGEST_LEN];
        for (byte, pair) in digest.iter_mut().zip(text.chunks_exact(2)) {
            *byte = (nibble(pair[0])? << 4) | nibble(pair[1])?;
        }
        Some(Hashed::from_digest(digest))
    }
}

/// Equal digests, compared in constant time like [`Hashed::matches`].
impl<T: ?Sized> PartialEq for Hashed<T> {
    fn eq(&self, other: &Self) -> bool {
        let differing = self
            .digest
            .iter()
            .zip(other.digest)
            .fold(0, |acc, (a, b)| acc | (a ^ b));
        differing == 0
    }
}

impl<T: ?Sized> Eq for Hashed<T> {}

impl<T: ?Sized> Hash for Hashed<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.digest.hash(state);
    }
}

impl<T: ?Sized> Clone for Hashed<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for Hashed<T> {}

impl<T: ?Sized> fmt::Display for Hashed<T> {
    /// The stored form: 64 lowercase hex digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(hex_str(&self.hex()))
    }
}

impl<T: ?Sized> fmt::Debug for Hashed<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Hashed")
            .field(&hex_str(&self.hex()))
            .finish()
    }
}

/// The hex digits `Hashed::hex` wrote, which are ASCII.
fn hex_str(hex: &[u8; HEX_LEN]) -> &str {
    std::str::from_utf8(hex).unwrap_or_default()
}

/// A digest in a key is its stored form; only that form parses back.
impl<T: ?Sized> KeyPart for Hashed<T> {
    fn write_part(&self, out: &mut String) {
        out.push_str(hex_str(&self.hex()));
    }

    fn parse_part(text: &str) -> Option<Self> {
        Hashed::from_hex(text)
    }
}

impl<T: ?Sized> serde::Serialize for Hashed<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(hex_str(&self.hex()))
    }
}

impl<'de, T: ?Sized> serde::Deserialize<'de> for Hashed<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(HexVisitor(PhantomData))
    }
}

struct HexVisitor<T: ?Sized>(PhantomData<fn() -> T>);

impl<T: ?Sized> serde::de::Visitor<'_> for HexVisitor<T> {
    type Value = Hashed<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(EXPECTED)
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Hashed<T>, E> {
        // The text is not repeated: a field that still holds the plain value (an email stored before the
        // field was hashed) would put it into the error, and so into logs.
        Hashed::from_hex(text).ok_or_else(|| {
            let found = format!("a string of {} characters", text.chars().count());
            E::invalid_value(serde::de::Unexpected::Other(&found), &self)
        })
    }
}

/// A value a [`Hashed`] field can hold: what gives the bytes its digest is computed from.
///
/// Implemented for `str`, `String`, `[u8]`, `Vec<u8>` and the integer types (their decimal text, as in
/// keys). A type and the types it borrows as (`String` and `str`) give the same bytes, so that
/// `Hashed<String>` takes either. Implement it for a newtype that holds a normalised value (an `Email` that
/// lowercases in its constructor), so that no unnormalised value is ever hashed.
///
/// ```
/// use docmodel::{HashInput, HashKey, Hashed};
///
/// /// An email, trimmed and lowercased when it is made.
/// struct Email(String);
///
/// impl Email {
///     fn new(text: &str) -> Self {
///         Email(text.trim().to_lowercase())
///     }
/// }
///
/// impl HashInput for Email {
///     fn write_input(&self, write: &mut dyn FnMut(&[u8])) {
///         write(self.0.as_bytes());
///     }
/// }
///
/// let key = HashKey::from_bytes(&[0x42; 32])?;
/// let email: Hashed<Email> = Hashed::new(&key, &Email::new(" Ada@Example.com"));
/// assert!(email.matches(&key, &Email::new("ada@example.com")));
/// # Ok::<(), docmodel::Error>(())
/// ```
pub trait HashInput {
    /// Passes the value's bytes to `write`, in one call or in several (their concatenation is hashed).
    fn write_input(&self, write: &mut dyn FnMut(&[u8]));
}

impl HashInput for str {
    fn write_input(&self, write: &mut dyn FnMut(&[u8])) {
        write(self.as_bytes());
    }
}

impl HashInput for String {
    fn write_input(&self, write: &mut dyn FnMut(&[u8])) {
        write(self.as_bytes());
    }
}

impl HashInput for [u8] {
    fn write_input(&self, write: &mut dyn FnMut(&[u8])) {
        write(self);
    }
}

impl HashInput for Vec<u8> {
    fn write_input(&self, write: &mut dyn FnMut(&[u8])) {
        write(self);
    }
}

macro_rules! integer_hash_inputs {
    ($($int:ty)*) => {$(
        impl HashInput for $int {
            fn write_input(&self, write: &mut dyn FnMut(&[u8])) {
                write(itoa::Buffer::new().format(*self).as_bytes());
            }
        }
    )*};
}

integer_hash_inputs!(u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize);

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "00ff10a9b8c7d6e5f40312233445566778899aabbccddeeff0123456789abcde";

    #[test]
    fn hex_round_trips() {
        let hashed = Hashed::<str>::from_hex(HEX).unwrap();
        assert_eq!(hashed.digest()[..3], [0x00, 0xff, 0x10]);
        assert_eq!(hashed.to_string(), HEX);
    }

    #[test]
    fn only_64_lowercase_hex_digits_parse() {
        let refused = [
            String::new(),
            HEX[..62].to_owned(),
            format!("{HEX}00"),
            HEX.to_uppercase(),
            HEX.replacen('a', "g", 1),
            HEX.replacen('0', " ", 1),
            // 64 bytes, but not 64 characters: a multi-byte character must not split into "digits".
            format!("é{}", &HEX[2..]),
            format!("+{}", &HEX[1..]),
        ];
        for text in refused {
            assert_eq!(Hashed::<str>::from_hex(&text), None, "{text:?}");
        }
    }

    #[test]
    fn a_bad_stored_value_is_described_without_repeating_it() {
        let err = serde_json::from_str::<Hashed<String>>(r#""ada@example.com""#).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "invalid value: a string of 15 characters, expected {EXPECTED} at line 1 column 17"
            )
        );
        let err = serde_json::from_str::<Hashed<String>>("12").unwrap_err();
        assert!(
            err.to_string().starts_with("invalid type: integer `12`"),
            "{err}"
        );
    }
}
