//! The codec's tests: what the one-pass reader and the writer agree on, and the peeks against the parser.

use serde::{Deserialize, Serialize};

use super::*;
use crate::Doc;

#[derive(Debug, Serialize, Deserialize, crate::DocModel)]
#[docmodel(crate = crate, type = "user", schema = "1.0", key = "user::{id}")]
struct Nested {
    id: u64,
    tags: Vec<Vec<String>>,
}

#[test]
fn the_depth_counted_as_written_is_the_depth_of_the_text() {
    for (text, depth) in [
        (
            r#"{"_type":"user","_schema":"1.0","_ver":1,"id":1,"tags":[]}"#,
            2,
        ),
        (
            r#"{"_type":"user","_schema":"1.0","_ver":1,"id":1,"tags":[["[[["]]}"#,
            3,
        ),
        // Kept unknown fields, written as their raw text: deeper than the body, and inside brackets.
        (
            r#"{"_type":"user","_schema":"1.0","_ver":2,"id":1,"tags":[[]],"x":{"a":[{"b":"]]"}]},"y":[[[[1]]]]}"#,
            5,
        ),
        (
            r#"{"_type":"user","_schema":"1.0","_ver":2,"id":1,"tags":[],"z":"{{{","w":[1,[2]]}"#,
            3,
        ),
        // Names written with escapes, as serde_json writes them.
        (
            r#"{"_type":"user","_schema":"1.0","_ver":2,"id":1,"tags":[],"a\"b":1,"c\nd\\":[[2]],"é":{}}"#,
            3,
        ),
    ] {
        let doc = Doc::<Nested>::from_slice(text.as_bytes()).unwrap();
        let written = doc.to_vec_with(doc.envelope()).unwrap();
        // Byte for byte what serde_json's compact writer writes (the document as it was read).
        assert_eq!(std::str::from_utf8(&written.bytes).unwrap(), text);
        assert_eq!(written.depth, depth, "{text}");
        assert_eq!(written.depth, depth_of(text.as_bytes()), "{text}");
    }
}

#[derive(Debug, Serialize, Deserialize, crate::DocModel)]
#[docmodel(crate = crate, type = "user", schema = "1.0", key = "user::{id}", aliases("member"))]
#[docmodel(envelope(layout = "plain", timestamps = "epoch_s"))]
struct Plain {
    id: u64,
}

#[derive(Debug, Serialize, Deserialize, crate::DocModel)]
#[docmodel(crate = crate, type = "user", schema = "1.0", key = "user::{id}")]
#[docmodel(envelope(legacy_names(modified = "updated")))]
struct Legacy {
    id: u64,
}

#[test]
fn a_beginning_read_without_the_parser_reads_as_the_whole_envelope() {
    let created = r#""_created":"2024-05-01T10:00:00.000Z""#;
    for text in [
        // As docmodel writes a document, and its copy (the marker first).
        format!(r#"{{"_type":"user","_schema":"1.0","_ver":3,{created},"id":1,"tags":[]}}"#),
        format!(
            r#"{{"_copyOf":"user::1","_type":"user","_schema":"1.0","_ver":12,{created},"id":1}}"#
        ),
        // Other envelope fields between them, whitespace, the body first after them.
        format!(
            "{{ \"_schema\" : \"2.1\",\n\"_copyOf\":\"user::1\", \"_type\":\"user\", \"_ver\":0 , {created}, \"_modified\":1714557600000, \"tags\":[[\"a\"]], \"id\":1 }}"
        ),
    ] {
        let fast = peek_leading::<Nested>(text.as_bytes());
        assert!(fast.is_some(), "{text}");
        assert_eq!(fast, peek::<Nested>(text.as_bytes()), "{text}");
    }
    let plain =
        br#"{"copyOf":"user::1","type":"user","schema":"1.0","ver":2,"created":1714557600,"id":1}"#;
    assert!(peek_leading::<Plain>(plain).is_some());
    assert_eq!(peek_leading::<Plain>(plain), peek::<Plain>(plain));
}

#[test]
fn any_other_beginning_is_left_to_the_parser() {
    let created = r#""_created":"2024-05-01T10:00:00.000Z""#;
    for text in [
        // A field the envelope reads comes after the body's first field.
        format!(r#"{{"_type":"user","_schema":"1.0","id":1,"_ver":3,{created}}}"#),
        format!(r#"{{"_type":"user","_schema":"1.0","_ver":3,"id":1,{created}}}"#),
        format!(r#"{{"id":1,"_type":"user","_schema":"1.0","_ver":3,{created}}}"#),
        // Not the model's own type, or not as docmodel writes the values.
        format!(r#"{{"_type":"member","_schema":"1.0","_ver":3,{created},"id":1}}"#),
        format!(r#"{{"_type":"order","_schema":"1.0","_ver":3,{created},"id":1}}"#),
        format!(r#"{{"_type":"us\u0065r","_schema":"1.0","_ver":3,{created},"id":1}}"#),
        format!(r#"{{"_type":"user","_schema":1,"_ver":3,{created},"id":1}}"#),
        format!(r#"{{"_type":"user","_schema":"1.0","_ver":"3",{created},"id":1}}"#),
        format!(r#"{{"_type":"user","_schema":"1.0","_ver":3.0,{created},"id":1}}"#),
        format!(r#"{{"_type":"user","_schema":"1.0","_ver":-3,{created},"id":1}}"#),
        format!(r#"{{"_type":"user","_schema":"1.0","_ver":03,{created},"id":1}}"#),
        format!(
            r#"{{"_type":"user","_schema":"1.0","_ver":99999999999999999999,{created},"id":1}}"#
        ),
        format!(
            r#"{{"_type":"user","_schema":"1.0","_ver":3,"_geo":{{"lat":1}},{created},"id":1}}"#
        ),
        // Another envelope field before these, whose value the reader checks: left to it, whatever
        // its value.
        format!(r#"{{"_copyOf":5,"_type":"user","_schema":"1.0","_ver":3,{created},"id":1}}"#),
        format!(
            r#"{{"_modified":"garbage","_type":"user","_schema":"1.0","_ver":3,{created},"id":1}}"#
        ),
        format!(
            r#"{{"_modifiedBy":nonsense,"_type":"user","_schema":"1.0","_ver":3,{created},"id":1}}"#
        ),
        r#"{"_type":"user","_schema":"1.0","_ver":3,"_created":nonsense,"id":1}"#.to_owned(),
        format!(r#"{{"_type":"user","_type":"user","_schema":"1.0","_ver":3,{created},"id":1}}"#),
        r#"{"_type":"user","_schema":"1.0","_ver":3,"_created":"yesterday","id":1}"#.to_owned(),
        format!(r#"{{"_type":"user","_schema":"1.0","_ver":3,{created} "id":1}}"#),
        format!(r#"[{{"_type":"user","_schema":"1.0","_ver":3,{created}}}]"#),
    ] {
        assert_eq!(peek_leading::<Nested>(text.as_bytes()), None, "{text}");
    }
    // A model with legacy names reads every document whole: a later field may carry one.
    let legacy = format!(r#"{{"_type":"user","_schema":"1.0","_ver":3,{created},"id":1}}"#);
    assert_eq!(peek_leading::<Legacy>(legacy.as_bytes()), None);
    assert!(peek::<Legacy>(legacy.as_bytes()).is_some());
}

/// What the beginning does not see: the rest of the object. The parser refuses a field given twice or a
/// rest that is not JSON; the caller reads such a copy whole before it uses it.
#[test]
fn the_rest_after_the_beginning_is_not_read() {
    let created = r#""_created":"2024-05-01T10:00:00.000Z""#;
    for text in [
        format!(r#"{{"_type":"user","_schema":"1.0","_ver":3,{created},"id":1,"_ver":4}}"#),
        format!(r#"{{"_type":"user","_schema":"1.0","_ver":3,{created},"id":1"#),
    ] {
        assert!(peek_leading::<Nested>(text.as_bytes()).is_some(), "{text}");
        assert_eq!(peek::<Nested>(text.as_bytes()), None, "{text}");
    }
}

#[test]
fn a_copy_as_docmodel_writes_it_is_recognised_by_its_text() {
    let created = r#""_created":"2024-05-01T10:00:00.000Z""#;
    let copy = format!(
        r#"{{"_copyOf":"user::1","_type":"user","_schema":"1.0","_ver":12,{created},"_modified":1,"id":1}}"#
    );
    let fast = peek_written_copy::<Nested>(copy.as_bytes(), "user::1");
    assert!(fast.is_some());
    assert_eq!(fast, peek::<Nested>(copy.as_bytes()));
    assert_eq!(fast.map(|peeked| peeked.ver), Some(12));
    let plain =
        br#"{"copyOf":"user::1","type":"user","schema":"1.0","ver":2,"created":1714557600,"id":1}"#;
    assert!(peek_written_copy::<Plain>(plain, "user::1").is_some());
    assert_eq!(
        peek_written_copy::<Plain>(plain, "user::1"),
        peek::<Plain>(plain)
    );
    for (text, key) in [
        // Another document's copy, another type, a beginning in another form.
        (copy.clone(), "user::2"),
        (
            copy.replace(r#""_type":"user""#, r#""_type":"member""#),
            "user::1",
        ),
        (
            copy.replace(r#""_type":"user""#, r#""_type": "user""#),
            "user::1",
        ),
        (copy.replace(r#","_ver":12"#, ""), "user::1"),
        (copy.replace(&format!(",{created}"), ""), "user::1"),
        (copy.replace(r#""_ver":12"#, r#""_ver":12.0"#), "user::1"),
        (
            copy.replace(r#""_schema":"1.0""#, r#""_schema":"1\u002e0""#),
            "user::1",
        ),
        // A key written with escapes (and bytes that hold it without them, which are not JSON).
        (copy.replace("user::1", r#"user::\"1\""#), r#"user::"1""#),
        (copy.replace("user::1", r#"user::"1""#), r#"user::"1""#),
        (copy.replace(r#"{"_copyOf":"user::1","#, "{"), "user::1"),
    ] {
        assert_eq!(
            peek_written_copy::<Nested>(text.as_bytes(), key),
            None,
            "{text}"
        );
    }
    // A model whose legacy names a later field may carry is read whole.
    let legacy = copy.replace(r#","id":1"#, r#","id":1,"updated":2"#);
    assert_eq!(
        peek_written_copy::<Legacy>(legacy.as_bytes(), "user::1"),
        None
    );
}

/// `model_form` (from the beginning where it says so, else the whole envelope) against the whole envelope's
/// answer, on documents a reader reads: the same, whichever way each is found.
#[test]
fn the_model_form_from_the_beginning_is_the_whole_envelopes() {
    fn both<T: DocModel + serde::de::DeserializeOwned>(text: &str) -> Option<(bool, bool)> {
        Doc::<T>::read_at(crate::Key::parse("user::1").ok()?, text.as_bytes()).ok()?;
        let whole = peek::<T>(text.as_bytes()).is_some_and(|peeked| peeked.model_form);
        Some((model_form::<T>(text.as_bytes()), whole))
    }
    let mut forms = Vec::new();
    for text in [
        r#"{"_type":"user","_schema":"1.0","_ver":3,"id":1,"tags":[]}"#,
        r#"{"_type":"user","_schema":"1.0","id":1,"_ver":3,"tags":[]}"#,
        r#"{"id":1,"_type":"user","_schema":"1.0","_ver":3,"tags":[]}"#,
        r#"{"_type":"user","_schema":"1.0","id":1,"tags":[]}"#,
        r#"{"_schema":"1.0","_ver":3,"_type":"user","id":1,"tags":[]}"#,
        r#"{"_type":"us\u0065r","_schema":"1.0","_ver":3,"id":1,"tags":[]}"#,
        r#"{"_copyOf":"user::1","_type":"user","_schema":"1.0","_ver":2,"id":1,"tags":[]}"#,
    ] {
        let (fast, whole) = both::<Nested>(text).unwrap_or_else(|| panic!("{text} reads"));
        assert_eq!(fast, whole, "{text}");
        forms.push(fast);
    }
    for text in [
        r#"{"type":"user","schema":"1.0","ver":2,"id":1}"#,
        r#"{"type":"member","schema":"1.0","ver":2,"id":1}"#,
        r#"{"schema":"1.0","ver":2,"id":1,"type":"member"}"#,
        r#"{"type":"user","ver":2,"id":1,"schema":"1.0"}"#,
    ] {
        let (fast, whole) = both::<Plain>(text).unwrap_or_else(|| panic!("{text} reads"));
        assert_eq!(fast, whole, "{text}");
        forms.push(fast);
    }
    let legacy = r#"{"_type":"user","_schema":"1.0","_ver":3,"updated":1714557600000,"id":1}"#;
    let (fast, whole) = both::<Legacy>(legacy).unwrap();
    assert_eq!(
        (fast, whole),
        (false, false),
        "a legacy name: not the model's form"
    );
    // Both answers among the cases: in the model's form and not.
    assert!(forms.contains(&true) && forms.contains(&false), "{forms:?}");
}
