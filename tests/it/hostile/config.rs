//! Every number range-checked, and the configuration a daemon applies.

use super::{IN_PROCESS, pull, squiggle, stderr, workspace};
use crate::support::both;
use crate::support::scratch::write_under;

/// `daemonIdleMinutes = 9223372036854775807` panicked the
/// daemon (a deadline overflowed), and the edit that started it exited 2
/// saying it "may have been applied". Every number a configuration holds
/// has a greatest value: past it, any command exits 2 with one line naming
/// the file and the key, before anything is written or started.
#[test]
fn every_number_in_the_configuration_is_range_checked() {
    let cases = [
        ("diagnosticTimeout = 600001", "lsp.diagnosticTimeout"),
        ("firstTouchTimeout = 3600001", "lsp.firstTouchTimeout"),
        (
            "maxDiagnosticsPerFile = 100001",
            "lsp.maxDiagnosticsPerFile",
        ),
        (
            "maxProjectDiagnosticsFiles = 100001",
            "lsp.maxProjectDiagnosticsFiles",
        ),
        (
            "maxDiagnosticLines = 9223372036854775807",
            "lsp.maxDiagnosticLines",
        ),
        (
            "daemonIdleMinutes = 9223372036854775807",
            "lsp.daemonIdleMinutes",
        ),
        ("maxInstancesPerServer = 1025", "lsp.maxInstancesPerServer"),
        ("serverIdleMinutes = 10081", "lsp.serverIdleMinutes"),
        (
            "documentIdleMinutes = 9223372036854775807",
            "lsp.documentIdleMinutes",
        ),
        ("servers.fake.settleMs = 60001", "lsp.servers.fake.settleMs"),
        (
            "servers.fake.staleWindowMs = 60001",
            "lsp.servers.fake.staleWindowMs",
        ),
        (
            "servers.fake.unchangedQuietMs = 60001",
            "lsp.servers.fake.unchangedQuietMs",
        ),
        (
            "servers.fake.othersQuietMs = 9223372036854775807",
            "lsp.servers.fake.othersQuietMs",
        ),
    ];
    for (line, key) in cases {
        let ws = workspace("", pull());
        let path = ws.write("a.fk", "x = 1\n");
        let file = write_under(
            &ws.root,
            ".squiggle.toml",
            format!("[lsp]\n{line}\n").as_bytes(),
        );
        let edit = ["edit", "a.fk", "--old-string", "1", "--new-string", "2"];
        for env in [&[][..], IN_PROCESS] {
            let out = squiggle(&ws, &edit, env, b"");
            assert_eq!(out.status.code(), Some(2), "{line}: {}", both(&out));
            let text = stderr(&out);
            let said = format!("{}: {key}: expected at most ", file.display());
            assert!(text.contains(&said), "{line}: {text}");
            assert_eq!(text.lines().count(), 1, "{line}: {text}");
            assert!(!text.contains("may have been applied"), "{text}");
            assert_eq!(std::fs::read(&path).unwrap_or_default(), b"x = 1\n");
        }
    }
}

/// The daemon's log for `ws` (its stderr, beside its socket).
fn daemon_log(ws: &crate::support::scratch::Scratch) -> String {
    let paths = squiggle::daemon::socket::paths(&ws.root, false, Some(&ws.runtime_dir));
    std::fs::read_to_string(paths.log).unwrap_or_default()
}

/// `lsp = false` in `.squiggle.toml` (the README's "Turn it
/// off") and `enabled = false` on a server did nothing while a daemon ran:
/// edits, hooks and `check` kept reporting until `squiggle daemon stop`.
/// Through one running daemon, each change to the workspace's or the
/// user's file applies to the next request, stops the servers it affects
/// (and only those), and is said in the daemon's log.
#[test]
fn a_configuration_change_applies_to_the_next_request_of_a_running_daemon() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let log = dir.path().join("fake.jsonl");
    let script =
        serde_json::json!({"diagnosticMode": "pull", "logFile": log.display().to_string()});
    let ws = workspace("", script);
    ws.write("a.fk", "@error(first)\n");
    let pids = || crate::support::fake_server::started_pids(&log);
    let alive = |pid: u32| crate::support::process_exists(pid);
    let through_daemon: &[(&str, &str)] = &[];
    let check = || squiggle(&ws, &["check", "a.fk"], through_daemon, b"");

    let out = check();
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    assert!(super::stdout(&out).contains("first"), "{}", both(&out));
    let first = pids();
    assert_eq!(first.len(), 1, "{first:?}");

    // Turned off: nothing is reported, and the server stops.
    ws.write(".squiggle.toml", "lsp = false\n");
    let edit = [
        "edit",
        "a.fk",
        "--old-string",
        "first",
        "--new-string",
        "second",
    ];
    let out = squiggle(&ws, &edit, through_daemon, b"");
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert!(!super::stdout(&out).contains("ERROR"), "{}", both(&out));
    let hook = squiggle(
        &ws,
        &["hook", "claude"],
        through_daemon,
        &super::claude_edit(&ws, "a.fk"),
    );
    assert!(!super::stdout(&hook).contains("ERROR"), "{}", both(&hook));
    let out = check();
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let stopped = crate::support::poll_until(super::HANG, || !alive(first[0]));
    assert!(stopped, "the server of a disabled configuration stops");
    assert!(
        daemon_log(&ws).contains("configuration changed"),
        "{}",
        daemon_log(&ws)
    );

    // Back on: reported again, by a server started afresh.
    std::fs::remove_file(ws.root.join(".squiggle.toml")).unwrap_or_else(|e| panic!("{e}"));
    let out = check();
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    assert!(super::stdout(&out).contains("second"), "{}", both(&out));
    let second = *pids().last().unwrap_or(&0);
    assert_ne!(second, first[0]);

    // A change that concerns no server (a cap) applies without a restart.
    ws.write(".squiggle.toml", "[lsp]\nmaxDiagnosticsPerFile = 0\n");
    let out = check();
    assert!(
        !super::stdout(&out).contains("ERROR [1:1] second"),
        "{}",
        both(&out)
    );
    assert_eq!(pids().len(), 2, "no restart for a cap");
    assert!(alive(second));

    // A server's own setting in the user's file restarts that server.
    let user = ws.config_home.join("squiggle/config.toml");
    let text = std::fs::read_to_string(&user).unwrap_or_default();
    write_under(
        &ws.config_home,
        "squiggle/config.toml",
        text.replace("settleMs = 0", "settleMs = 1").as_bytes(),
    );
    std::fs::remove_file(ws.root.join(".squiggle.toml")).unwrap_or_else(|e| panic!("{e}"));
    let out = check();
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    assert_eq!(
        pids().len(),
        3,
        "restarted with its new setting: {:?}",
        pids()
    );
    let stopped = crate::support::poll_until(super::HANG, || !alive(second));
    assert!(stopped, "the old instance stops");

    // Disabled in the workspace's file: stopped, and nothing reported.
    ws.write(".squiggle.toml", "[lsp.servers.fake]\nenabled = false\n");
    let out = check();
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let third = *pids().last().unwrap_or(&0);
    let stopped = crate::support::poll_until(super::HANG, || !alive(third));
    assert!(stopped, "a disabled server stops");
    super::stop_daemon(&ws);
}
