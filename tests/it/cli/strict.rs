//! Strict mode (the reference design's "no auto-start in
//! non-interactive use"): with `strict = true`, when squiggle runs
//! non-interactively (stdin not a terminal, or `--non-interactive`), only
//! servers named in the configuration start; a built-in server found on
//! `PATH` but never named is listed as `not started (strict)` and never
//! run. `autoDetect = false` holds the same servers back on a terminal too.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::{Value, json};

use crate::support::fake_server::FakeServer;
use crate::support::scratch::Scratch;
use crate::support::service::{Framing, Service};

/// A workspace naming the fake, with `lsp` lines in its `[lsp]` table, a
/// `.py` file, and a stub `pyright-langserver` on `PATH` that records being
/// run in `ran`.
struct Setup {
    ws: Scratch,
    path: String,
    ran: std::path::PathBuf,
}

fn setup(lsp: &str) -> Setup {
    let ws = Scratch::bare();
    let fake = FakeServer::new(json!({}));
    ws.write(
        ".squiggle.toml",
        &crate::support::fake_server::squiggle_toml(lsp, &fake),
    );
    ws.write("a.fk", "@error(named)\n");
    ws.write("b.py", "x: int = 'no'\n");
    let bin = ws.outer.join("bin");
    std::fs::create_dir_all(&bin).unwrap_or_else(|e| panic!("{e}"));
    let ran = ws.outer.join("pyright-ran");
    let stub = bin.join("pyright-langserver");
    std::fs::write(
        &stub,
        format!("#!/bin/sh\ntouch '{}'\nexit 1\n", ran.display()),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    std::fs::set_permissions(&stub, std::fs::Permissions::from_mode(0o755))
        .unwrap_or_else(|e| panic!("{e}"));
    let path = format!("{}:/usr/bin:/bin", bin.display());
    Setup { ws, path, ran }
}

impl Setup {
    fn run(&self, args: &[&str]) -> (String, String) {
        let out = self
            .ws
            .command(args)
            .arg("--trust-workspace")
            .env("PATH", &self.path)
            .env("SQUIGGLE_DAEMON_IDLE_MS", "60000")
            .env_remove("RUST_LOG")
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    fn row(&self, id: &str) -> Value {
        let (stdout, stderr) = self.run(&["status", "--json", "--non-interactive"]);
        let status: Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("status --json: {e}: {stdout}{stderr}"));
        status["servers"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|s| s["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("no {id} in {status:#}"))
    }

    /// `lsp_status`'s text through `squiggle mcp` over stdio (stdin a
    /// pipe: non-interactive).
    fn mcp_status(&self) -> String {
        let mut command = self.ws.command(&["mcp", "--trust-workspace"]);
        command.env("PATH", &self.path).env_remove("RUST_LOG");
        let mut mcp = Service::spawn(&mut command, Framing::Lines);
        mcp.ok(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "strict", "version": "0"}}),
        );
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        mcp.send_raw(initialized.to_string().as_bytes());
        let result = mcp.ok("tools/call", json!({"name": "lsp_status", "arguments": {}}));
        mcp.close_stdin();
        result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    fn stop(&self) {
        self.ws.daemon(&["stop"]);
    }
}

fn pyright_is_held(s: &Setup, cause: &str) {
    let pyright = s.row("pyright");
    assert_eq!(pyright["status"], "not_started", "{pyright:#}");
    let detail = pyright["detail"].as_str().unwrap_or_default();
    assert!(detail.starts_with(&format!("{cause}: ")), "{detail}");
    assert!(detail.contains("[lsp.servers.pyright]"), "{detail}");
    assert_eq!(s.row("fake")["status"], "idle");
    let (table, _) = s.run(&["status", "--non-interactive"]);
    let line = table
        .lines()
        .find(|l| l.starts_with("pyright "))
        .unwrap_or_default();
    assert!(line.contains(&format!("not started ({cause})")), "{table}");
    // MCP's status text names it the same way.
    let mcp = s.mcp_status();
    assert!(
        mcp.contains(&format!("pyright: not started ({cause})")),
        "{mcp}"
    );

    // A check of the Python file runs nothing; the named fake still checks.
    let (out, err) = s.run(&["check", "--json", "--non-interactive", "b.py", "a.fk"]);
    let report: Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("check --json: {e}: {out}{err}"));
    let text = report.to_string();
    assert!(text.contains("pyright not started"), "{report:#}");
    assert!(text.contains("named"), "the fake's diagnostic: {report:#}");
    assert!(!exists(&s.ran), "pyright-langserver was run");
    s.stop();
}

fn exists(path: &Path) -> bool {
    path.exists()
}

#[test]
fn strict_starts_only_the_servers_the_configuration_names() {
    let s = setup("strict = true");
    pyright_is_held(&s, "strict");
}

#[test]
fn auto_detect_false_starts_only_the_servers_the_configuration_names() {
    let s = setup("autoDetect = false");
    pyright_is_held(&s, "autoDetect = false");
}

#[test]
fn a_named_builtin_server_starts_in_strict_mode() {
    let s = setup("strict = true\n[lsp.servers.pyright]\nenabled = true");
    let pyright = s.row("pyright");
    assert_eq!(pyright["status"], "idle", "{pyright:#}");
    let _ = s.run(&["check", "--json", "--non-interactive", "b.py"]);
    assert!(exists(&s.ran), "the named pyright was not started");
    s.stop();
}

/// At a terminal (stdin a pseudo-terminal, from util-linux `script`) a
/// command that goes through the daemon is the daemon's, which is
/// non-interactive: `strict` holds the unnamed server back there too, as
/// docs/configuration.md says; `--no-daemon` runs the command in its own
/// process, where someone is at the keyboard, and the server starts.
#[cfg(target_os = "linux")]
#[test]
fn at_a_terminal_strict_holds_through_the_daemon_not_in_process() {
    if crate::support::require_program("script").is_none() {
        return;
    }
    let s = setup("strict = true");
    let at_a_terminal = |extra: &str| {
        let line = format!(
            "{} check --trust-workspace {extra} b.py",
            env!("CARGO_BIN_EXE_squiggle")
        );
        let out =
            s.ws.command(&[])
                .env("PATH", &s.path)
                .env("SQUIGGLE_DAEMON_IDLE_MS", "60000")
                .env_remove("RUST_LOG")
                .env_remove("SQUIGGLE_NO_DAEMON")
                .output_of_script(&line);
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let through_daemon = at_a_terminal("");
    assert!(
        through_daemon.contains("pyright not started (strict"),
        "{through_daemon}"
    );
    assert!(!exists(&s.ran), "pyright-langserver ran through the daemon");
    let _ = at_a_terminal("--no-daemon");
    assert!(exists(&s.ran), "pyright-langserver did not run in process");
    s.stop();
}

/// Runs a command line under `script`, whose child has a pseudo-terminal
/// for stdin, with this command's environment and directory.
trait UnderScript {
    fn output_of_script(&mut self, line: &str) -> std::process::Output;
}

impl UnderScript for std::process::Command {
    fn output_of_script(&mut self, line: &str) -> std::process::Output {
        let mut script = std::process::Command::new("script");
        script.args(["-qec", line, "/dev/null"]);
        for (key, value) in self.get_envs() {
            match value {
                Some(value) => script.env(key, value),
                None => script.env_remove(key),
            };
        }
        if let Some(dir) = self.get_current_dir() {
            script.current_dir(dir);
        }
        script
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("script: {e}"))
    }
}
