//! The integration tests' kit, one helper per repeated behaviour: the
//! scripted fake server (`squiggle-fake-lsp`) behind a client, through the
//! same spawn path as real servers, or as a configured server
//! (`fake_server`); the scratch workspace (`scratch`); an engine on a
//! workspace; running a program with input; polling what another process
//! owns; and the skip-or-fail rule for real servers.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use squiggle::config::Config;
use squiggle::engine::Engine;
use squiggle::lsp::{ClientConfig, DocumentVersion, LspClient, Spawn};
use squiggle::workspace::Workspace;
use tokio::time::Instant;

#[cfg(target_os = "linux")]
pub mod agents;
pub mod fake_server;
pub mod faults;
pub mod matrix;
pub mod mcp;
pub mod process;
pub mod scratch;
pub mod service;
pub mod two_files;

pub struct Fake {
    pub dir: tempfile::TempDir,
    pub log: PathBuf,
}

impl Fake {
    pub fn new() -> Fake {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
        let log = dir.path().join("fake-log.jsonl");
        Fake { dir, log }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A client config running the fake with `script` (plus a log file).
    pub fn config(&self, mut script: Value) -> ClientConfig {
        script["logFile"] = json!(self.log.display().to_string());
        client_config(self.root(), &script)
    }

    pub async fn start(&self, script: Value) -> LspClient {
        self.start_with(self.config(script)).await
    }

    pub async fn start_with(&self, config: ClientConfig) -> LspClient {
        LspClient::start(config, Duration::from_secs(10))
            .await
            .unwrap_or_else(|e| panic!("start: {e}"))
    }

    /// Every logged message the fake received (`dir: in`) or sent (`dir: out`).
    pub fn messages(&self, dir: &str) -> Vec<Value> {
        fake_server::logged(&self.log)
            .into_iter()
            .filter(|v| v["dir"] == dir)
            .map(|v| v["msg"].clone())
            .collect()
    }

    pub fn received(&self, method: &str) -> Vec<Value> {
        self.messages("in")
            .into_iter()
            .filter(|m| m["method"] == method)
            .collect()
    }

    /// Polls the fake's log until `pred` holds (the log is written by another
    /// process; there is no event to wait on). Bounded.
    pub async fn wait_log(&self, what: &str, pred: impl Fn(&Fake) -> bool) {
        let held = poll_until_async(Duration::from_secs(10), || pred(self)).await;
        assert!(
            held,
            "timed out waiting for {what}; log:\n{}",
            std::fs::read_to_string(&self.log).unwrap_or_default()
        );
    }
}

/// A client config running the fake with `script` in `dir`, with no settle
/// window.
pub fn client_config(dir: &Path, script: &Value) -> ClientConfig {
    let spawn = Spawn {
        program: PathBuf::from(fake_server::FakeServer::command()),
        args: vec![],
        env: vec![("SQUIGGLE_FAKE_SCRIPT_JSON".into(), script.to_string())],
        cwd: dir.to_path_buf(),
    };
    let mut config = ClientConfig::new("fake", spawn, dir.to_path_buf());
    config.wait.settle = Duration::from_millis(0);
    config
}

/// Waits on the client's events (`LspClient::subscribe`) until `pred` holds.
/// The bound only turns a hang into a failure naming `what`.
pub async fn wait_for(client: &LspClient, what: &str, pred: impl Fn(&LspClient) -> bool) {
    let mut events = client.subscribe();
    let bound = Instant::now() + Duration::from_secs(60);
    loop {
        events.borrow_and_update();
        if pred(client) {
            return;
        }
        if !matches!(
            tokio::time::timeout_at(bound, events.changed()).await,
            Ok(Ok(()))
        ) {
            panic!("gave up waiting for {what}");
        }
    }
}

/// Whether the server has work-done progress titled `title` open.
pub fn progress_open(client: &LspClient, title: &str) -> bool {
    client
        .active_progress()
        .iter()
        .any(|(t, _)| t.as_deref() == Some(title))
}

pub async fn sync(client: &LspClient, path: &Path, text: &str) -> DocumentVersion {
    client
        .sync_document(path, "plaintext", Arc::from(text))
        .await
}

pub fn deadline(ms: u64) -> Instant {
    Instant::now() + Duration::from_millis(ms)
}

pub fn messages(report: &squiggle::lsp::DiagnosticsReport) -> Vec<String> {
    report
        .diagnostics
        .iter()
        .map(|d| d.message.clone())
        .collect()
}

/// Whether process `pid` exists, a zombie counting as gone: the
/// platform's own answer (`/proc` on Linux, the process's exit code on
/// Windows).
pub fn process_exists(pid: u32) -> bool {
    squiggle::platform::process::alive(pid)
}

/// How the standard library words a process's exit `code` on this
/// platform (`exit status: 4` on Unix, `exit code: 4` on Windows), as
/// squiggle reports a server's end.
pub fn exit_text(code: i32) -> String {
    let word = if cfg!(windows) { "code" } else { "status" };
    format!("exit {word}: {code}")
}

/// The one rule for the real tools a test needs (servers, agent CLIs, the
/// MCP SDK): `found`, or when it is `None` a skip with a notice, unless
/// SQUIGGLE_REQUIRE_SERVERS is set (as in CI), which makes a missing `what`
/// a failure.
pub fn require(found: Option<PathBuf>, what: &str) -> Option<PathBuf> {
    if found.is_none() {
        let missing =
            format!("{what} is missing; run scripts/install-servers.sh and source scripts/env.sh");
        assert!(
            std::env::var_os("SQUIGGLE_REQUIRE_SERVERS").is_none(),
            "SQUIGGLE_REQUIRE_SERVERS is set: {missing}"
        );
        eprintln!("skipping: {missing}");
    }
    found
}

/// The program `name` on PATH, under the rule of [`require`].
pub fn require_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file());
    require(found, &format!("{name} (on PATH)"))
}

/// An engine for the workspace at `root` with `config`, as the binary builds
/// one (the workspace discovered from `root`).
pub fn engine(root: &Path, config: Config) -> Arc<Engine> {
    // `RUST_LOG=squiggle::lsp=trace`: the engine's log, shown with a
    // failing test's output.
    if std::env::var_os("RUST_LOG").is_some() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_ansi(false)
            .with_test_writer()
            .try_init();
    }
    let workspace =
        Workspace::discover(Some(root), root).unwrap_or_else(|e| panic!("workspace: {e}"));
    Arc::new(Engine::with(workspace, config))
}

/// Runs `command` with `stdin` written to its standard input (then closed)
/// and both output streams captured. The input is written from a thread of
/// its own: a child that answers before it has read everything must not
/// block on a full stdout while we block on its full stdin.
pub fn output_with_stdin(command: &mut Command, stdin: impl AsRef<[u8]>) -> Output {
    let mut child = spawn_piped(command, Stdio::piped());
    let input = child.stdin.take();
    let bytes = stdin.as_ref().to_vec();
    let writer = std::thread::spawn(move || {
        // A program that exits without reading its input is no failure here.
        if let Some(mut input) = input {
            let _ = input.write_all(&bytes);
        }
    });
    let out = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("wait for {:?}: {e}", command.get_program()));
    let _ = writer.join();
    out
}

/// Starts `command` with its stdin and stdout piped to us and its stderr
/// going to `stderr`.
pub fn spawn_piped(command: &mut Command, stderr: Stdio) -> Child {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {:?}: {e}", command.get_program()))
}

/// stdout and stderr of `out`, for a failure message.
pub fn both(out: &Output) -> String {
    format!(
        "status: {}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Whether process `pid` is gone (or only a zombie) within `limit`.
pub async fn exits_within(pid: u32, limit: Duration) -> bool {
    poll_until_async(limit, || !process_exists(pid)).await
}

/// Polls `done` until it holds or `limit` passes; whether it held. Used only
/// for facts owned by another process (its exit, its fd table, its log),
/// which offer no event to wait on.
pub fn poll_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let until = std::time::Instant::now() + limit;
    loop {
        if done() {
            return true;
        }
        if std::time::Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The async twin of [`poll_until`].
pub async fn poll_until_async(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + limit;
    loop {
        if done() {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// `engine.edit` of the one occurrence of `old` in `path`, applied; a
/// refusal fails the test (the edits these tests make are valid).
pub async fn edit_applied(
    engine: &Arc<squiggle::engine::Engine>,
    path: &Path,
    old: &str,
    new: &str,
) -> squiggle::engine::tools::ToolResult {
    use squiggle::engine::tools::{Mode, Replace};
    engine
        .edit(path, old, new, Replace::Once, Mode::Apply)
        .await
        .unwrap_or_else(|e| panic!("edit of {}: {e}", path.display()))
}

/// A temp dir holding `files` (relative path, text).
pub fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap_or(dir.path())).ok();
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
    }
    dir
}

/// Copies the tree at `from` to `to` (created when missing): a fixture
/// project into a test's temp dir, so the repository's copy is never touched.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("mkdir {}: {e}", to.display()));
    let entries =
        std::fs::read_dir(from).unwrap_or_else(|e| panic!("read {}: {e}", from.display()));
    for entry in entries {
        let entry = entry.unwrap_or_else(|e| panic!("{e}"));
        let target = to.join(entry.file_name());
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap_or_else(|e| panic!("copy: {e}"));
        }
    }
}

/// A symbolic link at `at` to `target`, on every platform (Windows tells
/// a directory's link from a file's).
pub fn symlink(target: impl AsRef<Path>, at: impl AsRef<Path>) -> std::io::Result<()> {
    let (target, at) = (target.as_ref(), at.as_ref());
    #[cfg(unix)]
    return std::os::unix::fs::symlink(target, at);
    #[cfg(windows)]
    {
        let dir = if target.is_absolute() {
            target.is_dir()
        } else {
            at.parent().unwrap_or(at).join(target).is_dir()
        };
        if dir {
            std::os::windows::fs::symlink_dir(target, at)
        } else {
            std::os::windows::fs::symlink_file(target, at)
        }
    }
}

/// Whether this platform makes symbolic links that it then follows: a
/// probe, once. Not under wine 8.0, whose links to a file cannot be read
/// through ("File not found"); a test's symlink cases are run only where
/// they mean something, and the rest of the test runs everywhere.
pub fn symlinks_work() -> bool {
    static WORK: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *WORK.get_or_init(|| {
        let Ok(dir) = tempfile::tempdir() else {
            return false;
        };
        let (target, link) = (dir.path().join("target"), dir.path().join("link"));
        let works = std::fs::write(&target, "x").is_ok()
            && symlink(&target, &link).is_ok()
            && std::fs::read(&link).is_ok_and(|bytes| bytes == b"x");
        if !works {
            eprintln!(
                "note: symbolic links do not work on this platform; their cases are left out"
            );
        }
        works
    })
}

/// The permission bits of `path` (Unix); `None` elsewhere or when it
/// cannot be read.
pub fn file_mode(path: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path)
            .ok()
            .map(|m| m.permissions().mode() & 0o777)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}
