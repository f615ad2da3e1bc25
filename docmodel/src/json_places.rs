//! Test helpers over JSON documents, for the property tests that pick a place in one and change it: the
//! places a value has, and the value at one.

use crate::JsonValue;

/// Every place in `value` by its path from the top (field names, and positions as numbers), the top first,
/// depth first; with `scalars_only`, only the places that hold neither an object nor a list.
pub(crate) fn places(value: &JsonValue, scalars_only: bool) -> Vec<Vec<JsonValue>> {
    fn walk(
        value: &JsonValue,
        scalars_only: bool,
        at: &mut Vec<JsonValue>,
        all: &mut Vec<Vec<JsonValue>>,
    ) {
        let inner: Vec<(JsonValue, &JsonValue)> = match value {
            JsonValue::Object(map) => map
                .iter()
                .map(|(name, member)| (name.as_str().into(), member))
                .collect(),
            JsonValue::Array(items) => items
                .iter()
                .enumerate()
                .map(|(index, item)| (index.into(), item))
                .collect(),
            _ => Vec::new(),
        };
        if !scalars_only || !(value.is_object() || value.is_array()) {
            all.push(at.clone());
        }
        for (step, member) in inner {
            at.push(step);
            walk(member, scalars_only, at, all);
            at.pop();
        }
    }
    let mut all = Vec::new();
    walk(value, scalars_only, &mut Vec::new(), &mut all);
    all
}

/// The value at `path` in `value`, which [`places`] gave.
pub(crate) fn at_path<'v>(value: &'v mut JsonValue, path: &[JsonValue]) -> &'v mut JsonValue {
    path.iter().fold(value, |value, step| match step {
        JsonValue::String(name) => &mut value[name.as_str()],
        JsonValue::Number(at) => &mut value[at.as_u64().unwrap() as usize],
        _ => unreachable!("a path holds names and positions"),
    })
}
