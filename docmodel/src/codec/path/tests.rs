use std::collections::BTreeMap;

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::*;
use crate::json_places::{at_path, places};

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Top {
    id: u64,
    first_name: String,
    phones: Vec<Phone>,
    nested: Option<Nested>,
    scores: BTreeMap<String, u32>,
    pair: (u8, String),
    kind: Kind,
    loose: Loose,
    flag: bool,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Phone {
    #[serde(rename = "type")]
    kind: String,
    number: String,
}

#[derive(Debug, Serialize, Deserialize)]
struct Nested {
    deep: Vec<Vec<i32>>,
    inner: Inner,
}

#[derive(Debug, Serialize, Deserialize)]
struct Inner {
    x: f64,
    y: Option<String>,
    #[serde(default)]
    z: u16,
}

#[derive(Debug, Serialize, Deserialize)]
enum Kind {
    A,
    B(u8),
    C { c: String },
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(untagged)]
enum Loose {
    Number(u64),
    Text(String),
}

/// The path serde_path_to_error tracks for `text` read as `Top`, and the one [`segments_at`] finds at the
/// error's offset; `None` when the text reads, or fails other than on its data.
fn both(text: &[u8]) -> Option<(String, Option<String>)> {
    let mut track = serde_path_to_error::Track::new();
    let mut json = serde_json::Deserializer::from_slice(text);
    let err = Top::deserialize(serde_path_to_error::Deserializer::new(
        &mut json, &mut track,
    ))
    .err()?;
    if !err.is_data() {
        return None;
    }
    let tracked = track.path().to_string();
    let found = error_offset(text, &err)
        .and_then(|offset| segments_at(text, offset))
        .and_then(|segments| display(&segments));
    // serde_path_to_error writes the empty path as `.`.
    let mut tracked = if tracked == "." {
        String::new()
    } else {
        tracked
    };
    // The one place the two differ: a name that is no variant of an enum written as `{"Variant": ...}`.
    // The walk, which knows no types, answers with the member of that name, as for a field an object
    // refuses; the tracking read, which reads a variant's name apart from a map's names, with the enum.
    let message = err.to_string();
    let variant = message
        .strip_prefix("unknown variant `")
        .and_then(|rest| rest.split_once('`'))
        .map(|(variant, _)| variant);
    if let Some(variant) = variant {
        let member = if tracked.is_empty() {
            variant.to_owned()
        } else {
            format!("{tracked}.{variant}")
        };
        if found.as_deref() == Some(member.as_str()) {
            tracked = member;
        }
    }
    Some((tracked, found))
}

fn path_of(text: &str) -> String {
    let (tracked, found) = both(text.as_bytes()).expect("a data error");
    assert_eq!(found.as_deref(), Some(tracked.as_str()), "{text}");
    tracked
}

fn valid() -> Value {
    json!({
        "id": 1, "firstName": "Jo",
        "phones": [{"type": "home", "number": "555"}, {"type": "work", "number": "556"}],
        "nested": {"deep": [[1, 2], [3]], "inner": {"x": 1.5, "y": null}},
        "scores": {"a": 1, "b\"\\\u{e9}": 2},
        "pair": [1, "one"], "kind": {"C": {"c": "see"}}, "loose": "text", "flag": true
    })
}

fn with(edit: impl FnOnce(&mut Value)) -> String {
    let mut value = valid();
    edit(&mut value);
    value.to_string()
}

#[test]
fn the_paths_of_the_failures_users_meet() {
    assert!(both(valid().to_string().as_bytes()).is_none());
    // A value of the wrong type, at each depth; a map or a list where another belongs is placed at its
    // opening bracket.
    let cases: [(&str, String); 12] = [
        ("id", with(|v| v["id"] = json!("one"))),
        (
            "phones[1].number",
            with(|v| v["phones"][1]["number"] = json!(5)),
        ),
        ("phones", with(|v| v["phones"] = json!({}))),
        ("phones[0]", with(|v| v["phones"][0] = json!([]))),
        (
            "nested.deep[1][0]",
            with(|v| v["nested"]["deep"][1][0] = json!(true)),
        ),
        (
            "nested.inner.x",
            with(|v| v["nested"]["inner"]["x"] = json!("1.5")),
        ),
        (
            "scores.b\"\\\u{e9}",
            with(|v| v["scores"]["b\"\\\u{e9}"] = json!(-2)),
        ),
        ("pair[1]", with(|v| v["pair"][1] = json!(1))),
        ("kind.C.c", with(|v| v["kind"]["C"]["c"] = json!(null))),
        ("loose", with(|v| v["loose"] = json!([]))),
        // Missing: the object it is missing from, placed after its closing brace.
        (
            "phones[1]",
            with(|v| drop(v["phones"][1].as_object_mut().unwrap().remove("number"))),
        ),
        (
            "",
            with(|v| drop(v.as_object_mut().unwrap().remove("flag"))),
        ),
    ];
    for (path, text) in cases {
        assert_eq!(path_of(&text), path, "{text}");
    }
    // A field the object refuses, placed after its name; a list too short, after its closing bracket.
    let unknown = with(|v| v["phones"][0]["extension"] = json!(12));
    assert_eq!(path_of(&unknown), "phones[0].extension");
    let short = with(|v| v["pair"] = json!([1]));
    assert_eq!(path_of(&short), "pair");
    // No variant of that name: the value, or the member named so.
    assert_eq!(path_of(&with(|v| v["kind"] = json!("D"))), "kind");
    assert_eq!(path_of(&with(|v| v["kind"] = json!({"D": 1}))), "kind.D");
}

#[test]
fn whitespace_and_lines_do_not_move_the_path() {
    let mut value = valid();
    value["nested"]["inner"]["y"] = json!(7);
    let text = serde_json::to_string_pretty(&value).unwrap();
    assert!(text.lines().count() > 20);
    assert_eq!(path_of(&text), "nested.inner.y");
}

#[test]
fn a_byte_that_is_not_utf8_is_in_the_value_it_breaks() {
    let text = valid().to_string();
    let at = text.find("\"556\"").unwrap() + 2;
    let mut bytes = text.into_bytes();
    bytes[at] = 0xff;
    let segments = segments_at(&bytes, at).unwrap();
    assert_eq!(display(&segments).unwrap(), "phones[1].number");
    // In a member's name: that member, whose name does not read.
    let at = std::str::from_utf8(&bytes[..at])
        .unwrap()
        .find("firstName")
        .unwrap()
        + 1;
    bytes[at] = 0xff;
    let segments = segments_at(&bytes, at).unwrap();
    assert_eq!(segments, [Segment::Member(b"f\xffrstName")]);
}

#[test]
fn text_that_breaks_off_answers_with_what_it_holds_so_far() {
    let text = br#"{"a": [1, {"b": "unterminated"#;
    assert_eq!(
        display(&segments_at(text, text.len()).unwrap()).unwrap(),
        "a[1]"
    );
    assert_eq!(segments_at(b"", 0), None);
    assert_eq!(segments_at(b"   ", 1), None);
    assert_eq!(display(&segments_at(b"[1,,2]", 4).unwrap()).unwrap(), "");
}

fn replacement() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(Value::from),
        "[a-z\"\\\\\u{e9}]{0,4}".prop_map(Value::from),
        Just(json!([])),
        Just(json!([1, "x"])),
        Just(json!({})),
        Just(json!({"type": "t", "number": "n"})),
        Just(json!({"c": 1})),
    ]
}

/// What a test case does to the valid document.
#[derive(Debug, Clone)]
enum Edit {
    Replace(Value),
    Remove,
    Add(String, Value),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        replacement().prop_map(Edit::Replace),
        Just(Edit::Remove),
        ("[a-z\"]{1,3}", replacement()).prop_map(|(name, value)| Edit::Add(name, value)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// serde_path_to_error's tracking read against the walk, on the valid document with one value replaced,
    /// one member removed or one member added, written compact or pretty.
    #[test]
    fn the_walk_finds_the_path_a_tracking_read_tracks(
        pick in any::<prop::sample::Index>(),
        edit in edit(),
        pretty in any::<bool>(),
    ) {
        let mut value = valid();
        let all = places(&value, false);
        let path = pick.get(&all).clone();
        match edit {
            Edit::Replace(new) => *at_path(&mut value, &path) = new,
            Edit::Remove => {
                if let Some((last, parent)) = path.split_last() {
                    match (at_path(&mut value, parent), last) {
                        (Value::Object(map), Value::String(name)) => drop(map.remove(name)),
                        (Value::Array(items), index) => drop(items.remove(index.as_u64().unwrap() as usize)),
                        _ => unreachable!(),
                    }
                }
            }
            Edit::Add(name, new) => {
                if let Value::Object(map) = at_path(&mut value, &path) {
                    map.insert(name, new);
                }
            }
        }
        let text = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            value.to_string()
        };
        if let Some((tracked, found)) = both(text.as_bytes()) {
            prop_assert_eq!(found.as_deref(), Some(tracked.as_str()), "{}", text);
        }
    }
}

#[test]
fn nesting_of_any_depth_is_walked_without_recursion() {
    let depth = 1_000_000;
    let mut text = "[".repeat(depth).into_bytes();
    text.extend_from_slice(b"true");
    text.extend(std::iter::repeat_n(b']', depth));
    let segments = segments_at(&text, depth + 4).unwrap();
    assert_eq!(segments.len(), depth);
    assert!(
        segments
            .iter()
            .all(|segment| *segment == Segment::Element(0))
    );
}
