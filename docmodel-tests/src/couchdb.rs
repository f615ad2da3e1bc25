//! A CouchDB-protocol server for the tests: the one `DOCMODEL_COUCHDB_URL` names, or `pouchdb-server` from
//! npm, installed once under `target/` and started here on 127.0.0.1, in memory, for as long as the test
//! process lives.
//!
//! The server runs under `launcher.js`, which exits (and takes the server with it) when its standard input
//! closes: the test process holds the other end, so however the tests end (passing, failing, killed), no
//! server is left behind.

use std::io::{Read as _, Write as _};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use docmodel::store::CouchDb;

/// The version of `pouchdb-server` the tests install.
const POUCHDB_SERVER: &str = "pouchdb-server@4.2.0";
/// The variable naming a real CouchDB to test against instead (`http://user:password@host:5984`).
pub const URL_VARIABLE: &str = "DOCMODEL_COUCHDB_URL";

const LAUNCHER: &str = r#"// Started by docmodel's tests: runs pouchdb-server in this process, in a directory of its own (it writes
// config.json and log.txt there), and exits when the test process's end of standard input closes.
const fs = require('fs');
const os = require('os');
const path = require('path');
// A directory given by the test is the test's to remove (it may kill this process); one made here is ours.
const given = process.env.DOCMODEL_POUCHDB_DIR;
const dir = given || fs.mkdtempSync(path.join(os.tmpdir(), 'docmodel-pouchdb-'));
fs.mkdirSync(dir, { recursive: true });
process.chdir(dir);
const stop = () => {
  if (!given) {
    try { fs.rmSync(dir, { recursive: true, force: true }); } catch (e) {}
  }
  process.exit(0);
};
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.on('SIGTERM', stop);
process.stdin.resume();
require('pouchdb-server/lib/index.js');
"#;

/// A server the tests talk to.
pub struct Server {
    /// Its URL, credentials included.
    pub url: String,
    /// What it is, for messages.
    pub what: String,
    /// The launcher, when the tests started the server; it stops when this process ends.
    _child: Option<Child>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Not the URL: it may hold a password.
        f.debug_struct("Server")
            .field("what", &self.what)
            .finish_non_exhaustive()
    }
}

/// The server of this test process, started on first use.
///
/// # Panics
/// When there is none to be had: no `DOCMODEL_COUCHDB_URL`, and `pouchdb-server` cannot be installed or
/// started. The message says what to install; the CouchDB tests fail rather than pass without a server.
pub fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| match std::env::var(URL_VARIABLE) {
        Ok(url) if !url.is_empty() => Server {
            what: format!("the CouchDB at {URL_VARIABLE}"),
            url,
            _child: None,
        },
        _ => start_pouchdb_server().unwrap_or_else(|why| {
            panic!(
                "the CouchDB tests need a CouchDB-protocol server, and none could be had: {why}.\n\
                 Either set {URL_VARIABLE} to a CouchDB (http://user:password@host:5984), or install \
                 Node.js with npm (https://nodejs.org; Debian: `apt install nodejs npm`) so that the tests \
                 can install `{POUCHDB_SERVER}` under target/ and start it."
            )
        }),
    })
}

/// A store over a new, empty database of the test server.
pub async fn fresh() -> CouchDb {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let db = format!(
        "docmodel_test_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let server = server();
    let store = CouchDb::connect(&server.url, &db)
        .await
        .unwrap_or_else(|err| panic!("cannot reach {}: {err}", server.what));
    store
        .create_db_if_missing()
        .await
        .unwrap_or_else(|err| panic!("cannot create database `{db}` on {}: {err}", server.what));
    store
}

fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"),
    }
}

/// Installs `pouchdb-server` under `target/pouchdb-server/` unless it is there, and returns its directory.
/// Each installer works in a directory of its own and renames it into place, so test processes installing
/// at once do not step on each other.
fn install() -> Result<PathBuf, String> {
    let root = target_dir().join("pouchdb-server");
    let dir = root.join(POUCHDB_SERVER.replace('@', "-"));
    let installed = |dir: &Path| {
        dir.join("node_modules/pouchdb-server/lib/index.js")
            .is_file()
    };
    if !installed(&dir) {
        std::fs::create_dir_all(&root).map_err(|err| format!("cannot create {root:?}: {err}"))?;
        let work = root.join(format!("installing-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&work);
        std::fs::create_dir_all(&work).map_err(|err| format!("cannot create {work:?}: {err}"))?;
        eprintln!(
            "installing {POUCHDB_SERVER} into {} (once; about two minutes)",
            dir.display()
        );
        let output = Command::new("npm")
            .args([
                "install",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                "--prefix",
            ])
            .arg(&work)
            .arg(POUCHDB_SERVER)
            .stdin(Stdio::null())
            .output()
            .map_err(|err| format!("cannot run `npm` ({err})"))?;
        if !output.status.success() {
            let _ = std::fs::remove_dir_all(&work);
            return Err(format!(
                "`npm install {POUCHDB_SERVER}` failed ({}): {}",
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        if std::fs::rename(&work, &dir).is_err() {
            // Another test process got there first.
            let _ = std::fs::remove_dir_all(&work);
        }
        if !installed(&dir) {
            return Err(format!("`npm install` left no pouchdb-server in {dir:?}"));
        }
    }
    let launcher = dir.join("launcher.js");
    if std::fs::read_to_string(&launcher).ok().as_deref() != Some(LAUNCHER) {
        // Written aside and renamed into place: another test process may be starting node on it.
        let aside = dir.join(format!("launcher-{}.js", std::process::id()));
        std::fs::write(&aside, LAUNCHER)
            .and_then(|()| std::fs::rename(&aside, &launcher))
            .map_err(|err| format!("cannot write {launcher:?}: {err}"))?;
    }
    Ok(dir)
}

fn start_pouchdb_server() -> Result<Server, String> {
    let port = free_port()?;
    let child = spawn(port, None)?;
    Ok(Server {
        url: format!("http://127.0.0.1:{port}"),
        what: format!("pouchdb-server on 127.0.0.1:{port}"),
        _child: Some(child),
    })
}

fn free_port() -> Result<u16, String> {
    Ok(TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .map_err(|err| format!("no free port on 127.0.0.1: {err}"))?
        .port())
}

/// Starts `pouchdb-server` on `port`, in memory or with its databases in `data`, and waits until it answers.
fn spawn(port: u16, data: Option<&Path>) -> Result<Child, String> {
    let dir = install()?;
    let mut command = Command::new("node");
    command.arg(dir.join("launcher.js"));
    match data {
        None => command.arg("--in-memory"),
        Some(data) => command
            .env("DOCMODEL_POUCHDB_DIR", data.join("run"))
            .arg("--dir")
            .arg(data),
    };
    let mut child = command
        .args(["--no-stdout-logs", "--host", "127.0.0.1", "--port"])
        .arg(port.to_string())
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|err| format!("cannot run `node` ({err})"))?;
    let deadline = Instant::now() + Duration::from_secs(60);
    while !answers(port) {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("pouchdb-server exited at start ({status})"));
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "pouchdb-server did not answer on 127.0.0.1:{port} within 60 s"
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(child)
}

/// A `pouchdb-server` of one test's own, keeping its databases on disk, that the test can kill and start
/// again: what a server crash does to a write under way. Always pouchdb-server, even with
/// `DOCMODEL_COUCHDB_URL` set, since a test cannot kill someone else's CouchDB.
#[derive(Debug)]
pub struct Private {
    /// Its URL.
    pub url: String,
    port: u16,
    data: PathBuf,
    child: Option<Child>,
}

impl Private {
    /// Starts one, with an empty data directory.
    ///
    /// # Panics
    /// When it cannot be installed or started, saying what to install.
    pub fn start() -> Private {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let data = std::env::temp_dir().join(format!(
            "docmodel-pouchdb-data-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&data);
        std::fs::create_dir_all(&data).unwrap();
        let port = free_port().unwrap();
        let mut private = Private {
            url: format!("http://127.0.0.1:{port}"),
            port,
            data,
            child: None,
        };
        private.restart();
        private
    }

    /// Kills the server at once (SIGKILL: no shutdown, as a crash or a pulled plug).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on the same port and data, after [`Private::kill`].
    pub fn restart(&mut self) {
        self.kill();
        let child = spawn(self.port, Some(&self.data)).unwrap_or_else(|why| {
            panic!(
                "this test starts a pouchdb-server of its own, and cannot: {why}. Install Node.js with npm \
                 (https://nodejs.org; Debian: `apt install nodejs npm`)."
            )
        });
        self.child = Some(child);
    }
}

impl Drop for Private {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.data);
    }
}

/// Whether an HTTP server answers `GET /` with 200 on the port.
fn answers(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect((Ipv4Addr::LOCALHOST, port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    if stream
        .write_all(b"GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        .is_err()
    {
        return false;
    }
    let mut head = [0; 12];
    stream.read_exact(&mut head).is_ok() && head.ends_with(b" 200")
}
