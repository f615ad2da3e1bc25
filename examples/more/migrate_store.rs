//! The seeds' "mass migration": a Redb file of 10,000 users written across schemas 1.0, 2.0 and 3.0 is
//! brought to 3.0 with `Repo::migrate_all`, with a progress bar, and a report at the end.
//!
//! ```text
//! cargo run -p more-examples --example migrate_store            # seeds the file on the first run, then migrates
//! cargo run -p more-examples --example migrate_store -- --expect-none   # again: nothing left (or an error)
//! cargo run -p more-examples --example migrate_store -- --fresh --stop-after 2500   # a new file, stopped part way
//! cargo run -p more-examples --example migrate_store            # resumes after the saved cursor
//! ```
//!
//! The file is `docmodel-migrate-store.redb` in the system's temporary directory; the cursor of a stopped run
//! is kept beside it (`.cursor`) and taken up by the next run.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use docmodel::MigrationReport;
use docmodel::store::{Redb, Store};
use docmodel::{DocModel, Error, JsonObject, MigrationError, Repo, json};
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};

const USERS: u64 = 10_000;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Phone {
    #[serde(rename = "type")]
    kind: String,
    number: String,
}

/// The seeds' User at 3.0, with the two steps from 1.0 and 2.0.
#[derive(Debug, Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "user", schema = "3.0", key = "user::{user_id}", revisions = 2)]
#[docmodel(migrate_from("1.0" = split_name, "2.0" = phone_to_phones))]
pub struct User {
    #[docmodel(get)]
    user_id: u64,
    #[docmodel(get)]
    first_name: String,
    #[docmodel(get)]
    last_name: String,
    #[docmodel(get)]
    phones: Vec<Phone>,
}

fn split_name(doc: &mut JsonObject) -> Result<(), MigrationError> {
    let name = doc
        .remove("name")
        .ok_or_else(|| MigrationError::missing_field("name"))?;
    let name = name
        .as_str()
        .ok_or_else(|| MigrationError::new("`name` is not a string"))?;
    let (first, last) = name.split_once(' ').unwrap_or((name, ""));
    doc.insert("firstName".into(), first.into());
    doc.insert("lastName".into(), last.into());
    Ok(())
}

fn phone_to_phones(doc: &mut JsonObject) -> Result<(), MigrationError> {
    let phone = doc
        .remove("phone")
        .ok_or_else(|| MigrationError::missing_field("phone"))?;
    doc.insert(
        "phones".into(),
        json!([{ "type": "other", "number": phone }]),
    );
    Ok(())
}

/// User `id` as a program of the schema `id % 3` selects would have written it.
fn seed_document(id: u64) -> String {
    let phone = format!("555{id:07}");
    match id % 3 {
        0 => json!({"_type": "user", "_schema": "1.0", "userId": id, "name": format!("User {id}"), "phone": phone}),
        1 => json!({"_type": "user", "_schema": "2.0", "userId": id, "firstName": "User", "lastName": id.to_string(), "phone": phone}),
        _ => json!({"_type": "user", "_schema": "3.0", "userId": id, "firstName": "User", "lastName": id.to_string(), "phones": [{"type": "mobile", "number": phone}]}),
    }
    .to_string()
}

struct Args {
    fresh: bool,
    stop_after: Option<u64>,
    expect_none: bool,
}

fn args() -> Result<Args, String> {
    let mut args = Args {
        fresh: false,
        stop_after: None,
        expect_none: false,
    };
    let mut given = std::env::args().skip(1);
    while let Some(arg) = given.next() {
        match arg.as_str() {
            "--fresh" => args.fresh = true,
            "--expect-none" => args.expect_none = true,
            "--stop-after" => {
                let count = given.next().ok_or("--stop-after needs a number of keys")?;
                let count = count
                    .parse()
                    .map_err(|_| format!("--stop-after needs a number of keys, not {count:?}"))?;
                args.stop_after = Some(count);
            }
            other => {
                return Err(format!(
                    "unknown argument {other:?}: use --fresh, --stop-after N and --expect-none"
                ));
            }
        }
    }
    Ok(args)
}

fn main() {
    let args = match args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(2);
        }
    };
    match pollster::block_on(run(&args)) {
        Err(err) => {
            eprintln!("error: {err}");
            std::process::exit(1);
        }
        Ok(report) if !report.failed.is_empty() => std::process::exit(1),
        Ok(report) if args.expect_none && report.migrated > 0 => {
            eprintln!("--expect-none: {} documents were migrated", report.migrated);
            std::process::exit(1);
        }
        Ok(_) => {}
    }
}

fn cursor_path(db: &Path) -> PathBuf {
    db.with_extension("cursor")
}

async fn run(args: &Args) -> Result<MigrationReport, Error> {
    let path = std::env::temp_dir().join("docmodel-migrate-store.redb");
    let cursor_file = cursor_path(&path);
    if args.fresh {
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_file(&cursor_file);
    }
    let new = !path.exists();
    let store = Redb::open(&path)?;
    if new {
        // A cursor left by a run over an earlier file means nothing for this one.
        let _ = std::fs::remove_file(&cursor_file);
        let started = Instant::now();
        for id in 1..=USERS {
            store
                .insert(&format!("user::{id}"), seed_document(id).as_bytes())
                .await?;
        }
        println!(
            "seeded {} with {USERS} users (a third each at 1.0, 2.0 and 3.0) in {:.1?}",
            path.display(),
            started.elapsed()
        );
    }

    let resume = std::fs::read_to_string(&cursor_file).ok();
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} users  {per_sec}  {msg}")
            .expect("the template is valid"),
    );
    let users = Repo::<User>::new(&store);
    let mut run = users.migrate_all().progress(|report| {
        // The keys this run visits: known before its first batch.
        bar.set_length(report.total);
        bar.set_position(report.visited);
        bar.set_message(format!("{} migrated", report.migrated));
    });
    if let Some(cursor) = &resume {
        println!("resuming after {cursor}");
        run = run.resume_after(cursor.clone());
    }
    if let Some(count) = args.stop_after {
        run = run.limit(count);
    }
    bar.enable_steady_tick(Duration::from_millis(200));
    let started = Instant::now();
    let report = run.await?;
    bar.finish_and_clear();
    let elapsed = started.elapsed();

    println!("{report}");
    println!(
        "{:.0} documents/s ({} in {:.1?})",
        report.visited as f64 / elapsed.as_secs_f64().max(f64::EPSILON),
        report.visited,
        elapsed
    );
    for failure in &report.failed {
        println!("  {}: {}", failure.key, failure.error);
    }
    match (&report.cursor, report.done) {
        (Some(cursor), false) => {
            std::fs::write(&cursor_file, cursor).map_err(|err| Error::store(cursor, err))?;
            println!("stopped after {cursor}: run again to resume");
        }
        _ => {
            let _ = std::fs::remove_file(&cursor_file);
        }
    }
    Ok(report)
}
