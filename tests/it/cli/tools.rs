//! The wrapped tools' command-line contract, through the real binary and the
//! scripted fake server: stdout is exactly what the agent's tool returns,
//! exit 0 when the mutation was applied (whatever the diagnostics), 1 when it
//! was refused (nothing written), 2 for usage or configuration errors;
//! `--dry-run` writes nothing; `--json` carries the structured result.

use std::path::PathBuf;
use std::process::Output;
use std::time::Duration;

use serde_json::json;

use crate::support;
use crate::support::fake_server::{FakeServer, squiggle_toml, started_pids, toml_string};
use crate::support::scratch::{Scratch, scratch_type};
use crate::support::{both, output_with_stdin};

scratch_type!(Workspace);

impl Workspace {
    /// The fake (pull mode) serving `.fk` files, a 5 s diagnostic timeout.
    fn new() -> Workspace {
        let fake = FakeServer::new(json!({"diagnosticMode": "pull"}));
        Workspace::with_config(&squiggle_toml("diagnosticTimeout = 5000", &fake))
    }

    /// A workspace whose `.squiggle.toml` is `toml`.
    fn with_config(toml: &str) -> Workspace {
        let ws = Workspace(Scratch::bare());
        ws.write(".squiggle.toml", toml);
        ws
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// `squiggle ARGS --root WS --trust-workspace` in process (no daemon),
    /// `stdin` on its standard input.
    fn run(&self, args: &[&str], stdin: &str) -> Output {
        self.run_env(args, stdin, &[("SQUIGGLE_NO_DAEMON", "1")])
    }

    /// `run` with `env` (through the workspace's daemon unless `env` says
    /// `SQUIGGLE_NO_DAEMON`).
    fn run_env(&self, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
        let mut command = self.command(args);
        command
            .arg("--root")
            .arg(&self.root)
            .arg("--trust-workspace")
            .env("RUST_LOG", "")
            .envs(env.iter().copied());
        output_with_stdin(&mut command, stdin)
    }

    /// `squiggle edit FILE --old-string OLD --new-string NEW`, with `env`.
    fn edit(&self, file: &str, old: &str, new: &str, env: &[(&str, &str)]) -> Output {
        let args = ["edit", file, "--old-string", old, "--new-string", new];
        self.run_env(&args, "", env)
    }
}

const NO_DAEMON: &[(&str, &str)] = &[("SQUIGGLE_NO_DAEMON", "1")];

/// The stdout of a run that must have exited 0.
fn applied(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(0), "{}", both(out));
    stdout(out)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn read(p: &std::path::Path) -> String {
    std::fs::read_to_string(p).unwrap_or_default()
}

#[test]
fn edit_prints_success_then_the_block_and_exits_zero() {
    let ws = Workspace::new();
    ws.write("a.fk", "let x = 1;\n");
    let out = ws.edit("a.fk", "1", "@error[E7](x is <bad> & wrong)", NO_DAEMON);
    assert_eq!(
        applied(&out),
        "Edit applied successfully.\n\nLSP errors detected in this file, please fix:\n<diagnostics file=\"a.fk\">\nERROR [1:9] x is &lt;bad&gt; &amp; wrong (E7)\n</diagnostics>\n"
    );
    let fixed = ws.edit("a.fk", "@error[E7](x is <bad> & wrong)", "2", NO_DAEMON);
    assert_eq!(applied(&fixed), "Edit applied successfully.\n");
    assert_eq!(read(&ws.path("a.fk")), "let x = 2;\n");
}

#[test]
fn a_refused_edit_writes_nothing_and_exits_one() {
    let ws = Workspace::new();
    ws.write("a.fk", "same same\n");
    let ambiguous = ws.edit("a.fk", "same", "x", NO_DAEMON);
    assert_eq!(ambiguous.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&ambiguous.stderr).contains("occurs 2 times"));
    let missing = ws.edit("a.fk", "absent", "x", NO_DAEMON);
    assert_eq!(missing.status.code(), Some(1));
    let outside = ws.run(&["write", "../escape.fk"], "x\n");
    assert_eq!(outside.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&outside.stderr).contains("outside the workspace"));
    assert!(!ws.outer.join("escape.fk").exists());
    assert_eq!(read(&ws.path("a.fk")), "same same\n");
}

#[test]
fn usage_errors_exit_two() {
    let ws = Workspace::new();
    assert_eq!(ws.run(&["edit", "a.fk"], "").status.code(), Some(2));
    ws.write(".squiggle.toml", "[lsp]\ndiagnosticTimeot = 5\n");
    let bad_config = ws.run(&["write", "a.fk"], "x\n");
    assert_eq!(bad_config.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad_config.stderr);
    assert!(
        err.contains(".squiggle.toml") && err.contains("diagnosticTimeot"),
        "{err}"
    );
    assert!(!ws.path("a.fk").exists(), "a config error must not write");
}

#[test]
fn write_creates_directories_and_dry_run_writes_nothing() {
    let ws = Workspace::new();
    let dry = ws.run(
        &["write", "deep/new.fk", "--dry-run"],
        "@error(would break)\n",
    );
    assert!(
        applied(&dry)
            .starts_with("Dry run: the file was not written.\n\nLSP errors detected in this file"),
        "{}",
        stdout(&dry)
    );
    assert!(!ws.path("deep/new.fk").exists());
    let real = ws.run(&["write", "deep/new.fk"], "ok\n");
    assert_eq!(applied(&real), "File written successfully.\n");
    assert_eq!(read(&ws.path("deep/new.fk")), "ok\n");
}

#[test]
fn apply_patch_is_all_or_nothing_and_json_carries_structure() {
    let ws = Workspace::new();
    ws.write("a.fk", "one\n");
    ws.write("b.fk", "two\n");
    let failing = "*** Begin Patch\n*** Update File: a.fk\n-one\n+uno\n*** Update File: b.fk\n-not there\n+dos\n*** End Patch\n";
    let refused = ws.run(&["apply-patch"], failing);
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(
        (read(&ws.path("a.fk")), read(&ws.path("b.fk"))),
        ("one\n".to_string(), "two\n".to_string())
    );
    let good = "*** Begin Patch\n*** Update File: a.fk\n-one\n+@error(uno)\n*** Update File: b.fk\n-two\n+dos\n*** End Patch\n";
    let out = ws.run(&["apply-patch", "--json"], good);
    let v: serde_json::Value = serde_json::from_str(&applied(&out)).unwrap_or_default();
    assert_eq!(v["message"], "Patch applied successfully.");
    assert_eq!(v["classification"], "new_errors");
    assert_eq!(v["diagnostics"][0]["file"], "a.fk");
    assert_eq!(v["outcomes"]["a.fk"][0]["outcome"], "pulled");
    assert!(
        v["feedback"]
            .as_str()
            .is_some_and(|f| f.starts_with("LSP errors detected in edited files, please fix:"))
    );
}

/// The custom server of `docs/configuration.md` without a
/// `languageId` served nothing (no language id for an unknown extension)
/// while `status` called it available. Its language id is now the extension
/// without the dot, as editors do.
#[test]
fn a_custom_server_without_a_language_id_starts() {
    // The documented form, word for word: command, args, extensions.
    let ws = Workspace::with_config(&format!(
        "[lsp]\ndiagnosticTimeout = 5000\n\n[lsp.servers.fake]\ncommand = {}\nargs = []\nextensions = [\".zzq\"]\n",
        toml_string(FakeServer::command())
    ));
    ws.write("a.zzq", "x = 1\n");
    let text = applied(&ws.edit("a.zzq", "x = 1", "x = @error(boom)", NO_DAEMON));
    assert!(text.contains("<diagnostics file=\"a.zzq\">"), "{text}");
    assert!(text.contains("ERROR [1:5] boom"), "{text}");
}

/// A server that ignores `shutdown` and `exit` held a one-shot
/// edit's result back until its shutdown had timed out. The result comes
/// first; the server is killed after a short grace; nothing is left behind.
#[test]
fn a_server_that_will_not_stop_never_holds_the_result_back() {
    for fault in ["hang", "ignoreShutdown"] {
        let ws = Workspace(Scratch::bare());
        let log = ws.outer.join("fake-log.jsonl");
        let fake = FakeServer::new(json!({"diagnosticMode": "pull",
            "logFile": log.display().to_string(), "fault": {"kind": fault}}));
        ws.write(
            ".squiggle.toml",
            &squiggle_toml("firstTouchTimeout = 1000", &fake),
        );
        ws.write("a.fk", "x = 1\n");
        let out = ws.edit("a.fk", "x = 1", "x = 2", NO_DAEMON);
        assert_eq!(out.status.code(), Some(0), "{fault}: {}", both(&out));
        assert!(
            stdout(&out).starts_with("Edit applied successfully."),
            "{fault}: {}",
            both(&out)
        );
        let events = read(&log);
        let pid = started_pids(&log)
            .first()
            .copied()
            .unwrap_or_else(|| panic!("{fault}: no start event in {events}"));
        if fault == "ignoreShutdown" {
            assert!(
                events.contains("\"shutdown\""),
                "{fault}: never asked to stop: {events}"
            );
        }
        // No event says when an orphan is reaped: polled, bounded.
        assert!(
            support::poll_until(Duration::from_secs(2), || !support::process_exists(pid)),
            "{fault}: the server (pid {pid}) outlived squiggle"
        );
    }
}

/// `edit`, `write` and `apply-patch` go through the
/// workspace's warm daemon like the hooks: servers start once, for the first
/// call, and later calls reuse them.
#[test]
fn edits_go_through_one_warm_daemon() {
    let ws = Workspace::new();
    ws.write("a.fk", "x = 1\n");
    let first = applied(&ws.edit("a.fk", "x = 1", "x = @error(one)", &[]));
    assert!(first.contains("ERROR [1:5] one"), "{first}");
    let second = ws.run_env(&["write", "a.fk"], "x = 2\n", &[]);
    assert_eq!(stdout(&second).trim_end(), "File written successfully.");
    let refused = ws.edit("a.fk", "nowhere", "y", &[]);
    assert_eq!(refused.status.code(), Some(1), "a refusal still exits 1");
    assert_eq!(read(&ws.path("a.fk")), "x = 2\n");
    let status = ws.run_env(&["daemon", "status"], "", &[]);
    let text = stdout(&status);
    ws.run_env(&["daemon", "stop"], "", &[]);
    // Three mutations and this status request, answered by one server.
    assert!(text.contains("requests   4"), "daemon status:\n{text}");
    let servers = text
        .lines()
        .filter(|l| l.trim_start().starts_with("server"))
        .count();
    assert_eq!(servers, 1, "daemon status:\n{text}");
}
