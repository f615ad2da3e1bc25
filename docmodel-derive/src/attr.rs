//! What the user wrote in `#[docmodel(...)]`, parsed by darling with spans kept.

use darling::ast::NestedMeta;
use darling::util::{Flag, Override, SpannedValue};
use darling::{FromDeriveInput, FromField, FromMeta};
use proc_macro2::Span;
use quote::ToTokens;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Generics, Ident, Lit, LitStr, Meta, Path, Token, Type, Visibility};

use crate::envelope::{Field, Layout, Timestamps};

/// `#[docmodel(...)]` on the struct; several attributes are merged.
#[derive(FromDeriveInput)]
#[darling(attributes(docmodel), forward_attrs(serde))]
pub struct ModelAttr {
    pub ident: Ident,
    pub vis: Visibility,
    pub generics: Generics,
    pub data: darling::ast::Data<(), FieldAttr>,
    pub attrs: Vec<Attribute>,

    #[darling(rename = "type")]
    pub type_name: Option<LitStr>,
    pub schema: Option<LitStr>,
    pub key: Option<LitStr>,
    pub envelope: Option<SpannedValue<EnvelopeAttr>>,
    pub conventions: Option<Path>,
    #[darling(multiple)]
    pub migrate_from: Vec<StepsAttr>,
    /// `revisions = 10`, or `revisions(keep = 10, for = "30d")`.
    pub revisions: Option<RevisionsAttr>,
    /// `lookup = "email::{email}"`, or `lookup("customer_ref::{customer_no}", ref_id)`.
    #[darling(multiple)]
    pub lookup: Vec<LookupAttr>,
    /// `index = "customer_no"` or `index = "customer_no, placed_at"`: a non-unique index over fields.
    #[darling(multiple)]
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
    pub items: Option<darling::util::PathList>,
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
    #[darling(rename = "crate")]
    pub krate: Option<Path>,
}

/// `envelope(layout = "plain", timestamps = "epoch_s", created_by, names(type = "docType"))`.
#[derive(FromMeta, Default)]
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
    fn from_list(items: &[NestedMeta]) -> darling::Result<Self> {
        let mut names = NamesAttr::default();
        let mut errors = darling::Error::accumulator();
        for item in items {
            let NestedMeta::Meta(Meta::NameValue(option)) = item else {
                errors.push(
                    darling::Error::unsupported_format("a `field = \"name\"` pair").with_span(item),
                );
                continue;
            };
            let Some(ident) = option.path.get_ident().map(Ident::to_string) else {
                errors
                    .push(darling::Error::unknown_field_path(&option.path).with_span(&option.path));
                continue;
            };
            let Some(name) = errors.handle(
                LitStr::from_expr(&option.value).map_err(|err| err.with_span(&option.value)),
            ) else {
                continue;
            };
            let field = Field::ALL.into_iter().find(|field| field.option() == ident);
            match field {
                Some(field) if names.of(field).is_some() => {
                    errors.push(darling::Error::duplicate_field(&ident).with_span(&option.path));
                }
                Some(field) => names.renamed.push((field, name)),
                None if ident == "meta" && names.meta.is_some() => {
                    errors.push(darling::Error::duplicate_field(&ident).with_span(&option.path));
                }
                None if ident == "meta" => names.meta = Some(name),
                None => {
                    let options: Vec<&str> = Field::ALL
                        .into_iter()
                        .map(Field::option)
                        .chain(["meta"])
                        .collect();
                    errors.push(
                        darling::Error::unknown_field_with_alts(&ident, &options)
                            .with_span(&option.path),
                    );
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
    fn from_meta(item: &Meta) -> darling::Result<Self> {
        let usage = "write `lookup = \"email::{email}\"`, or `lookup(\"customer_ref::{customer_no}\", ref_id)` \
                     for a lookup document that holds the bare id";
        match item {
            Meta::NameValue(option) => LitStr::from_expr(&option.value)
                .map(|template| LookupAttr {
                    template,
                    ref_id: None,
                })
                .map_err(|_| darling::Error::custom(usage).with_span(&option.value)),
            Meta::List(list) => {
                let items = NestedMeta::parse_meta_list(list.tokens.clone())?;
                let mut errors = darling::Error::accumulator();
                let mut items = items.iter();
                let template = match items.next() {
                    Some(NestedMeta::Lit(Lit::Str(template))) => Some(template.clone()),
                    Some(other) => {
                        errors.push(darling::Error::custom(usage).with_span(other));
                        None
                    }
                    None => {
                        errors.push(darling::Error::custom(usage).with_span(list));
                        None
                    }
                };
                let mut ref_id = None;
                for option in items {
                    match option {
                        NestedMeta::Meta(Meta::Path(path)) if path.is_ident("ref_id") => {
                            if ref_id.is_some() {
                                errors.push(
                                    darling::Error::duplicate_field("ref_id").with_span(path),
                                );
                            }
                            ref_id = Some(path.clone());
                        }
                        NestedMeta::Meta(meta) => errors.push(
                            darling::Error::unknown_field_with_alts(
                                &meta.path().to_token_stream().to_string(),
                                &["ref_id"],
                            )
                            .with_span(meta.path()),
                        ),
                        other => errors.push(darling::Error::custom(usage).with_span(other)),
                    }
                }
                errors.finish()?;
                Ok(LookupAttr {
                    template: template.ok_or_else(|| darling::Error::custom(usage))?,
                    ref_id,
                })
            }
            Meta::Path(path) => Err(darling::Error::custom(usage).with_span(path)),
        }
    }
}

/// `aliases("userProfile", "UserProfile")`: the items as written; `ast.rs` reads each, so that a mistake in
/// one does not hide the checks of the others.
pub struct Aliases(pub Vec<NestedMeta>);

/// `revisions = 10` (count alone), or `revisions(keep = 10, for = "30d")`: a copy goes only when both past
/// the count and displaced longer ago than the age (read in `ast.rs`).
pub struct RevisionsAttr {
    pub keep: SpannedValue<u64>,
    /// `for = "30d"`, as written.
    pub age: Option<LitStr>,
}

/// The list form of [`RevisionsAttr`].
#[derive(FromMeta)]
struct RevisionsList {
    keep: SpannedValue<u64>,
    #[darling(rename = "for")]
    age: Option<LitStr>,
}

impl FromMeta for RevisionsAttr {
    fn from_meta(item: &Meta) -> darling::Result<Self> {
        match item {
            Meta::NameValue(_) => Ok(RevisionsAttr {
                keep: SpannedValue::from_meta(item)?,
                age: None,
            }),
            Meta::List(list) => {
                let items = NestedMeta::parse_meta_list(list.tokens.clone())?;
                let RevisionsList { keep, age } = RevisionsList::from_list(&items)?;
                Ok(RevisionsAttr { keep, age })
            }
            Meta::Path(path) => Err(darling::Error::custom(
                "write `revisions = 10` to keep the last 10 versions, or `revisions(keep = 10, for = \"30d\")` \
                 to keep every version for 30 days after it was replaced as well",
            )
            .with_span(path)),
        }
    }
}

impl FromMeta for Aliases {
    fn from_list(items: &[NestedMeta]) -> darling::Result<Self> {
        Ok(Aliases(items.to_vec()))
    }
}

/// `#[docmodel(...)]` on a field.
#[derive(FromField)]
#[darling(attributes(docmodel), forward_attrs(doc, serde))]
pub struct FieldAttr {
    pub ident: Option<Ident>,
    pub ty: Type,
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
    /// hide the model's other mistakes (darling would stop at the attributes).
    pub problems: std::cell::RefCell<Option<darling::Error>>,
}

/// The rules a merge takes by name.
pub const MERGE_RULES: [&str; 6] = ["ours", "theirs", "newer", "max", "min", "union"];

impl FromMeta for MergeAttr {
    fn from_meta(item: &Meta) -> darling::Result<Self> {
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
        let mut errors = darling::Error::accumulator();
        let items = match item {
            Meta::List(list) => errors.handle(
                NestedMeta::parse_meta_list(list.tokens.clone())
                    .map_err(|err| darling::Error::from(err).with_span(list)),
            ),
            _ => None,
        };
        match item {
            Meta::Path(path) => errors.push(darling::Error::custom(usage).with_span(path)),
            Meta::NameValue(option) => match &option.value {
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(rule),
                    ..
                }) => merge.rule = Some((rule.value(), rule.span())),
                Expr::Path(path) => merge.with = Some(path.path.clone()),
                other => errors.push(darling::Error::custom(usage).with_span(other)),
            },
            Meta::List(list) => {
                let parsed = items.is_some();
                let items = items.unwrap_or_default();
                if parsed && items.is_empty() {
                    errors.push(darling::Error::custom(usage).with_span(list));
                }
                for item in &items {
                    match item {
                        NestedMeta::Meta(Meta::Path(path)) => match path.get_ident() {
                            Some(rule) if merge.rule.is_some() => errors.push(
                                darling::Error::custom(format!(
                                    "`{rule}`: `merge` takes one rule, and `{}` is given already",
                                    merge.rule.as_ref().map_or("", |(rule, _)| rule.as_str())
                                ))
                                .with_span(path),
                            ),
                            Some(rule) => merge.rule = Some((rule.to_string(), rule.span())),
                            None => errors.push(darling::Error::custom(usage).with_span(path)),
                        },
                        NestedMeta::Meta(Meta::NameValue(option)) => {
                            let name = option.path.get_ident().map(Ident::to_string);
                            match name.as_deref() {
                                Some("by") | Some("order_by") => {
                                    let Some(value) = errors.handle(
                                        LitStr::from_expr(&option.value)
                                            .map_err(|err| err.with_span(&option.value)),
                                    ) else {
                                        continue;
                                    };
                                    let slot = match name.as_deref() {
                                        Some("by") => &mut merge.by,
                                        _ => &mut merge.order_by,
                                    };
                                    if slot.is_some() {
                                        errors.push(
                                            darling::Error::duplicate_field_path(&option.path)
                                                .with_span(&option.path),
                                        );
                                    }
                                    *slot = Some(value);
                                }
                                Some("with") => match &option.value {
                                    Expr::Path(path) if merge.with.is_none() => {
                                        merge.with = Some(path.path.clone());
                                    }
                                    Expr::Path(_) => errors.push(
                                        darling::Error::duplicate_field_path(&option.path)
                                            .with_span(&option.path),
                                    ),
                                    other => errors.push(
                                        darling::Error::custom(
                                            "`with = path::to::function`: the merge function's path",
                                        )
                                        .with_span(other),
                                    ),
                                },
                                _ => errors.push(
                                    darling::Error::unknown_field_with_alts(
                                        &option.path.to_token_stream().to_string(),
                                        &["by", "order_by", "with"],
                                    )
                                    .with_span(&option.path),
                                ),
                            }
                        }
                        other => errors.push(darling::Error::custom(usage).with_span(other)),
                    }
                }
            }
        }
        merge.problems = std::cell::RefCell::new(errors.finish().err());
        Ok(merge)
    }
}

/// `skip_empty(default)`: a value equal to its type's `Default` is left out too.
#[derive(FromMeta, Default, Clone)]
pub struct SkipEmptyAttr {
    pub default: Flag,
}

/// `allow(reserved_word)`.
#[derive(FromMeta, Default)]
pub struct AllowAttr {
    /// A stored field name that SQL++ reserves is not warned of.
    pub reserved_word: Flag,
    /// Key parts may hold control, bidirectional and invisible characters (on the model only).
    pub control_chars_in_keys: Flag,
}

/// `get(copy)`: return the value instead of a reference.
#[derive(FromMeta, Default, Clone)]
pub struct GetAttr {
    pub copy: Flag,
}

/// `set(with = path::to::check)`.
#[derive(FromMeta, Default, Clone)]
pub struct SetAttr {
    pub with: Option<Path>,
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
    fn from_meta(item: &Meta) -> darling::Result<Self> {
        let usage = "write `migrate_from(\"1.0\" = step_fn, \"2.0\" = OlderModel)` or `migrate_from = \"2.0\" = step_fn`";
        match item {
            Meta::List(list) => {
                let steps =
                    list.parse_args_with(Punctuated::<StepAttr, Token![,]>::parse_terminated)?;
                if steps.is_empty() {
                    return Err(
                        darling::Error::custom(format!("no steps listed; {usage}")).with_span(list)
                    );
                }
                Ok(StepsAttr(steps.into_iter().collect()))
            }
            Meta::NameValue(card) => match &card.value {
                Expr::Assign(assign) => match (&*assign.left, &*assign.right) {
                    (
                        Expr::Lit(syn::ExprLit {
                            lit: Lit::Str(version),
                            ..
                        }),
                        Expr::Path(target),
                    ) if target.qself.is_none() => Ok(StepsAttr(vec![StepAttr {
                        version: version.clone(),
                        target: target.path.clone(),
                    }])),
                    _ => Err(darling::Error::custom(usage).with_span(&card.value)),
                },
                other => Err(darling::Error::custom(usage).with_span(other)),
            },
            Meta::Path(path) => Err(darling::Error::custom(usage).with_span(path)),
        }
    }
}
