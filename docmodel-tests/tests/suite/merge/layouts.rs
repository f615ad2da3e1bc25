//! Merges read the model as the model reads itself: the rules are found at each field's path in every
//! envelope layout (`root` holds the body under one attribute), and a model's merge function gets each side
//! read with the field's own serde attributes (`with`, `default`), a side without the field as a document
//! without it reads.

use std::sync::Mutex;

use docmodel::{DocModel, Error, Repo, Resolve, Timestamp};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{apart, stored_json};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    id: u32,
    text: String,
}

/// What `later` was given: the model's type, then base, ours and theirs.
type Given = (&'static str, Option<Timestamp>, Timestamp, Timestamp);

/// What `later` was given, by each model (one per layout, so one list each).
static SEEN: Mutex<Vec<Given>> = Mutex::new(Vec::new());

/// The later of the two times; records what it was given.
fn later<T: DocModel>(base: Option<Timestamp>, ours: Timestamp, theirs: Timestamp) -> Timestamp {
    SEEN.lock().unwrap().push((T::TYPE, base, ours, theirs));
    ours.max(theirs)
}

/// The base's tags as each side left them: what either removed goes, what either added comes.
fn tags(base: Option<Vec<String>>, ours: Vec<String>, theirs: Vec<String>) -> Vec<String> {
    let base = base.unwrap_or_default();
    let kept = |tag: &String| ours.contains(tag) && theirs.contains(tag);
    let added = |side: &Vec<String>| -> Vec<String> {
        side.iter()
            .filter(|tag| !base.contains(tag))
            .cloned()
            .collect()
    };
    let mut merged: Vec<String> = base.iter().filter(|tag| kept(tag)).cloned().collect();
    merged.extend(added(&ours));
    merged.extend(added(&theirs).into_iter().filter(|tag| !ours.contains(tag)));
    merged
}

/// One memo model per layout, each of its own type (so that `later` tells them apart).
macro_rules! memo {
    ($name:ident, $type:literal, $layout:literal) => {
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
        #[docmodel(type = $type, schema = "1.0", key = "memo::{id}", revisions = 3)]
        #[docmodel(envelope(layout = $layout))]
        struct $name {
            id: u64,
            #[docmodel(merge = "max")]
            n: u64,
            #[docmodel(merge(by = "id"))]
            items: Vec<Item>,
            /// Stored in seconds: the function must get the instant, not the number read as milliseconds.
            #[serde(with = "docmodel::timestamp::epoch_s")]
            #[docmodel(merge = later::<Self>)]
            seen: Timestamp,
            /// Left out when empty: a side that cleared it holds no `tags`.
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            #[docmodel(merge = tags)]
            tags: Vec<String>,
        }

        impl Base for $name {
            fn base() -> Self {
                $name {
                    id: 1,
                    n: 1,
                    items: vec![item(1, "a"), item(2, "b")],
                    seen: Timestamp::from_millis(1_000_000),
                    tags: vec!["x".into()],
                }
            }
            fn parts(&mut self) -> (&mut u64, &mut Vec<Item>, &mut Timestamp, &mut Vec<String>) {
                (&mut self.n, &mut self.items, &mut self.seen, &mut self.tags)
            }
        }
    };
}

memo!(FlatMemo, "flat_memo", "flat");
memo!(MetaMemo, "meta_memo", "meta");
memo!(RootMemo, "root_memo", "root");

fn item(id: u32, text: &str) -> Item {
    Item {
        id,
        text: text.into(),
    }
}

trait Base:
    std::fmt::Debug + DocModel + Serialize + serde::de::DeserializeOwned + Send + Sync + Clone
{
    fn base() -> Self;
    fn parts(&mut self) -> (&mut u64, &mut Vec<Item>, &mut Timestamp, &mut Vec<String>);
}

/// Both sides changed `n` (the rule `max`), `seen` and `tags` (the model's functions): merged by the rules
/// in each layout, the functions given the instants and an absent side as the field's default.
async fn merged_by_the_rules<T: Base>() -> serde_json::Value {
    let store = apart(
        T::base(),
        |memo: &mut T| {
            let (n, _, at, tags) = memo.parts();
            *n = 5;
            *at = Timestamp::from_millis(2_000_000);
            tags.clear();
        },
        |memo: &mut T| {
            let (n, _, at, tags) = memo.parts();
            *n = 7;
            *at = Timestamp::from_millis(2_500_000);
            tags.push("y".into());
        },
    )
    .await;
    let key = T::base().doc_key().unwrap();
    let mut merged = Repo::<T>::new(&store)
        .resolve(&key, &Resolve::merge())
        .await
        .unwrap();
    let (n, items, at, tags) = merged.parts();
    assert_eq!(*n, 7, "{}: max", T::TYPE);
    assert_eq!(*items, vec![item(1, "a"), item(2, "b")]);
    assert_eq!(*at, Timestamp::from_millis(2_500_000), "{}", T::TYPE);
    // `x` removed by ours (the field left out), `y` added by theirs.
    assert_eq!(*tags, vec!["y".to_owned()], "{}", T::TYPE);
    let seen: Vec<_> = SEEN
        .lock()
        .unwrap()
        .iter()
        .filter(|seen| seen.0 == T::TYPE)
        .map(|seen| (seen.1, seen.2, seen.3))
        .collect();
    assert_eq!(
        seen,
        [(
            Some(Timestamp::from_millis(1_000_000)),
            Timestamp::from_millis(2_000_000),
            Timestamp::from_millis(2_500_000)
        )],
        "{}: the function gets the instants",
        T::TYPE
    );
    stored_json(&store, key.as_str()).await
}

#[tokio::test]
async fn rules_and_functions_merge_in_every_layout() {
    let flat = merged_by_the_rules::<FlatMemo>().await;
    assert_eq!(
        (&flat["n"], &flat["seen"], &flat["tags"]),
        (&json!(7), &json!(2500), &json!(["y"]))
    );
    let meta = merged_by_the_rules::<MetaMemo>().await;
    assert_eq!((&meta["n"], &meta["seen"]), (&json!(7), &json!(2500)));
    let root = merged_by_the_rules::<RootMemo>().await;
    let body = &root["root_memo"];
    assert_eq!(
        (&body["n"], &body["seen"], &body["tags"]),
        (&json!(7), &json!(2500), &json!(["y"]))
    );
}

/// A side put another element (another `id`) in the place of one the other side edited: the identity the
/// model declares keeps them apart, in every layout, and the path names the place from the document's top.
async fn an_element_replaced_is_not_merged_into<T: Base>(path: &str) {
    let store = apart(
        T::base(),
        |memo: &mut T| memo.parts().1[0].text = "A".into(),
        |memo: &mut T| memo.parts().1[0] = item(9, "a"),
    )
    .await;
    let key = T::base().doc_key().unwrap();
    let err = Repo::<T>::new(&store)
        .resolve(&key, &Resolve::merge())
        .await
        .unwrap_err();
    let Error::MergeConflict { conflicts, .. } = &err else {
        panic!("{}: {err:?}", T::TYPE);
    };
    let paths: Vec<&str> = conflicts.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(paths, [path], "{}", T::TYPE);
}

#[tokio::test]
async fn an_identity_keeps_elements_apart_in_every_layout() {
    an_element_replaced_is_not_merged_into::<FlatMemo>("items[0..1]").await;
    an_element_replaced_is_not_merged_into::<MetaMemo>("items[0..1]").await;
    an_element_replaced_is_not_merged_into::<RootMemo>("root_memo.items[0..1]").await;
}

/// A team of at most three members: each side adds one to two, valid alone; both together are four.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "team", schema = "1.0", key = "team::{id}", revisions = 3)]
#[docmodel(validate = at_most_three)]
struct Team {
    id: u64,
    #[docmodel(merge = "union")]
    members: Vec<String>,
}

fn at_most_three(team: &Team) -> Result<(), Vec<docmodel::FieldError>> {
    match team.members.len() {
        0..=3 => Ok(()),
        n => Err(vec![docmodel::FieldError::at(
            &Team::fields().members,
            format!("{n} members, at most 3"),
        )]),
    }
}

fn team() -> Team {
    Team {
        id: 1,
        members: vec!["ann".into(), "bob".into()],
    }
}

/// The merge of a conflict is held to the model's rules as every write is: each side valid, the union not.
#[tokio::test]
async fn a_merge_that_breaks_the_models_rules_is_refused_and_writes_nothing() {
    let store = apart(
        team(),
        |team: &mut Team| team.members.push("cat".into()),
        |team: &mut Team| team.members.push("dan".into()),
    )
    .await;
    let before = super::snapshot(&store).await;
    let err = Repo::<Team>::new(&store)
        .resolve(&Team::key(1), &Resolve::merge())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "document `team::1`: invalid value for `members`: 4 members, at most 3",
        "{err:?}"
    );
    assert_eq!(super::snapshot(&store).await, before);
}

/// The same for a stale save merged.
#[tokio::test]
async fn a_stale_save_merged_into_a_document_that_breaks_the_rules_writes_nothing() {
    let store = docmodel::store::MemoryStore::new();
    let teams = Repo::<Team>::new(&store);
    teams.insert(team()).await.unwrap();
    let mut form = teams.get(&Team::key(1)).await.unwrap().unwrap();
    teams
        .update(&Team::key(1), |team| team.members.push("dan".into()))
        .await
        .unwrap();
    let before = super::snapshot(&store).await;
    form.members.push("cat".into());
    let err = teams.save_merging(&mut form).await.unwrap_err();
    assert!(
        matches!(&err, Error::Validation { errors, .. } if errors.len() == 1),
        "{err:?}"
    );
    assert_eq!(super::snapshot(&store).await, before);
    assert_eq!(form.members, ["ann", "bob", "cat"]);
}

/// A generic model under serde's container `default`, its labels merged by a function: a side without the
/// labels reads them as the struct's default has them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, DocModel)]
#[serde(default)]
#[docmodel(type = "crate", schema = "1.0", key = "crate::{id}", revisions = 3)]
struct Crate<T> {
    id: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[docmodel(merge = tags)]
    labels: Vec<String>,
    extra: Option<T>,
}

/// A container default by a function serde types as the struct (`Default::default`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, DocModel)]
#[serde(default = "Default::default")]
#[docmodel(type = "box", schema = "1.0", key = "box::{id}", revisions = 3)]
struct Carton {
    id: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[docmodel(merge = tags)]
    labels: Vec<String>,
}

#[tokio::test]
async fn a_function_merges_fields_under_a_container_default() {
    let store = apart(
        Crate::<u8> {
            id: 1,
            labels: vec!["x".into()],
            extra: None,
        },
        |c: &mut Crate<u8>| c.labels.clear(),
        |c: &mut Crate<u8>| c.labels.push("y".into()),
    )
    .await;
    let merged = Repo::<Crate<u8>>::new(&store)
        .resolve(&Crate::<u8>::key(1), &Resolve::merge())
        .await
        .unwrap();
    assert_eq!(merged.labels, ["y"]);

    let store = apart(
        Carton {
            id: 1,
            labels: vec!["x".into()],
        },
        |c: &mut Carton| c.labels.clear(),
        |c: &mut Carton| c.labels.push("y".into()),
    )
    .await;
    let merged = Repo::<Carton>::new(&store)
        .resolve(&Carton::key(1), &Resolve::merge())
        .await
        .unwrap();
    assert_eq!(merged.labels, ["y"]);
}
