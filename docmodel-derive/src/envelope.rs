//! The envelope as the derive knows it: one table of its fields, its layouts and timestamp formats (each
//! named as the runtime's `EnvelopeField`, `Layout` and `TimestampFormat` variants), and the envelope a model
//! gets when the derive can see all of it.

/// One field of the envelope: the runtime's `EnvelopeField`, by the same variant name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Type,
    Schema,
    Ver,
    Created,
    CreatedBy,
    Modified,
    ModifiedBy,
    Accessed,
    Geo,
    CopyOf,
    CopyNext,
}

impl Field {
    /// Every field, in the order documents carry them.
    pub const ALL: [Field; 11] = [
        Field::Type,
        Field::Schema,
        Field::Ver,
        Field::Created,
        Field::CreatedBy,
        Field::Modified,
        Field::ModifiedBy,
        Field::Accessed,
        Field::Geo,
        Field::CopyOf,
        Field::CopyNext,
    ];

    /// The name in the `plain` and `meta` layouts, and the option that renames it in `names(...)`.
    pub fn plain_name(self) -> &'static str {
        match self {
            Field::Type => "type",
            Field::Schema => "schema",
            Field::Ver => "ver",
            Field::Created => "created",
            Field::CreatedBy => "createdBy",
            Field::Modified => "modified",
            Field::ModifiedBy => "modifiedBy",
            Field::Accessed => "accessed",
            Field::Geo => "geo",
            Field::CopyOf => "copyOf",
            Field::CopyNext => "copyNext",
        }
    }

    /// The option of `names(...)` that renames the field: `type`, `created_by`, ...
    pub fn option(self) -> &'static str {
        match self {
            Field::CreatedBy => "created_by",
            Field::ModifiedBy => "modified_by",
            Field::CopyOf => "copy_of",
            Field::CopyNext => "copy_next",
            other => other.plain_name(),
        }
    }

    /// The name in the `flat` layout: `_type`, `_createdBy`, ...
    pub fn flat_name(self) -> String {
        format!("_{}", self.plain_name())
    }

    /// Whether documents carry the field only when the model asks for it.
    pub fn optional(self) -> bool {
        matches!(
            self,
            Field::CreatedBy | Field::ModifiedBy | Field::Accessed | Field::Geo
        )
    }

    /// What the field holds, for error messages.
    pub fn what(self) -> &'static str {
        match self {
            Field::Type => "the document type",
            Field::Schema => "the schema version",
            Field::Ver => "the revision counter",
            Field::Created => "the creation time",
            Field::CreatedBy => "who created the document",
            Field::Modified => "the last modification time",
            Field::ModifiedBy => "who modified it last",
            Field::Accessed => "the last access time",
            Field::Geo => "the country code",
            Field::CopyOf => "the key a revision copy copies",
            Field::CopyNext => "the versions saved from a revision copy",
        }
    }
}

/// `envelope(layout = "...")`: the runtime's `Layout`, by the same variant name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    #[default]
    Flat,
    Plain,
    Meta,
    Root,
}

/// `envelope(zoneless = "utc")` or `zoneless = "+01:00"`: the offset, in minutes east of UTC, that stored
/// times without a zone are read at.
pub fn parse_zoneless(lit: &syn::LitStr) -> crate::meta::Result<i16> {
    let text = lit.value();
    if text.eq_ignore_ascii_case("utc") || text == "Z" {
        return Ok(0);
    }
    let b = text.as_bytes();
    let digits = |at: usize| -> Option<i16> {
        let pair = b.get(at..at + 2)?;
        pair.iter()
            .all(u8::is_ascii_digit)
            .then(|| i16::from(pair[0] - b'0') * 10 + i16::from(pair[1] - b'0'))
    };
    let parsed = match b {
        [sign @ (b'+' | b'-'), _, _, b':', _, _] => digits(1)
            .zip(digits(4))
            .filter(|(hours, minutes)| *hours < 24 && *minutes < 60)
            .map(|(hours, minutes)| {
                let total = hours * 60 + minutes;
                if *sign == b'-' { -total } else { total }
            }),
        _ => None,
    };
    parsed.ok_or_else(|| {
        crate::meta::Error::custom(format!(
            "`zoneless` is \"utc\" or an offset from UTC such as \"+01:00\" or \"-05:00\", not {text:?}"
        ))
        .with_span(lit)
    })
}

/// `envelope(timestamps = "...")`: the runtime's `TimestampFormat`, by the same variant name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Timestamps {
    #[default]
    EpochMs,
    EpochS,
    EpochMin,
    EpochH,
    EpochDay,
    Iso8601,
}

impl Timestamps {
    /// The name the attribute uses.
    pub fn name(self) -> &'static str {
        match self {
            Timestamps::EpochMs => "epoch_ms",
            Timestamps::EpochS => "epoch_s",
            Timestamps::EpochMin => "epoch_min",
            Timestamps::EpochH => "epoch_h",
            Timestamps::EpochDay => "epoch_day",
            Timestamps::Iso8601 => "iso8601",
        }
    }

    /// 2018-12-14T03:45:24.478Z in this format, for the model's rustdoc.
    pub fn example(self) -> &'static str {
        match self {
            Timestamps::EpochMs => "1544759124478",
            Timestamps::EpochS => "1544759124",
            Timestamps::EpochMin => "25745985",
            Timestamps::EpochH => "429099",
            Timestamps::EpochDay => "17879",
            Timestamps::Iso8601 => "\"2018-12-14T03:45:24.478Z\"",
        }
    }
}

/// The envelope a model gets, worked out at expansion time when no `Conventions` type hides part of it.
pub struct KnownEnvelope {
    pub layout: Layout,
    pub meta_name: String,
    pub timestamps: Timestamps,
    /// Every field the documents carry, with its JSON name, in writing order.
    pub fields: Vec<(Field, String)>,
    /// The legacy names fields are read under too (`legacy_names(...)`).
    pub legacy: Vec<(Field, String)>,
}

impl KnownEnvelope {
    /// The envelope with these options over the runtime's default (`EnvelopeSpec::DEFAULT`).
    pub fn new(
        layout: Layout,
        timestamps: Timestamps,
        kept: impl Fn(Field) -> bool,
        renamed: impl Fn(Field) -> Option<String>,
        meta_name: Option<String>,
    ) -> Self {
        let fields = Field::ALL
            .into_iter()
            .filter(|field| !field.optional() || kept(*field))
            .map(|field| {
                let name = renamed(field).unwrap_or_else(|| match layout {
                    Layout::Flat => field.flat_name(),
                    Layout::Plain | Layout::Meta | Layout::Root => field.plain_name().to_owned(),
                });
                (field, name)
            })
            .collect();
        KnownEnvelope {
            layout,
            meta_name: meta_name.unwrap_or_else(|| "meta".to_owned()),
            timestamps,
            fields,
            legacy: Vec::new(),
        }
    }

    /// The top-level names a body field must not take, with what the envelope keeps there.
    pub fn reserved(&self) -> Vec<(&str, &'static str)> {
        if self.layout == Layout::Meta {
            vec![(&self.meta_name, "the envelope object")]
        } else {
            self.fields
                .iter()
                .chain(&self.legacy)
                .map(|(field, name)| (name.as_str(), field.what()))
                .collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_envelope_is_the_runtimes() {
        let known =
            KnownEnvelope::new(Layout::Flat, Timestamps::EpochMs, |_| false, |_| None, None);
        let names: Vec<&str> = known.fields.iter().map(|(_, name)| name.as_str()).collect();
        assert_eq!(
            names,
            [
                "_type",
                "_schema",
                "_ver",
                "_created",
                "_modified",
                "_copyOf",
                "_copyNext"
            ]
        );
        let plain = KnownEnvelope::new(
            Layout::Plain,
            Timestamps::EpochS,
            |field| field == Field::CreatedBy,
            |field| (field == Field::Type).then(|| "docType".to_owned()),
            None,
        );
        let names: Vec<&str> = plain.fields.iter().map(|(_, name)| name.as_str()).collect();
        assert_eq!(
            names,
            [
                "docType",
                "schema",
                "ver",
                "created",
                "createdBy",
                "modified",
                "copyOf",
                "copyNext"
            ]
        );
    }

    #[test]
    fn attribute_names_are_the_runtimes_snake_case() {
        use crate::meta::FromMeta;
        let lit =
            |name: &str| syn::Lit::Str(syn::LitStr::new(name, proc_macro2::Span::call_site()));
        for (name, format) in [
            ("epoch_ms", Timestamps::EpochMs),
            ("epoch_day", Timestamps::EpochDay),
            ("iso8601", Timestamps::Iso8601),
        ] {
            assert!(Timestamps::from_lit(&lit(name)).is_ok_and(|read| read == format));
            assert_eq!(format.name(), name);
        }
        assert!(Layout::from_lit(&lit("meta")).is_ok_and(|read| read == Layout::Meta));
        assert!(Layout::from_lit(&lit("Meta")).is_err());
    }
}
