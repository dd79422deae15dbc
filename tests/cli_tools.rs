//! The wrapped tools' command-line contract, through the real binary and the
//! scripted fake server: stdout is exactly what the agent's tool returns,
//! exit 0 when the mutation was applied (whatever the diagnostics), 1 when it
//! was refused (nothing written), 2 for usage or configuration errors;
//! `--dry-run` writes nothing; `--json` carries the structured result.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

struct Workspace {
    dir: tempfile::TempDir,
    config_home: tempfile::TempDir,
}

impl Workspace {
    fn new() -> Workspace {
        let script = r#"{\"diagnosticMode\":\"pull\"}"#;
        Workspace::with_server(&format!(
            "extensions = [\".fk\"]\nlanguageId = \"fake\"\nsettleMs = 0\nenv = {{ SQUIGGLE_FAKE_SCRIPT_JSON = \"{script}\" }}\n"
        ))
    }

    /// A workspace whose `.squiggle.toml` runs the fake as `[lsp.servers.fake]`
    /// with its `command` and then `server`'s lines.
    fn with_server(server: &str) -> Workspace {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let config_home = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let config = format!(
            "[lsp]\ndiagnosticTimeout = 5000\n\n[lsp.servers.fake]\ncommand = \"{}\"\n{server}",
            env!("CARGO_BIN_EXE_squiggle-fake-lsp")
        );
        std::fs::write(dir.path().join(".squiggle.toml"), config).unwrap_or_else(|e| panic!("{e}"));
        Workspace { dir, config_home }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn run(&self, args: &[&str], stdin: &str) -> Output {
        self.run_with(args, stdin, "")
    }

    /// `run` with `RUST_LOG` set to `log` (squiggle's logs go to stderr).
    fn run_with(&self, args: &[&str], stdin: &str, log: &str) -> Output {
        self.run_env(
            args,
            stdin,
            &[("RUST_LOG", log), ("SQUIGGLE_NO_DAEMON", "1")],
        )
    }

    /// The command in this workspace with `env` (the in-process contract
    /// unless the caller leaves out `SQUIGGLE_NO_DAEMON`).
    fn run_env(&self, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
        let mut child = Command::new(env!("CARGO_BIN_EXE_squiggle"))
            .envs(env.iter().copied())
            .args(args)
            .arg("--root")
            .arg(self.dir.path())
            .arg("--trust-workspace")
            .current_dir(self.dir.path())
            .env("XDG_CONFIG_HOME", self.config_home.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{e}"));
        if let Some(mut input) = child.stdin.take() {
            input.write_all(stdin.as_bytes()).ok();
        }
        child.wait_with_output().unwrap_or_else(|e| panic!("{e}"))
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_default()
}

#[test]
fn edit_prints_success_then_the_block_and_exits_zero() {
    let ws = Workspace::new();
    std::fs::write(ws.path("a.fk"), "let x = 1;\n").ok();
    let out = ws.run(
        &[
            "edit",
            "a.fk",
            "--old-string",
            "1",
            "--new-string",
            "@error[E7](x is <bad> & wrong)",
        ],
        "",
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stdout(&out),
        "Edit applied successfully.\n\nLSP errors detected in this file, please fix:\n<diagnostics file=\"a.fk\">\nERROR [1:9] x is &lt;bad&gt; &amp; wrong (E7)\n</diagnostics>\n"
    );
    let fixed = ws.run(
        &[
            "edit",
            "a.fk",
            "--old-string",
            "@error[E7](x is <bad> & wrong)",
            "--new-string",
            "2",
        ],
        "",
    );
    assert_eq!(
        (fixed.status.code(), stdout(&fixed)),
        (Some(0), "Edit applied successfully.\n".to_string())
    );
    assert_eq!(read(&ws.path("a.fk")), "let x = 2;\n");
}

#[test]
fn a_refused_edit_writes_nothing_and_exits_one() {
    let ws = Workspace::new();
    std::fs::write(ws.path("a.fk"), "same same\n").ok();
    let ambiguous = ws.run(
        &["edit", "a.fk", "--old-string", "same", "--new-string", "x"],
        "",
    );
    assert_eq!(ambiguous.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&ambiguous.stderr).contains("occurs 2 times"));
    let missing = ws.run(
        &[
            "edit",
            "a.fk",
            "--old-string",
            "absent",
            "--new-string",
            "x",
        ],
        "",
    );
    assert_eq!(missing.status.code(), Some(1));
    let outside = ws.run(&["write", "../escape.fk"], "x\n");
    assert_eq!(outside.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&outside.stderr).contains("outside the workspace"));
    assert!(
        !ws.dir
            .path()
            .parent()
            .unwrap_or(ws.dir.path())
            .join("escape.fk")
            .exists()
    );
    assert_eq!(read(&ws.path("a.fk")), "same same\n");
}

#[test]
fn usage_errors_exit_two() {
    let ws = Workspace::new();
    assert_eq!(ws.run(&["edit", "a.fk"], "").status.code(), Some(2));
    std::fs::write(ws.path(".squiggle.toml"), "[lsp]\ndiagnosticTimeot = 5\n").ok();
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
    assert_eq!(dry.status.code(), Some(0));
    assert!(
        stdout(&dry)
            .starts_with("Dry run: the file was not written.\n\nLSP errors detected in this file"),
        "{}",
        stdout(&dry)
    );
    assert!(!ws.path("deep/new.fk").exists());
    let real = ws.run(&["write", "deep/new.fk"], "ok\n");
    assert_eq!(
        (real.status.code(), stdout(&real)),
        (Some(0), "File written successfully.\n".to_string())
    );
    assert_eq!(read(&ws.path("deep/new.fk")), "ok\n");
}

#[test]
fn apply_patch_is_all_or_nothing_and_json_carries_structure() {
    let ws = Workspace::new();
    std::fs::write(ws.path("a.fk"), "one\n").ok();
    std::fs::write(ws.path("b.fk"), "two\n").ok();
    let failing = "*** Begin Patch\n*** Update File: a.fk\n-one\n+uno\n*** Update File: b.fk\n-not there\n+dos\n*** End Patch\n";
    let refused = ws.run(&["apply-patch"], failing);
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(
        (read(&ws.path("a.fk")), read(&ws.path("b.fk"))),
        ("one\n".to_string(), "two\n".to_string())
    );
    let good = "*** Begin Patch\n*** Update File: a.fk\n-one\n+@error(uno)\n*** Update File: b.fk\n-two\n+dos\n*** End Patch\n";
    let applied = ws.run(&["apply-patch", "--json"], good);
    assert_eq!(applied.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&applied.stdout).unwrap_or_default();
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

/// Issue 17: the custom server of `docs/configuration.md` without a
/// `languageId` served nothing (no language id for an unknown extension)
/// while `status` called it available. Its language id is now the extension
/// without the dot, as editors do.
#[test]
fn a_custom_server_without_a_language_id_starts() {
    let ws = Workspace::with_server("args = []\nextensions = [\".zzq\"]\n");
    std::fs::write(ws.path("a.zzq"), "x = 1\n").unwrap_or_else(|e| panic!("{e}"));
    let out = ws.run(
        &[
            "edit",
            "a.zzq",
            "--old-string",
            "x = 1",
            "--new-string",
            "x = @error(boom)",
        ],
        "",
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    assert!(text.contains("<diagnostics file=\"a.zzq\">"), "{text}");
    assert!(text.contains("ERROR [1:5] boom"), "{text}");
}

/// Issue 17: a server that ignores `shutdown` and `exit` held a one-shot
/// edit's result back until its shutdown had timed out. The result comes
/// first; the server is killed after a short grace; nothing is left behind.
#[test]
fn a_server_that_will_not_stop_never_holds_the_result_back() {
    for fault in ["hang", "ignoreShutdown"] {
        let log = tempfile::NamedTempFile::new().unwrap_or_else(|e| panic!("{e}"));
        let script = format!(
            r#"{{\"diagnosticMode\":\"pull\",\"logFile\":\"{}\",\"fault\":{{\"kind\":\"{fault}\"}}}}"#,
            log.path().display()
        );
        let ws = Workspace::with_server(&format!(
            "extensions = [\".fk\"]\nenv = {{ SQUIGGLE_FAKE_SCRIPT_JSON = \"{script}\" }}\n"
        ));
        std::fs::write(ws.path("a.fk"), "x = 1\n").unwrap_or_else(|e| panic!("{e}"));
        let config = ws.path(".squiggle.toml");
        let text = read(&config).replace("diagnosticTimeout = 5000", "firstTouchTimeout = 1000");
        std::fs::write(&config, text).unwrap_or_else(|e| panic!("{e}"));
        let out = ws.run(
            &[
                "edit",
                "a.fk",
                "--old-string",
                "x = 1",
                "--new-string",
                "x = 2",
            ],
            "",
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{fault}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            stdout(&out).starts_with("Edit applied successfully."),
            "{fault}: {}",
            stdout(&out)
        );
        let events = read(log.path());
        let pid: u32 = events
            .lines()
            .find_map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).ok()?;
                (v["event"] == "start")
                    .then(|| v["pid"].as_u64())?
                    .map(|p| p as u32)
            })
            .unwrap_or_else(|| panic!("{fault}: no start event in {events}"));
        if fault == "ignoreShutdown" {
            assert!(
                events.contains("\"shutdown\""),
                "{fault}: never asked to stop: {events}"
            );
        }
        assert!(
            gone(pid),
            "{fault}: the server (pid {pid}) outlived squiggle"
        );
    }
}

/// Whether `pid` has exited (or is only a zombie awaiting its new parent).
fn gone(pid: u32) -> bool {
    // No event says when an orphan is reaped: poll, bounded.
    for _ in 0..200 {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return true,
            Ok(stat)
                if stat
                    .rsplit(')')
                    .next()
                    .is_some_and(|s| s.trim_start().starts_with('Z')) =>
            {
                return true;
            }
            Ok(_) => std::thread::sleep(std::time::Duration::from_millis(10)),
        }
    }
    false
}

/// Issue 14, item 6: `edit`, `write` and `apply-patch` go through the
/// workspace's warm daemon like the hooks: servers start once, for the first
/// call, and later calls reuse them.
#[test]
fn edits_go_through_one_warm_daemon() {
    let ws = Workspace::new();
    let runtime = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let runtime_dir = runtime.path().display().to_string();
    let env = [("XDG_RUNTIME_DIR", runtime_dir.as_str())];
    std::fs::write(ws.path("a.fk"), "x = 1\n").unwrap_or_else(|e| panic!("{e}"));
    let first = ws.run_env(
        &[
            "edit",
            "a.fk",
            "--old-string",
            "x = 1",
            "--new-string",
            "x = @error(one)",
        ],
        "",
        &env,
    );
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(
        stdout(&first).contains("ERROR [1:5] one"),
        "{}",
        stdout(&first)
    );
    let second = ws.run_env(&["write", "a.fk"], "x = 2\n", &env);
    assert_eq!(stdout(&second).trim_end(), "File written successfully.");
    let refused = ws.run_env(
        &[
            "edit",
            "a.fk",
            "--old-string",
            "nowhere",
            "--new-string",
            "y",
        ],
        "",
        &env,
    );
    assert_eq!(refused.status.code(), Some(1), "a refusal still exits 1");
    assert_eq!(read(&ws.path("a.fk")), "x = 2\n");
    let status = ws.run_env(&["daemon", "status"], "", &env);
    let text = stdout(&status);
    ws.run_env(&["daemon", "stop"], "", &env);
    // Three mutations and this status request, answered by one server.
    assert!(text.contains("requests   4"), "daemon status:\n{text}");
    let servers = text
        .lines()
        .filter(|l| l.trim_start().starts_with("server"))
        .count();
    assert_eq!(servers, 1, "daemon status:\n{text}");
}
