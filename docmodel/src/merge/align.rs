//! Which element of a side each base element became: equal elements, elements of one identity, and
//! elements similar enough to be the same item edited.

use std::cmp::Ordering;

use crate::JsonValue;

/// The most cells the alignment table of one stretch may have (its elements' counts multiplied): past it, the
/// stretch is first cut at the elements found once on each side (equal, or of one identity), as patience
/// diff does, and each piece aligned on its own; a piece still past it, with no such element, is left
/// unaligned, and merges only where one side left it as it was.
const MOST_CELLS: usize = 1 << 16;

/// The most element comparisons [`similarity`] makes of two arrays: past it, only elements at the same
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
    stretch(rows, columns, by, head, head, &mut aligned);
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
) {
    if rows.is_empty() || columns.is_empty() {
        return;
    }
    if rows.len().saturating_mul(columns.len()) <= MOST_CELLS {
        table(rows, columns, by, row_at, column_at, aligned);
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
) {
    // best[i][j]: the most the first i rows and the first j columns can have in common.
    let width = columns.len() + 1;
    let mut best = vec![0u32; (rows.len() + 1) * width];
    for (i, row) in rows.iter().enumerate() {
        for (j, column) in columns.iter().enumerate() {
            let pair = pairing(row, column, by);
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
/// cannot pair (two identities, or less than half alike), else their similarity in hundredths.
fn pairing(a: &JsonValue, b: &JsonValue, by: Option<&str>) -> u32 {
    if a == b {
        return SAME;
    }
    if let Some(by) = by
        && let (Some(a), Some(b)) = (a.get(by), b.get(by))
    {
        return if a == b { SAME } else { 0 };
    }
    let alike = similarity(a, b);
    if alike >= 0.5 {
        // At most 99: a similar element never outweighs an equal one.
        (alike * 100.0).floor().min(99.0) as u32
    } else {
        0
    }
}

/// How alike two values are, from 0 to 1: 1 when equal; for two objects, the share of their fields (of
/// either) that hold the same value, a field holding two objects or two arrays counting by how alike those
/// are; for two arrays, the share of their elements they have in common; else 0.
pub(super) fn similarity(a: &JsonValue, b: &JsonValue) -> f64 {
    if a == b {
        return 1.0;
    }
    match (a, b) {
        (JsonValue::Object(a), JsonValue::Object(b)) => {
            let only_b = b.keys().filter(|name| !a.contains_key(*name)).count();
            let fields = a.len() + only_b;
            if fields == 0 {
                return 1.0;
            }
            let shared: f64 = a
                .iter()
                .filter_map(|(name, value)| {
                    let other = b.get(name)?;
                    Some(match (value, other) {
                        _ if value == other => 1.0,
                        (JsonValue::Object(_), JsonValue::Object(_))
                        | (JsonValue::Array(_), JsonValue::Array(_)) => similarity(value, other),
                        _ => 0.0,
                    })
                })
                .sum();
            shared / fields as f64
        }
        (JsonValue::Array(a), JsonValue::Array(b)) => {
            let total = a.len() + b.len();
            if total == 0 {
                return 1.0;
            }
            // Elements in common, each counted once; past a size, only those at the same position.
            let common = if a.len().saturating_mul(b.len()) <= MOST_COMPARISONS {
                let mut used = vec![false; b.len()];
                a.iter()
                    .filter(|element| {
                        let found = (0..b.len()).find(|&at| !used[at] && b[at] == **element);
                        found.map(|at| used[at] = true).is_some()
                    })
                    .count()
            } else {
                a.iter().zip(b).filter(|(x, y)| x == y).count()
            };
            (2 * common) as f64 / total as f64
        }
        _ => 0.0,
    }
}

/// Two values of one kind in order: numbers by value, strings by their characters, booleans false first;
/// `None` for values of two kinds, nulls, arrays and objects.
pub(super) fn compare(a: &JsonValue, b: &JsonValue) -> Option<Ordering> {
    match (a, b) {
        (JsonValue::Number(a), JsonValue::Number(b)) => Some(number(a).cmp(&number(b))),
        (JsonValue::String(a), JsonValue::String(b)) => Some(text(a, b)),
        (JsonValue::Bool(a), JsonValue::Bool(b)) => Some(a.cmp(b)),
        _ => None,
    }
}

/// Two strings in order: as instants where both are ISO 8601 times (`2026-01-01T10:00:00+02:00` is before
/// `2026-01-01T09:30:00Z`, and `09:30:00Z` before `09:30:00.500Z`), as [`Timestamp`](crate::Timestamp)
/// reads them to the millisecond; otherwise, or when both are one instant, by their characters.
fn text(a: &str, b: &str) -> Ordering {
    let instant = |text: &str| crate::Timestamp::parse_iso8601(text);
    match (instant(a), instant(b)) {
        (Some(x), Some(y)) => x.cmp(&y).then_with(|| a.cmp(b)),
        _ => a.cmp(b),
    }
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
