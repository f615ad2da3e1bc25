//! The README's example (its first `rust` block) is compiled and run here, as `docmodel-tests/build.rs`
//! extracts it: a README that drifts from the API fails to build the suite.

use serde::{Deserialize, Serialize};

/// A phone number, as the example's `phones` holds them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Phone {
    #[serde(rename = "type")]
    kind: String,
    number: String,
}

/// The example's `set(with = phone::normalize)`: digits only, ten of them.
pub mod phone {
    use super::Phone;

    pub fn normalize(phones: Vec<Phone>) -> Result<Vec<Phone>, docmodel::Error> {
        phones
            .into_iter()
            .map(|phone| {
                let number: String = phone.number.chars().filter(char::is_ascii_digit).collect();
                match number.len() {
                    10 => Ok(Phone { number, ..phone }),
                    _ => Err(docmodel::Error::validation("phones", "not 10 digits")),
                }
            })
            .collect()
    }
}

/// The example's `validate = check_user`: a first name.
pub fn check_user(user: &example::User) -> Result<(), Vec<docmodel::FieldError>> {
    match user.first_name().trim().is_empty() {
        true => Err(vec![docmodel::FieldError::new("firstName", "is empty")]),
        false => Ok(()),
    }
}

mod example {
    include!(concat!(env!("OUT_DIR"), "/readme_example.rs"));
}

#[test]
fn the_readmes_example_compiles_and_does_what_its_comments_say() {
    let user: example::User =
        serde_json::from_str(r#"{"userId":123,"firstName":"Ann","phones":[]}"#).unwrap();
    let phone = Phone {
        kind: "mobile".into(),
        number: "(123) 456-7890".into(),
    };
    let (key, read) = example::example(user, phone).unwrap();
    assert_eq!(key.as_str(), "user::123");
    assert_eq!(read.first_name(), "Joe");
    assert_eq!(read.phones()[0].number, "1234567890", "normalized");
    let bytes = String::from_utf8(read.to_vec().unwrap()).unwrap();
    assert!(
        bytes.starts_with(r#"{"_type":"user","_schema":"3.0","_ver":1,"userId":123,"#),
        "{bytes}"
    );
}
