//! What a body field's type tells of its stored JSON: an example value for the page's Stored JSON and the
//! form in words for its Fields. std's types and docmodel's own are known by their names; anything else
//! (an enum, a struct, a type parameter, a field serde writes its own way) is named in a placeholder,
//! `"<Status>"`, since its JSON is only known once it is compiled.

use quote::quote;
use syn::{GenericArgument, PathArguments, Type};

use crate::ast::{Complete, Field};
use crate::serde_names::FieldNames;

/// A value as the example shows it, and its form in words.
pub struct Shape {
    /// JSON: the value itself where its type says it (`0`, `"…"`, `[...]`), otherwise a string naming the
    /// type (`"<Status>"`).
    pub example: String,
    /// "a number", "an array, each a string", ...
    pub form: String,
}

impl Shape {
    fn new(example: impl Into<String>, form: impl Into<String>) -> Shape {
        Shape {
            example: example.into(),
            form: form.into(),
        }
    }

    /// A value whose JSON is only known by what the type says: `"<Uuid: string>"`.
    fn named(ty: &str, how: Option<&str>, form: impl Into<String>) -> Shape {
        let example = match how {
            Some(how) => format!("\"<{ty}: {how}>\""),
            None => format!("\"<{ty}>\""),
        };
        Shape::new(example, form)
    }
}

/// The stored form of a body field: its type's, unless serde writes it its own way or it nests a struct.
pub fn field_shape(model: &Complete, field: &Field) -> Shape {
    let paths = format!(
        "their paths are under `{}::fields().{}`",
        model.ident, field.ident
    );
    stored_shape(
        field.ty,
        &field.json,
        field.nested.is_some().then_some(paths.as_str()),
    )
}

/// The stored form of a value of type `ty` written with the serde options `json`: its type's, unless serde
/// writes it its own way, or it nests an `Embedded` struct (`nested`: where its paths are, in words).
pub fn stored_shape(ty: &Type, json: &FieldNames, nested: Option<&str>) -> Shape {
    let text = type_text(ty);
    if let Some(shape) = json.with.as_deref().and_then(|with| adapter(with, &text)) {
        return shape;
    }
    if json.custom {
        return Shape::named(
            &text,
            Some("serde(with)"),
            "as its `serde(with)` or `serialize_with` function writes it",
        );
    }
    if let Some(paths) = nested {
        // The struct's fields are on its own page: a derive sees only the tokens of the item it derives for.
        return Shape::named(
            &text,
            Some("object"),
            format!(
                "an object, the fields of {} as its page shows them ({paths})",
                type_link(&text)
            ),
        );
    }
    shape(ty)
}

/// The struct a `nested` field holds, linked where its name is a plain path (`Address`, `Option<Address>`).
fn type_link(ty: &str) -> String {
    let inner = item_type(ty);
    if inner
        .chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == ':')
    {
        format!("[`{inner}`]")
    } else {
        format!("`{inner}`")
    }
}

/// The stored form of a field written through one of docmodel's serde adapters, known by the end of its
/// module path: `docmodel::ref_id::vec`, `timestamp::epoch_s::option`.
fn adapter(with: &str, ty: &str) -> Option<Shape> {
    let path: Vec<&str> = with.trim_start_matches("::").split("::").collect();
    let (path, wrap) = match path.as_slice() {
        [rest @ .., "option"] => (rest, Some("option")),
        [rest @ .., "vec"] => (rest, Some("vec")),
        rest => (rest, None),
    };
    let one = match path {
        [.., "ref_id"] => Shape::new(
            format!("\"<{}: bare id>\"", item_type(ty)),
            "a string, the referred document's key without its fixed text (`docmodel::ref_id`)",
        ),
        [.., "uuid_simple"] => Shape::new(
            "\"67e5504410b1426f9247bb680e5fe0c8\"",
            "a string of 32 hex digits, without dashes (`docmodel::uuid_simple`)",
        ),
        [
            ..,
            "timestamp",
            unit @ ("epoch_ms" | "epoch_s" | "epoch_min" | "epoch_h" | "epoch_day"),
        ] => {
            let example = match *unit {
                "epoch_ms" => "1544759124478",
                "epoch_s" => "1544759124",
                "epoch_min" => "25745985",
                "epoch_h" => "429099",
                _ => "17879",
            };
            Shape::new(
                example,
                format!("a number, the time since the epoch (`docmodel::timestamp::{unit}`)"),
            )
        }
        [.., "timestamp", "iso8601"] => Shape::new(
            "\"2018-12-14T03:45:24.478Z\"",
            "an ISO-8601 string in UTC (`docmodel::timestamp::iso8601`)",
        ),
        [.., "timestamp", "components"] => Shape::new(
            "[2018, 12, 14, 3, 45, 24, 478]",
            "an array of numbers: year, month, day, hour, minute, second and milliseconds, in UTC \
             (`docmodel::timestamp::components`)",
        ),
        _ => return None,
    };
    Some(match wrap {
        None => one,
        Some("vec") => array_of(one),
        Some(_) => Shape::new(one.example, format!("{}, or `null`", one.form)),
    })
}

/// The type of one item of `Vec<T>` or `Option<T>`, as written; `ty` itself otherwise.
fn item_type(ty: &str) -> &str {
    ["Vec<", "Option<"]
        .iter()
        .find_map(|outer| ty.strip_prefix(outer)?.strip_suffix('>'))
        .unwrap_or(ty)
}

/// The integer and float types serde writes as JSON numbers.
const NUMBERS: [&str; 14] = [
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64",
];

/// What the type's name tells of its JSON: std's types by their names, whatever their path; docmodel's (and
/// uuid's) written bare or under their crate's name; the rest named in a placeholder.
fn shape(ty: &Type) -> Shape {
    let text = type_text(ty);
    match ty {
        Type::Paren(inner) => return shape(&inner.elem),
        Type::Group(inner) => return shape(&inner.elem),
        Type::Reference(reference) => return shape(&reference.elem),
        Type::Tuple(tuple) if tuple.elems.is_empty() => return Shape::new("null", "`null`"),
        Type::Tuple(tuple) => {
            let items: Vec<Shape> = tuple.elems.iter().map(shape).collect();
            let examples: Vec<&str> = items.iter().map(|item| item.example.as_str()).collect();
            let forms: Vec<&str> = items.iter().map(|item| item.form.as_str()).collect();
            return Shape::new(
                format!("[{}]", examples.join(", ")),
                format!("an array: {}", forms.join("; ")),
            );
        }
        Type::Array(array) => return array_of(shape(&array.elem)),
        Type::Slice(slice) => return array_of(shape(&slice.elem)),
        _ => {}
    }
    let Type::Path(path) = ty else {
        return unknown(&text);
    };
    let Some(last) = path.path.segments.last() else {
        return unknown(&text);
    };
    if path.qself.is_some() {
        return unknown(&text);
    }
    let name = last.ident.to_string();
    let args: Vec<&Type> = match &last.arguments {
        PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|arg| match arg {
                GenericArgument::Type(ty) => Some(ty),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let first = path
        .path
        .segments
        .first()
        .map(|segment| segment.ident.to_string());
    let from = |krate: &str| path.path.segments.len() == 1 || first.as_deref() == Some(krate);
    match (name.as_str(), args.as_slice()) {
        ("String", []) | ("str", []) => Shape::new("\"…\"", "a string"),
        ("char", []) => Shape::new("\"a\"", "a string of one character"),
        ("bool", []) => Shape::new("false", "`true` or `false`"),
        ("f32" | "f64", []) => Shape::new("0.0", "a number"),
        (number, []) if NUMBERS.contains(&number) => Shape::new("0", "a number"),
        ("Option", [inner]) => {
            let inner = shape(inner);
            let form = if inner.form.contains("; ") {
                format!("{}; `None`: `null`", inner.form)
            } else {
                format!("{}, or `null`", inner.form)
            };
            Shape::new(inner.example, form)
        }
        ("Presence", [inner]) if from("docmodel") => {
            let inner = shape(inner);
            // The empty value of a type docmodel knows is the empty form of its example.
            let empty = match inner.example.chars().next() {
                Some('"') if !inner.example.starts_with("\"<") => "`\"\"`",
                Some('[') => "`[]`",
                Some('{') => "`{}`",
                _ => "its empty value (`\"\"`, `[]` or `{}`)",
            };
            Shape::new(
                inner.example,
                format!("`Value`: {}; `Empty`: {empty}; `Null`: `null`", inner.form),
            )
        }
        ("Box" | "Rc" | "Arc" | "Cow", [inner]) => shape(inner),
        ("Vec" | "VecDeque" | "LinkedList" | "HashSet" | "BTreeSet" | "BinaryHeap", [item]) => {
            array_of(shape(item))
        }
        ("HashMap" | "BTreeMap" | "IndexMap", [key, value]) => {
            let key = match shape(key).example.as_str() {
                "0" => "\"0\"",
                _ => "\"…\"",
            };
            let value = shape(value);
            Shape::new(
                format!("{{{key}: {}}}", value.example),
                format!("an object, each value {}", value.form),
            )
        }
        ("Ref" | "Key", [target]) if from("docmodel") => Shape::named(
            &text,
            Some("key string"),
            format!("the key of a `{}` document, a string", type_text(target)),
        ),
        ("Hashed", [_]) if from("docmodel") => Shape::named(
            &text,
            Some("hex digest"),
            "its HMAC-SHA-256, 64 lowercase hex digits in a string",
        ),
        ("Timestamp", []) if from("docmodel") => {
            Shape::new("1544759124478", "epoch milliseconds, a number")
        }
        ("Uuid", []) if from("uuid") || from("docmodel") => {
            Shape::named(&text, Some("string"), "a hyphenated UUID string")
        }
        ("JsonValue", []) if from("docmodel") => Shape::named(&text, Some("any JSON"), "any JSON"),
        ("Value", []) if first.as_deref() == Some("serde_json") => {
            Shape::named(&text, Some("any JSON"), "any JSON")
        }
        ("JsonObject", []) if from("docmodel") => {
            Shape::named(&text, Some("object"), "an object of any JSON")
        }
        _ => unknown(&text),
    }
}

fn array_of(item: Shape) -> Shape {
    Shape::new(
        format!("[{}]", item.example),
        format!("an array, each {}", item.form),
    )
}

/// A type the derive knows nothing of (an enum, a struct, a type parameter): named, never guessed.
fn unknown(ty: &str) -> Shape {
    Shape::named(ty, None, format!("as `{ty}` serializes itself"))
}

/// A type as written, without the spaces between its tokens: `Vec<Ref<Track>>`, `HashMap<String, u32>`.
pub fn type_text(ty: &Type) -> String {
    let mut text = quote!(#ty).to_string();
    for (spaced, tight) in [
        (" :: ", "::"),
        (":: ", "::"),
        (" <", "<"),
        ("< ", "<"),
        (" >", ">"),
        (" ,", ","),
        ("& ", "&"),
        ("( ", "("),
        (" )", ")"),
        ("[ ", "["),
        (" ]", "]"),
        (" ;", ";"),
    ] {
        text = text.replace(spaced, tight);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_the_type_name_cannot_tell_are_named_not_guessed() {
        let examples: Vec<(syn::Type, &str, &str)> = vec![
            (
                syn::parse_quote!(Ref<Track>),
                "\"<Ref<Track>: key string>\"",
                "the key of a `Track` document, a string",
            ),
            (
                syn::parse_quote!(Vec<docmodel::Ref<Track>>),
                "[\"<docmodel::Ref<Track>: key string>\"]",
                "an array, each the key of a `Track` document, a string",
            ),
            (
                syn::parse_quote!(Status),
                "\"<Status>\"",
                "as `Status` serializes itself",
            ),
            (
                syn::parse_quote!(chrono::DateTime<Utc>),
                "\"<chrono::DateTime<Utc>>\"",
                "as `chrono::DateTime<Utc>` serializes itself",
            ),
            (
                syn::parse_quote!(Uuid),
                "\"<Uuid: string>\"",
                "a hyphenated UUID string",
            ),
            (
                syn::parse_quote!(Timestamp),
                "1544759124478",
                "epoch milliseconds, a number",
            ),
            (
                syn::parse_quote!(other::Timestamp),
                "\"<other::Timestamp>\"",
                "as `other::Timestamp` serializes itself",
            ),
            (syn::parse_quote!(Option<u32>), "0", "a number, or `null`"),
            (
                syn::parse_quote!(BTreeMap<String, Vec<bool>>),
                "{\"…\": [false]}",
                "an object, each value an array, each `true` or `false`",
            ),
            (
                syn::parse_quote!((u8, String)),
                "[0, \"…\"]",
                "an array: a number; a string",
            ),
            (
                syn::parse_quote!([f64; 2]),
                "[0.0]",
                "an array, each a number",
            ),
            (syn::parse_quote!(Box<str>), "\"…\"", "a string"),
            (
                syn::parse_quote!(Hashed<String>),
                "\"<Hashed<String>: hex digest>\"",
                "its HMAC-SHA-256, 64 lowercase hex digits in a string",
            ),
            (
                syn::parse_quote!(Presence<Vec<u8>>),
                "[0]",
                "`Value`: an array, each a number; `Empty`: `[]`; `Null`: `null`",
            ),
            (
                syn::parse_quote!(Option<docmodel::Presence<Tags>>),
                "\"<Tags>\"",
                "`Value`: as `Tags` serializes itself; `Empty`: its empty value (`\"\"`, `[]` or `{}`); `Null`: `null`; `None`: `null`",
            ),
        ];
        for (ty, example, form) in examples {
            let shape = shape(&ty);
            assert_eq!(
                (shape.example.as_str(), shape.form.as_str()),
                (example, form)
            );
        }
    }
}
