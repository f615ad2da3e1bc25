//! Keys built from arbitrary parts parse back to those parts, and two different part tuples never share a key.

use docmodel::{DocModel, Error, Key};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

/// The seed's hierarchical key: `user::foo.org::12345`.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{domain}::{id}")]
struct DomainUser {
    domain: String,
    id: u64,
}

/// A child key with a signed part and a single-byte delimiter that is also the minus sign.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "reading", schema = "1.0", key = "{station}-readings-{offset}")]
struct Reading {
    station: String,
    #[docmodel(allow(reserved_word))]
    offset: i32,
}

/// The characters a key part refuses by default besides the delimiter's: controls, bidirectional controls and
/// invisible ones.
fn deceptive(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{200B}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'
                | '\u{2066}'..='\u{2069}'
                | '\u{FEFF}'
        )
}

fn text() -> impl Strategy<Value = String> {
    // Mostly delimiter-heavy text, so the refusals are exercised as often as the successes.
    prop_oneof![
        any::<String>(),
        "[a-z:.\\-]{0,6}",
        Just(String::new()),
        Just(":".to_owned())
    ]
}

proptest! {
    #[test]
    fn built_keys_parse_back_to_their_parts(domain in text(), id in any::<u64>()) {
        match DomainUser::key(&domain, id) {
            Ok(key) => {
                prop_assert!(!domain.is_empty() && !domain.contains(':'));
                prop_assert!(!domain.contains(deceptive), "accepted {:?}", domain);
                prop_assert_eq!(key.as_str(), format!("user::{domain}::{id}"));
                let parsed = Key::<DomainUser>::parse(key.as_str()).unwrap();
                prop_assert_eq!(parsed.parts().unwrap(), (domain, id));
            }
            Err(Error::InvalidKey { model: "user", .. }) => {
                prop_assert!(
                    domain.is_empty() || domain.contains(':') || domain.contains(deceptive),
                    "refused {:?}",
                    domain
                );
            }
            Err(other) => prop_assert!(false, "unexpected error {other}"),
        }
    }

    #[test]
    fn distinct_parts_never_share_a_key(a in (text(), 0u64..4), b in (text(), 0u64..4)) {
        if let (Ok(key_a), Ok(key_b)) = (DomainUser::key(&a.0, a.1), DomainUser::key(&b.0, b.1)) {
            prop_assert_eq!(key_a == key_b, a == b);
        }
    }

    #[test]
    fn any_text_parses_only_to_a_key_that_rebuilds_it(text in "user::(:|::|[a-z.]{0,3}){0,4}::(:|[0-9]{1,3}){1,2}") {
        if let Ok(key) = Key::<DomainUser>::parse(&text) {
            let (domain, id) = key.parts().unwrap();
            prop_assert_eq!(DomainUser::key(&domain, id).unwrap().into_string(), text);
        }
    }

    #[test]
    fn signed_parts_with_a_minus_delimiter(station in "[a-z]{1,4}", offset in any::<i32>()) {
        match Reading::key(&station, offset) {
            Ok(key) => {
                prop_assert!(offset >= 0);
                prop_assert_eq!(key.parts().unwrap(), (station, offset));
            }
            Err(err) => {
                prop_assert!(offset < 0);
                prop_assert!(err.to_string().contains("a character of the delimiter \"-\""), "{}", err);
            }
        }
    }
}

#[test]
fn hierarchical_key_of_the_seed() {
    let key = DomainUser::key("foo.org", 12345).unwrap();
    assert_eq!(key.as_str(), "user::foo.org::12345");
    assert_eq!(
        DomainUser {
            domain: "foo.org".into(),
            id: 12345
        }
        .doc_key()
        .unwrap(),
        key
    );
}

#[test]
fn keys_of_two_models_are_distinct_types() {
    // `Key<DomainUser>` and `Key<Reading>` do not compare; the prefix keeps their texts apart too.
    let user = DomainUser::key("x", 1).unwrap();
    assert!(Key::<Reading>::parse(user.as_str()).is_err());
}

#[test]
fn keys_serialize_as_their_text_and_deserialize_checked() {
    let key = DomainUser::key("foo.org", 7).unwrap();
    assert_eq!(
        serde_json::to_string(&key).unwrap(),
        r#""user::foo.org::7""#
    );
    let back: Key<DomainUser> = serde_json::from_str(r#""user::foo.org::7""#).unwrap();
    assert_eq!(back, key);
    let err = serde_json::from_str::<Key<DomainUser>>(r#""user::foo.org""#).unwrap_err();
    assert!(
        err.to_string().contains("does not match the pattern"),
        "{err}"
    );
}

#[test]
fn text_no_parts_could_build_is_not_a_key() {
    // A part never holds a delimiter character, so these cannot have been built by `DomainUser::key`.
    for text in ["user:::x::1", "user::a:b::1", "user::x:::1"] {
        let err = Key::<DomainUser>::parse(text).unwrap_err();
        assert!(
            err.to_string().contains("a character of the delimiter"),
            "{text}: {err}"
        );
    }
}

/// The same model, allowing any text in its key parts.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "user",
    schema = "1.0",
    key = "user::{domain}::{id}",
    allow(control_chars_in_keys)
)]
struct AnyTextUser {
    domain: String,
    id: u64,
}

#[test]
fn key_parts_refuse_characters_that_make_a_key_print_as_another() {
    let cases = [
        ("a\nb", "'\\n', a control character"),
        ("a\0b", "'\\0', a control character"),
        ("a\u{1b}[31mb", "'\\u{1b}', a control character"),
        ("moc.\u{202E}evil", "'\\u{202e}', a bidirectional control"),
        ("a\u{2066}b", "'\\u{2066}', a bidirectional control"),
        ("ad\u{200B}min", "'\\u{200b}', an invisible character"),
        ("\u{FEFF}admin", "'\\u{feff}', an invisible character"),
    ];
    for (domain, what) in cases {
        let err = DomainUser::key(domain, 1).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidKey { model: "user", .. }),
            "{err:?}"
        );
        let message = err.to_string();
        assert!(
            message.contains(&format!("the part `domain` = {domain:?} contains {what}"))
                && message
                    .contains("`#[docmodel(allow(control_chars_in_keys))]` on the model allows it"),
            "{message}"
        );
        // A key read from elsewhere is held to the same rule.
        let text = format!("user::{domain}::1");
        assert!(matches!(
            Key::<DomainUser>::parse(&text),
            Err(Error::InvalidKey { .. })
        ));
        // The model that allows them keeps them, and parses its keys back.
        let key = AnyTextUser::key(domain, 1).unwrap();
        assert_eq!(key.as_str(), text);
        assert_eq!(key.parts().unwrap(), (domain.to_owned(), 1));
    }
    // Joiners that scripts and emoji need are not refused.
    for domain in [
        "\u{0645}\u{200C}\u{0627}",
        "\u{1F468}\u{200D}\u{1F469}",
        "\u{00E9}t\u{00E9}",
    ] {
        assert_eq!(
            DomainUser::key(domain, 1).unwrap().as_str(),
            format!("user::{domain}::1")
        );
    }
}
