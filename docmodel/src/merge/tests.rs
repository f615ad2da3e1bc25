use proptest::prelude::*;
use serde_json::json;

use super::align::{Budget, similarity};
use super::*;
use crate::json_places::{at_path, places};

fn align(
    base: &[JsonValue],
    side: &[JsonValue],
    by: Option<&str>,
    budget: &Budget,
) -> Vec<Option<usize>> {
    super::align::align(base, side, by, budget)
}

fn merge(base: JsonValue, ours: JsonValue, theirs: JsonValue) -> Result<JsonValue, MergeConflicts> {
    Merge::new(&MergeRules::NONE).json(&base, &ours, &theirs)
}

fn merge_under(
    rules: &MergeRules,
    base: JsonValue,
    ours: JsonValue,
    theirs: JsonValue,
) -> Result<JsonValue, MergeConflicts> {
    Merge::new(rules).json(&base, &ours, &theirs)
}

/// The CouchDB guide's bookmarks ("Designing an application to work with replication"), as printed: the
/// base (A), the laptop's (B) and the PC's (C).
fn bookmarks() -> (JsonValue, JsonValue, JsonValue) {
    let a = json!({"bookmarks": [
        {"name":"Weather", "url":"http://www.bbc.co.uk/weather"},
        {"name":"News", "url":"http://news.bbc.co.uk/"},
        {"name":"Tech", "bookmarks": [
            {"name":"Register", "url":"http://www.theregister.co.uk/"},
            {"name":"CouchDB", "url":"http://couchdb.apache.org/"}
        ]}
    ]});
    let b = json!({"bookmarks": [
        {"name":"Weather", "url":"http://www.bbc.co.uk/weather"},
        {"name":"News", "url":"http://www.cnn.com/"},
        {"name":"Tech", "bookmarks": [
            {"name":"The Register", "url":"http://www.theregister.co.uk/"},
            {"name":"Slashdot", "url":"http://www.slashdot.new/"},
            {"name":"CouchDB", "url":"http://couchdb.apache.org/"}
        ]}
    ]});
    let c = json!({"bookmarks": [
        {"name":"News", "url":"http://www.cnn.com/"},
        {"name":"Tech", "bookmarks": [
            {"name":"Register", "url":"http://www.theregister.co.uk/"},
            {"name":"CouchDB", "url":"http://couchdb.apache.org/"},
            {"name":"CNET", "url":"http://news.cnet.com/"}
        ]}
    ]});
    (a, b, c)
}

/// What the guide's text expects: News to CNN, Weather deleted, "The Register" renamed with Slashdot after
/// it, CNET added in Tech.
fn expected_bookmarks() -> JsonValue {
    json!({"bookmarks": [
        {"name":"News", "url":"http://www.cnn.com/"},
        {"name":"Tech", "bookmarks": [
            {"name":"The Register", "url":"http://www.theregister.co.uk/"},
            {"name":"Slashdot", "url":"http://www.slashdot.new/"},
            {"name":"CouchDB", "url":"http://couchdb.apache.org/"},
            {"name":"CNET", "url":"http://news.cnet.com/"}
        ]}
    ]})
}

/// Found by `edits_apart_are_both_applied` (its shrunk input): each side edits scalars of two nested arrays in
/// place, at places apart.
#[test]
fn nested_arrays_edited_in_place_apart_merge_by_position() {
    let base = json!({"a": [["c", false], ["c"]]});
    let ours = json!({"a": [["c", "ours edit 0"], ["ours edit 2"]]});
    let theirs = json!({"a": [["theirs edit 1", false], ["c"]]});
    assert_eq!(
        merge(base, ours, theirs),
        Ok(json!({"a": [["theirs edit 1", "ours edit 0"], ["ours edit 2"]]}))
    );
}

#[test]
fn the_guides_bookmarks_merge_as_its_text_expects() {
    let (a, b, c) = bookmarks();
    assert_eq!(
        merge(a.clone(), b.clone(), c.clone()).unwrap(),
        expected_bookmarks()
    );
    // Either side as ours.
    assert_eq!(merge(a, c, b).unwrap(), expected_bookmarks());
}

#[test]
fn exact_alignment_alone_would_not_line_the_guides_lists_up() {
    // The PC's list has no element equal to one of the base's: each is the same item edited.
    let (a, _, c) = bookmarks();
    let (a, c) = (&a["bookmarks"], &c["bookmarks"]);
    let (a, c) = (a.as_array().unwrap(), c.as_array().unwrap());
    assert!(a.iter().all(|element| !c.contains(element)));
    assert_eq!(
        align(a, c, None, &Budget::of_values(0)),
        [None, Some(0), Some(1)]
    );
    assert_eq!(similarity(&a[1], &c[0]), 0.5);
}

#[test]
fn an_identity_lines_elements_up_and_keeps_others_apart() {
    let base = json!([{"id": 1, "n": "a"}, {"id": 2, "n": "b"}]);
    let side = json!([{"id": 3, "n": "b"}, {"id": 2, "n": "x", "m": 1}]);
    let (base, side) = (base.as_array().unwrap(), side.as_array().unwrap());
    // By similarity, {"id":2,"n":"b"} and {"id":3,"n":"b"} are half alike and pair; item 2, edited, is a
    // third alike.
    assert_eq!(
        align(base, side, None, &Budget::of_values(0)),
        [None, Some(0)]
    );
    assert_eq!(
        align(base, side, Some("id"), &Budget::of_values(0)),
        [None, Some(1)]
    );
}

#[test]
fn fields_merge_one_by_one() {
    let merged = merge(
        json!({"a": 1, "b": 2, "c": 3, "gone": true}),
        json!({"a": 10, "b": 2, "c": 3, "new": "ours"}),
        json!({"a": 1, "b": 20, "c": 3, "gone": true, "also": [1]}),
    )
    .unwrap();
    assert_eq!(
        merged,
        json!({"a": 10, "b": 20, "c": 3, "new": "ours", "also": [1]})
    );
}

#[test]
fn the_same_change_on_both_sides_is_no_conflict() {
    let merged = merge(json!({"a": 1}), json!({"a": 2}), json!({"a": 2})).unwrap();
    assert_eq!(merged, json!({"a": 2}));
}

#[test]
fn every_true_conflict_is_reported_with_its_three_values() {
    let err = merge(
        json!({"name": "Joe", "tags": ["a"], "city": "Leeds", "age": 30}),
        json!({"name": "Joseph", "tags": ["a", "b"], "age": 31}),
        json!({"name": "Joey", "tags": ["a", "c"], "city": "York", "age": 31}),
    )
    .unwrap_err();
    let paths: Vec<&str> = err
        .0
        .iter()
        .map(|conflict| conflict.path.as_str())
        .collect();
    assert_eq!(paths, ["name", "tags[1..1]", "city"]);
    assert_eq!(
        err.0[0],
        MergeConflict {
            path: "name".into(),
            base: Some(json!("Joe")),
            ours: Some(json!("Joseph")),
            theirs: Some(json!("Joey")),
            reason: None,
        }
    );
    assert_eq!(
        (&err.0[1].base, &err.0[1].ours, &err.0[1].theirs),
        (&Some(json!([])), &Some(json!(["b"])), &Some(json!(["c"])))
    );
    // Removed on our side, changed on theirs.
    assert_eq!(
        (&err.0[2].ours, &err.0[2].theirs),
        (&None, &Some(json!("York")))
    );
    assert_eq!(
        err.to_string(),
        "3 places: `name` (base \"Joe\", ours \"Joseph\", theirs \"Joey\"); `tags[1..1]` (base [], ours \
         [\"b\"], theirs [\"c\"]); `city` (base \"Leeds\", ours absent, theirs \"York\")"
    );
}

#[test]
fn conflicts_inside_arrays_are_named_by_base_position() {
    let err = merge(
        json!({"list": [{"name": "a", "url": 1}, {"name": "b", "url": 2}]}),
        json!({"list": [{"name": "a", "url": 1}, {"name": "b", "url": 3}]}),
        json!({"list": [{"name": "a", "url": 1}, {"name": "b", "url": 4}]}),
    )
    .unwrap_err();
    assert_eq!(err.0.len(), 1);
    assert_eq!(err.0[0].path, "list[1].url");
}

const fn rules(fields: &'static [FieldMerge]) -> MergeRules {
    MergeRules::NONE.fields(fields)
}

#[test]
fn rules_decide_conflicts() {
    static FIELDS: [FieldMerge; 5] = [
        FieldMerge::new("o").rule(MergeRule::Ours),
        FieldMerge::new("t").rule(MergeRule::Theirs),
        FieldMerge::new("hi").rule(MergeRule::Max),
        FieldMerge::new("lo").rule(MergeRule::Min),
        FieldMerge::new("seen").rule(MergeRule::Max),
    ];
    let merged = merge_under(
        &rules(&FIELDS),
        json!({"o": 1, "t": 1, "hi": 1, "lo": 5, "seen": "2020-01-01T00:00:00Z"}),
        json!({"o": 2, "t": 2, "hi": 9, "lo": 3, "seen": "2021-06-01T00:00:00Z"}),
        json!({"o": 3, "t": 3, "hi": 7, "lo": 4, "seen": "2021-01-01T00:00:00Z"}),
    )
    .unwrap();
    assert_eq!(
        merged,
        json!({"o": 2, "t": 3, "hi": 9, "lo": 3, "seen": "2021-06-01T00:00:00Z"})
    );
}

#[test]
fn a_rule_applies_inside_its_field_and_nowhere_else() {
    static FIELDS: [FieldMerge; 1] = [FieldMerge::new("profile").rule(MergeRule::Theirs)];
    let err = merge_under(
        &rules(&FIELDS),
        json!({"profile": {"city": "Leeds", "zip": 1}, "name": "a"}),
        json!({"profile": {"city": "York", "zip": 1}, "name": "b"}),
        json!({"profile": {"city": "Hull", "zip": 2}, "name": "c"}),
    )
    .unwrap_err();
    assert_eq!(err.0.len(), 1, "{err}");
    assert_eq!(err.0[0].path, "name");
    // The rule picked theirs only where both sides changed: the field's other changes still merge.
    let merged = merge_under(
        &rules(&FIELDS),
        json!({"profile": {"city": "Leeds", "zip": 1, "street": "x"}}),
        json!({"profile": {"city": "York", "zip": 1, "street": "y"}}),
        json!({"profile": {"city": "Hull", "zip": 2, "street": "x"}}),
    )
    .unwrap();
    assert_eq!(
        merged,
        json!({"profile": {"city": "Hull", "zip": 2, "street": "y"}})
    );
}

#[test]
fn the_model_default_rule_covers_fields_without_one() {
    static FIELDS: [FieldMerge; 1] = [FieldMerge::new("keep").rule(MergeRule::Ours)];
    const RULES: MergeRules = MergeRules::NONE
        .default_rule(MergeRule::Theirs)
        .fields(&FIELDS);
    let merged = merge_under(
        &RULES,
        json!({"keep": 1, "other": 1}),
        json!({"keep": 2, "other": 2}),
        json!({"keep": 3, "other": 3}),
    )
    .unwrap();
    assert_eq!(merged, json!({"keep": 2, "other": 3}));
}

#[test]
fn newer_takes_the_side_modified_last_and_reports_a_tie() {
    static FIELDS: [FieldMerge; 1] = [FieldMerge::new("a").rule(MergeRule::Newer)];
    let rules = rules(&FIELDS);
    let (base, ours, theirs) = (json!({"a": 1}), json!({"a": 2}), json!({"a": 3}));
    let at = |seconds: i64| Some(Timestamp::from_millis(seconds * 1000));
    let merge = |ours_at, theirs_at| {
        Merge::new(&rules)
            .modified(ours_at, theirs_at)
            .json(&base, &ours, &theirs)
    };
    assert_eq!(merge(at(2), at(1)).unwrap(), json!({"a": 2}));
    assert_eq!(merge(at(1), at(2)).unwrap(), json!({"a": 3}));
    let tie = merge(at(1), at(1)).unwrap_err();
    assert_eq!(
        tie.0[0].reason.as_deref(),
        Some("`newer`: both sides were modified at the same time")
    );
    assert!(merge(None, at(1)).is_err());
}

#[test]
fn max_reports_what_it_cannot_compare() {
    static FIELDS: [FieldMerge; 1] = [FieldMerge::new("a").rule(MergeRule::Max)];
    let err = merge_under(
        &rules(&FIELDS),
        json!({"a": 1}),
        json!({"a": "2"}),
        json!({"a": 3}),
    )
    .unwrap_err();
    assert_eq!(err.0[0].path, "a");
    assert!(
        err.0[0]
            .reason
            .as_deref()
            .unwrap()
            .starts_with("`max` and `min`")
    );
}

#[test]
fn max_and_min_compare_times_as_instants() {
    static FIELDS: [FieldMerge; 2] = [
        FieldMerge::new("seen").rule(MergeRule::Max),
        FieldMerge::new("first").rule(MergeRule::Min),
    ];
    let rules = rules(&FIELDS);
    let at = |seen: &str, first: &str| json!({"seen": seen, "first": first});
    // 10:00 at +02:00 is 08:00Z: earlier than 09:30Z, though its text sorts after it.
    let merged = merge_under(
        &rules,
        at("2026-01-01T07:00:00Z", "2026-01-01T07:00:00Z"),
        at("2026-01-01T10:00:00+02:00", "2026-01-01T10:00:00+02:00"),
        at("2026-01-01T09:30:00Z", "2026-01-01T09:30:00Z"),
    );
    assert_eq!(
        merged,
        Ok(at("2026-01-01T09:30:00Z", "2026-01-01T10:00:00+02:00"))
    );
    // Fractional seconds: 09:30:00.500Z is after 09:30:00Z, though `.` sorts before `Z`.
    let merged = merge_under(
        &rules,
        at("2026-01-01T07:00:00Z", "2026-01-01T07:00:00Z"),
        at("2026-01-01T09:30:00Z", "2026-01-01T09:30:00Z"),
        at("2026-01-01T09:30:00.500Z", "2026-01-01T09:30:00.500Z"),
    );
    assert_eq!(
        merged,
        Ok(at("2026-01-01T09:30:00.500Z", "2026-01-01T09:30:00Z"))
    );
    // Text that is not a time still sorts by its characters.
    let merged = merge_under(&rules, at("a", "a"), at("b", "b"), at("c", "c"));
    assert_eq!(merged, Ok(at("c", "b")));
    // Past the millisecond: .0019 is after .001.
    let merged = merge_under(
        &rules,
        at("2026-01-01T07:00:00Z", "2026-01-01T07:00:00Z"),
        at("2026-01-01T09:30:00.0019Z", "2026-01-01T09:30:00.0019Z"),
        at("2026-01-01T09:30:00.001Z", "2026-01-01T09:30:00.001Z"),
    );
    assert_eq!(
        merged,
        Ok(at("2026-01-01T09:30:00.0019Z", "2026-01-01T09:30:00.001Z"))
    );
    // A time and other text are two kinds: reported.
    let err = merge_under(
        &rules,
        at("2026-01-01T07:00:00Z", "2026-01-01T07:00:00Z"),
        at("2026-01-01T09:30:00Z", "2026-01-01T07:00:00Z"),
        at("2026-01-01T09:45:00", "2026-01-01T07:00:00Z"),
    )
    .unwrap_err();
    assert_eq!(err.0[0].path, "seen");
}

#[test]
fn union_sorts_times_and_other_text_in_one_total_order() {
    // Times with an offset, in UTC and without a zone (not a time): a sort by instants where both are
    // times and by characters elsewhere would not be a total order, and a sort can panic on one.
    static FIELDS: [FieldMerge; 1] = [FieldMerge::new("log").rule(MergeRule::Union {
        order_by: Some("at"),
    })];
    let forms = [
        "2026-01-01T{h}:{m}:00Z",
        "2026-01-01T{h}:{m}:00+02:00",
        "2026-01-01T{h}:{m}:00",
    ];
    let event = |n: usize| {
        let text = forms[n % 3]
            .replace("{h}", &format!("{:02}", 8 + n % 5))
            .replace("{m}", &format!("{:02}", (n * 7) % 60));
        json!({"at": text, "n": n})
    };
    let ours: Vec<JsonValue> = (0..30).map(event).collect();
    let theirs: Vec<JsonValue> = (30..60).map(event).collect();
    let merged = merge_under(
        &rules(&FIELDS),
        json!({"log": []}),
        json!({"log": ours}),
        json!({"log": theirs}),
    )
    .unwrap();
    let at: Vec<&str> = merged["log"]
        .as_array()
        .unwrap()
        .iter()
        .map(|event| event["at"].as_str().unwrap())
        .collect();
    assert_eq!(at.len(), 60);
    // The times first, by instant; then the other text, by its characters.
    let times = at
        .iter()
        .take_while(|text| Timestamp::parse_iso8601(text).is_some())
        .count();
    assert_eq!(times, 40);
    let instants: Vec<Timestamp> = at[..times]
        .iter()
        .map(|text| Timestamp::parse_iso8601(text).unwrap())
        .collect();
    assert!(instants.windows(2).all(|pair| pair[0] <= pair[1]));
    assert!(at[times..].windows(2).all(|pair| pair[0] <= pair[1]));
}

#[test]
fn the_guides_event_log_merges_by_union_in_time_order() {
    static FIELDS: [FieldMerge; 1] = [FieldMerge::new("events").rule(MergeRule::Union {
        order_by: Some("at"),
    })];
    let event = |at: u64, what: &str| json!({"at": at, "event": what});
    let base = json!({"events": [event(1, "Bookmark added"), event(2, "Bookmark changed")]});
    let ours = json!({"events": [
        event(1, "Bookmark added"), event(2, "Bookmark changed"), event(5, "Bookmark moved")
    ]});
    let theirs = json!({"events": [
        event(1, "Bookmark added"), event(2, "Bookmark changed"),
        event(3, "Bookmark deleted"), event(6, "Bookmark added")
    ]});
    let merged = merge_under(&rules(&FIELDS), base, ours, theirs).unwrap();
    assert_eq!(
        merged,
        json!({"events": [
            event(1, "Bookmark added"), event(2, "Bookmark changed"), event(3, "Bookmark deleted"),
            event(5, "Bookmark moved"), event(6, "Bookmark added")
        ]})
    );
}

#[test]
fn union_takes_an_element_both_added_once() {
    static FIELDS: [FieldMerge; 1] =
        [FieldMerge::new("tags").rule(MergeRule::Union { order_by: None })];
    let merged = merge_under(
        &rules(&FIELDS),
        json!({"tags": ["a"]}),
        json!({"tags": ["a", "b", "c"]}),
        json!({"tags": ["a", "c", "d"]}),
    )
    .unwrap();
    assert_eq!(merged, json!({"tags": ["a", "b", "c", "d"]}));
}

#[test]
fn a_function_merges_its_field_whole() {
    fn longest(
        _: Option<&JsonValue>,
        ours: Option<&JsonValue>,
        theirs: Option<&JsonValue>,
    ) -> Result<Option<JsonValue>, String> {
        let len = |side: Option<&JsonValue>| side.and_then(JsonValue::as_str).map_or(0, str::len);
        Ok(if len(ours) >= len(theirs) {
            ours
        } else {
            theirs
        }
        .cloned())
    }
    fn refuse(
        _: Option<&JsonValue>,
        _: Option<&JsonValue>,
        _: Option<&JsonValue>,
    ) -> Result<Option<JsonValue>, String> {
        Err("ask the user".into())
    }
    static FIELDS: [FieldMerge; 2] = [
        FieldMerge::new("name").rule(MergeRule::Custom(longest)),
        FieldMerge::new("city").rule(MergeRule::Custom(refuse)),
    ];
    let rules = rules(&FIELDS);
    let merged = merge_under(
        &rules,
        json!({"name": "Jo", "city": "a"}),
        json!({"name": "Joe", "city": "a"}),
        json!({"name": "Joseph", "city": "a"}),
    )
    .unwrap();
    assert_eq!(merged["name"], "Joseph");
    let err = merge_under(
        &rules,
        json!({"city": "a"}),
        json!({"city": "b"}),
        json!({"city": "c"}),
    )
    .unwrap_err();
    assert_eq!(err.0[0].reason.as_deref(), Some("ask the user"));
}

#[test]
fn elements_that_all_look_alike_pair_in_order() {
    let base = json!([{"done": false, "n": 1}, {"done": false, "n": 2}, {"done": false, "n": 3}]);
    let side = json!([{"done": false, "n": 7}, {"done": false, "n": 8}]);
    let (base, side) = (base.as_array().unwrap(), side.as_array().unwrap());
    assert_eq!(
        align(base, side, None, &Budget::of_values(0)),
        [Some(0), Some(1), None]
    );
}

#[test]
fn long_lists_with_a_long_common_start_align_cheaply() {
    let base: Vec<JsonValue> = (0..100_000).map(|n| json!(n)).collect();
    let mut ours = base.clone();
    ours.push(json!("ours"));
    let mut theirs = base.clone();
    theirs.insert(0, json!("theirs"));
    let merged = merge(json!({"l": base}), json!({"l": ours}), json!({"l": theirs})).unwrap();
    let list = merged["l"].as_array().unwrap();
    assert_eq!(list.len(), 100_002);
    assert_eq!(
        (&list[0], &list[100_001]),
        (&json!("theirs"), &json!("ours"))
    );
}

/// A JSON document of a few levels, with objects keyed `a`..`e` and short arrays.
fn document() -> impl Strategy<Value = JsonValue> {
    let leaf = prop_oneof![
        any::<bool>().prop_map(JsonValue::from),
        (0u32..20).prop_map(JsonValue::from),
        "[a-c]{1,2}".prop_map(JsonValue::from),
    ];
    let value = leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(JsonValue::Array),
            prop::collection::btree_map("[a-e]", inner, 0..4)
                .prop_map(|fields| JsonValue::Object(fields.into_iter().collect())),
        ]
    });
    prop::collection::btree_map("[a-e]", value, 1..5)
        .prop_map(|fields| JsonValue::Object(fields.into_iter().collect()))
}

/// Whether `a` is a prefix of `b` or `b` of `a`: edits there overlap.
fn overlap(a: &[JsonValue], b: &[JsonValue]) -> bool {
    a.iter().zip(b).all(|(x, y)| x == y)
}

/// A value no generated document holds: an edit is always a change.
fn edited(n: usize, side: &str) -> JsonValue {
    json!(format!("{side} edit {n}"))
}

proptest! {
    #![proptest_config(ProptestConfig { max_global_rejects: 1 << 20, ..ProptestConfig::with_cases(512) })]

    /// Edits of scalars at places that do not overlap: the merge applies both sides' edits, and nothing
    /// else changes.
    #[test]
    fn edits_apart_are_both_applied(base in document(), picks in prop::collection::vec(any::<prop::sample::Index>(), 1..6)) {
        let paths = places(&base, true);
        prop_assume!(paths.len() >= 2);
        // Alternate the picks between the sides, skipping a place that overlaps one already edited.
        let (mut ours, mut theirs, mut expected) = (base.clone(), base.clone(), base.clone());
        let mut taken: Vec<Vec<JsonValue>> = Vec::new();
        for (n, pick) in picks.iter().enumerate() {
            let path = pick.get(&paths);
            if taken.iter().any(|other| overlap(other, path)) {
                continue;
            }
            taken.push(path.clone());
            let (side, name) = if n % 2 == 0 { (&mut ours, "ours") } else { (&mut theirs, "theirs") };
            *at_path(side, path) = edited(n, name);
            *at_path(&mut expected, path) = edited(n, name);
        }
        let merged = Merge::new(&MergeRules::NONE).json(&base, &ours, &theirs);
        prop_assert_eq!(merged, Ok(expected));
    }

    /// Both sides edit the same place differently: with no rule, the place is reported; under `ours`,
    /// `theirs`, `max` the rule decides it, and nothing is silently dropped.
    #[test]
    fn edits_of_one_place_are_decided_or_reported(base in document(), pick in any::<prop::sample::Index>()) {
        let paths = places(&base, true);
        prop_assume!(!paths.is_empty());
        let path = pick.get(&paths);
        let (mut ours, mut theirs) = (base.clone(), base.clone());
        *at_path(&mut ours, path) = edited(0, "ours");
        *at_path(&mut theirs, path) = edited(0, "theirs");
        let err = Merge::new(&MergeRules::NONE).json(&base, &ours, &theirs).unwrap_err();
        prop_assert_eq!(err.0.len(), 1);
        prop_assert_eq!(err.0[0].ours.as_ref(), Some(&edited(0, "ours")));
        prop_assert_eq!(err.0[0].theirs.as_ref(), Some(&edited(0, "theirs")));
        let taking = |rule| MergeRules::NONE.default_rule(rule);
        prop_assert_eq!(Merge::new(&taking(MergeRule::Ours)).json(&base, &ours, &theirs), Ok(ours.clone()));
        prop_assert_eq!(Merge::new(&taking(MergeRule::Theirs)).json(&base, &ours, &theirs), Ok(theirs.clone()));
        // "theirs edit 0" > "ours edit 0".
        prop_assert_eq!(Merge::new(&taking(MergeRule::Max)).json(&base, &ours, &theirs), Ok(theirs));
    }

    /// Elements inserted into a list on one side and removed from it on the other, at places apart:
    /// both applied.
    #[test]
    fn list_insertions_and_removals_apart_are_both_applied(
        len in 2usize..12,
        insert_at in any::<prop::sample::Index>(),
        remove_at in any::<prop::sample::Index>(),
    ) {
        let base: Vec<JsonValue> = (0..len).map(|n| json!({"item": n, "label": format!("item {n}")})).collect();
        let removed = remove_at.index(len);
        let inserted = insert_at.index(len + 1);
        // Apart: the insertion is not next to the element removed.
        prop_assume!(inserted != removed && inserted != removed + 1);
        let mut ours = base.clone();
        ours.insert(inserted, json!({"new": true}));
        let mut theirs = base.clone();
        theirs.remove(removed);
        let mut expected = ours.clone();
        let at = if inserted < removed { removed + 1 } else { removed };
        expected.remove(at);
        let merged = merge(json!({"l": base}), json!({"l": ours}), json!({"l": theirs}));
        prop_assert_eq!(merged, Ok(json!({"l": expected})));
    }
}

#[test]
fn an_element_put_in_the_place_of_another_is_not_merged_into_it() {
    // Ours removed item 1 and added item 2 at its place; theirs moved item 1 to another folder.
    static FIELDS: [FieldMerge; 1] = [FieldMerge::new("items").by("id")];
    let err = merge_under(
        &rules(&FIELDS),
        json!({"items": [{"id": 1, "t": "A", "folder": "x"}]}),
        json!({"items": [{"id": 2, "t": "B", "folder": "x"}]}),
        json!({"items": [{"id": 1, "t": "A", "folder": "y"}]}),
    )
    .unwrap_err();
    assert_eq!(err.0.len(), 1, "{err}");
    assert_eq!(err.0[0].path, "items[0..1]");
}

#[test]
fn union_takes_both_sides_of_a_stretch_of_one_length() {
    static FIELDS: [FieldMerge; 1] =
        [FieldMerge::new("tags").rule(MergeRule::Union { order_by: None })];
    let merged = merge_under(
        &rules(&FIELDS),
        json!({"tags": ["a", "b"]}),
        json!({"tags": ["a", "c"]}),
        json!({"tags": ["a", "d"]}),
    )
    .unwrap();
    assert_eq!(merged, json!({"tags": ["a", "c", "d"]}));
}

#[test]
fn a_long_list_shifted_on_one_side_lines_up_by_its_unique_elements() {
    // 1,100 items: past the table's size, so the list is cut at the elements found once on each side.
    let item = |id: u64, cat: &str| json!({"id": id, "cat": cat});
    let base: Vec<JsonValue> = (0..1_100).map(|id| item(id, "x")).collect();
    let mut ours = base.clone();
    ours.remove(1);
    ours.insert(1_050, item(5_000, "new"));
    let mut theirs = base.clone();
    theirs[500] = item(500, "y");
    let merged = merge(
        json!({"l": base}),
        json!({"l": ours.clone()}),
        json!({"l": theirs}),
    )
    .unwrap();
    let mut expected = ours;
    let at = expected
        .iter()
        .position(|element| element["id"] == 500)
        .unwrap();
    expected[at] = item(500, "y");
    assert_eq!(merged, json!({"l": expected}));
}

#[test]
fn long_nested_lists_that_share_nothing_do_not_line_up() {
    // 200 x 200 elements of 100 numbers each: similarity compares at most 1,000 pairs of elements.
    let element = |n: u64| json!((0..100).map(|k| n * 1_000 + k).collect::<Vec<_>>());
    let base: Vec<JsonValue> = (0..200).map(element).collect();
    let side: Vec<JsonValue> = (0..200).map(|n| element(n + 10_000)).collect();
    let started = std::time::Instant::now();
    let aligned = align(&base, &side, None, &Budget::of_values(0));
    assert!(aligned.iter().all(Option::is_none));
    // Not a timing assertion of the merge's speed: a guard that the table does not grow unbounded work
    // (it took seconds before the bound).
    eprintln!("aligned 200 x 200 nested lists in {:?}", started.elapsed());
}

#[test]
fn a_long_list_without_unique_elements_still_aligns_within_the_budget() {
    // 257 elements, each twice (so none is unique): past the 65,536 cells the table was once limited to. One
    // side edits an element, the other removes another: both changes are kept.
    let element = |n: usize| json!({"n": n / 2, "v": "x"});
    let base: Vec<JsonValue> = (0..257).map(element).collect();
    let mut ours = base.clone();
    ours[10]["v"] = json!("edited");
    let mut theirs = base.clone();
    theirs.remove(200);
    let mut expected = ours.clone();
    expected.remove(200);
    let merged = merge(json!({"l": base}), json!({"l": ours}), json!({"l": theirs}));
    assert_eq!(merged, Ok(json!({"l": expected})));
}

#[test]
fn the_work_of_a_merge_is_bounded_by_its_documents_size() {
    // The 1 MB document: 256 objects of 20 fields, each a list of 31 numbers, a small edit on each
    // side at places apart. Aligning spends from a budget of 16 a value of the three documents, and what it
    // cannot pay for is not aligned; this merge is within it, and both edits are applied.
    let object = |n: u64| {
        let fields: serde_json::Map<String, JsonValue> = (0..20)
            .map(|f| {
                (
                    format!("f{f}"),
                    json!((0..31).map(|k| n * 1_000 + f * 31 + k).collect::<Vec<_>>()),
                )
            })
            .collect();
        JsonValue::Object(fields)
    };
    let base: Vec<JsonValue> = (0..256).map(object).collect();
    let mut ours = base.clone();
    ours[3]["f0"][0] = json!(-1);
    let mut theirs = base.clone();
    theirs[250]["f19"][30] = json!(-2);
    let documents = [json!({"l": base}), json!({"l": ours}), json!({"l": theirs})];
    let budget = super::align::Budget::of(&[&documents[0], &documents[1], &documents[2]]);
    let given = budget.left();
    // Every value of the three documents counted: lists, objects, numbers.
    assert_eq!(given, 16 * 3 * (1 + 1 + 256 * (1 + 20 * (1 + 31))));
    let mut run = super::three_way::Run::new(&MergeRules::NONE, [None, None], None, budget);
    let merged = run.document(&documents[0], &documents[1], &documents[2]);
    assert!(run.conflicts.is_empty(), "{:?}", run.conflicts);
    let mut expected = documents[1].clone();
    expected["l"][250]["f19"][30] = json!(-2);
    assert_eq!(merged, expected);
}
