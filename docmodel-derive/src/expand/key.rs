//! The key template constant, `Model::key(parts...)`, the trait's `write_key` and `parse_key_parts`, and the
//! writers of lookup keys: all built by one function over a template.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, Type};

use super::local;
use crate::ast::{Complete, Field, Model, Pattern, simple_type_name};
use crate::template::{Segment, Template};

/// The room a part usually takes in a key: the digits of `u64::MAX`, or a short string.
const PART_CAPACITY: usize = 20;

const UNSIGNED: [&str; 6] = ["u8", "u16", "u32", "u64", "u128", "usize"];
const SIGNED: [&str; 6] = ["i8", "i16", "i32", "i64", "i128", "isize"];

/// How a part is passed to `Model::key`.
enum PartKind {
    /// By value: integers.
    Integer { signed: bool },
    /// As `&str`.
    Text,
    /// As `&T`.
    Other,
}

struct Part<'a> {
    field: &'a Field<'a>,
    kind: PartKind,
}

impl Part<'_> {
    fn param_type(&self) -> TokenStream {
        let ty = self.field.ty;
        match self.kind {
            PartKind::Integer { .. } => quote!(#ty),
            PartKind::Text => quote!(&str),
            PartKind::Other => quote!(&#ty),
        }
    }
}

fn kind(field: &Field) -> PartKind {
    match simple_type_name(field.ty).as_deref() {
        Some(name) if UNSIGNED.contains(&name) => PartKind::Integer { signed: false },
        Some(name) if SIGNED.contains(&name) => PartKind::Integer { signed: true },
        Some("String") => PartKind::Text,
        _ => PartKind::Other,
    }
}

fn parts<'a>(model: &'a Model<'a>, template: &Template) -> Vec<Part<'a>> {
    template
        .parts()
        .filter_map(|name| model.field(name))
        .map(|field| Part {
            field,
            kind: kind(field),
        })
        .collect()
}

/// Whether building from `template` can fail: only when a part may be empty or hold a delimiter character.
fn is_fallible(template: &Template, parts: &[Part]) -> bool {
    parts.iter().any(|part| match part.kind {
        PartKind::Integer { signed } => signed && template.delimiter.contains('-'),
        PartKind::Text | PartKind::Other => true,
    })
}

/// A `KeyTemplate` constant expression.
fn template_tokens(model: &Model, pattern: &Pattern) -> TokenStream {
    let Pattern { template, lit } = pattern;
    let delimiter = &template.delimiter;
    let segments = template.segments.iter().map(|segment| match segment {
        Segment::Literal(text) => quote!(__docmodel_private::Segment::Literal(#text)),
        // An integer part tells the runtime so: its keys hold only digits (`keyspace::check` reads it).
        Segment::Part(name) => match model.field(name).map(kind) {
            Some(PartKind::Integer { signed }) => quote! {
                __docmodel_private::Segment::Integer { name: #name, signed: #signed }
            },
            _ => quote!(__docmodel_private::Segment::Part(#name)),
        },
    });
    let constructor = if model.allow_control_chars_in_keys {
        quote!(key_template_allowing_any_text)
    } else {
        quote!(key_template)
    };
    quote! {
        __docmodel_private::#constructor(#lit, #delimiter, &[#(#segments),*])
    }
}

pub fn template(model: &Complete) -> TokenStream {
    template_tokens(model, model.key)
}

/// The statements that append a key built from `template` to `buf`: adjacent literals and delimiters as one
/// string, each part checked against `checked_by` (the runtime's template) unless it cannot be wrong.
/// `part_ref` gives a reference to each part's value. Returns them with the capacity the key usually needs.
fn writing_steps(
    template: &Template,
    checked_by: &TokenStream,
    parts: &[Part],
    buf: &Ident,
    part_ref: impl Fn(&Part) -> TokenStream,
) -> (Vec<TokenStream>, usize) {
    let fallible = is_fallible(template, parts);
    let out = local("__out");
    let mut steps = Vec::new();
    let mut pending = String::new();
    let mut capacity = 0;
    let mut parts_iter = parts.iter();
    for (i, segment) in template.segments.iter().enumerate() {
        if i > 0 {
            pending.push_str(&template.delimiter);
        }
        let Segment::Part(_) = segment else {
            if let Segment::Literal(text) = segment {
                pending.push_str(text);
            }
            continue;
        };
        let Some(part) = parts_iter.next() else {
            continue;
        };
        if !pending.is_empty() {
            capacity += pending.len();
            steps.push(quote!(#buf.push_str(#pending);));
            pending.clear();
        }
        capacity += PART_CAPACITY;
        let value = part_ref(part);
        let name = part.field.name();
        // An integer part that cannot hold a delimiter character is written as it is, in a key with text
        // parts too: only a text part, or a signed integer under a delimiter with `-`, needs checking.
        steps.push(match (&part.kind, fallible && is_fallible(template, std::slice::from_ref(part))) {
            (PartKind::Integer { .. }, false) => quote!(_docmodel::KeyPart::write_part(#value, #buf);),
            (PartKind::Integer { .. } | PartKind::Text, _) => {
                quote!(__docmodel_private::push_part(#buf, &#checked_by, <Self as _docmodel::DocModel>::TYPE, #name, #value)?;)
            }
            (PartKind::Other, _) => {
                let fns = part_fns_name(part.field);
                quote! {
                    __docmodel_private::push_part_with(
                        #buf, &#checked_by, <Self as _docmodel::DocModel>::TYPE, #name, |#out| (Self::#fns.0)(#value, #out),
                    )?;
                }
            }
        });
    }
    if !pending.is_empty() {
        capacity += pending.len();
        steps.push(quote!(#buf.push_str(#pending);));
    }
    (steps, capacity)
}

/// `pub fn key(part: T, ...) -> Key<Self>` (or `Result<Key<Self>, Error>` when a part can be invalid).
pub fn constructor(model: &Complete) -> TokenStream {
    let text = local("__text");
    let buf = local("__buf");
    let parts = parts(model, &model.key.template);
    let fallible = is_fallible(&model.key.template, &parts);
    let vis = model.vis;
    let params = parts.iter().map(|part| {
        let ident = part.field.ident;
        let ty = part.param_type();
        quote!(#ident: #ty)
    });
    let (steps, capacity) = writing_steps(
        &model.key.template,
        &quote!(<Self as _docmodel::DocModel>::KEY),
        &parts,
        &buf,
        |part| {
            let ident = part.field.ident;
            match part.kind {
                PartKind::Integer { .. } => quote!(&#ident),
                PartKind::Text | PartKind::Other => quote!(#ident),
            }
        },
    );
    let doc = constructor_doc(model, fallible);
    let (ret, finish) = if fallible {
        (
            quote!(::core::result::Result<_docmodel::Key<Self>, _docmodel::Error>),
            quote!(::core::result::Result::Ok(__docmodel_private::key::<Self>(#text))),
        )
    } else {
        (
            quote!(_docmodel::Key<Self>),
            quote!(__docmodel_private::key::<Self>(#text)),
        )
    };
    quote! {
        #[doc = #doc]
        #[inline]
        #[must_use]
        #vis fn key(#(#params),*) -> #ret {
            let mut #text = __docmodel_private::String::with_capacity(#capacity);
            let #buf = &mut #text;
            #(#steps)*
            #finish
        }
    }
}

fn constructor_doc(model: &Complete, fallible: bool) -> String {
    let mut doc = format!(
        "Builds the key `{}` of a `{}` document from its parts, without an instance.",
        model.key.lit.value(),
        model.type_name.value()
    );
    doc.push_str(
        " `DocModel::doc_key` gives the key of a value.\n\nA key of integer parts cannot be \
         invalid, so it is returned as it is (a signed part under a delimiter holding `-` excepted); any \
         other part makes it a `Result`, since its text could be empty or hold the delimiter.",
    );
    if fallible {
        doc.push_str(&format!(
            "\n\n# Errors\n\n`docmodel::Error::InvalidKey` when a part is empty or contains \
             a character of the key's delimiter (`{}`), so that a key never silently changes.",
            model.key.template.delimiter
        ));
    }
    doc
}

/// `type KeyParts`, `KEY_CAPACITY`, `fn write_key`, `fn parse_key_parts` and `LOOKUPS` of the `DocModel` impl.
pub fn trait_items(model: &Complete) -> TokenStream {
    let key_var = local("__key");
    let parts = parts(model, &model.key.template);
    let types: Vec<&Type> = parts.iter().map(|part| part.field.ty).collect();
    let buf = local("__buf");
    let (steps, capacity) = writing_steps(
        &model.key.template,
        &quote!(Self::KEY),
        &parts,
        &buf,
        |part| {
            let ident = part.field.ident;
            quote!(&self.#ident)
        },
    );
    let done = quote!(::core::result::Result::Ok(()));

    let count = parts.len();
    let vars: Vec<Ident> = (0..count).map(|i| local(&format!("__part{i}"))).collect();
    let parsed = parts.iter().zip(&vars).map(|(part, var)| {
        let ty = part.field.ty;
        let name = part.field.name();
        match part.kind {
            PartKind::Other => {
                let fns = part_fns_name(part.field);
                quote!(__docmodel_private::parse_part_with::<#ty>(#var, #key_var, Self::TYPE, #name, Self::#fns.1)?)
            }
            PartKind::Integer { .. } | PartKind::Text => {
                quote!(__docmodel_private::parse_part::<#ty>(#var, #key_var, Self::TYPE, #name)?)
            }
        }
    });
    let lookups = lookups(model);
    let fill = fill_from_key(&parts, &vars, &key_var);
    quote! {
        type KeyParts = (#(#types,)*);

        #fill

        const KEY_CAPACITY: usize = #capacity;

        #lookups

        #[inline]
        fn write_key(&self, #buf: &mut __docmodel_private::String) -> ::core::result::Result<(), _docmodel::Error> {
            #(#steps)*
            #done
        }

        // Inline, like serde's generic impls: compiled where a key is parsed, not in every crate of models.
        #[inline]
        fn parse_key_parts(#key_var: &str) -> ::core::result::Result<Self::KeyParts, _docmodel::Error> {
            let [#(#vars),*] = __docmodel_private::split_key::<#count>(&Self::KEY, Self::TYPE, #key_var)?;
            ::core::result::Result::Ok((#(#parsed,)*))
        }
    }
}

/// `const LOOKUPS`: each lookup template with a writer of its key, as a closure over the body.
fn lookups(model: &Model) -> TokenStream {
    if model.lookups.is_empty() {
        return TokenStream::new();
    }
    let (body, buf) = (local("__body"), local("__buf"));
    let entries = model.lookups.iter().map(|lookup| {
        let template = &lookup.pattern.template;
        let parts = parts(model, template);
        let template_tokens = template_tokens(model, &lookup.pattern);
        let checked_by = quote!(__TEMPLATE);
        let ref_id = lookup.ref_id.is_some();
        let (steps, _) = writing_steps(template, &checked_by, &parts, &buf, |part| {
            let ident = part.field.ident;
            quote!(&#body.#ident)
        });
        quote! {
            {
                const __TEMPLATE: _docmodel::KeyTemplate = #template_tokens;
                __docmodel_private::Lookup {
                    template: __TEMPLATE,
                    write: |#body: &Self, #buf: &mut __docmodel_private::String| {
                        #(#steps)*
                        ::core::result::Result::Ok(())
                    },
                    ref_id: #ref_id,
                }
            }
        }
    });
    quote! {
        const LOOKUPS: &'static [__docmodel_private::Lookup<Self>] = &[#(#entries),*];
    }
}

/// `KEY_ONLY_PARTS` and `fn fill_from_key`, for a model with `from_key` fields: each is set from its part of
/// the key a document is read under.
fn fill_from_key(parts: &[Part], vars: &[Ident], key_var: &Ident) -> TokenStream {
    if parts.iter().all(|part| part.field.from_key.is_none()) {
        return TokenStream::new();
    }
    let bindings = parts
        .iter()
        .zip(vars)
        .map(|(part, var)| match part.field.from_key {
            Some(_) => quote!(#var),
            None => quote!(_),
        });
    let assigns = parts
        .iter()
        .zip(vars)
        .filter(|(part, _)| part.field.from_key.is_some())
        .map(|(part, var)| {
            let ident = part.field.ident;
            quote!(self.#ident = #var;)
        });
    quote! {
        const KEY_ONLY_PARTS: bool = true;

        fn fill_from_key(&mut self, #key_var: &str) -> ::core::result::Result<(), _docmodel::Error> {
            let (#(#bindings,)*) = <Self as _docmodel::DocModel>::parse_key_parts(#key_var)?;
            #(#assigns)*
            ::core::result::Result::Ok(())
        }
    }
}

fn part_fns_name(field: &Field) -> Ident {
    format_ident!("__DOCMODEL_KEY_PART_{}", field.name().to_uppercase())
}

/// For each key or lookup part of a type the derive does not know, one hidden constant holding its `KeyPart`
/// writer and parser. The type is named there alone, so a type that is not a `KeyPart` is one error, at the
/// field's type.
pub fn part_fns(model: &Complete) -> TokenStream {
    let mut names: Vec<&str> = model.key.template.parts().collect();
    for lookup in &model.lookups {
        names.extend(
            lookup
                .pattern
                .template
                .parts()
                .filter(|name| !names.contains(name))
                .collect::<Vec<_>>(),
        );
    }
    names
        .into_iter()
        .filter_map(|name| model.field(name))
        .filter(|field| matches!(kind(field), PartKind::Other))
        .map(|field| {
            let ty = field.ty;
            let name = part_fns_name(field);
            let fns = quote_spanned! {ty.span()=>
                (<#ty as _docmodel::KeyPart>::write_part, <#ty as _docmodel::KeyPart>::parse_part)
            };
            quote! {
                #[doc(hidden)]
                const #name: __docmodel_private::PartFns<#ty> = #fns;
            }
        })
        .collect()
}
