//! Documents each broken by one named rule: the answer the server must give, and for each one it accepts
//! of a model's, docmodel's reading of it through `Repo::get`.

use serde_json::{Value, json};

use super::*;

/// What the server must answer, where the case says.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Verdict {
    Accept,
    Refuse,
}

/// One document another client writes.
#[derive(Debug)]
struct Case {
    what: &'static str,
    model: Model,
    key: String,
    /// The document as JSON text: text, to hold what a `serde_json::Value` cannot (a lone surrogate, a
    /// number past `u64`).
    text: String,
    /// Whether it is the model's document (else another's, or a revision copy: not read by key).
    own: bool,
    verdict: Verdict,
}

impl Case {
    fn new(
        what: &'static str,
        model: Model,
        key: String,
        doc: &Value,
        own: bool,
        verdict: Verdict,
    ) -> Self {
        Case {
            what,
            model,
            key,
            text: text_of(doc),
            own,
            verdict,
        }
    }
}

/// Every case: the issue's seven kinds among them.
fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    let mut next = 1000u64;
    let mut id = || {
        next += 1;
        next
    };
    use Verdict::{Accept, Refuse};

    // The profile: each case a change of the document docmodel writes.
    type Change = fn(&mut Value, u64);
    let profile_changes: Vec<(&'static str, Verdict, bool, Change)> = vec![
        ("docmodel's own", Accept, true, |_, _| {}),
        ("an unknown field", Accept, true, |d, _| {
            d["extra"] = json!({ "a": [1, 2.5, null] })
        }),
        ("an alias of the type", Accept, true, |d, _| {
            d["type"] = json!("userProfile")
        }),
        ("the type under its legacy name", Accept, true, |d, _| {
            let t = d.as_object_mut().unwrap().remove("type").unwrap();
            d["docType"] = t;
        }),
        ("the type under both names", Refuse, true, |d, _| {
            d["docType"] = json!("profile")
        }),
        (
            "the type under both names, another in one",
            Refuse,
            true,
            |d, _| d["docType"] = json!("order"),
        ),
        ("no type at the model's key", Accept, true, |d, _| {
            d.as_object_mut().unwrap().remove("type");
        }),
        (
            "no type at the model's key, a body that does not read",
            Refuse,
            true,
            |d, _| {
                d.as_object_mut().unwrap().remove("type");
                d["name"] = json!(5);
            },
        ),
        (
            "a type that is not text at the model's key",
            Refuse,
            true,
            |d, _| d["type"] = json!(5),
        ),
        ("a null type at the model's key", Refuse, true, |d, _| {
            d["type"] = Value::Null
        }),
        ("another type at the model's key", Accept, false, |d, _| {
            d["type"] = json!("order");
            d["name"] = json!(5);
        }),
        (
            "the copy marker naming the document, at its key",
            Refuse,
            true,
            |d, id| {
                d["copyOf"] = json!(format!("su::{id}"));
                d["name"] = json!(5);
            },
        ),
        ("the copy marker null", Refuse, true, |d, _| {
            d["copyOf"] = Value::Null;
            d["name"] = json!(5);
        }),
        (
            "the copy marker naming another document",
            Refuse,
            true,
            |d, _| {
                d["copyOf"] = json!("su::1");
                d["name"] = json!(5);
            },
        ),
        ("the copy marker a number", Refuse, true, |d, _| {
            d["copyOf"] = json!(5)
        }),
        (
            "the copy marker on a good document",
            Accept,
            true,
            |d, _| d["copyOf"] = json!("su::1"),
        ),
        ("ver 7", Accept, true, |d, _| d["ver"] = json!(7)),
        ("ver 0", Refuse, true, |d, _| d["ver"] = json!(0)),
        ("ver as text", Refuse, true, |d, _| d["ver"] = json!("x")),
        ("ver 1.5", Refuse, true, |d, _| d["ver"] = json!(1.5)),
        ("ver -1", Refuse, true, |d, _| d["ver"] = json!(-1)),
        ("ver 2^64", Refuse, true, |d, _| {
            d["ver"] = raw("18446744073709551616")
        }),
        ("ver 1e300", Refuse, true, |d, _| d["ver"] = raw("1e300")),
        ("ver under its legacy name", Accept, true, |d, _| {
            d.as_object_mut().unwrap().remove("ver");
            d["version"] = json!(4);
        }),
        ("ver under both names", Refuse, true, |d, _| {
            d["version"] = json!(4)
        }),
        ("no ver", Accept, true, |d, _| {
            d.as_object_mut().unwrap().remove("ver");
        }),
        ("schema 3.1, a newer minor", Accept, true, |d, _| {
            d["schema"] = json!("3.1")
        }),
        ("schema 3.0.1", Accept, true, |d, _| {
            d["schema"] = json!("3.0.1")
        }),
        ("schema 3.99999999999999999999", Refuse, true, |d, _| {
            d["schema"] = json!("3.99999999999999999999")
        }),
        ("schema 3.18446744073709551615", Accept, true, |d, _| {
            d["schema"] = json!("3.18446744073709551615")
        }),
        ("schema 3.18446744073709551616", Refuse, true, |d, _| {
            d["schema"] = json!("3.18446744073709551616")
        }),
        ("schema 0.1, no step reads it", Refuse, true, |d, _| {
            d["schema"] = json!("0.1")
        }),
        ("schema 4.0, too new", Refuse, true, |d, _| {
            d["schema"] = json!("4.0")
        }),
        ("schema 03.0", Refuse, true, |d, _| {
            d["schema"] = json!("03.0")
        }),
        ("schema \"3\"", Refuse, true, |d, _| {
            d["schema"] = json!("3")
        }),
        ("schema as a number", Refuse, true, |d, _| {
            d["schema"] = json!(3.0)
        }),
        ("no schema", Refuse, true, |d, _| {
            d.as_object_mut().unwrap().remove("schema");
        }),
        ("big 2^53", Accept, true, |d, _| {
            d["big"] = json!(9_007_199_254_740_992_u64)
        }),
        ("big 2^64", Refuse, true, |d, _| {
            d["big"] = raw("18446744073709551616")
        }),
        (
            "big u64::MAX, which a double rounds to 2^64",
            Refuse,
            true,
            |d, _| d["big"] = raw("18446744073709551615"),
        ),
        ("big 1e300", Refuse, true, |d, _| d["big"] = raw("1e300")),
        ("big 1.5", Refuse, true, |d, _| d["big"] = json!(1.5)),
        ("big -1", Refuse, true, |d, _| d["big"] = json!(-1)),
        ("score 2^63", Refuse, true, |d, _| {
            d["score"] = raw("9223372036854775808")
        }),
        ("score -2^63 - 1", Refuse, true, |d, _| {
            d["score"] = raw("-9223372036854775809")
        }),
        (
            "score i64::MIN, which a double cannot tell from one below it",
            Refuse,
            true,
            |d, _| d["score"] = raw("-9223372036854775808"),
        ),
        ("score -2^53", Accept, true, |d, _| {
            d["score"] = json!(-9_007_199_254_740_992_i64)
        }),
        ("an id that is not the key's", Refuse, true, |d, _| {
            d["id"] = json!(7)
        }),
        ("small 255", Accept, true, |d, _| d["small"] = json!(255)),
        ("small 256", Refuse, true, |d, _| d["small"] = json!(256)),
        ("small -1", Refuse, true, |d, _| d["small"] = json!(-1)),
        ("seen at the end of year 9999", Accept, true, |d, _| {
            d["seen"] = json!(253_402_300_799_999_i64)
        }),
        ("seen past year 9999", Refuse, true, |d, _| {
            d["seen"] = json!(253_402_300_800_000_i64)
        }),
        ("seen at the start of year 0", Accept, true, |d, _| {
            d["seen"] = json!(-62_167_219_200_000_i64)
        }),
        ("seen before year 0", Refuse, true, |d, _| {
            d["seen"] = json!(-62_167_219_200_001_i64)
        }),
        ("seen 1e300", Refuse, true, |d, _| d["seen"] = raw("1e300")),
        ("seen as ISO text", Accept, true, |d, _| {
            d["seen"] = json!("2024-02-29T10:00:00Z")
        }),
        (
            "seen as ISO text with a space, a fraction and an offset",
            Accept,
            true,
            |d, _| d["seen"] = json!("2024-02-29 10:00:00.5+01:00"),
        ),
        ("seen on 2023-02-29", Refuse, true, |d, _| {
            d["seen"] = json!("2023-02-29T10:00:00Z")
        }),
        ("seen on 2024-02-30", Refuse, true, |d, _| {
            d["seen"] = json!("2024-02-30T00:00:00Z")
        }),
        ("seen in month 13", Refuse, true, |d, _| {
            d["seen"] = json!("2024-13-01T00:00:00Z")
        }),
        ("seen at hour 24", Refuse, true, |d, _| {
            d["seen"] = json!("2024-01-01T24:00:00Z")
        }),
        ("seen \"yesterday\"", Refuse, true, |d, _| {
            d["seen"] = json!("yesterday")
        }),
        ("seen without a zone", Refuse, true, |d, _| {
            d["seen"] = json!("2024-02-29T10:00:00")
        }),
        ("seen past year 9999 in UTC", Refuse, true, |d, _| {
            d["seen"] = json!("9999-12-31T23:30:00-01:00")
        }),
        ("seen before year 0 in UTC", Refuse, true, |d, _| {
            d["seen"] = json!("0000-01-01T00:30:00+01:00")
        }),
        ("created \"soon\"", Refuse, true, |d, _| {
            d["created"] = json!("soon")
        }),
        ("created 1e300", Refuse, true, |d, _| {
            d["created"] = raw("1e300")
        }),
        ("created past year 9999", Refuse, true, |d, _| {
            d["created"] = json!(253_402_300_800_000_i64)
        }),
        (
            "an unknown field nested 127 levels deep in all",
            Accept,
            true,
            |d, _| d["deep"] = nested(126),
        ),
        (
            "an unknown field nested 128 levels deep in all",
            Refuse,
            true,
            |d, _| d["deep"] = nested(127),
        ),
        (
            "an unknown field nested 200 levels deep",
            Refuse,
            true,
            |d, _| d["deep"] = nested(199),
        ),
        ("a lone surrogate in the name", Refuse, true, |d, _| {
            d["name"] = raw(r#""A\ud800da""#)
        }),
        (
            "a lone low surrogate in an unknown field",
            Refuse,
            true,
            |d, _| d["note"] = raw(r#"["\udc00"]"#),
        ),
        ("a lone surrogate in a member name", Refuse, true, |d, _| {
            d["extra"] = raw(r#"{"\ud800":1}"#)
        }),
        ("a surrogate pair", Accept, true, |d, _| {
            d["name"] = raw(r#""\ud83d\ude00""#)
        }),
        ("1e400 in an unknown field", Refuse, true, |d, _| {
            d["note"] = raw("1e400")
        }),
    ];
    for (what, verdict, own, change) in profile_changes {
        let n = id();
        let mut doc = profile(n);
        change(&mut doc, n);
        cases.push(Case::new(
            what,
            Model::Profile,
            format!("su::{n}"),
            &doc,
            own,
            verdict,
        ));
    }

    // Older versions: a JSON step reads 1.0 (the envelope is checked, the body is the step's), the typed
    // step's older model reads 2.0.
    type Base = fn(u64) -> Value;
    let older: Vec<(&'static str, Verdict, Base, Change)> = vec![
        ("1.0", Accept, profile_v1, |_, _| {}),
        (
            "1.9, read by the step from 1.0",
            Accept,
            profile_v1,
            |d, _| d["schema"] = json!("1.9"),
        ),
        ("1.0 with ver 0", Refuse, profile_v1, |d, _| {
            d["ver"] = json!(0)
        }),
        ("1.0 with ver as text", Refuse, profile_v1, |d, _| {
            d["ver"] = json!("x")
        }),
        ("1.0 with ver 1.5", Refuse, profile_v1, |d, _| {
            d["ver"] = json!(1.5)
        }),
        ("1.0 with created \"soon\"", Refuse, profile_v1, |d, _| {
            d["created"] = json!("soon")
        }),
        ("1.0 with an alias, no ver", Accept, profile_v1, |d, _| {
            d["type"] = json!("userProfile");
            d.as_object_mut().unwrap().remove("ver");
        }),
        ("1.0 with a lone surrogate", Refuse, profile_v1, |d, _| {
            d["x"] = raw(r#""\ud800""#)
        }),
        ("2.0", Accept, profile_v2, |_, _| {}),
        (
            "2.7, a newer minor of the older model",
            Accept,
            profile_v2,
            |d, _| d["schema"] = json!("2.7"),
        ),
        (
            "2.0 with a body the older model does not read",
            Refuse,
            profile_v2,
            |d, _| d["name"] = json!(5),
        ),
        ("2.0 with score 2^63", Refuse, profile_v2, |d, _| {
            d["score"] = raw("9223372036854775808")
        }),
        ("2.0 with ver 0", Refuse, profile_v2, |d, _| {
            d["ver"] = json!(0)
        }),
        (
            "2.0 under the type's legacy name",
            Accept,
            profile_v2,
            |d, _| {
                let t = d.as_object_mut().unwrap().remove("type").unwrap();
                d["docType"] = t;
            },
        ),
    ];
    for (what, verdict, base, change) in older {
        let n = id();
        let mut doc = base(n);
        change(&mut doc, n);
        cases.push(Case::new(
            what,
            Model::Profile,
            format!("su::{n}"),
            &doc,
            true,
            verdict,
        ));
    }

    // Keys: a document at a revision copy's key passes untouched; at another key shape, an untyped one is
    // not the model's.
    let n = id();
    let mut copy = profile(n);
    copy["copyOf"] = json!(format!("su::{n}"));
    copy["name"] = json!(5);
    cases.push(Case::new(
        "a revision copy at its copy key",
        Model::Profile,
        format!("su::{n}::v::2"),
        &copy,
        false,
        Accept,
    ));
    cases.push(Case::new(
        "the copy marker at a copy key with a leading zero",
        Model::Profile,
        format!("su::{n}::v::02"),
        &copy,
        false,
        Refuse,
    ));
    let mut untyped = profile(n);
    untyped.as_object_mut().unwrap().remove("type");
    untyped["name"] = json!(5);
    cases.push(Case::new(
        "no type at another key shape",
        Model::Profile,
        format!("zz::{n}"),
        &untyped,
        false,
        Accept,
    ));
    cases.push(Case::new(
        "no type at a key with a leading zero",
        Model::Profile,
        format!("su::0{n}"),
        &untyped,
        false,
        Accept,
    ));

    // The root layout.
    let track_changes: Vec<(&'static str, Verdict, bool, Change)> = vec![
        ("a track as docmodel writes it", Accept, true, |_, _| {}),
        (
            "a track with a second top-level member",
            Refuse,
            true,
            |d, _| d["other"] = json!(1),
        ),
        ("a track holding a string", Refuse, true, |d, _| {
            d["track"] = json!("My House")
        }),
        ("a track with plays 2^32", Refuse, true, |d, _| {
            d["track"]["plays"] = json!(4_294_967_296_u64)
        }),
        ("a track with plays -1", Refuse, true, |d, _| {
            d["track"]["plays"] = json!(-1)
        }),
        ("a track with schema 2.0", Refuse, true, |d, _| {
            d["track"]["schema"] = json!("2.0")
        }),
        (
            "a track with a title that is not text",
            Refuse,
            true,
            |d, _| d["track"]["title"] = json!(5),
        ),
        ("a track with ver 0", Refuse, true, |d, _| {
            d["track"]["ver"] = json!(0)
        }),
        (
            "a track with a type field inside its root",
            Refuse,
            true,
            |d, _| d["track"]["type"] = json!("song"),
        ),
        ("another root at a track's key", Accept, false, |d, _| {
            let track = d.as_object_mut().unwrap().remove("track").unwrap();
            d["album"] = track;
            d["album"]["title"] = json!(5);
        }),
    ];
    for (what, verdict, own, change) in track_changes {
        let n = id();
        let mut doc = track(n);
        change(&mut doc, n);
        cases.push(Case::new(
            what,
            Model::Track,
            format!("hd::{n}"),
            &doc,
            own,
            verdict,
        ));
    }

    // A document at a key of the model's shape that is also a copy key (`mb::v::5`: team `v`, id 5) is read
    // by key as a document: the marker does not make it a copy.
    let mut forged = member(5);
    forged["team"] = json!("v");
    forged["meta"]["copyOf"] = json!("mb");
    forged["meta"]["schema"] = json!("9.9");
    cases.push(Case::new(
        "a document at a key that is also a copy key, marked a copy",
        Model::Member,
        "mb::v::5".into(),
        &forged,
        true,
        Refuse,
    ));

    // The meta layout with ISO-8601 times.
    let member_changes: Vec<(&'static str, Verdict, bool, Change)> = vec![
        ("a member as docmodel writes it", Accept, true, |_, _| {}),
        ("a member created \"not a time\"", Refuse, true, |d, _| {
            d["meta"]["created"] = json!("not a time")
        }),
        ("a member created on 2024-02-30", Refuse, true, |d, _| {
            d["meta"]["created"] = json!("2024-02-30T00:00:00Z")
        }),
        ("a member created at an offset", Accept, true, |d, _| {
            d["meta"]["created"] = json!("2024-02-29T00:00:00+05:30")
        }),
        ("a member joined as ISO text", Accept, true, |d, _| {
            d["joined"] = json!("2024-02-29T00:00:00Z")
        }),
        ("a member joined \"yesterday\"", Refuse, true, |d, _| {
            d["joined"] = json!("yesterday")
        }),
        (
            "a member at schema 1.0, an older minor",
            Accept,
            true,
            |d, _| d["meta"]["schema"] = json!("1.0"),
        ),
        ("a member at schema 1.3", Accept, true, |d, _| {
            d["meta"]["schema"] = json!("1.3")
        }),
        ("a member at schema 0.9", Refuse, true, |d, _| {
            d["meta"]["schema"] = json!("0.9")
        }),
        ("a member with id 2^63", Refuse, true, |d, _| {
            d["id"] = raw("9223372036854775808")
        }),
        ("a member with meta.ver 0", Refuse, true, |d, _| {
            d["meta"]["ver"] = json!(0)
        }),
        (
            "a member marked a copy of its key's first parts",
            Refuse,
            true,
            |d, _| {
                d["meta"]["copyOf"] = json!("mb");
                d["meta"]["schema"] = json!("9.9");
            },
        ),
        (
            "a member without a field read by its own function (an `Option`)",
            Refuse,
            true,
            |d, _| {
                d.as_object_mut().unwrap().remove("left_at");
            },
        ),
        ("a member whose such field is null", Accept, true, |d, _| {
            d["left_at"] = Value::Null
        }),
        (
            "a member without a field read under two names, under neither",
            Refuse,
            true,
            |d, _| {
                d.as_object_mut().unwrap().remove("name");
            },
        ),
        (
            "a member with a field read under two names, under its other name",
            Accept,
            true,
            |d, _| {
                let name = d.as_object_mut().unwrap().remove("name").unwrap();
                d["fullName"] = name;
            },
        ),
        (
            "a member without a field never read",
            Accept,
            true,
            |d, _| {
                d.as_object_mut().unwrap().remove("team_size");
            },
        ),
        ("a member without its meta object", Accept, false, |d, _| {
            d.as_object_mut().unwrap().remove("meta");
        }),
        ("a member whose meta is text", Refuse, false, |d, _| {
            d["meta"] = json!("x")
        }),
    ];
    for (what, verdict, own, change) in member_changes {
        let n = id();
        let mut doc = member(n as i64);
        change(&mut doc, n);
        cases.push(Case::new(
            what,
            Model::Member,
            format!("mb::t::{n}"),
            &doc,
            own,
            verdict,
        ));
    }
    cases
}

#[tokio::test]
async fn every_document_the_server_accepts_as_a_models_docmodel_reads() {
    let store = installed().await;
    let cases = cases();
    let texts: Vec<String> = cases
        .iter()
        .map(|case| with_id(&case.key, None, &case.text))
        .collect();
    let answers = bulk(&store, &texts).await;

    let mut wrong = Vec::new();
    let mut stricter = Vec::new();
    let (mut taken, mut refused) = (0, 0);
    for (case, answer) in cases.iter().zip(&answers) {
        let took = accepted(answer);
        if took {
            taken += 1;
        } else {
            refused += 1;
            let reason = answer["reason"].as_str().unwrap_or_default();
            assert_eq!(answer["error"], "forbidden", "{}: {answer}", case.what);
            assert!(reason.starts_with("docmodel: "), "{}: {reason}", case.what);
        }
        let verdict = if took {
            Verdict::Accept
        } else {
            Verdict::Refuse
        };
        if verdict != case.verdict {
            wrong.push(format!(
                "{}: {verdict:?}, expected {:?} ({answer})",
                case.what, case.verdict
            ));
        }
        if !case.own {
            continue;
        }
        let local = match case.model {
            Model::Profile => read_locally::<Profile>(&case.key, &case.text).map(drop),
            Model::Track => read_locally::<Track>(&case.key, &case.text).map(drop),
            Model::Member => read_locally::<Member>(&case.key, &case.text).map(drop),
        };
        if took {
            let through_store = match case.model {
                Model::Profile => read_back::<Profile>(&store, &case.key, &case.text).await,
                Model::Track => read_back::<Track>(&store, &case.key, &case.text).await,
                Model::Member => read_back::<Member>(&store, &case.key, &case.text).await,
            };
            if let Err(err) = local.and(through_store) {
                wrong.push(format!(
                    "{}: accepted, and docmodel does not read it as written: {err}",
                    case.what
                ));
            }
        } else if local.is_ok() {
            stricter.push(case.what);
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} cases:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
    // What the server refuses that docmodel's reader, given the exact text, reads: the costs the README
    // names. A double cannot tell these numbers from their neighbours past the type's range; and the rest
    // are forms docmodel reads that the schema does not describe.
    assert_eq!(
        stricter,
        [
            "ver 0",
            "big u64::MAX, which a double rounds to 2^64",
            "score i64::MIN, which a double cannot tell from one below it",
            "1.0 with ver 0",
            "2.0 with ver 0",
            "a track with ver 0",
            "a member with meta.ver 0",
        ],
        "refused, though docmodel reads them"
    );
    println!(
        "validation: {} documents written by another client: {taken} accepted, every one of a model's read as \
         written; {refused} refused, {} of them readable by docmodel (the costs the README names)",
        cases.len(),
        stricter.len()
    );
}
