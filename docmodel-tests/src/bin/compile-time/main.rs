//! The compile time `#[derive(DocModel)]` adds to 100 serde models, as the ratio of rustc's CPU time on the
//! same models with and without it, measured in the same run.
//!
//! ```sh
//! cargo run -p docmodel-tests --bin compile-time              # 100 models, 5 runs each, debug and release
//! cargo run -p docmodel-tests --bin compile-time -- --runs 9
//! cargo run -p docmodel-tests --bin compile-time -- --quick   # 10 models, 1 run, debug: checks it still works
//! cargo run -p docmodel-tests --bin compile-time -- --docmodel ../other/docmodel   # another checkout's
//! cargo run -p docmodel-tests --bin compile-time -- --cold    # the quickstart's cold build vs serde's, 3 runs
//! ```
//!
//! It writes three crates of the same 100 models under `target/compile-time/`, each its own workspace,
//! sharing one target directory there:
//!
//! - `serde/`: (a) `#[derive(Serialize, Deserialize)]`, `#[serde(rename_all = "camelCase")]`, 8 fields of
//!   `String`, `u64`, `bool`, `Vec<String>` and `Option<String>`;
//! - `docmodel/`: (b) the same plus `DocModel`: a type, schema 2.0, a key from one field (a `u64` or a
//!   `String`), and a chain of one JSON step from 1.0;
//! - `accessors/`: (c) the same plus `#[docmodel(get, set)]` on every field (`get` alone on the key's).
//!
//! The JSON steps are in all three crates: they are the user's code, not the derive's, so the ratios are
//! what the derive alone adds. `b/a` is the cost of `DocModel` on serde models (the target: at most 1.15x in
//! debug and in release), `c/a` that with accessors on every field as well.
//!
//! What is measured: the CPU time (user + system, all its threads) of the one rustc process that compiles
//! the models crate, after its dependencies are built: each run touches the crate's `lib.rs` and runs
//! `cargo build` (with `CARGO_INCREMENTAL=0`, so a debug build does the whole work each time) with this
//! program as `RUSTC_WORKSPACE_WRAPPER`, which runs rustc and reads its children's CPU time from
//! `/proc/self/stat` (Linux; 10 ms resolution). Cargo's own time is not counted. Other work on the machine
//! disturbs CPU time far less than wall time, though not at all is too much to ask (caches are shared): the
//! variants take turns within each run, so a busy spell slows all three, and the table holds the median of
//! the runs. The ratios are what count.
//!
//! The models crate is a library, as models usually are: rustc type-checks its generic and `#[inline]`
//! functions (serde's impls, the accessors) and stores them in the crate's metadata, and generates their
//! machine code in the crate that calls them, which this does not measure.
//!
//! # The first build (`--cold`)
//!
//! What a new user waits for: `cargo build --example quickstart` of this workspace (docmodel's default
//! features and the example) against a crate of `serde` (derive) and `serde_json` alone with the quickstart's
//! `User` and `Phone`, written to JSON and read back (`cold.rs`), each built cold into a fresh target
//! directory, one after the other in each run (`--runs N`, 3 by default), the crates already downloaded
//! (`--offline`). The serde crate is written under `target/compile-time/cold/`, its own workspace, with this
//! workspace's `Cargo.lock` (so the same serde and serde_json) and `[profile.*]` sections (so the same
//! compiler settings for the crates both build). A run costs about a minute of CPU.
//!
//! What is measured: the CPU time (user + system) of the whole `cargo build` process tree, as this program
//! reads its waited-for children's time before and after it (`/proc/self/stat`), and the wall time. This
//! program is also cargo's `RUSTC_WRAPPER`, as above, to split the CPU time by package: the table of
//! packages, sorted by what the quickstart's build spends more, is where the difference goes; what no
//! rustc spent (cargo itself, running build scripts, the wrapper) is its last row. Other work on the machine
//! lengthens the wall time most; the ratios are what count, the CPU one first (the target: at most 3.0x).
//! There is no quick mode: each run is two cold builds, too long for the test command or CI.

mod cold;

use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, SystemTime};

/// Set by this program on the `cargo build` it runs: the file where, as rustc's wrapper, it appends the
/// CPU time of each compilation.
const LOG_VAR: &str = "DOCMODEL_COMPILE_TIME_LOG";

/// The package name of the generated models crates, the one compilation the models' table reads.
const CRATE_NAME: &str = "models";

#[derive(Clone, Copy)]
enum Variant {
    Serde,
    DocModel,
    Accessors,
}

impl Variant {
    const ALL: [Variant; 3] = [Variant::Serde, Variant::DocModel, Variant::Accessors];

    fn dir(self) -> &'static str {
        match self {
            Variant::Serde => "serde",
            Variant::DocModel => "docmodel",
            Variant::Accessors => "accessors",
        }
    }
}

#[derive(Clone, Copy)]
enum Profile {
    Debug,
    Release,
}

impl Profile {
    fn name(self) -> &'static str {
        match self {
            Profile::Debug => "debug",
            Profile::Release => "release",
        }
    }
}

/// What to measure.
enum Mode {
    /// The 100 models' rustc time.
    Models(Options),
    /// The quickstart's cold build against a serde crate's (`cold.rs`), this many runs.
    Cold { runs: usize },
}

struct Options {
    models: usize,
    runs: usize,
    profiles: Vec<Profile>,
    /// The `docmodel` crate the models use: this workspace's, or another checkout's to compare with.
    docmodel: Option<PathBuf>,
}

fn options() -> Result<Mode, String> {
    let (mut quick, mut cold, mut runs, mut docmodel) = (false, false, None, None);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => quick = true,
            "--cold" => cold = true,
            "--runs" => {
                let count = args
                    .next()
                    .and_then(|count| count.parse().ok())
                    .filter(|&count| count > 0)
                    .ok_or("--runs takes a number of runs, at least 1")?;
                runs = Some(count);
            }
            "--docmodel" => {
                let path = args
                    .next()
                    .ok_or("--docmodel takes the path of a docmodel crate")?;
                let path = fs::canonicalize(&path).map_err(|error| format!("{path}: {error}"))?;
                docmodel = Some(path);
            }
            other => {
                return Err(format!(
                    "unknown argument `{other}`: expected --runs N, --quick, --docmodel PATH or --cold"
                ));
            }
        }
    }
    if cold {
        if quick || docmodel.is_some() {
            return Err(
                "--cold builds this workspace's quickstart: no --quick or --docmodel".into(),
            );
        }
        return Ok(Mode::Cold {
            runs: runs.unwrap_or(3),
        });
    }
    Ok(Mode::Models(if quick {
        Options {
            models: 10,
            runs: runs.unwrap_or(1),
            profiles: vec![Profile::Debug],
            docmodel,
        }
    } else {
        Options {
            models: 100,
            runs: runs.unwrap_or(5),
            profiles: vec![Profile::Debug, Profile::Release],
            docmodel,
        }
    }))
}

/// Field name, type and doc of the seven body fields after the key.
const FIELDS: [(&str, &str, &str); 7] = [
    ("name", "String", "What people see."),
    (
        "description",
        "Option<String>",
        "A longer text, if there is one.",
    ),
    ("item_count", "u64", "How many there are."),
    ("is_active", "bool", "Whether it is in use."),
    ("tags", "Vec<String>", "Free labels."),
    ("owner_name", "String", "Who it belongs to."),
    ("internal_note", "Option<String>", "A remark for the staff."),
];

const NOUNS: [&str; 10] = [
    "Customer", "Order", "Invoice", "Product", "Shipment", "Payment", "Review", "Ticket",
    "Booking", "Account",
];

/// The models crate's `lib.rs`: `models` models of `variant`.
fn lib_source(models: usize, variant: Variant) -> String {
    let mut out = format!(
        "//! {models} document models, written by `docmodel-tests/src/bin/compile-time` ({}).\n\n\
         {}use serde::{{Deserialize, Serialize}};\n",
        variant.dir(),
        match variant {
            Variant::Serde => "",
            Variant::DocModel | Variant::Accessors => "use docmodel::DocModel;\n",
        }
    );
    for index in 0..models {
        model_source(&mut out, index, variant);
    }
    out.push_str("\n/// The migration steps: the same in every variant.\npub mod steps {\n");
    out.push_str("    use docmodel::{JsonObject, MigrationError};\n");
    for index in 0..models {
        let name = model_name(index);
        writeln!(
            out,
            "
    /// Schema 1.0 of `{name}` stored its name as `title`.
    pub fn title_to_name_{index}(doc: &mut JsonObject) -> Result<(), MigrationError> {{
        if let Some(title) = doc.remove(\"title\") {{
            doc.insert(\"name\".into(), title);
        }}
        Ok(())
    }}"
        )
        .unwrap();
    }
    out.push_str("}\n");
    out
}

fn model_name(index: usize) -> String {
    format!("{}{index}", NOUNS[index % NOUNS.len()])
}

fn model_source(out: &mut String, index: usize, variant: Variant) {
    let name = model_name(index);
    let type_name = name.to_lowercase();
    // Half the models are keyed by a number, half by a string (whose key can be invalid).
    let (key_field, key_type) = if index.is_multiple_of(2) {
        ("id", "u64")
    } else {
        ("code", "String")
    };
    let derives = match variant {
        Variant::Serde => "Serialize, Deserialize",
        Variant::DocModel | Variant::Accessors => "Serialize, Deserialize, DocModel",
    };
    let noun = type_name.trim_end_matches(char::is_numeric);
    let article = if noun.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "An"
    } else {
        "A"
    };
    writeln!(
        out,
        "\n/// {article} {noun} of the shop, kept by the back office.\n#[derive({derives})]\n#[serde(rename_all = \"camelCase\")]"
    )
    .unwrap();
    if !matches!(variant, Variant::Serde) {
        writeln!(
            out,
            "#[docmodel(type = \"{type_name}\", schema = \"2.0\", key = \"{type_name}::{{{key_field}}}\")]\n\
             #[docmodel(migrate_from(\"1.0\" = steps::title_to_name_{index}))]"
        )
        .unwrap();
    }
    writeln!(out, "pub struct {name} {{").unwrap();
    let (key_accessors, accessors) = match variant {
        Variant::Accessors => ("    #[docmodel(get)]\n", "    #[docmodel(get, set)]\n"),
        Variant::Serde | Variant::DocModel => ("", ""),
    };
    writeln!(
        out,
        "    /// Fixed at creation: the key's part.\n{key_accessors}    {key_field}: {key_type},"
    )
    .unwrap();
    for (field, ty, doc) in FIELDS {
        writeln!(out, "    /// {doc}\n{accessors}    {field}: {ty},").unwrap();
    }
    out.push_str("}\n");
}

fn manifest(docmodel: &Path) -> String {
    format!(
        "[package]\nname = \"{CRATE_NAME}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\ndocmodel = {{ path = {:?}, default-features = false }}\n\
         serde = {{ version = \"1\", features = [\"derive\"] }}\n\n\
         # Not a member of docmodel's workspace.\n[workspace]\n",
        docmodel.display().to_string()
    )
}

/// Writes `contents` unless the file already holds them, so an unchanged crate is not rebuilt.
fn write_if_changed(path: &Path, contents: &str) -> std::io::Result<()> {
    if fs::read_to_string(path).is_ok_and(|old| old == contents) {
        return Ok(());
    }
    fs::create_dir_all(path.parent().expect("a file in a directory"))?;
    fs::write(path, contents)
}

/// Runs `cargo build` of the crate in `dir` and returns the CPU time of its compilation of the models
/// crate, or `None` if cargo did not compile it.
fn build(
    dir: &Path,
    profile: Profile,
    target: &Path,
    wrapper: &Path,
) -> Result<Option<Duration>, String> {
    let log = target.join("rustc-cpu.txt");
    let _ = fs::remove_file(&log);
    let mut command = cargo();
    command
        .args(["build", "--quiet", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(target)
        .env("CARGO_INCREMENTAL", "0")
        .env("RUSTC_WORKSPACE_WRAPPER", wrapper)
        .env(LOG_VAR, &log);
    if let Profile::Release = profile {
        command.arg("--release");
    }
    let output = command
        .output()
        .map_err(|error| format!("cannot run cargo: {error}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo build in {} failed:\n{}",
            dir.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(read_log(&log)?
        .into_iter()
        .rev()
        .find_map(|(package, time)| (package == CRATE_NAME).then_some(time)))
}

/// The compilations the wrapper wrote to `log`: each one's package and CPU time, in the order they ended;
/// none if there is no log.
fn read_log(log: &Path) -> Result<Vec<(String, Duration)>, String> {
    let Ok(text) = fs::read_to_string(log) else {
        return Ok(Vec::new());
    };
    text.lines()
        .map(|line| {
            line.rsplit_once('\t')
                .and_then(|(package, seconds)| Some((package.to_owned(), seconds.parse().ok()?)))
                .map(|(package, seconds)| (package, Duration::from_secs_f64(seconds)))
                .ok_or_else(|| format!("{}: not a package and a time: {line:?}", log.display()))
        })
        .collect()
}

/// The CPU time (user + system) of the children this process has waited for, from `/proc/self/stat`.
fn children_cpu() -> Result<Duration, String> {
    let stat = fs::read_to_string("/proc/self/stat")
        .map_err(|error| format!("cannot read /proc/self/stat (Linux only): {error}"))?;
    // The command name (field 2) is in parentheses and may hold spaces; `cutime` and `cstime`, fields 16
    // and 17, are the 14th and 15th after it.
    let after_name = stat.rfind(')').map_or("", |end| &stat[end + 1..]);
    let ticks: Vec<u64> = after_name
        .split_whitespace()
        .skip(13)
        .take(2)
        .filter_map(|field| field.parse().ok())
        .collect();
    let [user, system] = ticks[..] else {
        return Err(format!("unexpected /proc/self/stat: {stat:?}"));
    };
    // Linux reports them in units of USER_HZ, 100 per second.
    Ok(Duration::from_millis((user + system) * 10))
}

/// As cargo's `RUSTC_WORKSPACE_WRAPPER` or `RUSTC_WRAPPER` (`<this> <rustc> <args>...`): runs rustc and,
/// when it compiled a crate, appends a line to `log`: the package (`<package> (build script)` for a build
/// script) and the CPU time rustc took, the linker's included.
fn wrap(log: &Path) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((rustc, rustc_args)) = args.split_first() else {
        eprintln!("compile-time: {LOG_VAR} is set but no rustc to run was given");
        return ExitCode::FAILURE;
    };
    let status = match Command::new(rustc).args(rustc_args).status() {
        Ok(status) => status,
        Err(error) => {
            eprintln!("compile-time: cannot run {rustc}: {error}");
            return ExitCode::FAILURE;
        }
    };
    // Cargo also runs rustc to ask it about the target (`--crate-name ___`), which compiles nothing.
    let crate_name = rustc_args
        .windows(2)
        .find_map(|pair| (pair[0] == "--crate-name").then_some(pair[1].as_str()))
        .filter(|&name| name != "___");
    if let (true, Some(crate_name)) = (status.success(), crate_name) {
        let package = std::env::var("CARGO_PKG_NAME").unwrap_or_else(|_| crate_name.to_owned());
        let package = if crate_name == "build_script_build" {
            format!("{package} (build script)")
        } else {
            package
        };
        let recorded = children_cpu().and_then(|cpu| {
            // One write of one line to a file opened to append: compilations that end together (cargo
            // runs several at once) do not mix their lines.
            let line = format!("{package}\t{}\n", cpu.as_secs_f64());
            fs::File::options()
                .create(true)
                .append(true)
                .open(log)
                .and_then(|mut file| file.write_all(line.as_bytes()))
                .map_err(|error| format!("cannot write {}: {error}", log.display()))
        });
        if let Err(error) = recorded {
            eprintln!("compile-time: {error}");
            return ExitCode::FAILURE;
        }
    }
    match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::FAILURE,
    }
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    let middle = times.len() / 2;
    if times.len().is_multiple_of(2) {
        (times[middle - 1] + times[middle]) / 2
    } else {
        times[middle]
    }
}

/// The cargo that runs this program, or the one on the `PATH`.
fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// An I/O error of `path`, as this program reports it.
fn io(path: &Path) -> impl FnOnce(std::io::Error) -> String {
    let path = path.display().to_string();
    move |error| format!("{path}: {error}")
}

/// Where this program reads and writes.
struct Paths {
    /// docmodel's workspace.
    workspace: PathBuf,
    /// `compile-time/` in the workspace's target directory: the crates this program writes, their builds.
    root: PathBuf,
    /// The copy of this program that cargo runs as rustc's wrapper.
    wrapper: PathBuf,
}

impl Paths {
    fn new() -> Result<Paths, String> {
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("docmodel-tests is in the workspace")
            .to_owned();
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| workspace.join("target"));
        let root = target.join("compile-time");
        // A copy of this program as the wrapper, so that a rebuild of it in the workspace's target directory
        // during a run cannot pull it from under cargo.
        let wrapper = root.join("wrapper").join("compile-time");
        let exe = std::env::current_exe().map_err(|error| error.to_string())?;
        fs::create_dir_all(wrapper.parent().expect("in a directory")).map_err(io(&wrapper))?;
        fs::copy(&exe, &wrapper).map_err(io(&wrapper))?;
        Ok(Paths {
            workspace,
            root,
            wrapper,
        })
    }

    /// The workspace's `Cargo.lock`, which the crates this program writes are given, so that they build
    /// the same versions without a registry query.
    fn lock(&self) -> Result<String, String> {
        let path = self.workspace.join("Cargo.lock");
        fs::read_to_string(&path).map_err(io(&path))
    }
}

fn run(options: &Options, paths: &Paths) -> Result<(), String> {
    let Paths {
        workspace,
        root,
        wrapper,
    } = paths;
    let crate_target = root.join("target");
    let docmodel = options
        .docmodel
        .clone()
        .unwrap_or_else(|| workspace.join("docmodel"));
    let lock = paths.lock()?;
    for variant in Variant::ALL {
        let dir = root.join(variant.dir());
        write_if_changed(&dir.join("Cargo.toml"), &manifest(&docmodel)).map_err(io(&dir))?;
        write_if_changed(
            &dir.join("src").join("lib.rs"),
            &lib_source(options.models, variant),
        )
        .map_err(io(&dir))?;
        // The workspace's versions of serde and the rest, without a registry query.
        if !dir.join("Cargo.lock").exists() {
            fs::write(dir.join("Cargo.lock"), &lock).map_err(io(&dir))?;
        }
    }

    let mut rows = Vec::new();
    for &profile in &options.profiles {
        for variant in Variant::ALL {
            eprintln!(
                "{}: building {} and its dependencies (not measured)",
                profile.name(),
                variant.dir()
            );
            build(&root.join(variant.dir()), profile, &crate_target, wrapper)?;
        }
        let mut times: [Vec<Duration>; 3] = Default::default();
        for run in 1..=options.runs {
            let mut line = format!("{} run {run}/{}:", profile.name(), options.runs);
            for (variant, times) in Variant::ALL.into_iter().zip(&mut times) {
                let dir = root.join(variant.dir());
                let lib = dir.join("src").join("lib.rs");
                fs::File::options()
                    .write(true)
                    .open(&lib)
                    .and_then(|file| file.set_modified(SystemTime::now()))
                    .map_err(io(&lib))?;
                let time = build(&dir, profile, &crate_target, wrapper)?.ok_or_else(|| {
                    format!(
                        "cargo did not recompile {} after touching it",
                        lib.display()
                    )
                })?;
                write!(line, " {} {:.2} s", variant.dir(), time.as_secs_f64()).unwrap();
                times.push(time);
            }
            eprintln!("{line}");
        }
        rows.push((profile, times.map(|mut times| median(&mut times))));
    }

    println!(
        "| {} models, CPU s, median of {} | (a) serde | (b) + DocModel | (c) + accessors | b/a | c/a |",
        options.models, options.runs
    );
    println!("|---|---|---|---|---|---|");
    for (profile, [serde, docmodel, accessors]) in rows {
        let ratio = |time: Duration| time.as_secs_f64() / serde.as_secs_f64();
        println!(
            "| {} | {:.2} | {:.2} | {:.2} | {:.2}x | {:.2}x |",
            profile.name(),
            serde.as_secs_f64(),
            docmodel.as_secs_f64(),
            accessors.as_secs_f64(),
            ratio(docmodel),
            ratio(accessors)
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    if let Some(log) = std::env::var_os(LOG_VAR) {
        return wrap(Path::new(&log));
    }
    let result = options().and_then(|mode| {
        let paths = Paths::new()?;
        match mode {
            Mode::Models(options) => run(&options, &paths),
            Mode::Cold { runs } => cold::run(&paths, runs),
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("compile-time: {error}");
            ExitCode::FAILURE
        }
    }
}
