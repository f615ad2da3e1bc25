//! The merge itself: values, objects and arrays, three ways.

use std::cmp::Ordering;
use std::fmt::Write as _;

use serde_json::Map;

use super::align::{Budget, align, compare, text_order};
use super::{MergeConflict, MergeRule, MergeRules, Scope};
use crate::{JsonValue, Timestamp};

/// One merge under way: the rules, the sides' times, and the conflicts found so far.
pub(super) struct Run<'r> {
    rules: &'r MergeRules,
    modified: [Option<Timestamp>; 2],
    pub(super) conflicts: Vec<MergeConflict>,
    /// The body's field of each conflict, by its position in `conflicts`.
    pub(super) fields: Vec<String>,
    /// The path of the place being merged, as it is shown (`bookmarks[2].url`).
    path: String,
    /// How deep the place is: 0 for the document, 1 for a top-level field.
    depth: usize,
    /// The body's field the place is in.
    field: String,
    /// How deep the body's object is: 0 where its fields are the document's own, 1 under the `root`
    /// layout's one attribute.
    body_depth: usize,
    /// What aligning arrays may still cost.
    budget: Budget,
}

/// A value in one version, or absent there.
type Side<'v> = Option<&'v JsonValue>;

impl<'r> Run<'r> {
    /// A merge whose body is the document (`body` `None`) or the object of its attribute `body`.
    pub(super) fn new(
        rules: &'r MergeRules,
        modified: [Option<Timestamp>; 2],
        body: Option<&str>,
        budget: Budget,
    ) -> Self {
        Run {
            rules,
            modified,
            conflicts: Vec::new(),
            fields: Vec::new(),
            path: String::new(),
            depth: 0,
            field: String::new(),
            body_depth: usize::from(body.is_some()),
            budget,
        }
    }

    /// The whole document: the body's fields each under their own rules.
    pub(super) fn document(
        &mut self,
        base: &JsonValue,
        ours: &JsonValue,
        theirs: &JsonValue,
    ) -> JsonValue {
        let scope = self.rules.root();
        self.value(scope, Some(base), Some(ours), Some(theirs))
            .unwrap_or(JsonValue::Null)
    }

    /// One place: the merged value, or absent. A conflict no rule decides is recorded, and ours stands in.
    fn value(
        &mut self,
        scope: Scope,
        base: Side<'_>,
        ours: Side<'_>,
        theirs: Side<'_>,
    ) -> Option<JsonValue> {
        if ours == theirs || base == theirs {
            return ours.cloned();
        }
        if base == ours {
            return theirs.cloned();
        }
        // Both sides changed it, differently. A field with a function of its own is the function's.
        if let Some(MergeRule::Custom(merge)) = scope.rule
            && self.at_field()
        {
            return match merge(base, ours, theirs) {
                Ok(merged) => merged,
                Err(reason) => self.conflict(base, ours, theirs, Some(reason)),
            };
        }
        match (ours, theirs) {
            (Some(JsonValue::Object(o)), Some(JsonValue::Object(t))) => {
                let empty = Map::new();
                let b = match base {
                    Some(JsonValue::Object(b)) => b,
                    _ => &empty,
                };
                Some(JsonValue::Object(self.object(scope, b, o, t)))
            }
            (Some(JsonValue::Array(o)), Some(JsonValue::Array(t))) => {
                let b: &[JsonValue] = match base {
                    Some(JsonValue::Array(b)) => b,
                    _ => &[],
                };
                Some(JsonValue::Array(self.array(scope, b, o, t)))
            }
            _ => self.decide(scope, base, ours, theirs),
        }
    }

    /// Whether the place is a field of the body: where a model's function applies.
    fn at_field(&self) -> bool {
        self.depth == self.body_depth + 1
    }

    /// Merges the place `step` below the current one (a field's name, or `[n]`), for `merge`.
    fn below<R>(&mut self, step: std::fmt::Arguments<'_>, merge: impl FnOnce(&mut Self) -> R) -> R {
        let mark = self.path.len();
        let _ = self.path.write_fmt(step);
        self.depth += 1;
        let merged = merge(self);
        self.depth -= 1;
        self.path.truncate(mark);
        merged
    }

    /// Objects, field by field: ours's fields in its order, then the fields only theirs has.
    fn object(
        &mut self,
        scope: Scope,
        base: &Map<String, JsonValue>,
        ours: &Map<String, JsonValue>,
        theirs: &Map<String, JsonValue>,
    ) -> Map<String, JsonValue> {
        // The body's object: where the rules are found, by field.
        let top = self.depth == self.body_depth;
        let names = ours
            .keys()
            .chain(theirs.keys().filter(|name| !ours.contains_key(*name)))
            .chain(
                base.keys()
                    .filter(|name| !ours.contains_key(*name) && !theirs.contains_key(*name)),
            );
        let mut merged = Map::new();
        for name in names {
            let scope = if top { self.rules.scope(name) } else { scope };
            if top {
                name.clone_into(&mut self.field);
            }
            let dot = if self.path.is_empty() { "" } else { "." };
            let value = self.below(format_args!("{dot}{name}"), |run| {
                run.value(scope, base.get(name), ours.get(name), theirs.get(name))
            });
            if let Some(value) = value {
                merged.insert(name.clone(), value);
            }
        }
        merged
    }

    /// Arrays, as sequences: each side aligned against the base; the elements both sides kept merged one by
    /// one, and each stretch between them taken from the side that changed it.
    fn array(
        &mut self,
        scope: Scope,
        base: &[JsonValue],
        ours: &[JsonValue],
        theirs: &[JsonValue],
    ) -> Vec<JsonValue> {
        let in_ours = align(base, ours, scope.by, &self.budget);
        let in_theirs = align(base, theirs, scope.by, &self.budget);
        let mut merged = Vec::with_capacity(ours.len().max(theirs.len()));
        let (mut b, mut o, mut t) = (0, 0, 0);
        let kept = (0..base.len()).filter_map(|at| Some((at, in_ours[at]?, in_theirs[at]?)));
        for (at, at_ours, at_theirs) in
            kept.chain(std::iter::once((base.len(), ours.len(), theirs.len())))
        {
            self.stretch(
                scope,
                &mut merged,
                b,
                &base[b..at],
                &ours[o..at_ours],
                &theirs[t..at_theirs],
            );
            if at == base.len() {
                break;
            }
            let value = self.below(format_args!("[{at}]"), |run| {
                run.value(
                    scope,
                    Some(&base[at]),
                    Some(&ours[at_ours]),
                    Some(&theirs[at_theirs]),
                )
            });
            merged.extend(value);
            (b, o, t) = (at + 1, at_ours + 1, at_theirs + 1);
        }
        if let Some(MergeRule::Union {
            order_by: Some(field),
        }) = scope.rule
        {
            merged.sort_by(|a, b| order(a.get(field), b.get(field)));
        }
        merged
    }

    /// A stretch between two elements both sides kept (starting at base position `from`): the side that
    /// changed it, or, when both did differently, the rule's choice.
    fn stretch(
        &mut self,
        scope: Scope,
        merged: &mut Vec<JsonValue>,
        from: usize,
        base: &[JsonValue],
        ours: &[JsonValue],
        theirs: &[JsonValue],
    ) {
        if ours == theirs || base == theirs {
            merged.extend_from_slice(ours);
            return;
        }
        if base == ours {
            merged.extend_from_slice(theirs);
            return;
        }
        let union = matches!(scope.rule, Some(MergeRule::Union { .. }));
        // Three stretches of one length whose elements did not line up (each changed too much on one side to
        // be known by its content): edits in place, merged position by position, structurally, unless the
        // elements' declared identity (`by`) says a side put another element in the place of one. A list of
        // `union` takes both sides' elements instead.
        let same = |a: &JsonValue, b: &JsonValue| match scope.by.map(|by| (a.get(by), b.get(by))) {
            Some((Some(a), Some(b))) => a == b,
            _ => true,
        };
        let in_place = |at: usize| {
            let (b, o, t) = (&base[at], &ours[at], &theirs[at]);
            same(b, o) && same(b, t)
        };
        if !union
            && base.len() == ours.len()
            && base.len() == theirs.len()
            && (0..base.len()).all(in_place)
        {
            for (at, ((b, o), t)) in base.iter().zip(ours).zip(theirs).enumerate() {
                let value = self.below(format_args!("[{}]", from + at), |run| {
                    run.value(scope, Some(b), Some(o), Some(t))
                });
                merged.extend(value);
            }
            return;
        }
        match scope.rule {
            Some(MergeRule::Union { .. }) => {
                merged.extend_from_slice(ours);
                for element in theirs {
                    if !ours.contains(element) {
                        merged.push(element.clone());
                    }
                }
            }
            Some(MergeRule::Ours) => merged.extend_from_slice(ours),
            Some(MergeRule::Theirs) => merged.extend_from_slice(theirs),
            Some(MergeRule::Newer) if self.newer().is_some() => {
                let side = if self.newer() == Some(true) {
                    ours
                } else {
                    theirs
                };
                merged.extend_from_slice(side);
            }
            rule => {
                let reason = why_undecided(rule, self.modified);
                let array = |side: &[JsonValue]| Some(JsonValue::Array(side.to_vec()));
                self.below(format_args!("[{from}..{}]", from + base.len()), |run| {
                    run.record(array(base), array(ours), array(theirs), reason);
                });
                merged.extend_from_slice(ours);
            }
        }
    }

    /// A true conflict at a place that is not two objects or two arrays: the rule's choice, or recorded.
    fn decide(
        &mut self,
        scope: Scope,
        base: Side<'_>,
        ours: Side<'_>,
        theirs: Side<'_>,
    ) -> Option<JsonValue> {
        let picked = match scope.rule {
            Some(MergeRule::Ours) => Some(ours),
            Some(MergeRule::Theirs) => Some(theirs),
            Some(MergeRule::Newer) => self
                .newer()
                .map(|ours_newer| if ours_newer { ours } else { theirs }),
            Some(rule @ (MergeRule::Max | MergeRule::Min)) => match (ours, theirs) {
                (Some(o), Some(t)) => compare(o, t).map(|ordering| {
                    let ours_greater = ordering == Ordering::Greater;
                    if ours_greater == matches!(rule, MergeRule::Max) {
                        Some(o)
                    } else {
                        Some(t)
                    }
                }),
                _ => None,
            },
            _ => None,
        };
        match picked {
            Some(side) => side.cloned(),
            None => {
                let reason = why_undecided(scope.rule, self.modified);
                self.conflict(base, ours, theirs, reason)
            }
        }
    }

    /// Whether ours was modified after theirs; `None` when the times do not tell.
    fn newer(&self) -> Option<bool> {
        match self.modified {
            [Some(ours), Some(theirs)] if ours != theirs => Some(ours > theirs),
            _ => None,
        }
    }

    /// Records a conflict at the current place; ours stands in for the value.
    fn conflict(
        &mut self,
        base: Side<'_>,
        ours: Side<'_>,
        theirs: Side<'_>,
        reason: Option<String>,
    ) -> Option<JsonValue> {
        self.record(base.cloned(), ours.cloned(), theirs.cloned(), reason);
        ours.cloned()
    }

    fn record(
        &mut self,
        base: Option<JsonValue>,
        ours: Option<JsonValue>,
        theirs: Option<JsonValue>,
        reason: Option<String>,
    ) {
        self.conflicts.push(MergeConflict {
            path: self.path.clone(),
            base,
            ours,
            theirs,
            reason,
        });
        self.fields.push(self.field.clone());
    }
}

/// Why `rule` left a conflict undecided, when a rule applied.
fn why_undecided(rule: Option<MergeRule>, modified: [Option<Timestamp>; 2]) -> Option<String> {
    match rule? {
        MergeRule::Newer => Some(match modified {
            [Some(_), Some(_)] => "`newer`: both sides were modified at the same time".to_owned(),
            _ => "`newer`: a side has no modification time".to_owned(),
        }),
        MergeRule::Max | MergeRule::Min => Some(
            "`max` and `min` compare two numbers, two strings or two booleans, present on both sides"
                .to_owned(),
        ),
        MergeRule::Union { .. } => Some("`union` merges the elements of lists".to_owned()),
        MergeRule::Ours | MergeRule::Theirs | MergeRule::Custom(_) => None,
    }
}

/// The order of `order_by`: values of one kind as [`compare`] orders them (strings by [`text_order`]: times
/// before other text); absent first, then by kind (null, booleans, numbers, strings, arrays, objects). A
/// total order, as a sort needs.
fn order(a: Option<&JsonValue>, b: Option<&JsonValue>) -> Ordering {
    fn kind(value: Option<&JsonValue>) -> u8 {
        match value {
            None => 0,
            Some(JsonValue::Null) => 1,
            Some(JsonValue::Bool(_)) => 2,
            Some(JsonValue::Number(_)) => 3,
            Some(JsonValue::String(_)) => 4,
            Some(JsonValue::Array(_)) => 5,
            Some(JsonValue::Object(_)) => 6,
        }
    }
    kind(a).cmp(&kind(b)).then_with(|| match (a, b) {
        // Strings in their total order: times, by instant, before other text.
        (Some(JsonValue::String(a)), Some(JsonValue::String(b))) => text_order(a, b),
        (Some(a), Some(b)) => compare(a, b).unwrap_or(Ordering::Equal),
        _ => Ordering::Equal,
    })
}
