//! The in-memory evaluator: [`Filter::matches`], the reference every store's results keep (see
//! [`Node`] for what each consumer of a filter keeps of it), and the reading of stored documents it rests on:
//! the member at a path ([`at`]), the order of JSON values ([`collate`]), a document's schema
//! ([`stored_schema`]).

use std::cmp::Ordering;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::filter::{Filter, Node, Op};
use crate::{DocModel, EnvelopeField, Layout, SchemaVersion};

impl<M> Filter<M> {
    /// Whether the stored document `document` (its JSON) matches.
    pub fn matches(&self, document: &Value) -> bool {
        matches(self.node(), document)
    }

    /// The top-level names of the paths this filter reads, added to `names` (each once); `None` when a path
    /// is the document itself.
    pub(crate) fn top_level_names(&self, names: &mut Vec<&'static str>) -> Option<()> {
        top_level_names(self.node(), names)
    }
}

fn top_level_names(node: &Node, names: &mut Vec<&'static str>) -> Option<()> {
    let path = match node {
        Node::All | Node::Invalid(_) => return Some(()),
        Node::Compare { path, .. }
        | Node::In { path, .. }
        | Node::Exists(path)
        | Node::StartsWith(path, _)
        | Node::Contains(path, _) => path,
        Node::And(nodes) | Node::Or(nodes) => {
            return nodes
                .iter()
                .try_for_each(|node| top_level_names(node, names));
        }
        Node::Not(node) => return top_level_names(node, names),
    };
    let first = path.first()?;
    if !names.contains(first) {
        names.push(first);
    }
    Some(())
}

/// A stored document as JSON, as model `M`'s paths name its fields: the envelope fields it holds under their
/// legacy names ([`EnvelopeSpec::with_legacy_name`]) moved to the model's names, so that the type, the schema
/// and a filter on an envelope field read them; in the `root` layout, the root attribute's object, with the
/// attribute's name as its type (under the `plain` name). `None` when the bytes are not JSON. (A field held
/// under both names is left as it is: a read of the document refuses it.)
///
/// [`EnvelopeSpec::with_legacy_name`]: crate::EnvelopeSpec::with_legacy_name
pub(crate) fn stored_document<M: DocModel>(bytes: &[u8]) -> Option<Value> {
    // Checked as UTF-8 once, rather than string by string (the same documents read).
    let text = std::str::from_utf8(bytes).ok()?;
    serde_json::from_str::<Value>(text)
        .ok()
        .map(as_model_names::<M>)
}

/// [`stored_document`] of only the top-level members a reader of it needs: those named in `reads` (the first
/// names of the paths a filter and an order read: [`Filter::top_level_names`]) and every envelope field under
/// each of its names (the repository's checks of the type, schema and copy marker, and the renaming of legacy
/// names, read them). The rest is skipped rather than built: a filter on one field of a wide document costs
/// little more than reading its text. The same documents read and fail as with [`stored_document`] (a
/// skipped value is read as a `Value` would be, without being built: its strings' UTF-8 and escapes, its
/// numbers' range, its depth; a name given twice keeps its last value), and a filter
/// matches the projection exactly when it matches the whole. A document that is not an object gives
/// `Value::Null` (one no model owns, as it owns no array or string); in the `root` layout, whose one member
/// holds everything, the whole document is built.
pub(crate) fn stored_projection<M: DocModel>(
    bytes: &[u8],
    reads: &[&'static str],
) -> Option<Value> {
    let spec = &M::ENVELOPE;
    if spec.layout() == Layout::Root {
        return stored_document::<M>(bytes);
    }
    let wanted = |name: &str| {
        reads.contains(&name)
            || name == spec.meta_name() && spec.layout() == Layout::Meta
            || spec.field_named(name).is_some()
    };
    let text = std::str::from_utf8(bytes).ok()?;
    let mut json = serde_json::Deserializer::from_str(text);
    let value = json.deserialize_any(Projection(&wanted)).ok()?;
    json.end().ok()?;
    Some(as_model_names::<M>(value))
}

/// The members [`stored_projection`] keeps: those whose name `0` wants.
struct Projection<'w, W>(&'w W);

impl<'de, W: Fn(&str) -> bool> Visitor<'de> for Projection<'_, W> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON document")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = serde_json::Map::new();
        while let Some(name) = map.next_key_seed(crate::codec::Name)? {
            if (self.0)(&name) {
                object.insert(name.into_owned(), map.next_value()?);
            } else {
                map.next_value_seed(Discard)?;
            }
        }
        Ok(Value::Object(object))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        while seq.next_element_seed(Discard)?.is_some() {}
        Ok(Value::Null)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_str<E>(self, _: &str) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
}

/// A value read as a `serde_json::Value` reads it, and dropped: the checks of its text (a string's UTF-8
/// and escapes, a number that fits an `f64`, the depth) without building it. `IgnoredAny` checks only the
/// syntax, so a document a `Value` refuses would pass it.
#[derive(Clone, Copy)]
struct Discard;

impl<'de> DeserializeSeed<'de> for Discard {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Discard {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_entry_seed(Discard, Discard)?.is_some() {}
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Discard)?.is_some() {}
        Ok(())
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
}

/// [`stored_document`] of a document already parsed.
pub(crate) fn as_model_names<M: DocModel>(mut document: Value) -> Value {
    let Value::Object(object) = &mut document else {
        return document;
    };
    let spec = &M::ENVELOPE;
    // A field under its name and its legacy name at once is left as it is stored: the filter sees the
    // model's name, and the one reader that decides (the repository reads every match in full, as `get`
    // does) refuses the document, so a query fails on it (or skips it with `skip_unreadable`) exactly as
    // `get` would, and never hands back what `get` refuses.
    let _ = crate::envelope::rename_legacy(spec, object);
    if spec.layout() == Layout::Root
        && object.len() == 1
        && let Some((name, Value::Object(_))) = object.iter().next()
    {
        let name = name.clone();
        if let Some(Value::Object(mut inner)) = object.remove(&name) {
            inner.insert(
                spec.name(EnvelopeField::Type).to_owned(),
                Value::String(name),
            );
            return Value::Object(inner);
        }
    }
    document
}

/// The schema a stored document (as JSON) is at: its schema field, or the model's `unversioned` version when
/// it has none; `None` when neither reads.
pub(crate) fn stored_schema<M: DocModel>(
    document: &Value,
    schema_path: &[&str],
) -> Option<SchemaVersion> {
    match at(document, schema_path) {
        Some(Value::String(text)) => SchemaVersion::parse(text).ok(),
        Some(_) => None,
        None => M::UNVERSIONED,
    }
}

/// Whether a stored document (as JSON) is one of model `M`'s by its type field at `type_path`, as a read by
/// key takes it: the model's type, one of its aliases, or none where the model adopts untyped documents
/// (a JSON object, then).
pub(crate) fn owns<M: DocModel>(document: &Value, type_path: &[&str]) -> bool {
    match at(document, type_path) {
        Some(Value::String(found)) => found == M::TYPE || M::TYPE_ALIASES.contains(&found.as_str()),
        Some(_) => false,
        None => M::ACCEPTS_UNTYPED && document.is_object(),
    }
}

/// The member at `path`, if the document has it.
pub(crate) fn at<'v>(document: &'v Value, path: &[&str]) -> Option<&'v Value> {
    path.iter()
        .try_fold(document, |value, name| value.as_object()?.get(*name))
}

fn matches(node: &Node, document: &Value) -> bool {
    match node {
        Node::All => true,
        Node::Compare { path, op, value } => at(document, path).is_some_and(|found| {
            let order = collate(found, value);
            match op {
                Op::Eq => order == Ordering::Equal,
                Op::Ne => order != Ordering::Equal,
                // A range compares values of one kind only, as a typed field's values are.
                Op::Lt => same_kind(found, value) && order == Ordering::Less,
                Op::Le => same_kind(found, value) && order != Ordering::Greater,
                Op::Gt => same_kind(found, value) && order == Ordering::Greater,
                Op::Ge => same_kind(found, value) && order != Ordering::Less,
            }
        }),
        Node::In { path, values } => at(document, path)
            .is_some_and(|found| values.iter().any(|value| collate(found, value).is_eq())),
        Node::Exists(path) => at(document, path).is_some(),
        Node::StartsWith(path, prefix) => at(document, path)
            .and_then(Value::as_str)
            .is_some_and(|text| text.starts_with(prefix.as_str())),
        Node::Contains(path, item) => at(document, path)
            .and_then(Value::as_array)
            .is_some_and(|items| items.iter().any(|found| collate(found, item).is_eq())),
        Node::And(nodes) => nodes.iter().all(|node| matches(node, document)),
        Node::Or(nodes) => nodes.iter().any(|node| matches(node, document)),
        Node::Not(node) => !matches(node, document),
        Node::Invalid(_) => false,
    }
}

fn rank(value: &Value) -> u8 {
    match value {
        Value::Null => 0,
        Value::Bool(false) => 1,
        Value::Bool(true) => 2,
        Value::Number(_) => 3,
        Value::String(_) => 4,
        Value::Array(_) => 5,
        Value::Object(_) => 6,
    }
}

fn same_kind(a: &Value, b: &Value) -> bool {
    rank(a) == rank(b) || (a.is_boolean() && b.is_boolean())
}

/// The order of two JSON values, as CouchDB collates them (strings by bytes rather than by Unicode
/// collation): null, false, true, numbers, strings, arrays, objects.
pub(crate) fn collate(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => compare_numbers(a, b),
        (Value::String(a), Value::String(b)) => a.cmp(b),
        (Value::Array(a), Value::Array(b)) => a
            .iter()
            .zip(b)
            .map(|(a, b)| collate(a, b))
            .find(|order| order.is_ne())
            .unwrap_or_else(|| a.len().cmp(&b.len())),
        (Value::Object(a), Value::Object(b)) => a
            .iter()
            .zip(b)
            .map(|((ka, va), (kb, vb))| ka.cmp(kb).then_with(|| collate(va, vb)))
            .find(|order| order.is_ne())
            .unwrap_or_else(|| a.len().cmp(&b.len())),
        _ => rank(a).cmp(&rank(b)),
    }
}

fn compare_numbers(a: &serde_json::Number, b: &serde_json::Number) -> Ordering {
    let exact = |n: &serde_json::Number| {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    };
    // JSON numbers are finite: a float that is not read as one is treated as 0.
    let float = |n: &serde_json::Number| n.as_f64().filter(|f| f.is_finite()).unwrap_or(0.0);
    match (exact(a), exact(b)) {
        (Some(a), Some(b)) => a.cmp(&b),
        (Some(a), None) => compare_integer_float(a, float(b)),
        (None, Some(b)) => compare_integer_float(b, float(a)).reverse(),
        // Finite, so never unordered; -0.0 equals 0.0.
        (None, None) => float(a).partial_cmp(&float(b)).unwrap_or(Ordering::Equal),
    }
}

/// `integer` against the finite `float`, exactly: no rounding of the integer to a float.
fn compare_integer_float(integer: i128, float: f64) -> Ordering {
    // Every i64 and u64 lies strictly between these, which are exact as floats.
    const BELOW: f64 = -170_141_183_460_469_231_731_687_303_715_884_105_728.0; // -2^127
    if float >= -BELOW {
        return Ordering::Less;
    }
    if float < BELOW {
        return Ordering::Greater;
    }
    let whole = float.trunc();
    // In range, and a whole number: exact as an i128.
    #[allow(clippy::cast_possible_truncation)]
    let whole_integer = whole as i128;
    integer.cmp(&whole_integer).then_with(|| {
        let fraction = float - whole;
        if fraction > 0.0 {
            Ordering::Less
        } else if fraction < 0.0 {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::find::envelope_path;
    use crate::find::test_models::{Invoice, Note, Order};

    /// Each filter matches each document's projection as it matches the whole document, the repository's
    /// checks read the same envelope, and the same documents fail to read.
    fn projections_agree<M: DocModel>(filters: &[Filter<M>], documents: &[&str]) {
        for filter in filters {
            let mut reads = Vec::new();
            filter.top_level_names(&mut reads).unwrap();
            for text in documents {
                let whole = stored_document::<M>(text.as_bytes());
                let projected = stored_projection::<M>(text.as_bytes(), &reads);
                assert_eq!(whole.is_some(), projected.is_some(), "{text}");
                let (Some(whole), Some(projected)) = (whole, projected) else {
                    continue;
                };
                assert_eq!(
                    filter.matches(&whole),
                    filter.matches(&projected),
                    "{filter:?} on {text}"
                );
                for field in [
                    EnvelopeField::Type,
                    EnvelopeField::Schema,
                    EnvelopeField::CopyOf,
                ] {
                    let path = envelope_path::<M>(field);
                    assert_eq!(
                        at(&whole, &path),
                        at(&projected, &path),
                        "{field:?} of {text}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_projection_matches_as_the_whole_document_does() {
        let deep = format!(
            r#"{{"_type":"order","customerNo":7,"extra":{}{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let f = Order::fields();
        projections_agree::<Order>(
            &[
                Filter::all(),
                f.customer_no.eq(7),
                f.customer_no.gt(3).not(),
                f.customer_no.in_([1, 7]).or(f.note.exists()),
                f.tags.contains("a").and(f.placed_at.starts_with("2024")),
                f.note.missing(),
                f.note.is_null(),
            ],
            &[
                r#"{"_type":"order","_schema":"2.0","_ver":1,"orderId":1,"customerNo":7,"placedAt":"2024-05-01","tags":["a","b"],"note":null}"#,
                // A name twice (the last value counts), a name with an escape, members in another order.
                r#"{"customerNo":1,"_type":"order","orderId":2,"customerNo":7,"tags":[],"_schema":"2.0"}"#,
                r#"{"_type":"order","_schema":"2.0","customer\u004eo":7,"note":"x","placedAt":"2024"}"#,
                r#"{"_copyOf":"order::1","_type":"order","customerNo":7,"extra":{"deep":[[{"x":1}]]}}"#,
                r#"{"_type":"invoice","customerNo":7}"#,
                r#"{}"#,
                // Not objects, not JSON, something after the object.
                "[1, 2]",
                r#""order""#,
                "7",
                "null",
                r#"{"customerNo":}"#,
                r#"{"customerNo":7} x"#,
                r#"{"customerNo":7,"other":[1,}"#,
                // What a `Value` refuses in a member the filter does not read: a lone surrogate, a number
                // past `f64`, nesting past serde_json's limit.
                r#"{"_type":"order","_schema":"2.0","customerNo":7,"extra":"\ud800"}"#,
                r#"{"_type":"order","_schema":"2.0","customerNo":7,"extra":[1e400]}"#,
                &deep,
            ],
        );
        let n = Note::fields();
        projections_agree::<Note>(
            &[n.body.eq("x"), n.body.starts_with("")],
            &[
                // The type under its legacy name is read under the model's name, as on the whole document.
                r#"{"docType":"note","schema":"1.0","id":1,"body":"x"}"#,
                r#"{"type":"note","docType":"memo","id":1,"body":"x"}"#,
            ],
        );
        let i = Invoice::fields();
        projections_agree::<Invoice>(
            &[i.total.gt(1.0), i.lines.contains(Some(3))],
            &[
                r#"{"meta":{"type":"invoice","schema":"1.0","copyOf":"inv:1:2"},"total":5,"lines":[3]}"#,
                r#"{"total":5,"meta":{"type":"order"}}"#,
            ],
        );
    }

    #[test]
    fn values_collate_as_couchdb_orders_them() {
        let ordered = [
            json!(null),
            json!(false),
            json!(true),
            json!(-1),
            json!(2),
            json!(2.5),
            json!(18446744073709551615u64),
            json!(""),
            json!("a"),
            json!("b"),
            json!([]),
            json!([1]),
            json!({}),
        ];
        for pair in ordered.windows(2) {
            assert_eq!(collate(&pair[0], &pair[1]), Ordering::Less, "{pair:?}");
        }
        assert_eq!(collate(&json!(1), &json!(1.0)), Ordering::Equal);
        assert_eq!(collate(&json!(-0.0), &json!(0.0)), Ordering::Equal);
    }

    #[test]
    fn integers_and_floats_compare_exactly_and_consistently() {
        let two_53 = 9_007_199_254_740_992_i64;
        let (low, float, high) = (json!(two_53), json!(two_53 as f64), json!(two_53 + 1));
        assert_eq!(collate(&low, &float), Ordering::Equal);
        assert_eq!(
            collate(&float, &high),
            Ordering::Less,
            "2^53 as a float is below 2^53 + 1"
        );
        assert_eq!(collate(&high, &float), Ordering::Greater);
        assert_eq!(collate(&json!(2), &json!(2.5)), Ordering::Less);
        assert_eq!(collate(&json!(-2), &json!(-2.5)), Ordering::Greater);
        assert_eq!(collate(&json!(u64::MAX), &json!(1e300)), Ordering::Less);
        assert_eq!(collate(&json!(i64::MIN), &json!(-1e300)), Ordering::Greater);
        // A sort of mixed numbers is a total order: sorted, each is at most the next.
        let mut values: Vec<Value> = (0..40)
            .map(|n| match n % 3 {
                0 => json!(two_53 + n),
                1 => json!((two_53 + n) as f64),
                _ => json!(two_53 - n),
            })
            .collect();
        values.sort_by(collate);
        for pair in values.windows(2) {
            assert_ne!(collate(&pair[0], &pair[1]), Ordering::Greater, "{pair:?}");
        }
    }

    #[test]
    fn a_path_walks_objects_only() {
        let doc = json!({"meta": {"ver": 3}, "tags": ["a"]});
        assert_eq!(at(&doc, &["meta", "ver"]), Some(&json!(3)));
        assert_eq!(at(&doc, &["tags", "0"]), None);
        assert_eq!(at(&doc, &["missing"]), None);
    }
}
