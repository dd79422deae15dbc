//! Shared helpers for tests that drive the client against the scripted fake
//! server (`squiggle-fake-lsp`), through the same spawn path as real servers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use squiggle::lsp::{ClientConfig, DocumentVersion, LspClient, Spawn};

pub mod fake_server;
pub mod scratch;
use tokio::time::Instant;

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
        let spawn = Spawn {
            program: PathBuf::from(env!("CARGO_BIN_EXE_squiggle-fake-lsp")),
            args: vec![],
            env: vec![("SQUIGGLE_FAKE_SCRIPT_JSON".into(), script.to_string())],
            cwd: self.root().to_path_buf(),
        };
        let mut config = ClientConfig::new("fake", spawn, self.root().to_path_buf());
        config.wait.settle = Duration::from_millis(0);
        config
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
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        text.lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
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
        let until = Instant::now() + Duration::from_secs(10);
        while !pred(self) {
            assert!(
                Instant::now() < until,
                "timed out waiting for {what}; log:\n{}",
                std::fs::read_to_string(&self.log).unwrap_or_default()
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
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

pub fn process_exists(pid: u32) -> bool {
    // A zombie still has a /proc entry; read its state.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .split(") ")
            .nth(1)
            .is_some_and(|rest| rest.starts_with('Z')),
        Err(_) => false,
    }
}

/// Real servers: skip with a notice unless SQUIGGLE_REQUIRE_SERVERS is set, in
/// which case a missing server fails the test.
pub fn require_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    let found = std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file());
    if found.is_none() {
        if std::env::var_os("SQUIGGLE_REQUIRE_SERVERS").is_some() {
            panic!(
                "{name} is required (SQUIGGLE_REQUIRE_SERVERS is set) but not on PATH; run scripts/install-servers.sh"
            );
        }
        eprintln!(
            "skipping: {name} not on PATH (run scripts/install-servers.sh and source scripts/env.sh)"
        );
    }
    found
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
