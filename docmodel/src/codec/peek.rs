//! The schema of a stored document, read without a parser from the beginning docmodel writes.
//!
//! A document the chain migrates is parsed again from the start whichever way its schema is found, so
//! finding it by a first pass of the one-pass reader (which must stop with an error, and serde_json's errors
//! allocate and find their position) costs a third of a typed step's read. Every document docmodel writes
//! with a flat or plain envelope begins `{"_type":"user","_schema":"1.0",`: that beginning gives the schema
//! in a few dozen instructions. Any other beginning (another field first, escapes, a `meta` object) gives
//! `None`, and the one-pass reader finds the schema as it always does.

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
        let len = rest
            .iter()
            .position(|&byte| byte == b'"' || byte == b'\\' || byte < 0x20)?;
        if rest[len] != b'"' {
            return None;
        }
        self.at += len + 1;
        Some(&rest[..len])
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
