//! The envelope of a stored document, read without a parser from the beginning docmodel writes.
//!
//! A document the chain migrates is parsed again from the start whichever way its schema is found, so
//! finding it by a first pass of the one-pass reader (which must stop with an error, and serde_json's errors
//! allocate and find their position) costs a third of a typed step's read. Every document docmodel writes
//! with a flat or plain envelope begins `{"_type":"user","_schema":"1.0",`: that beginning gives the schema
//! in a few dozen instructions. Any other beginning (another field first, escapes, a `meta` object) gives
//! `None`, and the one-pass reader finds the schema as it always does.
//!
//! Recognising a revision copy (a save prunes one, a listing of revisions reads ten) needs its type, `_ver`
//! and `_created`, which docmodel writes first too: [`leading_envelope`] reads the envelope fields an object
//! begins with, and stops at the first other field.

use crate::envelope::{EnvelopeField, EnvelopeSpec, Layout};

/// The text of `_schema` when the document's first field is `_schema`, or `_type` followed by `_schema`
/// (their stored names under `spec`), each a JSON string without escapes. The text is bytes: the caller
/// compares it with the model's schema or parses it, and either refuses what is not ASCII.
pub(crate) fn leading_schema<'b>(bytes: &'b [u8], spec: &EnvelopeSpec) -> Option<&'b [u8]> {
    if matches!(spec.layout(), Layout::Meta | Layout::Root) {
        // The envelope is in its own object; top-level fields of these names are the body's (or there is
        // one top-level field, the root attribute).
        return None;
    }
    let mut scan = Scan { bytes, at: 0 };
    scan.byte(b'{')?;
    if scan.name(spec.name(EnvelopeField::Type)) {
        scan.byte(b':')?;
        scan.string()?;
        scan.byte(b',')?;
    }
    if !scan.name(spec.name(EnvelopeField::Schema)) {
        return None;
    }
    scan.byte(b':')?;
    let text = scan.string()?;
    // What follows the value must continue the object, or the reader that runs next reports it.
    matches!(scan.next()?, b',' | b'}').then_some(text)
}

/// The envelope fields a document's object begins with, each a value docmodel writes there: the type and
/// schema as strings, `_ver` as a whole number, `_created` as its value's text (a string or a number, read
/// by the caller in the model's timestamp format).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Leading<'b> {
    pub(crate) type_name: Option<&'b [u8]>,
    pub(crate) schema: bool,
    pub(crate) ver: Option<u64>,
    pub(crate) created: Option<&'b [u8]>,
}

/// The envelope fields `bytes` begins with, under `spec`'s names: up to the first member that is not one,
/// or until the type, schema, `_ver` and (where the model keeps it) `_created` are read. `None` when the
/// beginning is not one docmodel writes: another layout than `flat` or `plain`, a model with legacy names
/// (a later field may carry one), a name or a string with an escape, an envelope field twice, a value of
/// another kind than the field's (a `_ver` that is not a whole number, a copy marker that is not a string),
/// or an envelope field other than these and the copy marker before them. The caller then reads the envelope
/// with the parser.
/// Nothing after these fields is read: whether the rest is JSON is the parser's question.
pub(crate) fn leading_envelope<'b>(bytes: &'b [u8], spec: &EnvelopeSpec) -> Option<Leading<'b>> {
    if matches!(spec.layout(), Layout::Meta | Layout::Root) || spec.has_legacy_names() {
        return None;
    }
    let wanted = [
        EnvelopeField::Type,
        EnvelopeField::Schema,
        EnvelopeField::Ver,
    ]
    .into_iter()
    .chain(
        spec.keeps(EnvelopeField::Created)
            .then_some(EnvelopeField::Created),
    )
    .fold(0u16, |bits, field| bits | 1 << field.index());
    let mut scan = Scan { bytes, at: 0 };
    scan.byte(b'{')?;
    let mut leading = Leading::default();
    let mut seen = 0u16;
    while seen & wanted != wanted {
        if scan.next()? != b'"' {
            // `}`: an empty object, or a member list that ended after a comma (the parser reports that).
            return Some(leading);
        }
        scan.at -= 1;
        let Some(field) = spec.field_named_bytes(scan.string()?) else {
            return Some(leading);
        };
        let bit = 1 << field.index();
        if seen & bit != 0 {
            return None;
        }
        seen |= bit;
        scan.byte(b':')?;
        match field {
            EnvelopeField::Type => leading.type_name = Some(scan.string()?),
            EnvelopeField::Schema => {
                scan.string()?;
                leading.schema = true;
            }
            EnvelopeField::Ver => leading.ver = Some(scan.whole_number()?),
            EnvelopeField::Created => leading.created = Some(scan.scalar()?),
            // The marker a copy begins with, a string as the reader takes it.
            EnvelopeField::CopyOf => {
                scan.string()?;
            }
            // Another envelope field, whose value the reader checks in its own way: the parser reads it.
            _ => return None,
        }
        match scan.next()? {
            b',' => {}
            b'}' => return Some(leading),
            _ => return None,
        }
    }
    Some(leading)
}

/// The `_ver` and the text of `_created` (`None` where the model keeps no `_created`) of a document that
/// begins exactly as docmodel writes the revision copy of the document under `key`, of type `type_name`:
/// `{"_copyOf":"<key>","_type":"<type_name>","_schema":"<text>","_ver":<n>,"_created":<value>` under `spec`'s
/// names, without whitespace or escapes. `None` for any other beginning (and for the `meta` and `root`
/// layouts and legacy names), which [`leading_envelope`] or the parser reads.
pub(crate) fn written_copy<'b>(
    bytes: &'b [u8],
    spec: &EnvelopeSpec,
    key: &str,
    type_name: &str,
) -> Option<(u64, Option<&'b [u8]>)> {
    if matches!(spec.layout(), Layout::Meta | Layout::Root)
        || spec.has_legacy_names()
        || key.bytes().any(escaped)
        || type_name.bytes().any(escaped)
    {
        return None;
    }
    let name = |field| spec.name(field).as_bytes();
    let mut rest = bytes;
    for part in [
        &b"{\""[..],
        name(EnvelopeField::CopyOf),
        b"\":\"",
        key.as_bytes(),
        b"\",\"",
        name(EnvelopeField::Type),
        b"\":\"",
        type_name.as_bytes(),
        b"\",\"",
        name(EnvelopeField::Schema),
        b"\":\"",
    ] {
        rest = rest.strip_prefix(part)?;
    }
    let schema = rest.iter().position(|&byte| escaped(byte))?;
    rest = rest[schema..].strip_prefix(b"\",\"")?;
    rest = rest.strip_prefix(name(EnvelopeField::Ver))?;
    rest = rest.strip_prefix(b"\":")?;
    let mut scan = Scan { bytes: rest, at: 0 };
    let ver = scan.whole_number()?;
    if !spec.keeps(EnvelopeField::Created) {
        // The object goes on after the number (`12x` is not one).
        return matches!(rest.get(scan.at), Some(b',' | b'}')).then_some((ver, None));
    }
    rest = rest[scan.at..].strip_prefix(b",\"")?;
    rest = rest.strip_prefix(name(EnvelopeField::Created))?;
    rest = rest.strip_prefix(b"\":")?;
    let mut scan = Scan { bytes: rest, at: 0 };
    let created = scan.scalar()?;
    Some((ver, Some(created)))
}

/// Whether JSON writes `byte` of a string with an escape: a quote, a backslash or a control character.
pub(crate) fn escaped(byte: u8) -> bool {
    byte == b'"' || byte == b'\\' || byte < 0x20
}

struct Scan<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> Scan<'b> {
    /// The next byte that is not JSON whitespace, consumed.
    fn next(&mut self) -> Option<u8> {
        while let Some(&byte) = self.bytes.get(self.at) {
            self.at += 1;
            if !matches!(byte, b' ' | b'\n' | b'\r' | b'\t') {
                return Some(byte);
            }
        }
        None
    }

    fn byte(&mut self, expected: u8) -> Option<()> {
        (self.next()? == expected).then_some(())
    }

    /// Whether the next string is `name`, consumed if it is.
    fn name(&mut self, name: &str) -> bool {
        let start = self.at;
        if self.next() == Some(b'"') {
            let rest = &self.bytes[self.at..];
            if let Some(after) = rest.strip_prefix(name.as_bytes())
                && after.first() == Some(&b'"')
            {
                self.at += name.len() + 1;
                return true;
            }
        }
        self.at = start;
        false
    }

    /// The contents of a string without escapes or control characters.
    fn string(&mut self) -> Option<&'b [u8]> {
        self.byte(b'"')?;
        let rest = &self.bytes[self.at..];
        let len = rest.iter().position(|&byte| escaped(byte))?;
        if rest[len] != b'"' {
            return None;
        }
        self.at += len + 1;
        Some(&rest[..len])
    }

    /// A whole number without sign, fraction or exponent that fits a `u64`.
    fn whole_number(&mut self) -> Option<u64> {
        let first = self.next()?;
        let mut value = u64::from(first.checked_sub(b'0').filter(|digit| *digit <= 9)?);
        while let Some(&byte) = self.bytes.get(self.at) {
            match byte {
                b'0'..=b'9' if value != 0 => {
                    value = value.checked_mul(10)?.checked_add(u64::from(byte - b'0'))?;
                }
                // A leading zero (`01`), a fraction or an exponent: not what docmodel writes.
                b'0'..=b'9' | b'.' | b'e' | b'E' => return None,
                _ => break,
            }
            self.at += 1;
        }
        Some(value)
    }

    /// The text of a string without escapes (with its quotes), a number, `true`, `false` or `null`.
    fn scalar(&mut self) -> Option<&'b [u8]> {
        let first = self.next()?;
        let start = self.at - 1;
        if first == b'"' {
            self.at = start;
            self.string()?;
        } else if first == b'-' || first.is_ascii_digit() || first.is_ascii_lowercase() {
            while let Some(byte) = self.bytes.get(self.at) {
                if !matches!(byte, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-' | b'a'..=b'z') {
                    break;
                }
                self.at += 1;
            }
        } else {
            return None;
        }
        Some(&self.bytes[start..self.at])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat(bytes: &str) -> Option<&str> {
        leading_schema(bytes.as_bytes(), &EnvelopeSpec::DEFAULT)
            .map(|text| std::str::from_utf8(text).unwrap())
    }

    #[test]
    fn finds_the_schema_where_docmodel_writes_it() {
        assert_eq!(
            flat(r#"{"_type":"user","_schema":"1.0","_ver":1,"name":"Joe"}"#),
            Some("1.0")
        );
        assert_eq!(flat(r#"{"_schema":"2.0"}"#), Some("2.0"));
        assert_eq!(
            flat("{ \"_type\" :\n\"user\" ,\t\"_schema\" : \"3.0.1\" , \"x\":1}"),
            Some("3.0.1")
        );
        // Whatever the text, the reader that follows parses it and decides.
        assert_eq!(flat(r#"{"_type":"user","_schema":"v1"}"#), Some("v1"));
    }

    #[test]
    fn gives_up_on_any_other_beginning() {
        for bytes in [
            "",
            "[]",
            r#"{"name":"Joe","_schema":"1.0"}"#,
            r#"{"_type":"user","name":"Joe","_schema":"1.0"}"#,
            r#"{"_type":"u\"ser","_schema":"1.0"}"#,
            r#"{"_type":"user","_schema":"1\u002e0"}"#,
            r#"{"_type":1,"_schema":"1.0"}"#,
            r#"{"_type":"user","_schema":1.0}"#,
            r#"{"_type":"user","_schema":"1.0""#,
            r#"{"_type":"user","_schema":"1.0" "x":1}"#,
            r#"{"_type":"user" "_schema":"1.0"}"#,
            "{\"_type\":\"user\",\"_schema\":\"1.0\n\"}",
            r#"{"_type":"user","_schema":"1.0"#,
            r#"{"_typed":"user","_schema":"1.0"}"#,
            r#"{"_type":"user","_schema_":"1.0"}"#,
        ] {
            assert_eq!(flat(bytes), None, "{bytes}");
        }
    }

    #[test]
    fn reads_the_names_of_the_models_layout() {
        let plain = EnvelopeSpec::DEFAULT.with_layout(Layout::Plain);
        assert_eq!(
            leading_schema(br#"{"type":"user","schema":"1.0"}"#, &plain),
            Some(&b"1.0"[..])
        );
        assert_eq!(
            leading_schema(br#"{"_type":"user","_schema":"1.0"}"#, &plain),
            None
        );
        // Under a `meta` object, top-level fields of the envelope's names belong to the body.
        let meta = EnvelopeSpec::DEFAULT.with_layout(Layout::Meta);
        for bytes in [
            &br#"{"type":"user","schema":"1.0","meta":{"type":"user","schema":"3.0"}}"#[..],
            br#"{"_type":"user","_schema":"1.0"}"#,
        ] {
            assert_eq!(leading_schema(bytes, &meta), None);
        }
    }
}
