//! The key template: `user::{domain}::{id}` split into its segments and its one delimiter.

/// A checked key template.
#[derive(Debug, PartialEq, Eq)]
pub struct Template {
    pub delimiter: String,
    pub segments: Vec<Segment>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Segment {
    Literal(String),
    Part(String),
}

enum Token {
    Text(String),
    Placeholder(String),
}

/// Characters that can make up a delimiter: ASCII punctuation but the placeholder braces.
fn is_delimiter_char(c: char) -> bool {
    c.is_ascii_punctuation() && c != '{' && c != '}'
}

impl Template {
    /// Parses and checks a template; the error says what is wrong in a sentence.
    pub fn parse(text: &str) -> Result<Template, String> {
        let tokens = tokenize(text)?;
        let delimiter = find_delimiter(&tokens)?;
        let mut segments = Vec::new();
        for (i, token) in tokens.iter().enumerate() {
            let text = match token {
                Token::Placeholder(name) => {
                    if segments.contains(&Segment::Part(name.clone())) {
                        return Err(format!("the placeholder `{{{name}}}` appears twice"));
                    }
                    segments.push(Segment::Part(name.clone()));
                    continue;
                }
                Token::Text(text) => text,
            };
            let after_part = i > 0;
            let before_part = i + 1 < tokens.len();
            let pieces: Vec<&str> = text.split(delimiter.as_str()).collect();
            let last = pieces.len() - 1;
            for (j, piece) in pieces.iter().enumerate() {
                if piece.contains(|c| delimiter.contains(c)) {
                    let run: String = piece.chars().filter(|c| is_delimiter_char(*c)).collect();
                    return Err(format!(
                        "mixed delimiters: the key uses both `{delimiter}` and `{run}`; use one delimiter throughout"
                    ));
                }
                let touches_part = (j == 0 && after_part) || (j == last && before_part);
                if touches_part {
                    if !piece.is_empty() {
                        let neighbour = if j == 0 { "follow" } else { "precede" };
                        return Err(format!(
                            "`{piece}` must be separated from the placeholder it {neighbour}s by the delimiter \
                             `{delimiter}`"
                        ));
                    }
                } else if piece.is_empty() {
                    return Err(format!(
                        "the key has an empty segment between two `{delimiter}` delimiters"
                    ));
                } else {
                    segments.push(Segment::Literal((*piece).to_owned()));
                }
            }
        }
        Ok(Template {
            delimiter,
            segments,
        })
    }

    pub fn parts(&self) -> impl Iterator<Item = &str> {
        self.segments.iter().filter_map(|segment| match segment {
            Segment::Part(name) => Some(name.as_str()),
            Segment::Literal(_) => None,
        })
    }
}

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        match rest.find(['{', '}']) {
            Some(at) if rest[at..].starts_with('}') => {
                return Err(format!("unmatched `}}` in `{text}`"));
            }
            Some(at) => {
                if at > 0 {
                    tokens.push(Token::Text(rest[..at].to_owned()));
                }
                let inner = &rest[at + 1..];
                let Some(end) = inner
                    .find(['{', '}'])
                    .filter(|end| inner[*end..].starts_with('}'))
                else {
                    return Err(format!("unclosed `{{` in `{text}`"));
                };
                let name = &inner[..end];
                if !is_identifier(name) {
                    return Err(format!(
                        "`{{{name}}}` is not a placeholder: write `{{field_name}}`"
                    ));
                }
                if matches!(tokens.last(), Some(Token::Placeholder(_))) {
                    return Err(format!(
                        "`{{{name}}}` follows another placeholder with no delimiter between them"
                    ));
                }
                tokens.push(Token::Placeholder(name.to_owned()));
                rest = &inner[end + 1..];
            }
            None => {
                tokens.push(Token::Text(rest.to_owned()));
                rest = "";
            }
        }
    }
    if !tokens
        .iter()
        .any(|token| matches!(token, Token::Placeholder(_)))
    {
        return Err(
            "the key has no `{field}` placeholder; a key is built from at least one field"
                .to_owned(),
        );
    }
    Ok(tokens)
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// The delimiter is the run of punctuation right next to the first placeholder.
fn find_delimiter(tokens: &[Token]) -> Result<String, String> {
    let Some((first, name)) = tokens
        .iter()
        .enumerate()
        .find_map(|(i, token)| match token {
            Token::Placeholder(name) => Some((i, name)),
            Token::Text(_) => None,
        })
    else {
        return Err("the key has no placeholder".to_owned());
    };
    let before = first.checked_sub(1).and_then(|i| tokens.get(i));
    let run = match (before, tokens.get(first + 1)) {
        (Some(Token::Text(before)), _) => {
            let tail = before.len() - before.trim_end_matches(is_delimiter_char).len();
            before[before.len() - tail..].to_owned()
        }
        (_, Some(Token::Text(after))) => {
            after[..after.len() - after.trim_start_matches(is_delimiter_char).len()].to_owned()
        }
        _ => String::new(),
    };
    if !run.is_empty() {
        return Ok(run);
    }
    if tokens.len() == 1 {
        return Err(format!(
            "the key is only `{{{name}}}`; give it a type prefix and a delimiter, such as `user::{{{name}}}`"
        ));
    }
    Err(format!(
        "the placeholder `{{{name}}}` is not separated from the text beside it by a delimiter such as `::` or `:`"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segments(text: &str) -> (String, Vec<String>) {
        let template = Template::parse(text).unwrap();
        let segments = template
            .segments
            .iter()
            .map(|segment| match segment {
                Segment::Literal(text) => text.clone(),
                Segment::Part(name) => format!("{{{name}}}"),
            })
            .collect();
        (template.delimiter, segments)
    }

    #[test]
    fn reads_the_seed_patterns() {
        assert_eq!(
            segments("user::{user_id}"),
            ("::".into(), vec!["user".into(), "{user_id}".into()])
        );
        assert_eq!(
            segments("user::{domain}::{id}"),
            (
                "::".into(),
                vec!["user".into(), "{domain}".into(), "{id}".into()]
            )
        );
        assert_eq!(
            segments("couchmusic:userprofile:{username}"),
            (
                ":".into(),
                vec![
                    "couchmusic".into(),
                    "userprofile".into(),
                    "{username}".into()
                ]
            )
        );
        assert_eq!(
            segments("{user_id}:orders"),
            (":".into(), vec!["{user_id}".into(), "orders".into()])
        );
        assert_eq!(
            segments("user_{id}"),
            ("_".into(), vec!["user".into(), "{id}".into()])
        );
        assert_eq!(
            segments("user_profile::{id}").1,
            vec!["user_profile".to_owned(), "{id}".into()]
        );
    }

    #[test]
    fn refuses_bad_templates() {
        for (text, message) in [
            ("user", "no `{field}` placeholder"),
            ("user::{a}:{b}", "mixed delimiters"),
            ("app:user::{id}", "mixed delimiters"),
            ("user::{a}{b}", "no delimiter between"),
            ("user::{id", "unclosed"),
            ("user::id}", "unmatched"),
            ("user::{1d}", "not a placeholder"),
            ("user{id}", "not separated"),
            ("user::{id}::{id}", "appears twice"),
            ("user::{a}::::{b}", "empty segment"),
            ("{id}", "type prefix"),
        ] {
            let err = Template::parse(text).unwrap_err();
            assert!(err.contains(message), "{text}: {err}");
        }
    }
}
