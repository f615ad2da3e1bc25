//! The `--cold` mode: the quickstart's first build against a serde crate's (the module doc of `main.rs`).

use super::{LOG_VAR, Paths, cargo, children_cpu, io, median, read_log, write_if_changed};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// The serde crate's `main.rs`: the quickstart's `Phone` and `User` with the same serde attributes, a user
/// written to JSON and read back.
const SERDE_MAIN: &str = r#"//! The quickstart's User with serde and serde_json alone, written by `docmodel-tests/src/bin/compile-time`.

use serde::{Deserialize, Serialize};

/// A phone number; `type` is `mobile`, `home`, `work`, ...
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Phone {
    #[serde(rename = "type")]
    kind: String,
    number: String,
}

/// A registered user.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct User {
    user_id: u64,
    first_name: String,
    last_name: String,
    phones: Vec<Phone>,
}

fn main() -> Result<(), serde_json::Error> {
    let user = User {
        user_id: 123,
        first_name: "Joe".into(),
        last_name: "Smith".into(),
        phones: vec![Phone {
            kind: "mobile".into(),
            number: "1234567890".into(),
        }],
    };
    let json = serde_json::to_string_pretty(&user)?;
    let read: User = serde_json::from_str(&json)?;
    println!("{json}\n{read:?}");
    Ok(())
}
"#;

/// The serde crate's manifest: serde and serde_json as a user adds them, and `profiles`, the workspace's.
fn serde_manifest(profiles: &str) -> String {
    format!(
        "[package]\nname = \"serde-user\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\nserde = {{ version = \"1\", features = [\"derive\"] }}\nserde_json = \"1\"\n\n\
         # docmodel's workspace's profiles, verbatim (a section for a package this crate has not applies to nothing).\n\
         {profiles}\n\
         # Not a member of docmodel's workspace.\n[workspace]\n"
    )
}

/// The `[profile.*]` sections of a manifest, verbatim.
fn profile_sections(manifest: &str) -> String {
    let mut sections = String::new();
    let mut in_profile = false;
    for line in manifest.lines() {
        if line.starts_with('[') {
            in_profile = line.starts_with("[profile.");
        }
        if in_profile {
            sections.push_str(line);
            sections.push('\n');
        }
    }
    sections
}

/// The version of the package `name` in a `Cargo.lock` (the first, if there are several).
fn locked_version<'a>(lock: &'a str, name: &str) -> Option<&'a str> {
    let name_line = format!("name = \"{name}\"");
    lock.lines()
        .skip_while(|line| *line != name_line)
        .nth(1)?
        .strip_prefix("version = \"")?
        .strip_suffix('"')
}

/// A package's compilations in a build: how many, and their CPU time.
type Compiled = (usize, Duration);

/// One cold build: its CPU time (the whole process tree's), its wall time, and its compilations' CPU time by
/// package, with how many compilations each package had.
struct Build {
    cpu: Duration,
    wall: Duration,
    packages: BTreeMap<String, Compiled>,
}

/// The row of the program each build ends with: the quickstart (package `docmodel-examples`) and the serde
/// crate's `main.rs` (package `serde-user`).
const PROGRAM: &str = "the program (quickstart / serde-user)";

/// Below this, a package's difference is summed into one row with the other small ones.
const SMALL: Duration = Duration::from_millis(100);

/// Runs `command` (a `cargo build`) into `target`, emptied first; `program` is the package of the program it
/// builds.
fn cold_build(
    mut command: Command,
    target: &Path,
    program: &str,
    paths: &Paths,
) -> Result<Build, String> {
    if target.exists() {
        fs::remove_dir_all(target).map_err(io(target))?;
    }
    let log = target.with_extension("log");
    if log.exists() {
        fs::remove_file(&log).map_err(io(&log))?;
    }
    command
        .arg("--target-dir")
        .arg(target)
        .env("RUSTC_WRAPPER", &paths.wrapper)
        // The wrapper times every crate; another wrapper (sccache) would not build cold.
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .env(LOG_VAR, &log);
    let before = children_cpu()?;
    let start = Instant::now();
    let output = command
        .output()
        .map_err(|error| format!("cannot run cargo: {error}"))?;
    let wall = start.elapsed();
    let cpu = children_cpu()? - before;
    if !output.status.success() {
        return Err(format!(
            "{command:?} failed (are the crates downloaded? `cargo fetch`):\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let mut packages = BTreeMap::new();
    for (package, time) in read_log(&log)? {
        let package = if package == program {
            PROGRAM.to_owned()
        } else {
            package
        };
        let (count, total) = packages.entry(package).or_insert((0, Duration::ZERO));
        *count += 1;
        *total += time;
    }
    Ok(Build {
        cpu,
        wall,
        packages,
    })
}

fn cargo_build() -> Command {
    let mut command = cargo();
    command.args(["build", "--quiet", "--offline"]);
    command
}

/// The medians of the runs of one build. Each is a median of its own, so the packages' rows need not add
/// up to the whole.
struct Medians<'a> {
    cpu: Duration,
    wall: Duration,
    /// What the build spent outside rustc: cargo, the build scripts it ran, the wrapper.
    not_rustc: Duration,
    /// By package: the compilations' count (the most of any run) and CPU time (a run without the package
    /// counting as none).
    packages: BTreeMap<&'a str, Compiled>,
}

fn medians(builds: &[Build]) -> Medians<'_> {
    let mut cpu: Vec<Duration> = builds.iter().map(|build| build.cpu).collect();
    let mut wall: Vec<Duration> = builds.iter().map(|build| build.wall).collect();
    let mut not_rustc: Vec<Duration> = builds
        .iter()
        .map(|build| {
            let rustc: Duration = build.packages.values().map(|entry| entry.1).sum();
            build.cpu.saturating_sub(rustc)
        })
        .collect();
    let mut packages = BTreeMap::new();
    for name in builds.iter().flat_map(|build| build.packages.keys()) {
        packages.entry(name.as_str()).or_insert_with(|| {
            let mut times: Vec<Duration> = builds
                .iter()
                .map(|build| {
                    build
                        .packages
                        .get(name)
                        .map_or(Duration::ZERO, |entry| entry.1)
                })
                .collect();
            let count = builds
                .iter()
                .filter_map(|build| build.packages.get(name).map(|entry| entry.0))
                .max()
                .unwrap_or(0);
            (count, median(&mut times))
        });
    }
    Medians {
        cpu: median(&mut cpu),
        wall: median(&mut wall),
        not_rustc: median(&mut not_rustc),
        packages,
    }
}

pub(crate) fn run(paths: &Paths, runs: usize) -> Result<(), String> {
    let lock = paths.lock()?;
    let manifest_path = paths.workspace.join("Cargo.toml");
    let manifest = fs::read_to_string(&manifest_path).map_err(io(&manifest_path))?;
    let dir = paths.root.join("cold");
    let serde_dir = dir.join("serde");
    write_if_changed(
        &serde_dir.join("Cargo.toml"),
        &serde_manifest(&profile_sections(&manifest)),
    )
    .map_err(io(&serde_dir))?;
    write_if_changed(&serde_dir.join("src").join("main.rs"), SERDE_MAIN).map_err(io(&serde_dir))?;
    // The workspace's versions of serde and serde_json, rewritten each run so that they stay the workspace's.
    fs::write(serde_dir.join("Cargo.lock"), &lock).map_err(io(&serde_dir))?;
    let version = |name| locked_version(&lock, name).unwrap_or("?");
    let (serde, serde_json) = (version("serde"), version("serde_json"));

    let (mut quickstart_builds, mut serde_builds) = (Vec::new(), Vec::new());
    for run in 1..=runs {
        let mut quickstart = cargo_build();
        quickstart
            .args(["--locked", "--example", "quickstart", "--manifest-path"])
            .arg(&manifest_path);
        let quickstart = cold_build(
            quickstart,
            &dir.join("quickstart-target"),
            "docmodel-examples",
            paths,
        )?;
        let mut serde_only = cargo_build();
        serde_only
            .arg("--manifest-path")
            .arg(serde_dir.join("Cargo.toml"));
        let serde_only = cold_build(serde_only, &dir.join("serde-target"), "serde-user", paths)?;
        eprintln!(
            "run {run}/{runs}: quickstart {:.1} s CPU, {:.1} s wall; serde {:.1} s CPU, {:.1} s wall; {:.2}x CPU",
            quickstart.cpu.as_secs_f64(),
            quickstart.wall.as_secs_f64(),
            serde_only.cpu.as_secs_f64(),
            serde_only.wall.as_secs_f64(),
            quickstart.cpu.as_secs_f64() / serde_only.cpu.as_secs_f64()
        );
        quickstart_builds.push(quickstart);
        serde_builds.push(serde_only);
    }

    let quickstart = medians(&quickstart_builds);
    let serde_only = medians(&serde_builds);
    let (quickstart_cpu, quickstart_wall, quickstart_packages) =
        (quickstart.cpu, quickstart.wall, &quickstart.packages);
    let (serde_cpu, serde_wall, serde_packages) =
        (serde_only.cpu, serde_only.wall, &serde_only.packages);
    let seconds = |time: Duration| time.as_secs_f64();
    println!("| cold build, median of {runs} | CPU s | wall s |");
    println!("|---|---|---|");
    println!(
        "| (a) the quickstart: `cargo build --example quickstart`, docmodel's default features | {:.1} | {:.1} |",
        seconds(quickstart_cpu),
        seconds(quickstart_wall)
    );
    println!(
        "| (b) serde {serde} (derive) and serde_json {serde_json}, the same User | {:.1} | {:.1} |",
        seconds(serde_cpu),
        seconds(serde_wall)
    );
    println!(
        "| a/b | {:.2}x | {:.2}x |",
        seconds(quickstart_cpu) / seconds(serde_cpu),
        seconds(quickstart_wall) / seconds(serde_wall)
    );

    // By package, what the quickstart's build spends more first.
    let names: BTreeSet<&str> = quickstart_packages
        .keys()
        .chain(serde_packages.keys())
        .copied()
        .collect();
    let mut rows: Vec<(&str, Compiled, Compiled)> = names
        .into_iter()
        .map(|name| {
            let none = (0, Duration::ZERO);
            let of =
                |packages: &BTreeMap<&str, Compiled>| packages.get(name).copied().unwrap_or(none);
            (name, of(quickstart_packages), of(serde_packages))
        })
        .collect();
    rows.sort_by(|x, y| {
        let more = |row: &(&str, Compiled, Compiled)| seconds(row.1.1) - seconds(row.2.1);
        more(y).total_cmp(&more(x)).then(x.0.cmp(y.0))
    });
    println!();
    println!(
        "| package (compilations in a / b), rustc's CPU s, median of {runs} (each its own) | (a) quickstart | (b) serde | a - b |"
    );
    println!("|---|---|---|---|");
    let cell = |time: Duration| {
        if time.is_zero() {
            String::new()
        } else {
            format!("{:.2}", seconds(time))
        }
    };
    let (mut small, mut small_quickstart, mut small_serde) = (0, Duration::ZERO, Duration::ZERO);
    for (name, (quickstart_count, quickstart), (serde_count, serde)) in rows {
        if quickstart.abs_diff(serde) < SMALL {
            small += 1;
            small_quickstart += quickstart;
            small_serde += serde;
            continue;
        }
        println!(
            "| {name} ({quickstart_count} / {serde_count}) | {} | {} | {:+.2} |",
            cell(quickstart),
            cell(serde),
            seconds(quickstart) - seconds(serde)
        );
    }
    println!(
        "| {small} other packages, each within {:.2} s | {:.2} | {:.2} | {:+.2} |",
        seconds(SMALL),
        seconds(small_quickstart),
        seconds(small_serde),
        seconds(small_quickstart) - seconds(small_serde)
    );
    println!(
        "| not rustc: cargo, build scripts run, the wrapper | {:.2} | {:.2} | {:+.2} |",
        seconds(quickstart.not_rustc),
        seconds(serde_only.not_rustc),
        seconds(quickstart.not_rustc) - seconds(serde_only.not_rustc)
    );
    Ok(())
}
