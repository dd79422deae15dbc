//! `squiggle status`: every server with its install state, a running
//! daemon's live instances, and no panic when stdout is closed early.

use std::process::{Command, Stdio};

use serde_json::json;

use crate::support::fake_server::FakeServer;
use crate::support::scratch::Scratch;

fn squiggle() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_squiggle"));
    c.env_remove("RUST_LOG");
    c
}

#[test]
fn a_closed_stdout_is_not_an_error() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut child = squiggle()
        .args(["status", "--root"])
        .arg(dir.path())
        .env("XDG_RUNTIME_DIR", dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    // The reader goes away before the first line is written (`| head -0`).
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}

#[test]
fn status_lists_servers_with_install_hints_and_a_daemons_live_instances() {
    let ws = Scratch::bare();
    ws.write(
        ".squiggle.toml",
        &FakeServer::new(json!({"diagnosticMode": "pull"})).toml("fake"),
    );
    ws.write("a.fk", "fine\n");
    let run_cmd = |args: &[&str]| {
        ws.command(args)
            .arg("--trust-workspace")
            .env_remove("RUST_LOG")
            .env("PATH", "/usr/bin:/bin")
            .env("SQUIGGLE_DAEMON_IDLE_MS", "60000")
            .output()
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let before: serde_json::Value =
        serde_json::from_slice(&run_cmd(&["status", "--json"]).stdout).unwrap_or_default();
    assert_eq!(before["daemon"], serde_json::Value::Null);
    let pyright = before["servers"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|s| s["id"] == "pyright")
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        pyright["status"], "unavailable",
        "pyright is not on this PATH"
    );
    let detail = pyright["detail"].as_str().unwrap_or_default();
    assert!(
        detail.ends_with("install it with `squiggle install pyright` (or `npm i -g pyright`)"),
        "{pyright:#}"
    );

    assert_eq!(run_cmd(&["check", "a.fk"]).status.code(), Some(0));
    let after: serde_json::Value =
        serde_json::from_slice(&run_cmd(&["status", "--json"]).stdout).unwrap_or_default();
    run_cmd(&["daemon", "stop"]);
    assert!(after["daemon"]["pid"].as_u64().is_some(), "{after:#}");
    let fake = after["servers"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|s| s["id"] == "fake")
        .cloned()
        .unwrap_or_default();
    // The server's row is now its instance's (the rows of `lsp/status`).
    assert_eq!(fake["status"], "active", "{fake:#}");
    assert_eq!(fake["root"], ws.root.display().to_string());
    assert!(fake["serverPid"].as_u64().is_some(), "{fake:#}");
}
