//! Which element of a side each base element became: equal elements, elements of one identity, and
//! elements similar enough to be the same item edited.

use std::cell::Cell;
use std::cmp::Ordering;

use crate::JsonValue;

/// The most cells the alignment table of one stretch may have (its elements' counts multiplied), whatever the
/// budget: 16 MiB of table. Past it, or past what the merge's [`Budget`] has left, the stretch is first cut at
/// the elements found once on each side (equal, or of one identity), as patience diff does, and each piece
/// aligned on its own; a piece still too long, with no such element, is left unaligned, and merges only where
/// one side left it as it was (else it is reported as a conflict).
const MOST_CELLS: usize = 1 << 22;

/// What a merge may spend aligning arrays, per value of the three documents: a table's cell, a field of two
/// objects and a pair of elements of two arrays [`similar`] compares each cost one.
const PER_VALUE: u64 = 16;

/// What a merge may spend whatever its documents' size: small documents always align in full.
const FLOOR: u64 = 1 << 18;

/// The work one merge may do aligning arrays, in proportion to the size of its three documents ([`PER_VALUE`]
/// a value, at least [`FLOOR`]): a cell of an alignment table, and a field or a pair of elements [`similar`]
/// compares, cost one each.
/// A table that does not fit in what is left is not built; a similarity asked for when nothing is left is
/// not computed (elements then pair only when equal or of one identity). So the cost of a merge is bounded by
/// a multiple of its documents' size, and past the budget a stretch is left to the sides' own changes or
/// reported as a conflict, never aligned at any cost.
#[derive(Debug)]
pub(super) struct Budget {
    left: Cell<u64>,
}

impl Budget {
    /// The budget of a merge of `values` values in all.
    pub(super) fn of_values(values: u64) -> Self {
        Budget {
            left: Cell::new(values.saturating_mul(PER_VALUE).max(FLOOR)),
        }
    }

    /// The budget of a merge of these documents.
    pub(super) fn of(documents: &[&JsonValue]) -> Self {
        Self::of_values(documents.iter().map(|document| values(document)).sum())
    }

    /// Spends `units` if that many are left.
    fn spend(&self, units: u64) -> bool {
        match self.left.get().checked_sub(units) {
            Some(left) => {
                self.left.set(left);
                true
            }
            None => false,
        }
    }

    /// What is left.
    #[cfg(test)]
    pub(super) fn left(&self) -> u64 {
        self.left.get()
    }
}

/// How many values `value` holds, itself included.
fn values(value: &JsonValue) -> u64 {
    match value {
        JsonValue::Array(elements) => 1 + elements.iter().map(values).sum::<u64>(),
        JsonValue::Object(fields) => 1 + fields.values().map(values).sum::<u64>(),
        _ => 1,
    }
}

/// The most element comparisons [`similar`] makes of two arrays: past it, only elements at the same
/// position are compared.
const MOST_COMPARISONS: usize = 1_000;

/// A pairing's worth in the alignment: an equal element or one of the same identity outweighs any similar one.
const SAME: u32 = 200;

/// How much more a pairing is worth in the table than its [`pairing`] (a point kept for [`IN_PLACE`]).
const SCALE: u32 = 4;

/// What a pairing at the same position of both stretches adds: of pairings alike in what they have in
/// common, the one that keeps elements in place wins (an edit in place moves nothing).
const IN_PLACE: u32 = 1;

/// For each element of `base`, the position in `side` of the element it lines up with, if any. The
/// positions grow with the base's (an alignment keeps order), and the pairing keeps the most in common:
/// equal elements and elements of one identity (`by`) count most, then similar ones by how similar; of
/// pairings alike in that, the one that keeps more elements at their positions.
pub(super) fn align(
    base: &[JsonValue],
    side: &[JsonValue],
    by: Option<&str>,
    budget: &Budget,
) -> Vec<Option<usize>> {
    let mut aligned = vec![None; base.len()];
    // The start and the end both keep as they were are paired as they are, and the table covers what lies
    // between.
    let head = base.iter().zip(side).take_while(|(a, b)| a == b).count();
    let tail = base[head..]
        .iter()
        .rev()
        .zip(side[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    for (at, slot) in aligned.iter_mut().enumerate().take(head) {
        *slot = Some(at);
    }
    for back in 1..=tail {
        aligned[base.len() - back] = Some(side.len() - back);
    }
    let (rows, columns) = (
        &base[head..base.len() - tail],
        &side[head..side.len() - tail],
    );
    stretch(rows, columns, by, head, head, &mut aligned, budget);
    aligned
}

/// Aligns `rows` (base elements from position `row_at`) with `columns` (side elements from `column_at`) into
/// `aligned`.
fn stretch(
    rows: &[JsonValue],
    columns: &[JsonValue],
    by: Option<&str>,
    row_at: usize,
    column_at: usize,
    aligned: &mut [Option<usize>],
    budget: &Budget,
) {
    if rows.is_empty() || columns.is_empty() {
        return;
    }
    let cells = rows.len().saturating_mul(columns.len());
    if cells <= MOST_CELLS && budget.spend(cells as u64) {
        table(rows, columns, by, row_at, column_at, aligned, budget);
        return;
    }
    // Too long for the table: cut at the elements found once on each side, and align the pieces.
    let anchors = unique_anchors(rows, columns, by);
    if anchors.is_empty() {
        return;
    }
    let (mut row, mut column) = (0, 0);
    for (anchor_row, anchor_column) in anchors
        .iter()
        .copied()
        .chain(std::iter::once((rows.len(), columns.len())))
    {
        stretch(
            &rows[row..anchor_row],
            &columns[column..anchor_column],
            by,
            row_at + row,
            column_at + column,
            aligned,
            budget,
        );
        if anchor_row < rows.len() {
            aligned[row_at + anchor_row] = Some(column_at + anchor_column);
        }
        (row, column) = (anchor_row + 1, anchor_column + 1);
    }
}

/// The alignment of two stretches short enough for the table of every pairing.
fn table(
    rows: &[JsonValue],
    columns: &[JsonValue],
    by: Option<&str>,
    row_at: usize,
    column_at: usize,
    aligned: &mut [Option<usize>],
    budget: &Budget,
) {
    // best[i][j]: the most the first i rows and the first j columns can have in common.
    let width = columns.len() + 1;
    let mut best = vec![0u32; (rows.len() + 1) * width];
    for (i, row) in rows.iter().enumerate() {
        for (j, column) in columns.iter().enumerate() {
            let pair = pairing(row, column, by, budget);
            let diagonal = match pair {
                0 => 0,
                pair => best[i * width + j] + pair * SCALE + u32::from(i == j) * IN_PLACE,
            };
            best[(i + 1) * width + j + 1] = diagonal
                .max(best[i * width + j + 1])
                .max(best[(i + 1) * width + j]);
        }
    }
    // Back from the end, leaving an element out whenever that loses nothing: of equal pairings, the one
    // that pairs the earlier elements.
    let (mut i, mut j) = (rows.len(), columns.len());
    while i > 0 && j > 0 {
        let here = best[i * width + j];
        if here == best[(i - 1) * width + j] {
            i -= 1;
        } else if here == best[i * width + j - 1] {
            j -= 1;
        } else {
            aligned[row_at + i - 1] = Some(column_at + j - 1);
            i -= 1;
            j -= 1;
        }
    }
}

/// The elements found exactly once in `rows` and once in `columns` (by their identity `by` where they have
/// one, else by their JSON), paired, keeping the longest run of pairs in order on both sides (patience
/// diff's anchors): `(row, column)` pairs, both increasing.
fn unique_anchors(
    rows: &[JsonValue],
    columns: &[JsonValue],
    by: Option<&str>,
) -> Vec<(usize, usize)> {
    use std::collections::HashMap;
    let key = |value: &JsonValue| match by.and_then(|by| value.get(by)) {
        Some(id) => format!("#{id}"),
        None => format!("={value}"),
    };
    // Per key: how often in the rows and its row, how often in the columns and its column.
    let mut seen: HashMap<String, (usize, usize, usize, usize)> = HashMap::new();
    for (at, row) in rows.iter().enumerate() {
        let entry = seen.entry(key(row)).or_default();
        (entry.0, entry.1) = (entry.0 + 1, at);
    }
    for (at, column) in columns.iter().enumerate() {
        if let Some(entry) = seen.get_mut(&key(column)) {
            (entry.2, entry.3) = (entry.2 + 1, at);
        }
    }
    let mut pairs: Vec<(usize, usize)> = seen
        .into_values()
        .filter(|entry| entry.0 == 1 && entry.2 == 1)
        .map(|entry| (entry.1, entry.3))
        .collect();
    pairs.sort_unstable();
    longest_increasing(&pairs)
}

/// The longest run of `pairs` (sorted by their first) whose seconds increase too.
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // tails[k]: the index in `pairs` of the smallest second ending a run of k + 1; before[i]: the pair
    // before pair i in its run.
    let mut tails: Vec<usize> = Vec::new();
    let mut before = vec![usize::MAX; pairs.len()];
    for (at, pair) in pairs.iter().enumerate() {
        let place = tails.partition_point(|&tail| pairs[tail].1 < pair.1);
        if place > 0 {
            before[at] = tails[place - 1];
        }
        if place == tails.len() {
            tails.push(at);
        } else {
            tails[place] = at;
        }
    }
    let mut run = Vec::with_capacity(tails.len());
    let mut at = tails.last().copied().unwrap_or(usize::MAX);
    while at != usize::MAX {
        run.push(pairs[at]);
        at = before[at];
    }
    run.reverse();
    run
}

/// What pairing `a` with `b` is worth: [`SAME`] for equal elements or one identity, 0 for elements that
/// cannot pair (two identities, or less than half alike, or a similarity the budget no longer pays for), else
/// their similarity in hundredths.
fn pairing(a: &JsonValue, b: &JsonValue, by: Option<&str>, budget: &Budget) -> u32 {
    if a == b {
        return SAME;
    }
    if let Some(by) = by
        && let (Some(a), Some(b)) = (a.get(by), b.get(by))
    {
        return if a == b { SAME } else { 0 };
    }
    let alike = match similar(a, b, budget) {
        Some(alike) => alike,
        None => return 0,
    };
    if alike >= 0.5 {
        // At most 99: a similar element never outweighs an equal one.
        (alike * 100.0).floor().min(99.0) as u32
    } else {
        0
    }
}

/// How alike two values are, from 0 to 1: 1 when equal; for two objects, the share of their fields (of
/// either) that hold the same value, a field holding two objects or two arrays counting by how alike those
/// are; for two arrays, the elements they have in common over the longer one's length, so that an array
/// edited in place is as like its base as a shorter one holding what it kept (past [`MOST_COMPARISONS`] pairs of
/// elements, only those at the same position are compared); else 0. Paid from `budget` as it goes, one unit
/// a field of two objects and one a pair of elements compared: `None` when the budget runs out first.
fn similar(a: &JsonValue, b: &JsonValue, budget: &Budget) -> Option<f64> {
    if a == b {
        return Some(1.0);
    }
    match (a, b) {
        (JsonValue::Object(a), JsonValue::Object(b)) => {
            let only_b = b.keys().filter(|name| !a.contains_key(*name)).count();
            let fields = a.len() + only_b;
            if fields == 0 {
                return Some(1.0);
            }
            if !budget.spend(fields as u64) {
                return None;
            }
            let mut shared = 0.0;
            for (name, value) in a {
                let Some(other) = b.get(name) else {
                    continue;
                };
                shared += match (value, other) {
                    _ if value == other => 1.0,
                    (JsonValue::Object(_), JsonValue::Object(_))
                    | (JsonValue::Array(_), JsonValue::Array(_)) => similar(value, other, budget)?,
                    _ => 0.0,
                };
            }
            Some(shared / fields as f64)
        }
        (JsonValue::Array(a), JsonValue::Array(b)) => {
            let total = a.len() + b.len();
            if total == 0 {
                return Some(1.0);
            }
            // Elements in common, each counted once; past a size, only those at the same position.
            let pairs = a.len().saturating_mul(b.len());
            let common = if pairs <= MOST_COMPARISONS {
                if !budget.spend(pairs as u64) {
                    return None;
                }
                let mut used = vec![false; b.len()];
                a.iter()
                    .filter(|element| {
                        let found = (0..b.len()).find(|&at| !used[at] && b[at] == **element);
                        found.map(|at| used[at] = true).is_some()
                    })
                    .count()
            } else {
                if !budget.spend(a.len().min(b.len()) as u64) {
                    return None;
                }
                a.iter().zip(b).filter(|(x, y)| x == y).count()
            };
            Some(common as f64 / a.len().max(b.len()) as f64)
        }
        _ => Some(0.0),
    }
}

/// [`similar`] with no bound on its work: for tests.
#[cfg(test)]
pub(super) fn similarity(a: &JsonValue, b: &JsonValue) -> f64 {
    similar(a, b, &Budget::of_values(u64::MAX / PER_VALUE)).unwrap_or(0.0)
}

/// Two values of one kind in order: numbers by value, two times by their instant and other strings by their
/// characters ([`text_order`]), booleans false first; `None` for values of two kinds (a time and other text
/// among them), nulls, arrays and objects.
pub(super) fn compare(a: &JsonValue, b: &JsonValue) -> Option<Ordering> {
    match (a, b) {
        (JsonValue::Number(a), JsonValue::Number(b)) => Some(number(a).cmp(&number(b))),
        // A time and other text are two kinds.
        (JsonValue::String(a), JsonValue::String(b)) => {
            (is_time(a) == is_time(b)).then(|| text_order(a, b))
        }
        (JsonValue::Bool(a), JsonValue::Bool(b)) => Some(a.cmp(b)),
        _ => None,
    }
}

/// Two strings in a total order: ISO 8601 times (RFC 3339: `2026-01-01T10:00:00+02:00`) before other text;
/// times by the instant they name (`10:00:00+02:00` is before `09:30:00Z`, and `09:30:00Z` before
/// `09:30:00.500Z`), to the last fractional digit written, then by their characters; other text by its
/// characters.
pub(super) fn text_order(a: &str, b: &str) -> Ordering {
    match (
        crate::Timestamp::parse_iso8601(a),
        crate::Timestamp::parse_iso8601(b),
    ) {
        (Some(x), Some(y)) => x
            .cmp(&y)
            .then_with(|| fraction(a).cmp(&fraction(b)))
            .then_with(|| a.cmp(b)),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

/// The digits of a time's seconds' fraction past the millisecond (`.0019` gives `9`), padded to compare as
/// a number: what [`Timestamp`](crate::Timestamp) does not keep.
fn fraction(time: &str) -> String {
    let Some((_, after)) = time.split_once('.') else {
        return String::new();
    };
    let digits: String = after
        .chars()
        .take_while(char::is_ascii_digit)
        .skip(3)
        .collect();
    format!("{digits:0<18}")
}

/// Whether `text` is an ISO 8601 time.
fn is_time(text: &str) -> bool {
    crate::Timestamp::parse_iso8601(text).is_some()
}

/// A number's place in a total order: by its `f64` value, then (for integers an `f64` cannot tell apart)
/// by its exact value.
fn number(n: &serde_json::Number) -> (Total, i128) {
    let exact = n
        .as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
        .unwrap_or(0);
    (Total(n.as_f64().unwrap_or(0.0)), exact)
}

/// An `f64` ordered by [`f64::total_cmp`].
struct Total(f64);

impl PartialEq for Total {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Total {}

impl PartialOrd for Total {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Total {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}
