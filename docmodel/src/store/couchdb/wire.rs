//! What travels between docmodel and CouchDB: document ids in URLs, `_rev` spliced into a body, CouchDB's
//! bookkeeping fields taken out of one. Pure functions, tested without a server.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

// The top-level fields CouchDB adds to or reads from a document body. They are its bookkeeping, never a
// docmodel field: stripped on read, and (but for `_rev`) never written.
use crate::json_schema::couchdb::COUCHDB_MEMBERS as SPECIAL;

/// Appends `text` to `out` as one URL path segment: every byte but RFC 3986's unreserved characters is
/// percent-encoded, so `/`, `?`, `#`, `%`, `+`, spaces and non-ASCII keys reach CouchDB as they are.
pub(crate) fn push_segment(out: &mut String, text: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &byte in text.as_bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xF)]));
        }
    }
}

/// Why a key cannot be a CouchDB document id, if it cannot.
pub(crate) fn refuse_key(key: &str) -> Option<&'static str> {
    if key.is_empty() {
        Some("CouchDB has no document with an empty id")
    } else if key == "." || key == ".." {
        Some(
            "a URL path cannot name the document `.` or `..` (it would name the database or the server)",
        )
    } else if key.starts_with('_') {
        Some("CouchDB reserves document ids starting with `_` (`_design/`, `_local/`)")
    } else {
        None
    }
}

/// Why a name cannot be a CouchDB database, if it cannot: CouchDB's rule, `^[a-z][a-z0-9_$()+/-]*$`.
pub(crate) fn refuse_database(name: &str) -> Option<&'static str> {
    let allowed = |byte: u8| {
        byte.is_ascii_lowercase()
            || byte.is_ascii_digit()
            || matches!(byte, b'_' | b'$' | b'(' | b')' | b'+' | b'/' | b'-')
    };
    match name.as_bytes() {
        [] => Some("a database name cannot be empty"),
        [first, ..] if !first.is_ascii_lowercase() => {
            Some("a database name starts with a lowercase letter (a-z)")
        }
        [_, rest @ ..] if !rest.iter().all(|byte| allowed(*byte)) => {
            Some("a database name holds only a-z, 0-9 and `_$()+/-`")
        }
        _ => None,
    }
}

/// `value` (a JSON object) with `"_rev":rev` as its first member: the body of a CouchDB update. The rest is
/// copied byte for byte. `None` when `value` is not a JSON object.
pub(crate) fn with_rev(value: &[u8], rev: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(value.len() + rev.len() + 12);
    with_first_member(&mut out, value, "_rev", rev).then_some(out)
}

/// Appends `value` (a JSON object) to `out` with `"{name}":{text}` (a JSON string) as its first member; the
/// rest is copied byte for byte. `false`, and `out` as it was, when `value` is not a JSON object.
pub(crate) fn with_first_member(out: &mut Vec<u8>, value: &[u8], name: &str, text: &str) -> bool {
    let Some(open) = value.iter().position(|byte| !byte.is_ascii_whitespace()) else {
        return false;
    };
    if value[open] != b'{' {
        return false;
    }
    let rest = &value[open + 1..];
    let empty = rest
        .iter()
        .find(|byte| !byte.is_ascii_whitespace())
        .is_some_and(|byte| *byte == b'}');
    out.push(b'{');
    // Neither a name nor a string can fail to serialise.
    let _ = serde_json::to_writer(&mut *out, name);
    out.push(b':');
    let _ = serde_json::to_writer(&mut *out, text);
    if !empty {
        out.push(b',');
    }
    out.extend_from_slice(rest);
    true
}

/// Whether `value` starts as a JSON object does (CouchDB stores nothing else).
pub(crate) fn is_object(value: &[u8]) -> bool {
    value.iter().find(|byte| !byte.is_ascii_whitespace()) == Some(&b'{')
}

/// A document as CouchDB returned it, its bookkeeping taken out.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Fetched {
    /// The document's own members, in the order the server sent them, each value byte for byte.
    pub(crate) bytes: Vec<u8>,
    /// `_id`.
    pub(crate) id: Option<String>,
    /// `_rev`.
    pub(crate) rev: Option<String>,
    /// `_conflicts`: the revisions that lost to `rev` after a replication, when asked for.
    pub(crate) conflicts: Vec<String>,
    /// `_deleted`: the revision is a deletion (a revision asked for by `rev` may be one).
    pub(crate) deleted: bool,
}

impl<'de> Deserialize<'de> for Fetched {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(FetchedVisitor)
    }
}

struct FetchedVisitor;

impl<'de> Visitor<'de> for FetchedVisitor {
    type Value = Fetched;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a CouchDB document (a JSON object)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fetched, A::Error> {
        let mut fetched = Fetched {
            bytes: Vec::with_capacity(256),
            id: None,
            rev: None,
            conflicts: Vec::new(),
            deleted: false,
        };
        fetched.bytes.push(b'{');
        while let Some(Name(name)) = map.next_key()? {
            match &*name {
                "_id" => fetched.id = Some(map.next_value()?),
                "_rev" => fetched.rev = Some(map.next_value()?),
                "_conflicts" => fetched.conflicts = map.next_value()?,
                "_deleted" => fetched.deleted = map.next_value()?,
                special if SPECIAL.contains(&special) => {
                    map.next_value::<de::IgnoredAny>()?;
                }
                _ => {
                    let value: &RawValue = map.next_value()?;
                    if fetched.bytes.len() > 1 {
                        fetched.bytes.push(b',');
                    }
                    serde_json::to_writer(&mut fetched.bytes, &*name).map_err(de::Error::custom)?;
                    fetched.bytes.push(b':');
                    fetched.bytes.extend_from_slice(value.get().as_bytes());
                }
            }
        }
        fetched.bytes.push(b'}');
        Ok(fetched)
    }
}

/// A member name, borrowed from the response when it has no escapes.
struct Name<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Name<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NameVisitor;
        impl<'de> Visitor<'de> for NameVisitor {
            type Value = Name<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_borrowed_str<E: de::Error>(self, name: &'de str) -> Result<Name<'de>, E> {
                Ok(Name(Cow::Borrowed(name)))
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<Name<'de>, E> {
                Ok(Name(Cow::Owned(name.to_owned())))
            }
        }
        deserializer.deserialize_str(NameVisitor)
    }
}

/// Takes CouchDB's bookkeeping out of a document it returned.
pub(crate) fn fetched(body: &[u8]) -> Result<Fetched, serde_json::Error> {
    serde_json::from_slice(body)
}

/// CouchDB's answer to a write: `{"ok":true,"id":"...","rev":"..."}`.
#[derive(Deserialize)]
pub(crate) struct WriteReply {
    pub(crate) rev: Option<String>,
}

/// One document's line in CouchDB's answer to `_bulk_docs`: `{"ok":true,"id":"...","rev":"..."}` or
/// `{"id":"...","error":"conflict","reason":"Document update conflict."}`.
#[derive(Deserialize)]
pub(crate) struct BulkReply {
    pub(crate) id: Option<String>,
    pub(crate) rev: Option<String>,
    pub(crate) error: Option<String>,
    #[serde(default)]
    pub(crate) reason: String,
}

/// CouchDB's error body: `{"error":"conflict","reason":"Document update conflict."}`.
#[derive(Deserialize, Default)]
pub(crate) struct ServerError {
    #[serde(default)]
    pub(crate) error: String,
    #[serde(default)]
    pub(crate) reason: String,
}

impl ServerError {
    /// The error body of a response, or an empty one when it has none.
    pub(crate) fn of(body: &[u8]) -> ServerError {
        serde_json::from_slice(body).unwrap_or_default()
    }

    /// Whether it says the server refused the request for what it is (the document, the credentials), so
    /// that sending it again cannot succeed and it changed nothing, whatever the status (pouchdb-server
    /// answers `doc_validation` with a 500).
    pub(crate) fn is_refusal(&self) -> bool {
        matches!(
            self.error.as_str(),
            "forbidden"
                | "unauthorized"
                | "doc_validation"
                | "bad_request"
                | "illegal_docid"
                | "invalid_json"
        )
    }
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.error.is_empty(), self.reason.is_empty()) {
            (true, true) => f.write_str("no error body"),
            (false, true) => write!(f, "`{}`", self.error),
            (true, false) => f.write_str(&self.reason),
            (false, false) => write!(f, "`{}`: {}", self.error, self.reason),
        }
    }
}

/// `_find`'s answer: the documents, each as CouchDB stores it.
#[derive(Deserialize)]
pub(crate) struct FindReply<'a> {
    #[serde(borrow)]
    pub(crate) docs: Vec<&'a RawValue>,
}

/// One row of `_all_docs` with `keys` and `include_docs`.
#[derive(Deserialize)]
pub(crate) struct Row<'a> {
    pub(crate) key: Option<String>,
    #[serde(borrow, default)]
    pub(crate) doc: Option<&'a RawValue>,
    #[serde(default)]
    pub(crate) error: Option<String>,
}

/// `_all_docs`' answer.
#[derive(Deserialize)]
pub(crate) struct Rows<'a> {
    #[serde(borrow)]
    pub(crate) rows: Vec<Row<'a>>,
}

/// A listing of the ids under a prefix, page by page through `_all_docs` from `startkey` on, with no
/// `endkey`: the ids with a prefix are one run in any order that compares ids unit by unit (CouchDB's raw
/// collation compares code points, pouchdb's compares UTF-16 units), and no `endkey` ends that run in both
/// (`prefix` + U+10FFFF sorts below `prefix` + U+FFFD in UTF-16 units). The listing ends at the first id
/// without the prefix, or at a page shorter than asked for.
pub(crate) struct Listing<'p> {
    prefix: &'p str,
    /// The id the previous page ended with, where the next one starts: it may be gone by then, so it is
    /// dropped by name rather than skipped by count.
    after: Option<String>,
    done: bool,
}

impl<'p> Listing<'p> {
    pub(crate) fn new(prefix: &'p str) -> Self {
        Listing {
            prefix,
            after: None,
            done: false,
        }
    }

    /// The listing of `prefix` from after the id `after` on (the last id of a page before). An id without
    /// the prefix starts it at the prefix where it is below it, and leaves nothing to list where it is above.
    pub(crate) fn resuming(prefix: &'p str, after: Option<&str>) -> Self {
        let mut listing = Listing::new(prefix);
        match after {
            Some(after) if after.starts_with(prefix) => listing.after = Some(after.to_owned()),
            Some(after) if after > prefix => listing.done = true,
            _ => {}
        }
        listing
    }

    /// Where the listing may end (`endkey`, with `inclusive_end=false`), where one bound holds in every
    /// collation: a prefix whose last character is ASCII ends below that character's successor
    /// (`user::1::v:` + `;`), whatever follows it. (Past ASCII, U+FFFF sorts above U+10000 in UTF-16
    /// units and below it in code points: the listing then stops at the first id without the prefix alone.)
    pub(crate) fn end(&self) -> Option<String> {
        let last = *self.prefix.as_bytes().last()?;
        (last < 0x7F).then(|| {
            let mut end = self.prefix[..self.prefix.len() - 1].to_owned();
            end.push(char::from(last + 1));
            end
        })
    }

    /// Whether the next page starts at an id already listed (the last of the page before, or the one the
    /// listing resumes after), which it drops.
    pub(crate) fn resumes(&self) -> bool {
        self.after.is_some()
    }

    /// Where the next page starts (`startkey`), or `None` when the listing is over.
    pub(crate) fn next_start(&self) -> Option<&str> {
        match (&self.after, self.done) {
            (_, true) => None,
            (Some(after), false) => Some(after),
            (None, false) => Some(self.prefix),
        }
    }

    /// Takes one page of ids, in the server's order, of at most `limit` rows asked for: the ids it lists
    /// (those with the prefix, without CouchDB's reserved `_` ids), in order.
    pub(crate) fn take(&mut self, ids: Vec<String>, limit: usize) -> Vec<String> {
        let full = ids.len() >= limit;
        let last = ids.last().cloned();
        let mut listed = Vec::with_capacity(ids.len());
        let mut progressed = false;
        for id in ids {
            if self.after.as_deref() == Some(id.as_str()) {
                continue;
            }
            progressed = true;
            if !id.starts_with(self.prefix) {
                self.done = true;
                break;
            }
            if !id.starts_with('_') {
                listed.push(id);
            }
        }
        // A full page of only the id already seen cannot happen with a page of 2 or more; with a page of 1 it
        // would repeat forever, so a page that brought nothing new ends the listing.
        if !(full && progressed) {
            self.done = true;
        }
        self.after = last;
        listed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segment(text: &str) -> String {
        let mut out = String::new();
        push_segment(&mut out, text);
        out
    }

    /// `_all_docs` as a server answers it: the ids from `start` on, in the order `order` sorts them, at
    /// most `limit` of them.
    fn all_docs(
        ids: &[String],
        order: fn(&str, &str) -> std::cmp::Ordering,
        start: &str,
        end: Option<&str>,
        limit: usize,
    ) -> Vec<String> {
        let mut sorted: Vec<&String> = ids.iter().collect();
        sorted.sort_by(|a, b| order(a, b));
        sorted
            .into_iter()
            .filter(|id| order(id, start) != std::cmp::Ordering::Less)
            .filter(|id| end.is_none_or(|end| order(id, end) == std::cmp::Ordering::Less))
            .take(limit)
            .cloned()
            .collect()
    }

    /// CouchDB's raw collation of ids: by code point (UTF-8 bytes).
    fn code_points(a: &str, b: &str) -> std::cmp::Ordering {
        a.cmp(b)
    }

    /// pouchdb's: by UTF-16 code unit, as JavaScript compares strings.
    fn utf16_units(a: &str, b: &str) -> std::cmp::Ordering {
        a.encode_utf16().cmp(b.encode_utf16())
    }

    fn list(
        ids: &[String],
        order: fn(&str, &str) -> std::cmp::Ordering,
        prefix: &str,
        limit: usize,
    ) -> Vec<String> {
        let mut listing = Listing::new(prefix);
        let mut listed = Vec::new();
        let mut pages = 0;
        while let Some(start) = listing.next_start() {
            let page = all_docs(ids, order, start, listing.end().as_deref(), limit);
            listed.extend(listing.take(page, limit));
            pages += 1;
            assert!(pages <= ids.len() + 2, "the listing ends");
        }
        listed
    }

    fn expected(
        ids: &[String],
        order: fn(&str, &str) -> std::cmp::Ordering,
        prefix: &str,
    ) -> Vec<String> {
        let mut wanted: Vec<String> = ids
            .iter()
            .filter(|id| id.starts_with(prefix) && !id.starts_with('_'))
            .cloned()
            .collect();
        wanted.sort_by(|a, b| order(a, b));
        wanted.dedup();
        wanted
    }

    #[test]
    fn a_listing_holds_every_key_of_its_prefix_in_either_collation() {
        // Characters on both sides of the surrogates: UTF-16 puts U+E000-U+FFFF above every character past
        // U+FFFF, code points put them below.
        let ids: Vec<String> = [
            "hd::a",
            "hd::\u{FF21}",
            "hd::\u{FFFD}",
            "hd::\u{E000}",
            "hd::\u{10FFFF}",
            "hd::\u{1F600}",
            "hd:;",
            "hd::\u{FFFF}\u{FFFF}",
            "he",
            "hc",
            "_design/x",
            "hd:",
            "hd::",
        ]
        .map(String::from)
        .to_vec();
        for order in [code_points as fn(&str, &str) -> _, utf16_units] {
            for limit in [2, 3, 1000] {
                assert_eq!(
                    list(&ids, order, "hd::", limit),
                    expected(&ids, order, "hd::"),
                    "page {limit}"
                );
                assert_eq!(
                    list(&ids, order, "", limit),
                    expected(&ids, order, ""),
                    "page {limit}"
                );
            }
        }
        assert_eq!(list(&ids, utf16_units, "hd::", 2).len(), 8);
    }

    #[test]
    fn a_listing_ends_below_the_successor_of_an_ascii_prefix() {
        assert_eq!(
            Listing::new("user::1::v::").end().as_deref(),
            Some("user::1::v:;")
        );
        assert_eq!(Listing::new("a~").end().as_deref(), Some("a\u{7f}"));
        assert_eq!(Listing::new("a\u{7f}").end(), None);
        assert_eq!(Listing::new("h\u{FF21}").end(), None);
        assert_eq!(Listing::new("").end(), None);
    }

    proptest::proptest! {
        #[test]
        fn a_listing_is_every_key_with_the_prefix(
            ids in proptest::collection::btree_set("[a\u{7F}\u{E000}\u{FFFD}\u{FFFF}\u{10000}\u{10FFFF}_:]{0,4}", 0..24),
            prefix in "[a\u{E000}\u{FFFF}\u{10FFFF}:]{0,2}",
            limit in 2usize..5,
        ) {
            let ids: Vec<String> = ids.into_iter().collect();
            for order in [code_points as fn(&str, &str) -> _, utf16_units] {
                proptest::prop_assert_eq!(list(&ids, order, &prefix, limit), expected(&ids, order, &prefix));
            }
        }
    }

    #[test]
    fn a_key_is_one_path_segment_whatever_it_holds() {
        assert_eq!(segment("user::123"), "user%3A%3A123");
        assert_eq!(segment("a/b?c#d%e+f g"), "a%2Fb%3Fc%23d%25e%2Bf%20g");
        assert_eq!(segment("café"), "caf%C3%A9");
        assert_eq!(segment("A-z_0.9~"), "A-z_0.9~");
    }

    #[test]
    fn reserved_and_empty_ids_are_refused() {
        assert!(refuse_key("_design/x").unwrap().contains("reserves"));
        assert!(refuse_key("").is_some());
        assert!(refuse_key(".").is_some() && refuse_key("..").is_some());
        assert_eq!(refuse_key("..."), None);
        assert_eq!(refuse_key("user::_1"), None);
    }

    #[test]
    fn database_names_follow_couchdbs_rule() {
        assert_eq!(refuse_database("docmodel"), None);
        assert_eq!(refuse_database("a0_$()+/-"), None);
        assert!(refuse_database("").is_some());
        assert!(refuse_database("Users").unwrap().contains("lowercase"));
        assert!(refuse_database("user db").unwrap().contains("only"));
    }

    #[test]
    fn the_rev_goes_first_and_the_rest_is_copied() {
        let body = with_rev(br#"{"a":1,"b":[2]}"#, "1-abc").unwrap();
        assert_eq!(body, br#"{"_rev":"1-abc","a":1,"b":[2]}"#);
        assert_eq!(with_rev(b" { } ", "2-x").unwrap(), br#"{"_rev":"2-x" } "#);
        assert_eq!(with_rev(b"[1]", "2-x"), None);
        assert_eq!(with_rev(b"", "2-x"), None);
    }

    #[test]
    fn bookkeeping_is_taken_out_wherever_it_is() {
        // CouchDB sends `_id` and `_rev` first, pouchdb-server last.
        for body in [
            &br#"{"_id":"user::1","_rev":"3-a","b":1,"a":{"x":[1,2]},"s":"\u00e9\n"}"#[..],
            &br#"{"b":1,"a":{"x":[1,2]},"s":"\u00e9\n","_id":"user::1","_rev":"3-a"}"#[..],
        ] {
            let fetched = fetched(body).unwrap();
            assert_eq!(
                std::str::from_utf8(&fetched.bytes).unwrap(),
                r#"{"b":1,"a":{"x":[1,2]},"s":"\u00e9\n"}"#
            );
            assert_eq!(fetched.id.as_deref(), Some("user::1"));
            assert_eq!(fetched.rev.as_deref(), Some("3-a"));
            assert!(fetched.conflicts.is_empty());
        }
    }

    #[test]
    fn conflicts_are_read_and_other_special_members_dropped() {
        let body = br#"{"_id":"k","_rev":"2-b","_conflicts":["2-a"],"_attachments":{},"_deleted_conflicts":["1-z"],"a\"b":null}"#;
        let fetched = fetched(body).unwrap();
        assert_eq!(fetched.bytes, br#"{"a\"b":null}"#);
        assert_eq!(fetched.conflicts, ["2-a"]);
        assert!(!fetched.deleted);
        let deleted = super::fetched(br#"{"_id":"k","_rev":"3-c","_deleted":true}"#).unwrap();
        assert!(deleted.deleted);
        assert_eq!(deleted.bytes, b"{}");
    }

    #[test]
    fn a_member_a_lenient_server_let_through_is_kept() {
        // Real CouchDB refuses `_type`; pouchdb-server keeps it. It is not CouchDB's, so it is not dropped.
        let fetched = fetched(br#"{"_type":"user","_rev":"1-a"}"#).unwrap();
        assert_eq!(fetched.bytes, br#"{"_type":"user"}"#);
    }

    #[test]
    fn a_body_that_is_not_an_object_is_an_error() {
        assert!(fetched(b"[1,2]").is_err());
        assert!(fetched(b"<html>").is_err());
        assert!(fetched(br#"{"a":1"#).is_err());
    }

    #[test]
    fn server_errors_read_as_much_as_they_say() {
        let err = ServerError::of(br#"{"error":"conflict","reason":"Document update conflict."}"#);
        assert_eq!(err.to_string(), "`conflict`: Document update conflict.");
        assert_eq!(ServerError::of(b"<html>").to_string(), "no error body");
    }
}
