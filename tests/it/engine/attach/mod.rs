//! Attaching to a server that already runs (`connect`): a real gopls
//! listening on a Unix socket, and the fake listening on TCP. squiggle
//! initializes over the connection, checks through it like any server, and
//! on shutdown closes its documents and the connection — never `shutdown`
//! or `exit` — so the server runs on and another engine can attach.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::Arc;

use serde_json::{Value, json};
use squiggle::config::{Config, ServerOverride};
use squiggle::diagnostic::Outcome;
use squiggle::engine::tools::{Mode, Replace};
use squiggle::engine::{Engine, FileInput, HeldOthers, ServerState};
use squiggle::platform::endpoint::{Endpoint, connect};

use crate::support;
use crate::support::fake_server::{FakeServer, logged};
use crate::support::matrix::{self, Expect, assert_error, assert_fixed};

/// The call in the Go fixture's `main.go` the test breaks and restores.
const CALL_GO: &str = "total := geometry.Area(width, height)";

/// A server process the test started; killed when the test ends, pass or fail.
struct Listening {
    child: Child,
}

impl Listening {
    fn still_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Connects to `endpoint` until it accepts: the server said it listens
/// (its log line) just before it binds, and no event marks the bind
/// itself, so a bounded number of attempts, each a refused connect.
async fn wait_accepting(endpoint: &Endpoint) {
    for _ in 0..2000 {
        if connect(endpoint).await.is_ok() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    panic!("nothing accepts connections at {endpoint}");
}

fn engine_attached(root: &Path, id: &str, server: ServerOverride) -> Arc<Engine> {
    let mut config = Config::default();
    config.servers.insert(id.to_string(), server);
    support::engine(root, config)
}

#[tokio::test]
async fn gopls_listening_on_a_socket_checks_edits_and_outlives_each_engine() {
    if support::require_program("gopls").is_none() || support::require_program("go").is_none() {
        return;
    }
    let dir = matrix::fixture("go");
    let sockets = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let socket = sockets.path().join("gopls.sock");
    let mut gopls = Command::new("gopls");
    gopls
        .arg("serve")
        .arg(format!("-listen=unix;{}", socket.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut server = Listening {
        child: gopls.spawn().unwrap_or_else(|e| panic!("gopls serve: {e}")),
    };
    // Its first line says it listens; the rest is drained, for gopls dies
    // writing to a closed stderr.
    let stderr = server.child.stderr.take().map(BufReader::new);
    let (said_tx, said) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stderr
            .into_iter()
            .flat_map(|s| s.lines())
            .map_while(Result::ok)
        {
            let _ = said_tx.send(line);
        }
    });
    let said = said.recv().ok();
    assert!(
        said.as_deref().is_some_and(|l| l.contains("listening")),
        "gopls said {said:?}"
    );
    let endpoint = Endpoint::Unix(socket.clone());
    wait_accepting(&endpoint).await;
    let attach = || ServerOverride {
        connect: Some(endpoint.clone()),
        ..Default::default()
    };
    let main = dir.path().join("main.go");
    let wrong = "total := geometry.Area(\"wide\", height)";

    let first = engine_attached(dir.path(), "gopls", attach());
    let broken = matrix::edit(&first, &main, CALL_GO, wrong).await;
    assert_error(
        &broken,
        &Expect {
            file: "main.go",
            line: 7,
            column: 25,
            code: None,
            words: &["cannot use \"wide\"", "float64"],
        },
    );
    let row = first
        .status()
        .into_iter()
        .find(|r| r.id == "gopls" && r.root.is_some());
    let row = row.unwrap_or_else(|| panic!("no gopls instance: {:?}", first.status()));
    assert_eq!(row.status, ServerState::Active, "{row:?}");
    assert_eq!(row.server_pid, None, "{row:?}");
    assert_eq!(row.endpoint, Some(socket.display().to_string()), "{row:?}");
    first.shutdown().await;
    assert!(server.still_running(), "gopls stopped with the engine");

    let second = engine_attached(dir.path(), "gopls", attach());
    let fixed = matrix::edit(&second, &main, wrong, CALL_GO).await;
    assert_fixed(&fixed, matrix::EDITED, "cannot use");
    second.shutdown().await;
    assert!(
        server.still_running(),
        "gopls stopped with the second engine"
    );
}

/// The fake listening on a free loopback port, logging to `log`; its
/// stdout, which says where it listens and when a connection's fake is done.
fn fake_listening(log: &Path) -> (Listening, BufReader<ChildStdout>, Endpoint) {
    let script = json!({ "logFile": log });
    let mut command = Command::new(FakeServer::command());
    command
        .args(["--listen", "127.0.0.1:0"])
        .env("SQUIGGLE_FAKE_SCRIPT_JSON", script.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped());
    let mut server = Listening {
        child: command.spawn().unwrap_or_else(|e| panic!("fake: {e}")),
    };
    let stdout = server.child.stdout.take();
    let mut stdout = BufReader::new(stdout.unwrap_or_else(|| panic!("no stdout")));
    let line = next_line(&mut stdout);
    let address = line.strip_prefix("listening on ").unwrap_or_default();
    let endpoint = Endpoint::parse(address).unwrap_or_else(|e| panic!("{line:?}: {e}"));
    (server, stdout, endpoint)
}

fn next_line(out: &mut BufReader<ChildStdout>) -> String {
    let mut line = String::new();
    out.read_line(&mut line)
        .unwrap_or_else(|e| panic!("fake's stdout: {e}"));
    line.trim_end().to_string()
}

fn fake_attached(root: &Path, endpoint: &Endpoint) -> Arc<Engine> {
    let mut server = FakeServer::new(json!({})).to_override();
    server.command = None;
    server.env = None;
    server.connect = Some(endpoint.clone());
    engine_attached(root, "fake", server)
}

fn received<'a>(log: &'a [Value], method: &str) -> Vec<&'a Value> {
    log.iter()
        .filter(|l| l["dir"] == "in" && l["msg"]["method"] == method)
        .map(|l| &l["msg"])
        .collect()
}

struct FakeWs {
    _dir: tempfile::TempDir,
    root: PathBuf,
    log: PathBuf,
}

fn fake_ws() -> FakeWs {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let root = dir.path().join("ws");
    std::fs::create_dir_all(&root).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(root.join("a.fk"), "hello\n").unwrap_or_else(|e| panic!("{e}"));
    let log = dir.path().join("fake-log.jsonl");
    FakeWs {
        _dir: dir,
        root,
        log,
    }
}

#[tokio::test]
async fn the_fake_attached_over_tcp_sees_no_shutdown_and_keeps_listening() {
    let ws = fake_ws();
    let (mut server, mut stdout, endpoint) = fake_listening(&ws.log);
    let path = ws.root.join("a.fk");
    for round in ["boom", "bang"] {
        let engine = fake_attached(&ws.root, &endpoint);
        let result = engine
            .edit(
                &path,
                "hello",
                &format!("@error({round})"),
                Replace::Once,
                Mode::Apply,
            )
            .await
            .unwrap_or_else(|e| panic!("edit: {e}"));
        let text = result.text();
        assert!(text.contains(&format!("ERROR [1:1] {round}")), "{text}");
        engine.shutdown().await;
        let closed = next_line(&mut stdout);
        assert!(
            closed.starts_with("connection closed: the fake exit"),
            "{closed}"
        );
        assert!(server.still_running(), "the listener stopped after {round}");
        std::fs::write(&path, "hello\n").unwrap_or_else(|e| panic!("{e}"));
    }
    let log = logged(&ws.log);
    let initialize = received(&log, "initialize");
    assert_eq!(initialize.len(), 2, "{initialize:?}");
    assert!(
        initialize
            .iter()
            .all(|i| i["params"]["processId"].is_null())
    );
    assert_eq!(received(&log, "textDocument/didClose").len(), 2);
    assert!(received(&log, "shutdown").is_empty(), "{log:?}");
    assert!(received(&log, "exit").is_empty(), "{log:?}");
}

#[tokio::test]
async fn a_stop_by_the_pool_disconnects_and_the_next_file_attaches_again() {
    let ws = fake_ws();
    let (mut server, mut stdout, endpoint) = fake_listening(&ws.log);
    let engine = fake_attached(&ws.root, &endpoint);
    let path = ws.root.join("a.fk");
    let check = || engine.check_files(vec![FileInput::on_disk(&path)], HeldOthers::Skip);
    check().await;
    // What an eviction, an idle stop and a settings change all do.
    assert_eq!(engine.pool().retire("fake"), 1);
    engine.pool().wait_stops().await;
    let closed = next_line(&mut stdout);
    assert!(closed.starts_with("connection closed"), "{closed}");
    assert!(server.still_running());
    let again = check().await;
    let outcome = &again.files[0].outcomes[0];
    assert!(
        matches!(outcome.outcome, Outcome::Pulled | Outcome::Settled),
        "{outcome:?}"
    );
    let row = engine.status().into_iter().find(|r| r.id == "fake");
    let row = row.unwrap_or_else(|| panic!("no fake row"));
    assert_eq!(
        (row.status, row.starts),
        (ServerState::Active, 2),
        "{row:?}"
    );
    assert_eq!(row.endpoint, Some(endpoint.to_string()), "{row:?}");
    engine.shutdown().await;
    let log = logged(&ws.log);
    assert_eq!(received(&log, "initialize").len(), 2);
    assert!(received(&log, "shutdown").is_empty(), "{log:?}");
    assert!(received(&log, "exit").is_empty(), "{log:?}");
}

#[test]
fn doctor_attaches_on_its_sample_and_leaves_the_server_running() {
    let ws = fake_ws();
    let (mut server, mut stdout, endpoint) = fake_listening(&ws.log);
    let config_home = ws.root.join("../config");
    std::fs::create_dir_all(config_home.join("squiggle")).unwrap_or_else(|e| panic!("{e}"));
    let toml = format!(
        "[lsp.servers.fake]\nconnect = \"{endpoint}\"\nextensions = [\".fk\"]\nlanguageId = \"fake\"\n"
    );
    std::fs::write(config_home.join("squiggle/config.toml"), toml)
        .unwrap_or_else(|e| panic!("{e}"));
    let out = Command::new(env!("CARGO_BIN_EXE_squiggle"))
        .args(["doctor", "--json", "--only", "fake", "--root"])
        .arg(&ws.root)
        .current_dir(&ws.root)
        .env("XDG_CONFIG_HOME", &config_home)
        .output()
        .unwrap_or_else(|e| panic!("squiggle doctor: {e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    let reports: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let report = &reports[0];
    assert_eq!(report["status"], "working", "{report:#}");
    assert_eq!(report["path"], endpoint.to_string(), "{report:#}");
    let closed = next_line(&mut stdout);
    assert!(closed.starts_with("connection closed"), "{closed}");
    assert!(server.still_running());
    let log = logged(&ws.log);
    assert_eq!(received(&log, "initialize").len(), 1);
    assert!(received(&log, "shutdown").is_empty(), "{log:?}");
    assert!(received(&log, "exit").is_empty(), "{log:?}");
}

#[tokio::test]
async fn nobody_listening_is_unavailable_naming_the_endpoint() {
    let ws = fake_ws();
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
    let address = free.local_addr().unwrap_or_else(|e| panic!("{e}"));
    drop(free);
    let endpoint = Endpoint::Tcp(address);
    let engine = fake_attached(&ws.root, &endpoint);
    let path = ws.root.join("a.fk");
    for _ in 0..3 {
        let report = engine
            .check_files(vec![FileInput::on_disk(&path)], HeldOthers::Skip)
            .await;
        let outcome = &report.files[0].outcomes[0];
        assert_eq!(outcome.outcome, Outcome::Unavailable, "{outcome:?}");
        let detail = outcome.detail.as_deref().unwrap_or_default();
        assert!(detail.contains(&address.to_string()), "{detail}");
    }
    let row = engine.status().into_iter().find(|r| r.id == "fake");
    let row = row.unwrap_or_else(|| panic!("no fake row"));
    // Refused is not a crash: no start was spent, so it is never broken.
    assert_eq!(row.status, ServerState::Unavailable, "{row:?}");
    assert_eq!(row.starts, 0, "{row:?}");
    assert!(
        row.detail
            .as_deref()
            .is_some_and(|d| d.contains(&address.to_string())),
        "{row:?}"
    );
    engine.shutdown().await;
}

mod config;
