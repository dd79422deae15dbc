//! The evidence log through `squiggle serve`, `squiggle mcp` and the
//! daemon: each surface's edit leaves a `change` record naming it
//! (`service` and the method; `mcp`, the client's `clientInfo.name` and
//! the tool; `cli` and the command, sent to the daemon), and a log
//! that cannot be written (its path a directory) never fails the edit on
//! any of them: the file is written and the answer is the edit's.

use std::path::PathBuf;

use serde_json::{Value, json};
use squiggle::evidence::Record;

use super::records;
use crate::support;
use crate::support::fake_server::FakeServer;
use crate::support::scratch::Scratch;
use crate::support::service::{Framing, Service};

/// A workspace whose user configuration runs the fake on `.fk` files and
/// turns the evidence log on, at the returned path.
fn workspace() -> (Scratch, PathBuf) {
    let ws = Scratch::bare();
    let log = ws.outer.join("state/evidence.jsonl");
    let user = format!(
        "[lsp.evidence]\npath = {}\n{}",
        support::fake_server::toml_string(&log.display().to_string()),
        FakeServer::new(json!({"diagnosticMode": "pull"})).toml("fake"),
    );
    std::fs::create_dir_all(ws.config_home.join("squiggle")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(ws.config_home.join("squiggle/config.toml"), user)
        .unwrap_or_else(|e| panic!("{e}"));
    ws.write("a.fk", "one\n");
    ws.write("b.fk", "two\n");
    (ws, log)
}

fn serve(ws: &Scratch) -> Service {
    let mut command = ws.command(&["serve", "--root"]);
    command.arg(&ws.root);
    Service::spawn(&mut command, Framing::Headers)
}

/// `squiggle mcp` on `ws`, initialized as the client `evidence-test`.
fn mcp(ws: &Scratch) -> Service {
    let mut command = ws.command(&["mcp", "--root"]);
    command.arg(&ws.root);
    let mut mcp = Service::spawn(&mut command, Framing::Lines);
    mcp.ok(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "evidence-test", "version": "0"}}),
    );
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    mcp.send_raw(initialized.to_string().as_bytes());
    mcp
}

/// `squiggle/edit` of `a.fk` through serve: `one` becomes an error.
fn serve_edit(serve: &mut Service) -> Value {
    serve.ok(
        "squiggle/edit",
        json!({"filePath": "a.fk", "oldString": "one", "newString": "@error(by-serve)"}),
    )
}

/// MCP `edit_file` of `b.fk`: `two` becomes an error.
fn mcp_edit(mcp: &mut Service) -> Value {
    let arguments = json!({"path": "b.fk", "old_string": "two", "new_string": "@error(by-mcp)"});
    mcp.ok(
        "tools/call",
        json!({"name": "edit_file", "arguments": arguments}),
    )
}

/// `squiggle edit` of a new `c.fk` (`three` becomes `fine`) through the
/// workspace's daemon, which is then stopped; the edit must succeed.
fn cli_edit_through_the_daemon(ws: &Scratch) {
    ws.write("c.fk", "three\n");
    let edit = [
        "edit",
        "c.fk",
        "--old-string",
        "three",
        "--new-string",
        "fine",
    ];
    let out = ws
        .command(&edit)
        .env_remove("SQUIGGLE_NO_DAEMON")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(0), "{}", support::both(&out));
    assert_eq!(read(ws, "c.fk"), "fine\n");
    let stopped = ws.daemon(&["stop"]);
    let said = support::both(&stopped);
    assert!(
        said.contains("stopped"),
        "the daemon served the edit: {said}"
    );
}

fn read(ws: &Scratch, name: &str) -> String {
    std::fs::read_to_string(ws.root.join(name)).unwrap_or_default()
}

/// `{surface, agent, tool, file, new_errors}` of every `change` record.
fn changes(all: &[Record]) -> Vec<Value> {
    all.iter()
        .filter_map(|r| match r {
            Record::Change(c) => Some(json!({
                "surface": c.head.surface,
                "agent": c.head.agent,
                "tool": c.head.tool,
                "file": c.files.first().map(|f| f.path.clone()),
                "new_errors": c.new_errors,
            })),
            _ => None,
        })
        .collect()
}

#[test]
fn serve_and_mcp_edits_leave_records_naming_their_surface() {
    let (ws, log) = workspace();
    let mut serve = serve(&ws);
    let answer = serve_edit(&mut serve);
    assert!(
        answer["feedback"].to_string().contains("by-serve"),
        "{answer}"
    );
    drop(serve);
    let mut mcp = mcp(&ws);
    let answer = mcp_edit(&mut mcp);
    assert_ne!(answer["isError"], true, "{answer}");
    drop(mcp);
    // The command line through its daemon: the daemon writes the record
    // for the origin the command sent.
    cli_edit_through_the_daemon(&ws);

    let all = records(&log);
    assert_eq!(
        changes(&all),
        [
            json!({"surface": "service", "agent": null, "tool": "squiggle/edit", "file": "a.fk", "new_errors": 1}),
            json!({"surface": "mcp", "agent": "evidence-test", "tool": "edit_file", "file": "b.fk", "new_errors": 1}),
            json!({"surface": "cli", "agent": null, "tool": "edit", "file": "c.fk", "new_errors": 0}),
        ],
        "{all:?}"
    );
    // Each change that introduced an error is followed by its regression.
    assert_eq!(all.len(), 5, "{all:?}");
    // Not under wine: no Python for Windows is on a reachable registry,
    // and wine cannot start the host's.
    if cfg!(unix) {
        super::validate(&[&log]);
    }
}

/// The log's path is a directory: each surface's edit (serve, MCP, the
/// daemon) is written and answered as an edit, not as a failure.
#[test]
fn a_log_that_cannot_be_written_fails_no_serve_mcp_or_daemon_edit() {
    let (ws, log) = workspace();
    std::fs::create_dir_all(&log).unwrap_or_else(|e| panic!("{e}"));
    let mut serve = serve(&ws);
    let answer = serve_edit(&mut serve);
    assert!(
        answer["feedback"].to_string().contains("by-serve"),
        "{answer}"
    );
    drop(serve);
    assert_eq!(read(&ws, "a.fk"), "@error(by-serve)\n");

    let mut mcp = mcp(&ws);
    let answer = mcp_edit(&mut mcp);
    assert_ne!(answer["isError"], true, "{answer}");
    assert!(answer.to_string().contains("by-mcp"), "{answer}");
    drop(mcp);
    assert_eq!(read(&ws, "b.fk"), "@error(by-mcp)\n");
    cli_edit_through_the_daemon(&ws);
}
