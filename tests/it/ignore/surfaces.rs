//! The same rules and acknowledgements through the long-lived surfaces:
//! `squiggle/check` (what the hooks send) through `serve` and through
//! the daemon, which follows a rule written while it runs, and MCP's `lsp_diagnostics`,
//! `lsp_acknowledge` and `edit_file`.

use serde_json::{Value, json};

use super::{messages, workspace};
use crate::support;
use crate::support::fake_server::FakeServer;
use crate::support::service::{DEADLINE, Framing, Service, Workspace};

fn text(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}

#[test]
fn the_hooks_method_answers_what_a_rule_hides_with_ignored_true() {
    let ws = Workspace::new(json!({}));
    ws.write("a.fk", "@error[E1](noisy)\n@error(real)\n");
    let mut svc = Service::start(&ws);
    let before = svc.ok("squiggle/check", json!({"filePaths": ["a.fk"]}));
    assert_eq!(
        messages(&before["diagnostics"]),
        ["noisy", "real"],
        "{before}"
    );
    assert!(before.get("ignored").is_none(), "{before}");
    assert_eq!(svc.ok("lsp/shutdown", json!({})), Value::Null);
    assert_eq!(svc.wait(), Some(0));

    let fake = FakeServer::new(json!({})).toml("fake");
    let rules = format!("[lsp]\nignore = [{{ code = \"E1\" }}]\n\n{fake}");
    ws.write(".squiggle.toml", &rules);
    let mut svc = Service::start(&ws);
    let after = svc.ok("squiggle/check", json!({"filePaths": ["a.fk"]}));
    assert_eq!(messages(&after["diagnostics"]), ["real"], "{after}");
    assert_eq!(messages(&after["ignored"]), ["noisy"], "{after}");
    assert_eq!(after["ignored"][0]["ignored"], true, "{after}");
    assert_eq!(after["ignored"][0]["code"], "E1", "{after}");
    let feedback = text(&after["feedback"]);
    assert!(
        feedback.ends_with("real\n</diagnostics>\n1 diagnostic hidden by ignore rules\n"),
        "{feedback}"
    );
    assert_eq!(svc.ok("lsp/shutdown", json!({})), Value::Null);
    assert_eq!(svc.wait(), Some(0));
}

/// The daemon follows its configuration files: a rule written while it
/// runs holds from the next request on (`squiggle check` through it, the
/// hooks' method).
#[test]
fn the_daemon_follows_a_rule_written_while_it_runs() {
    let (ws, _) = workspace("");
    ws.write("a.fk", "@error[E1](noisy)\n@error(real)\n");
    let check = || {
        let out = ws.command(&["check", "a.fk", "--json"]).output();
        let out = out.unwrap_or_else(|e| panic!("{e}"));
        serde_json::from_slice::<Value>(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", support::both(&out)))
    };
    let before = check();
    ws.write(".squiggle.toml", "[lsp]\nignore = [{ code = \"E1\" }]\n");
    let after = check();
    let status = ws.daemon(&["status", "--json"]);
    let out = ws.daemon(&["stop"]);
    assert!(out.status.success(), "{}", support::both(&out));
    let status: Value = serde_json::from_slice(&status.stdout).unwrap_or_default();
    assert_eq!(
        status["running"], true,
        "the checks went through the daemon: {status}"
    );
    assert_eq!(before["summary"]["errors"], 2, "{before}");
    assert_eq!(after["summary"]["errors"], 1, "{after}");
    assert_eq!(messages(&after["ignored"]), ["noisy"], "{after}");
}

/// Claude Code's PostToolUse hook: the block without what a rule hides,
/// and the line counting it.
#[test]
fn the_claude_code_hook_shows_the_count_not_the_hidden() {
    let (ws, _) = workspace("ignore = [{ code = \"E1\" }]");
    let file = ws.write("a.fk", "@error[E1](noisy)\n@error(real)\n");
    let payload = ws.claude_event(
        "Edit",
        json!({"file_path": file.display().to_string(), "old_string": "a", "new_string": "b"}),
    );
    let mut command = ws.command(&["hook", "claude"]);
    command
        .env("HOME", &ws.outer)
        .env("SQUIGGLE_NO_DAEMON", "1");
    let out = support::output_with_stdin(&mut command, payload.to_string());
    assert_eq!(out.status.code(), Some(0), "{}", support::both(&out));
    let reply: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", support::both(&out)));
    assert_eq!(
        text(&reply["hookSpecificOutput"]["additionalContext"]),
        "LSP errors detected in this file, please fix:\n<diagnostics file=\"a.fk\">\nERROR [2:1] real\n</diagnostics>\n1 diagnostic hidden by ignore rules\n",
        "{reply}"
    );
}

/// `squiggle mcp` over stdio, just enough of a client to call tools.
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
                "clientInfo": {"name": "ignore", "version": "0"}
            }),
        );
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        mcp.send_raw(initialized.to_string().as_bytes());
        Mcp(mcp)
    }

    fn call(&mut self, name: &str, arguments: Value) -> Value {
        let result = self
            .0
            .ok("tools/call", json!({"name": name, "arguments": arguments}));
        assert_ne!(result["isError"], true, "{name} failed: {result}");
        result
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        self.0.close_stdin();
        support::poll_until(DEADLINE, || matches!(self.0.child.try_wait(), Ok(Some(_))));
    }
}

fn content_text(result: &Value) -> String {
    text(&result["content"][0]["text"]).to_string()
}

#[test]
fn mcp_hides_ignored_and_acknowledged_diagnostics_until_the_line_changes() {
    let (ws, _) = workspace("ignore = [{ code = \"E1\" }]");
    ws.write(
        "a.fk",
        "@error[E1](noisy)\nx @error[E5](false-positive)\n@error(real)\n",
    );
    let mut mcp = Mcp::start(&ws);

    let listed = mcp.call("lsp_diagnostics", json!({"path": "a.fk"}));
    let structured = &listed["structuredContent"];
    assert_eq!(
        messages(&structured["files"][0]["diagnostics"]),
        ["false-positive", "real"],
        "{listed}"
    );
    assert_eq!(messages(&structured["ignored"]), ["noisy"], "{listed}");
    assert_eq!(structured["ignored"][0]["ignored"], true, "{listed}");
    assert!(
        content_text(&listed).contains("1 diagnostic hidden by ignore rules"),
        "{listed}"
    );

    let acked = mcp.call(
        "lsp_acknowledge",
        json!({"path": "a.fk", "line": 2, "reason": "the loader defines it"}),
    );
    assert_eq!(
        acked["structuredContent"]["acknowledged"]["code"], "E5",
        "{acked}"
    );

    let listed = mcp.call("lsp_diagnostics", json!({"path": "a.fk"}));
    let structured = &listed["structuredContent"];
    assert_eq!(
        messages(&structured["files"][0]["diagnostics"]),
        ["real"],
        "{listed}"
    );
    let ignored = structured["ignored"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let reasons: Vec<&Value> = ignored.iter().map(|d| &d["acknowledged"]).collect();
    assert!(
        reasons.contains(&&json!("the loader defines it")),
        "{listed}"
    );
    assert!(
        content_text(&listed).contains("2 diagnostics hidden by ignore rules and acknowledgements"),
        "{listed}"
    );

    // An edit elsewhere keeps it hidden; one of its line shows it again.
    let kept = mcp.call(
        "edit_file",
        json!({"path": "a.fk", "old_string": "@error(real)", "new_string": "fixed"}),
    );
    let done = &kept["structuredContent"];
    assert!(
        done.get("diagnostics")
            .is_none_or(|d| messages(d).is_empty()),
        "{kept}"
    );
    assert!(
        text(&done["feedback"]).contains("2 diagnostics hidden"),
        "{kept}"
    );
    let changed = mcp.call(
        "edit_file",
        json!({"path": "a.fk", "old_string": "x @error", "new_string": "y @error"}),
    );
    let done = &changed["structuredContent"];
    assert_eq!(
        messages(&done["diagnostics"]),
        ["false-positive"],
        "{changed}"
    );
    assert_eq!(messages(&done["ignored"]), ["noisy"], "{changed}");
    assert!(
        text(&done["feedback"]).contains("false-positive"),
        "{changed}"
    );
}
