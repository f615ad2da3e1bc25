//! One policy for what a stored document may hold: the one-pass reader (a document at the current schema) and
//! the migration path (one at an older schema) refuse the same documents, with the same reason.

use docmodel::{Doc, Error};
use docmodel_tests::seeds::UserV2;

/// A 2.0 user read as it is, and a 1.0 user migrated to 2.0, each with `extra` among its fields.
fn read_both(extra: &str) -> [Result<Doc<UserV2>, Error>; 2] {
    let current = format!(
        r#"{{"_type":"user","_schema":"2.0","userId":123,"firstName":"Joe","lastName":"Smith","phone":"1",{extra}}}"#
    );
    let older = format!(
        r#"{{"_type":"user","_schema":"1.0","userId":123,"name":"Joe Smith","phone":"1",{extra}}}"#
    );
    [current, older].map(|stored| Doc::<UserV2>::from_slice_at(UserV2::key(123), stored.as_bytes()))
}

#[test]
fn hostile_fields_the_model_does_not_know_are_refused_on_every_path() {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let cases = [
        (
            format!(r#""notes":{}"#, deep(200)),
            "nests deeper than 128 levels",
        ),
        (
            format!(r#""notes":{}"#, deep(100_000)),
            "nests deeper than 128 levels",
        ),
        (r#""score":1e999"#.to_owned(), "out of the range of an f64"),
        (r#""nick":"\ud800""#.to_owned(), "lone surrogate"),
        (
            r#""prefs":{"theme":"dark","theme":"light"}"#.to_owned(),
            "twice",
        ),
        (
            r#""nick":"a","nick":"b""#.to_owned(),
            "duplicate field `nick`",
        ),
    ];
    for (extra, reason) in cases {
        let shown = &extra[..extra.len().min(40)];
        for (path, read) in ["current", "migrated"].into_iter().zip(read_both(&extra)) {
            let err = match read {
                Ok(_) => panic!("{path}: {shown} was read"),
                Err(err) => err,
            };
            let message = err.to_string();
            assert!(
                matches!(err, Error::Codec { .. } | Error::Migration { .. }),
                "{path}: {shown}: {err:?}"
            );
            // The migration path names the number or the surrogate by serde_json's words.
            let said = message.contains(reason)
                || (reason.contains("f64") && message.contains("number out of range"))
                || (reason.contains("surrogate")
                    && (message.contains("surrogate") || message.contains("hex escape")))
                || (reason.contains("deeper") && message.contains("recursion limit exceeded"))
                || (reason.contains("twice") && message.contains("duplicate field `theme`"));
            assert!(said, "{path}: {shown}: {message}");
        }
    }
}

#[test]
fn what_the_policy_allows_is_kept_on_every_path() {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    for extra in [
        format!(r#""notes":{}"#, deep(120)),
        r#""score":1e308"#.to_owned(),
        r#""nick":"\ud83d\ude00""#.to_owned(),
        r#""prefs":{"theme":"dark","colors":{"theme":"light"}}"#.to_owned(),
    ] {
        for read in read_both(&extra) {
            let doc = read.unwrap_or_else(|err| panic!("{}: {err}", &extra[..extra.len().min(40)]));
            let name = extra[1..].split('"').next().unwrap();
            assert!(
                doc.unknown_fields().any(|(field, _)| field == name),
                "{extra}"
            );
        }
    }
}
