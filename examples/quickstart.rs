//! docmodel in five minutes: the seeds' User model, its keys, its accessors (one value refused by
//! validation, one user refused by the model's rules), the JSON it is stored as in two envelope layouts, and its history in an embedded store that
//! grows each time you run this.
//!
//! Run with `cargo run --example quickstart`.

use docmodel::store::Redb;
use docmodel::{Doc, DocModel, FieldError, Key, Repo, Timestamp};
use serde::{Deserialize, Serialize};

/// A phone number; `type` is `mobile`, `home`, `work`, ...
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Phone {
    #[serde(rename = "type")]
    kind: String,
    number: String,
}

mod phone {
    use super::Phone;

    /// The seeds' business rule for phones: strip everything but digits, then require 10 of them.
    pub fn normalize(phones: Vec<Phone>) -> Result<Vec<Phone>, docmodel::Error> {
        phones
            .into_iter()
            .map(|phone| {
                let number: String = phone.number.chars().filter(char::is_ascii_digit).collect();
                if number.len() == 10 {
                    Ok(Phone { number, ..phone })
                } else {
                    let message = format!("{:?} does not have 10 digits", phone.number);
                    Err(docmodel::Error::validation("phones", message))
                }
            })
            .collect()
    }
}

/// A registered user, schema 3.0 of the seeds' User model.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}", revisions = 10)]
#[docmodel(validate = check_user)]
pub struct User {
    /// The user's id; part of the key, so it has no setter.
    #[docmodel(get)]
    user_id: u64,
    #[docmodel(get, set)]
    first_name: String,
    #[docmodel(get, set)]
    last_name: String,
    #[docmodel(get, set(with = phone::normalize), push = add_phone)]
    phones: Vec<Phone>,
}

/// The rules of a whole user, checked before every write (`Doc::new`, `insert`, `save`, `update`): every
/// failing field is listed, by the name it is stored under.
fn check_user(user: &User) -> Result<(), Vec<FieldError>> {
    let fields = User::fields();
    let errors: Vec<FieldError> = [
        (&fields.first_name, &user.first_name),
        (&fields.last_name, &user.last_name),
    ]
    .into_iter()
    .filter(|(_, value)| value.trim().is_empty())
    .map(|(field, _)| FieldError::at(field, "is empty"))
    .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// The same user kept in a profile document with the seeds' other layout: one `meta` object, ISO-8601
/// timestamps and who wrote it, under an app-namespaced key.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(
    type = "userprofile",
    schema = "1.0",
    key = "couchmusic:userprofile:{username}"
)]
#[docmodel(envelope(layout = "meta", timestamps = "iso8601", created_by))]
pub struct Profile {
    #[docmodel(get)]
    username: String,
    #[docmodel(get, set)]
    display_name: String,
}

fn main() -> Result<(), docmodel::Error> {
    // docmodel's store API is async on any executor; a one-line executor is enough here.
    pollster::block_on(run())
}

async fn run() -> Result<(), docmodel::Error> {
    // Keys come from the fields, without an instance; they parse back to their parts.
    let key: Key<User> = User::key(123);
    println!("key of user 123:      {key}");
    println!(
        "parts of {key}:    {:?}",
        Key::<User>::parse("user::123")?.parts()?
    );
    println!("profile key of 'joe': {}", Profile::key("joe")?);
    match Profile::key("joe:admin") {
        Ok(key) => println!("unexpected key {key}"),
        Err(err) => println!("refused:              {err}"),
    }

    // Accessors: setters take anything that converts; the phone setter normalizes and validates.
    let mut user = User {
        user_id: 123,
        first_name: "Joe".into(),
        last_name: "Smith".into(),
        phones: Vec::new(),
    };
    user.set_first_name("Joseph");
    user.add_phone(Phone {
        kind: "mobile".into(),
        number: "(123) 456-7890".into(),
    })?;
    if let Err(err) = user.add_phone(Phone {
        kind: "home".into(),
        number: "555-0199".into(),
    }) {
        println!("\nvalidation refused:   {err}");
    }
    println!("phones after that:    {:?}", user.phones());
    let nameless = User {
        user_id: 124,
        first_name: " ".into(),
        last_name: String::new(),
        phones: Vec::new(),
    };
    if let Err(err) = Doc::new(nameless) {
        println!("the model's rules:    {err}");
    }

    // The stored JSON in two layouts: the envelope first (`_type`, `_schema`, `_ver`, ...), then the body.
    let mut profile = Doc::new(Profile {
        username: "joe".into(),
        display_name: "Joe S.".into(),
    })?;
    profile.envelope_mut().created = Some(Timestamp::from_millis(1_544_759_124_478));
    profile.envelope_mut().created_by = Some("quickstart".into());
    println!(
        "\nmeta layout, stored under {}:\n{}",
        profile.key(),
        profile.to_string_pretty()?
    );
    match Doc::<User>::from_slice(&profile.to_vec()?) {
        Ok(_) => println!("unexpected: a profile read as a user"),
        Err(err) => println!("reading the profile as a User: {err}"),
    }

    // Into the embedded store: one file, kept between runs, so running this again adds a version.
    let path = std::env::temp_dir().join("docmodel-quickstart.redb");
    println!("\nstore: {}", path.display());
    let store = Redb::open(&path)?;
    let users = Repo::<User>::new(&store).actor("quickstart");
    let existing = match users.get(&key).await {
        Ok(existing) => existing,
        // A file left by another version of this example, whose user this model cannot read: start over.
        Err(err) => {
            println!("({err}; starting a fresh history)");
            users.remove(&key).await.or_else(|err| match err {
                docmodel::Error::NotFound { .. } => Ok(()),
                err => Err(err),
            })?;
            None
        }
    };
    let doc = match existing {
        None => users.insert(user).await?,
        Some(current) => {
            // Each run adds a work phone, through the same validation as `add_phone` anywhere else.
            let number = format!("555{:07}", current.envelope().ver + 1);
            users
                .update(&key, |user| {
                    user.add_phone(Phone {
                        kind: "work".into(),
                        number: number.clone(),
                    })
                })
                .await?
        }
    };
    println!(
        "flat layout, stored under {} at version {}:\n{}",
        doc.key(),
        doc.envelope().ver,
        doc.to_string_pretty()?
    );
    let history = users.revisions(&key).await?;
    if history.is_empty() {
        println!(
            "kept earlier versions: none yet (each run saves a new version; run again to see them)"
        );
    } else {
        println!("kept earlier versions (newest first, at most 10):");
    }
    for old in &history {
        let numbers: Vec<&str> = old
            .phones()
            .iter()
            .map(|phone| phone.number.as_str())
            .collect();
        println!("  version {}: phones {numbers:?}", old.envelope().ver);
    }
    Ok(())
}
