//! Revision copies as stored bytes: recognising one by its envelope ([`copy_header`]), and marking the
//! stored bytes of a document as its copy ([`marked`]). The repository asks these questions
//! (`repo/copies.rs`); it never reads a stored document's bytes itself.

use serde_json::value::RawValue;

use super::{Peeked, escaped, peek, peek_leading, peek_written_copy};
use crate::{DocModel, EnvelopeField};

/// What the envelope of the stored `bytes` says, read as cheaply as their beginning allows: by the text a
/// copy begins with where docmodel wrote it as the copy of the document under `key` ([`peek_written_copy`]),
/// by the envelope fields they begin with where another writer kept them first ([`peek_leading`]), or by
/// their whole envelope ([`peek`](fn@peek)). `None` where the bytes are not a JSON object with an envelope
/// that reads.
pub(crate) fn copy_header<T: DocModel>(bytes: &[u8], key: &str) -> Option<Peeked> {
    peek_written_copy::<T>(bytes, key)
        .or_else(|| peek_leading::<T>(bytes))
        .or_else(|| peek::<T>(bytes))
}

/// Whether two stored documents are the same JSON (a store may re-serialise what it was given).
pub(crate) fn same_json(a: &[u8], b: &[u8]) -> bool {
    a == b
        || matches!(
            (
                serde_json::from_slice::<serde_json::Value>(a),
                serde_json::from_slice::<serde_json::Value>(b),
            ),
            (Ok(a), Ok(b)) if a == b
        )
}

/// Whether two stored copies hold the same version: the same JSON but for what is not of the version
/// ([`not_of_the_version`]): the copy marker, which a copy written before copies carried it lacks, the digests
/// of the versions saved from it, which each side that saved from the version adds to, and `_accessed`, which
/// a touch changes in place.
pub(crate) fn same_copy<T: DocModel>(a: &[u8], b: &[u8]) -> bool {
    if same_json(a, b) {
        return true;
    }
    let version = |bytes: &[u8]| {
        let mut value = serde_json::from_slice::<serde_json::Value>(bytes).ok()?;
        let spec = &T::ENVELOPE;
        let envelope = crate::envelope::envelope_object(spec, value.as_object_mut()?)?;
        envelope.retain(|field, _| !not_of_the_version(spec, field));
        Some(value)
    };
    matches!((version(a), version(b)), (Some(a), Some(b)) if a == b)
}

/// Whether the envelope member `field` is not part of the version a document or copy holds: the copy's marker
/// and record, and `_accessed` where the model keeps it (a touch writes it in place, in the same version).
fn not_of_the_version(spec: &crate::EnvelopeSpec, field: &str) -> bool {
    field == spec.name(EnvelopeField::CopyOf)
        || field == spec.name(EnvelopeField::CopyNext)
        || (spec.keeps(EnvelopeField::Accessed) && field == spec.name(EnvelopeField::Accessed))
}

/// The digests the stored copy `bytes` records as saved from it ([`EnvelopeField::CopyNext`], read where the
/// model's layout puts it); none where it records none.
pub(crate) fn peek_copy_next<T: DocModel>(bytes: &[u8]) -> Vec<String> {
    let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return Vec::new();
    };
    let spec = &T::ENVELOPE;
    value
        .as_object_mut()
        .and_then(|object| crate::envelope::envelope_object(spec, object))
        .and_then(|envelope| envelope.get(spec.name(EnvelopeField::CopyNext)))
        .and_then(serde_json::Value::as_array)
        .map(|next| {
            next.iter()
                .filter_map(|recorded| recorded.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether the stored copy `bytes` records `digest` among the versions saved from it
/// ([`EnvelopeField::CopyNext`], read where the model's layout puts it).
pub(crate) fn records_next<T: DocModel>(bytes: &[u8], digest: &str) -> bool {
    peek_copy_next::<T>(bytes)
        .iter()
        .any(|recorded| recorded == digest)
}

/// The stored copy `bytes` with `digest` added to the versions saved from it (kept as they are where it is
/// there already, or where they are not a JSON object of the model's layout).
pub(crate) fn with_next<T: DocModel>(bytes: &[u8], digest: &str) -> Vec<u8> {
    if records_next::<T>(bytes, digest) {
        return bytes.to_vec();
    }
    let spec = &T::ENVELOPE;
    let name = spec.name(EnvelopeField::CopyNext);
    let Ok(mut object) = serde_json::from_slice::<RawObject>(bytes) else {
        return bytes.to_vec();
    };
    let Some(envelope_at) = envelope_member(spec, &object) else {
        return bytes.to_vec();
    };
    let add = |members: &mut RawObject| {
        let mut next: Vec<String> = members
            .0
            .iter()
            .find(|(field, _)| field == name)
            .and_then(|(_, value)| serde_json::from_str(value.get()).ok())
            .unwrap_or_default();
        next.push(digest.to_owned());
        members.put_last(name, &next);
    };
    match envelope_at {
        None => add(&mut object),
        Some(at) => {
            let Ok(mut inner) = serde_json::from_str::<RawObject>(object.0[at].1.get()) else {
                return bytes.to_vec();
            };
            add(&mut inner);
            let Ok(raw) = RawValue::from_string(inner.to_json()) else {
                return bytes.to_vec();
            };
            object.0[at].1 = raw;
        }
    }
    object.to_json().into_bytes()
}

/// The stored `bytes` of a document or copy without what is not of the version ([`not_of_the_version`]: the
/// copy marker, the record of what was saved from it, `_accessed`): the text of the version as it was stored,
/// where the store kept the text it was given (a copy of a document docmodel wrote is that document's bytes
/// again), which a version's digest is of ([`crate::lineage::version_digest`]). `None` where they are not a
/// JSON object of the model's layout.
pub(crate) fn unmarked<T: DocModel>(bytes: &[u8]) -> Option<Vec<u8>> {
    let spec = &T::ENVELOPE;
    let mut object = serde_json::from_slice::<RawObject>(bytes).ok()?;
    match envelope_member(spec, &object)? {
        None => object
            .0
            .retain(|(field, _)| !not_of_the_version(spec, field)),
        Some(at) => {
            let mut inner = serde_json::from_str::<RawObject>(object.0[at].1.get()).ok()?;
            inner
                .0
                .retain(|(field, _)| !not_of_the_version(spec, field));
            object.0[at].1 = RawValue::from_string(inner.to_json()).ok()?;
        }
    }
    Some(object.to_json().into_bytes())
}

/// Where `object`, a document in `spec`'s layout, holds its envelope: `None` for the object itself (`flat`,
/// `plain`), `Some(at)` for its member at `at` (the meta object, the root attribute); `None` overall when it
/// has no such member.
fn envelope_member(spec: &crate::EnvelopeSpec, object: &RawObject) -> Option<Option<usize>> {
    match spec.layout() {
        crate::Layout::Meta => {
            let meta = spec.meta_name();
            object
                .0
                .iter()
                .position(|(field, _)| field == meta)
                .map(Some)
        }
        crate::Layout::Root if object.0.len() == 1 => Some(Some(0)),
        crate::Layout::Root => None,
        crate::Layout::Flat | crate::Layout::Plain => Some(None),
    }
}

/// The bytes of a revision copy of the document under `key` that the store holds as `bytes`, from which the
/// version whose digest is `next` ([`crate::lineage::digest`]) was saved: the same document, with the model's
/// copy marker ([`EnvelopeField::CopyOf`], `_copyOf` in the `flat` layout) naming `key` added first (in the
/// `meta` layout, first in the envelope object), so that another client's query leaves it out, and the
/// record of the version saved from it ([`EnvelopeField::CopyNext`], `_copyNext`) added last. A marker or record the
/// bytes carry already is replaced. Bytes that are not a JSON object are kept as they are.
pub(crate) fn marked<T: DocModel>(bytes: &[u8], key: &str, next: &str) -> Vec<u8> {
    marked_recording::<T>(bytes, key, &[next])
}

/// [`marked`], with `record` as the record of the versions saved from it (none, one, or more: a copy a merge
/// renumbered keeps what it recorded).
pub(crate) fn marked_recording<T: DocModel>(bytes: &[u8], key: &str, record: &[&str]) -> Vec<u8> {
    let spec = &T::ENVELOPE;
    let name = spec.name(EnvelopeField::CopyOf);
    let next_name = spec.name(EnvelopeField::CopyNext);
    let start = bytes.iter().position(|byte| !byte.is_ascii_whitespace());
    let end = bytes.iter().rposition(|byte| !byte.is_ascii_whitespace());
    let fast = matches!(spec.layout(), crate::Layout::Flat | crate::Layout::Plain)
        && start.is_some_and(|at| bytes[at] == b'{')
        && end.is_some_and(|at| bytes[at] == b'}' && Some(at) > start)
        && !name.bytes().any(escaped)
        && !next_name.bytes().any(escaped)
        && !record.iter().any(|next| next.bytes().any(escaped))
        && !holds_name(bytes, name)
        && !holds_name(bytes, next_name);
    if let (true, Some(at), Some(end)) = (fast, start, end) {
        // The marker as the object's first member, the rest as it was, the record as its last member.
        let rest = &bytes[at + 1..end];
        let empty = rest.iter().all(u8::is_ascii_whitespace);
        let mut out = Vec::with_capacity(
            bytes.len()
                + name.len()
                + key.len()
                + next_name.len()
                + record.iter().map(|next| next.len() + 3).sum::<usize>()
                + 16,
        );
        out.extend_from_slice(&bytes[..=at]);
        out.push(b'"');
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b"\":");
        if key.bytes().any(escaped) {
            // Writing a string to a `Vec` does not fail.
            let _ = serde_json::to_writer(&mut out, key);
        } else {
            out.push(b'"');
            out.extend_from_slice(key.as_bytes());
            out.push(b'"');
        }
        if !empty {
            out.push(b',');
            out.extend_from_slice(rest);
        }
        out.extend_from_slice(b",\"");
        out.extend_from_slice(next_name.as_bytes());
        out.extend_from_slice(b"\":[");
        for (at, next) in record.iter().enumerate() {
            if at > 0 {
                out.push(b',');
            }
            out.push(b'"');
            out.extend_from_slice(next.as_bytes());
            out.push(b'"');
        }
        out.push(b']');
        out.extend_from_slice(&bytes[end..]);
        return out;
    }
    let Ok(mut object) = serde_json::from_slice::<RawObject>(bytes) else {
        return bytes.to_vec();
    };
    let mark = |members: &mut RawObject| {
        members.mark(name, key);
        members.put_last(next_name, &record);
    };
    let marked = match spec.layout() {
        // The object the envelope is in: the meta object (made where there is none), or the root
        // attribute's (its one member).
        crate::Layout::Meta | crate::Layout::Root => {
            let meta = spec.meta_name();
            let envelope = match envelope_member(spec, &object) {
                Some(Some(at)) => serde_json::from_str::<RawObject>(object.0[at].1.get())
                    .ok()
                    .map(|inner| (at, inner)),
                // Not one root attribute: not a document of the model's, kept as it is.
                _ if spec.layout() == crate::Layout::Root => return bytes.to_vec(),
                _ => Some((object.0.len(), RawObject(Vec::new()))),
            };
            let Some((at, mut inner)) = envelope else {
                return bytes.to_vec();
            };
            mark(&mut inner);
            let Ok(raw) = RawValue::from_string(inner.to_json()) else {
                return bytes.to_vec();
            };
            if at == object.0.len() {
                object.0.insert(0, (meta.to_owned(), raw));
            } else {
                object.0[at].1 = raw;
            }
            object.to_json()
        }
        crate::Layout::Flat | crate::Layout::Plain => {
            mark(&mut object);
            object.to_json()
        }
    };
    marked.into_bytes()
}

/// Whether `bytes` hold `"<name>"`, the text of a name needing no escape, anywhere (a member's name, or
/// text in a value: either way the marker is put in by the parser).
fn holds_name(bytes: &[u8], name: &str) -> bool {
    let name = name.as_bytes();
    let Some(&first) = name.first() else {
        return true;
    };
    // Each place the name's first byte is (a handful in a document), rather than a substring searcher, whose
    // setup costs more than the search on a document of a few hundred bytes.
    memchr::memchr_iter(first, bytes).any(|at| {
        at > 0
            && bytes[at - 1] == b'"'
            && bytes[at..].starts_with(name)
            && bytes.get(at + name.len()) == Some(&b'"')
    })
}

/// A JSON object's members in order, each value as its text.
struct RawObject(Vec<(String, Box<RawValue>)>);

impl RawObject {
    /// Puts the marker `name` naming `key` first, in place of any member of that name.
    fn mark(&mut self, name: &str, key: &str) {
        self.0.retain(|(field, _)| field != name);
        let value = serde_json::to_string(key)
            .ok()
            .and_then(|text| RawValue::from_string(text).ok());
        if let Some(value) = value {
            self.0.insert(0, (name.to_owned(), value));
        }
    }

    /// Puts `name` holding `value` last, in place of any member of that name.
    fn put_last(&mut self, name: &str, value: &impl serde::Serialize) {
        self.0.retain(|(field, _)| field != name);
        let value = serde_json::to_string(value)
            .ok()
            .and_then(|text| RawValue::from_string(text).ok());
        if let Some(value) = value {
            self.0.push((name.to_owned(), value));
        }
    }

    fn to_json(&self) -> String {
        let mut out = String::from("{");
        for (at, (field, value)) in self.0.iter().enumerate() {
            if at > 0 {
                out.push(',');
            }
            out.push_str(&serde_json::to_string(field).unwrap_or_default());
            out.push(':');
            out.push_str(value.get());
        }
        out.push('}');
        out
    }
}

impl<'de> serde::Deserialize<'de> for RawObject {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> serde::de::Visitor<'de> for Members {
            type Value = RawObject;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<RawObject, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry::<String, Box<RawValue>>()? {
                    members.push(member);
                }
                Ok(RawObject(members))
            }
        }
        deserializer.deserialize_map(Members)
    }
}

#[cfg(test)]
mod tests {
    use super::{holds_name, marked, records_next, same_copy, unmarked, with_next};

    #[derive(serde::Serialize, serde::Deserialize, crate::DocModel)]
    #[docmodel(crate = crate, type = "user", schema = "1.0", key = "user::{id}")]
    struct Flat {
        id: u64,
    }

    #[derive(serde::Serialize, serde::Deserialize, crate::DocModel)]
    #[docmodel(crate = crate, type = "user", schema = "1.0", key = "user::{id}")]
    #[docmodel(envelope(layout = "plain"))]
    struct Plain {
        id: u64,
    }

    #[derive(serde::Serialize, serde::Deserialize, crate::DocModel)]
    #[docmodel(crate = crate, type = "user", schema = "1.0", key = "user::{id}")]
    #[docmodel(envelope(layout = "meta", names(meta = "_meta")))]
    struct Meta {
        id: u64,
    }

    #[derive(serde::Serialize, serde::Deserialize, crate::DocModel)]
    #[docmodel(crate = crate, type = "user", schema = "1.0", key = "user::{id}")]
    #[docmodel(envelope(layout = "plain", names(copy_of = "revisionOf")))]
    struct Renamed {
        id: u64,
    }

    fn text(bytes: Vec<u8>) -> String {
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn a_copy_is_the_document_with_its_marker_first_under_the_models_layout() {
        let document = br#"{"_type":"user","_schema":"1.0","_ver":1,"id":1}"#;
        assert_eq!(
            text(marked::<Flat>(document, "user::1", "d1")),
            r#"{"_copyOf":"user::1","_type":"user","_schema":"1.0","_ver":1,"id":1,"_copyNext":["d1"]}"#
        );
        let plain = b" {\n  \"type\": \"user\", \"id\": 1\n}";
        assert_eq!(
            text(marked::<Plain>(plain, "user::\"1\"", "d1")),
            " {\"copyOf\":\"user::\\\"1\\\"\",\n  \"type\": \"user\", \"id\": 1\n,\"copyNext\":[\"d1\"]}",
            "the rest as it was, the key escaped"
        );
        assert_eq!(
            text(marked::<Plain>(b"{ }", "user::1", "d1")),
            r#"{"copyOf":"user::1","copyNext":["d1"]}"#
        );
        let meta = br#"{"_meta":{"type":"user","ver":1},"id":1}"#;
        assert_eq!(
            text(marked::<Meta>(meta, "user::1", "d1")),
            r#"{"_meta":{"copyOf":"user::1","type":"user","ver":1,"copyNext":["d1"]},"id":1}"#
        );
        // A marker already there (a copy another client restored as it was) names this document.
        let marked_before = br#"{"_type":"user","_copyOf":"user::9","id":1}"#;
        assert_eq!(
            text(marked::<Flat>(marked_before, "user::1", "d1")),
            r#"{"_copyOf":"user::1","_type":"user","id":1,"_copyNext":["d1"]}"#
        );
        // The marker's name elsewhere in the document (a nested member, a value): put first all the same,
        // and a nested member of that name kept where it is.
        assert_eq!(
            text(marked::<Flat>(
                br#"{"_type":"user","a":{"_copyOf":1},"b":"_copyOf","c":"x_copyOf"}"#,
                "user::1",
                "d1"
            )),
            r#"{"_copyOf":"user::1","_type":"user","a":{"_copyOf":1},"b":"_copyOf","c":"x_copyOf","_copyNext":["d1"]}"#
        );
        assert!(holds_name(br#"{"a":{"_copyOf":1}}"#, "_copyOf"));
        assert!(!holds_name(
            br#"{"a":"x_copyOf","_copyOfs":1,"_copy":2}"#,
            "_copyOf"
        ));
        assert_eq!(
            marked::<Flat>(b"[1]", "user::1", "d1"),
            b"[1]",
            "not an object: as it is"
        );
        assert_eq!(
            text(marked::<Renamed>(br#"{"id":1}"#, "user::1", "d1")),
            r#"{"revisionOf":"user::1","id":1,"copyNext":["d1"]}"#,
            "under the name the model gives it"
        );
        // A record already there (a copy restored as it was) is the copy's own: replaced.
        assert_eq!(
            text(marked::<Flat>(
                br#"{"_type":"user","_copyNext":["d0"],"id":1}"#,
                "user::1",
                "d1"
            )),
            r#"{"_copyOf":"user::1","_type":"user","id":1,"_copyNext":["d1"]}"#
        );
    }

    #[test]
    fn each_side_that_saves_from_a_version_adds_its_digest_to_the_copy() {
        let copy = marked::<Flat>(br#"{"_type":"user","id":1}"#, "user::1", "d1");
        assert!(records_next::<Flat>(&copy, "d1") && !records_next::<Flat>(&copy, "d2"));
        // Only the record counts: the digest's text elsewhere in the document is not it.
        let elsewhere = marked::<Flat>(br#"{"_type":"user","note":"d2"}"#, "user::1", "d1");
        assert!(!records_next::<Flat>(&elsewhere, "d2"));
        let both = with_next::<Flat>(&copy, "d2");
        assert_eq!(
            text(both.clone()),
            r#"{"_copyOf":"user::1","_type":"user","id":1,"_copyNext":["d1","d2"]}"#
        );
        assert_eq!(with_next::<Flat>(&both, "d1"), both, "there already");
        assert!(same_copy::<Flat>(&copy, &both));
        // The version as it was stored, markers taken off, under every layout.
        assert_eq!(
            text(unmarked::<Flat>(&both).unwrap()),
            r#"{"_type":"user","id":1}"#
        );
        let meta = marked::<Meta>(br#"{"_meta":{"type":"user"},"id":1}"#, "user::1", "d1");
        assert_eq!(
            text(with_next::<Meta>(&meta, "d2")),
            r#"{"_meta":{"copyOf":"user::1","type":"user","copyNext":["d1","d2"]},"id":1}"#
        );
        assert_eq!(
            text(unmarked::<Meta>(&meta).unwrap()),
            r#"{"_meta":{"type":"user"},"id":1}"#
        );
    }
}
