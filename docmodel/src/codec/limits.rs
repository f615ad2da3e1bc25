//! One policy for what a stored document may hold, whatever path reads it.
//!
//! The migration path parses a document into a `serde_json::Value`, which refuses nesting deeper than serde_json's
//! limit, numbers no `f64` holds, lone surrogate escapes and a name twice in an object. The one-pass reader
//! keeps the fields it does not know as raw JSON text, which serde_json checks for syntax only. [`check_raw`]
//! holds that text to the same rules, so that a document reads the same, or fails the same, at any schema.

use std::borrow::Cow;

/// How deep a document may nest, counting the document itself: one level less than serde_json's recursion
/// limit (128), which the migration path's parser and the body's own reader enforce.
pub(crate) const MAX_DEPTH: usize = 127;

/// How deep the JSON text `bytes` (well-formed: serde_json wrote it) nests, the outermost value being 1.
pub(crate) fn depth_of(bytes: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'"' => {
                // A string: its brackets are text. An escape takes the byte after it along.
                at += 1;
                while let Some(&byte) = bytes.get(at) {
                    match byte {
                        b'\\' => at += 2,
                        b'"' => break,
                        _ => at += 1,
                    }
                }
            }
            b'{' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        at += 1;
    }
    deepest
}

/// Why a raw JSON value breaks the policy.
pub(crate) type Problem = Cow<'static, str>;

/// Checks `text`, a JSON value known to be well-formed, found `depth` levels deep (the document is 1): it
/// nests no deeper than [`MAX_DEPTH`], each number fits an `f64`, no string or name holds a lone surrogate
/// escape, and no object has a name twice. Returns how deep the value itself nests, as [`depth_of`] counts
/// it (a scalar is 0), read on the way: the writer needs it, and need not read the text again.
pub(crate) fn check_raw(text: &str, depth: usize) -> Result<usize, Problem> {
    let bytes = text.as_bytes();
    // Most values are scalars with nothing to check: a string without escapes, an integer, a literal.
    match bytes.first() {
        Some(b'"') if !bytes.contains(&b'\\') => return Ok(0),
        Some(b'-' | b'0'..=b'9')
            if bytes.len() <= 20 && bytes.iter().all(|b| matches!(b, b'-' | b'0'..=b'9')) =>
        {
            return Ok(0);
        }
        Some(b't' | b'f' | b'n') => return Ok(0),
        _ => {}
    }
    // The names of each open object (`None` for an open array), to find a name given twice.
    let mut open: Vec<Option<Vec<Cow<'_, str>>>> = Vec::new();
    let mut deepest = 0;
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        match byte {
            b'{' | b'[' => {
                if depth + open.len() > MAX_DEPTH {
                    return Err(format!("it nests deeper than {MAX_DEPTH} levels").into());
                }
                open.push((byte == b'{').then(Vec::new));
                deepest = deepest.max(open.len());
                i += 1;
            }
            b'}' | b']' => {
                open.pop();
                i += 1;
            }
            b'"' => {
                let (end, string) = read_string(text, i)?;
                i = end;
                let is_name = bytes[i..]
                    .iter()
                    .find(|b| !b.is_ascii_whitespace())
                    .is_some_and(|b| *b == b':');
                if let (true, Some(Some(names))) = (is_name, open.last_mut()) {
                    if names.contains(&string) {
                        return Err(format!("an object has the field {:?} twice", &*string).into());
                    }
                    names.push(string);
                }
            }
            b'-' | b'0'..=b'9' => {
                let end = bytes[i..]
                    .iter()
                    .position(|b| !matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                    .map_or(bytes.len(), |len| i + len);
                check_number(&text[i..end])?;
                i = end;
            }
            _ => i += 1,
        }
    }
    Ok(deepest)
}

/// Reads the string that starts at `start` (its opening quote): the index after its closing quote, and its
/// text (unescaped only when it has escapes). A `\u` escape of half a surrogate pair without its other half
/// is refused.
fn read_string(text: &str, start: usize) -> Result<(usize, Cow<'_, str>), Problem> {
    let bytes = text.as_bytes();
    let mut i = start + 1;
    let mut owned: Option<String> = None;
    let mut plain_from = i;
    loop {
        match bytes.get(i) {
            None => return Err("a string is not closed".into()),
            Some(b'"') => {
                let string = match owned {
                    None => Cow::Borrowed(&text[start + 1..i]),
                    Some(mut owned) => {
                        owned.push_str(&text[plain_from..i]);
                        Cow::Owned(owned)
                    }
                };
                return Ok((i + 1, string));
            }
            Some(b'\\') => {
                let out = owned.get_or_insert_with(String::new);
                out.push_str(&text[plain_from..i]);
                let escape = bytes.get(i + 1).copied().unwrap_or(b'"');
                i += 2;
                match escape {
                    b'u' => {
                        let unit = hex4(text, i)?;
                        i += 4;
                        let c = if (0xD800..0xDC00).contains(&unit) {
                            let low = (bytes.get(i) == Some(&b'\\')
                                && bytes.get(i + 1) == Some(&b'u'))
                            .then(|| hex4(text, i + 2))
                            .transpose()?
                            .filter(|low| (0xDC00..0xE000).contains(low))
                            .ok_or("a string holds a lone surrogate escape (\\ud800 to \\udbff)")?;
                            i += 6;
                            char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                        } else if (0xDC00..0xE000).contains(&unit) {
                            return Err(
                                "a string holds a lone surrogate escape (\\udc00 to \\udfff)"
                                    .into(),
                            );
                        } else {
                            char::from_u32(unit)
                        };
                        out.push(c.unwrap_or(char::REPLACEMENT_CHARACTER));
                    }
                    b'n' => out.push('\n'),
                    b't' => out.push('\t'),
                    b'r' => out.push('\r'),
                    b'b' => out.push('\u{8}'),
                    b'f' => out.push('\u{c}'),
                    other => out.push(char::from(other)),
                }
                plain_from = i;
            }
            Some(_) => i += 1,
        }
    }
}

/// The four hex digits at `at`.
fn hex4(text: &str, at: usize) -> Result<u32, Problem> {
    text.get(at..at + 4)
        .and_then(|digits| u32::from_str_radix(digits, 16).ok())
        .ok_or_else(|| "a string has a `\\u` escape without four hex digits".into())
}

/// A number's text: an integer of 64 bits is kept as written; any other number must fit an `f64`, as the
/// migration path's parser requires (an integer beyond 64 bits is kept as written here, but read there as the
/// nearest `f64`).
fn check_number(number: &str) -> Result<(), Problem> {
    if number.len() <= 20 && !number.contains(['.', 'e', 'E']) {
        return Ok(());
    }
    match number.parse::<f64>() {
        Ok(value) if value.is_finite() => Ok(()),
        _ => Err(format!("the number {number} is out of the range of an f64").into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_counts_the_document_and_skips_strings() {
        assert_eq!(depth_of(b"1"), 0);
        assert_eq!(depth_of(b"{}"), 1);
        assert_eq!(depth_of(br#"{"a":[1,{"b":[]}],"c":{}}"#), 4);
        assert_eq!(depth_of(br#"{"a":"[[[{{{","b":"\"[[","c":"\\"}"#), 1);
        assert_eq!(depth_of(br#"{"a":"\\\"[[","b":[[]]}"#), 3);
    }

    /// What the migration path's parser says of `json` as a field of a document.
    fn value_path(json: &str) -> bool {
        crate::codec::strict_object(format!(r#"{{"x":{json}}}"#).as_bytes()).is_ok()
    }

    #[test]
    fn the_raw_check_agrees_with_the_value_parser() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        let cases = [
            "1".to_owned(),
            "1e308".into(),
            "1e999".into(),
            "-1e999".into(),
            "1.5".into(),
            "123456789012345678901234567890".into(),
            format!("1{}", "0".repeat(400)),
            format!("-1{}", "0".repeat(400)),
            r#""\ud83d\ude00""#.into(),
            r#""\ud800""#.into(),
            r#""\ud800x""#.into(),
            r#""\udc00""#.into(),
            r#""\ud800\u0041""#.into(),
            r#"{"a":1,"b":{"a":2}}"#.into(),
            r#"{"a":1,"a":2}"#.into(),
            r#"{"a":1,"\u0061":2}"#.into(),
            r#"[{"a":1},{"a":1}]"#.into(),
            r#"{"a":[1,{"b":1,"b":2}]}"#.into(),
            r#"{"\ud800":1}"#.into(),
            deep(MAX_DEPTH - 2),
            deep(MAX_DEPTH - 1),
            deep(MAX_DEPTH),
            deep(MAX_DEPTH + 1),
            deep(100_000),
        ];
        for json in &cases {
            let expected = value_path(json);
            let got = check_raw(json, 2);
            assert_eq!(got.is_ok(), expected, "{}", &json[..json.len().min(60)]);
            // The depth it finds on the way is the depth the writer counts.
            if let Ok(found) = got {
                assert_eq!(
                    found,
                    depth_of(json.as_bytes()),
                    "{}",
                    &json[..json.len().min(60)]
                );
            }
        }
    }

    #[test]
    fn each_problem_is_named() {
        let problem = |json: &str| check_raw(json, 2).unwrap_err().into_owned();
        assert_eq!(
            problem(r#"{"a":1,"a":2}"#),
            r#"an object has the field "a" twice"#
        );
        assert_eq!(
            problem("1e999"),
            "the number 1e999 is out of the range of an f64"
        );
        assert_eq!(
            problem(r#""\ud800""#),
            r"a string holds a lone surrogate escape (\ud800 to \udbff)"
        );
        assert_eq!(problem(&"[".repeat(200)), "it nests deeper than 127 levels");
    }
}
