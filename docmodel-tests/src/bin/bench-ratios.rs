//! The table of BENCHMARKS.md: each docmodel path against its baseline, as the ratio of their mean times in
//! the last `cargo bench` run (criterion's `target/criterion/<group>/<bench>/new/estimates.json`).
//!
//! ```sh
//! cargo bench -p docmodel-tests --bench codec --bench writes --bench migrate
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
}

enum Target {
    /// measured / baseline at most this.
    AtMost(f64),
    /// baseline / measured at least this: how many times faster.
    Faster(f64),
}

const ROWS: &[Row] = &[
    Row {
        what: "decode a current user (10 fields) vs a hand-written serde struct",
        measured: "decode/docmodel",
        baseline: "decode/serde_json",
        target: Target::AtMost(1.05),
    },
    Row {
        what: "encode a current user vs the same struct",
        measured: "encode/docmodel",
        baseline: "encode/serde_json",
        target: Target::AtMost(1.05),
    },
    Row {
        what: "build a key vs `format!`",
        measured: "key/docmodel",
        baseline: "key/format",
        target: Target::AtMost(1.0),
    },
    Row {
        what: "read a 1.0 user as 3.0 through two JSON steps vs the steps on a `Value` and `from_value`",
        measured: "migrate 1.0 to 3.0/docmodel",
        baseline: "migrate 1.0 to 3.0/serde_json Value",
        target: Target::AtMost(1.05),
    },
    Row {
        what: "`Repo::save` with 10 revisions on a Redb file: one batch vs in steps (times faster)",
        measured: "save/one batch",
        baseline: "save/in steps",
        target: Target::Faster(2.5),
    },
    Row {
        what: "`Repo::save` with 10 revisions on a Redb file vs one bare `Store::replace`",
        measured: "save/one batch",
        baseline: "save/one replace",
        target: Target::AtMost(1.2),
    },
    Row {
        what: "`Repo::insert_many` of 1,000 users on a Redb file vs 1,000 `Repo::insert` (times faster)",
        measured: "load/insert_many, durable, 1000 users",
        baseline: "load/insert, durable, 1000 users",
        target: Target::Faster(1.0),
    },
    Row {
        what: "1,000 `Repo::insert` on an eventual Redb handle vs a durable one (times faster)",
        measured: "load/insert, eventual, 1000 users",
        baseline: "load/insert, durable, 1000 users",
        target: Target::Faster(1.0),
    },
    Row {
        what: "`migrate_all` of 1,000 users on a Redb file vs a hand-written read-modify-write loop",
        measured: "migrate_all/migrate_all, 1000 users",
        baseline: "migrate_all/by hand, 1000 users",
        target: Target::AtMost(1.0),
    },
];

/// The mean time of a benchmark in nanoseconds, from the last run.
fn mean(criterion: &Path, id: &str) -> Option<f64> {
    let path = criterion.join(id).join("new").join("estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let estimates: serde_json::Value = serde_json::from_str(&text).ok()?;
    estimates["mean"]["point_estimate"].as_f64()
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
            mean(&criterion, row.measured),
            mean(&criterion, row.baseline),
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
            "{missing} of {} rows have no measurement in {}: run `cargo bench -p docmodel-tests --bench codec --bench writes --bench migrate` first",
            ROWS.len(),
            criterion.display()
        );
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
