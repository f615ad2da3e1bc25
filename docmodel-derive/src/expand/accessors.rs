//! Getters, setters (with their validation hook) and `push` for `Vec` fields, each documented with the
//! field's own `///` docs.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, Type};

use super::local;
use super::path_text;
use crate::ast::{Complete, Field, Model, generic_argument, simple_type_name};

const BY_VALUE: [&str; 16] = [
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64", "bool", "char",
];

pub fn expand(model: &Complete) -> TokenStream {
    model
        .fields
        .iter()
        .map(|field| field_accessors(model, field))
        .collect()
}

fn field_accessors(model: &Model, field: &Field) -> TokenStream {
    let mut out = TokenStream::new();
    let docs = &field.docs;
    if let Some(get) = &field.get {
        out.extend(getter(model, field, docs, get.copy));
    }
    if let Some(set) = &field.set {
        out.extend(setter(model, field, docs, set.with));
    }
    if let Some(push) = field.push {
        out.extend(pusher(
            model,
            field,
            push,
            field.set.as_ref().and_then(|set| set.with),
        ));
    }
    out
}

/// The user's `///` lines, a blank line, then what the accessor does.
fn with_docs(docs: &[&Attribute], generated: String) -> TokenStream {
    let separator = (!docs.is_empty()).then(|| quote!(#[doc = ""]));
    quote!(#(#docs)* #separator #[doc = #generated])
}

fn json_name(field: &Field) -> String {
    match &field.json.serialize {
        Some(name) => format!(" (stored as `\"{name}\"`)"),
        None => String::new(),
    }
}

/// A number, `bool` or `char`: returned and taken by value.
fn is_by_value(ty: &Type) -> bool {
    simple_type_name(ty).is_some_and(|name| BY_VALUE.contains(&name.as_str()))
}

fn getter(model: &Model, field: &Field, docs: &[&Attribute], copy: bool) -> TokenStream {
    let vis = model.vis;
    let ident = field.ident;
    let ty = field.ty;
    let (ret, body) = if copy || is_by_value(ty) {
        (quote!(#ty), quote!(self.#ident))
    } else if simple_type_name(ty).as_deref() == Some("String") {
        (quote!(&str), quote!(&self.#ident))
    } else if let Some(item) = generic_argument(ty, "Vec") {
        (quote!(&[#item]), quote!(&self.#ident))
    } else if let Some(inner) = generic_argument(ty, "Option") {
        if simple_type_name(inner).as_deref() == Some("String") {
            (
                quote!(::core::option::Option<&str>),
                quote!(self.#ident.as_deref()),
            )
        } else {
            (
                quote!(::core::option::Option<&#inner>),
                quote!(self.#ident.as_ref()),
            )
        }
    } else {
        (quote!(&#ty), quote!(&self.#ident))
    };
    let docs = with_docs(
        docs,
        format!("Returns `{}`{}.", field.name(), json_name(field)),
    );
    quote! {
        #docs
        #[inline]
        #[must_use]
        #vis fn #ident(&self) -> #ret {
            #body
        }
    }
}

fn setter(
    model: &Model,
    field: &Field,
    docs: &[&Attribute],
    with: Option<&syn::Path>,
) -> TokenStream {
    let (value, with_fn) = (local("value"), local("__with"));
    let vis = model.vis;
    let ident = field.ident;
    let ty = field.ty;
    let name = field.name();
    let setter = format_ident!("set_{}", name, span = ident.span());
    // A number, `bool` or `char` is taken as itself, so that a literal takes the field's type
    // (`set_count(1)` for a `u64`); anything else as whatever converts into it (`&str` for a `String`).
    let (param, converted) = if is_by_value(ty) {
        (quote!(#ty), quote!(#value))
    } else {
        (
            quote!(impl ::core::convert::Into<#ty>),
            quote!(::core::convert::Into::into(#value)),
        )
    };
    let Some(with) = with else {
        let docs = with_docs(docs, format!("Sets `{name}`{}.", json_name(field)));
        return quote! {
            #docs
            #[inline]
            #vis fn #setter(&mut self, #value: #param) {
                self.#ident = #converted;
            }
        };
    };
    let check = checked(with, ty);
    let docs = with_docs(
        docs,
        format!(
            "Sets `{name}`{} after passing the value through `{}`, which may normalize it.\n\n# Errors\n\n\
             The error of `{}`; the field is left unchanged.",
            json_name(field),
            path_text(with),
            path_text(with)
        ),
    );
    quote! {
        #docs
        #[inline]
        #vis fn #setter(&mut self, #value: #param) -> ::core::result::Result<(), _docmodel::Error> {
            #check
            self.#ident = #with_fn(#converted)?;
            ::core::result::Result::Ok(())
        }
    }
}

fn pusher(
    model: &Model,
    field: &Field,
    push: &syn::Ident,
    with: Option<&syn::Path>,
) -> TokenStream {
    let (item, next, with_fn) = (local("item"), local("__next"), local("__with"));
    // `valid.rs` has refused `push` on a field that is not a `Vec`.
    let Some(item_ty) = field.vec_item() else {
        return TokenStream::new();
    };
    let vis = model.vis;
    let ident = field.ident;
    let name = field.name();
    let Some(with) = with else {
        let docs = format!("Appends an element to `{name}`{}.", json_name(field));
        return quote! {
            #[doc = #docs]
            #[inline]
            #vis fn #push(&mut self, #item: impl ::core::convert::Into<#item_ty>) {
                self.#ident.push(#item.into());
            }
        };
    };
    let check = checked(with, field.ty);
    let docs = format!(
        "Appends an element to `{name}`{}, passing the whole list through `{}` as the setter does.\n\n# Errors\n\n\
         The error of `{}`; the list is left unchanged.",
        json_name(field),
        path_text(with),
        path_text(with)
    );
    quote! {
        #[doc = #docs]
        #vis fn #push(&mut self, #item: impl ::core::convert::Into<#item_ty>) -> ::core::result::Result<(), _docmodel::Error> {
            #check
            let mut #next = ::core::clone::Clone::clone(&self.#ident);
            #next.push(#item.into());
            self.#ident = #with_fn(#next)?;
            ::core::result::Result::Ok(())
        }
    }
}

/// `let __with: fn(T) -> Result<T, Error> = path;`, spanned so a wrong signature is reported at the path.
fn checked(with: &syn::Path, ty: &Type) -> TokenStream {
    let with_fn = local("__with");
    quote_spanned! {with.span()=>
        let #with_fn: fn(#ty) -> ::core::result::Result<#ty, _docmodel::Error> = #with;
    }
}
