//! A fix through the command line and MCP, with the fake server offering
//! one quick fix that edits two files (`a.fk`'s error and an import line
//! in `b.fk`): `squiggle fix --dry-run` writes nothing and says what the
//! fix would do; the fix is all or none — with `b.fk` read-only neither
//! file is written, and once it is writable both are; MCP `lsp_apply_fix`
//! applies it end to end.

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
    ws.command(&["fix", "a.fk", "--line", "1"])
        .args(args)
        .env("SQUIGGLE_NO_DAEMON", "1")
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

#[test]
fn a_fix_over_two_files_writes_both_or_neither() {
    let ws = workspace();
    let b = ws.root.join("b.fk");
    set_read_only(&b, true);
    let out = fix(&ws, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", support::both(&out));
    let said = support::both(&out);
    assert!(said.contains("b.fk"), "the refusal names the file: {said}");
    assert_eq!(texts(&ws), (A.to_string(), B.to_string()), "{said}");

    set_read_only(&b, false);
    let out = fix(&ws, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", support::both(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("Fix applied: Fill in the thing (changed a.fk, b.fk)"),
        "{stdout}"
    );
    assert_eq!(texts(&ws), (A_FIXED.to_string(), B_FIXED.to_string()));
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
