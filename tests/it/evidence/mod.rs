//! The evidence log through the binary, as an agent's
//! tools and hooks write it: `squiggle write` (the CLI) introduces an error
//! while a second server never publishes (a timed-out server), Claude
//! Code's hook reports the fix, `squiggle edit` introduces an error no
//! later change fixes. Every record validates against the schema
//! `docs/protocol.md` documents (Python's `jsonschema`), which is the one
//! the record types derive; the log is mode 600 and holds no file text or
//! message; `squiggle audit` names the error never fixed and who made it.

mod audit;
mod audit_edges;
mod surfaces;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};
use squiggle::evidence::Record;

use crate::support;
use crate::support::fake_server::FakeServer;
use crate::support::scratch::Scratch;

/// A workspace with two fake servers on `.fk` files — `fake` publishes
/// the `@error(…)` markers, `slow` never publishes — and the evidence log
/// on, at the returned path, through the user configuration.
fn workspace(messages: bool) -> (Scratch, PathBuf) {
    let ws = Scratch::bare();
    let log = ws.outer.join("state/evidence.jsonl");
    let fake = FakeServer::new(json!({}));
    let slow = FakeServer::new(json!({"fault": {"kind": "neverPublish"}}));
    let user = format!(
        "[lsp]\ndiagnosticTimeout = 300\nfirstTouchTimeout = 3000\n[lsp.evidence]\npath = {}\nmessages = {messages}\n{}{}",
        support::fake_server::toml_string(&log.display().to_string()),
        fake.toml("fake"),
        slow.toml("slow"),
    );
    std::fs::create_dir_all(ws.config_home.join("squiggle")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(ws.config_home.join("squiggle/config.toml"), user)
        .unwrap_or_else(|e| panic!("{e}"));
    (ws, log)
}

/// `squiggle ARGS` in `ws` without a daemon, `stdin` on its input.
fn squiggle(ws: &Scratch, args: &[&str], stdin: &str) -> Output {
    let mut command = ws.command(args);
    command.env("SQUIGGLE_NO_DAEMON", "1");
    support::output_with_stdin(&mut command, stdin)
}

fn records(log: &Path) -> Vec<Record> {
    std::fs::read_to_string(log)
        .unwrap_or_else(|e| panic!("{}: {e}", log.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Validates `logs` against the documented schema; `None` when Python's
/// `jsonschema` (from the MCP SDK's venv) is missing and may be.
fn validate(logs: &[&Path]) -> Option<()> {
    let python = support::mcp::tools().join("venv/bin/python");
    let python = support::mcp::require(python, "Python jsonschema (the MCP SDK's venv)")?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new(python)
        .arg(root.join("tests/clients/python/validate_evidence.py"))
        .arg(root.join("docs/protocol.md"))
        .args(logs)
        .output()
        .unwrap_or_else(|e| panic!("python: {e}"));
    assert!(out.status.success(), "{}", support::both(&out));
    Some(())
}

#[test]
fn changes_on_every_surface_leave_records_the_schema_accepts() {
    let (ws, log) = workspace(false);
    let a = ws.root.join("a.fk");
    let out = squiggle(&ws, &["write", "a.fk"], "@error(broken-name)\n");
    assert_eq!(out.status.code(), Some(0), "{}", support::both(&out));
    // The agent fixes it with its own tool; its hook reports the change.
    std::fs::write(&a, "fine\n").unwrap_or_else(|e| panic!("{e}"));
    let event = ws.claude_event(
        "Write",
        json!({"file_path": a.display().to_string(), "content": "fine\n"}),
    );
    let out = squiggle(&ws, &["hook", "claude"], &event.to_string());
    assert_eq!(out.status.code(), Some(0), "{}", support::both(&out));
    ws.write("b.fk", "start\n");
    let out = squiggle(
        &ws,
        &[
            "edit",
            "b.fk",
            "--old-string",
            "start",
            "--new-string",
            "@error(left-behind)",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", support::both(&out));

    let all = records(&log);
    let kinds: Vec<&str> = all
        .iter()
        .map(|r| match r {
            Record::Change(_) => "change",
            Record::DiagnosticRegression(_) => "regression",
            Record::Acknowledgement(_) => "acknowledgement",
            Record::Delivery(_) => "delivery",
        })
        .collect();
    assert_eq!(
        kinds,
        ["change", "regression", "change", "change", "regression"]
    );
    let Record::Change(first) = &all[0] else {
        unreachable!()
    };
    assert_eq!(
        serde_json::to_value(first).unwrap_or_default()["surface"],
        "cli"
    );
    assert_eq!(first.head.tool.as_deref(), Some("write"));
    assert_eq!((first.errors_after, first.new_errors), (1, 1));
    assert_eq!(first.files[0].path, "a.fk");
    assert!(first.files[0].created, "a.fk did not exist before");
    let servers: Vec<(String, Value)> = first
        .servers
        .iter()
        .map(|s| {
            (
                s.id.clone(),
                serde_json::to_value(s.outcome).unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        servers,
        [
            ("fake".to_string(), json!("answered")),
            ("slow".to_string(), json!("timed_out"))
        ]
    );
    let Record::Change(fix) = &all[2] else {
        unreachable!()
    };
    assert_eq!(fix.head.agent.as_deref(), Some("claude-code"));
    assert_eq!(fix.head.tool.as_deref(), Some("Write"));
    // A hook run in its own process (no daemon) is not told the text
    // before a Write: its errors before are not known, and say so.
    assert_eq!((fix.errors_before, fix.errors_after), (None, 0));

    // Nothing of the files' text or the servers' messages is in the log.
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    for secret in ["broken-name", "left-behind", "fine", "start"] {
        assert!(!text.contains(secret), "{secret} is in the log:\n{text}");
    }
    assert_eq!(support::file_mode(&log), Some(0o600));
    validate(&[&log]);
}

#[test]
fn messages_are_recorded_only_when_asked() {
    let (ws, log) = workspace(true);
    let out = squiggle(&ws, &["write", "a.fk"], "@error(broken-name)\n");
    assert_eq!(out.status.code(), Some(0), "{}", support::both(&out));
    let all = records(&log);
    let Some(Record::DiagnosticRegression(regression)) = all.get(1) else {
        panic!("{all:?}")
    };
    let messages = regression.messages.clone().unwrap_or_default();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_eq!(messages[0].message, "broken-name");
    assert_eq!(regression.files[0].lines, [1]);
    validate(&[&log]);
}

/// A log that cannot be written (its path is a directory): the edit goes
/// on, and one line on stderr says the record was lost — it was logged at
/// `warn`, below the default filter, so nothing said so.
#[test]
fn a_log_that_cannot_be_written_is_said_once_and_the_edit_goes_on() {
    let (ws, log) = workspace(false);
    std::fs::create_dir_all(&log).unwrap_or_else(|e| panic!("{e}"));
    ws.write("a.fk", "a\n");
    let out = ws
        .command(&["edit", "a.fk", "--old-string", "a", "--new-string", "b"])
        .env("SQUIGGLE_NO_DAEMON", "1")
        .env_remove("RUST_LOG")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(0), "{}", support::both(&out));
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.fk")).unwrap_or_default(),
        "b\n"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let said = stderr
        .lines()
        .filter(|l| l.contains("cannot write the evidence log"))
        .count();
    assert_eq!(said, 1, "{stderr}");
}
