//! Three-way merges: two versions of a document that went apart from a common base, put back together
//! with both sides' changes. This is what [`Resolve::merge`](crate::Resolve::merge) does to a replication
//! conflict and what [`Repo::save_merging`](crate::Repo::save_merging) does to a stale save. It is the
//! CouchDB guide's "links which were changed, added or deleted on one side are also changed, added or
//! deleted on the other side".
//!
//! The rules, applied to the stored JSON (envelope aside):
//!
//! - **Objects** merge field by field, recursively. A field changed on one side only takes that change. A
//!   field changed to the same value on both sides is fine. A field added or removed on one side is added
//!   or removed.
//! - **Arrays** merge as sequences. Each side is aligned against the base. Then every stretch that one side
//!   left as it was takes the other side's insertions, deletions and changes. An element that both sides
//!   kept is merged recursively, so a renamed bookmark inside a folder that the other side added to keeps
//!   both edits.
//!   - An element lines up with the base element it was edited from when the two are equal, or when they
//!     are *similar*: at least half of an object's fields hold the same value (nested arrays count by the
//!     elements they have in common, over the longer one's length). Of the pairings possible, the alignment keeps the one with
//!     the most in common, in order.
//!   - A model that gives its elements an identity declares it with `#[docmodel(merge(by = "id"))]`. Then
//!     elements with the same `id` line up, and elements with different ones never do.
//!   - In a list whose elements all look alike (every pair half equal), the earlier elements pair first.
//!     Declare an identity there.
//!   - A stretch that has one length on all three sides but whose elements did not line up (edited too
//!     much on one side to be recognised) merges position by position, as edits in place, unless the
//!     declared identity says a side put another element in the place of one: then it conflicts.
//!   - The work of aligning is bounded per merge, in proportion to the three documents' size: 16 units a
//!     value they hold (at least 262,144), where a cell of an alignment table (a base element against a
//!     side's), and a field or a pair of elements a similarity compares, cost one each. A stretch whose table does not fit in what is
//!     left (or past 4,194,304 cells) is first cut at the elements found exactly once on each side (equal,
//!     or of one identity), as patience diff does, and each piece aligned on its own; a piece still too
//!     long is not aligned, and merges only where one side left it as it was, else it is reported as a
//!     conflict. Once the budget is spent, elements pair only when equal or of one identity. A merge
//!     therefore costs at most a small multiple of reading its documents, whatever their lists hold.
//! - **What truly conflicts** is decided by the field's rule (see [`MergeRule`]): both sides changed one
//!   scalar differently, one side removed what the other changed, or both edited one stretch of an array
//!   differently (two insertions at one place included). Without a rule, every such place is listed in the
//!   error ([`MergeConflict`], in [`Error::MergeConflict`](crate::Error::MergeConflict)) with its three
//!   values, and nothing is written.
//!
//! [`Merge`] runs the same merge on JSON values: for a test, or for a document docmodel does not store.
//!
//! ```
//! use docmodel::json;
//! use docmodel::merge::{Merge, MergeRules};
//!
//! let base = json!({"name": "Joe", "tags": ["a", "b"], "city": "Leeds"});
//! let ours = json!({"name": "Joseph", "tags": ["a", "b", "c"], "city": "Leeds"});
//! let theirs = json!({"name": "Joe", "tags": ["b"], "city": "York"});
//! let merged = Merge::new(&MergeRules::NONE).json(&base, &ours, &theirs)?;
//! assert_eq!(merged, json!({"name": "Joseph", "tags": ["b", "c"], "city": "York"}));
//! # Ok::<(), docmodel::merge::MergeConflicts>(())
//! ```

mod align;
mod three_way;

#[cfg(test)]
mod tests;

use std::fmt;

use crate::{JsonValue, Timestamp};

/// How a field's true conflicts are decided (`#[docmodel(merge = "...")]` on the field, or on the model for
/// every field without a rule of its own). A rule applies to the field's value and everything inside it.
///
/// | attribute | rule |
/// |---|---|
/// | `merge = "ours"` | [`MergeRule::Ours`] |
/// | `merge = "theirs"` | [`MergeRule::Theirs`] |
/// | `merge = "newer"` | [`MergeRule::Newer`] |
/// | `merge = "max"` | [`MergeRule::Max`] |
/// | `merge = "min"` | [`MergeRule::Min`] |
/// | `merge = "union"`, `merge(union, order_by = "at")` | [`MergeRule::Union`] |
/// | `merge = path::to::function` (on a field) | [`MergeRule::Custom`] |
#[derive(Clone, Copy)]
#[non_exhaustive]
pub enum MergeRule {
    /// Our side: the document read first (the revision the store ranks first, or the edited document of a
    /// stale save).
    Ours,
    /// Their side: the other revision (or the version another writer saved).
    Theirs,
    /// The side modified last, by the envelope's `_modified`. When both sides have the same time, or
    /// either has none, the conflict is reported.
    Newer,
    /// The greater value: numbers by value; two ISO 8601 times (RFC 3339: `2026-01-01T09:30:00Z`, with an
    /// offset or fractional seconds) by the instant they name; other strings by their characters; `true` over
    /// `false`. Values of two kinds (a time and other text among them), or a value removed on one side, are
    /// reported.
    Max,
    /// The lesser value, as [`MergeRule::Max`] compares.
    Min,
    /// For append-only lists (the CouchDB guide's event log): both sides' elements where they changed one
    /// stretch, ours first, an element both added taken once. With `order_by`, the merged list is then
    /// sorted (stably) by that field of its elements, as [`MergeRule::Max`] compares; an element without
    /// it sorts first. Conflicts that are not in a list are reported.
    Union {
        /// The field of the elements that orders the merged list (`merge(union, order_by = "at")`).
        order_by: Option<&'static str>,
    },
    /// The model's own function, given the field's base, ours and theirs values (the base absent when the
    /// field is new on both sides; either side absent when the field is not written there) whenever both
    /// sides changed the field differently. It returns the merged value or why it cannot.
    ///
    /// `#[docmodel(merge = tags_merge)]` on a field of type `F` takes
    /// `fn(base: Option<F>, ours: F, theirs: F) -> F`: the derive wraps it, each side read and the result
    /// written as the field's own serde attributes say (`with`, `deserialize_with`, ...), a side without the
    /// field read as a document without it reads (its `default`, `None`; where such a document does not
    /// read, the place is reported).
    Custom(CustomMerge),
}

/// The function of [`MergeRule::Custom`], on JSON values: base, ours and theirs (each absent when the
/// field is not there), and the merged value (absent to leave the field out) or why there is none.
pub type CustomMerge = fn(
    Option<&JsonValue>,
    Option<&JsonValue>,
    Option<&JsonValue>,
) -> Result<Option<JsonValue>, String>;

impl fmt::Debug for MergeRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MergeRule::Ours => f.write_str("Ours"),
            MergeRule::Theirs => f.write_str("Theirs"),
            MergeRule::Newer => f.write_str("Newer"),
            MergeRule::Max => f.write_str("Max"),
            MergeRule::Min => f.write_str("Min"),
            MergeRule::Union { order_by } => {
                f.debug_struct("Union").field("order_by", order_by).finish()
            }
            MergeRule::Custom(_) => f.write_str("Custom(..)"),
        }
    }
}

/// The merge rules of one field of the model, by its stored name.
#[derive(Debug, Clone, Copy)]
pub struct FieldMerge {
    field: &'static str,
    rule: Option<MergeRule>,
    by: Option<&'static str>,
}

impl FieldMerge {
    /// No rules for `field` (its stored name) yet.
    pub const fn new(field: &'static str) -> Self {
        FieldMerge {
            field,
            rule: None,
            by: None,
        }
    }

    /// Its conflicts decided by `rule`.
    pub const fn rule(mut self, rule: MergeRule) -> Self {
        self.rule = Some(rule);
        self
    }

    /// The elements of the arrays in it line up by their field `by` (`merge(by = "id")`).
    pub const fn by(mut self, by: &'static str) -> Self {
        self.by = Some(by);
        self
    }
}

/// A model's merge rules, by field: what the derive writes as [`DocModel::MERGE`](crate::DocModel::MERGE)
/// from the `merge` attributes.
///
/// ```
/// use docmodel::merge::{FieldMerge, MergeRule, MergeRules};
///
/// const RULES: MergeRules = MergeRules::NONE
///     .default_rule(MergeRule::Newer)
///     .fields(&[FieldMerge::new("events").rule(MergeRule::Union { order_by: Some("at") })]);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct MergeRules {
    default: Option<MergeRule>,
    fields: &'static [FieldMerge],
}

impl MergeRules {
    /// No rules: every true conflict is reported.
    pub const NONE: MergeRules = MergeRules {
        default: None,
        fields: &[],
    };

    /// `rule` for the fields without one of their own (`#[docmodel(merge = "...")]` on the model).
    pub const fn default_rule(mut self, rule: MergeRule) -> Self {
        self.default = Some(rule);
        self
    }

    /// The rules of these fields.
    pub const fn fields(mut self, fields: &'static [FieldMerge]) -> Self {
        self.fields = fields;
        self
    }

    /// What applies inside the top-level field `name`.
    fn scope(&self, name: &str) -> Scope {
        let own = self.fields.iter().find(|field| field.field == name);
        Scope {
            rule: own.and_then(|field| field.rule).or(self.default),
            by: own.and_then(|field| field.by),
        }
    }

    /// What applies to the document itself, outside every field.
    fn root(&self) -> Scope {
        Scope {
            rule: self.default,
            by: None,
        }
    }
}

/// The rules in effect at a place of the document.
#[derive(Clone, Copy)]
struct Scope {
    rule: Option<MergeRule>,
    by: Option<&'static str>,
}

/// A place both sides changed differently and no rule decided: its path (`bookmarks[2].url`; an array's
/// stretch as `tags[1..3]`, by base positions, with the three stretches as arrays) and its three values,
/// each absent where the place is not in that version.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct MergeConflict {
    /// Where, from the document's top: fields by name, array elements by their position in the base.
    pub path: String,
    /// The base's value.
    pub base: Option<JsonValue>,
    /// Our side's.
    pub ours: Option<JsonValue>,
    /// Their side's.
    pub theirs: Option<JsonValue>,
    /// Why a rule did not decide it, when one applied (`newer`: both sides modified at the same time; a
    /// function's own reason).
    pub reason: Option<String>,
}

impl fmt::Display for MergeConflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` (base {}, ours {}, theirs {})",
            self.path,
            Shown(&self.base),
            Shown(&self.ours),
            Shown(&self.theirs)
        )?;
        if let Some(reason) = &self.reason {
            write!(f, ": {reason}")?;
        }
        Ok(())
    }
}

/// A value in a message: its JSON, cut at 60 characters; `absent`.
struct Shown<'a>(&'a Option<JsonValue>);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(value) = self.0 else {
            return f.write_str("absent");
        };
        let text = value.to_string();
        match text.char_indices().nth(60) {
            Some((cut, _)) => write!(f, "{}...", &text[..cut]),
            None => f.write_str(&text),
        }
    }
}

/// Every place of a merge that conflicts, in document order: what [`Merge::json`] returns when a place
/// is left undecided.
#[derive(Debug, Clone, PartialEq)]
pub struct MergeConflicts(pub Vec<MergeConflict>);

impl fmt::Display for MergeConflicts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", Places(self.0.len()), Listed(&self.0))
    }
}

impl std::error::Error for MergeConflicts {}

/// `1 place`, `2 places`.
pub(crate) struct Places(pub(crate) usize);

impl fmt::Display for Places {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.0;
        write!(f, "{count} {}", if count == 1 { "place" } else { "places" })
    }
}

/// `` `a` (...); `b` (...) ``.
pub(crate) struct Listed<'a>(pub(crate) &'a [MergeConflict]);

impl fmt::Display for Listed<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (at, conflict) in self.0.iter().enumerate() {
            if at > 0 {
                f.write_str("; ")?;
            }
            conflict.fmt(f)?;
        }
        Ok(())
    }
}

/// A three-way merge of JSON values under a model's rules.
#[derive(Debug, Clone, Copy)]
pub struct Merge<'r> {
    rules: &'r MergeRules,
    modified: [Option<Timestamp>; 2],
    /// The attribute holding the body (the `root` layout's), where the rules are found; `None` for the
    /// document itself.
    body: Option<&'r str>,
}

impl<'r> Merge<'r> {
    /// A merge under `rules` (a model's: `&User::MERGE`).
    pub fn new(rules: &'r MergeRules) -> Self {
        Merge {
            rules,
            modified: [None, None],
            body: None,
        }
    }

    /// When each side was modified, for [`MergeRule::Newer`].
    pub fn modified(mut self, ours: Option<Timestamp>, theirs: Option<Timestamp>) -> Self {
        self.modified = [ours, theirs];
        self
    }

    /// The fields the rules name are those of the object under `attribute` (a document in the `root`
    /// layout, `{"<type>": {...}}`), not the document's own.
    pub(crate) fn body_under(mut self, attribute: Option<&'r str>) -> Self {
        self.body = attribute;
        self
    }

    /// `ours` and `theirs`, two versions descended from `base`, merged: each side's changes applied, the
    /// conflicts decided by the rules. Fails with every place left undecided.
    pub fn json(
        &self,
        base: &JsonValue,
        ours: &JsonValue,
        theirs: &JsonValue,
    ) -> Result<JsonValue, MergeConflicts> {
        let (merged, conflicts) = self.parts(base, ours, theirs);
        match conflicts.is_empty() {
            true => Ok(merged),
            false => Err(MergeConflicts(
                conflicts
                    .into_iter()
                    .map(|(_, conflict)| conflict)
                    .collect(),
            )),
        }
    }

    /// The merge, with ours standing in at each place left undecided, and those places, each with the
    /// body's field it is in.
    pub(crate) fn parts(
        &self,
        base: &JsonValue,
        ours: &JsonValue,
        theirs: &JsonValue,
    ) -> (JsonValue, Vec<(String, MergeConflict)>) {
        let budget = align::Budget::of(&[base, ours, theirs]);
        let mut run = three_way::Run::new(self.rules, self.modified, self.body, budget);
        let merged = run.document(base, ours, theirs);
        (merged, run.fields.into_iter().zip(run.conflicts).collect())
    }
}
