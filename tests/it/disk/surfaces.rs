//! `lib` gains a parameter on disk —
//! written by something other than squiggle (the agent's own edit tool,
//! `sed -i`) and never opened by it — and the next query about `main`, which
//! calls it, must report that call as an error; after `lib` is reverted on
//! disk, the next query must report `main` clean again. Before the disk was
//! synced, every surface answered one state behind, every time.
//!
//! One driver ([`follows_the_disk`]) asks a [`Surface`] for `main`'s errors
//! three times; each surface keeps one warm process for the three queries:
//! the per-workspace daemon behind `squiggle hook --file` and `squiggle
//! check` (asserted to have answered every one of them), `squiggle serve`
//! (`lsp/checkFile`) and `squiggle mcp` (`lsp_diagnostics`). Real
//! typescript-language-server and pyright. The engine-level test is
//! `tests/it/disk/changes.rs`.

use std::path::Path;
use std::process::{Output, Stdio};

use serde_json::{Value, json};

use crate::support;
use crate::support::service::{DEADLINE, Framing, Service, Workspace};
use crate::support::two_files::{Case, PYTHON, TYPESCRIPT};

/// Generous timeouts: a loaded CI machine must not turn a slow answer into a
/// wrong one (harmless in an untrusted workspace file). Under the daemon
/// client's 60 s and the test client's `DEADLINE`.
const TIMEOUTS: &str = "[lsp]\nfirstTouchTimeout = 40000\ndiagnosticTimeout = 20000\n";

/// The case's project in a fresh workspace with generous timeouts; `None`
/// (after a notice) when its server is missing and not required.
fn project(case: &Case) -> Option<Workspace> {
    let ws = case.project()?;
    ws.write(".squiggle.toml", TIMEOUTS);
    Some(ws)
}

/// One way of asking squiggle about a file.
trait Surface {
    /// The lines of `main`'s errors, as this surface reports them now.
    fn error_lines(&mut self, main: &str) -> Vec<u32>;
}

/// `lib` changes on disk, then changes back: `main`'s call is an error, then
/// clean again, on the next query each time.
fn follows_the_disk(ws: &Workspace, case: &Case, surface: &mut dyn Surface) {
    assert_eq!(
        surface.error_lines(case.main),
        [0u32; 0],
        "clean to begin with"
    );
    let original = case.change_lib(&ws.root);
    assert_eq!(
        surface.error_lines(case.main),
        [case.line],
        "the call in {} after {} gained a parameter on disk",
        case.main,
        case.lib
    );
    case.restore_lib(&ws.root, &original);
    assert_eq!(
        surface.error_lines(case.main),
        [0u32; 0],
        "stale after {} was reverted on disk",
        case.lib
    );
}

/// The `ERROR [line:column]` rows of `file`'s block in rendered feedback.
fn rendered_error_lines(text: &str, file: &str) -> Vec<u32> {
    let open = format!("<diagnostics file=\"{file}\">");
    let Some(start) = text.find(&open) else {
        return Vec::new();
    };
    let body = &text[start + open.len()..];
    let body = &body[..body.find("</diagnostics>").unwrap_or(body.len())];
    body.lines()
        .filter_map(|row| row.strip_prefix("ERROR ["))
        .filter_map(|rest| rest.split(':').next()?.parse().ok())
        .collect()
}

/// The lines of the error-severity entries of a JSON diagnostics list (the
/// service and MCP both say `error`, as their schemas do).
fn json_error_lines(diagnostics: &Value) -> Vec<u32> {
    diagnostics
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| d["severity"] == "error")
        .filter_map(|d| d["line"].as_u64())
        .map(|l| l as u32)
        .collect()
}

/// A surface that runs `squiggle ARGS FILE` once per query and reads its
/// stdout; the per-workspace daemon answers it, in the workspace's private
/// runtime dir. Dropping it stops the daemon.
struct ThroughDaemon<'a> {
    ws: &'a Workspace,
    args: &'static [&'static str],
    queries: u64,
}

impl ThroughDaemon<'_> {
    fn squiggle(&self, args: &[&str]) -> Output {
        self.ws
            .command(args)
            .arg("--root")
            .arg(&self.ws.root)
            .env_remove("SQUIGGLE_NO_DAEMON")
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("run squiggle {args:?}: {e}"))
    }

    /// What the daemon's log says, for failure messages.
    fn log(&self) -> String {
        let mut text = String::new();
        for entry in std::fs::read_dir(&self.ws.runtime_dir)
            .into_iter()
            .flatten()
        {
            for file in walk(&entry.map(|e| e.path()).unwrap_or_default()) {
                if file.extension().is_some_and(|e| e == "log") {
                    text += &std::fs::read_to_string(&file).unwrap_or_default();
                }
            }
        }
        text
    }

    /// Asserts that one daemon answered every query, with `server` running.
    fn assert_warm(&self, server: &str) {
        let status = self.squiggle(&["daemon", "status"]);
        let text = String::from_utf8_lossy(&status.stdout);
        let requests = format!("requests   {}", self.queries + 1);
        assert!(
            text.lines().any(|l| l.trim() == requests),
            "not every query went through the daemon:\n{text}"
        );
        let row = format!(" server     {server} ");
        assert!(
            text.lines()
                .any(|l| l.contains(&row) && l.contains(" active ")),
            "{server} is not running in the daemon:\n{text}"
        );
    }
}

fn walk(path: &Path) -> Vec<std::path::PathBuf> {
    if !path.is_dir() {
        return vec![path.to_path_buf()];
    }
    let entries = std::fs::read_dir(path).into_iter().flatten().flatten();
    entries.flat_map(|e| walk(&e.path())).collect()
}

impl Surface for ThroughDaemon<'_> {
    fn error_lines(&mut self, main: &str) -> Vec<u32> {
        let mut args = self.args.to_vec();
        args.push(main);
        let out = self.squiggle(&args);
        self.queries += 1;
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "squiggle {args:?} failed ({}):\n{stdout}\n{}\ndaemon log:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr),
            self.log()
        );
        rendered_error_lines(&stdout, main)
    }
}

impl Drop for ThroughDaemon<'_> {
    fn drop(&mut self) {
        let stop = self.squiggle(&["daemon", "stop"]);
        if !stop.status.success() && !std::thread::panicking() {
            panic!("daemon stop failed: {stop:?}");
        }
    }
}

fn through_daemon(case: &Case, args: &'static [&'static str]) {
    let Some(ws) = project(case) else {
        return;
    };
    let mut surface = ThroughDaemon {
        ws: &ws,
        args,
        queries: 0,
    };
    follows_the_disk(&ws, case, &mut surface);
    surface.assert_warm(case.server);
}

/// `squiggle serve`, asked with `lsp/checkFile`.
impl Surface for Service {
    fn error_lines(&mut self, main: &str) -> Vec<u32> {
        json_error_lines(&self.ok("lsp/checkFile", json!({ "filePath": main })))
    }
}

fn serve(case: &Case) {
    let Some(ws) = project(case) else {
        return;
    };
    let mut service = Service::start(&ws);
    follows_the_disk(&ws, case, &mut service);
    service.ok("lsp/shutdown", Value::Null);
}

/// `squiggle mcp` over stdio (one JSON message a line), asked with
/// `lsp_diagnostics`. The protocol itself is covered with the official SDK
/// in `tests/it/mcp/python.rs`; this is just enough of a client to ask.
struct Mcp(Service);

impl Mcp {
    fn start(ws: &Workspace) -> Mcp {
        let mut command = ws.command(&["mcp", "--root"]);
        command.arg(&ws.root);
        let mut mcp = Service::spawn(&mut command, Framing::Lines);
        mcp.ok(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "disk_surfaces", "version": "0"}
            }),
        );
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        mcp.send_raw(initialized.to_string().as_bytes());
        Mcp(mcp)
    }
}

impl Surface for Mcp {
    fn error_lines(&mut self, main: &str) -> Vec<u32> {
        let result = self.0.ok(
            "tools/call",
            json!({"name": "lsp_diagnostics", "arguments": {"path": main}}),
        );
        assert_ne!(result["isError"], true, "lsp_diagnostics failed: {result}");
        let files = &result["structuredContent"]["files"];
        let file = files
            .as_array()
            .into_iter()
            .flatten()
            .find(|f| f["path"] == main);
        file.map(|f| json_error_lines(&f["diagnostics"]))
            .unwrap_or_default()
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        // Closing stdin ends the session; squiggle stops its servers, then
        // exits (the service's own drop kills it after the bound).
        self.0.close_stdin();
        support::poll_until(DEADLINE, || matches!(self.0.child.try_wait(), Ok(Some(_))));
    }
}

fn mcp(case: &Case) {
    let Some(ws) = project(case) else {
        return;
    };
    let mut mcp = Mcp::start(&ws);
    follows_the_disk(&ws, case, &mut mcp);
}

#[test]
fn hook_file_typescript() {
    through_daemon(&TYPESCRIPT, &["hook", "--file"]);
}

#[test]
fn hook_file_python() {
    through_daemon(&PYTHON, &["hook", "--file"]);
}

#[test]
fn check_typescript() {
    through_daemon(&TYPESCRIPT, &["check"]);
}

#[test]
fn check_python() {
    through_daemon(&PYTHON, &["check"]);
}

#[test]
fn serve_typescript() {
    serve(&TYPESCRIPT);
}

#[test]
fn serve_python() {
    serve(&PYTHON);
}

#[test]
fn mcp_lsp_diagnostics_typescript() {
    mcp(&TYPESCRIPT);
}

#[test]
fn mcp_lsp_diagnostics_python() {
    mcp(&PYTHON);
}
