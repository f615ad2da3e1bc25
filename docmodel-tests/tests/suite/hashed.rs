//! Translucent fields (the CouchDB seed's one-way hashed values): a `Hashed<T>` is stored as its HMAC-SHA-256
//! under the application's key, never as the value, and a user is found by a hashed email.

use docmodel::store::MemoryStore;
use docmodel::{Doc, DocModel, Error, Key, Query, Repo, Timestamp};
use docmodel::{HashKey, Hashed};
use docmodel_tests::{keys, text};
use serde::{Deserialize, Serialize};

/// A user keyed by id, found by email through a lookup document; the email is kept only as its digest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
#[docmodel(lookup = "user_by_email::{email}")]
struct User {
    id: u64,
    email: Hashed<String>,
    name: String,
}

/// A document keyed by the digest itself.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "invite", schema = "1.0", key = "invite::{email}")]
struct Invite {
    email: Hashed<String>,
}

fn app_key() -> HashKey {
    HashKey::from_bytes(&[0x42; 32]).unwrap()
}

/// HMAC-SHA-256 of `ada@example.com` under 32 bytes of 0x42, from Python's standard library:
/// `hmac.new(b'\x42' * 32, b'ada@example.com', hashlib.sha256).hexdigest()`.
const ADA: &str = "ecf1c1cd04d9c5e9e2db502a9143e61b7ee1984696bc8a3d23096e8be9ae8b54";

#[test]
fn the_digest_is_standard_hmac_sha_256() {
    // RFC 4231, test case 6: a key longer than SHA-256's block, hashed first.
    let rfc_key = HashKey::from_bytes(&[0xaa; 131]).unwrap();
    let digest: Hashed<str> = Hashed::new(
        &rfc_key,
        "Test Using Larger Than Block-Size Key - Hash Key First",
    );
    assert_eq!(
        digest.to_string(),
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
    );

    let email: Hashed<String> = Hashed::new(&app_key(), "ada@example.com");
    assert_eq!(email.to_string(), ADA);
    // An integer is hashed as its decimal text:
    // `hmac.new(b'\x42' * 32, b'12345', hashlib.sha256).hexdigest()`.
    let id: Hashed<u64> = Hashed::new(&app_key(), &12345);
    assert_eq!(
        id.to_string(),
        "946b699eb933cf4da941fe827582efa8abec8dae7295c6d40458bbdf88c8fed3"
    );
}

#[test]
fn matches_only_the_value_under_the_key_it_was_made_with() {
    let key = app_key();
    let email: Hashed<String> = Hashed::new(&key, "ada@example.com");
    assert!(email.matches(&key, "ada@example.com"));
    assert!(email.matches(&key, &"ada@example.com".to_owned()));
    assert!(!email.matches(&key, "ada@example.org"));
    // Nothing is normalised: the caller decides what counts as the same email.
    assert!(!email.matches(&key, "Ada@example.com"));
    assert!(!email.matches(&key, "ada@example.com "));

    let other_key = HashKey::from_bytes(&[0x43; 32]).unwrap();
    assert!(!email.matches(&other_key, "ada@example.com"));
    assert_ne!(Hashed::<String>::new(&other_key, "ada@example.com"), email);
}

#[tokio::test]
async fn the_store_holds_the_digest_and_never_the_value() {
    let store = MemoryStore::new();
    let users = Repo::<User>::new(&store)
        .clock(|| Timestamp::from_millis(1_000))
        .hash_key(app_key());
    let email = users.hash("ada@example.com").unwrap();
    users
        .insert(User {
            id: 1,
            email,
            name: "Ada".into(),
        })
        .await
        .unwrap();

    let stored = text(&store, "user::1").await.unwrap();
    assert_eq!(
        stored,
        format!(
            r#"{{"_type":"user","_schema":"1.0","_ver":1,"_created":1000,"_modified":1000,"id":1,"email":"{ADA}","name":"Ada"}}"#
        )
    );
    assert_eq!(
        keys(&store).await,
        ["user::1".to_owned(), format!("user_by_email::{ADA}")]
    );
    for key in keys(&store).await {
        let bytes = text(&store, &key).await.unwrap();
        assert!(
            !format!("{key}{bytes}").contains("example"),
            "{key}: {bytes}"
        );
    }
}

#[tokio::test]
async fn a_user_is_found_by_the_hashed_email() {
    let store = MemoryStore::new();
    let users = Repo::<User>::new(&store).hash_key(app_key());
    for (id, email, name) in [(1, "ada@example.com", "Ada"), (2, "bob@example.com", "Bob")] {
        let email = users.hash(email).unwrap();
        let name = name.into();
        users.insert(User { id, email, name }).await.unwrap();
    }

    let lookup = format!(
        "user_by_email::{}",
        users.hash::<String, _>("ada@example.com").unwrap()
    );
    let ada = users.get_by_lookup(&lookup).await.unwrap().unwrap();
    assert_eq!((ada.id, ada.name.as_str()), (1, "Ada"));
    assert!(users.matches(&ada.email, "ada@example.com").unwrap());
    assert!(!users.matches(&ada.email, "bob@example.com").unwrap());

    let unknown = format!(
        "user_by_email::{}",
        users.hash::<String, _>("eve@example.com").unwrap()
    );
    assert!(users.get_by_lookup(&unknown).await.unwrap().is_none());

    // A query compares the stored digest too.
    let bob = users.hash("bob@example.com").unwrap();
    let page = users
        .find(&Query::new(User::fields().email.eq(bob)))
        .await
        .unwrap();
    let names: Vec<&str> = page.docs.iter().map(|user| user.name.as_str()).collect();
    assert_eq!(names, ["Bob"]);

    // And a document keyed by the digest is got by key.
    let invites = Repo::<Invite>::new(&store).hash_key(app_key());
    let email = invites.hash("carol@example.com").unwrap();
    invites.insert(Invite { email }).await.unwrap();
    let key = Invite::key(&invites.hash("carol@example.com").unwrap()).unwrap();
    assert!(invites.get(&key).await.unwrap().is_some());
}

#[tokio::test]
async fn a_repository_without_a_key_refuses_to_hash() {
    let store = MemoryStore::new();
    let users = Repo::<User>::new(&store);
    let err = users.hash::<String, _>("ada@example.com").unwrap_err();
    assert!(matches!(err, Error::HashKey { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "hash key: the repository of type `user` has none; give it one with `Repo::hash_key`"
    );
    let email: Hashed<String> = Hashed::new(&app_key(), "ada@example.com");
    assert!(matches!(
        users.matches(&email, "ada@example.com"),
        Err(Error::HashKey { .. })
    ));
}

#[test]
fn a_short_key_is_refused() {
    let err = HashKey::from_bytes(&[7; 31]).unwrap_err();
    assert!(matches!(err, Error::HashKey { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "hash key: it is 31 bytes long; an HMAC-SHA-256 key needs at least 32 random bytes"
    );
    assert!(HashKey::from_bytes(&[7; 32]).is_ok());
    assert_eq!(format!("{:?}", app_key()), "HashKey(..)");
}

#[tokio::test]
async fn a_stored_value_that_is_not_a_digest_is_a_codec_error_naming_the_document() {
    let store = MemoryStore::new();
    let users = Repo::<User>::new(&store);
    // An email stored before the field was hashed: the error names the document, not the email.
    let plain = br#"{"_type":"user","_schema":"1.0","_ver":1,"id":7,"email":"ada@example.com","name":"Ada"}"#;
    docmodel::store::Store::insert(&store, "user::7", plain)
        .await
        .unwrap();
    let err = users.get(&User::key(7)).await.unwrap_err();
    assert!(
        matches!(&err, Error::Codec { key: Some(key), field: Some(field), .. }
            if key == "user::7" && field == "email"),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.starts_with(
            "document `user::7`, field `email`: invalid value: a string of 15 characters, expected 64 lowercase hex \
             digits, the HMAC-SHA-256 digest of a `docmodel::Hashed`"
        ),
        "{message}"
    );
    assert!(!message.contains("ada@"), "{message}");

    let uppercase = ADA.to_uppercase();
    let bytes = format!(
        r#"{{"_type":"user","_schema":"1.0","_ver":1,"id":8,"email":"{uppercase}","name":"Ada"}}"#
    );
    assert!(matches!(
        Doc::<User>::from_slice(bytes.as_bytes()),
        Err(Error::Codec { .. })
    ));
}

#[test]
fn a_key_part_that_is_not_a_digest_is_an_invalid_key_naming_the_part() {
    let key = Key::<Invite>::parse(&format!("invite::{ADA}")).unwrap();
    assert_eq!(key.parts().unwrap().0.to_string(), ADA);

    let err = Key::<Invite>::parse("invite::ada@example.com").unwrap_err();
    assert!(
        matches!(
            &err,
            Error::InvalidKey {
                model: "invite",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains("the part `email` = \"ada@example.com\" is not a valid"),
        "{err}"
    );
}
