//! The table of BENCHMARKS.md: each docmodel path against its baseline, as the ratio of their mean times in
//! the last `cargo bench` run (criterion's `target/criterion/<group>/<bench>/new/estimates.json`).
//!
//! ```sh
//! cargo bench -p docmodel-benches --bench codec --bench unknown --bench writes --bench migrate --bench repo --bench find --bench merge --bench event_log
//! cargo run -p docmodel-tests --bin bench-ratios
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// One row: what is compared, the two benchmarks (`group/bench`), and the target the ratio must meet.
struct Row {
    what: &'static str,
    measured: &'static str,
    baseline: &'static str,
    target: Target,
    /// Compare the time per unit of the benchmarks' throughput (a byte of input, a document held), not per
    /// run.
    per_byte: bool,
}

enum Target {
    /// measured / baseline at most this.
    AtMost(f64),
    /// baseline / measured at least this: how many times faster.
    Faster(f64),
    /// measured / baseline, shown for what it tells; no target.
    Shown,
}

const fn row(
    what: &'static str,
    measured: &'static str,
    baseline: &'static str,
    target: Target,
) -> Row {
    Row {
        what,
        measured,
        baseline,
        target,
        per_byte: false,
    }
}

const fn per_byte(
    what: &'static str,
    measured: &'static str,
    baseline: &'static str,
    target: Target,
) -> Row {
    Row {
        per_byte: true,
        ..row(what, measured, baseline, target)
    }
}

const ROWS: &[Row] = &[
    row(
        "decode a current user (10 fields) vs a hand-written serde struct with the same checks and key",
        "decode/docmodel",
        "decode/serde_json with checks",
        Target::AtMost(1.05),
    ),
    row(
        "decode a current user vs the bare struct (no checks, no key)",
        "decode/docmodel",
        "decode/serde_json",
        Target::Shown,
    ),
    row(
        "encode a current user vs the same struct",
        "encode/docmodel",
        "encode/serde_json",
        Target::AtMost(1.05),
    ),
    row(
        "build a key vs `format!`",
        "key/docmodel",
        "key/format",
        Target::AtMost(1.0),
    ),
    row(
        "build a key of one string part vs `format!`",
        "key, one string part/docmodel",
        "key, one string part/format",
        Target::AtMost(0.9),
    ),
    row(
        "build a key of a string and a u64 vs `format!`",
        "key, string and u64/docmodel",
        "key, string and u64/format",
        Target::AtMost(0.9),
    ),
    row(
        "read a 1.0 user as 3.0 through two JSON steps vs the steps on a `Value` and `from_value`",
        "migrate 1.0 to 3.0/docmodel",
        "migrate 1.0 to 3.0/serde_json Value",
        Target::AtMost(1.05),
    ),
    row(
        "read a 2.0 user as 3.0 through a typed step vs the 2.0 struct and a hand-written `From`",
        "typed step 2.0 to 3.0/docmodel",
        "typed step 2.0 to 3.0/serde_json From",
        Target::AtMost(1.05),
    ),
    per_byte(
        "unknown fields: decode cost per byte, 100 body + 100 unknown vs 10 + 10",
        "unknown fields/decode, docmodel/100+100",
        "unknown fields/decode, docmodel/10+10",
        Target::AtMost(1.2),
    ),
    per_byte(
        "unknown fields: decode cost per byte, 100 body + 1,000 unknown vs 10 + 10",
        "unknown fields/decode, docmodel/100+1000",
        "unknown fields/decode, docmodel/10+10",
        Target::AtMost(1.2),
    ),
    row(
        "unknown fields: decode 10 + 10 (all kept) vs a struct that ignores them",
        "unknown fields/decode, docmodel/10+10",
        "unknown fields/decode, serde_json/10+10",
        Target::Shown,
    ),
    row(
        "unknown fields: decode 100 + 100 (all kept) vs a struct that ignores them",
        "unknown fields/decode, docmodel/100+100",
        "unknown fields/decode, serde_json/100+100",
        Target::Shown,
    ),
    row(
        "unknown fields: decode 100 + 1,000 (all kept) vs a struct that ignores them",
        "unknown fields/decode, docmodel/100+1000",
        "unknown fields/decode, serde_json/100+1000",
        Target::Shown,
    ),
    row(
        "unknown fields: read and write back 10 + 10 vs a `Value` round trip",
        "unknown fields/round trip, docmodel/10+10",
        "unknown fields/round trip, serde_json Value/10+10",
        Target::AtMost(1.0),
    ),
    row(
        "unknown fields: read and write back 100 + 100 vs a `Value` round trip",
        "unknown fields/round trip, docmodel/100+100",
        "unknown fields/round trip, serde_json Value/100+100",
        Target::AtMost(1.0),
    ),
    row(
        "unknown fields: read and write back 100 + 1,000 vs a `Value` round trip",
        "unknown fields/round trip, docmodel/100+1000",
        "unknown fields/round trip, serde_json Value/100+1000",
        Target::AtMost(1.0),
    ),
    row(
        "`Repo::save` with 10 revisions on a Redb file: one batch vs in steps (times faster)",
        "save/one batch",
        "save/in steps",
        Target::Faster(2.5),
    ),
    row(
        "`Repo::save` with 10 revisions on a Redb file vs one bare `Store::replace`",
        "save/one batch",
        "save/one replace",
        Target::AtMost(1.2),
    ),
    row(
        "`Repo::insert_many` of 1,000 users on a Redb file vs 1,000 `Repo::insert` (times faster)",
        "load/insert_many, durable, 1000 users",
        "load/insert, durable, 1000 users",
        Target::Faster(1.0),
    ),
    row(
        "1,000 `Repo::insert` on an eventual Redb handle vs a durable one (times faster)",
        "load/insert, eventual, 1000 users",
        "load/insert, durable, 1000 users",
        Target::Faster(1.0),
    ),
    row(
        "`migrate_all` of 1,000 users on a Redb file vs a hand-written read-modify-write loop",
        "migrate_all/migrate_all, 1000 users",
        "migrate_all/by hand, 1000 users",
        Target::AtMost(1.0),
    ),
    row(
        "`Repo::get` of a current user on MemoryStore vs `Store::get` and the hand-written checked read",
        "repo get/docmodel",
        "repo get/store get, hand-written read",
        Target::Shown,
    ),
    row(
        "`Repo::save` of a user without copies on MemoryStore vs `to_vec` and `Store::replace`",
        "repo save/docmodel",
        "repo save/to_vec, store replace",
        Target::Shown,
    ),
    row(
        "`Repo::save` with 10 revisions on MemoryStore vs the same store operations by hand",
        "repo save, 10 revisions/docmodel",
        "repo save, 10 revisions/by hand",
        Target::AtMost(1.1),
    ),
    row(
        "`Repo::revisions` of 10 copies on MemoryStore vs a hand listing",
        "repo revisions/docmodel",
        "repo revisions/by hand",
        Target::AtMost(1.1),
    ),
    row(
        "`Repo::save` with 10 revisions on an eventual Redb handle vs the same store operations by hand",
        "save, eventual Redb/docmodel",
        "save, eventual Redb/by hand",
        Target::AtMost(1.1),
    ),
    row(
        "indexed `find` of a page of 10 among 10,000 orders on Redb vs reading the 10 by key",
        "indexed/find, 10000 orders",
        "indexed/get_many of the 10, 10000 orders",
        Target::Shown,
    ),
    row(
        "indexed `find` of a page of 10 among 100,000 orders vs among 10,000 (it reads what it returns)",
        "indexed/find, 100000 orders",
        "indexed/find, 10000 orders",
        Target::AtMost(1.1),
    ),
    per_byte(
        "unindexed `find` per order held, 100,000 orders vs 10,000 (each read once)",
        "unindexed growth/find, 100000 orders",
        "unindexed growth/find, 10000 orders",
        Target::AtMost(1.1),
    ),
    row(
        "unindexed `find` over 1,000 orders with 100,000 other documents in the store vs without them",
        "unindexed/find, 1000 orders and 100000 events",
        "unindexed/find, 1000 orders and 0 events",
        Target::AtMost(1.1),
    ),
    row(
        "three-way merge (read three documents and merge) vs reading them, about 1 KB each, lists with ids",
        "merge/read three and merge/1KB, ids",
        "merge/read three/1KB, ids",
        Target::AtMost(8.0),
    ),
    row(
        "three-way merge vs reading, about 1 KB each, lists without ids (aligned by similarity)",
        "merge/read three and merge/1KB, no ids",
        "merge/read three/1KB, no ids",
        Target::AtMost(8.0),
    ),
    row(
        "three-way merge vs reading, about 100 KB each, lists with ids",
        "merge/read three and merge/100KB, ids",
        "merge/read three/100KB, ids",
        Target::AtMost(8.0),
    ),
    row(
        "three-way merge vs reading, about 100 KB each, lists without ids",
        "merge/read three and merge/100KB, no ids",
        "merge/read three/100KB, no ids",
        Target::AtMost(8.0),
    ),
    row(
        "three-way merge vs reading, about 1 MB each, lists with ids",
        "merge/read three and merge/1MB, ids",
        "merge/read three/1MB, ids",
        Target::AtMost(8.0),
    ),
    row(
        "three-way merge vs reading, about 1 MB each, lists without ids",
        "merge/read three and merge/1MB, no ids",
        "merge/read three/1MB, no ids",
        Target::AtMost(8.0),
    ),
    row(
        "an event log's state, 1,000 events on MemoryStore, vs listing, reading and folding them by hand",
        "event_log/state/1000",
        "event_log/by hand/1000",
        Target::Shown,
    ),
    row(
        "an event log's state, 10,000 events, vs by hand",
        "event_log/state/10000",
        "event_log/by hand/10000",
        Target::Shown,
    ),
    row(
        "an event log's state, 1,000 events, vs serde_json of the event documents in memory",
        "event_log/state/1000",
        "event_log/serde_json/1000",
        Target::Shown,
    ),
    row(
        "an event log's state, 10,000 events, vs serde_json of the event documents in memory",
        "event_log/state/10000",
        "event_log/serde_json/10000",
        Target::Shown,
    ),
];

/// The mean time of a benchmark in nanoseconds, from the last run; per byte of its throughput with
/// `per_byte`.
fn mean(criterion: &Path, id: &str, per_byte: bool) -> Option<f64> {
    let read = |file: &str| -> Option<serde_json::Value> {
        let text = std::fs::read_to_string(criterion.join(id).join("new").join(file)).ok()?;
        serde_json::from_str(&text).ok()
    };
    let mean = read("estimates.json")?["mean"]["point_estimate"].as_f64()?;
    if !per_byte {
        return Some(mean);
    }
    // Bytes, or elements (documents): whichever the benchmark declared.
    let throughput = &read("benchmark.json")?["throughput"];
    let units = throughput["Bytes"]
        .as_f64()
        .or_else(|| throughput["Elements"].as_f64())?;
    Some(mean / units)
}

fn main() -> ExitCode {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let criterion = target.join("criterion");
    println!("| path | ratio | target | |");
    println!("|---|---|---|---|");
    let mut missing = 0;
    for row in ROWS {
        let (Some(measured), Some(baseline)) = (
            mean(&criterion, row.measured, row.per_byte),
            mean(&criterion, row.baseline, row.per_byte),
        ) else {
            missing += 1;
            println!("| {} | not run | | |", row.what);
            continue;
        };
        let (ratio, target, met) = match row.target {
            Target::AtMost(limit) => {
                let ratio = measured / baseline;
                (
                    format!("{ratio:.2}x"),
                    format!("<= {limit:.2}x"),
                    ratio <= limit,
                )
            }
            Target::Shown => {
                let ratio = measured / baseline;
                println!("| {} | {ratio:.2}x | | |", row.what);
                continue;
            }
            Target::Faster(limit) => {
                let ratio = baseline / measured;
                (
                    format!("{ratio:.2}x faster"),
                    format!(">= {limit:.1}x faster"),
                    ratio >= limit,
                )
            }
        };
        let verdict = if met { "met" } else { "not met" };
        println!("| {} | {ratio} | {target} | {verdict} |", row.what);
    }
    if missing > 0 {
        eprintln!(
            "{missing} of {} rows have no measurement in {}: run `cargo bench -p docmodel-benches --bench codec --bench unknown --bench writes --bench migrate --bench repo --bench find` first",
            ROWS.len(),
            criterion.display()
        );
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
