//! The JSON names serde gives a struct's fields, read from `#[serde(...)]` the way serde_derive reads them,
//! so the derive can refuse a body field that collides with an envelope field.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Ident, LitStr};

/// `rename_all` of the container, for serialization and deserialization.
#[derive(Default)]
pub struct Container {
    serialize: Option<RenameRule>,
    deserialize: Option<RenameRule>,
    /// `#[serde(tag = "...")]`: serde writes this name into the object too.
    pub tag: Option<LitStr>,
    /// `#[serde(transparent)]`: the struct is stored as its one field.
    pub transparent: Option<Span>,
    /// `#[serde(default)]` or `default = "..."` on the struct: every field reads back when absent.
    pub default: bool,
}

/// The names a field takes in JSON.
pub struct FieldNames {
    /// The name it is written under; `None` when it is never written.
    pub serialize: Option<String>,
    /// The names it is read from (its name and aliases); empty when it is never read.
    pub deserialize: Vec<String>,
    /// `#[serde(flatten)]`, where it was written.
    pub flatten: Option<Span>,
    /// The first `#[serde(skip)]`, `skip_serializing` or `skip_deserializing`, where it was written.
    pub skip: Option<(Span, &'static str)>,
    /// `#[serde(with = ...)]` or `serialize_with`: the stored JSON is not the Rust type's own.
    pub custom: bool,
    /// `#[serde(with = ...)]` or `deserialize_with`: the field is not read by its type's own reader.
    pub custom_read: bool,
    /// The module of `#[serde(with = "...")]`, as written.
    pub with: Option<String>,
    /// `#[serde(default)]` or `default = "..."` on the field.
    pub default: bool,
    /// `#[serde(skip_serializing_if = "...")]`: the field is sometimes left out of the stored JSON.
    pub skip_serializing_if: bool,
}

impl Container {
    pub fn from_attrs(attrs: &[Attribute]) -> syn::Result<Self> {
        let mut container = Container::default();
        for attr in attrs.iter().filter(|attr| attr.path().is_ident("serde")) {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("rename_all") {
                    let (serialize, deserialize) = ser_de_values(&meta)?;
                    if let Some(rule) = serialize {
                        container.serialize = RenameRule::from_lit(&rule)?;
                    }
                    if let Some(rule) = deserialize {
                        container.deserialize = RenameRule::from_lit(&rule)?;
                    }
                    Ok(())
                } else if meta.path.is_ident("tag") {
                    container.tag = Some(meta.value()?.parse()?);
                    Ok(())
                } else if meta.path.is_ident("transparent") {
                    container.transparent = Some(meta.path.span());
                    Ok(())
                } else if meta.path.is_ident("default") {
                    container.default = true;
                    skip_meta(&meta)
                } else {
                    skip_meta(&meta)
                }
            })?;
        }
        Ok(container)
    }

    pub fn field_names(&self, ident: &Ident, attrs: &[Attribute]) -> syn::Result<FieldNames> {
        let rust_name = ident.to_string();
        let rust_name = rust_name
            .strip_prefix("r#")
            .unwrap_or(&rust_name)
            .to_owned();
        let mut serialize = Some(RenameRule::apply_opt(self.serialize, &rust_name));
        let mut deserialize = vec![RenameRule::apply_opt(self.deserialize, &rust_name)];
        let mut flatten = None;
        let mut skip = None;
        let mut custom = false;
        let mut custom_read = false;
        let mut with = None;
        let mut default = false;
        let mut skip_serializing_if = false;
        let (mut skip_ser, mut skip_de) = (false, false);
        for attr in attrs.iter().filter(|attr| attr.path().is_ident("serde")) {
            attr.parse_nested_meta(|meta| {
                let path = &meta.path;
                if path.is_ident("rename") {
                    let (ser, de) = ser_de_values(&meta)?;
                    if let Some(name) = ser {
                        serialize = Some(name.value());
                    }
                    if let Some(name) = de {
                        deserialize[0] = name.value();
                    }
                } else if path.is_ident("alias") {
                    deserialize.push(meta.value()?.parse::<LitStr>()?.value());
                } else if path.is_ident("skip") {
                    (skip_ser, skip_de) = (true, true);
                    skip.get_or_insert((path.span(), "skip"));
                } else if path.is_ident("skip_serializing") {
                    skip_ser = true;
                    skip.get_or_insert((path.span(), "skip_serializing"));
                } else if path.is_ident("skip_deserializing") {
                    skip_de = true;
                    skip.get_or_insert((path.span(), "skip_deserializing"));
                } else if path.is_ident("flatten") {
                    flatten = Some(path.span());
                } else if path.is_ident("with") {
                    (custom, custom_read) = (true, true);
                    with = Some(meta.value()?.parse::<LitStr>()?.value());
                } else if path.is_ident("serialize_with") {
                    custom = true;
                    skip_meta(&meta)?;
                } else if path.is_ident("deserialize_with") {
                    custom_read = true;
                    skip_meta(&meta)?;
                } else if path.is_ident("default") {
                    default = true;
                    skip_meta(&meta)?;
                } else if path.is_ident("skip_serializing_if") {
                    skip_serializing_if = true;
                    skip_meta(&meta)?;
                } else {
                    skip_meta(&meta)?;
                }
                Ok(())
            })?;
        }
        if skip_ser {
            serialize = None;
        }
        if skip_de {
            deserialize.clear();
        }
        Ok(FieldNames {
            serialize,
            deserialize,
            flatten,
            skip,
            custom,
            custom_read,
            with,
            default,
            skip_serializing_if,
        })
    }
}

/// `name = "x"` or `name(serialize = "x", deserialize = "y")`.
fn ser_de_values(meta: &ParseNestedMeta) -> syn::Result<(Option<LitStr>, Option<LitStr>)> {
    if meta.input.peek(syn::Token![=]) {
        let value: LitStr = meta.value()?.parse()?;
        return Ok((Some(value.clone()), Some(value)));
    }
    let (mut serialize, mut deserialize) = (None, None);
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("serialize") {
            serialize = Some(inner.value()?.parse()?);
        } else if inner.path.is_ident("deserialize") {
            deserialize = Some(inner.value()?.parse()?);
        } else {
            skip_meta(&inner)?;
        }
        Ok(())
    })?;
    Ok((serialize, deserialize))
}

/// Consumes a serde option docmodel does not need; serde_derive checks it.
fn skip_meta(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip_meta(&inner))?;
    }
    Ok(())
}

/// serde's `rename_all` rules.
#[derive(Clone, Copy)]
enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    fn from_lit(lit: &LitStr) -> syn::Result<Option<Self>> {
        Ok(Some(match lit.value().as_str() {
            "lowercase" => RenameRule::Lower,
            "UPPERCASE" => RenameRule::Upper,
            "PascalCase" => RenameRule::Pascal,
            "camelCase" => RenameRule::Camel,
            "snake_case" => RenameRule::Snake,
            "SCREAMING_SNAKE_CASE" => RenameRule::ScreamingSnake,
            "kebab-case" => RenameRule::Kebab,
            "SCREAMING-KEBAB-CASE" => RenameRule::ScreamingKebab,
            // serde_derive reports an unknown rule itself.
            _ => return Ok(None),
        }))
    }

    fn apply_opt(rule: Option<Self>, field: &str) -> String {
        match rule {
            Some(rule) => rule.apply(field),
            None => field.to_owned(),
        }
    }

    /// serde_derive's `RenameRule::apply_to_field`.
    fn apply(self, field: &str) -> String {
        match self {
            RenameRule::Lower | RenameRule::Snake => field.to_owned(),
            RenameRule::Upper | RenameRule::ScreamingSnake => field.to_ascii_uppercase(),
            RenameRule::Pascal => {
                let mut out = String::new();
                let mut capitalize = true;
                for c in field.chars() {
                    if c == '_' {
                        capitalize = true;
                    } else if capitalize {
                        out.push(c.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        out.push(c);
                    }
                }
                out
            }
            RenameRule::Camel => {
                let pascal = RenameRule::Pascal.apply(field);
                let mut chars = pascal.chars();
                chars
                    .next()
                    .map(|first| first.to_ascii_lowercase().to_string() + chars.as_str())
                    .unwrap_or_default()
            }
            RenameRule::Kebab => field.replace('_', "-"),
            RenameRule::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_like_serde() {
        assert_eq!(RenameRule::Camel.apply("first_name"), "firstName");
        assert_eq!(RenameRule::Pascal.apply("first_name"), "FirstName");
        assert_eq!(RenameRule::ScreamingKebab.apply("first_name"), "FIRST-NAME");
        assert_eq!(RenameRule::Camel.apply("_type"), "type");
    }
}
