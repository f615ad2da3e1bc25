//! What a release of `docmodel`, `docmodel-derive` and `docmodel-shape` must hold, checked from Cargo.lock
//! (`.ci/run` runs it):
//!
//! - each crate's `rust-version` is the highest `rust-version` among the packages its default build compiles
//!   (its normal and build dependencies, as `cargo tree` lists them for this platform), or its edition's floor
//!   (2024: 1.85), or its own code's (`OWN_FLOORS`: the newest standard library API it calls, which clippy's
//!   `incompatible_msrv` holds it to) where that is higher: `docmodel`'s, whose build compiles the derive's
//!   too, `docmodel-derive`'s and `docmodel-shape`'s;
//! - `docmodel` pins `docmodel-derive` and `docmodel-shape`, and `docmodel-derive` pins `docmodel-shape`, at
//!   exactly the workspace's version (`=x.y.z`);
//! - CHANGELOG.md has an entry for that version.
//!
//! It prints, for the default build and for each store alone, how many packages it compiles and the
//! `rust-version` it needs; and how many packages each other feature adds to the default build.
//!
//! ```sh
//! cargo run -p docmodel-tests --bin release-check
//! ```

use std::collections::BTreeMap;

/// The Rust version a crate's own code needs, above its dependencies' and its edition's: the crate, the
/// version, and the API that sets it.
const OWN_FLOORS: [(&str, [u64; 2], &str); 1] = [(
    "docmodel-derive",
    [1, 88],
    "proc_macro::Span::local_file, where the schema locks are read",
)];
use std::path::Path;
use std::process::{Command, ExitCode};

use serde_json::Value;

/// A `rust-version`, compared as numbers: `1.90` > `1.88.0`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct RustVersion(Vec<u64>);

impl RustVersion {
    fn parse(text: &str) -> Option<Self> {
        let mut parts: Vec<u64> = text
            .split('.')
            .map(str::parse)
            .collect::<Result<_, _>>()
            .ok()?;
        // `1.90` and `1.90.0` are the same requirement.
        while parts.len() > 2 && parts.last() == Some(&0) {
            parts.pop();
        }
        Some(RustVersion(parts))
    }
}

impl std::fmt::Display for RustVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self.0.iter().map(u64::to_string).collect();
        f.write_str(&parts.join("."))
    }
}

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
}

fn run(command: &mut Command) -> Result<String, String> {
    let output = command
        .output()
        .map_err(|err| format!("{command:?}: {err}"))?;
    if !output.status.success() {
        return Err(format!(
            "{command:?} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    String::from_utf8(output.stdout).map_err(|err| format!("{command:?}: {err}"))
}

/// Which features a build of `docmodel` has.
#[derive(Clone, Copy)]
enum Build {
    Default,
    /// `default-features = false` and this feature, if any.
    Without(Option<&'static str>),
    /// The default features and this one.
    With(&'static str),
}

/// The packages (`name version`) a build of the workspace's `package` compiles for this platform.
fn packages(
    workspace: &Path,
    package: &str,
    build: Build,
) -> Result<Vec<(String, String)>, String> {
    let mut command = cargo();
    command
        .current_dir(workspace)
        .args(["tree", "--locked", "-p", package, "-e", "normal,build"])
        .args(["--prefix", "none", "--format", "{p}"]);
    match build {
        Build::Default => {}
        Build::Without(feature) => {
            command.arg("--no-default-features");
            command.args(
                feature
                    .map(|feature| ["--features", feature])
                    .into_iter()
                    .flatten(),
            );
        }
        Build::With(feature) => {
            command.args(["--features", feature]);
        }
    }
    let tree = run(&mut command)?;
    let mut found: Vec<(String, String)> = tree
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let name = words.next()?;
            let version = words.next()?.strip_prefix('v')?;
            Some((name.to_owned(), version.to_owned()))
        })
        .collect();
    found.sort();
    found.dedup();
    Ok(found)
}

/// The highest `rust-version` among `packages` other than the workspace's own, and a package that sets it.
fn highest(
    packages: &[(String, String)],
    declared: &BTreeMap<(String, String), Option<RustVersion>>,
) -> Option<(RustVersion, String)> {
    packages
        .iter()
        .filter(|(name, _)| !name.starts_with("docmodel"))
        .filter_map(|key| {
            let version = declared.get(key)?.clone()?;
            Some((version, format!("{} {}", key.0, key.1)))
        })
        .max()
}

fn check() -> Result<Vec<String>, String> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("no workspace")?;
    let metadata: Value = serde_json::from_str(&run(cargo().current_dir(workspace).args([
        "metadata",
        "--locked",
        "--format-version",
        "1",
    ]))?)
    .map_err(|err| err.to_string())?;
    let all = metadata["packages"].as_array().ok_or("no packages")?;
    let declared: BTreeMap<(String, String), Option<RustVersion>> = all
        .iter()
        .map(|package| {
            let key = (
                package["name"].as_str().unwrap_or_default().to_owned(),
                package["version"].as_str().unwrap_or_default().to_owned(),
            );
            (
                key,
                package["rust_version"]
                    .as_str()
                    .and_then(RustVersion::parse),
            )
        })
        .collect();
    let package = |name: &str| {
        all.iter()
            .find(|package| package["name"] == name && package["source"].is_null())
            .ok_or(format!("no workspace package `{name}`"))
    };
    let docmodel = package("docmodel")?;
    let derive = package("docmodel-derive")?;
    let shape = package("docmodel-shape")?;
    let version = docmodel["version"].as_str().ok_or("no version")?;
    let mut problems = Vec::new();

    println!("| build of docmodel | packages | rust-version needed | set by |");
    println!("|---|---|---|---|");
    let builds = [
        ("default (`redb`)", Build::Default),
        ("`default-features = false`", Build::Without(None)),
        (
            "`default-features = false, features = [\"couchdb\"]`",
            Build::Without(Some("couchdb")),
        ),
        (
            "`default-features = false, features = [\"couchbase\"]`",
            Build::Without(Some("couchbase")),
        ),
    ];
    let mut needed = None;
    for (label, build) in builds {
        let compiled = packages(workspace, "docmodel", build)?;
        let (rust, by) =
            highest(&compiled, &declared).ok_or("no dependency declares a rust-version")?;
        println!("| {label} | {} | {rust} | {by} |", compiled.len());
        if let Build::Default = build {
            needed = Some(rust);
        }
    }
    let default = packages(workspace, "docmodel", Build::Default)?.len();
    println!("\n| feature, on top of the default build | packages | added |");
    println!("|---|---|---|");
    for feature in [
        "uuid", "hashed", "garde", "jiff", "chrono", "time", "semver", "tracing",
    ] {
        let count = packages(workspace, "docmodel", Build::With(feature))?.len();
        println!(
            "| `{feature}` | {count} | +{} |",
            count.saturating_sub(default)
        );
    }
    let (derive_needs, by) = highest(
        &packages(workspace, "docmodel-derive", Build::Default)?,
        &declared,
    )
    .ok_or("no dependency of the derive declares a rust-version")?;
    println!("\n`docmodel-derive` needs {derive_needs} ({by}).");
    let (shape_needs, by) = highest(
        &packages(workspace, "docmodel-shape", Build::Default)?,
        &declared,
    )
    .ok_or("no dependency of the shape crate declares a rust-version")?;
    println!("`docmodel-shape` needs {shape_needs} ({by}).");
    for (name, floor, by) in OWN_FLOORS {
        println!(
            "`{name}`'s own code needs {} ({by}).",
            RustVersion(floor.to_vec())
        );
    }
    // The runtime needs its derive: it needs at least what the derive needs.
    let needed = needed.ok_or("no default build")?.max(derive_needs.clone());
    for (package, needed) in [
        (docmodel, needed),
        (derive, derive_needs),
        (shape, shape_needs),
    ] {
        let name = package["name"].as_str().unwrap_or_default();
        // The edition sets a floor of its own: 2024 needs 1.85.
        let needed = match package["edition"].as_str() {
            Some("2024") => needed.max(RustVersion(vec![1, 85])),
            _ => needed,
        };
        // And so does the crate's own code, for it and for what builds it.
        let needed = OWN_FLOORS
            .iter()
            .filter(|(crate_name, _, _)| {
                *crate_name == name || (name == "docmodel" && *crate_name == "docmodel-derive")
            })
            .fold(needed, |needed, (_, floor, _)| {
                needed.max(RustVersion(floor.to_vec()))
            });
        let declared = package["rust_version"]
            .as_str()
            .and_then(RustVersion::parse);
        if declared.as_ref() != Some(&needed) {
            problems.push(format!(
                "`{name}` declares rust-version {}, but its default build needs {needed}: set its \
                 `rust-version = \"{needed}\"`",
                declared.map_or_else(|| "none".to_owned(), |v| v.to_string())
            ));
        }
        if package["version"] != version {
            problems.push(format!(
                "`{name}` is at {}, not the workspace's {version}: the two are released together",
                package["version"]
            ));
        }
    }
    for (dependent, dependency) in [
        (docmodel, "docmodel-derive"),
        (docmodel, "docmodel-shape"),
        (derive, "docmodel-shape"),
    ] {
        let name = dependent["name"].as_str().unwrap_or_default();
        let pin = dependent["dependencies"]
            .as_array()
            .and_then(|deps| deps.iter().find(|dep| dep["name"] == dependency))
            .and_then(|dep| dep["req"].as_str())
            .ok_or(format!("`{name}` does not depend on `{dependency}`"))?;
        if pin != format!("={version}") {
            problems.push(format!(
                "`{name}` requires `{dependency}` as {pin:?}; it must pin the version released with it, \
                 \"={version}\""
            ));
        }
    }
    let changelog = std::fs::read_to_string(workspace.join("CHANGELOG.md"))
        .map_err(|err| format!("CHANGELOG.md: {err}"))?;
    if !changelog
        .lines()
        .any(|line| line.starts_with(&format!("## [{version}]")))
    {
        problems.push(format!("CHANGELOG.md has no `## [{version}]` entry"));
    }
    Ok(problems)
}

fn main() -> ExitCode {
    match check() {
        Ok(problems) if problems.is_empty() => {
            println!("\nrelease-check: rust-version, the pins and the changelog agree");
            ExitCode::SUCCESS
        }
        Ok(problems) => {
            for problem in problems {
                eprintln!("release-check: {problem}");
            }
            ExitCode::FAILURE
        }
        Err(err) => {
            eprintln!("release-check: {err}");
            ExitCode::FAILURE
        }
    }
}
