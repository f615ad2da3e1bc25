//! Whole-store jobs: the walk of every document of a model (`Repo::all`), and jobs split into partitions,
//! each part held against one run of the whole (same documents, same counts, same stored bytes), on every
//! store.

use std::collections::BTreeMap;
use std::future::IntoFuture;

use docmodel::store::{MemoryStore, Store};
use docmodel::{DocModel, Error, MigrationReport, Partition, Repo, Walk};
use docmodel_tests::seeds::{Phone, phone_to_phones, split_name};
use docmodel_tests::{Fresh, clock, keys_under, text};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}", revisions = 3)]
#[docmodel(migrate_from("1.0" = split_name, "2.0" = phone_to_phones))]
#[docmodel(envelope(layout = "plain"))]
struct User {
    #[docmodel(get)]
    user_id: u64,
    #[docmodel(get)]
    first_name: String,
    last_name: String,
    phones: Vec<Phone>,
}

/// Another model whose keys are keys of `User` too.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[docmodel(type = "badge", schema = "1.0", key = "user::{number}")]
#[docmodel(envelope(layout = "plain"))]
struct Badge {
    #[docmodel(allow(reserved_word))]
    number: u64,
}

/// The user `id` at the schema `id % 3` picks (1.0, 2.0, 3.0), or one no step reads (`id % 17 == 0`).
fn stored_user(id: u64) -> String {
    if id.is_multiple_of(17) {
        return format!(
            r#"{{"type":"user","schema":"1.0","userId":{id},"fullName":"X","phone":"0"}}"#
        );
    }
    match id % 3 {
        0 => format!(
            r#"{{"type":"user","schema":"1.0","userId":{id},"name":"Joe Smith{id}","phone":"{id}"}}"#
        ),
        1 => format!(
            r#"{{"type":"user","schema":"2.0","userId":{id},"firstName":"Ann{id}","lastName":"Lee","phone":"{id}"}}"#
        ),
        _ => format!(
            r#"{{"type":"user","schema":"3.0","ver":2,"userId":{id},"firstName":"Bo{id}","lastName":"Ek","phones":[]}}"#
        ),
    }
}

/// `users` users (ids 1..=users), a revision copy, a key of the pattern that is not a user key, another
/// model's document and a value past the prefix: what a job walks and what it leaves alone.
async fn seeded<S: Store>(store: &S, users: u64) {
    for id in 1..=users {
        store
            .insert(&format!("user::{id}"), stored_user(id).as_bytes())
            .await
            .unwrap();
    }
    for (key, value) in [
        (
            "user::3::v::1",
            r#"{"type":"user","schema":"1.0","userId":3,"name":"Old Copy","phone":"3"}"#,
        ),
        (
            "user::ann",
            r#"{"type":"user","schema":"1.0","userId":5,"name":"Ann Lee","phone":"7"}"#,
        ),
        (
            "user::9999",
            r#"{"type":"badge","schema":"1.0","number":9999}"#,
        ),
        ("userx::1", r#"{"type":"user","schema":"3.0"}"#),
    ] {
        store.insert(key, value.as_bytes()).await.unwrap();
    }
}

/// Every value of the store, as text, by key.
async fn contents<S: Store>(store: &S) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    for key in keys_under(store, "").await {
        let value = text(store, &key).await.unwrap();
        found.insert(key, value);
    }
    found
}

/// The ids a walk hands out, to its end, and the keys it refused (its errors, or those it skipped).
async fn walked<S: Store>(mut walk: Walk<'_, User, S>) -> (Vec<u64>, Vec<String>) {
    let mut ids = Vec::new();
    let mut refused = Vec::new();
    loop {
        match walk.next().await {
            Ok(Some(user)) => ids.push(user.user_id()),
            Ok(None) => break,
            Err(error) => refused.push(format!("{}: {error}", walk.cursor().unwrap())),
        }
        refused.extend(
            walk.take_unreadable()
                .into_iter()
                .map(|skipped| format!("{}: {}", skipped.key, skipped.error)),
        );
    }
    (ids, refused)
}

/// The users of [`seeded`] in key order (the store's order: by text), and those no step reads.
fn expected(users: u64) -> (Vec<u64>, Vec<u64>) {
    let mut keys: Vec<String> = (1..=users).map(|id| format!("user::{id}")).collect();
    keys.sort();
    let ids = keys.iter().map(|key| key[6..].parse::<u64>().unwrap());
    ids.partition(|id| !id.is_multiple_of(17))
}

async fn a_walk_reads_every_document_of_the_model_in_key_order<S: Fresh>() {
    let store = S::fresh().await;
    seeded(&store, 40).await;
    let before = contents(&store).await;
    let users = Repo::<User>::new(&store);
    let (readable, unreadable) = expected(40);
    let get_error = users.get(&User::key(17)).await.unwrap_err().to_string();

    // Migrated as `get` reads them: user 3 was stored at 1.0.
    let mut all = users.all();
    let first = all.next().await.unwrap().unwrap();
    assert_eq!((first.user_id(), first.first_name()), (1, "Ann1"));
    let three = users.get(&User::key(3)).await.unwrap().unwrap();
    assert_eq!(three.first_name(), "Joe");

    for batch in [1, 2, 3, 16, 1000] {
        let (ids, refused) = walked(users.all().batch(batch)).await;
        assert_eq!(ids, readable, "batch {batch}");
        let want: Vec<String> = unreadable
            .iter()
            .map(|id| {
                format!(
                    "user::{id}: {}",
                    get_error.replace("user::17", &format!("user::{id}"))
                )
            })
            .collect();
        assert_eq!(
            refused, want,
            "each unreadable one is its error, and the walk goes on"
        );
        let (ids, skipped) = walked(users.all().batch(batch).skip_unreadable()).await;
        assert_eq!(ids, readable);
        assert_eq!(
            skipped, want,
            "or is passed over and kept for take_unreadable"
        );
    }

    // Resumed after every cursor it can stop at, the rest of the walk.
    let mut all = users.all().batch(7).skip_unreadable();
    let mut handed = Vec::new();
    while let Some(user) = all.next().await.unwrap() {
        handed.push(user.user_id());
        let cursor = all.cursor().unwrap().to_owned();
        let (rest, _) = walked(users.all().resume_after(&cursor).skip_unreadable()).await;
        let mut whole = handed.clone();
        whole.extend(rest);
        assert_eq!(whole, readable, "resumed after {cursor}");
    }
    assert_eq!(contents(&store).await, before, "a walk writes nothing");
}

async fn the_parts_of_a_walk_are_the_walk<S: Fresh>() {
    let store = S::fresh().await;
    seeded(&store, 120).await;
    let users = Repo::<User>::new(&store);
    let (whole, _) = walked(users.all().skip_unreadable()).await;
    for count in [1, 2, 4, 7] {
        let mut union = Vec::new();
        for index in 0..count {
            let part = Partition::new(index, count).unwrap();
            let (ids, _) = walked(users.all().batch(5).partition(part).skip_unreadable()).await;
            assert!(ids.iter().all(|id| part.holds(&format!("user::{id}"))));
            if count > 1 {
                assert!(
                    ids.len() < whole.len(),
                    "part {part} holds {} of {}",
                    ids.len(),
                    whole.len()
                );
            }
            union.extend(ids);
        }
        union.sort_by_key(|id| format!("user::{id}"));
        assert_eq!(union, whole, "{count} parts");
    }
}

/// The counts of a report, and its failures' keys.
fn counts(report: &MigrationReport) -> (u64, u64, u64, u64, Vec<String>) {
    let failed = report
        .failed
        .iter()
        .map(|failure| failure.key.clone())
        .collect();
    (
        report.total,
        report.visited,
        report.migrated,
        report.skipped,
        failed,
    )
}

/// The reports of several parts, added up as one run's.
fn added(reports: &[MigrationReport]) -> (u64, u64, u64, u64, Vec<String>) {
    let mut sum = (0, 0, 0, 0, Vec::new());
    for report in reports {
        let (total, visited, migrated, skipped, failed) = counts(report);
        sum.0 += total;
        sum.1 += visited;
        sum.2 += migrated;
        sum.3 += skipped;
        sum.4.extend(failed);
    }
    sum.4.sort();
    sum
}

async fn four_parts_of_a_migration_are_one_run<S: Fresh>() {
    let (one, parted) = (S::fresh().await, S::fresh().await);
    seeded(&one, 150).await;
    seeded(&parted, 150).await;

    let whole = Repo::<User>::new(&one)
        .clock(clock)
        .migrate_all()
        .batch(16)
        .await
        .unwrap();
    assert!(whole.migrated > 90 && !whole.failed.is_empty(), "{whole}");

    // Four tasks, one part each, at once.
    let users = Repo::<User>::new(&parted).clock(clock);
    let part = |index| {
        let part = Partition::new(index, 4).unwrap();
        users.migrate_all().batch(16).partition(part).into_future()
    };
    let (a, b, c, d) = tokio::join!(part(0), part(1), part(2), part(3));
    let reports = [a.unwrap(), b.unwrap(), c.unwrap(), d.unwrap()];
    assert!(reports.iter().all(|report| report.done));
    assert!(reports.iter().all(|report| report.visited < whole.visited));
    assert_eq!(
        added(&reports),
        counts(&whole),
        "the parts' counts add up to the run's"
    );
    assert_eq!(
        contents(&parted).await,
        contents(&one).await,
        "the same bytes under the same keys"
    );
}

async fn a_part_stopped_resumes_alone<S: Fresh>() {
    let (one, parted) = (S::fresh().await, S::fresh().await);
    seeded(&one, 90).await;
    seeded(&parted, 90).await;
    let whole = Repo::<User>::new(&one)
        .clock(clock)
        .migrate_all()
        .await
        .unwrap();

    let users = Repo::<User>::new(&parted).clock(clock);
    let mut reports = Vec::new();
    for index in 0..3 {
        let part = Partition::new(index, 3).unwrap();
        if index != 1 {
            reports.push(users.migrate_all().partition(part).await.unwrap());
            continue;
        }
        // Part 1 stops after 5 keys (as a killed process stops: its last report's cursor is where it was),
        // and is run again from there, on its own.
        let stopped = users
            .migrate_all()
            .batch(2)
            .partition(part)
            .limit(5)
            .await
            .unwrap();
        assert!(!stopped.done);
        assert_eq!(stopped.visited, 5);
        let cursor = stopped.cursor.clone().unwrap();
        let rest = users
            .migrate_all()
            .partition(part)
            .resume_after(&cursor)
            .await
            .unwrap();
        assert!(rest.done);
        assert_eq!(rest.cursor, whole_part_cursor(&users, part).await);
        reports.push(stopped);
        reports.push(rest);
    }
    let (_, visited, migrated, skipped, failed) = added(&reports);
    let (_, w_visited, w_migrated, w_skipped, w_failed) = counts(&whole);
    assert_eq!(
        (visited, migrated, skipped, failed),
        (w_visited, w_migrated, w_skipped, w_failed)
    );
    assert_eq!(contents(&parted).await, contents(&one).await);
}

/// The cursor a whole run of `part` (a dry one) ends at.
async fn whole_part_cursor<S: Store>(users: &Repo<User, S>, part: Partition) -> Option<String> {
    users
        .migrate_all()
        .dry_run(true)
        .partition(part)
        .await
        .unwrap()
        .cursor
}

/// A store failing one operation of a walk (a listing or a batch's read): the call fails with the store's
/// error, and the next call goes on from where the walk was, so that every document is handed out once.
#[tokio::test]
async fn a_store_error_leaves_the_walk_where_it_was() {
    let store = docmodel_tests::FailingStore::new(MemoryStore::new());
    seeded(&store, 12).await;
    let users = Repo::<User>::new(&store);
    let (whole, refused) = walked(users.all()).await;
    assert!(refused.is_empty());
    let mut operations = 0;
    for k in 1.. {
        store.fail_at(k);
        let mut walk = users.all().batch(3);
        let (mut ids, mut failures) = (Vec::new(), 0);
        loop {
            match walk.next().await {
                Ok(Some(user)) => ids.push(user.user_id()),
                Ok(None) => break,
                Err(error) => {
                    assert!(error.to_string().contains("injected failure"), "{error}");
                    failures += 1;
                }
            }
        }
        assert_eq!(ids, whole, "operation {k} failed");
        if failures == 0 {
            operations = k - 1;
            break;
        }
    }
    assert!(operations >= 5, "a listing and four batches: {operations}");
}

/// MemoryStore, saying it cannot list keys (as Couchbase).
struct NoScan;

impl docmodel_tests::Hooks<MemoryStore> for NoScan {
    fn capabilities(&self, inner: &MemoryStore) -> docmodel::store::Capabilities {
        inner.capabilities().with_scan(false)
    }
}

/// A store that cannot list keys: the walk says what it needs.
#[tokio::test]
async fn a_walk_of_a_store_that_cannot_list_keys_says_so() {
    let store = docmodel_tests::Hooked::with(MemoryStore::new(), NoScan);
    let users = Repo::<User>::new(&store);
    let error = users.all().next().await.unwrap_err();
    assert!(matches!(error, Error::Store { .. }), "{error:?}");
    assert!(
        error
            .to_string()
            .contains("walking every `user` document needs a store that can list keys"),
        "{error}"
    );
}

// ---- The CouchDB guide's pre-aggregation --------------------------------------------------------------

/// A minute's readings of one sensor: the fine-grained documents of the guide's collect-and-report
/// database ("Pre-aggregating your data").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "minute",
    schema = "1.0",
    key = "minute::{sensor}::{day}::{minute}"
)]
#[docmodel(envelope(layout = "plain"))]
struct Minute {
    sensor: String,
    day: String,
    minute: u32,
    /// Readings in the minute, and their sum, least and greatest (tenths of a degree).
    count: u64,
    sum: i64,
    min: i64,
    max: i64,
}

/// A day's summary of one sensor: the "lower level of granularity (say, 1 document a day)" written into a
/// new database.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(type = "day", schema = "1.0", key = "day::{sensor}::{day}")]
#[docmodel(envelope(layout = "plain"))]
struct Day {
    sensor: String,
    day: String,
    minutes: u64,
    count: u64,
    sum: i64,
    min: i64,
    max: i64,
}

impl Day {
    fn of(minute: &Minute) -> Day {
        Day {
            sensor: minute.sensor.clone(),
            day: minute.day.clone(),
            minutes: 0,
            count: 0,
            sum: 0,
            min: i64::MAX,
            max: i64::MIN,
        }
    }

    fn add(&mut self, minute: &Minute) {
        self.minutes += 1;
        self.count += minute.count;
        self.sum += minute.sum;
        self.min = self.min.min(minute.min);
        self.max = self.max.max(minute.max);
    }
}

/// The minutes of two sensors over three days, some minutes missing, values from a fixed sequence.
fn minutes() -> Vec<Minute> {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut minutes = Vec::new();
    for sensor in ["hall", "roof"] {
        for day in ["2026-11-01", "2026-11-02", "2026-11-03"] {
            for minute in 0..90 {
                if next() % 5 == 0 {
                    continue;
                }
                let readings: Vec<i64> = (0..1 + next() % 4)
                    .map(|_| (next() % 400) as i64 - 100)
                    .collect();
                minutes.push(Minute {
                    sensor: sensor.into(),
                    day: day.into(),
                    minute,
                    count: readings.len() as u64,
                    sum: readings.iter().sum(),
                    min: *readings.iter().min().unwrap(),
                    max: *readings.iter().max().unwrap(),
                });
            }
        }
    }
    minutes
}

/// Walks the fine-grained store and writes a summary a day into a new one, holding one day at a time: the
/// walk is in key order, so a sensor's day is one run of minutes.
async fn summarize<S: Store, D: Store>(fine: &Repo<Minute, S>, daily: &Repo<Day, D>) -> u64 {
    let mut walk = fine.all().batch(50);
    let mut current: Option<Day> = None;
    let mut written = 0;
    while let Some(minute) = walk.next().await.unwrap() {
        let same_day = current
            .as_ref()
            .is_some_and(|day| day.sensor == minute.sensor && day.day == minute.day);
        if !same_day && let Some(done) = current.replace(Day::of(&minute)) {
            daily.insert(done).await.unwrap();
            written += 1;
        }
        current.get_or_insert_with(|| Day::of(&minute)).add(&minute);
    }
    if let Some(done) = current {
        daily.insert(done).await.unwrap();
        written += 1;
    }
    written
}

async fn the_guides_fine_grained_database_walked_into_daily_summaries<S: Fresh>() {
    let (fine_store, daily_store) = (S::fresh().await, S::fresh().await);
    let fine = Repo::<Minute>::new(&fine_store);
    let daily = Repo::<Day>::new(&daily_store);
    let minutes = minutes();
    for outcome in fine.insert_many(minutes.clone()).await.unwrap() {
        outcome.unwrap();
    }

    assert_eq!(summarize(&fine, &daily).await, 6, "two sensors, three days");

    // The oracle: the same sums over the generated minutes, with no store.
    let mut oracle: BTreeMap<(String, String), Day> = BTreeMap::new();
    for minute in &minutes {
        oracle
            .entry((minute.sensor.clone(), minute.day.clone()))
            .or_insert_with(|| Day::of(minute))
            .add(minute);
    }
    for ((sensor, day), want) in oracle {
        let got = daily
            .get(&Day::key(&sensor, &day).unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(got.body(), &want, "{sensor} {day}");
    }
    assert_eq!(
        keys_under(&daily_store, "").await.len(),
        6,
        "a document a day, nothing else"
    );
}

// ---- Reindexing in parts ------------------------------------------------------------------------------

/// A member another program wrote, whose email is unique: a lookup the repository keeps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "member",
    schema = "1.0",
    key = "member::{id}",
    lookup = "member_email::{email}"
)]
#[docmodel(envelope(layout = "plain"), unversioned = "1.0")]
struct Member {
    id: u64,
    email: String,
}

/// 60 members without lookups, written by another program: members `n` and `n + 50` share an email.
async fn members<S: Store>(store: &S) {
    for id in 1..=60 {
        let member = format!(
            r#"{{"type":"member","id":{id},"email":"m{}@example.com"}}"#,
            id % 50
        );
        store
            .insert(&format!("member::{id}"), member.as_bytes())
            .await
            .unwrap();
    }
}

async fn three_parts_of_a_reindex_are_one_run<S: Fresh>() {
    let (one, parted) = (S::fresh().await, S::fresh().await);
    members(&one).await;
    members(&parted).await;
    let mut seen = Vec::new();
    let whole = Repo::<Member>::new(&one)
        .reindex()
        .batch(25)
        .progress(|report| seen.push((report.total, report.visited, report.cursor.clone())))
        .await
        .unwrap();
    assert_eq!(
        (whole.visited, whole.lookups, whole.duplicates.len()),
        (60, 50, 10)
    );
    // Before the first batch, with the total, then after each batch of 25 keys in key order.
    let mut keys: Vec<String> = (1..=60).map(|id| format!("member::{id}")).collect();
    keys.sort();
    assert_eq!(
        seen,
        [
            (60, 0, None),
            (60, 25, Some(keys[24].clone())),
            (60, 50, Some(keys[49].clone())),
            (60, 60, Some(keys[59].clone())),
        ]
    );

    let members = Repo::<Member>::new(&parted);
    let part = |index| {
        let part = Partition::new(index, 3).unwrap();
        members.reindex().batch(7).partition(part).into_future()
    };
    let (a, b, c) = tokio::join!(part(0), part(1), part(2));
    let reports = [a.unwrap(), b.unwrap(), c.unwrap()];
    let sum = |count: fn(&docmodel::ReindexReport) -> u64| reports.iter().map(count).sum::<u64>();
    assert_eq!(sum(|report| report.total), 60);
    assert_eq!(sum(|report| report.visited), whole.visited);
    assert_eq!(sum(|report| report.lookups), whole.lookups);
    assert!(
        reports
            .iter()
            .all(|report| report.done && report.failed.is_empty())
    );
    // The duplicates the parts found, each part listing those it met: together, the run's.
    let mut found: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
    for duplicate in reports.iter().flat_map(|report| &report.duplicates) {
        found
            .entry(duplicate.lookup.clone())
            .or_default()
            .extend(duplicate.keys.iter().cloned());
    }
    let want: BTreeMap<String, std::collections::BTreeSet<String>> = whole
        .duplicates
        .iter()
        .map(|duplicate| {
            (
                duplicate.lookup.clone(),
                duplicate.keys.iter().cloned().collect(),
            )
        })
        .collect();
    assert_eq!(found, want);
    // The same lookups, each naming a holder of its value; the unduplicated ones the same document.
    let (one, parted) = (contents(&one).await, contents(&parted).await);
    assert_eq!(
        one.keys().collect::<Vec<_>>(),
        parted.keys().collect::<Vec<_>>()
    );
    for (key, value) in &one {
        match want.get(key) {
            None => assert_eq!(&parted[key], value, "{key}"),
            Some(holders) => assert!(
                holders
                    .iter()
                    .any(|holder| parted[key].contains(&format!("\"{holder}\""))),
                "{key}: {} names a holder",
                parted[key]
            ),
        }
    }
}

/// A member whose rules are checked on read: a nick of at least two characters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocModel)]
#[docmodel(
    type = "checked",
    schema = "1.0",
    key = "checked::{id}",
    lookup = "checked_email::{email}"
)]
#[docmodel(envelope(layout = "plain"), unversioned = "1.0", validate = nick_is_long, validate_on_read)]
struct Checked {
    id: u64,
    email: String,
    nick: String,
}

fn nick_is_long(checked: &Checked) -> Result<(), Vec<docmodel::FieldError>> {
    if checked.nick.chars().count() < 2 {
        return Err(vec![docmodel::FieldError::new(
            "nick",
            "at least two characters",
        )]);
    }
    Ok(())
}

/// A holder of a duplicated value that breaks the model's rules still holds it: the reindex lists the
/// duplicate with both holders, rather than failing the second with the first one's error.
#[tokio::test]
async fn a_duplicate_held_by_a_document_breaking_the_rules_is_listed() {
    let store = MemoryStore::new();
    for (key, doc) in [
        (
            "checked::2",
            r#"{"type":"checked","id":2,"email":"x@example.com","nick":"x"}"#,
        ),
        (
            "checked::3",
            r#"{"type":"checked","id":3,"email":"x@example.com","nick":"xy"}"#,
        ),
    ] {
        store.insert(key, doc.as_bytes()).await.unwrap();
    }
    let report = Repo::<Checked>::new(&store)
        .reindex()
        .batch(1)
        .await
        .unwrap();
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    assert_eq!(report.duplicates.len(), 1);
    assert_eq!(report.duplicates[0].keys, ["checked::2", "checked::3"]);
}

/// MemoryStore whose first `get_many` takes 200 ms.
#[derive(Default)]
struct SlowFirstRead(std::sync::atomic::AtomicBool);

impl docmodel_tests::Hooks<MemoryStore> for SlowFirstRead {
    async fn before(&self, _: &MemoryStore, call: docmodel_tests::Call<'_>) -> Result<(), Error> {
        if call.operation() == docmodel_tests::Operation::GetMany
            && !self.0.swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
        Ok(())
    }
}

/// A call of the walk dropped while its batch is read (a timeout) leaves the batch for the next call: the
/// first of three batches, or the only one (the listing over by then).
#[tokio::test]
async fn a_walk_call_dropped_mid_batch_loses_no_document() {
    for batch in [5, 100] {
        let store = docmodel_tests::Hooked::with(MemoryStore::new(), SlowFirstRead::default());
        seeded(&store.inner, 12).await;
        let users = Repo::<User>::new(&store);
        let mut walk = users.all().batch(batch);
        let timed_out =
            tokio::time::timeout(std::time::Duration::from_millis(20), walk.next()).await;
        assert!(timed_out.is_err(), "the first batch's read is slow");
        let mut ids = Vec::new();
        while let Some(user) = walk.next().await.unwrap() {
            ids.push(user.user_id());
        }
        assert_eq!(ids, expected(12).0, "batches of {batch}");
    }
}

on_every_store!(sqlpp [
    a_walk_reads_every_document_of_the_model_in_key_order,
    the_parts_of_a_walk_are_the_walk,
    four_parts_of_a_migration_are_one_run,
    a_part_stopped_resumes_alone,
    the_guides_fine_grained_database_walked_into_daily_summaries,
    three_parts_of_a_reindex_are_one_run,
]);
