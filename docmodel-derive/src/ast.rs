//! The model as the expansion needs it: checked values that borrow from the parsed input and keep spans.

use darling::util::{Override, SpannedValue};
use proc_macro2::Span;
use syn::{Attribute, Generics, Ident, LitStr, Path, Type, Visibility};

use crate::attr::{EnvelopeAttr, FieldAttr, ModelAttr};
use crate::chain;
use crate::serde_names::{self, FieldNames};
use crate::template::Template;

pub struct Model<'a> {
    pub ident: &'a Ident,
    pub vis: &'a Visibility,
    pub generics: &'a Generics,
    pub type_name: LitStr,
    pub schema: semver::Version,
    pub schema_lit: LitStr,
    pub key: Template,
    pub key_lit: LitStr,
    pub envelope: Option<&'a SpannedValue<EnvelopeAttr>>,
    pub conventions: Option<&'a Path>,
    pub krate: Path,
    pub fields: Vec<Field<'a>>,
    pub serde: serde_names::Container,
    pub steps: Vec<chain::Step<'a>>,
    pub revisions: Option<&'a SpannedValue<u64>>,
    pub lookups: Vec<(Template, LitStr)>,
    /// `bound = "..."`, parsed.
    pub bound: Option<Vec<syn::WherePredicate>>,
}

pub struct Field<'a> {
    pub ident: &'a Ident,
    pub ty: &'a Type,
    pub docs: Vec<&'a Attribute>,
    pub get: Option<Get>,
    pub set: Option<Set<'a>>,
    pub push: Option<&'a SpannedValue<Ident>>,
    pub json: FieldNames,
}

pub struct Get {
    pub copy: bool,
}

pub struct Set<'a> {
    pub span: Span,
    pub with: Option<&'a Path>,
}

impl<'a> Model<'a> {
    /// Checks each option on its own; cross-cutting checks are in `valid.rs`. Every error goes to `errors`.
    /// A missing or unreadable required option is recorded there and replaced by a blank one, so that the
    /// checks of everything else still run and report their errors in the same compilation.
    pub fn from_attr(input: &'a ModelAttr, errors: &mut darling::error::Accumulator) -> Model<'a> {
        let missing = |option: &str, example: &str| {
            darling::Error::custom(format!(
                "missing `{option} = \"...\"` in `#[docmodel(...)]`; for example `#[docmodel({option} = \"{example}\")]`"
            ))
            .with_span(&input.ident)
        };
        let type_name = match &input.type_name {
            None => {
                errors.push(missing("type", "user"));
                None
            }
            Some(lit) => errors.handle(check_type_name(lit)).map(|()| lit),
        };
        let schema = match &input.schema {
            None => {
                errors.push(missing("schema", "1.0"));
                None
            }
            Some(lit) => errors
                .handle(parse_schema(lit))
                .map(|version| (version, lit)),
        };
        let key = match &input.key {
            None => {
                errors.push(missing("key", "user::{id}"));
                None
            }
            Some(lit) => errors
                .handle(
                    Template::parse(&lit.value())
                        .map_err(|message| darling::Error::custom(message).with_span(lit)),
                )
                .map(|template| (template, lit)),
        };
        let serde = errors
            .handle(serde_names::Container::from_attrs(&input.attrs).map_err(darling::Error::from));
        let fields = match &input.data {
            darling::ast::Data::Struct(fields) => fields
                .iter()
                .filter_map(|field| Field::from_attr(field, serde.as_ref()?, errors))
                .collect(),
            darling::ast::Data::Enum(_) => Vec::new(),
        };
        let blank = || LitStr::new("", input.ident.span());
        let type_name = type_name.cloned().unwrap_or_else(blank);
        let (schema, schema_lit) = schema.map_or_else(
            || (semver::Version::new(0, 0, 0), blank()),
            |(version, lit)| (version, lit.clone()),
        );
        let (key, key_lit) = key.map_or_else(
            || {
                (
                    Template {
                        delimiter: String::new(),
                        segments: Vec::new(),
                    },
                    blank(),
                )
            },
            |(template, lit)| (template, lit.clone()),
        );
        Model {
            ident: &input.ident,
            vis: &input.vis,
            generics: &input.generics,
            type_name,
            schema,
            schema_lit,
            key,
            key_lit,
            envelope: input.envelope.as_ref(),
            conventions: input.conventions.as_ref(),
            krate: input
                .krate
                .clone()
                .unwrap_or_else(|| syn::parse_quote!(::docmodel)),
            fields,
            serde: serde.unwrap_or_default(),
            steps: chain::steps(&input.migrate_from, errors),
            revisions: input.revisions.as_ref(),
            bound: input.bound.as_ref().and_then(|lit| {
                let parsed = lit
                    .parse_with(syn::punctuated::Punctuated::<syn::WherePredicate, syn::Token![,]>::parse_terminated)
                    .map(|predicates| predicates.into_iter().collect())
                    .map_err(|err| darling::Error::custom(format!("`bound` is not a list of where-clause predicates: {err}")).with_span(lit));
                errors.handle(parsed)
            }),
            lookups: input
                .lookup
                .iter()
                .filter_map(|lit| {
                    let parsed = Template::parse(&lit.value())
                        .map_err(|message| darling::Error::custom(message).with_span(lit));
                    errors
                        .handle(parsed)
                        .map(|template| (template, lit.clone()))
                })
                .collect(),
        }
    }

    /// The field a key placeholder names: `{type}` names `r#type`.
    pub fn field(&self, name: &str) -> Option<&Field<'a>> {
        self.fields.iter().find(|field| field.name() == name)
    }
}

impl<'a> Field<'a> {
    fn from_attr(
        input: &'a FieldAttr,
        serde: &serde_names::Container,
        errors: &mut darling::error::Accumulator,
    ) -> Option<Field<'a>> {
        let ident = input.ident.as_ref()?;
        let json = errors.handle(
            serde
                .field_names(ident, &input.attrs)
                .map_err(darling::Error::from),
        )?;
        let get = input.get.as_ref().map(|get| Get {
            copy: match &**get {
                Override::Inherit => false,
                Override::Explicit(get) => get.copy.is_present(),
            },
        });
        let set = input.set.as_ref().map(|set| Set {
            span: set.span(),
            with: match &**set {
                Override::Inherit => None,
                Override::Explicit(set) => set.with.as_ref(),
            },
        });
        Some(Field {
            ident,
            ty: &input.ty,
            docs: input
                .attrs
                .iter()
                .filter(|attr| attr.path().is_ident("doc"))
                .collect(),
            get,
            set,
            push: input.push.as_ref(),
            json,
        })
    }

    /// The name a Rust reader knows the field by: `type` for `r#type`.
    pub fn name(&self) -> String {
        let name = self.ident.to_string();
        name.strip_prefix("r#").map(str::to_owned).unwrap_or(name)
    }

    /// The element type when the field is a `Vec<T>`.
    pub fn vec_item(&self) -> Option<&'a Type> {
        generic_argument(self.ty, "Vec")
    }
}

/// `T` when `ty` is written `Name<T>` (or a path ending in it).
pub fn generic_argument<'t>(ty: &'t Type, name: &str) -> Option<&'t Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != name {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(item) if args.args.len() == 1 => Some(item),
        _ => None,
    }
}

/// The last identifier of a plain type path (`u64`, `String`), if the type is one.
pub fn simple_type_name(ty: &Type) -> Option<String> {
    let Type::Path(path) = ty else { return None };
    if path.qself.is_some() {
        return None;
    }
    let last = path.path.segments.last()?;
    last.arguments.is_empty().then(|| last.ident.to_string())
}

fn check_type_name(lit: &LitStr) -> darling::Result<()> {
    let value = lit.value();
    if value.is_empty() {
        return Err(darling::Error::custom("the document type cannot be empty").with_span(lit));
    }
    if let Some(c) = value
        .chars()
        .find(|c| c.is_whitespace() || c.is_control() || *c == '"')
    {
        return Err(darling::Error::custom(format!(
            "the document type {value:?} contains {c:?}; use letters, digits, `_`, `-` or `.`"
        ))
        .with_span(lit));
    }
    Ok(())
}

/// The runtime's `docmodel::parse_schema`, at expansion time: `major.minor` or `major.minor.patch`.
pub fn parse_schema(lit: &LitStr) -> darling::Result<semver::Version> {
    let text = lit.value();
    let core = text.split(['-', '+']).next().unwrap_or_default();
    let version = match core.bytes().filter(|b| *b == b'.').count() {
        1 => semver::Version::parse(&format!("{text}.0")),
        2 => semver::Version::parse(&text),
        _ => {
            return Err(darling::Error::custom(format!(
                "schema {text:?} is not a version: write `major.minor` or `major.minor.patch`, such as \"1.0\""
            ))
            .with_span(lit));
        }
    }
    .map_err(|err| darling::Error::custom(format!("schema {text:?} is not a semver version: {err}")).with_span(lit))?;
    if !version.pre.is_empty() || !version.build.is_empty() {
        return Err(darling::Error::custom(format!(
            "schema {text:?} has a pre-release or build suffix; a schema version is `major.minor[.patch]`"
        ))
        .with_span(lit));
    }
    Ok(version)
}
