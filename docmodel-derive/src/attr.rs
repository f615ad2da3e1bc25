//! What the user wrote in `#[docmodel(...)]`, read with spans kept (the pieces are in `meta.rs`).

use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, DeriveInput, Generics, Ident, Lit, LitStr, Path, Token, Type, Visibility};

use crate::envelope::{Field, Layout, Timestamps};
use crate::meta::{
    Accumulator, Error, Flag, FromMeta, Kind, Meta, Nested, Override, Result, SpannedValue,
    each_option, set,
};

/// `#[docmodel(...)]` on the struct; several attributes are merged.
pub struct ModelAttr {
    pub ident: Ident,
    pub vis: Visibility,
    pub generics: Generics,
    /// The named fields, in order.
    pub fields: Vec<FieldAttr>,
    /// The struct's `#[serde(...)]` attributes.
    pub attrs: Vec<Attribute>,

    pub type_name: Option<LitStr>,
    pub schema: Option<LitStr>,
    pub key: Option<LitStr>,
    pub envelope: Option<SpannedValue<EnvelopeAttr>>,
    pub conventions: Option<Path>,
    pub migrate_from: Vec<StepsAttr>,
    /// `revisions = 10`, or `revisions(keep = 10, for = "30d")`.
    pub revisions: Option<RevisionsAttr>,
    /// `lookup = "email::{email}"`, or `lookup("customer_ref::{customer_no}", ref_id)`.
    pub lookup: Vec<LookupAttr>,
    /// `index = "customer_no"` or `index = "customer_no, placed_at"`: a non-unique index over fields.
    pub index: Vec<LitStr>,
    /// `unversioned = "1.0"`: the schema a stored document without one is read as.
    pub unversioned: Option<LitStr>,
    /// `aliases("userProfile", "UserProfile")`: other spellings of the type, read as the model's.
    pub aliases: Option<Aliases>,
    /// `untyped = "accept"`: a document read by key may have no type field.
    pub untyped: Option<LitStr>,
    /// `collection = "users"`: the Couchbase collection the model's documents live in.
    pub collection: Option<LitStr>,
    /// `merge = "newer"`: the merge rule of the fields without one of their own.
    pub merge: Option<MergeAttr>,
    /// `items(Bookmark, Folder)`: the models whose documents are this one's items (each a `Child` of it),
    /// removed with it by `Repo::remove_with_items`.
    pub items: Option<Vec<Path>>,
    /// `validate = check_user`: `fn(&Model) -> Result<(), Vec<FieldError>>`, run before every write.
    pub validate: Option<Path>,
    /// `garde`: the model's `garde::Validate` rules, run before every write.
    pub garde: Flag,
    /// `validate_on_read`: reads check the body too.
    pub validate_on_read: Flag,
    /// `bound = "T: Trait"`: the where-clause predicates of the generated impls, instead of the derive's.
    pub bound: Option<LitStr>,
    /// `skip_empty` or `skip_empty(default)`: body fields that are empty (or default) are not written.
    pub skip_empty: Option<SpannedValue<Override<SkipEmptyAttr>>>,
    /// `allow(reserved_word)`: lints the model does not want.
    pub allow: Option<AllowAttr>,
    pub krate: Option<Path>,
}

impl ModelAttr {
    /// The struct's options and its fields' options, every error of any of them collected.
    pub fn from_derive_input(input: &DeriveInput) -> Result<Self> {
        let mut errors = Accumulator::default();
        let mut model = ModelAttr {
            ident: input.ident.clone(),
            vis: input.vis.clone(),
            generics: input.generics.clone(),
            fields: Vec::new(),
            attrs: crate::meta::forwarded(&input.attrs, &["serde"]),
            type_name: None,
            schema: None,
            key: None,
            envelope: None,
            conventions: None,
            migrate_from: Vec::new(),
            revisions: None,
            lookup: Vec::new(),
            index: Vec::new(),
            unversioned: None,
            aliases: None,
            untyped: None,
            collection: None,
            merge: None,
            items: None,
            validate: None,
            garde: Flag::default(),
            validate_on_read: Flag::default(),
            bound: None,
            skip_empty: None,
            allow: None,
            krate: None,
        };
        let items = crate::meta::docmodel_items(&input.attrs, &mut errors);
        each_option(
            &items,
            MODEL_OPTIONS,
            &["migrate_from", "lookup", "index"],
            &mut errors,
            |name, meta, errors| match name {
                "type" => set(&mut model.type_name, meta, errors),
                "schema" => set(&mut model.schema, meta, errors),
                "key" => set(&mut model.key, meta, errors),
                "envelope" => set(&mut model.envelope, meta, errors),
                "conventions" => set(&mut model.conventions, meta, errors),
                "migrate_from" => model
                    .migrate_from
                    .extend(errors.handle(StepsAttr::from_meta(meta))),
                "revisions" => set(&mut model.revisions, meta, errors),
                "lookup" => model
                    .lookup
                    .extend(errors.handle(LookupAttr::from_meta(meta))),
                "index" => model.index.extend(errors.handle(LitStr::from_meta(meta))),
                "unversioned" => set(&mut model.unversioned, meta, errors),
                "aliases" => set(&mut model.aliases, meta, errors),
                "untyped" => set(&mut model.untyped, meta, errors),
                "collection" => set(&mut model.collection, meta, errors),
                "merge" => set(&mut model.merge, meta, errors),
                "items" => set(&mut model.items, meta, errors),
                "validate" => set(&mut model.validate, meta, errors),
                "garde" => model.garde = errors.handle(Flag::from_meta(meta)).unwrap_or_default(),
                "validate_on_read" => {
                    model.validate_on_read =
                        errors.handle(Flag::from_meta(meta)).unwrap_or_default();
                }
                "bound" => set(&mut model.bound, meta, errors),
                "skip_empty" => set(&mut model.skip_empty, meta, errors),
                "allow" => set(&mut model.allow, meta, errors),
                _ => set(&mut model.krate, meta, errors),
            },
        );
        if let syn::Data::Struct(data) = &input.data {
            model.fields = data
                .fields
                .iter()
                .map(|field| FieldAttr::from_field(field, &mut errors))
                .collect();
        }
        errors.finish_with(model)
    }
}

/// The options of the struct's `#[docmodel(...)]`.
const MODEL_OPTIONS: &[&str] = &[
    "type",
    "schema",
    "key",
    "envelope",
    "conventions",
    "migrate_from",
    "revisions",
    "lookup",
    "index",
    "unversioned",
    "aliases",
    "untyped",
    "collection",
    "merge",
    "items",
    "validate",
    "garde",
    "validate_on_read",
    "bound",
    "skip_empty",
    "allow",
    "crate",
];

/// `envelope(layout = "plain", timestamps = "epoch_s", created_by, names(type = "docType"))`.
#[derive(Default)]
pub struct EnvelopeAttr {
    pub layout: Option<SpannedValue<Layout>>,
    pub timestamps: Option<SpannedValue<Timestamps>>,
    /// `zoneless = "utc"`: how stored times without a zone are read.
    pub zoneless: Option<LitStr>,
    pub created_by: Flag,
    pub modified_by: Flag,
    pub accessed: Flag,
    pub geo: Flag,
    pub names: Option<NamesAttr>,
    /// `legacy_names(type = "_type")`: other names each field is read under, never written.
    pub legacy_names: Option<NamesAttr>,
}

impl FromMeta for EnvelopeAttr {
    fn from_list(items: &[Nested]) -> Result<Self> {
        let mut envelope = EnvelopeAttr::default();
        let mut errors = Accumulator::default();
        let known = [
            "layout",
            "timestamps",
            "zoneless",
            "created_by",
            "modified_by",
            "accessed",
            "geo",
            "names",
            "legacy_names",
        ];
        each_option(
            items,
            &known,
            &[],
            &mut errors,
            |name, meta, errors| match name {
                "layout" => set(&mut envelope.layout, meta, errors),
                "timestamps" => set(&mut envelope.timestamps, meta, errors),
                "zoneless" => set(&mut envelope.zoneless, meta, errors),
                "created_by" => flag(&mut envelope.created_by, meta, errors),
                "modified_by" => flag(&mut envelope.modified_by, meta, errors),
                "accessed" => flag(&mut envelope.accessed, meta, errors),
                "geo" => flag(&mut envelope.geo, meta, errors),
                "names" => set(&mut envelope.names, meta, errors),
                _ => set(&mut envelope.legacy_names, meta, errors),
            },
        );
        errors.finish_with(envelope)
    }
}

/// Reads a word option into `slot`.
fn flag(slot: &mut Flag, meta: &Meta, errors: &mut Accumulator) {
    *slot = errors.handle(Flag::from_meta(meta)).unwrap_or_default();
}

/// A string option that names one of `names`.
fn named<T: Copy>(lit: &Lit, names: &[(&str, T)]) -> Result<T> {
    let Lit::Str(text) = lit else {
        return Err(Error::unexpected_lit_type(lit));
    };
    lookup(&text.value(), names).map_err(|error| error.with_span(lit))
}

/// The list form of a named option, `layout(plain)`: one word that names one of `names`.
fn named_word<T: Copy>(items: &[Nested], names: &[(&str, T)]) -> Result<T> {
    match items {
        [
            Nested::Meta(Meta {
                path,
                kind: Kind::Word,
            }),
        ] => lookup(&crate::meta::path_name(path), names).map_err(|error| error.with_span(path)),
        [Nested::Lit(lit)] => named(lit, names),
        _ => Err(Error::unsupported_format("list")),
    }
}

fn lookup<T: Copy>(text: &str, names: &[(&str, T)]) -> Result<T> {
    names
        .iter()
        .find(|(name, _)| *name == text)
        .map(|(_, value)| *value)
        .ok_or_else(|| {
            let known: Vec<&str> = names.iter().map(|(name, _)| *name).collect();
            Error::unknown_value(text, &known)
        })
}

const LAYOUTS: [(&str, Layout); 4] = [
    ("flat", Layout::Flat),
    ("plain", Layout::Plain),
    ("meta", Layout::Meta),
    ("root", Layout::Root),
];

fn timestamp_formats() -> Vec<(&'static str, Timestamps)> {
    [
        Timestamps::EpochMs,
        Timestamps::EpochS,
        Timestamps::EpochMin,
        Timestamps::EpochH,
        Timestamps::EpochDay,
        Timestamps::Iso8601,
    ]
    .into_iter()
    .map(|format| (format.name(), format))
    .collect()
}

impl FromMeta for Layout {
    fn from_lit(lit: &Lit) -> Result<Self> {
        named(lit, &LAYOUTS)
    }

    fn from_list(items: &[Nested]) -> Result<Self> {
        named_word(items, &LAYOUTS)
    }
}

impl FromMeta for Timestamps {
    fn from_lit(lit: &Lit) -> Result<Self> {
        named(lit, &timestamp_formats())
    }

    fn from_list(items: &[Nested]) -> Result<Self> {
        named_word(items, &timestamp_formats())
    }
}

impl EnvelopeAttr {
    /// The optional envelope fields, with whether the model keeps each.
    pub fn kept(&self) -> [(Field, &Flag); 4] {
        [
            (Field::CreatedBy, &self.created_by),
            (Field::ModifiedBy, &self.modified_by),
            (Field::Accessed, &self.accessed),
            (Field::Geo, &self.geo),
        ]
    }
}

/// `names(type = "docType", created = "ctime", meta = "_meta")`: each option is an envelope field's name in
/// the `plain` layout (`created_by` for `createdBy`), or `meta`.
#[derive(Default)]
pub struct NamesAttr {
    pub renamed: Vec<(Field, LitStr)>,
    pub meta: Option<LitStr>,
}

impl NamesAttr {
    /// The name given to `field`, if any.
    pub fn of(&self, field: Field) -> Option<&LitStr> {
        self.renamed
            .iter()
            .find(|(renamed, _)| *renamed == field)
            .map(|(_, name)| name)
    }
}

impl FromMeta for NamesAttr {
    fn from_list(items: &[Nested]) -> Result<Self> {
        let mut names = NamesAttr::default();
        let mut errors = Accumulator::default();
        for item in items {
            let Nested::Meta(Meta {
                path,
                kind: Kind::Value(value),
            }) = item
            else {
                errors.push(Error::unsupported_format("a `field = \"name\"` pair").with_span(item));
                continue;
            };
            let Some(ident) = path.get_ident().map(Ident::to_string) else {
                errors
                    .push(Error::unknown_field(&crate::meta::path_name(path), &[]).with_span(path));
                continue;
            };
            let Some(name) = errors.handle(LitStr::from_value(value)) else {
                continue;
            };
            let field = Field::ALL.into_iter().find(|field| field.option() == ident);
            match field {
                Some(field) if names.of(field).is_some() => {
                    errors.push(Error::duplicate_field(&ident).with_span(path));
                }
                Some(field) => names.renamed.push((field, name)),
                None if ident == "meta" && names.meta.is_some() => {
                    errors.push(Error::duplicate_field(&ident).with_span(path));
                }
                None if ident == "meta" => names.meta = Some(name),
                None => {
                    let options: Vec<&str> = Field::ALL
                        .into_iter()
                        .map(Field::option)
                        .chain(["meta"])
                        .collect();
                    errors.push(Error::unknown_field(&ident, &options).with_span(path));
                }
            }
        }
        errors.finish_with(names)
    }
}

/// One lookup: `lookup = "email::{email}"`, or `lookup("customer_ref::{customer_no}", ref_id)` for a lookup
/// document that names its document by the bare id.
pub struct LookupAttr {
    pub template: LitStr,
    /// `ref_id`, where it was written.
    pub ref_id: Option<Path>,
}

impl FromMeta for LookupAttr {
    fn from_meta(item: &Meta) -> Result<Self> {
        let usage = "write `lookup = \"email::{email}\"`, or `lookup(\"customer_ref::{customer_no}\", ref_id)` \
                     for a lookup document that holds the bare id";
        match &item.kind {
            Kind::Value(value) => match value.lit() {
                Ok(Lit::Str(template)) => Ok(LookupAttr {
                    template,
                    ref_id: None,
                }),
                _ => Err(Error::custom(usage).with_span(&value.tokens)),
            },
            Kind::List(list) => {
                let items = crate::meta::parse_list(list.stream())?;
                let mut errors = Accumulator::default();
                let mut items = items.iter();
                let template = match items.next() {
                    Some(Nested::Lit(Lit::Str(template))) => Some(template.clone()),
                    Some(other) => {
                        errors.push(Error::custom(usage).with_span(other));
                        None
                    }
                    None => {
                        errors.push(Error::custom(usage).with_span(item));
                        None
                    }
                };
                let mut ref_id = None;
                for option in items {
                    match option {
                        Nested::Meta(Meta {
                            path,
                            kind: Kind::Word,
                        }) if path.is_ident("ref_id") => {
                            if ref_id.is_some() {
                                errors.push(Error::duplicate_field("ref_id").with_span(path));
                            }
                            ref_id = Some(path.clone());
                        }
                        Nested::Meta(meta) => errors.push(
                            Error::unknown_field(&meta.name(), &["ref_id"]).with_span(&meta.path),
                        ),
                        other => errors.push(Error::custom(usage).with_span(other)),
                    }
                }
                errors.finish()?;
                Ok(LookupAttr {
                    template: template.ok_or_else(|| Error::custom(usage))?,
                    ref_id,
                })
            }
            Kind::Word => Err(Error::custom(usage).with_span(&item.path)),
        }
    }
}

/// `aliases("userProfile", "UserProfile")`: the items as written; `ast.rs` reads each, so that a mistake in
/// one does not hide the checks of the others.
pub struct Aliases(pub Vec<Nested>);

impl FromMeta for Aliases {
    fn from_list(items: &[Nested]) -> Result<Self> {
        Ok(Aliases(items.to_vec()))
    }
}

/// `revisions = 10` (count alone), or `revisions(keep = 10, for = "30d")`: a copy goes only when both past
/// the count and displaced longer ago than the age (read in `ast.rs`).
pub struct RevisionsAttr {
    pub keep: SpannedValue<u64>,
    /// `for = "30d"`, as written.
    pub age: Option<LitStr>,
}

impl FromMeta for RevisionsAttr {
    fn from_meta(item: &Meta) -> Result<Self> {
        match &item.kind {
            Kind::Value(_) => Ok(RevisionsAttr {
                keep: SpannedValue::from_meta(item)?,
                age: None,
            }),
            Kind::List(list) => {
                let items = crate::meta::parse_list(list.stream())?;
                let mut errors = Accumulator::default();
                let (mut keep, mut age, mut keep_written) = (None, None, false);
                each_option(&items, &["keep", "for"], &[], &mut errors, |name, meta, errors| {
                    match name {
                        "keep" => {
                            keep_written = true;
                            set(&mut keep, meta, errors);
                        }
                        _ => set(&mut age, meta, errors),
                    }
                });
                if !keep_written {
                    errors.push(Error::missing_field("keep").with_span(item));
                }
                errors.finish()?;
                Ok(RevisionsAttr {
                    keep: keep.ok_or_else(|| Error::missing_field("keep"))?,
                    age,
                })
            }
            Kind::Word => Err(Error::custom(
                "write `revisions = 10` to keep the last 10 versions, or `revisions(keep = 10, for = \"30d\")` \
                 to keep every version for 30 days after it was replaced as well",
            )
            .with_span(&item.path)),
        }
    }
}

/// `#[docmodel(...)]` on a field.
pub struct FieldAttr {
    pub ident: Option<Ident>,
    pub ty: Type,
    /// The field's `#[doc]` and `#[serde(...)]` attributes.
    pub attrs: Vec<Attribute>,

    pub get: Option<SpannedValue<Override<GetAttr>>>,
    pub set: Option<SpannedValue<Override<SetAttr>>>,
    pub push: Option<SpannedValue<Ident>>,
    /// `nested`: the field holds a struct deriving `Embedded`, whose paths it gives.
    pub nested: Flag,
    /// `from_key`: a key part the body does not store (`#[serde(skip)]`), filled from the key on every read.
    pub from_key: Flag,
    /// `parent`: the field refers to the document this one is an item of (`Ref<Parent>`): the model is a
    /// `Child`.
    pub parent: Flag,
    /// `order`: the field gives the item's place among its parent's items (an `OrderKey`, say).
    pub order: Flag,
    /// `skip_empty` or `skip_empty(default)`: the field is not written when empty (or default).
    pub skip_empty: Option<SpannedValue<Override<SkipEmptyAttr>>>,
    /// `allow(reserved_word)`: lints the field does not want.
    pub allow: Option<AllowAttr>,
    /// `merge = "union"`, `merge = my_merge`, `merge(union, order_by = "at")`, `merge(by = "id")`.
    pub merge: Option<MergeAttr>,
}

impl FieldAttr {
    /// The field's options; each error goes to `errors`.
    fn from_field(field: &syn::Field, errors: &mut Accumulator) -> Self {
        let mut attr = FieldAttr {
            ident: field.ident.clone(),
            ty: field.ty.clone(),
            attrs: crate::meta::forwarded(&field.attrs, &["doc", "serde"]),
            get: None,
            set: None,
            push: None,
            nested: Flag::default(),
            from_key: Flag::default(),
            parent: Flag::default(),
            order: Flag::default(),
            skip_empty: None,
            allow: None,
            merge: None,
        };
        let items = crate::meta::docmodel_items(&field.attrs, errors);
        let known = [
            "get",
            "set",
            "push",
            "nested",
            "from_key",
            "parent",
            "order",
            "skip_empty",
            "allow",
            "merge",
        ];
        each_option(
            &items,
            &known,
            &[],
            errors,
            |name, meta, errors| match name {
                "get" => set(&mut attr.get, meta, errors),
                "set" => set(&mut attr.set, meta, errors),
                "push" => set(&mut attr.push, meta, errors),
                "nested" => flag(&mut attr.nested, meta, errors),
                "from_key" => flag(&mut attr.from_key, meta, errors),
                "parent" => flag(&mut attr.parent, meta, errors),
                "order" => flag(&mut attr.order, meta, errors),
                "skip_empty" => set(&mut attr.skip_empty, meta, errors),
                "allow" => set(&mut attr.allow, meta, errors),
                _ => set(&mut attr.merge, meta, errors),
            },
        );
        attr
    }
}

/// The rules a three-way merge follows in a field (or, on the model, in every field without its own):
/// `merge = "ours"`, `merge = path::to::function`, or `merge(<rule>, by = "id", order_by = "at")` with
/// `with = path` for a function. Each part keeps the span of its token.
pub struct MergeAttr {
    /// The whole attribute, for errors about it as a whole.
    pub span: Span,
    /// A rule by name (`"union"`, or `union` in the list), as written.
    pub rule: Option<(String, Span)>,
    /// `merge = path` or `merge(with = path)`.
    pub with: Option<Path>,
    /// `by = "id"`.
    pub by: Option<LitStr>,
    /// `order_by = "at"`.
    pub order_by: Option<LitStr>,
    /// What did not parse, reported by `merge.rs` with the checks of what did: a mistake here does not
    /// hide the model's other mistakes.
    pub problems: std::cell::RefCell<Option<Error>>,
}

/// The rules a merge takes by name.
pub const MERGE_RULES: [&str; 6] = ["ours", "theirs", "newer", "max", "min", "union"];

impl FromMeta for MergeAttr {
    fn from_meta(item: &Meta) -> Result<Self> {
        let usage = "write `merge = \"ours\"` (or \"theirs\", \"newer\", \"max\", \"min\", \"union\"), \
                     `merge = path::to::function`, or `merge(union, order_by = \"at\", by = \"id\")`";
        let mut merge = MergeAttr {
            span: item.span(),
            rule: None,
            with: None,
            by: None,
            order_by: None,
            problems: std::cell::RefCell::new(None),
        };
        let mut errors = Accumulator::default();
        match &item.kind {
            Kind::Word => errors.push(Error::custom(usage).with_span(&item.path)),
            Kind::Value(value) => match (value.lit(), value.path()) {
                (Ok(Lit::Str(rule)), _) => merge.rule = Some((rule.value(), rule.span())),
                (Err(_), Ok(path)) => merge.with = Some(path),
                _ => errors.push(Error::custom(usage).with_span(&value.tokens)),
            },
            Kind::List(list) => {
                let items = errors.handle(
                    crate::meta::parse_list(list.stream()).map_err(|error| error.at(list.span())),
                );
                if items.as_ref().is_some_and(Vec::is_empty) {
                    errors.push(Error::custom(usage).with_span(item));
                }
                for item in items.iter().flatten() {
                    merge.read_item(item, usage, &mut errors);
                }
            }
        }
        merge.problems = std::cell::RefCell::new(errors.finish().err());
        Ok(merge)
    }
}

impl MergeAttr {
    /// One item of `merge(...)`: the rule, `by`, `order_by` or `with`.
    fn read_item(&mut self, item: &Nested, usage: &str, errors: &mut Accumulator) {
        let Nested::Meta(meta) = item else {
            errors.push(Error::custom(usage).with_span(item));
            return;
        };
        let path = &meta.path;
        match &meta.kind {
            Kind::Word => match path.get_ident() {
                Some(rule) if self.rule.is_some() => errors.push(
                    Error::custom(format!(
                        "`{rule}`: `merge` takes one rule, and `{}` is given already",
                        self.rule.as_ref().map_or("", |(rule, _)| rule.as_str())
                    ))
                    .with_span(path),
                ),
                Some(rule) => self.rule = Some((rule.to_string(), rule.span())),
                None => errors.push(Error::custom(usage).with_span(path)),
            },
            Kind::Value(value) => match meta.name().as_str() {
                name @ ("by" | "order_by") => {
                    let Some(text) = errors.handle(LitStr::from_value(value)) else {
                        return;
                    };
                    let slot = if name == "by" {
                        &mut self.by
                    } else {
                        &mut self.order_by
                    };
                    if slot.is_some() {
                        errors.push(Error::duplicate_field(name).with_span(path));
                    }
                    *slot = Some(text);
                }
                "with" => match (value.lit(), value.path()) {
                    (Err(_), Ok(_)) if self.with.is_some() => {
                        errors.push(Error::duplicate_field("with").with_span(path));
                    }
                    (Err(_), Ok(function)) => self.with = Some(function),
                    _ => errors.push(
                        Error::custom("`with = path::to::function`: the merge function's path")
                            .with_span(&value.tokens),
                    ),
                },
                name => errors
                    .push(Error::unknown_field(name, &["by", "order_by", "with"]).with_span(path)),
            },
            Kind::List(_) => errors.push(Error::custom(usage).with_span(item)),
        }
    }
}

/// A list of options that are each a word alone.
fn flags<const N: usize>(items: &[Nested], known: [&str; N]) -> Result<[Flag; N]> {
    let mut flags = [Flag::default(); N];
    let mut errors = Accumulator::default();
    each_option(items, &known, &[], &mut errors, |name, meta, errors| {
        if let Some(at) = known.iter().position(|known| *known == name) {
            flag(&mut flags[at], meta, errors);
        }
    });
    errors.finish_with(flags)
}

/// `skip_empty(default)`: a value equal to its type's `Default` is left out too.
#[derive(Default, Clone)]
pub struct SkipEmptyAttr {
    pub default: Flag,
}

impl FromMeta for SkipEmptyAttr {
    fn from_list(items: &[Nested]) -> Result<Self> {
        let [default] = flags(items, ["default"])?;
        Ok(SkipEmptyAttr { default })
    }
}

/// `allow(reserved_word)`.
#[derive(Default)]
pub struct AllowAttr {
    /// A stored field name that SQL++ reserves is not warned of.
    pub reserved_word: Flag,
    /// Key parts may hold control, bidirectional and invisible characters (on the model only).
    pub control_chars_in_keys: Flag,
}

impl FromMeta for AllowAttr {
    fn from_list(items: &[Nested]) -> Result<Self> {
        let [reserved_word, control_chars_in_keys] =
            flags(items, ["reserved_word", "control_chars_in_keys"])?;
        Ok(AllowAttr {
            reserved_word,
            control_chars_in_keys,
        })
    }
}

/// `get(copy)`: return the value instead of a reference.
#[derive(Default, Clone)]
pub struct GetAttr {
    pub copy: Flag,
}

impl FromMeta for GetAttr {
    fn from_list(items: &[Nested]) -> Result<Self> {
        let [copy] = flags(items, ["copy"])?;
        Ok(GetAttr { copy })
    }
}

/// `set(with = path::to::check)`.
#[derive(Default, Clone)]
pub struct SetAttr {
    pub with: Option<Path>,
}

impl FromMeta for SetAttr {
    fn from_list(items: &[Nested]) -> Result<Self> {
        let mut with = None;
        let mut errors = Accumulator::default();
        each_option(items, &["with"], &[], &mut errors, |_, meta, errors| {
            set(&mut with, meta, errors);
        });
        errors.finish_with(SetAttr { with })
    }
}

/// One `migrate_from(...)` list, or one `migrate_from = "2.0" = step` card.
pub struct StepsAttr(pub Vec<StepAttr>);

/// `"2.0" = phone_to_phones` (a JSON step function) or `"2.0" = UserV2` (an older model).
pub struct StepAttr {
    pub version: LitStr,
    pub target: Path,
}

impl Parse for StepAttr {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let version = input.parse()?;
        input.parse::<Token![=]>()?;
        let target = input.parse()?;
        Ok(StepAttr { version, target })
    }
}

impl FromMeta for StepsAttr {
    fn from_meta(item: &Meta) -> Result<Self> {
        let usage = "write `migrate_from(\"1.0\" = step_fn, \"2.0\" = OlderModel)` or `migrate_from = \"2.0\" = step_fn`";
        match &item.kind {
            Kind::List(list) => {
                let steps = crate::meta::parse_group_with(
                    list,
                    Punctuated::<StepAttr, Token![,]>::parse_terminated,
                )?;
                if steps.is_empty() {
                    return Err(Error::custom(format!("no steps listed; {usage}")).with_span(item));
                }
                Ok(StepsAttr(steps.into_iter().collect()))
            }
            Kind::Value(card) => syn::parse2::<StepAttr>(card.tokens.clone())
                .ok()
                .map(|step| StepsAttr(vec![step]))
                .ok_or_else(|| Error::custom(usage).with_span(&card.tokens)),
            Kind::Word => Err(Error::custom(usage).with_span(&item.path)),
        }
    }
}

#[cfg(test)]
mod tests;
