//! Named pipes where the first round's vetting did not reach: a session
//! over one, a session's new file that became one before its commit, the
//! navigation and impact tools, the hook, a pipe anywhere in the workspace
//! (the importer scan read every file's head), the evidence log, `audit
//! --log` and a configuration file swapped for one while the daemon runs.
//! Each answers at once, refusing what it must, and the daemon still stops.
// Unix only: mkfifo has no counterpart in a Windows directory.
#![cfg(unix)]

use std::path::Path;

use serde_json::{Value, json};

use super::{
    IN_PROCESS, bounded, claude_edit, hook_context, squiggle, stderr, stop_daemon, workspace,
};
use crate::support::both;
use crate::support::service::{Framing, Service};

fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo").arg(path).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", path.display());
}

/// The fake, in pull mode, answering hover and document symbols.
fn navigable() -> Value {
    json!({
        "diagnosticMode": "pull",
        "capabilities": {"hoverProvider": true, "documentSymbolProvider": true, "referencesProvider": true},
        "responses": {"textDocument/hover": {"contents": "hi"}, "textDocument/documentSymbol": [], "textDocument/references": []},
    })
}

/// A pipe anywhere in the workspace: `write` of another file, through the
/// daemon and in process, `impact`, `audit --log` naming a pipe, and the
/// hook naming the pipe all end; the daemon stops.
#[test]
fn a_pipe_in_the_workspace_hangs_no_tool_and_no_hook() {
    let ws = workspace("", navigable());
    ws.write("a.fk", "fine\n");
    ws.write("b.fk", "uses a\n");
    mkfifo(&ws.root.join("p.fk"));
    for env in [&[][..], IN_PROCESS] {
        let out = squiggle(&ws, &["write", "a.fk"], env, b"still fine\n");
        assert_eq!(out.status.code(), Some(0), "write {env:?}: {}", both(&out));
    }
    let out = squiggle(&ws, &["impact", "p.fk"], &[], b"");
    assert!(stderr(&out).contains("named pipe"), "{}", both(&out));
    let out = squiggle(&ws, &["hook", "claude"], &[], &claude_edit(&ws, "p.fk"));
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    ws.write("a.fk", "@error(seen)\n");
    let out = squiggle(&ws, &["hook", "claude"], &[], &claude_edit(&ws, "a.fk"));
    assert!(hook_context(&out).contains("seen"), "{}", both(&out));
    let log = ws.root.join("p.fk").display().to_string();
    let out = squiggle(&ws, &["audit", "--log", &log], &[], b"");
    assert_eq!(out.status.code(), Some(2), "{}", both(&out));
    assert!(stderr(&out).contains("named pipe"), "{}", both(&out));
    stop_daemon(&ws);
}

/// A session over a pipe is refused naming it; a session's new file that
/// became a pipe before the commit makes the commit refuse; the service
/// answers `lsp/status` all along.
#[test]
fn sessions_refuse_pipes_at_open_and_at_commit() {
    let ws = workspace("", navigable());
    mkfifo(&ws.root.join("p.fk"));
    let mut command = ws.command(&["serve", "--root"]);
    command.arg(&ws.root);
    let mut svc = Service::spawn(&mut command, Framing::Headers);
    let refused = svc.err("squiggle/sessionOpen", json!({"paths": ["p.fk"]}));
    let text = refused["message"].as_str().unwrap_or_default();
    assert!(
        text.contains("p.fk") && text.contains("named pipe"),
        "{refused}"
    );
    let opened = svc.ok("squiggle/sessionOpen", json!({"paths": ["n.fk"]}));
    let id = opened["session"].clone();
    svc.ok(
        "squiggle/sessionEdit",
        json!({"session": id, "edits": [{"filePath": "n.fk", "content": "new\n"}]}),
    );
    mkfifo(&ws.root.join("n.fk"));
    let refused = svc.err("squiggle/sessionCommit", json!({"session": id}));
    let text = refused["message"].as_str().unwrap_or_default();
    assert!(text.contains("n.fk"), "{refused}");
    svc.ok("lsp/status", json!(null));
}

/// The MCP navigation tools and `lsp_impact` asked about a pipe answer
/// (an error naming it), and the next call is answered too.
#[test]
fn mcp_navigation_over_a_pipe_answers() {
    let ws = workspace("", navigable());
    ws.write("a.fk", "fine\n");
    mkfifo(&ws.root.join("p.fk"));
    let mut command = ws.command(&["mcp", "--root"]);
    command.arg(&ws.root);
    let mut mcp = Service::spawn(&mut command, Framing::Lines);
    mcp.ok(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "pipes", "version": "0"}}),
    );
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    mcp.send_raw(initialized.to_string().as_bytes());
    let calls = [
        ("lsp_file_context", json!({"path": "p.fk"})),
        ("lsp_document_symbols", json!({"path": "p.fk"})),
        ("lsp_hover", json!({"path": "p.fk", "line": 1, "column": 1})),
        ("lsp_impact", json!({"path": "p.fk"})),
    ];
    for (name, arguments) in calls {
        let answer = mcp.call("tools/call", json!({"name": name, "arguments": arguments}));
        let text = answer.to_string();
        assert!(text.contains("named pipe"), "{name}: {text}");
    }
    let answer = mcp.ok("tools/call", json!({"name": "lsp_status", "arguments": {}}));
    assert_ne!(answer["isError"], true, "{answer}");
}

/// An evidence log that is a pipe: the edit goes on (and says the record
/// was lost); a `.squiggle.toml` swapped for a pipe under a running daemon
/// gives the hook one line on stderr and no reply, and once it is gone the
/// daemon answers again.
#[test]
fn an_evidence_log_or_configuration_that_is_a_pipe_hangs_nothing() {
    let pipe_log = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let log = pipe_log.path().join("evidence.jsonl");
    mkfifo(&log);
    let lsp = format!("\n[lsp.evidence]\npath = {:?}\n", log.display().to_string());
    let ws = workspace(&lsp, super::pull());
    ws.write("a.fk", "a\n");
    let edit = ["edit", "a.fk", "--old-string", "a", "--new-string", "b"];
    let out = squiggle(&ws, &edit, &[], b"");
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.fk"))
            .ok()
            .as_deref(),
        Some("b\n")
    );

    let config = ws.root.join(".squiggle.toml");
    mkfifo(&config);
    let mut command = ws.command(&["hook", "claude"]);
    command
        .env_remove("SQUIGGLE_NO_DAEMON")
        .env_remove("RUST_LOG");
    let out = bounded(&mut command, &claude_edit(&ws, "a.fk"));
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert!(out.stdout.is_empty(), "{}", both(&out));
    let text = stderr(&out);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("named pipe"), "{text}");
    std::fs::remove_file(&config).unwrap_or_else(|e| panic!("{e}"));
    ws.write("a.fk", "@error(seen)\n");
    let out = squiggle(&ws, &["hook", "claude"], &[], &claude_edit(&ws, "a.fk"));
    assert!(hook_context(&out).contains("seen"), "{}", both(&out));
    stop_daemon(&ws);
}

/// A fix whose edit also names a pipe (a server's URI, not the user's):
/// `squiggle fix`, in process and through the daemon, is refused naming
/// it, writes nothing, and the daemon still stops. It read the pipe, and
/// hung.
#[test]
fn a_fix_whose_edit_names_a_pipe_is_refused() {
    let uri = |root: &Path, name: &str| squiggle::uri::from_path(&root.join(name));
    let ws = workspace("", json!({}));
    let range = |c1: u32, c2: u32| json!({"start": {"line": 0, "character": c1}, "end": {"line": 0, "character": c2}});
    let edit = json!({"changes": {
        uri(&ws.root, "a.fk"): [{"range": range(8, 29), "newText": "1"}],
        uri(&ws.root, "p.fk"): [{"range": range(0, 0), "newText": "x"}],
    }});
    let script = json!({
        "diagnosticMode": "pull",
        "capabilities": {"codeActionProvider": {"codeActionKinds": ["quickfix"]}},
        "responses": {"textDocument/codeAction": [
            {"title": "Fill in", "kind": "quickfix", "isPreferred": true, "edit": edit}
        ]},
    });
    let config = format!(
        "[lsp]\n\n{}",
        crate::support::fake_server::FakeServer::new(script).toml("fake")
    );
    std::fs::write(ws.config_home.join("squiggle/config.toml"), config)
        .unwrap_or_else(|e| panic!("{e}"));
    let broken = "let x = @error(missing thing);\n";
    ws.write("a.fk", broken);
    mkfifo(&ws.root.join("p.fk"));
    for env in [IN_PROCESS, &[][..]] {
        let out = squiggle(&ws, &["fix", "a.fk", "--line", "1"], env, b"");
        assert_eq!(out.status.code(), Some(1), "{}", both(&out));
        assert!(stderr(&out).contains("named pipe"), "{}", both(&out));
        assert_eq!(
            std::fs::read_to_string(ws.root.join("a.fk"))
                .ok()
                .as_deref(),
            Some(broken)
        );
    }
    stop_daemon(&ws);
}
