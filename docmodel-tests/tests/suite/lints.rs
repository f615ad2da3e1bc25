//! Generated code compiles under strict lints of a user's crate (`cargo clippy --all-targets` checks the
//! clippy part).

#![deny(missing_docs, unused_qualifications, clippy::all, clippy::pedantic)]
#![allow(clippy::must_use_candidate)]

use docmodel::DocModel;
use serde::{Deserialize, Serialize};

/// A model using every generated item.
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "account", schema = "2.1", key = "acct::{region}::{number}")]
#[docmodel(envelope(
    layout = "plain",
    timestamps = "iso8601",
    created_by,
    modified_by,
    accessed,
    geo
))]
pub struct Account {
    /// The region, part of the key.
    #[docmodel(get)]
    region: String,
    /// The account number, part of the key.
    #[docmodel(get)]
    #[docmodel(allow(reserved_word))]
    number: u64,
    /// Display name.
    #[docmodel(get, set)]
    display_name: String,
    /// Balance in cents.
    #[docmodel(get(copy), set)]
    balance: i64,
    /// Contact addresses.
    #[docmodel(get, set(with = checked_emails), push = add_email)]
    emails: Vec<String>,
    /// Optional nickname.
    #[docmodel(get, set)]
    nickname: Option<String>,
    /// Tags, merged by the model's function, left out when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[docmodel(merge = merged_tags)]
    tags: Vec<String>,
    /// When last seen, in seconds, merged by the model's function.
    #[serde(with = "docmodel::timestamp::epoch_s")]
    #[docmodel(merge = later)]
    seen: docmodel::Timestamp,
}

#[allow(clippy::needless_pass_by_value)]
fn merged_tags(_: Option<Vec<String>>, ours: Vec<String>, theirs: Vec<String>) -> Vec<String> {
    let mut tags = ours;
    tags.extend(theirs);
    tags
}

#[allow(clippy::needless_pass_by_value)]
fn later(
    _: Option<docmodel::Timestamp>,
    ours: docmodel::Timestamp,
    theirs: docmodel::Timestamp,
) -> docmodel::Timestamp {
    ours.max(theirs)
}

fn checked_emails(emails: Vec<String>) -> Result<Vec<String>, docmodel::Error> {
    if emails.iter().all(|email| email.contains('@')) {
        Ok(emails)
    } else {
        Err(docmodel::Error::validation(
            "emails",
            "an address needs an `@`",
        ))
    }
}

/// An integer-keyed model, whose key constructor cannot fail.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "counter", schema = "1.0", key = "counter::{id}")]
pub struct Counter {
    /// The id.
    #[docmodel(get)]
    id: u32,
}

#[test]
fn generated_items_are_usable() {
    let mut account = Account {
        region: "eu".into(),
        number: 1,
        display_name: String::new(),
        balance: 0,
        emails: Vec::new(),
        nickname: None,
        tags: Vec::new(),
        seen: docmodel::Timestamp::from_millis(0),
    };
    account.set_balance(5);
    account.add_email("a@b.c").unwrap();
    assert!(account.add_email("nope").is_err());
    assert_eq!(
        (account.region(), account.number(), account.balance()),
        ("eu", 1, 5)
    );
    assert_eq!(account.emails(), ["a@b.c"]);
    assert_eq!(account.nickname(), None);
    assert_eq!(Account::key("eu", 1).unwrap().as_str(), "acct::eu::1");
    assert_eq!(Counter::key(3).as_str(), "counter::3");
    assert_eq!(Counter { id: 3 }.id(), 3);
    let _ = (account.display_name(), account.doc_key());
}

/// The previous schema of `Member`, read through its own chain.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "member", schema = "2.0", key = "member::{id}", migrate_from("1.0" = rename_member))]
pub struct MemberV2 {
    /// The id.
    id: u64,
    /// The e-mail address.
    email: String,
}

/// A model with every repository option: a chain with both kinds of steps, revisions and a lookup.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "member", schema = "3.0", key = "member::{id}")]
#[docmodel(migrate_from("1.0" = rename_member, "2.0" = MemberV2), revisions = 5)]
#[docmodel(lookup = "member_email::{email}")]
pub struct Member {
    /// The id.
    #[docmodel(get)]
    id: u64,
    /// The e-mail address, unique across members.
    #[docmodel(get, set)]
    email: String,
}

impl From<MemberV2> for Member {
    fn from(old: MemberV2) -> Self {
        Member {
            id: old.id,
            email: old.email,
        }
    }
}

fn rename_member(doc: &mut docmodel::JsonObject) -> Result<(), docmodel::MigrationError> {
    let email = doc
        .remove("mail")
        .ok_or_else(|| docmodel::MigrationError::missing_field("mail"))?;
    doc.insert("email".into(), email);
    Ok(())
}

#[test]
fn repository_options_are_usable() {
    assert_eq!(Member::REVISIONS, Some(5));
    assert_eq!(Member::LOOKUPS.len(), 1);
    assert_eq!(Member::MIGRATIONS.len(), 2);
    let member = Member {
        id: 1,
        email: "a@b.c".into(),
    };
    assert_eq!((member.id(), member.email()), (1, "a@b.c"));
}
