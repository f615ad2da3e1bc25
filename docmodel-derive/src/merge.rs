//! `merge = ...` on the model and its fields: checked into [`MergeDecl`]s (written as the model's `MERGE`
//! rules by `expand/merge.rs`).

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{LitStr, Path};

use crate::attr::{MERGE_RULES, MergeAttr};
use crate::serde_names::FieldNames;

/// A merge rule, checked.
pub enum RuleDecl<'a> {
    /// `"ours"`, `"theirs"`, `"newer"`, `"max"`, `"min"`: the runtime's variant of that name.
    Named(&'static str),
    /// `"union"`, with `order_by`.
    Union(Option<&'a LitStr>),
    /// `merge = path` or `with = path`: the model's function.
    With(&'a Path),
}

/// The merge rules of a field (or of the model), checked.
pub struct MergeDecl<'a> {
    pub rule: Option<RuleDecl<'a>>,
    pub by: Option<&'a LitStr>,
}

impl<'a> MergeDecl<'a> {
    /// A field's `merge`: any rule, a function, `by`. The field must be written under a name of its own.
    pub fn field(
        attr: &'a MergeAttr,
        names: &FieldNames,
        errors: &mut crate::meta::Accumulator,
    ) -> Option<Self> {
        let parsed = take_problems(attr, errors);
        // A `#[serde(flatten)]` field is refused on its own (`serde_names`): nothing more to say of it here.
        if names.flatten.is_some() {
            return None;
        }
        if names.serialize.is_none() {
            errors.push(
                crate::meta::Error::custom(
                    "`merge` on a field that is never written (`#[serde(skip)]`, `skip_serializing`, \
                     `from_key`): a merge of the stored JSON has nothing of it to merge",
                )
                .with_span(&attr.span),
            );
            return None;
        }
        let decl = Self::read(attr, true, errors).filter(|_| parsed)?;
        if let Some(by) = decl.by.filter(|by| by.value().is_empty()) {
            errors.push(
                crate::meta::Error::custom(
                    "`by = \"\"` names no field: name the field of the list's elements that tells them apart, \
                     as they are stored (`by = \"id\"`)",
                )
                .with_span(by),
            );
            return None;
        }
        Some(decl)
    }

    /// The model's `merge`: a rule by name, for every field without its own.
    pub fn model(attr: &'a MergeAttr, errors: &mut crate::meta::Accumulator) -> Option<Self> {
        let mut fine = take_problems(attr, errors);
        let mut refuse = |span: Span, what: &str| {
            errors.push(
                crate::meta::Error::custom(format!(
                    "{what} belongs on a field: `merge = \"...\"` on the model is the rule of every field \
                     without one of its own, one of {}",
                    Names
                ))
                .with_span(&span),
            );
            fine = false;
        };
        if let Some(with) = &attr.with {
            refuse(with.span(), "a merge function");
        }
        if let Some(by) = &attr.by {
            refuse(by.span(), "`by`");
        }
        if let Some(order_by) = &attr.order_by {
            refuse(order_by.span(), "`order_by`");
        }
        let decl = Self::read(attr, false, errors)?;
        fine.then_some(decl)
    }

    /// What both take: a rule by name or a function (not both), `order_by` with `union` only; on the model
    /// (`on_field` false), where a function and `order_by` are refused already, only the rule's name.
    fn read(
        attr: &'a MergeAttr,
        on_field: bool,
        errors: &mut crate::meta::Accumulator,
    ) -> Option<Self> {
        let mut fine = true;
        let named = match &attr.rule {
            Some((name, span)) => match MERGE_RULES.iter().find(|rule| **rule == name) {
                Some(rule) => Some((*rule, *span)),
                None => {
                    errors.push(
                        crate::meta::Error::custom(format!(
                            "unknown merge rule `{name}`: a rule is one of {}, or a function's path \
                             (`merge = path::to::function`)",
                            Names
                        ))
                        .with_span(span),
                    );
                    fine = false;
                    None
                }
            },
            None => None,
        };
        if let (true, Some((name, _)), Some(with)) = (on_field, named, &attr.with) {
            errors.push(
                crate::meta::Error::custom(format!(
                    "a field merges by one rule: `{name}` or the function `with`, not both"
                ))
                .with_span(with),
            );
            fine = false;
        }
        if let Some(order_by) = &attr.order_by
            && on_field
            && named.map(|(name, _)| name) != Some("union")
        {
            errors.push(
                crate::meta::Error::custom(
                    "`order_by` orders the merged list of the rule `union`: write \
                     `merge(union, order_by = \"...\")`",
                )
                .with_span(order_by),
            );
            fine = false;
        }
        if !fine {
            return None;
        }
        let rule = match (named, &attr.with) {
            (Some(("union", _)), _) => Some(RuleDecl::Union(attr.order_by.as_ref())),
            (Some((name, _)), _) => Some(RuleDecl::Named(name)),
            (None, Some(with)) => Some(RuleDecl::With(with)),
            (None, None) => None,
        };
        Some(MergeDecl {
            rule,
            by: attr.by.as_ref(),
        })
    }
}

/// Reports what of `attr` did not parse; whether all of it did.
fn take_problems(attr: &MergeAttr, errors: &mut crate::meta::Accumulator) -> bool {
    match attr.problems.take() {
        Some(problems) => {
            errors.push(problems);
            false
        }
        None => true,
    }
}

/// `"ours"`, `"theirs"`, ... `"union"`.
struct Names;

impl std::fmt::Display for Names {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (at, rule) in MERGE_RULES.iter().enumerate() {
            if at > 0 {
                f.write_str(", ")?;
            }
            write!(f, "\"{rule}\"")?;
        }
        Ok(())
    }
}
