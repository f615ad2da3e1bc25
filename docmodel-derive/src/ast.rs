//! The model as the expansion needs it: checked values that borrow from the parsed input and keep spans.

use std::ops::Deref;

use crate::meta::{Override, SpannedValue};
use docmodel_shape::SchemaVersion as Version;
use proc_macro2::{Group, Span, TokenStream, TokenTree};
use syn::{Attribute, Generics, Ident, LitStr, Path, Type, Visibility};

use crate::attr::{EnvelopeAttr, FieldAttr, ModelAttr, SkipEmptyAttr};
use crate::chain::{self, parse_schema};
use crate::envelope::{KnownEnvelope, Layout, Timestamps};
use crate::merge::MergeDecl;
use crate::serde_names::{self, FieldNames};
use crate::template::Template;

/// The model: every option read and checked on its own. A required option that is missing or unreadable is
/// `None` (and its error recorded), so that the checks of everything else still run in the same compilation.
pub struct Model<'a> {
    pub ident: &'a Ident,
    pub vis: &'a Visibility,
    pub generics: &'a Generics,
    pub type_name: Option<&'a LitStr>,
    pub schema: Option<Schema<'a>>,
    pub key: Option<Pattern<'a>>,
    pub lookups: Vec<LookupDecl<'a>>,
    pub indexes: Vec<IndexDecl<'a>>,
    pub envelope: Option<&'a SpannedValue<EnvelopeAttr>>,
    pub conventions: Option<&'a Path>,
    /// The envelope the documents carry; `None` when a `Conventions` type sets part of it.
    pub known_envelope: Option<KnownEnvelope>,
    pub krate: Path,
    pub fields: Vec<Field<'a>>,
    pub serde: serde_names::Container,
    pub steps: Vec<chain::Step<'a>>,
    pub revisions: Option<Revisions<'a>>,
    /// `unversioned = "1.0"`, read.
    pub unversioned: Option<Schema<'a>>,
    /// `aliases(...)`: each a type name that reads (checked against the type in `valid.rs`).
    pub aliases: Vec<&'a LitStr>,
    /// `untyped = "accept"`.
    pub accepts_untyped: bool,
    /// `untyped = "..."`, as written.
    pub untyped: Option<&'a LitStr>,
    /// `collection = "..."`, checked against Couchbase's rules for a collection's name.
    pub collection: Option<&'a LitStr>,
    /// `envelope(zoneless = "...")`, read: minutes east of UTC.
    pub zoneless: Option<i16>,
    /// `items(...)`: the models of this one's items, as written.
    pub items: Vec<&'a Path>,
    /// `validate = path`.
    pub validate: Option<&'a Path>,
    /// `garde`, where it was written.
    pub garde: Option<Span>,
    /// `validate_on_read`, where it was written.
    pub validate_on_read: Option<Span>,
    /// `bound = "..."`, parsed.
    pub bound: Option<Vec<syn::WherePredicate>>,
    /// `skip_empty`, read.
    pub skip_empty: Option<SkipEmpty>,
    /// `allow(reserved_word)`.
    pub allow_reserved_word: bool,
    /// `allow(control_chars_in_keys)`.
    pub allow_control_chars_in_keys: bool,
    /// `merge = "..."`: the merge rule of the fields without one of their own.
    pub merge: Option<MergeDecl<'a>>,
}

/// `skip_empty` or `skip_empty(default)`, where it was written.
#[derive(Clone, Copy)]
pub struct SkipEmpty {
    pub span: Span,
    /// `skip_empty(default)`.
    pub default: bool,
}

impl SkipEmpty {
    fn from_attr(attr: Option<&SpannedValue<Override<SkipEmptyAttr>>>) -> Option<Self> {
        attr.map(|attr| SkipEmpty {
            span: attr.span(),
            default: match &**attr {
                Override::Inherit => false,
                Override::Explicit(options) => options.default.is_present(),
            },
        })
    }
}

/// The schema version, as written and as read.
pub struct Schema<'a> {
    pub version: Version,
    pub lit: &'a LitStr,
}

/// A key or lookup template, as written and as read.
pub struct Pattern<'a> {
    pub template: Template,
    pub lit: &'a LitStr,
}

/// A lookup: its template, and whether its document names the document by the bare id.
pub struct LookupDecl<'a> {
    pub pattern: Pattern<'a>,
    /// `ref_id`, where it was written.
    pub ref_id: Option<&'a Path>,
}

/// `index = "customer_no, placed_at"`: the fields it names, in order, as written; or an index a `parent` or
/// `order` field implies.
pub struct IndexDecl<'a> {
    pub fields: Vec<String>,
    /// The declaration; `None` for an implied index.
    pub lit: Option<&'a LitStr>,
}

impl IndexDecl<'_> {
    /// The index's name: its field names joined by `,`.
    pub fn name(&self) -> String {
        self.fields.join(",")
    }
}

/// A model that checked: its required options are there. The expansion reads it; everything else of the
/// model is reached through `Deref`.
pub struct Complete<'m, 'a> {
    model: &'m Model<'a>,
    pub type_name: &'a LitStr,
    pub schema: &'m Schema<'a>,
    pub key: &'m Pattern<'a>,
}

impl<'a> Deref for Complete<'_, 'a> {
    type Target = Model<'a>;

    fn deref(&self) -> &Model<'a> {
        self.model
    }
}

pub struct Field<'a> {
    pub ident: &'a Ident,
    pub ty: &'a Type,
    pub docs: Vec<&'a Attribute>,
    pub get: Option<Get>,
    pub set: Option<Set<'a>>,
    pub push: Option<&'a SpannedValue<Ident>>,
    /// `nested`, where it was written.
    pub nested: Option<Span>,
    /// `from_key`, where it was written.
    pub from_key: Option<Span>,
    /// `parent`, where it was written.
    pub parent: Option<Span>,
    /// `order`, where it was written.
    pub order: Option<Span>,
    pub json: FieldNames,
    /// `skip_empty`, read.
    pub skip_empty: Option<SkipEmpty>,
    /// `allow(reserved_word)`.
    pub allow_reserved_word: bool,
    /// `merge = ...`, checked.
    pub merge: Option<MergeDecl<'a>>,
}

pub struct Get {
    pub copy: bool,
}

pub struct Set<'a> {
    pub span: Span,
    pub with: Option<&'a Path>,
}

impl<'a> Model<'a> {
    /// Reads each option and checks it on its own; cross-cutting checks are in `valid.rs`. Every error goes to
    /// `errors`.
    pub fn from_attr(input: &'a ModelAttr, errors: &mut crate::meta::Accumulator) -> Model<'a> {
        let serde = errors.handle(
            serde_names::Container::from_attrs(&input.attrs).map_err(crate::meta::Error::from),
        );
        let fields = match &serde {
            Some(serde) => input
                .fields
                .iter()
                .filter_map(|field| Field::from_attr(field, serde, errors))
                .collect(),
            None => Vec::new(),
        };
        Model {
            ident: &input.ident,
            vis: &input.vis,
            generics: &input.generics,
            type_name: type_name(input, errors),
            schema: schema(input, errors),
            key: key(input, errors),
            lookups: input
                .lookup
                .iter()
                .filter_map(|lookup| {
                    let pattern = errors.handle(Pattern::parse(&lookup.template))?;
                    Some(LookupDecl {
                        pattern,
                        ref_id: lookup.ref_id.as_ref(),
                    })
                })
                .collect(),
            indexes: indexes(input, &fields, errors),
            envelope: input.envelope.as_ref(),
            conventions: input.conventions.as_ref(),
            known_envelope: known_envelope(input),
            krate: input
                .krate
                .clone()
                .unwrap_or_else(|| syn::parse_quote!(::docmodel)),
            fields,
            serde: serde.unwrap_or_default(),
            steps: chain::steps(&input.migrate_from, errors),
            revisions: input.revisions.as_ref().map(|revisions| Revisions {
                keep: &revisions.keep,
                age: revisions.age.as_ref().and_then(|lit| {
                    let millis = errors.handle(parse_age(lit))?;
                    Some(Age { lit, millis })
                }),
            }),
            unversioned: input.unversioned.as_ref().and_then(|lit| {
                let version = errors.handle(parse_schema(lit))?;
                Some(Schema { version, lit })
            }),
            aliases: input
                .aliases
                .iter()
                .flat_map(|aliases| &aliases.0)
                .filter_map(|item| errors.handle(alias(item)))
                .collect(),
            accepts_untyped: input
                .untyped
                .as_ref()
                .and_then(|lit| errors.handle(untyped(lit)))
                .unwrap_or(false),
            untyped: input.untyped.as_ref(),
            collection: input
                .collection
                .as_ref()
                .and_then(|lit| errors.handle(collection(lit))),
            zoneless: input
                .envelope
                .as_ref()
                .and_then(|envelope| envelope.zoneless.as_ref())
                .and_then(|lit| errors.handle(crate::envelope::parse_zoneless(lit))),
            items: items(input, errors),
            validate: input.validate.as_ref(),
            garde: input.garde.is_present().then(|| input.garde.span()),
            validate_on_read: input
                .validate_on_read
                .is_present()
                .then(|| input.validate_on_read.span()),
            bound: input
                .bound
                .as_ref()
                .and_then(|lit| errors.handle(bound(lit))),
            skip_empty: SkipEmpty::from_attr(input.skip_empty.as_ref()),
            allow_reserved_word: input
                .allow
                .as_ref()
                .is_some_and(|allow| allow.reserved_word.is_present()),
            allow_control_chars_in_keys: input
                .allow
                .as_ref()
                .is_some_and(|allow| allow.control_chars_in_keys.is_present()),
            merge: input
                .merge
                .as_ref()
                .and_then(|attr| MergeDecl::model(attr, errors)),
        }
    }

    /// The model with its required options, once they are all there.
    pub fn complete(&self) -> Option<Complete<'_, 'a>> {
        Some(Complete {
            model: self,
            type_name: self.type_name?,
            schema: self.schema.as_ref()?,
            key: self.key.as_ref()?,
        })
    }

    /// The field a key placeholder names: `{type}` names `r#type`.
    pub fn field(&self, name: &str) -> Option<&Field<'a>> {
        self.fields.iter().find(|field| field.name() == name)
    }
}

/// The declared indexes, then those the `parent` and `order` fields imply where the model does not declare
/// them: over the parent and then the order, which lists one parent's items in their order on every store;
/// over the parent alone, which CouchDB reads that parent's items without an order value through; and over
/// the order alone, which CouchDB sorts the items of several parents, or of none, through. A second `parent`
/// or `order` field is an error of its own (`valid.rs`) and implies nothing.
fn indexes<'a>(
    input: &'a ModelAttr,
    fields: &[Field<'a>],
    errors: &mut crate::meta::Accumulator,
) -> Vec<IndexDecl<'a>> {
    let mut indexes: Vec<IndexDecl<'a>> = input
        .index
        .iter()
        .filter_map(|lit| errors.handle(IndexDecl::parse(lit)))
        .collect();
    let Some(parent) = fields.iter().find(|field| field.parent.is_some()) else {
        return indexes;
    };
    let order = fields.iter().find(|field| field.order.is_some());
    let implied = [
        order.map(|order| vec![parent, order]),
        Some(vec![parent]),
        order.map(|order| vec![order]),
    ];
    for fields in implied.into_iter().flatten() {
        let fields: Vec<String> = fields.iter().map(|field| field.name()).collect();
        if !indexes.iter().any(|index| index.fields == fields) {
            indexes.push(IndexDecl { fields, lit: None });
        }
    }
    indexes
}

/// `items(Bookmark, Folder)`: one or more models, each once.
fn items<'a>(input: &'a ModelAttr, errors: &mut crate::meta::Accumulator) -> Vec<&'a Path> {
    let Some(list) = &input.items else {
        return Vec::new();
    };
    if list.is_empty() {
        errors.push(
            crate::meta::Error::custom(
                "`items()` names no model: list the models whose documents are this one's items, \
                 `items(Bookmark)`",
            )
            .with_span(&input.ident),
        );
    }
    let same = |a: &Path, b: &Path| {
        a.leading_colon.is_some() == b.leading_colon.is_some()
            && crate::meta::path_name(a) == crate::meta::path_name(b)
    };
    let mut items: Vec<&'a Path> = Vec::new();
    for path in list.iter() {
        if items.iter().any(|item| same(item, path)) {
            errors.push(
                crate::meta::Error::custom("this model is listed in `items(...)` already")
                    .with_span(path),
            );
        } else {
            items.push(path);
        }
    }
    items
}

/// The error of a required option that is missing, at the struct's name.
fn missing(input: &ModelAttr, option: &str, example: &str) -> crate::meta::Error {
    crate::meta::Error::custom(format!(
        "missing `{option} = \"...\"` in `#[docmodel(...)]`; for example `#[docmodel({option} = \"{example}\")]`"
    ))
    .with_span(&input.ident)
}

/// `type = "user"`: not empty, and nothing a key or a query would have to quote.
fn type_name<'a>(
    input: &'a ModelAttr,
    errors: &mut crate::meta::Accumulator,
) -> Option<&'a LitStr> {
    let Some(lit) = &input.type_name else {
        errors.push(missing(input, "type", "user"));
        return None;
    };
    match type_problem("the document type", &lit.value()) {
        Some(message) => {
            errors.push(crate::meta::Error::custom(message).with_span(lit));
            None
        }
        None => Some(lit),
    }
}

/// One item of `aliases(...)`: a string that could be a type.
fn alias(item: &crate::meta::Nested) -> crate::meta::Result<&LitStr> {
    let crate::meta::Nested::Lit(syn::Lit::Str(alias)) = item else {
        return Err(crate::meta::Error::custom(
            "an alias is a string: `aliases(\"userProfile\", \"UserProfile\")`",
        )
        .with_span(item));
    };
    match type_problem("the alias", &alias.value()) {
        Some(message) => Err(crate::meta::Error::custom(message).with_span(alias)),
        None => Ok(alias),
    }
}

/// `collection = "users"`: a name Couchbase takes for a collection (1 to 251 of `A-Z a-z 0-9 _ - %`, not
/// starting with `_` or `%`, which Couchbase keeps for its own).
fn collection(lit: &LitStr) -> crate::meta::Result<&LitStr> {
    let name = lit.value();
    let problem = if name.is_empty() || name.len() > 251 {
        Some(format!("is {} characters long", name.chars().count()))
    } else if let Some(first) = name.chars().next().filter(|c| matches!(c, '_' | '%')) {
        Some(format!(
            "starts with {first:?}, which Couchbase keeps for its own collections"
        ))
    } else {
        name.chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '%')))
            .map(|c| format!("holds {c:?}"))
    };
    match problem {
        Some(problem) => Err(crate::meta::Error::custom(format!(
            "`collection = {name:?}` {problem}: a Couchbase collection's name is 1 to 251 letters, digits, `_`, \
             `-` or `%`, not starting with `_` or `%`"
        ))
        .with_span(lit)),
        None => Ok(lit),
    }
}

/// `untyped = "accept"` or `"refuse"` (the default).
fn untyped(lit: &LitStr) -> crate::meta::Result<bool> {
    match lit.value().as_str() {
        "accept" => Ok(true),
        "refuse" => Ok(false),
        other => Err(crate::meta::Error::custom(format!(
            "`untyped` is \"accept\" (a document read by key may have no type field) or \"refuse\" (the default), \
             not {other:?}"
        ))
        .with_span(lit)),
    }
}

/// Why `value` cannot be a document type (or an alias of one): empty, or holding what a key or a query would
/// have to quote.
fn type_problem(what: &str, value: &str) -> Option<String> {
    if value.is_empty() {
        return Some(format!("{what} cannot be empty"));
    }
    value
        .chars()
        .find(|c| c.is_whitespace() || c.is_control() || *c == '"')
        .map(|c| format!("{what} {value:?} contains {c:?}; use letters, digits, `_`, `-` or `.`"))
}

/// `schema = "3.0"`.
fn schema<'a>(input: &'a ModelAttr, errors: &mut crate::meta::Accumulator) -> Option<Schema<'a>> {
    let Some(lit) = &input.schema else {
        errors.push(missing(input, "schema", "1.0"));
        return None;
    };
    let version = errors.handle(parse_schema(lit))?;
    Some(Schema { version, lit })
}

/// `key = "user::{id}"`.
fn key<'a>(input: &'a ModelAttr, errors: &mut crate::meta::Accumulator) -> Option<Pattern<'a>> {
    let Some(lit) = &input.key else {
        errors.push(missing(input, "key", "user::{id}"));
        return None;
    };
    errors.handle(Pattern::parse(lit))
}

/// `bound = "K: KeyPart + 'static"`.
fn bound(lit: &LitStr) -> crate::meta::Result<Vec<syn::WherePredicate>> {
    lit.parse_with(
        syn::punctuated::Punctuated::<syn::WherePredicate, syn::Token![,]>::parse_terminated,
    )
    .map(|predicates| predicates.into_iter().collect())
    .map_err(|err| {
        crate::meta::Error::custom(format!(
            "`bound` is not a list of where-clause predicates: {err}"
        ))
        .with_span(lit)
    })
}

/// The envelope of a model without a `Conventions` type: its `envelope(...)` options over the runtime's
/// default. (Its names are checked in `valid.rs`.)
fn known_envelope(input: &ModelAttr) -> Option<KnownEnvelope> {
    if input.conventions.is_some() {
        return None;
    }
    let attr = input.envelope.as_deref();
    let names = attr.and_then(|attr| attr.names.as_ref());
    let mut known = KnownEnvelope::new(
        attr.and_then(|attr| attr.layout.as_deref().copied())
            .unwrap_or(Layout::Flat),
        attr.and_then(|attr| attr.timestamps.as_deref().copied())
            .unwrap_or(Timestamps::EpochMs),
        |field| {
            attr.is_some_and(|attr| {
                attr.kept()
                    .iter()
                    .any(|(kept, flag)| *kept == field && flag.is_present())
            })
        },
        |field| names.and_then(|names| names.of(field)).map(LitStr::value),
        names
            .and_then(|names| names.meta.as_ref())
            .map(LitStr::value),
    );
    if let Some(legacy) = attr.and_then(|attr| attr.legacy_names.as_ref()) {
        known.legacy = legacy
            .renamed
            .iter()
            .map(|(field, name)| (*field, name.value()))
            .collect();
    }
    Some(known)
}

impl<'a> Pattern<'a> {
    fn parse(lit: &'a LitStr) -> crate::meta::Result<Self> {
        let template = Template::parse(&lit.value())
            .map_err(|message| crate::meta::Error::custom(message).with_span(lit))?;
        Ok(Pattern { template, lit })
    }
}

impl<'a> IndexDecl<'a> {
    fn parse(lit: &'a LitStr) -> crate::meta::Result<Self> {
        let text = lit.value();
        let fields: Vec<String> = text.split(',').map(|name| name.trim().to_owned()).collect();
        if fields.iter().any(String::is_empty) {
            return Err(crate::meta::Error::custom(format!(
                "`index = {text:?}` names an empty field; list one or more fields separated by commas, for example \
                 `index = \"customer_no, placed_at\"`"
            ))
            .with_span(lit));
        }
        Ok(IndexDecl {
            fields,
            lit: Some(lit),
        })
    }
}

impl<'a> Field<'a> {
    fn from_attr(
        input: &'a FieldAttr,
        serde: &serde_names::Container,
        errors: &mut crate::meta::Accumulator,
    ) -> Option<Field<'a>> {
        let ident = input.ident.as_ref()?;
        let json = errors.handle(
            serde
                .field_names(ident, &input.ty, &input.attrs)
                .map_err(crate::meta::Error::from),
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
        if let Some(allow) = &input.allow
            && allow.control_chars_in_keys.is_present()
        {
            errors.push(
                crate::meta::Error::custom(
                    "`allow(control_chars_in_keys)` is an option of the model, whose key template every part \
                     goes through: write it in the struct's `#[docmodel(...)]`",
                )
                .with_span(&allow.control_chars_in_keys.span()),
            );
        }
        let merge = input
            .merge
            .as_ref()
            .and_then(|attr| MergeDecl::field(attr, &json, errors));
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
            nested: input.nested.is_present().then(|| input.nested.span()),
            from_key: input.from_key.is_present().then(|| input.from_key.span()),
            parent: input.parent.is_present().then(|| input.parent.span()),
            order: input.order.is_present().then(|| input.order.span()),
            json,
            skip_empty: SkipEmpty::from_attr(input.skip_empty.as_ref()),
            allow_reserved_word: input
                .allow
                .as_ref()
                .is_some_and(|allow| allow.reserved_word.is_present()),
            merge,
        })
    }

    /// The name a Rust reader knows the field by: `type` for `r#type`.
    pub fn name(&self) -> String {
        let name = self.ident.to_string();
        name.strip_prefix("r#").map(str::to_owned).unwrap_or(name)
    }

    /// Whether a document without the field reads: serde gives it a value ([`Absent`](serde_names::Absent)),
    /// or docmodel does, from the key (`from_key`). The one answer the omit check, the JSON Schema, the
    /// CouchDB guard and the lock read.
    pub fn reads_absent(&self) -> bool {
        self.json.absent.reads() || self.from_key.is_some()
    }

    /// Whether the field's type is written `Presence<...>`: its `Missing` is left out of the stored JSON.
    pub fn is_presence(&self) -> bool {
        generic_argument(self.ty, "Presence").is_some()
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

/// `tokens` with each `Self` replaced by `ty`: a field's type as written, for code outside the struct's impls.
pub fn replace_self(tokens: TokenStream, ty: &TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .flat_map(|token| match token {
            TokenTree::Ident(ident) if ident == "Self" => ty.clone().into_iter().collect(),
            TokenTree::Group(group) => {
                let mut replaced = Group::new(group.delimiter(), replace_self(group.stream(), ty));
                replaced.set_span(group.span());
                vec![TokenTree::Group(replaced)]
            }
            other => vec![other],
        })
        .collect()
}

/// `revisions = N` or `revisions(keep = N, for = "30d")`, read.
#[derive(Clone, Copy)]
pub struct Revisions<'a> {
    /// How many copies are kept whatever their age.
    pub keep: &'a SpannedValue<u64>,
    /// How long a copy past the count is kept after its version was replaced.
    pub age: Option<Age<'a>>,
}

/// `for = "30d"`, read: the literal and the milliseconds it says.
#[derive(Clone, Copy)]
pub struct Age<'a> {
    pub lit: &'a LitStr,
    pub millis: u64,
}

/// The milliseconds a duration such as `"90m"`, `"12h"` or `"30d"` says: a whole number above zero and one
/// unit, `s`, `m`, `h` or `d`.
pub fn parse_age(lit: &LitStr) -> crate::meta::Result<u64> {
    let text = lit.value();
    let usage = |why: &str| {
        crate::meta::Error::custom(format!(
            "`for = {text:?}`: {why}; write a whole number and a unit, `s`, `m`, `h` or `d`: \"90m\", \"12h\", \
             \"30d\""
        ))
        .with_span(lit)
    };
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let unit_millis: u64 = match unit {
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        "" => return Err(usage("the unit is missing")),
        _ if number.is_empty() => return Err(usage("not a duration")),
        other => return Err(usage(&format!("`{other}` is not a unit"))),
    };
    if number.is_empty() {
        return Err(usage("the number is missing"));
    }
    let count: u64 = number
        .parse()
        .map_err(|_| usage("the number is too large"))?;
    if count == 0 {
        return Err(usage(
            "a copy past the count would be kept no time at all (`revisions = N` keeps by count alone)",
        ));
    }
    count
        .checked_mul(unit_millis)
        .ok_or_else(|| usage("the duration is too long"))
}
