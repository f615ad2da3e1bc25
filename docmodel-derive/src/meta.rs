//! The pieces `attr.rs` reads `#[docmodel(...)]` with: the items of an attribute list, the errors collected
//! from all of them, and the values an option takes (a flag, a string, a path, a word or its list).
//!
//! Every error of an input is collected ([`Accumulator`]) and put on the narrowest token, so that one bad model
//! yields one error per mistake, all at once. An item is parsed to its shape alone (`name`, `name = ...`,
//! `name(...)`, a literal), and its value only by the option that takes it: an option's mistake never hides
//! another's.

use std::fmt;

use proc_macro2::{Delimiter, Group, Spacing, Span, TokenStream, TokenTree};
use quote::{ToTokens, TokenStreamExt};
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, Ident, Lit, LitStr, Path, PathSegment, Token};

/// One or more errors, each with the span of the token it is about (once one is given).
#[derive(Debug)]
pub struct Error {
    errors: Vec<Single>,
}

#[derive(Debug)]
struct Single {
    span: Option<Span>,
    message: String,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error with `message`.
    pub fn custom(message: impl fmt::Display) -> Self {
        Error {
            errors: vec![Single {
                span: None,
                message: message.to_string(),
            }],
        }
    }

    /// An option given twice.
    pub fn duplicate_field(name: &str) -> Self {
        Error::custom(format_args!("Duplicate field `{name}`"))
    }

    /// An option that must be given and is not.
    pub fn missing_field(name: &str) -> Self {
        Error::custom(format_args!("Missing field `{name}`"))
    }

    /// An option the list does not take; the closest one it takes is suggested, or else all of them.
    pub fn unknown_field(name: &str, known: &[&str]) -> Self {
        Error::custom(Unknown {
            noun: "field",
            value: name,
            known,
        })
    }

    /// A value the option does not take; the closest one it takes is suggested, or else all of them.
    pub fn unknown_value(value: &str, known: &[&str]) -> Self {
        Error::custom(Unknown {
            noun: "value",
            value,
            known,
        })
    }

    /// An item written in a form (`word`, `list`, `value`, `literal`) its option does not take.
    pub fn unsupported_format(format: &str) -> Self {
        Error::custom(format_args!("Unexpected meta-item format `{format}`"))
    }

    /// A literal of another type than the option takes, at the literal.
    pub fn unexpected_lit_type(lit: &Lit) -> Self {
        let kind = match lit {
            Lit::Str(_) => "string",
            Lit::ByteStr(_) => "byte string",
            Lit::CStr(_) => "C string",
            Lit::Byte(_) => "byte",
            Lit::Char(_) => "char",
            Lit::Int(_) => "int",
            Lit::Float(_) => "float",
            Lit::Bool(_) => "bool",
            _ => "unknown",
        };
        Error::custom(format_args!("Unexpected type `{kind}`")).with_span(lit)
    }

    /// Puts the span of `node` on every error that has none yet: the narrowest token wins.
    pub fn with_span<T: Spanned + ?Sized>(self, node: &T) -> Self {
        self.at(node.span())
    }

    /// [`Error::with_span`] with a span.
    pub fn at(mut self, span: Span) -> Self {
        for error in &mut self.errors {
            error.span.get_or_insert(span);
        }
        self
    }

    /// Each error's message, in order.
    #[cfg(test)]
    pub fn messages(&self) -> Vec<&str> {
        self.errors
            .iter()
            .map(|error| error.message.as_str())
            .collect()
    }

    /// The errors as `compile_error!` invocations, each at its token.
    pub fn write_errors(self) -> TokenStream {
        self.errors
            .into_iter()
            .map(|error| {
                syn::Error::new(error.span.unwrap_or_else(Span::call_site), error.message)
                    .into_compile_error()
            })
            .collect()
    }
}

impl From<syn::Error> for Error {
    fn from(error: syn::Error) -> Self {
        Error {
            errors: error
                .into_iter()
                .map(|error| Single {
                    span: Some(error.span()),
                    message: error.to_string(),
                })
                .collect(),
        }
    }
}

/// The errors of an input, collected so that each is reported.
#[derive(Default)]
pub struct Accumulator {
    errors: Vec<Single>,
}

impl Accumulator {
    pub fn push(&mut self, error: Error) {
        self.errors.extend(error.errors);
    }

    /// The value, or `None` with its error kept.
    pub fn handle<T>(&mut self, result: Result<T>) -> Option<T> {
        result.map_err(|error| self.push(error)).ok()
    }

    pub fn finish(self) -> Result<()> {
        self.finish_with(())
    }

    /// `value`, if no error was collected.
    pub fn finish_with<T>(self, value: T) -> Result<T> {
        if self.errors.is_empty() {
            Ok(value)
        } else {
            Err(Error {
                errors: self.errors,
            })
        }
    }
}

/// "Unknown field: `tpye`. Did you mean `type`?"
struct Unknown<'a> {
    noun: &'a str,
    value: &'a str,
    known: &'a [&'a str],
}

impl fmt::Display for Unknown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Unknown {}: `{}`", self.noun, self.value)?;
        let mut known = self.known.to_vec();
        known.sort_unstable();
        known.dedup();
        // The most similar name, if similar enough; the first of equals.
        let mut closest: Option<(f64, &str)> = None;
        for name in &known {
            let score = jaro_winkler(self.value, name);
            if score > 0.8 && closest.is_none_or(|(best, _)| best < score) {
                closest = Some((score, name));
            }
        }
        if let Some((_, name)) = closest {
            write!(f, ". Did you mean `{name}`?")
        } else if !known.is_empty() && known.len() < 10 {
            let known: Vec<String> = known.iter().map(|name| format!("`{name}`")).collect();
            write!(f, ". Available values: {}", known.join(", "))
        } else {
            Ok(())
        }
    }
}

/// The Jaro-Winkler similarity of two names, from 0 (nothing alike) to 1 (equal), by characters; as strsim
/// computes it.
fn jaro_winkler(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let jaro = jaro(&a, &b);
    if jaro > 0.7 {
        let prefix = a.iter().take(4).zip(&b).take_while(|(a, b)| a == b).count();
        jaro + 0.1 * prefix as f64 * (1.0 - jaro)
    } else {
        jaro
    }
}

fn jaro(a: &[char], b: &[char]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let range = (a.len().max(b.len()) / 2).saturating_sub(1);
    let mut a_matched = vec![false; a.len()];
    let mut b_matched = vec![false; b.len()];
    let mut matches = 0usize;
    for (i, ca) in a.iter().enumerate() {
        let low = i.saturating_sub(range);
        let high = b.len().min(i + range + 1);
        for j in low..high {
            if !b_matched[j] && b[j] == *ca {
                a_matched[i] = true;
                b_matched[j] = true;
                matches += 1;
                break;
            }
        }
    }
    if matches == 0 {
        return 0.0;
    }
    let a_order = a
        .iter()
        .zip(&a_matched)
        .filter(|(_, m)| **m)
        .map(|(c, _)| c);
    let b_order = b
        .iter()
        .zip(&b_matched)
        .filter(|(_, m)| **m)
        .map(|(c, _)| c);
    let transpositions = a_order.zip(b_order).filter(|(a, b)| a != b).count() / 2;
    let matches = matches as f64;
    (matches / a.len() as f64
        + matches / b.len() as f64
        + (matches - transpositions as f64) / matches)
        / 3.0
}

/// One item of an attribute list: an option (`name`, `name = value`, `name(...)`) or a literal.
#[derive(Clone)]
pub enum Nested {
    Meta(Meta),
    Lit(Lit),
}

/// An option, with its value parsed only as far as its shape.
#[derive(Clone)]
pub struct Meta {
    pub path: Path,
    pub kind: Kind,
}

#[derive(Clone)]
pub enum Kind {
    /// `name`
    Word,
    /// `name(...)`: the parenthesised group.
    List(Group),
    /// `name = ...`
    Value(Value),
}

/// What follows `=`: the tokens up to the next comma at the list's level.
#[derive(Clone)]
pub struct Value {
    pub eq: Token![=],
    pub tokens: TokenStream,
}

impl Meta {
    /// The option's name as written: `type`, `crate`, `a::b`.
    pub fn name(&self) -> String {
        path_name(&self.path)
    }
}

/// A path's segments joined by `::`.
pub fn path_name(path: &Path) -> String {
    let segments: Vec<String> = path
        .segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect();
    segments.join("::")
}

impl Value {
    /// The tokens, out of the invisible group a `macro_rules!` may wrap them in.
    fn inner(&self) -> TokenStream {
        let mut tokens = self.tokens.clone().into_iter();
        match (tokens.next(), tokens.next()) {
            (Some(TokenTree::Group(group)), None) if group.delimiter() == Delimiter::None => {
                group.stream()
            }
            _ => self.tokens.clone(),
        }
    }

    /// The value as a literal, or an error naming what it is instead.
    pub fn lit(&self) -> Result<Lit> {
        if self.tokens.is_empty() {
            return Err(Error::custom("expected a value after `=`").with_span(&self.eq));
        }
        let tokens = self.inner();
        if let Ok(lit) = syn::parse2::<Lit>(tokens.clone()) {
            return Ok(lit);
        }
        let kind = if syn::parse2::<Path>(tokens.clone()).is_ok() {
            "path"
        } else {
            match tokens.into_iter().next() {
                Some(TokenTree::Punct(punct)) if matches!(punct.as_char(), '-' | '!' | '*') => {
                    "unary"
                }
                Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Bracket => "array",
                Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Parenthesis => {
                    "tuple"
                }
                Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Brace => "block",
                _ => "unknown",
            }
        };
        Err(Error::custom(format_args!("Unexpected type `{kind}`")).with_span(&self.tokens))
    }

    /// The value as a path, written bare (`check_user`) or as a string (`"check_user"`).
    pub fn path(&self) -> Result<Path> {
        let tokens = self.inner();
        if let (false, Ok(path)) = (tokens.is_empty(), syn::parse2::<Path>(tokens)) {
            return Ok(path);
        }
        match self.lit()? {
            Lit::Str(lit) => lit.parse().map_err(Error::from),
            other => Err(Error::unexpected_lit_type(&other)),
        }
    }
}

impl Parse for Nested {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(Lit) {
            return input.parse().map(Nested::Lit);
        }
        let path = meta_path(input)?;
        let kind = if input.peek(Token![=]) {
            let eq = input.parse()?;
            Kind::Value(Value {
                eq,
                tokens: value_tokens(input)?,
            })
        } else if input.peek(syn::token::Paren)
            || input.peek(syn::token::Bracket)
            || input.peek(syn::token::Brace)
        {
            Kind::List(input.parse()?)
        } else {
            Kind::Word
        };
        Ok(Nested::Meta(Meta { path, kind }))
    }
}

/// The tokens of a value, up to the next comma that is not between the angle brackets of generic arguments
/// (`validate = check::<u8, u16>`).
fn value_tokens(input: ParseStream) -> syn::Result<TokenStream> {
    let mut tokens = TokenStream::new();
    let (mut depth, mut after_dash) = (0usize, false);
    // Until the end, or a comma at the list's level.
    while !(input.is_empty() || (depth == 0 && input.peek(Token![,]))) {
        let tree = input.parse::<TokenTree>()?;
        after_dash = match &tree {
            TokenTree::Punct(punct) => {
                match punct.as_char() {
                    '<' => depth += 1,
                    // The `>` of `->` closes nothing.
                    '>' if !after_dash => depth = depth.saturating_sub(1),
                    _ => {}
                }
                punct.as_char() == '-' && punct.spacing() == Spacing::Joint
            }
            _ => false,
        };
        tokens.append(tree);
    }
    Ok(tokens)
}

/// An option's name: identifiers, keywords among them (`type`, `crate`, `for`), joined by `::`.
fn meta_path(input: ParseStream) -> syn::Result<Path> {
    let leading_colon = input.parse()?;
    let mut segments = Punctuated::new();
    loop {
        segments.push_value(PathSegment::from(Ident::parse_any(input)?));
        if !input.peek(Token![::]) {
            break;
        }
        segments.push_punct(input.parse()?);
    }
    Ok(Path {
        leading_colon,
        segments,
    })
}

impl ToTokens for Nested {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        match self {
            Nested::Meta(meta) => meta.to_tokens(tokens),
            Nested::Lit(lit) => lit.to_tokens(tokens),
        }
    }
}

impl ToTokens for Meta {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        self.path.to_tokens(tokens);
        match &self.kind {
            Kind::Word => {}
            Kind::List(group) => tokens.append(group.clone()),
            Kind::Value(value) => value.to_tokens(tokens),
        }
    }
}

impl ToTokens for Value {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        self.eq.to_tokens(tokens);
        tokens.extend(self.tokens.clone());
    }
}

/// `parser` run on the contents of `group`, where the end of the input is the group's closing delimiter (an
/// error about what is missing at the end points there).
pub fn parse_group_with<P: Parser>(group: &Group, parser: P) -> syn::Result<P::Output> {
    let span = group.delim_span();
    let delimiter = match group.delimiter() {
        Delimiter::Bracket => syn::MacroDelimiter::Bracket(syn::token::Bracket { span }),
        Delimiter::Brace => syn::MacroDelimiter::Brace(syn::token::Brace { span }),
        _ => syn::MacroDelimiter::Paren(syn::token::Paren { span }),
    };
    let list = syn::MetaList {
        path: Path::from(Ident::new("docmodel", span.open())),
        delimiter,
        tokens: group.stream(),
    };
    list.parse_args_with(parser)
}

/// The items of a list: `(a, b = 1, c("x"))`.
pub fn parse_list(tokens: TokenStream) -> Result<Vec<Nested>> {
    let items = Punctuated::<Nested, Token![,]>::parse_terminated.parse2(tokens)?;
    Ok(items.into_iter().collect())
}

/// The items of every `#[docmodel(...)]` among `attrs`, in order. A list that does not parse is an error, and
/// the others are still read.
pub fn docmodel_items(attrs: &[Attribute], errors: &mut Accumulator) -> Vec<Nested> {
    let mut items = Vec::new();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("docmodel")) {
        match &attr.meta {
            syn::Meta::List(list) => {
                if let Some(parsed) = errors.handle(parse_list(list.tokens.clone())) {
                    items.extend(parsed);
                }
            }
            // `#[docmodel]` alone says nothing, and is accepted as darling accepted it.
            syn::Meta::Path(_) => {}
            other @ syn::Meta::NameValue(_) => errors.push(
                Error::custom("write the options in a list: `#[docmodel(...)]`").with_span(other),
            ),
        }
    }
    items
}

/// The attributes among `attrs` that the derive reads besides its own (`serde`, `doc`).
pub fn forwarded(attrs: &[Attribute], names: &[&str]) -> Vec<Attribute> {
    attrs
        .iter()
        .filter(|attr| names.iter().any(|name| attr.path().is_ident(name)))
        .cloned()
        .collect()
}

/// Reads the options of a list: each option `known` names through `read`, once unless `multiple` names it
/// too. An unknown option, one given twice, or a literal is an error at its token; the rest are still read.
pub fn each_option(
    items: &[Nested],
    known: &[&str],
    multiple: &[&str],
    errors: &mut Accumulator,
    mut read: impl FnMut(&str, &Meta, &mut Accumulator),
) {
    let mut seen: Vec<String> = Vec::new();
    for item in items {
        let meta = match item {
            Nested::Meta(meta) => meta,
            Nested::Lit(lit) => {
                errors.push(Error::unsupported_format("literal").with_span(lit));
                continue;
            }
        };
        let name = meta.name();
        if !known.contains(&name.as_str()) {
            errors.push(Error::unknown_field(&name, known).with_span(&meta.path));
        } else if seen.contains(&name) && !multiple.contains(&name.as_str()) {
            errors.push(Error::duplicate_field(&name).with_span(&meta.path));
        } else {
            read(&name, meta, errors);
            seen.push(name);
        }
    }
}

/// What an option's value is read into.
pub trait FromMeta: Sized {
    /// Dispatches on the item's shape; an error without a span of its own gets the item's.
    fn from_meta(meta: &Meta) -> Result<Self> {
        match &meta.kind {
            Kind::Word => Self::from_word(),
            Kind::List(group) => {
                parse_list(group.stream()).and_then(|items| Self::from_list(&items))
            }
            Kind::Value(value) => Self::from_value(value),
        }
        .map_err(|error| error.with_span(meta))
    }

    fn from_word() -> Result<Self> {
        Err(Error::unsupported_format("word"))
    }

    fn from_list(_items: &[Nested]) -> Result<Self> {
        Err(Error::unsupported_format("list"))
    }

    fn from_value(value: &Value) -> Result<Self> {
        let lit = value.lit()?;
        Self::from_lit(&lit).map_err(|error| error.with_span(&lit))
    }

    fn from_lit(lit: &Lit) -> Result<Self> {
        Err(Error::unexpected_lit_type(lit))
    }
}

/// Reads `meta` into `slot`; on an error `slot` stays empty and the error is kept.
pub fn set<T: FromMeta>(slot: &mut Option<T>, meta: &Meta, errors: &mut Accumulator) {
    *slot = errors.handle(T::from_meta(meta));
}

impl FromMeta for LitStr {
    fn from_lit(lit: &Lit) -> Result<Self> {
        match lit {
            Lit::Str(lit) => Ok(lit.clone()),
            other => Err(Error::unexpected_lit_type(other)),
        }
    }
}

/// A count, written as a number (`10`) or as a string of one (`"10"`), as darling read it.
impl FromMeta for u64 {
    fn from_lit(lit: &Lit) -> Result<Self> {
        match lit {
            Lit::Int(int) => int.base10_parse().map_err(Error::from),
            Lit::Str(text) => text
                .value()
                .parse()
                .map_err(|_| Error::unknown_value(&text.value(), &[]).with_span(text)),
            other => Err(Error::unexpected_lit_type(other)),
        }
    }
}

impl FromMeta for Path {
    fn from_value(value: &Value) -> Result<Self> {
        value.path()
    }
}

impl FromMeta for Ident {
    fn from_value(value: &Value) -> Result<Self> {
        let path = value.path()?;
        path.get_ident()
            .cloned()
            .ok_or_else(|| Error::custom("expected an identifier").with_span(&path))
    }
}

/// `items(Bookmark, Folder)`: paths, each written alone.
impl FromMeta for Vec<Path> {
    fn from_list(items: &[Nested]) -> Result<Self> {
        items
            .iter()
            .map(|item| match item {
                Nested::Meta(Meta {
                    path,
                    kind: Kind::Word,
                }) => Ok(path.clone()),
                other => Err(Error::custom("Unexpected type `non-word`").with_span(other)),
            })
            .collect()
    }
}

/// A value with the span of the whole option it was read from.
pub struct SpannedValue<T> {
    value: T,
    span: Span,
}

impl<T> SpannedValue<T> {
    pub fn span(&self) -> Span {
        self.span
    }
}

impl<T> std::ops::Deref for SpannedValue<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T: FromMeta> FromMeta for SpannedValue<T> {
    /// The span is the value's: the word, the list's contents, or what follows `=`.
    fn from_meta(meta: &Meta) -> Result<Self> {
        let value = T::from_meta(meta)?;
        let span = match &meta.kind {
            Kind::Word => meta.path.span(),
            Kind::List(group) => group.stream().span(),
            Kind::Value(value) => value.tokens.span(),
        };
        Ok(SpannedValue { value, span })
    }
}

/// An option that is a word alone (`garde`): whether it is written, and where.
#[derive(Default, Clone, Copy)]
pub struct Flag(Option<Span>);

impl Flag {
    pub fn is_present(&self) -> bool {
        self.0.is_some()
    }

    /// Where it is written (the call site if it is not).
    pub fn span(&self) -> Span {
        self.0.unwrap_or_else(Span::call_site)
    }
}

impl FromMeta for Flag {
    /// A word alone; a value is an error at the value, and each item of a list one at the item.
    fn from_meta(meta: &Meta) -> Result<Self> {
        match &meta.kind {
            Kind::Word => Ok(Flag(Some(meta.path.span()))),
            Kind::Value(value) => match value.lit() {
                Ok(lit) => Err(Error::unexpected_lit_type(&lit)),
                Err(error) => Err(error),
            },
            Kind::List(group) => {
                let items = parse_list(group.stream())?;
                let mut errors = Accumulator::default();
                if items.is_empty() {
                    errors.push(Error::unsupported_format("list").with_span(meta));
                }
                for item in &items {
                    errors.push(match item {
                        Nested::Meta(inner) => {
                            Error::unknown_field(&inner.name(), &[]).with_span(inner)
                        }
                        Nested::Lit(lit) => Error::unexpected_lit_type(lit),
                    });
                }
                errors.finish_with(Flag(None))
            }
        }
    }
}

/// `get` alone, or `get(copy)` with options.
#[derive(Clone)]
pub enum Override<T> {
    Inherit,
    Explicit(T),
}

impl<T: FromMeta> FromMeta for Override<T> {
    fn from_word() -> Result<Self> {
        Ok(Override::Inherit)
    }

    fn from_list(items: &[Nested]) -> Result<Self> {
        T::from_list(items).map(Override::Explicit)
    }

    fn from_value(value: &Value) -> Result<Self> {
        T::from_value(value).map(Override::Explicit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_near_miss_is_suggested_and_a_far_one_lists_the_options() {
        let message =
            |name, known: &[&str]| Error::unknown_field(name, known).errors[0].message.clone();
        assert_eq!(
            message("tpye", &["type", "schema", "key"]),
            "Unknown field: `tpye`. Did you mean `type`?"
        );
        assert_eq!(
            message("sort", &["with", "by", "order_by"]),
            "Unknown field: `sort`. Available values: `by`, `order_by`, `with`"
        );
        let many: Vec<String> = (0..10).map(|n| format!("option{n}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert_eq!(message("zzz", &many), "Unknown field: `zzz`");
    }

    #[test]
    fn similarity_is_strsims_jaro_winkler() {
        // strsim's own examples.
        assert!((jaro_winkler("cheeseburger", "cheese fries") - 0.866).abs() < 0.001);
        assert!((jaro_winkler("dixon", "dicksonx") - 0.813).abs() < 0.001);
        assert!((jaro(&['a'], &[]) - 0.0).abs() < f64::EPSILON);
        assert_eq!(jaro_winkler("", ""), 1.0);
        assert_eq!(jaro_winkler("type", "type"), 1.0);
    }

    #[test]
    fn items_keep_their_shape_and_keywords_are_names() {
        let items = parse_list(quote::quote!(type = "user", garde, revisions(keep = 3), "alias", migrate_from = "2.0" = step))
            .unwrap_or_else(|_| panic!("parses"));
        let shapes: Vec<String> = items
            .iter()
            .map(|item| match item {
                Nested::Lit(_) => "lit".to_owned(),
                Nested::Meta(meta) => match &meta.kind {
                    Kind::Word => format!("{} word", meta.name()),
                    Kind::List(_) => format!("{} list", meta.name()),
                    Kind::Value(value) => format!("{} = {}", meta.name(), value.tokens),
                },
            })
            .collect();
        assert_eq!(
            shapes,
            [
                "type = \"user\"",
                "garde word",
                "revisions list",
                "lit",
                "migrate_from = \"2.0\" = step"
            ]
        );
    }
}
