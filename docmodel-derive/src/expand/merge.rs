//! `const MERGE`: the model's merge rules from its checked `merge` declarations, a field's function wrapped
//! to read and write the field as its own serde attributes say.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::Field;
use crate::merge::{MergeDecl, RuleDecl};
use crate::serde_names::{Absent, DefaultValue};

/// The runtime's `MergeRule` for `rule`, of `field` (for a function's wrapper; `None` on the model).
fn rule_tokens(rule: &RuleDecl<'_>, field: Option<&Field>) -> TokenStream {
    match rule {
        RuleDecl::Named(name) => {
            let variant = syn::Ident::new(
                &format!("{}{}", name[..1].to_uppercase(), &name[1..]),
                Span::call_site(),
            );
            quote!(_docmodel::merge::MergeRule::#variant)
        }
        RuleDecl::Union(order_by) => {
            let order_by = match order_by {
                Some(field) => quote!(::core::option::Option::Some(#field)),
                None => quote!(::core::option::Option::None),
            };
            quote!(_docmodel::merge::MergeRule::Union { order_by: #order_by })
        }
        RuleDecl::With(path) => {
            // A function is refused on the model (`MergeDecl::model`).
            let Some(field) = field else {
                return TokenStream::new();
            };
            let ty = field.ty;
            // At the path, so that a function of the wrong shape is reported where it is named.
            let merge = quote_spanned! {path.span()=>
                #[allow(clippy::type_complexity)]
                let __merge: fn(::core::option::Option<#ty>, #ty, #ty) -> #ty = #path;
            };
            let codec = codec(field);
            quote! {
                _docmodel::merge::MergeRule::Custom(|__base, __ours, __theirs| {
                    #merge
                    __docmodel_private::typed_merge::<#ty>(__merge, #codec, __base, __ours, __theirs)
                })
            }
        }
    }
}

/// How `field` is read and written, by its own serde attributes (`FieldNames`): a `FieldCodec` for its
/// merge function.
fn codec(field: &Field) -> TokenStream {
    let ty = field.ty;
    let json = &field.json;
    let path = |text: &str| syn::parse_str::<syn::ExprPath>(text).ok();
    let read = match json.read_with.as_deref().and_then(path) {
        Some(read) => quote!(|__value| #read(__value)),
        None => {
            quote!(|__value| <#ty as __docmodel_private::serde::Deserialize>::deserialize(__value))
        }
    };
    let write = match json.write_with.as_deref().and_then(path) {
        Some(write) => {
            quote!(|__value| #write(__value, __docmodel_private::serde_json::value::Serializer))
        }
        None => quote!(|__value| __docmodel_private::serde_json::to_value(__value)),
    };
    let ident = field.ident;
    let value = |default: &DefaultValue| match default {
        DefaultValue::Trait => quote!(<#ty as ::core::default::Default>::default()),
        DefaultValue::Path(text) => match path(text) {
            Some(function) => quote!(#function()),
            None => quote!(<#ty as ::core::default::Default>::default()),
        },
    };
    let absent = match &json.absent {
        Absent::Refused => quote!(::core::option::Option::None),
        Absent::Field(default) => {
            let value = value(default);
            quote!(::core::option::Option::Some(|| #value))
        }
        Absent::Container(default) => {
            // The struct's default, given its type as serde gives it (`default = "Default::default"`).
            let whole = match default {
                DefaultValue::Trait => quote!(<Self as ::core::default::Default>::default()),
                DefaultValue::Path(text) => match path(text) {
                    Some(function) => quote!(#function()),
                    None => quote!(<Self as ::core::default::Default>::default()),
                },
            };
            quote!(::core::option::Option::Some(|| {
                let __whole: Self = #whole;
                __whole.#ident
            }))
        }
        Absent::Empty => {
            quote!(::core::option::Option::Some(<#ty as ::core::default::Default>::default))
        }
    };
    quote! {
        __docmodel_private::FieldCodec::<#ty> {
            read: #read,
            write: #write,
            absent: #absent,
        }
    }
}

/// `const MERGE`, when the model or a field has a `merge`: `fields` are those with one, stored under a name.
pub fn trait_items<'a>(
    default: Option<&MergeDecl<'_>>,
    fields: impl Iterator<Item = &'a Field<'a>>,
) -> TokenStream {
    let fields: Vec<TokenStream> = fields
        .filter_map(|field| {
            Some((
                field.json.serialize.as_deref()?,
                field,
                field.merge.as_ref()?,
            ))
        })
        .map(|(name, field, decl)| {
            let rule = decl.rule.as_ref().map(|rule| {
                let rule = rule_tokens(rule, Some(field));
                quote!(.rule(#rule))
            });
            let by = decl.by.map(|by| quote!(.by(#by)));
            quote!(_docmodel::merge::FieldMerge::new(#name) #rule #by)
        })
        .collect();
    let default = default.and_then(|decl| decl.rule.as_ref()).map(|rule| {
        let rule = rule_tokens(rule, None);
        quote!(.default_rule(#rule))
    });
    if fields.is_empty() && default.is_none() {
        return TokenStream::new();
    }
    quote! {
        const MERGE: _docmodel::merge::MergeRules = _docmodel::merge::MergeRules::NONE
            #default
            .fields(&[#(#fields),*]);
    }
}
