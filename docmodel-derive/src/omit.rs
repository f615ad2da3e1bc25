//! The body fields the writer may leave out: `Presence` fields when `Missing`, and the fields of
//! `skip_empty`, checked so that every field left out reads back.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Field, Model, SkipEmpty, generic_argument, simple_type_name};

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
    let applies = field.json.serialize.is_some()
        && field.json.flatten.is_none()
        && (options.default
            || is_option_like(field)
            || field.json.default
            || model.serde.default
            || generic_name(field).is_some_and(|name| EMPTY_ABLE.contains(&name.as_str())));
    applies.then_some(Rule::Model(options))
}

/// `Option<...>` or `Presence<...>`: serde reads an absent field of these types as `None` or `Missing`.
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

/// Whether a document without the field reads: serde gives it a default.
fn reads_back_absent(model: &Model, field: &Field) -> bool {
    field.json.default || model.serde.default || (is_option_like(field) && !field.json.custom_read)
}

/// Every field left out must read back, and be written at all.
pub fn check(model: &Model, errors: &mut darling::error::Accumulator) {
    // A flattened field is refused on its own (`valid.rs`).
    for field in model
        .fields
        .iter()
        .filter(|field| field.json.flatten.is_none())
    {
        let Some(rule) = rule(model, field) else {
            continue;
        };
        let name = field.name();
        if let Rule::Field(options) = rule
            && let Some((_, skip)) = field.json.skip.filter(|_| field.json.serialize.is_none())
        {
            errors.push(
                darling::Error::custom(format!(
                    "`skip_empty` has nothing to leave out: `#[serde({skip})]` never writes `{name}`"
                ))
                .with_span(&options.span),
            );
            continue;
        }
        if reads_back_absent(model, field) {
            continue;
        }
        let what = if rule.options().default {
            "empty or equal to its default"
        } else {
            "empty"
        };
        let error = match rule {
            Rule::Field(options) => darling::Error::custom(format!(
                "`skip_empty` leaves `{name}` out of the stored JSON when it is {what}, and a document without \
                 `{name}` would not read back: add `#[serde(default)]` to the field"
            ))
            .with_span(&options.span),
            Rule::Model(_) => darling::Error::custom(format!(
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
