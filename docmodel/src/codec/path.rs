//! Where in a document's text a read failed: the path of the value at a byte offset (`phones[2].number`),
//! found by walking the text's structure, not by reading the model a second time.
//!
//! serde_json places a data error right after the value it could not take (a string where a number
//! belongs), at the bracket that opens one (a map where a list belongs), or after the object or list that
//! was incomplete (a field missing); a text that is not UTF-8 fails at its first bad byte. The value at that
//! offset is the deepest one whose text reaches it: the failing value, or the object or list the failure is
//! about. That is the path serde_path_to_error tracks through a second, tracking read, which each model
//! would compile again; `tests` holds the two against each other.

use std::fmt::Write as _;

use serde_json::Error as JsonError;

/// One step of a path: an object's member, by the JSON text of its name without the quotes, or a list's
/// element, by its index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Segment<'t> {
    Member(&'t [u8]),
    Element(usize),
}

/// The byte offset in `text` where serde_json placed `err`; `None` for an error it placed nowhere.
pub(crate) fn error_offset(text: &[u8], err: &JsonError) -> Option<usize> {
    let line = err.line().checked_sub(1)?;
    let start = if line == 0 {
        0
    } else {
        memchr::memchr_iter(b'\n', text).nth(line - 1)? + 1
    };
    let offset = start.checked_add(err.column())?;
    (offset <= text.len()).then_some(offset)
}

/// The path from the top of `text` to the deepest value whose text reaches `offset` (its first byte up to
/// just after its last): empty for the document itself. Where the text breaks off before `offset`, the
/// container it breaks off in; `None` when it holds no value at all. The walk keeps its own stack, so that
/// no nesting, however deep, overflows the thread's.
pub(crate) fn segments_at(text: &[u8], offset: usize) -> Option<Vec<Segment<'_>>> {
    let mut walk = Walk { text, at: 0 };
    let mut path = Vec::new();
    // The containers the walk is in: `None` for an object, the next element's index for a list.
    let mut open: Vec<Option<usize>> = Vec::new();
    let mut state = State::Value;
    loop {
        walk.skip_whitespace();
        state = match state {
            // A value, whose segment (in a container) is last on `path`.
            State::Value => match walk.text.get(walk.at) {
                Some(b'{') if walk.at <= offset => {
                    walk.at += 1;
                    open.push(None);
                    State::Name
                }
                Some(b'[') if walk.at <= offset => {
                    walk.at += 1;
                    open.push(Some(0));
                    State::Element
                }
                Some(_) if walk.at <= offset && walk.scalar() => {
                    if walk.at >= offset {
                        return Some(path);
                    }
                    State::After
                }
                // The value begins after `offset`, or breaks off: its container is the answer.
                _ => {
                    open.last()?;
                    path.pop();
                    return Some(path);
                }
            },
            // In an object, at a member's name or the object's end. At the name, the member is the
            // answer (a field the object refuses, or has twice).
            State::Name => {
                if walk.eat(b'}') {
                    State::Closed
                } else if walk.at >= offset || !walk.eat(b'"') {
                    return Some(path);
                } else {
                    let start = walk.at;
                    if walk.string_end().is_none() {
                        return Some(path);
                    }
                    path.push(Segment::Member(&text[start..walk.at - 1]));
                    if walk.at >= offset {
                        return Some(path);
                    }
                    walk.skip_whitespace();
                    if !walk.eat(b':') {
                        path.pop();
                        return Some(path);
                    }
                    State::Value
                }
            }
            // In a list, at an element or the list's end.
            State::Element => {
                if walk.eat(b']') {
                    State::Closed
                } else {
                    let Some(&Some(index)) = open.last() else {
                        return None;
                    };
                    path.push(Segment::Element(index));
                    State::Value
                }
            }
            // After a member's or an element's value, which ended before `offset`.
            State::After => {
                path.pop();
                let Some(container) = open.last_mut() else {
                    return Some(path);
                };
                if walk.eat(b',') {
                    match container {
                        Some(index) => {
                            *index += 1;
                            State::Element
                        }
                        None => State::Name,
                    }
                } else if walk.eat(if container.is_some() { b']' } else { b'}' }) {
                    State::Closed
                } else {
                    return Some(path);
                }
            }
            // A container just closed; its segment (in a container) is last on `path`.
            State::Closed => {
                open.pop();
                if walk.at >= offset || open.is_empty() {
                    return Some(path);
                }
                State::After
            }
        };
    }
}

/// `segments` written as serde_path_to_error writes a path: members after dots, elements in brackets
/// (`phones[2].number`); `None` when a member's name does not read as a string.
pub(crate) fn display(segments: &[Segment<'_>]) -> Option<String> {
    let mut path = String::new();
    for segment in segments {
        match *segment {
            Segment::Member(name) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&member_name(name)?);
            }
            Segment::Element(index) => {
                let _ = write!(path, "[{index}]");
            }
        }
    }
    Some(path)
}

/// A member's name as it reads: escapes resolved.
pub(crate) fn member_name(name: &[u8]) -> Option<std::borrow::Cow<'_, str>> {
    if !name.contains(&b'\\') {
        return std::str::from_utf8(name).ok().map(Into::into);
    }
    let mut quoted = Vec::with_capacity(name.len() + 2);
    quoted.push(b'"');
    quoted.extend_from_slice(name);
    quoted.push(b'"');
    serde_json::from_slice::<String>(&quoted)
        .ok()
        .map(Into::into)
}

/// Where [`segments_at`] is in its walk.
#[derive(Clone, Copy)]
enum State {
    Value,
    Name,
    Element,
    After,
    Closed,
}

/// A position in a document's text.
struct Walk<'t> {
    text: &'t [u8],
    at: usize,
}

impl Walk<'_> {
    /// Moves past the string or the literal (a number, `true`, ...) at `at`; false when it breaks off.
    fn scalar(&mut self) -> bool {
        if self.eat(b'"') {
            return self.string_end().is_some();
        }
        let rest = &self.text[self.at..];
        let len = rest
            .iter()
            .position(|byte| {
                matches!(byte, b',' | b':' | b'}' | b']') || byte.is_ascii_whitespace()
            })
            .unwrap_or(rest.len());
        self.at += len;
        len > 0
    }

    /// Moves past the end of the string whose opening quote is behind `at`; `None` when it has none.
    fn string_end(&mut self) -> Option<()> {
        loop {
            let rest = self.text.get(self.at..)?;
            let found = memchr::memchr2(b'"', b'\\', rest)?;
            self.at += found + 1;
            if rest[found] == b'"' {
                return Some(());
            }
            // An escape: its next byte does not end the string.
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        let eaten = self.text.get(self.at) == Some(&byte);
        self.at += usize::from(eaten);
        eaten
    }

    fn skip_whitespace(&mut self) {
        while self.text.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }
}

#[cfg(test)]
mod tests;
