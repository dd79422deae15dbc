//! Another user and the daemon (`docs/security.md`, "The daemon's
//! endpoint"), on Linux with the tests run as root: a daemon started as
//! `nobody` closes root's connection unanswered — root passes the socket's
//! mode 600, so only the peer-uid check (`same_user`) stands between — and
//! answers its own user; root's own client refuses `nobody`'s runtime
//! directory rather than use it. Skipped, saying why, when not root: an
//! unprivileged test cannot run a process as another user.
#![cfg(target_os = "linux")]

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use squiggle::daemon::client::{Options, alive};

use crate::support;
use crate::support::process::Reaper;
use crate::support::service::Workspace;

/// The user the daemon runs as: `nobody`, on every Linux.
const NOBODY: u32 = 65534;

/// Hands `dir` and everything under it to `uid` (the scratch workspace,
/// config, home and runtime dir, all made by root).
fn chown_all(dir: &Path, uid: u32) {
    std::os::unix::fs::chown(dir, Some(uid), Some(uid))
        .unwrap_or_else(|e| panic!("chown {}: {e}", dir.display()));
    if dir.is_dir() {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{e}"));
        for entry in entries.flatten() {
            chown_all(&entry.path(), uid);
        }
    }
}

/// The squiggle binary at a path `nobody` can run: this build's when it
/// and every directory above it let others through, else a link to it (a
/// copy across file systems) in `dir` — a checkout may sit under root's
/// private home.
fn program_for_others(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_squiggle"));
    let others_pass =
        |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.permissions().mode() & 0o001 != 0);
    if exe.ancestors().all(others_pass) {
        return exe;
    }
    let placed = dir.join("squiggle");
    if std::fs::hard_link(&exe, &placed).is_err() {
        std::fs::copy(&exe, &placed).unwrap_or_else(|e| panic!("copy {}: {e}", exe.display()));
    }
    placed
}

/// `squiggle daemon ARGS --trust-workspace --root WS`, run by `program` as
/// `uid` (as root for `None`).
fn daemon_as(
    ws: &Workspace,
    program: &Path,
    uid: Option<u32>,
    args: &[&str],
) -> std::process::Output {
    let mut command = std::process::Command::new(program);
    command
        .arg("daemon")
        .args(args)
        .args(["--trust-workspace", "--root"])
        .arg(&ws.root)
        .env("HOME", &ws.home)
        .env("XDG_CONFIG_HOME", &ws.config_home)
        .env("XDG_RUNTIME_DIR", &ws.runtime_dir)
        .current_dir(&ws.root);
    if let Some(uid) = uid {
        command.uid(uid).gid(uid);
    }
    command
        .output()
        .unwrap_or_else(|e| panic!("squiggle daemon {args:?}: {e}"))
}

/// The pid in `daemon for … running (pid N)`.
fn started_pid(out: &std::process::Output) -> u32 {
    let text = String::from_utf8_lossy(&out.stdout);
    text.rsplit_once("(pid ")
        .and_then(|(_, rest)| rest.trim_end().trim_end_matches(')').parse().ok())
        .unwrap_or_else(|| panic!("no pid in: {}", support::both(out)))
}

/// The endpoint's paths (socket, log) of the trusted daemon of `ws`.
fn paths(ws: &Workspace) -> squiggle::daemon::socket::Paths {
    let opts = Options {
        trust_workspace: true,
        runtime_dir: Some(ws.runtime_dir.clone()),
        ..Options::default()
    };
    let (_, paths) = opts.locate(&ws.root).unwrap_or_else(|e| panic!("{e}"));
    paths
}

/// Everything the daemon sends on a connection that asks for its status,
/// until it closes the connection or has answered.
fn answer_to_a_status_request(socket: &Path) -> Vec<u8> {
    let mut stream = std::os::unix::net::UnixStream::connect(socket)
        .unwrap_or_else(|e| panic!("connect {}: {e}", socket.display()));
    // A bound on a hang only: a refused connection is closed at once.
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap_or_else(|e| panic!("{e}"));
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"squiggle/daemonStatus"}"#;
    let frame = format!("Content-Length: {}\r\n\r\n{body}", body.len());
    // A refused connection may already be closed: the write may fail.
    let _ = stream.write_all(frame.as_bytes());
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
        if got.windows(7).any(|w| w == b"\"pid\":") || got.len() > 64 {
            break;
        }
    }
    got
}

#[test]
fn a_daemon_refuses_another_users_connection_and_serves_its_own() {
    // SAFETY: geteuid takes nothing and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!(
            "skipped: the test runs a daemon as another user (nobody), which needs root; \
             this run is not root"
        );
        return;
    }
    let ws = Workspace::bare();
    chown_all(&ws.outer, NOBODY);
    let program = program_for_others(&ws.outer);

    let out = daemon_as(&ws, &program, Some(NOBODY), &["start"]);
    assert!(out.status.success(), "{}", support::both(&out));
    let pid = started_pid(&out);
    let _reaper = Reaper(pid);

    // Root reaches the socket despite its mode; the daemon sees uid 0,
    // not its own, and closes the connection without a byte.
    let paths = paths(&ws);
    let answer = answer_to_a_status_request(&paths.socket);
    assert!(
        answer.is_empty(),
        "the daemon answered another user: {}",
        String::from_utf8_lossy(&answer)
    );

    // Its own user is served, after the refusal (connections are accepted
    // in turn: the refusal is in the log by then).
    let out = daemon_as(&ws, &program, Some(NOBODY), &["status"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains(&format!("pid        {pid}")),
        "{}",
        support::both(&out)
    );

    let log = std::fs::read_to_string(&paths.log).unwrap_or_default();
    assert!(
        log.contains("refused a connection from another user") && log.contains("uid=0"),
        "the daemon's log:\n{log}"
    );

    // Root's own client will not use another user's runtime directory.
    let out = daemon_as(&ws, &program, None, &["status"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("is not private (owner uid 65534"),
        "{}",
        support::both(&out)
    );

    let out = daemon_as(&ws, &program, Some(NOBODY), &["stop"]);
    assert!(out.status.success(), "{}", support::both(&out));
    assert!(!alive(pid), "stop waits for the exit");
}
