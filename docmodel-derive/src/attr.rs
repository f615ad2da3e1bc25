//! What the user wrote in `#[docmodel(...)]`, parsed by darling with spans kept.

use darling::util::{Flag, Override, SpannedValue};
use darling::{FromDeriveInput, FromField, FromMeta};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, Generics, Ident, Lit, LitStr, Meta, Path, Token, Type, Visibility};

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
    pub revisions: Option<SpannedValue<u64>>,
    #[darling(multiple)]
    pub lookup: Vec<LitStr>,
    /// `bound = "T: Trait"`: the where-clause predicates of the generated impls, instead of the derive's.
    pub bound: Option<LitStr>,
    #[darling(rename = "crate")]
    pub krate: Option<Path>,
}

/// `envelope(layout = "plain", timestamps = "epoch_s", created_by, names(type = "docType"))`.
#[derive(FromMeta, Default)]
pub struct EnvelopeAttr {
    pub layout: Option<SpannedValue<LayoutAttr>>,
    pub timestamps: Option<SpannedValue<TimestampsAttr>>,
    pub created_by: Flag,
    pub modified_by: Flag,
    pub accessed: Flag,
    pub geo: Flag,
    pub names: Option<NamesAttr>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum LayoutAttr {
    Flat,
    Plain,
    Meta,
}

impl FromMeta for LayoutAttr {
    fn from_string(value: &str) -> darling::Result<Self> {
        match value {
            "flat" => Ok(LayoutAttr::Flat),
            "plain" => Ok(LayoutAttr::Plain),
            "meta" => Ok(LayoutAttr::Meta),
            _ => Err(darling::Error::unknown_value_with_alts(
                value,
                &["flat", "plain", "meta"],
            )),
        }
    }
}

impl LayoutAttr {
    pub fn variant(self) -> &'static str {
        match self {
            LayoutAttr::Flat => "Flat",
            LayoutAttr::Plain => "Plain",
            LayoutAttr::Meta => "Meta",
        }
    }
}

pub const TIMESTAMP_FORMATS: [(&str, &str); 6] = [
    ("epoch_ms", "EpochMs"),
    ("epoch_s", "EpochS"),
    ("epoch_min", "EpochMin"),
    ("epoch_h", "EpochH"),
    ("epoch_day", "EpochDay"),
    ("iso8601", "Iso8601"),
];

/// A timestamp format, by its name in [`TIMESTAMP_FORMATS`].
#[derive(Clone, Copy)]
pub struct TimestampsAttr(pub usize);

impl FromMeta for TimestampsAttr {
    fn from_string(value: &str) -> darling::Result<Self> {
        TIMESTAMP_FORMATS
            .iter()
            .position(|(name, _)| *name == value)
            .map(TimestampsAttr)
            .ok_or_else(|| {
                darling::Error::unknown_value_with_alts(
                    value,
                    TIMESTAMP_FORMATS.iter().map(|(name, _)| name),
                )
            })
    }
}

/// `names(type = "docType", created = "ctime", meta = "_meta")`.
#[derive(FromMeta, Default)]
pub struct NamesAttr {
    #[darling(rename = "type")]
    pub type_name: Option<LitStr>,
    pub schema: Option<LitStr>,
    pub ver: Option<LitStr>,
    pub created: Option<LitStr>,
    pub created_by: Option<LitStr>,
    pub modified: Option<LitStr>,
    pub modified_by: Option<LitStr>,
    pub accessed: Option<LitStr>,
    pub geo: Option<LitStr>,
    pub meta: Option<LitStr>,
}

impl NamesAttr {
    /// The renamed envelope fields, as (`EnvelopeField` variant, new name).
    pub fn renamed(&self) -> impl Iterator<Item = (&'static str, &LitStr)> {
        [
            ("Type", &self.type_name),
            ("Schema", &self.schema),
            ("Ver", &self.ver),
            ("Created", &self.created),
            ("CreatedBy", &self.created_by),
            ("Modified", &self.modified),
            ("ModifiedBy", &self.modified_by),
            ("Accessed", &self.accessed),
            ("Geo", &self.geo),
        ]
        .into_iter()
        .filter_map(|(field, name)| name.as_ref().map(|name| (field, name)))
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
