//! What serde does with a struct's fields, read from `#[serde(...)]` the way serde_derive reads them: the
//! names each is written under and read from, how it is written and read, and what a document without it
//! reads as ([`Absent`]). Every generator of the derive asks these answers (the omit check, the JSON Schema
//! and the CouchDB guard, the lock, typed merges, the rustdoc); none reads serde's attributes itself.

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
    pub default: Option<DefaultValue>,
}

/// Where a serde default comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DefaultValue {
    /// `default`: the type's `Default`.
    Trait,
    /// `default = "path"`: the function at the path.
    Path(String),
}

/// What a document without the field reads as, by serde_derive's rule (`expr_is_missing`): the field's
/// default, then the container's, then `None` for an `Option` (and `Missing` for docmodel's `Presence`)
/// read by its own deserializer; otherwise serde refuses the document ("missing field").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Absent {
    /// The document does not read.
    Refused,
    /// The field's default (`#[serde(default)]`, `default = "path"`), or its type's `Default` when it is never
    /// read (`skip_deserializing`).
    Field(DefaultValue),
    /// The container's default: this field of the struct's `Default::default()` (or of `default = "path"`).
    Container(DefaultValue),
    /// `None` of an `Option`, `Missing` of a `Presence`: the type's `Default`.
    Empty,
}

impl Absent {
    /// Whether a document without the field reads.
    pub fn reads(&self) -> bool {
        !matches!(self, Absent::Refused)
    }
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
    /// The module of `#[serde(with = "...")]`, as written.
    pub with: Option<String>,
    /// The function that writes it, where not its type's `Serialize`: `serialize_with`, or `with`'s
    /// `serialize`.
    pub write_with: Option<String>,
    /// The function that reads it, where not its type's `Deserialize`: `deserialize_with`, or `with`'s
    /// `deserialize`.
    pub read_with: Option<String>,
    /// `#[serde(skip_serializing_if = "...")]`, where it was written, and its function: the field is sometimes
    /// left out of the stored JSON.
    pub skip_serializing_if: Option<(Span, String)>,
    /// What a document without the field reads as.
    pub absent: Absent,
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
                    container.default = Some(default_value(&meta)?);
                    Ok(())
                } else {
                    skip_meta(&meta)
                }
            })?;
        }
        Ok(container)
    }

    /// The answers for the field `ident` of type `ty`, from its attributes.
    pub fn field_names(
        &self,
        ident: &Ident,
        ty: &syn::Type,
        attrs: &[Attribute],
    ) -> syn::Result<FieldNames> {
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
        let mut with = None;
        let mut write_with = None;
        let mut read_with = None;
        let mut default = None;
        let mut skip_serializing_if = None;
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
                    custom = true;
                    let module = meta.value()?.parse::<LitStr>()?.value();
                    write_with = Some(format!("{module}::serialize"));
                    read_with = Some(format!("{module}::deserialize"));
                    with = Some(module);
                } else if path.is_ident("serialize_with") {
                    custom = true;
                    write_with = Some(meta.value()?.parse::<LitStr>()?.value());
                } else if path.is_ident("deserialize_with") {
                    read_with = Some(meta.value()?.parse::<LitStr>()?.value());
                } else if path.is_ident("default") {
                    default = Some(default_value(&meta)?);
                } else if path.is_ident("skip_serializing_if") {
                    let span = path.span();
                    skip_serializing_if = Some((span, meta.value()?.parse::<LitStr>()?.value()));
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
        let absent = match (default, &self.default) {
            (Some(default), _) => Absent::Field(default),
            (None, Some(default)) => Absent::Container(default.clone()),
            // Never read: serde gives it its type's `Default`.
            (None, None) if skip_de => Absent::Field(DefaultValue::Trait),
            (None, None) if read_with.is_none() && optional_type(ty) => Absent::Empty,
            (None, None) => Absent::Refused,
        };
        Ok(FieldNames {
            serialize,
            deserialize,
            flatten,
            skip,
            custom,
            with,
            write_with,
            read_with,
            skip_serializing_if,
            absent,
        })
    }
}

/// `Option<...>` or `Presence<...>`, by the last segment of the path as written: serde reads a missing
/// `Option` as `None` (through `deserialize_option`), and docmodel a missing `Presence` as `Missing`.
fn optional_type(ty: &syn::Type) -> bool {
    let syn::Type::Path(path) = ty else {
        return false;
    };
    path.qself.is_none()
        && path
            .path
            .segments
            .last()
            .is_some_and(|last| last.ident == "Option" || last.ident == "Presence")
}

/// `default` or `default = "path"`.
fn default_value(meta: &ParseNestedMeta) -> syn::Result<DefaultValue> {
    if meta.input.peek(syn::Token![=]) {
        return Ok(DefaultValue::Path(meta.value()?.parse::<LitStr>()?.value()));
    }
    Ok(DefaultValue::Trait)
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

    /// The answers for one field declared in a struct with `container` attributes.
    fn answers(container: &str, field: &str) -> FieldNames {
        let input: syn::DeriveInput =
            syn::parse_str(&format!("{container} struct S {{ {field} }}")).unwrap();
        let syn::Data::Struct(data) = &input.data else {
            unreachable!()
        };
        let declared = data.fields.iter().next().unwrap();
        Container::from_attrs(&input.attrs)
            .unwrap()
            .field_names(
                declared.ident.as_ref().unwrap(),
                &declared.ty,
                &declared.attrs,
            )
            .unwrap()
    }

    /// The struct's attributes, the field, the name written, the names read, what an absence reads as.
    type Row = (
        &'static str,
        &'static str,
        Option<&'static str>,
        &'static [&'static str],
        Absent,
    );

    /// Every serde attribute the derive reads, alone and in the combinations that change an answer: the name
    /// written, the names read, and what a document without the field reads as (serde_derive's
    /// `expr_is_missing`). Where the field sits in each envelope layout is the runtime's one answer
    /// (`envelope::body_attribute`), since a `Conventions` type may set the layout.
    #[test]
    fn each_fields_facts_follow_serde() {
        use Absent::{Container as ByContainer, Empty, Field as ByField, Refused};
        use DefaultValue::{Path as With, Trait};
        let path = |text: &str| With(text.to_owned());
        #[rustfmt::skip]
        let table: Vec<Row> = vec![
            ("", "a: u64", Some("a"), &["a"], Refused),
            ("", "a: String", Some("a"), &["a"], Refused),
            ("", "a: Option<u64>", Some("a"), &["a"], Empty),
            ("", "a: std::option::Option<u64>", Some("a"), &["a"], Empty),
            ("", "a: Presence<u64>", Some("a"), &["a"], Empty),
            ("", "a: Vec<u64>", Some("a"), &["a"], Refused),
            ("", "#[serde(default)] a: u64", Some("a"), &["a"], ByField(Trait)),
            ("", "#[serde(default = \"seven\")] a: u64", Some("a"), &["a"], ByField(path("seven"))),
            ("#[serde(default)]", "a: u64", Some("a"), &["a"], ByContainer(Trait)),
            ("#[serde(default = \"base\")]", "a: u64", Some("a"), &["a"], ByContainer(path("base"))),
            // The field's default comes before the container's.
            ("#[serde(default)]", "#[serde(default = \"seven\")] a: u64", Some("a"), &["a"], ByField(path("seven"))),
            // Read by its own function: serde requires it, an `Option` too.
            ("", "#[serde(with = \"m\")] a: Option<u64>", Some("a"), &["a"], Refused),
            ("", "#[serde(deserialize_with = \"f\")] a: Option<u64>", Some("a"), &["a"], Refused),
            ("", "#[serde(serialize_with = \"f\")] a: Option<u64>", Some("a"), &["a"], Empty),
            ("", "#[serde(with = \"m\", default)] a: Option<u64>", Some("a"), &["a"], ByField(Trait)),
            ("#[serde(default)]", "#[serde(with = \"m\")] a: Option<u64>", Some("a"), &["a"], ByContainer(Trait)),
            // Never read: its type's default; never written: no name.
            ("", "#[serde(skip_deserializing)] a: u64", Some("a"), &[], ByField(Trait)),
            ("", "#[serde(skip_serializing)] a: u64", None, &["a"], Refused),
            ("", "#[serde(skip)] a: u64", None, &[], ByField(Trait)),
            ("", "#[serde(skip, default = \"seven\")] a: u64", None, &[], ByField(path("seven"))),
            // Names.
            ("", "#[serde(rename = \"b\")] a: u64", Some("b"), &["b"], Refused),
            ("", "#[serde(rename(serialize = \"b\"))] a: u64", Some("b"), &["a"], Refused),
            ("", "#[serde(rename(deserialize = \"b\"))] a: u64", Some("a"), &["b"], Refused),
            ("", "#[serde(alias = \"b\", alias = \"c\")] a: u64", Some("a"), &["a", "b", "c"], Refused),
            ("#[serde(rename_all = \"camelCase\")]", "first_name: u64", Some("firstName"), &["firstName"], Refused),
            ("#[serde(rename_all(deserialize = \"PascalCase\"))]", "first_name: u64", Some("first_name"), &["FirstName"], Refused),
            ("", "r#type: u64", Some("type"), &["type"], Refused),
            // Left out by the writer, read as its type reads an absence.
            ("", "#[serde(skip_serializing_if = \"Option::is_none\")] a: Option<u64>", Some("a"), &["a"], Empty),
            ("", "#[serde(default, skip_serializing_if = \"Vec::is_empty\")] a: Vec<u64>", Some("a"), &["a"], ByField(Trait)),
        ];
        for (container, field, written, reads, absent) in table {
            let found = answers(container, field);
            let what = format!("{container} {field}");
            assert_eq!(found.serialize.as_deref(), written, "{what}: written");
            assert_eq!(found.deserialize, reads, "{what}: read");
            assert_eq!(found.absent, absent, "{what}: absent");
        }
        // How it is written and read, and where it is left out.
        let with = answers("", "#[serde(with = \"m\")] a: u64");
        assert_eq!(
            (
                with.custom,
                with.write_with.as_deref(),
                with.read_with.as_deref()
            ),
            (true, Some("m::serialize"), Some("m::deserialize"))
        );
        let own = answers(
            "",
            "#[serde(serialize_with = \"w\", deserialize_with = \"r\")] a: u64",
        );
        assert_eq!(
            (own.write_with.as_deref(), own.read_with.as_deref()),
            (Some("w"), Some("r"))
        );
        let left = answers("", "#[serde(skip_serializing_if = \"f\")] a: u64");
        assert_eq!(
            left.skip_serializing_if.map(|(_, f)| f).as_deref(),
            Some("f")
        );
    }

    #[test]
    fn renames_like_serde() {
        assert_eq!(RenameRule::Camel.apply("first_name"), "firstName");
        assert_eq!(RenameRule::Pascal.apply("first_name"), "FirstName");
        assert_eq!(RenameRule::ScreamingKebab.apply("first_name"), "FIRST-NAME");
        assert_eq!(RenameRule::Camel.apply("_type"), "type");
    }
}
