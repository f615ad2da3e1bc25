//! What each fuzz target checks, as functions of the input, so that the targets are one line each and a
//! finding can be replayed from a test (`cargo test --manifest-path fuzz/Cargo.toml`) or by the target's
//! binary given the file.
//!
//! The property every read target holds: any bytes read either fail with a typed error or give a document
//! that writes, reads back as the same document (key, body, envelope, fields this code does not know) and
//! writes the same bytes again. A panic anywhere is a finding.

pub mod growth;
pub mod models;

use std::fmt::Debug;

use docmodel::store::{MemoryStore, Store};
use docmodel::{Doc, DocModel, Error, Key, KeyInBody, Repo, SchemaVersion, Timestamp};
use serde::Serialize;
use serde::de::DeserializeOwned;

use models::*;

/// A target: the checks run on one input.
pub type Target = fn(&[u8]);

/// Every target, by the name of its binary and its corpus directory.
pub const TARGETS: [(&str, Target); 4] = [
    ("from_slice", from_slice),
    ("key_parse", key_parse),
    ("migrate", migrate),
    ("store_roundtrip", store_roundtrip),
];

/// What a model needs for the round-trip checks.
/// (`KeyInBody`: the targets read bytes with no key, as `Doc::from_slice` does.)
pub trait Model:
    DocModel + KeyInBody + Serialize + DeserializeOwned + PartialEq + Debug + Send + Sync
{
}
impl<T> Model for T where
    T: DocModel + KeyInBody + Serialize + DeserializeOwned + PartialEq + Debug + Send + Sync
{
}

/// The `from_slice` target: the input read as each model.
pub fn from_slice(data: &[u8]) {
    read_write_read::<User>(data, Kept::All);
    read_write_read::<TypedUser>(data, Kept::All);
    read_write_read::<MobileUser>(data, Kept::All);
    read_write_read::<Profile>(data, Kept::All);
    read_write_read::<Note>(data, Kept::All);
    read_write_read::<Country>(data, Kept::All);
    read_write_read::<SkipProfile>(data, Kept::AllButEmpty);
    read_write_read::<Session>(data, Kept::All);
    read_write_read::<Member>(data, Kept::All);
    read_write_read::<DomainUser>(data, Kept::All);
    read_write_read::<Rating>(data, Kept::All);
}

/// What a write keeps of the document read.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// Everything: the document read back is the one read.
    All,
    /// Everything but the difference between an empty value and a missing one (`skip_empty` leaves both
    /// out): the second write is the first byte for byte, but the first read may differ from the second.
    AllButEmpty,
}

/// Reads `data` as a `T`; if it reads, checks that it writes and reads back as itself, and returns it.
pub fn read_write_read<T: Model>(data: &[u8], kept: Kept) -> Option<Doc<T>> {
    let doc = Doc::<T>::from_slice(data).ok()?;
    // Read as stored under another key, it is refused, naming that key.
    if let Ok(other) = Key::<T>::parse(&format!("{}0", doc.key())) {
        match Doc::<T>::from_slice_at(other.clone(), data) {
            Err(Error::InvalidKey { key, .. }) => assert_eq!(key, other.as_str()),
            Err(err) => panic!("a {} under another key: {err}", T::TYPE),
            Ok(_) => panic!("a {} read under another key, {other}", T::TYPE),
        }
    }
    let written = doc
        .to_vec()
        .unwrap_or_else(|err| panic!("a {} read does not write: {err}", T::TYPE));
    let again = Doc::<T>::from_slice_at(doc.key().clone(), &written).unwrap_or_else(|err| {
        panic!(
            "a {} does not read what it wrote: {err}\nwritten: {}",
            T::TYPE,
            String::from_utf8_lossy(&written)
        )
    });
    if kept == Kept::All {
        assert_same(&doc, &again);
    }
    assert_eq!(again.migrated_from(), None, "what was written is current");
    let rewritten = again.to_vec().expect("the document read back writes");
    assert_eq!(
        String::from_utf8_lossy(&rewritten),
        String::from_utf8_lossy(&written),
        "a {} read back writes other bytes",
        T::TYPE
    );
    Some(doc)
}

/// Two reads of one document hold the same key, body, envelope and unknown fields.
fn assert_same<T: Model>(first: &Doc<T>, second: &Doc<T>) {
    assert_eq!(first.key(), second.key());
    assert_eq!(first.body(), second.body());
    assert_eq!(first.envelope(), second.envelope());
    assert_eq!(
        first.unknown_fields().collect::<Vec<_>>(),
        second.unknown_fields().collect::<Vec<_>>()
    );
}

/// The `key_parse` target: the input parsed as a key of each template; a key that parses has parts that
/// rebuild it exactly. Then the input as parts (split at `\n`): parts that build a key parse back to
/// themselves.
pub fn key_parse(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    parse_rebuilds::<User>(text, |(id,)| Ok(User::key(id)));
    parse_rebuilds::<DomainUser>(text, |(domain, id)| DomainUser::key(&domain, id));
    parse_rebuilds::<Reading>(text, |(station, offset)| Reading::key(&station, offset));
    parse_rebuilds::<Rating>(text, |(track, username)| Rating::key(&track, &username));
    parse_rebuilds::<Stamp>(text, |(shard, seq, delta)| {
        Ok(Stamp::key(shard, seq, delta))
    });
    parse_rebuilds::<Profile>(text, |(username,)| Profile::key(&username));
    parse_rebuilds::<Session>(text, |(id,)| Session::key(&id));

    let mut parts = text.split('\n');
    let (first, second) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    if let Ok(id) = second.parse::<u64>() {
        build_parses::<DomainUser>(DomainUser::key(first, id), (first.to_owned(), id));
    }
    if let Ok(offset) = second.parse::<i32>() {
        build_parses::<Reading>(Reading::key(first, offset), (first.to_owned(), offset));
    }
    build_parses::<Rating>(
        Rating::key(first, second),
        (first.to_owned(), second.to_owned()),
    );
}

fn parse_rebuilds<T: DocModel>(
    text: &str,
    rebuild: impl FnOnce(T::KeyParts) -> Result<Key<T>, Error>,
) where
    T::KeyParts: Debug,
{
    let Ok(key) = Key::<T>::parse(text) else {
        return;
    };
    assert_eq!(key.as_str(), text);
    let parts = key.parts().unwrap_or_else(|err| {
        panic!(
            "{text:?} parses as a {} key whose parts do not: {err}",
            T::TYPE
        )
    });
    let shown = format!("{parts:?}");
    let rebuilt = rebuild(parts)
        .unwrap_or_else(|err| panic!("the parts {shown} of {text:?} do not build a key: {err}"));
    assert_eq!(
        rebuilt.as_str(),
        text,
        "the parts {shown} rebuild another key"
    );
}

fn build_parses<T: DocModel>(built: Result<Key<T>, Error>, parts: T::KeyParts)
where
    T::KeyParts: Debug + PartialEq,
{
    let Ok(key) = built else {
        return;
    };
    let parsed = Key::<T>::parse(key.as_str())
        .unwrap_or_else(|err| panic!("{key:?}, built from {parts:?}, does not parse: {err}"));
    assert_eq!(parsed.parts().expect("a parsed key has parts"), parts);
}

/// The schema versions the `migrate` target stores: the chain's, the current one's minors, and text that is
/// almost a version.
const SCHEMAS: [&str; 16] = [
    "1.0",
    "2.0",
    "3.0",
    "1.1",
    "2.9",
    "3.1",
    "3.0.1",
    "0.9",
    "4.0",
    "1",
    "2",
    "1.0.0.0",
    "01.0",
    "",
    "-1.0",
    "18446744073709551616.0",
];

/// The `migrate` target: the first byte picks a schema (and the user or the country), the rest of the input
/// continues the object after `"_type"` and `"_schema"`. Checks the round trip, that a migrated document
/// says from where, and that the chain with a typed step reads what the JSON chain reads.
pub fn migrate(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let schema = SCHEMAS[usize::from(pick) % SCHEMAS.len()];
    let country = pick as usize / SCHEMAS.len() % 2 == 1;
    let mut stored = Vec::with_capacity(rest.len() + 48);
    let type_ = if country { "country" } else { "user" };
    stored.extend_from_slice(format!(r#"{{"_type":"{type_}","_schema":"{schema}","#).as_bytes());
    stored.extend_from_slice(rest);
    if country {
        if let Some(doc) = read_write_read::<Country>(&stored, Kept::All) {
            check_migrated_from(&doc, schema);
        }
        return;
    }
    let json = read_write_read::<User>(&stored, Kept::All);
    if let Some(doc) = &json {
        check_migrated_from(doc, schema);
    }
    if let Some(typed) = read_write_read::<TypedUser>(&stored, Kept::All) {
        check_migrated_from(&typed, schema);
        let Some(json) = json else {
            panic!("the typed chain reads {schema} where the JSON chain does not");
        };
        let TypedUser {
            user_id,
            first_name,
            last_name,
            phones,
        } = typed.into_inner();
        assert_eq!(
            json.into_inner(),
            User {
                user_id,
                first_name,
                last_name,
                phones
            },
            "the two chains read {schema} differently"
        );
    }
}

fn check_migrated_from<T: DocModel>(doc: &Doc<T>, schema: &str) {
    if let Some(from) = doc.migrated_from() {
        assert!(
            from < T::SCHEMA,
            "migrated from {from}, stored as {schema:?}"
        );
        assert_eq!(Ok(from), schema.parse::<SchemaVersion>().map_err(drop));
    }
}

/// The `store_roundtrip` target: the input stored raw in a `MemoryStore`, read through a `Repo`, saved,
/// read again.
pub fn store_roundtrip(data: &[u8]) {
    pollster::block_on(async {
        read_save_read::<User>(data).await;
        read_save_read::<Profile>(data).await;
        read_save_read::<Country>(data).await;
        read_save_read::<Member>(data).await;
        read_save_read::<Note>(data).await;
    });
}

async fn read_save_read<T: Model>(data: &[u8]) {
    let Ok(direct) = Doc::<T>::from_slice(data) else {
        return;
    };
    let key = direct.key().clone();
    let store = MemoryStore::new();
    store.insert(key.as_str(), data).await.expect("a free key");
    // Midnight: a time every timestamp format stores exactly, so the saved envelope reads back as it was.
    let repo = Repo::<T>::new(&store).clock(|| Timestamp::from_millis(1_599_955_200_000));
    let mut read = repo
        .get(&key)
        .await
        .unwrap_or_else(|err| panic!("Doc::from_slice reads it, Repo::get does not: {err}"))
        .expect("the document is there");
    assert_same(&direct, &read);
    let ver = read.envelope().ver;
    if let Err(err) = repo.save(&mut read).await {
        // A revision counter at its end cannot count one more save.
        assert!(ver == u64::MAX, "saving a {} read fails: {err}", T::TYPE);
        return;
    }
    let saved = repo
        .get(&key)
        .await
        .unwrap_or_else(|err| panic!("a saved {} does not read: {err}", T::TYPE))
        .expect("the saved document is there");
    assert_same(&read, &saved);
    assert_eq!(saved.envelope().ver, ver + 1);
    assert_eq!(saved.body(), direct.body());
}

#[cfg(test)]
mod tests {
    /// Every seed and regression input passes every target's checks.
    #[test]
    fn corpus_and_regressions_pass() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for (name, target) in super::TARGETS {
            for dir in ["corpus", "regressions"] {
                let Ok(entries) = std::fs::read_dir(root.join(dir).join(name)) else {
                    continue;
                };
                for entry in entries {
                    let path = entry.unwrap().path();
                    target(&std::fs::read(&path).unwrap());
                }
            }
        }
    }
}
