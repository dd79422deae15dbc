//! Windows: a server npm-style behind a `.cmd` shim, found on PATH through
//! `PATHEXT` and started through `cmd.exe`, and its whole tree (cmd.exe,
//! then the server) gone when squiggle is killed outright, which only the
//! Job Object can do (squiggle runs no code of its own after
//! `TerminateProcess`). Under wine in CI (scripts/cross-test).

use std::process::Stdio;
use std::time::Duration;

use serde_json::json;
use squiggle::daemon::client::alive;

use crate::support::fake_server::{FakeServer, logged, started_pids, toml_string};
use crate::support::poll_until;
use crate::support::process::{Reaper, kill};
use crate::support::scratch::Scratch;

#[test]
fn a_cmd_shim_server_starts_and_its_tree_dies_with_squiggle() {
    let ws = Scratch::with_git_root();
    let bin = ws.outer.join("npm bin");
    std::fs::create_dir_all(&bin).unwrap_or_else(|e| panic!("{e}"));
    let ran = ws.outer.join("shim ran");
    let log = ws.outer.join("fake-log.jsonl");
    // As npm writes one: the program behind it, the arguments passed on.
    std::fs::write(
        bin.join("fake-shim.cmd"),
        format!(
            "@echo off\r\necho ran>>\"{}\"\r\n\"{}\" %*\r\n",
            ran.display(),
            FakeServer::command()
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // The server answers its first pull only after 110 s: it is alive,
    // mid-request, when squiggle is killed. It ignores the end of its
    // input too (it lingers 30 s, then logs its exit): gone sooner, with no
    // exit of its own logged, it was killed from outside.
    let script = json!({"diagnosticMode": "pull", "pullDelayMs": 110000,
        "fault": {"kind": "ignoreExit"}, "logFile": log.display().to_string()});
    let table = FakeServer::new(script).toml("fake").replacen(
        &toml_string(FakeServer::command()),
        "\"fake-shim\"",
        1,
    );
    ws.write(
        ".squiggle.toml",
        &format!("[lsp]\ndiagnosticTimeout = 120000\nfirstTouchTimeout = 120000\n\n{table}"),
    );
    ws.write("a.fk", "x = 1\n");
    let path = std::env::join_paths(std::iter::once(bin.clone()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap_or_else(|e| panic!("{e}"));
    let mut squiggle = ws
        .command(&["check", "--trust-workspace", "a.fk"])
        .env("PATH", path)
        .env("SQUIGGLE_NO_DAEMON", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn squiggle: {e}"));
    let _reaper = Reaper(squiggle.id());
    let started = poll_until(Duration::from_secs(60), || !started_pids(&log).is_empty());
    assert!(started, "the server behind the shim never started");
    assert!(ran.exists(), "the .cmd shim did not run");
    let server = started_pids(&log)[0];
    let _server_reaper = Reaper(server);
    assert!(alive(server));
    kill(squiggle.id());
    let _ = squiggle.wait();
    let gone = poll_until(Duration::from_secs(20), || !alive(server));
    assert!(gone, "server {server} outlived squiggle, killed outright");
    let exits: Vec<_> = logged(&log)
        .into_iter()
        .filter(|e| e["event"] == "exit")
        .collect();
    assert!(exits.is_empty(), "the server exited by itself: {exits:?}");
}
