//! Index entries: what a repository keeps for `#[docmodel(index = "...")]` in a store that can list keys, so
//! that [`Repo::find`](super::Repo::find) reads the entries of the values a filter fixes instead of every
//! document. The protocol is in the [repository's docs](crate::Repo#index-entries).
//!
//! An entry is a key, `index<d><type><d><index name><d><values><document key>`, holding the lookup document
//! `{"ref": "<document key>"}`. Each value is written so that the keys sort as the values collate (for one
//! kind of value): a tag for its kind (`0` null, `1` false, `2` true, `3` number, `4` string, `5` array, `6`
//! object), then for a number the 16 hex digits of its `f64` bits made to sort, for a string the hex digits of
//! its UTF-8 bytes, and `!`; a field the document lacks is `-!`, below every value. A number beyond `f64`'s
//! precision shares its entry key with its neighbours and an array or object only its tag: the entries are a
//! superset, and every document read through them is matched against the whole filter.

use serde_json::{Number, Value};

use crate::find::{Node, Op, at, envelope_path, owns, stored_document, stored_schema};
use crate::keyshape::{SCHEMA_INDEX, index_entry_prefix};
use crate::{DocModel, EnvelopeField, SchemaVersion};

/// One index the repository keeps: a declared one, or the schema index.
pub(super) struct Kept {
    pub(super) name: &'static str,
    pub(super) paths: Vec<Vec<&'static str>>,
}

impl Kept {
    /// What its marker holds once its entries are complete ([`Repo::ensure_indexes`]).
    ///
    /// [`Repo::ensure_indexes`]: super::Repo::ensure_indexes
    pub(super) fn marker_document(&self) -> Vec<u8> {
        // A struct, not a `json!` map: the bytes stay the same whether serde_json keeps insertion order
        // (its `preserve_order` feature, which another crate of the build may turn on) or sorts.
        #[derive(serde::Serialize)]
        struct Marker<'a> {
            complete: bool,
            index: &'a str,
            paths: &'a [Vec<&'static str>],
        }
        serde_json::to_vec(&Marker {
            complete: true,
            index: self.name,
            paths: &self.paths,
        })
        .unwrap_or_default()
    }

    /// Whether `marker` (what its marker key holds) says its entries are complete.
    pub(super) fn is_complete(&self, marker: Option<&[u8]>) -> bool {
        marker.is_some_and(|bytes| {
            serde_json::from_slice::<Value>(bytes).ok()
                == serde_json::from_slice::<Value>(&self.marker_document()).ok()
        })
    }
}

/// Every index the repository keeps for `T`: its declared ones, then the schema index; none for a model
/// without declared indexes.
pub(super) fn all<T: DocModel>() -> Vec<Kept> {
    if T::INDEXES.is_empty() {
        return Vec::new();
    }
    T::INDEXES
        .iter()
        .map(|index| Kept {
            name: index.name(),
            paths: index.paths().iter().map(|path| path.to_vec()).collect(),
        })
        .chain([Kept {
            name: SCHEMA_INDEX,
            paths: vec![envelope_path::<T>(EnvelopeField::Schema)],
        }])
        .collect()
}

/// How an entry writes a field the document does not have: below every kind's tag, above `!`.
const MISSING: &str = "-!";

/// The entry keys of the document under `key` whose stored JSON is `bytes`: one per index, then one for the
/// schema index if the document has a schema; none for a model without indexes.
pub(super) fn entry_keys<T: DocModel>(bytes: &[u8], key: &str) -> Vec<String> {
    if T::INDEXES.is_empty() {
        return Vec::new();
    }
    let Some(value) = stored_document::<T>(bytes) else {
        return Vec::new();
    };
    // Entries are kept for the documents a find looks at: the model's type, or one it adopts.
    if !owns::<T>(&value, &envelope_path::<T>(EnvelopeField::Type)) {
        return Vec::new();
    }
    let mut entries = Vec::new();
    for index in T::INDEXES {
        let mut entry = index_entry_prefix::<T>(index.name());
        for path in index.paths() {
            match at(&value, path) {
                Some(found) => encode(found, &mut entry),
                // A missing field sorts below every value: an equality on the leading fields of a compound
                // index finds the documents that lack a later one.
                None => entry.push_str(MISSING),
            }
        }
        entry.push_str(key);
        entries.push(entry);
    }
    if let Some(schema) = stored_schema::<T>(&value, &envelope_path::<T>(EnvelopeField::Schema)) {
        let mut entry = index_entry_prefix::<T>(SCHEMA_INDEX);
        encode_schema(schema, &mut entry);
        entry.push_str(key);
        entries.push(entry);
    }
    entries
}

/// Whether the stored JSON `bytes` is in the form the model writes (its own type, a schema field, a revision
/// counter), so that every write of it kept its lookups and entries. An adopted document (another spelling
/// of the type, none, no schema, no counter) has entries only if
/// [`Repo::ensure_indexes`](super::Repo::ensure_indexes) built them, and lookups only if
/// [`Repo::reindex`](super::Repo::reindex) did, so its first save claims them all.
pub(super) fn kept_by_writes<T: DocModel>(bytes: &[u8]) -> bool {
    // The envelope alone: the body is skipped, not parsed.
    crate::codec::model_form::<T>(bytes)
}

/// The entry keys of `entries` (all of a model's indexes) that `keep` does not list.
pub(super) fn changed<'e>(entries: &'e [String], keep: &'e [String]) -> Vec<&'e String> {
    entries
        .iter()
        .filter(|entry| !keep.contains(entry))
        .collect()
}

/// The schema entries below the current schema.
pub(super) fn older_schema<T: DocModel>() -> Plan {
    let start = index_entry_prefix::<T>(SCHEMA_INDEX);
    let mut end = start.clone();
    encode_schema(T::SCHEMA, &mut end);
    Plan {
        name: SCHEMA_INDEX,
        fields: 1,
        prefix_len: start.len(),
        start,
        end,
    }
}

/// The document key an entry of an index over `fields` fields names, after its index's prefix of
/// `prefix_len` bytes.
pub(super) fn document_key(entry: &str, prefix_len: usize, fields: usize) -> Option<&str> {
    let values = entry.get(prefix_len..)?;
    let mut rest = values;
    for _ in 0..fields {
        let end = rest.find('!')?;
        rest = &rest[end + 1..];
    }
    Some(rest)
}

/// The entry keys one index read needs: `[start, end)`, under the index named `name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Plan {
    pub(super) name: &'static str,
    /// How many values each of its entries holds before the document key.
    pub(super) fields: usize,
    /// The length of the index's prefix (`index<d><type><d><name><d>`).
    pub(super) prefix_len: usize,
    pub(super) start: String,
    pub(super) end: String,
}

/// The index that narrows `filter` most, if any does: the one whose leading fields the filter fixes with
/// equalities (all of them, at the top of the filter, or in one `and`), the next one bounded by a range.
pub(super) fn plan<T: DocModel>(filter: &Node) -> Option<Plan> {
    let conjuncts: Vec<&Node> = match filter {
        Node::And(nodes) => nodes.iter().collect(),
        node => vec![node],
    };
    let compare = |path: &[&str], wanted: &dyn Fn(Op) -> bool| {
        conjuncts.iter().find_map(|node| match node {
            Node::Compare {
                path: at,
                op,
                value,
            } if &**at == path && wanted(*op) && is_scalar(value) => Some(value),
            _ => None,
        })
    };
    let mut best: Option<(usize, Plan)> = None;
    for index in T::INDEXES {
        let prefix = index_entry_prefix::<T>(index.name());
        let prefix_len = prefix.len();
        let mut start = prefix;
        let mut score = 0;
        let mut range = None;
        for path in index.paths() {
            if let Some(value) = compare(path, &|op| op == Op::Eq) {
                encode(value, &mut start);
                score += 2;
                continue;
            }
            let lower = compare(path, &|op| matches!(op, Op::Gt | Op::Ge));
            let upper = compare(path, &|op| matches!(op, Op::Lt | Op::Le));
            let Some(kind) = lower.or(upper) else { break };
            // A range matches values of its bound's kind only (booleans are one kind).
            let (first, after) = match kind {
                Value::Null => ('0', '1'),
                Value::Bool(_) => ('1', '3'),
                Value::Number(_) => ('3', '4'),
                _ => ('4', '5'),
            };
            let mut from = start.clone();
            match lower {
                Some(lower) => encode(lower, &mut from),
                None => from.push(first),
            }
            let mut to = start.clone();
            match upper {
                // Past every entry whose value encodes as the bound's (a `gt`/`lt` bound is read inclusive:
                // numbers beyond `f64` share entries, and the filter decides).
                Some(upper) => {
                    encode(upper, &mut to);
                    to.pop();
                    to.push('"');
                }
                None => to.push(after),
            }
            score += 1;
            range = Some((from, to));
            break;
        }
        if score == 0 {
            continue;
        }
        let (start, end) = range.unwrap_or_else(|| {
            // Every entry that starts with the fixed values: they end in `!`, and `"` follows it.
            let mut end = start.clone();
            end.pop();
            end.push('"');
            (start, end)
        });
        if best.as_ref().is_none_or(|(best, _)| score > *best) {
            best = Some((
                score,
                Plan {
                    name: index.name(),
                    fields: index.paths().len(),
                    prefix_len,
                    start,
                    end,
                },
            ));
        }
    }
    best.map(|(_, plan)| plan)
}

fn is_scalar(value: &Value) -> bool {
    !matches!(value, Value::Array(_) | Value::Object(_))
}

/// Appends the sortable form of `value` (see the module docs).
fn encode(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push('0'),
        Value::Bool(false) => out.push('1'),
        Value::Bool(true) => out.push('2'),
        Value::Number(number) => {
            out.push('3');
            out.push_str(&format!("{:016x}", number_order(number)));
        }
        Value::String(text) => {
            out.push('4');
            for byte in text.as_bytes() {
                out.push_str(&format!("{byte:02x}"));
            }
        }
        Value::Array(_) => out.push('5'),
        Value::Object(_) => out.push('6'),
    }
    out.push('!');
}

/// The bits of `number` as `f64`, made to sort as the numbers do (`-0.0` as `0.0`). An integer converts to
/// its nearest `f64`, which never reverses the order of two integers.
fn number_order(number: &Number) -> u64 {
    let mut float = number.as_f64().unwrap_or(0.0);
    if float == 0.0 {
        float = 0.0;
    }
    let bits = float.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

fn encode_schema(schema: SchemaVersion, out: &mut String) {
    out.push_str(&format!(
        "{:016x}{:016x}{:016x}!",
        schema.major, schema.minor, schema.patch
    ));
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn encoded(value: Value) -> String {
        let mut out = String::new();
        encode(&value, &mut out);
        out
    }

    #[test]
    fn entries_sort_as_their_values_collate() {
        let values = [
            json!(null),
            json!(false),
            json!(true),
            json!(-1e300),
            json!(-7),
            json!(-0.5),
            json!(0),
            json!(0.25),
            json!(1),
            json!(12345),
            json!(u64::MAX),
            json!(""),
            json!("a"),
            json!("a\u{0}"),
            json!("ab"),
            json!("b"),
            json!("é"),
        ];
        let keys: Vec<String> = values.iter().cloned().map(encoded).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
        assert_eq!(encoded(json!(-0.0)), encoded(json!(0)));
        assert_eq!(encoded(json!(2.0)), encoded(json!(2)));
        assert_eq!(encoded(json!("ab")), "46162!");
    }

    #[test]
    fn the_document_key_follows_the_values() {
        let entry = "index::order::customer_no,placed::3c0c81c800000000!4323032!order::7!x";
        let prefix = "index::order::customer_no,placed::".len();
        assert_eq!(document_key(entry, prefix, 2), Some("order::7!x"));
        assert_eq!(document_key(entry, prefix, 3), Some("x"));
        assert_eq!(document_key("index::", prefix, 1), None);
    }
}
