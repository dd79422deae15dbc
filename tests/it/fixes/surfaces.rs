//! A fix through the command line and MCP, with the fake server offering
//! one quick fix that edits two files (`a.fk`'s error and an import line
//! in `b.fk`): `squiggle fix --dry-run` writes nothing and says what the
//! fix would do; the fix is all or none — with `b.fk` read-only neither
//! file is written (in process and through the daemon), and once it is
//! writable both are; with `b.fk` changed since the server read it, the
//! fix is refused saying so, or (with the disk watch the long-lived
//! engines run) computed for the text now; MCP `lsp_apply_fix` applies it
//! end to end.

use std::path::Path;

use serde_json::{Value, json};

use crate::support;
use crate::support::fake_server::FakeServer;
use crate::support::scratch::Scratch;
use crate::support::service::{Framing, Service};

const A: &str = "let x = @error(missing thing);\n";
const B: &str = "uses x\n";
const A_FIXED: &str = "let x = 1;\n";
const B_FIXED: &str = "import x;\nuses x\n";

/// The fake's one preferred quick fix: `a.fk`'s marker becomes `1`, and
/// `b.fk` gains an import line.
fn script(root: &Path) -> Value {
    let uri = |name: &str| squiggle::uri::from_path(&root.join(name));
    let range = |c1: u32, c2: u32| json!({"start": {"line": 0, "character": c1}, "end": {"line": 0, "character": c2}});
    let edit = json!({"changes": {
        uri("a.fk"): [{"range": range(8, 29), "newText": "1"}],
        uri("b.fk"): [{"range": range(0, 0), "newText": "import x;\n"}],
    }});
    json!({
        "diagnosticMode": "pull",
        "capabilities": {"codeActionProvider": {"codeActionKinds": ["quickfix"]}},
        "responses": {"textDocument/codeAction": [
            {"title": "Fill in the thing", "kind": "quickfix", "isPreferred": true, "edit": edit}
        ]},
    })
}

/// A workspace holding `a.fk` (an error) and `b.fk`, the fake configured in
/// the user's file (no workspace trust needed).
fn workspace() -> Scratch {
    let ws = Scratch::bare();
    ws.write("a.fk", A);
    ws.write("b.fk", B);
    std::fs::create_dir_all(ws.config_home.join("squiggle")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        ws.config_home.join("squiggle/config.toml"),
        FakeServer::new(script(&ws.root)).toml("fake"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    ws
}

/// `squiggle fix a.fk --line 1 ARGS…` in process.
fn fix(ws: &Scratch, args: &[&str]) -> std::process::Output {
    fix_through(ws, args, false)
}

/// `squiggle fix a.fk --line 1 ARGS…`, through the workspace's daemon
/// (started on demand) when `daemon`, else in process.
fn fix_through(ws: &Scratch, args: &[&str], daemon: bool) -> std::process::Output {
    let mut command = ws.command(&["fix", "a.fk", "--line", "1"]);
    command.args(args).env_remove("SQUIGGLE_NO_DAEMON");
    if !daemon {
        command.env("SQUIGGLE_NO_DAEMON", "1");
    }
    command
        .output()
        .unwrap_or_else(|e| panic!("squiggle fix: {e}"))
}

fn texts(ws: &Scratch) -> (String, String) {
    let read = |name: &str| std::fs::read_to_string(ws.root.join(name)).unwrap_or_default();
    (read("a.fk"), read("b.fk"))
}

fn set_read_only(path: &Path, read_only: bool) {
    let mut permissions = std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{e}"))
        .permissions();
    permissions.set_readonly(read_only);
    std::fs::set_permissions(path, permissions).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_dry_run_fix_writes_nothing_and_says_what_it_would_do() {
    let ws = workspace();
    let out = fix(&ws, &["--dry-run"]);
    assert_eq!(out.status.code(), Some(0), "{}", support::both(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with(
            "Dry run: the fix \"Fill in the thing\" applies cleanly to a.fk, b.fk; nothing was written."
        ),
        "{}",
        support::both(&out)
    );
    // The fixed text is clean: no error block follows.
    assert!(!stdout.contains("missing thing"), "{stdout}");
    assert_eq!(texts(&ws), (A.to_string(), B.to_string()));
}

/// In process and through a running daemon.
#[test]
fn a_fix_over_two_files_writes_both_or_neither() {
    let ws = workspace();
    let b = ws.root.join("b.fk");
    set_read_only(&b, true);
    for daemon in [false, true] {
        let out = fix_through(&ws, &[], daemon);
        assert_eq!(out.status.code(), Some(1), "{}", support::both(&out));
        let said = support::both(&out);
        assert!(said.contains("b.fk"), "the refusal names the file: {said}");
        assert_eq!(texts(&ws), (A.to_string(), B.to_string()), "{said}");
    }

    set_read_only(&b, false);
    let out = fix_through(&ws, &[], true);
    assert_eq!(out.status.code(), Some(0), "{}", support::both(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("Fix applied: Fill in the thing (changed a.fk, b.fk)"),
        "{stdout}"
    );
    assert_eq!(texts(&ws), (A_FIXED.to_string(), B_FIXED.to_string()));
    // The daemon served them: it is there to stop.
    let out = ws.daemon(&["stop"]);
    let said = support::both(&out);
    assert!(out.status.success() && said.contains("stopped"), "{said}");
}

#[test]
fn mcp_lsp_apply_fix_applies_the_fix() {
    let ws = workspace();
    let mut command = ws.command(&["mcp", "--root"]);
    command.arg(&ws.root);
    let mut mcp = Service::spawn(&mut command, Framing::Lines);
    mcp.ok(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fixes", "version": "0"}}),
    );
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    mcp.send_raw(initialized.to_string().as_bytes());
    let answer = mcp.ok(
        "tools/call",
        json!({"name": "lsp_apply_fix", "arguments": {"path": "a.fk", "line": 1}}),
    );
    assert_ne!(answer["isError"], true, "{answer}");
    let text = answer["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.starts_with("Fix applied: Fill in the thing (changed a.fk, b.fk)"),
        "{answer}"
    );
    assert!(!text.contains("missing thing"), "{text}");
    assert_eq!(texts(&ws), (A_FIXED.to_string(), B_FIXED.to_string()));
}

/// An engine over the fake, `a.fk` and `b.fk` open on the server, then
/// `b.fk` changed on disk by another writer; `watch`: with the disk watch
/// the long-lived engines run (daemon, `serve`, MCP). The fix's outcome
/// and the two files after.
async fn fix_after_another_writer(watch: bool) -> (Result<String, String>, (String, String)) {
    use squiggle::engine::fixes::Which;
    use squiggle::engine::tools::Mode;
    use squiggle::engine::{FileInput, HeldOthers};
    let ws = workspace();
    let mut config = squiggle::config::Config::default();
    config.servers.insert(
        "fake".into(),
        FakeServer::new(script(&ws.root)).to_override(),
    );
    let engine = support::engine(&ws.root, config);
    if watch {
        engine.watch_disk();
    }
    let both = vec![
        FileInput::on_disk(ws.root.join("a.fk")),
        FileInput::on_disk(ws.root.join("b.fk")),
    ];
    engine.check_files(both, HeldOthers::Skip).await;
    std::fs::write(ws.root.join("b.fk"), ELSEWHERE).unwrap_or_else(|e| panic!("{e}"));
    let which = Which::At {
        line: 1,
        column: None,
    };
    let fixed = engine.fix(&ws.root.join("a.fk"), &which, Mode::Apply).await;
    engine.shutdown().await;
    (
        fixed.map(|r| r.text()).map_err(|e| e.to_string()),
        texts(&ws),
    )
}

const ELSEWHERE: &str = "changed elsewhere\n";

/// Without a disk watch (a library's engine) the server still holds
/// `b.fk`'s old text: the fix it computed for that is refused, naming
/// `b.fk` as changed, and neither file is written — not `a.fk` alone, and
/// `b.fk`'s new text is kept. With the watch, the server is told first and
/// the fix applies to both files' text now.
#[tokio::test]
async fn a_fix_over_a_file_changed_since_the_server_read_it_writes_neither() {
    let (refused, after) = fix_after_another_writer(false).await;
    assert_eq!(
        refused,
        Err("b.fk changed on disk since fake read it; check it again, then ask for the fix again; nothing was written".to_string())
    );
    assert_eq!(after, (A.to_string(), ELSEWHERE.to_string()));

    let (applied, after) = fix_after_another_writer(true).await;
    assert!(
        applied.as_ref().is_ok_and(|t| t.starts_with("Fix applied")),
        "{applied:?}"
    );
    let b = format!("import x;\n{ELSEWHERE}");
    assert_eq!(after, (A_FIXED.to_string(), b));
}
