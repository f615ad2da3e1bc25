//! Whole-store jobs at size: the heap each job's run holds at its peak (a counting allocator's high-water
//! mark above what was in use before it), at 100,000 and at 1,000,000 documents on a Redb file, as a ratio,
//! for the users stored in each form `migrate_all` reads ([`Form`]: docmodel's own, and five it adopts);
//! `migrate_all`'s documents per second against a hand-written loop of the same store operations; and four
//! parts run as four tasks against one run, on a Redb file and on pouchdb-server.
//!
//! ```sh
//! cargo bench -p docmodel-benches --bench jobs             # 100,000 and 1,000,000 documents (minutes)
//! cargo bench -p docmodel-benches --bench jobs -- --test   # 1,000 and 10,000, each job once
//! cargo bench -p docmodel-benches --bench jobs -- form=no-ver     # the sizes of one form alone
//! cargo bench -p docmodel-benches --bench jobs -- throughput      # the migrate_all row alone, for a profiler
//! cargo bench -p docmodel-benches --bench jobs -- docmodel-only   # docmodel's side of that row alone
//! ```
//!
//! Each job's result is asserted (every document migrated, every lookup written, every document walked), so
//! that the full run is also the test of the jobs at 1,000,000 documents; `.ci/run` runs it.
//!
//! Redb's page cache is held to 4 MiB ([`Redb::open_with_cache`]), so that what grows with the file is
//! docmodel's, not redb's cache; commits do not wait for the disk ([`Redb::eventual`]).

use std::alloc::{GlobalAlloc, Layout, System};
use std::future::IntoFuture;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use docmodel::store::{KeyPages, Redb, Store, Write, WriteOptions};
use docmodel::{DocModel, Partition, Repo};
use docmodel_tests::seeds::{Phone, phone_to_phones, split_name};
use serde::{Deserialize, Serialize};

/// The system allocator, keeping the bytes in use and their high-water mark.
struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let now = IN_USE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size >= layout.size() {
            grew(new_size - layout.size());
        } else {
            IN_USE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `job`, and gives its result, its time and the most heap it held above what was in use before it.
async fn measured<F: IntoFuture>(job: F) -> (F::Output, Duration, usize) {
    let before = IN_USE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let start = Instant::now();
    let output = job.await;
    let took = start.elapsed();
    (output, took, PEAK.load(Ordering::Relaxed) - before)
}

/// The seeds' user, with a unique email kept as a lookup; it reads the users of every [`Form`].
#[derive(Debug, Clone, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(
    type = "user",
    schema = "3.0",
    key = "user::{user_id}",
    lookup = "email::{email}",
    aliases("member"),
    unversioned = "1.0",
    untyped = "accept"
)]
#[docmodel(migrate_from("1.0" = split_name, "2.0" = phone_to_phones))]
#[docmodel(envelope(layout = "plain", legacy_names(type = "kind")))]
struct User {
    user_id: u64,
    email: String,
    first_name: String,
    last_name: String,
    phones: Vec<Phone>,
}

fn v1(id: u64) -> String {
    Form::Own.user(id)
}

/// How the 1.0 users are stored: each is read at 1.0 and migrated.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Form {
    /// As docmodel writes them (`"ver": 1`): they hold their lookups, which `reindex` writes here.
    Own,
    /// As the seeds print them: no `ver`. docmodel did not write them, so their saves claim their lookups.
    NoVer,
    /// No `schema` either (`unversioned = "1.0"`).
    NoSchema,
    /// Under the alias `member` of the type.
    Alias,
    /// The type under a legacy name, `kind`.
    LegacyNames,
    /// No type field (`untyped = "accept"`).
    Untyped,
}

impl Form {
    const ALL: [Form; 6] = [
        Form::Own,
        Form::NoVer,
        Form::NoSchema,
        Form::Alias,
        Form::LegacyNames,
        Form::Untyped,
    ];

    fn name(self) -> &'static str {
        match self {
            Form::Own => "own",
            Form::NoVer => "no-ver",
            Form::NoSchema => "no-schema",
            Form::Alias => "alias",
            Form::LegacyNames => "legacy-names",
            Form::Untyped => "untyped",
        }
    }

    /// The user `id` in this form.
    fn user(self, id: u64) -> String {
        let envelope = match self {
            Form::Own => r#""type":"user","schema":"1.0","ver":1,"#,
            Form::NoVer => r#""type":"user","schema":"1.0","#,
            Form::NoSchema => r#""type":"user","#,
            Form::Alias => r#""type":"member","schema":"1.0","#,
            Form::LegacyNames => r#""kind":"user","schema":"1.0","#,
            Form::Untyped => r#""schema":"1.0","#,
        };
        format!(
            r#"{{{envelope}"userId":{id},"email":"u{id}@example.com","name":"Joe Smith","phone":"12345{id}"}}"#
        )
    }
}

/// A new Redb file holding `n` users at schema 1.0 in docmodel's own form (no lookups: another program wrote
/// them).
async fn seeded(n: u64, name: &str) -> (Redb, PathBuf) {
    seeded_as(n, name, Form::Own).await
}

/// [`seeded`], the users in `form`.
async fn seeded_as(n: u64, name: &str, form: Form) -> (Redb, PathBuf) {
    let path = std::env::temp_dir().join(format!(
        "docmodel-bench-jobs-{name}-{}.redb",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    let store = Redb::open_with_cache(&path, 4 << 20).unwrap().eventual();
    for start in (0..n).step_by(10_000) {
        let docs: Vec<(String, String)> = (start..n.min(start + 10_000))
            .map(|id| (format!("user::{id}"), form.user(id)))
            .collect();
        let writes: Vec<Write<'_>> = docs
            .iter()
            .map(|(key, value)| Write::Insert {
                key,
                value: value.as_bytes(),
            })
            .collect();
        store
            .write_atomic(&writes, &WriteOptions::DEFAULT)
            .await
            .unwrap();
    }
    (store, path)
}

/// `migrate_all` without docmodel: list a page of keys, read them with one `get_many`, edit each as a
/// `serde_json::Value` with the same two steps, and replace them in one write batch by their tokens.
async fn by_hand(store: &Redb) -> u64 {
    let mut pages = KeyPages::prefix(store, "user::").page_size(1000);
    let mut migrated = 0;
    while let Some(page) = pages.next_page().await.unwrap() {
        for chunk in page.chunks(256) {
            let keys: Vec<&str> = chunk.iter().map(String::as_str).collect();
            let found = store.get_many(&keys).await.unwrap();
            let mut edited = Vec::new();
            for (key, stored) in keys.iter().zip(found) {
                let Some(stored) = stored else { continue };
                let mut value: serde_json::Value = serde_json::from_slice(&stored.bytes).unwrap();
                let doc = value.as_object_mut().unwrap();
                if doc["schema"] != "1.0" {
                    continue;
                }
                split_name(doc).unwrap();
                phone_to_phones(doc).unwrap();
                doc.insert("schema".into(), "3.0".into());
                let ver = doc["ver"].as_u64().unwrap() + 1;
                doc.insert("ver".into(), ver.into());
                edited.push((*key, serde_json::to_vec(&value).unwrap(), stored.cas));
            }
            let writes: Vec<Write<'_>> = edited
                .iter()
                .map(|(key, value, cas)| Write::Replace { key, value, cas })
                .collect();
            store
                .write_atomic(&writes, &WriteOptions::DEFAULT)
                .await
                .unwrap();
            migrated += edited.len() as u64;
        }
    }
    migrated
}

/// One size's figures: each job's time and peak heap.
struct Figures {
    form: Form,
    n: u64,
    migrate: (Duration, usize),
    reindex: (Duration, usize),
    walk: (Duration, usize),
}

async fn jobs_at(n: u64, form: Form) -> Figures {
    let (store, path) = seeded_as(n, "size", form).await;
    let users = Repo::<User>::new(&store);
    let (report, took, heap) = measured(users.migrate_all()).await;
    let report = report.unwrap();
    assert_eq!((report.visited, report.migrated), (n, n), "{report}");
    assert!(report.failed.is_empty(), "{report}");
    let migrate = (took, heap);
    // docmodel's own users are taken to hold their lookups, and get them here; the others claimed theirs as
    // they were migrated.
    let lookups = if form == Form::Own { n } else { 0 };
    let (report, took, heap) = measured(users.reindex()).await;
    let report = report.unwrap();
    assert_eq!((report.visited, report.lookups), (n, lookups));
    assert!(report.duplicates.is_empty() && report.failed.is_empty());
    let reindex = (took, heap);
    let (walked, took, heap) = measured(async {
        let mut all = users.all();
        let mut walked = 0u64;
        while let Some(user) = all.next().await.unwrap() {
            assert_eq!(user.first_name, "Joe");
            walked += 1;
        }
        walked
    })
    .await;
    assert_eq!(walked, n);
    let walk = (took, heap);
    drop(users);
    drop(store);
    let _ = std::fs::remove_file(path);
    Figures {
        form,
        n,
        migrate,
        reindex,
        walk,
    }
}

/// `migrate_all` and the hand-written loop on two files of `n` users: their times.
async fn throughput(n: u64) -> (Duration, Duration) {
    let (store, path) = seeded(n, "hand").await;
    let start = Instant::now();
    assert_eq!(by_hand(&store).await, n);
    let hand = start.elapsed();
    drop(store);
    let _ = std::fs::remove_file(path);
    let (store, path) = seeded(n, "docmodel").await;
    let start = Instant::now();
    let report = Repo::<User>::new(&store).migrate_all().await.unwrap();
    let docmodel = start.elapsed();
    assert_eq!(report.migrated, n);
    drop(store);
    let _ = std::fs::remove_file(path);
    (docmodel, hand)
}

/// One run of `migrate_all` on `one` against four parts run as four tasks on `parted`, two stores holding
/// the same documents: the two times, and the documents visited.
async fn parts<S: Store>(one: &S, parted: &S) -> (Duration, Duration, u64) {
    let start = Instant::now();
    let whole = Repo::<User>::new(one).migrate_all().await.unwrap();
    let single = start.elapsed();
    let users = Repo::<User>::new(parted);
    let start = Instant::now();
    let run = |index| {
        let part = Partition::new(index, 4).unwrap();
        users.migrate_all().partition(part).into_future()
    };
    let (a, b, c, d) = tokio::join!(run(0), run(1), run(2), run(3));
    let four = start.elapsed();
    let reports = [a.unwrap(), b.unwrap(), c.unwrap(), d.unwrap()];
    let visited: u64 = reports.iter().map(|report| report.visited).sum();
    let migrated: u64 = reports.iter().map(|report| report.migrated).sum();
    assert_eq!(
        (visited, migrated),
        (whole.visited, whole.migrated),
        "four parts visit and migrate what one run does"
    );
    (single, four, visited)
}

/// `n` users at 1.0 on a new database of pouchdb-server, in one `_bulk_docs`.
async fn couchdb_users(n: u64) -> docmodel::store::CouchDb {
    let store = docmodel_tests::couchdb::fresh().await;
    let docs: Vec<(String, String)> = (0..n).map(|id| (format!("user::{id}"), v1(id))).collect();
    let values: Vec<(&str, &[u8])> = docs
        .iter()
        .map(|(key, value)| (key.as_str(), value.as_bytes()))
        .collect();
    for outcome in store.insert_many(&values, &WriteOptions::DEFAULT).await {
        outcome.unwrap();
    }
    store
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let quick = std::env::args().any(|arg| arg == "--test");
    let (small, large) = if quick {
        (1_000, 10_000)
    } else {
        (100_000, 1_000_000)
    };
    // `-- docmodel-only`: migrate_all of `small` users alone (for a profiler).
    if std::env::args().any(|arg| arg == "docmodel-only") {
        let (store, path) = seeded(small, "profiled").await;
        let start = Instant::now();
        let report = Repo::<User>::new(&store).migrate_all().await.unwrap();
        println!("{} in {:?}", report.migrated, start.elapsed());
        drop(store);
        let _ = std::fs::remove_file(path);
        return;
    }
    // `-- throughput`: that row alone (for a profiler).
    if std::env::args().any(|arg| arg == "throughput") {
        let (docmodel, hand) = throughput(small).await;
        println!("{:.2}x", docmodel.as_secs_f64() / hand.as_secs_f64());
        return;
    }
    // `-- form=<name>`: the sizes of that form alone.
    let only = std::env::args().find_map(|arg| {
        let name = arg.strip_prefix("form=")?.to_owned();
        Some(
            Form::ALL
                .into_iter()
                .find(|form| form.name() == name)
                .unwrap_or_else(|| panic!("no form {name}")),
        )
    });
    let mut figures = Vec::new();
    for form in Form::ALL
        .into_iter()
        .filter(|form| only.is_none_or(|only| only == *form))
    {
        figures.push([jobs_at(small, form).await, jobs_at(large, form).await]);
    }
    println!(
        "peak heap above what was in use before, and time, on a Redb file (4 MiB page cache), by the users' form:"
    );
    for f in figures.iter().flatten() {
        println!(
            "  {:>12} {:>9} users: migrate_all {:7.2} MiB {:6.1} s | reindex {:7.2} MiB {:6.1} s | walk {:7.2} MiB {:6.1} s",
            f.form.name(),
            f.n,
            mib(f.migrate.1),
            f.migrate.0.as_secs_f64(),
            mib(f.reindex.1),
            f.reindex.0.as_secs_f64(),
            mib(f.walk.1),
            f.walk.0.as_secs_f64()
        );
    }
    let ratio = |x: usize, y: usize| x as f64 / y.max(1) as f64;
    // The time per document at the larger size against the smaller.
    let per_doc = |x: Duration, y: Duration, a: &Figures, b: &Figures| {
        (x.as_secs_f64() / b.n as f64) / (y.as_secs_f64() / a.n as f64)
    };
    for [a, b] in &figures {
        println!(
            "  {:>12}, {} vs {} users: peak heap migrate_all {:.2}x, reindex {:.2}x, walk {:.2}x; time per document migrate_all {:.2}x, reindex {:.2}x, walk {:.2}x",
            a.form.name(),
            b.n,
            a.n,
            ratio(b.migrate.1, a.migrate.1),
            ratio(b.reindex.1, a.reindex.1),
            ratio(b.walk.1, a.walk.1),
            per_doc(b.migrate.0, a.migrate.0, a, b),
            per_doc(b.reindex.0, a.reindex.0, a, b),
            per_doc(b.walk.0, a.walk.0, a, b)
        );
    }
    if only.is_some() {
        return;
    }

    let (docmodel, hand) = throughput(small).await;
    println!(
        "migrate_all of {small} users vs the hand-written loop (a page of keys, get_many, one write batch): {:.2}x the time ({:.0} vs {:.0} documents/s)",
        docmodel.as_secs_f64() / hand.as_secs_f64(),
        small as f64 / docmodel.as_secs_f64(),
        small as f64 / hand.as_secs_f64()
    );

    let ((one, one_path), (parted, parted_path)) =
        (seeded(small, "one").await, seeded(small, "parted").await);
    let (single, four, visited) = parts(&one, &parted).await;
    drop((one, parted));
    let _ = (
        std::fs::remove_file(one_path),
        std::fs::remove_file(parted_path),
    );
    println!(
        "four parts as four tasks vs one run, {visited} users on a Redb file: {:.2}x the time ({:.2} s vs {:.2} s)",
        four.as_secs_f64() / single.as_secs_f64(),
        four.as_secs_f64(),
        single.as_secs_f64()
    );
    let couch_users = if quick { 200 } else { 5_000 };
    let (one, parted) = (
        couchdb_users(couch_users).await,
        couchdb_users(couch_users).await,
    );
    let (single, four, visited) = parts(&one, &parted).await;
    println!(
        "four parts as four tasks vs one run, {visited} users on pouchdb-server: {:.2}x the time ({:.2} s vs {:.2} s)",
        four.as_secs_f64() / single.as_secs_f64(),
        four.as_secs_f64(),
        single.as_secs_f64()
    );
}
