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
/// Its LevelDB adapter (for a server keeping its databases in a directory), installed by name: the install
/// leaves out pouchdb-server's optional dependencies, among them `sqlite3`, whose build from source takes
/// minutes. `leveldown` comes with prebuilt binaries. (About 15 seconds on 2 cores, from 5 minutes.)
const LEVELDB_ADAPTER: &str = "pouchdb-adapter-leveldb@7.3.1";
/// How long an install another test process started may take before it is taken for dead.
const INSTALL_TIMEOUT: Duration = Duration::from_secs(600);
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
    let server = server();
    tidy(server).await;
    create(&server.url, &unique_name("docmodel_test"), &server.what).await
}

/// `<prefix>_<pid>_<n>`: a database name no other test (of this process or another) uses.
fn unique_name(prefix: &str) -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!(
        "{prefix}_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// A store over database `db` of the server at `url` (`what`, for messages), created empty.
async fn create(url: &str, db: &str, what: &str) -> CouchDb {
    let store = CouchDb::connect(url, db)
        .await
        .unwrap_or_else(|err| panic!("cannot reach {what}: {err}"));
    store
        .create_db_if_missing()
        .await
        .unwrap_or_else(|err| panic!("cannot create database `{db}` on {what}: {err}"));
    store
}

/// On a CouchDB the tests did not start (`DOCMODEL_COUCHDB_URL`), removes the databases earlier test
/// processes made (`docmodel_test_<pid>_...`, `docmodel_replica_<pid>_...`) once those processes are gone:
/// a test cannot remove its own when it ends, and these would pile up. Once per test process; a failure only
/// leaves them for the next one.
async fn tidy(server: &Server) {
    static TIDIED: tokio::sync::OnceCell<()> = tokio::sync::OnceCell::const_new();
    if server._child.is_some() {
        return;
    }
    TIDIED
        .get_or_init(|| async {
            let Ok(url) = reqwest::Url::parse(&server.url) else {
                return;
            };
            let base = server.url.trim_end_matches('/');
            let client = reqwest::Client::new();
            let auth = |request: reqwest::RequestBuilder| match url.username() {
                "" => request,
                user => request.basic_auth(user, url.password()),
            };
            let Ok(response) = auth(client.get(format!("{base}/_all_dbs"))).send().await else {
                return;
            };
            let Ok(body) = response.bytes().await else {
                return;
            };
            let Ok(names) = serde_json::from_slice::<Vec<String>>(&body) else {
                return;
            };
            for name in names {
                let Some(pid) = ["docmodel_test_", "docmodel_replica_"]
                    .iter()
                    .find_map(|prefix| name.strip_prefix(prefix))
                    .and_then(|rest| rest.split('_').next())
                    .and_then(|pid| pid.parse::<u32>().ok())
                else {
                    continue;
                };
                let alive = Path::new("/proc").join(pid.to_string()).exists();
                if pid != std::process::id() && !alive {
                    let _ = auth(client.delete(format!("{base}/{name}"))).send().await;
                }
            }
        })
        .await;
}

fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap_or(Path::new(".."))
            .join("target"),
    }
}

/// Installs `pouchdb-server` under `target/pouchdb-server/` unless it is there, and returns its directory.
/// One test process installs, saying so once on the terminal, while the others wait for it (an install left
/// by a process that died is taken over after [`INSTALL_TIMEOUT`]); the installer works in a directory of its
/// own and renames it into place.
fn install() -> Result<PathBuf, String> {
    let root = target_dir().join("pouchdb-server");
    let dir = root.join(POUCHDB_SERVER.replace('@', "-"));
    let installed = |dir: &Path| {
        dir.join("node_modules/pouchdb-server/lib/index.js")
            .is_file()
    };
    if !installed(&dir) {
        std::fs::create_dir_all(&root).map_err(|err| format!("cannot create {root:?}: {err}"))?;
        let lock = root.join("installing.lock");
        loop {
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&lock)
            {
                Ok(_) => break,
                Err(err) if err.kind() != std::io::ErrorKind::AlreadyExists => {
                    return Err(format!("cannot create {lock:?}: {err}"));
                }
                Err(_) if installed(&dir) => return install(),
                Err(_) => {
                    let stale = std::fs::metadata(&lock)
                        .and_then(|meta| meta.modified())
                        .is_ok_and(|at| at.elapsed().unwrap_or_default() > INSTALL_TIMEOUT);
                    if stale {
                        let _ = std::fs::remove_file(&lock);
                    }
                    std::thread::sleep(Duration::from_millis(250));
                }
            }
        }
        let result = install_into(&root, &dir);
        let _ = std::fs::remove_file(&lock);
        result?;
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

/// Runs `npm install` into a directory of this process's, then renames it to `dir`.
fn install_into(root: &Path, dir: &Path) -> Result<(), String> {
    if dir
        .join("node_modules/pouchdb-server/lib/index.js")
        .is_file()
    {
        return Ok(());
    }
    let work = root.join(format!("installing-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|err| format!("cannot create {work:?}: {err}"))?;
    // Straight to the terminal: the test harness captures what `eprintln!` writes.
    let _ = writeln!(
        std::io::stderr(),
        "docmodel's tests: installing {POUCHDB_SERVER} with npm into {} (once; about 15 seconds)",
        dir.display()
    );
    {
        let output = Command::new("npm")
            .args([
                "install",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                "--omit=optional",
                "--prefix",
            ])
            .arg(&work)
            .args([POUCHDB_SERVER, LEVELDB_ADAPTER])
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
    }
    std::fs::rename(&work, dir).map_err(|err| {
        let _ = std::fs::remove_dir_all(&work);
        format!("cannot move the install into {dir:?}: {err}")
    })
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

/// Two databases that replicate each other, for the replication tests: on two `pouchdb-server`s started for
/// the test (in memory, stopped with it), or with `DOCMODEL_COUCHDB_URL` set, two new databases of that
/// CouchDB.
pub struct Replicated {
    /// The first database.
    pub a: CouchDb,
    /// The second database.
    pub b: CouchDb,
    /// Each database's URL, credentials included: what `_replicate` is given.
    urls: [String; 2],
    /// Where `_replicate` is posted: the server of `a`.
    control: String,
    _children: Vec<Child>,
}

impl std::fmt::Debug for Replicated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replicated")
            .field("a", &self.a)
            .field("b", &self.b)
            .finish_non_exhaustive()
    }
}

impl Replicated {
    /// Two empty databases, not yet replicating.
    ///
    /// # Panics
    /// When no server can be had, saying what to install.
    pub async fn start() -> Replicated {
        let db = unique_name("docmodel_replica");
        let (servers, dbs, children) = match std::env::var(URL_VARIABLE) {
            Ok(url) if !url.is_empty() => {
                tidy(server()).await;
                (
                    [url.clone(), url],
                    [format!("{db}_a"), format!("{db}_b")],
                    Vec::new(),
                )
            }
            _ => {
                let mut children = Vec::new();
                let mut servers = Vec::new();
                for _ in 0..2 {
                    let port = free_port().and_then(|port| {
                        children.push(spawn(port, None)?);
                        Ok(port)
                    });
                    let port = port.unwrap_or_else(|why| {
                        panic!(
                            "the replication tests start two pouchdb-servers, and cannot: {why}. Set \
                             {URL_VARIABLE} to a CouchDB, or install Node.js with npm (https://nodejs.org; \
                             Debian: `apt install nodejs npm`)."
                        )
                    });
                    servers.push(format!("http://127.0.0.1:{port}"));
                }
                let [a, b] = <[String; 2]>::try_from(servers).unwrap();
                ([a, b], [db.clone(), db], children)
            }
        };
        let a = create(&servers[0], &dbs[0], "the first replica's server").await;
        let b = create(&servers[1], &dbs[1], "the second replica's server").await;
        let url = |server: &str, db: &str| format!("{}/{db}", server.trim_end_matches('/'));
        Replicated {
            a,
            b,
            urls: [url(&servers[0], &dbs[0]), url(&servers[1], &dbs[1])],
            control: servers[0].trim_end_matches('/').to_owned(),
            _children: children,
        }
    }

    /// Copies every change of `a` to `b` once, and returns when it is done.
    pub async fn replicate_a_to_b(&self) {
        self.replicate(&self.urls[0], &self.urls[1], false).await;
    }

    /// Copies every change of `b` to `a` once, and returns when it is done.
    pub async fn replicate_b_to_a(&self) {
        self.replicate(&self.urls[1], &self.urls[0], false).await;
    }

    /// Starts continuous replication both ways: from now on each change on one side reaches the other.
    pub async fn replicate_continuously(&self) {
        self.replicate(&self.urls[0], &self.urls[1], true).await;
        self.replicate(&self.urls[1], &self.urls[0], true).await;
    }

    /// Copies once, from `a` to `b` (`a_to_b`) or back, the documents for which the JavaScript expression
    /// `condition` over `doc` holds (a filter function: pouchdb-server's `_replicate` ignores `doc_ids`), as a
    /// filtered replication or one cut short leaves the target: `"doc._id.indexOf('::v::') < 0"` brings the
    /// documents without their revision copies. Returns when it is done.
    pub async fn replicate_where(&self, a_to_b: bool, condition: &str) {
        let (source, target) = match a_to_b {
            true => (&self.urls[0], &self.urls[1]),
            false => (&self.urls[1], &self.urls[0]),
        };
        // The filter lives in a design document of the source, one per condition: the design document
        // itself is left out, so that the target holds only what the condition lets through.
        let name = format!(
            "docmodel_filter_{:x}",
            condition
                .bytes()
                .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| (hash
                    ^ u64::from(byte))
                .wrapping_mul(0x0100_0000_01b3))
        );
        let design = serde_json::json!({
            "filters": {
                "only": format!(
                    "function(doc, req) {{ return doc._id.indexOf('_design/') !== 0 && ({condition}); }}"
                )
            }
        });
        let response = authorised(
            reqwest::Client::new().put(format!("{source}/_design/{name}")),
            source,
        )
        .header("content-type", "application/json")
        .body(design.to_string())
        .send()
        .await
        .unwrap_or_else(|err| panic!("writing the filter failed: {err}"));
        let status = response.status();
        assert!(
            status.is_success() || status == reqwest::StatusCode::CONFLICT,
            "writing the filter answered {status}: {}",
            response.text().await.unwrap_or_default()
        );
        self.post_replicate(serde_json::json!({
            "source": source,
            "target": target,
            "filter": format!("{name}/only"),
        }))
        .await;
    }

    async fn replicate(&self, source: &str, target: &str, continuous: bool) {
        self.post_replicate(serde_json::json!({
            "source": source,
            "target": target,
            "continuous": continuous,
        }))
        .await;
    }

    async fn post_replicate(&self, body: serde_json::Value) {
        let request = reqwest::Client::new().post(format!("{}/_replicate", self.control));
        let response = authorised(request, &self.control)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap_or_else(|err| panic!("`_replicate` failed: {err}"));
        let status = response.status();
        let text = response.text().await.unwrap_or_default();
        assert!(
            status.is_success(),
            "`_replicate` answered {status}: {text}"
        );
    }
}

/// `request` with the credentials `url` holds, if any.
fn authorised(request: reqwest::RequestBuilder, url: &str) -> reqwest::RequestBuilder {
    match reqwest::Url::parse(url) {
        Ok(url) if !url.username().is_empty() => request.basic_auth(url.username(), url.password()),
        _ => request,
    }
}

/// Waits (up to 30 s) until `check` holds: for replication, which takes its time.
///
/// # Panics
/// When it does not, naming `what`.
pub async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + Duration::from_secs(30);
    while !check().await {
        assert!(Instant::now() < deadline, "waited 30 s for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
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
