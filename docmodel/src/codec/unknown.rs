//! The fields of a document that the model does not know, kept to be written back as they were read.

use std::fmt;

use serde_json::value::RawValue;

/// Fields of a document that the model does not know, in the order they were read: each value as its raw
/// JSON, the names one after another in one string. A kept field costs one allocation, its value's (the
/// names' string and the list grow by doubling), where a name of its own was a second. How deep the deepest
/// value nests is kept too, found when the values were read and checked: the writer counts a document's depth
/// as it writes, and need not read this text again for it.
#[derive(Clone)]
pub(crate) struct Unknown {
    /// Every name, in order, without separators.
    names: String,
    /// Each field: where its name ends in `names` (it starts where the one before ends), and its value.
    fields: Vec<(usize, Box<RawValue>)>,
    /// How deep the deepest value nests, as [`depth_of`](super::limits::depth_of) counts it (a scalar is 0).
    deepest: usize,
    /// The length of every value together, so that a writer reserves its room at once.
    value_bytes: usize,
    /// Whether no name has a character serde_json escapes (so each is written as it is).
    plain: bool,
}

/// What a first kept field reserves, so that a document with a few of them grows its lists once or not at
/// all: most documents with any keep a handful.
const FIRST_FIELDS: usize = 8;
const FIRST_NAMES: usize = 8 * 16;

impl Default for Unknown {
    fn default() -> Self {
        Unknown::new()
    }
}

impl Unknown {
    /// No fields.
    pub(crate) const fn new() -> Self {
        Unknown {
            names: String::new(),
            fields: Vec::new(),
            deepest: 0,
            value_bytes: 0,
            plain: true,
        }
    }

    /// Keeps the field `name` with the raw value `value`, which nests `depth` levels deep (as
    /// [`depth_of`](super::limits::depth_of) counts: the reader's check finds it), after the others.
    pub(crate) fn push(&mut self, name: &str, value: Box<RawValue>, depth: usize) {
        if self.fields.capacity() == 0 {
            self.fields.reserve(FIRST_FIELDS);
            self.names.reserve(FIRST_NAMES.max(name.len()));
        }
        self.names.push_str(name);
        self.value_bytes += value.get().len();
        self.fields.push((self.names.len(), value));
        self.deepest = self.deepest.max(depth);
        // Looked at here, once: the writer then copies the names as they are.
        self.plain &= !name.bytes().any(needs_escape);
    }

    /// Writes each field as a JSON object's member, `"name":value`, after a comma when `comma` (the object
    /// has members before them): the bytes serde_json's compact writer writes for them.
    pub(crate) fn write_members(
        &self,
        out: &mut Vec<u8>,
        mut comma: bool,
    ) -> serde_json::Result<()> {
        // With the object's closing brace, which the caller writes.
        out.reserve(self.names.len() + self.value_bytes + 4 * self.fields.len() + 1);
        let mut start = 0;
        for (end, value) in &self.fields {
            if comma {
                out.push(b',');
            }
            comma = true;
            let name = &self.names[start..*end];
            start = *end;
            if self.plain {
                out.push(b'"');
                out.extend_from_slice(name.as_bytes());
                out.push(b'"');
            } else {
                serde_json::to_writer(&mut *out, name)?;
            }
            out.push(b':');
            out.extend_from_slice(value.get().as_bytes());
        }
        Ok(())
    }

    /// How deep the deepest value nests (0 with none, or only scalars).
    pub(crate) fn deepest(&self) -> usize {
        self.deepest
    }

    /// The fields in the order they were read: each name and raw value.
    pub(crate) fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &RawValue)> {
        self.fields.iter().enumerate().map(|(at, (end, value))| {
            let start = match at {
                0 => 0,
                _ => self.fields[at - 1].0,
            };
            (&self.names[start..*end], &**value)
        })
    }

    /// Keeps only the fields whose name `keep` accepts, in their order.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        if self.iter().all(|(name, _)| keep(name)) {
            return;
        }
        let mut kept = Unknown::new();
        let Unknown { names, fields, .. } = std::mem::take(self);
        let mut start = 0;
        for (end, value) in fields {
            let name = &names[start..end];
            start = end;
            if keep(name) {
                // Fields are dropped rarely (envelope fields under another layout's names): the depth of
                // those kept is read again rather than kept for each.
                let depth = super::limits::depth_of(value.get().as_bytes());
                kept.push(name, value, depth);
            }
        }
        *self = kept;
    }

    /// The first name given twice: a reader that kept the first and one that kept the last would disagree,
    /// so such a document is refused, as a repeated body or envelope field is.
    pub(crate) fn repeated(&self) -> Option<&str> {
        if self.fields.len() < 2 {
            return None;
        }
        let mut names: Vec<&str> = self.iter().map(|(name, _)| name).collect();
        names.sort_unstable();
        names
            .windows(2)
            .find(|pair| pair[0] == pair[1])
            .map(|pair| pair[0])
    }
}

/// Whether serde_json escapes `byte` in a string.
fn needs_escape(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

impl fmt::Debug for Unknown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    fn listed(unknown: &Unknown) -> Vec<(&str, &str)> {
        unknown
            .iter()
            .map(|(name, value)| (name, value.get()))
            .collect()
    }

    #[test]
    fn fields_come_back_in_order_with_their_names() {
        let mut unknown = Unknown::new();
        assert_eq!(listed(&unknown), []);
        unknown.push("tags", raw(r#"["a"]"#), 1);
        unknown.push("", raw("1"), 0);
        unknown.push("loyalty", raw(r#"{"tier":"gold"}"#), 1);
        assert_eq!(
            listed(&unknown),
            [
                ("tags", r#"["a"]"#),
                ("", "1"),
                ("loyalty", r#"{"tier":"gold"}"#)
            ]
        );
        assert_eq!(unknown.iter().len(), 3);
        assert_eq!(
            format!("{unknown:?}"),
            format!(
                "{:?}",
                [
                    ("tags", raw(r#"["a"]"#)),
                    ("", raw("1")),
                    ("loyalty", raw(r#"{"tier":"gold"}"#))
                ]
            )
        );
    }

    #[test]
    fn retain_keeps_the_accepted_fields_in_order() {
        let mut unknown = Unknown::new();
        for (name, value) in [("a", "1"), ("phones", "[[2]]"), ("b", "[3]"), ("c", "4")] {
            unknown.push(name, raw(value), crate::codec::depth_of(value.as_bytes()));
        }
        assert_eq!(unknown.deepest(), 2);
        unknown.retain(|name| name != "phones" && name != "c");
        assert_eq!(listed(&unknown), [("a", "1"), ("b", "[3]")]);
        // The depth is of the fields kept.
        assert_eq!(unknown.deepest(), 1);
        unknown.retain(|_| true);
        assert_eq!(listed(&unknown), [("a", "1"), ("b", "[3]")]);
        assert_eq!(unknown.deepest(), 1);
    }

    #[test]
    fn a_name_given_twice_is_found() {
        let mut unknown = Unknown::new();
        unknown.push("ab", raw("1"), 0);
        assert_eq!(unknown.repeated(), None);
        // Names that run together in the buffer are still two names.
        unknown.push("a", raw("2"), 0);
        unknown.push("b", raw("3"), 0);
        assert_eq!(unknown.repeated(), None);
        unknown.push("a", raw("4"), 0);
        assert_eq!(unknown.repeated(), Some("a"));
    }
}
