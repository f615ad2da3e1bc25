//! The body fields the writer may leave out: `Presence` fields when `Missing`, the fields of `skip_empty`,
//! and serde's `skip_serializing_if`, checked so that every field left out reads back (by the field's one
//! answer, [`Field::reads_absent`]).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Field, Model, SkipEmpty, generic_argument, simple_type_name};
use crate::serde_names::Absent;

/// The types whose JSON can be `""`, `[]` or `{}`: what a model's `skip_empty` applies to besides `Option`,
/// `Presence` and fields with a serde default.
const EMPTY_ABLE: &[&str] = &[
    "String", "Vec", "VecDeque", "HashMap", "BTreeMap", "HashSet", "BTreeSet", "Map", "Value",
];

/// Where a field's `skip_empty` comes from.
#[derive(Clone, Copy)]
enum Rule {
    /// `#[docmodel(skip_empty)]` on the field.
    Field(SkipEmpty),
    /// `#[docmodel(skip_empty)]` on the model, which the field can be empty under.
    Model(SkipEmpty),
}

impl Rule {
    fn options(self) -> SkipEmpty {
        match self {
            Rule::Field(options) | Rule::Model(options) => options,
        }
    }
}

/// The `skip_empty` that applies to `field`, if any.
fn rule(model: &Model, field: &Field) -> Option<Rule> {
    if let Some(options) = field.skip_empty {
        return Some(Rule::Field(options));
    }
    let options = model.skip_empty?;
    let defaulted = matches!(field.json.absent, Absent::Field(_) | Absent::Container(_));
    let applies = field.json.serialize.is_some()
        && field.json.flatten.is_none()
        && (options.default
            || is_option_like(field)
            || defaulted
            || generic_name(field).is_some_and(|name| EMPTY_ABLE.contains(&name.as_str())));
    applies.then_some(Rule::Model(options))
}

/// `Option<...>` or `Presence<...>`: types that can be empty (`null`, `Missing`).
fn is_option_like(field: &Field) -> bool {
    generic_argument(field.ty, "Option").is_some() || field.is_presence()
}

/// The last identifier of the field's type path, with or without generic arguments.
fn generic_name(field: &Field) -> Option<String> {
    simple_type_name(field.ty).or_else(|| {
        let syn::Type::Path(path) = field.ty else {
            return None;
        };
        path.path.segments.last().map(|last| last.ident.to_string())
    })
}

/// Every field left out must read back, and be written at all.
pub fn check(model: &Model, errors: &mut crate::meta::Accumulator) {
    // A flattened field is refused on its own (`valid.rs`).
    for field in model
        .fields
        .iter()
        .filter(|field| field.json.flatten.is_none())
    {
        if let Some((span, function)) = &field.json.skip_serializing_if
            && field.json.serialize.is_some()
            && !field.reads_absent()
        {
            let name = field.name();
            errors.push(
                crate::meta::Error::custom(format!(
                    "`skip_serializing_if = \"{function}\"` leaves `{name}` out of the stored JSON, and a \
                     document without `{name}` would not read back: add `default` to the field's \
                     `#[serde(...)]`{}",
                    if field.json.read_with.is_some() {
                        " (a field read by its own function is required by serde, even an `Option`)"
                    } else {
                        ""
                    }
                ))
                .with_span(span),
            );
        }
        let Some(rule) = rule(model, field) else {
            continue;
        };
        let name = field.name();
        if let Rule::Field(options) = rule
            && let Some((_, skip)) = field.json.skip.filter(|_| field.json.serialize.is_none())
        {
            errors.push(
                crate::meta::Error::custom(format!(
                    "`skip_empty` has nothing to leave out: `#[serde({skip})]` never writes `{name}`"
                ))
                .with_span(&options.span),
            );
            continue;
        }
        if field.reads_absent() {
            continue;
        }
        let what = if rule.options().default {
            "empty or equal to its default"
        } else {
            "empty"
        };
        let error = match rule {
            Rule::Field(options) => crate::meta::Error::custom(format!(
                "`skip_empty` leaves `{name}` out of the stored JSON when it is {what}, and a document without \
                 `{name}` would not read back: add `#[serde(default)]` to the field"
            ))
            .with_span(&options.span),
            Rule::Model(_) => crate::meta::Error::custom(format!(
                "the model's `skip_empty` leaves `{name}` out of the stored JSON when it is {what}, and a \
                 document without `{name}` would not read back: add `#[serde(default)]` to this field or to the \
                 struct"
            ))
            .with_span(field.ident),
        };
        errors.push(error);
    }
}

/// `const OMIT`, when the model has fields to leave out.
pub fn trait_items(model: &Model) -> Option<TokenStream> {
    let rules: Vec<TokenStream> = model
        .fields
        .iter()
        .filter(|field| field.json.serialize.is_some() && field.json.flatten.is_none())
        .filter_map(|field| {
            let rule = rule(model, field);
            if rule.is_none() && !field.is_presence() {
                return None;
            }
            let name = field.json.serialize.as_deref()?;
            let empty = rule.is_some();
            let default = match rule.map(Rule::options) {
                Some(SkipEmpty { default: true, .. }) => {
                    let (ident, ty) = (field.ident, field.ty);
                    // At the type: where the compiler says it is not `Default` or `PartialEq`.
                    let is_default = quote_spanned! {ty.span()=>
                        (|body: &Self| body.#ident == <#ty as ::core::default::Default>::default())
                            as fn(&Self) -> bool
                    };
                    quote!(::core::option::Option::Some(#is_default))
                }
                _ => quote!(::core::option::Option::None),
            };
            Some(quote! {
                __docmodel_private::Omit { name: #name, empty: #empty, default: #default }
            })
        })
        .collect();
    (!rules.is_empty())
        .then(|| quote!(const OMIT: &'static [__docmodel_private::Omit<Self>] = &[#(#rules),*];))
}
