//! `squiggle hook` for the hosts told by their payload's shape: VS Code's
//! agent through the very command `init claude` writes, Cursor's turn end,
//! and a tool that changes no file answered before any workspace or
//! daemon is touched.

use std::process::Output;

use serde_json::{Value, json};

use crate::support::fake_server::{FakeServer, squiggle_toml};
use crate::support::output_with_stdin;
use crate::support::scratch::{Scratch, scratch_type};

scratch_type!(Workspace);

impl Workspace {
    fn new() -> Workspace {
        Workspace::with_lsp("")
    }

    /// The fake server, with `lsp` lines in the `[lsp]` table.
    fn with_lsp(lsp: &str) -> Workspace {
        let ws = Workspace(Scratch::with_git_root());
        let fake = FakeServer::new(json!({"diagnosticMode": "pull"}));
        ws.write(".squiggle.toml", &squiggle_toml(lsp, &fake));
        ws.trust();
        ws
    }

    /// The evidence log at its default place (`XDG_STATE_HOME`, as `hook`
    /// sets it), with `evidence = true`.
    fn evidence_log(&self) -> Vec<Value> {
        std::fs::read_to_string(self.outer.join("state/squiggle/evidence.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// `squiggle hook ARGS` with the daemon allowed (in the scratch's
    /// private runtime dir), as a host runs it.
    fn hook(&self, args: &[&str], stdin: &Value) -> Output {
        let mut command = self.command(&["hook"]);
        command
            .args(args)
            .env("HOME", &self.outer)
            .env("XDG_STATE_HOME", self.outer.join("state"))
            .env("SQUIGGLE_DAEMON_IDLE_MS", "60000")
            .env_remove("RUST_LOG");
        output_with_stdin(&mut command, stdin.to_string())
    }

    /// VS Code's PostToolUse payload for `tool` with `tool_input`.
    fn vscode_event(&self, tool: &str, tool_input: Value) -> Value {
        json!({
            "timestamp": "2026-11-28T08:00:00.000Z",
            "hookEventName": "PostToolUse",
            "sessionId": "vscode-session-1",
            "transcript_path": self.outer.join("vscode.jsonl").display().to_string(),
            "cwd": self.root.display().to_string(),
            "tool_name": tool,
            "tool_input": tool_input,
            "tool_use_id": "call_1",
            "tool_response": ""
        })
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The command line `squiggle init claude` writes, as VS Code runs it.
const INIT_CLAUDE: &[&str] = &["claude"];

#[test]
fn vscode_replace_string_in_file_through_the_claude_command_gets_the_block() {
    let ws = Workspace::new();
    let file = ws.write("app.fk", "fn main\n@error(app is broken)\n");
    let payload = ws.vscode_event(
        "replace_string_in_file",
        json!({"filePath": file.display().to_string(), "oldString": "fn", "newString": "fn main",
            "explanation": "rename"}),
    );
    let out = ws.hook(INIT_CLAUDE, &payload);
    ws.daemon(&["stop"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let reply: Value = serde_json::from_str(text(&out.stdout).trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", text(&out.stdout)));
    assert_eq!(
        reply["hookSpecificOutput"]["hookEventName"], "PostToolUse",
        "{reply}"
    );
    assert_eq!(
        reply["hookSpecificOutput"]["additionalContext"],
        "LSP errors detected in this file, please fix:\n<diagnostics file=\"app.fk\">\nERROR [2:1] app is broken\n</diagnostics>\n",
        "{reply}"
    );
}

#[test]
fn vscode_read_file_gets_nothing_and_starts_no_daemon() {
    let ws = Workspace::new();
    let file = ws.write("app.fk", "@error(broken)\n");
    // A configuration the hook would complain of, had it read it.
    ws.write(".squiggle.toml", "this is = = not toml");
    let payload = ws.vscode_event(
        "read_file",
        json!({"filePath": file.display().to_string(), "startLine": 1, "endLine": 10}),
    );
    let out = ws.hook(INIT_CLAUDE, &payload);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(text(&out.stderr), "");
    let pre = json!({"hookEventName": "PreToolUse", "sessionId": "s", "timestamp": "t",
        "cwd": ws.root.display().to_string(), "tool_name": "read_file", "tool_input": {}});
    let out = ws.hook(INIT_CLAUDE, &pre);
    assert_eq!(
        (text(&out.stdout), text(&out.stderr)),
        (String::new(), String::new())
    );
    // No daemon socket, no session file: nothing under the runtime dir.
    let left: Vec<_> = std::fs::read_dir(&ws.runtime_dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "the hook left {left:?}");
}

#[test]
fn cursor_stop_follows_up_with_the_turns_errors_once() {
    let ws = Workspace::new();
    let file = ws.write("app.fk", "fn main\n@error(the turn broke it)\n");
    let common = json!({"conversation_id": "cursor-conv-1", "generation_id": "g1",
        "workspace_roots": [ws.root.display().to_string()]});
    let mut edit = common.clone();
    edit["hook_event_name"] = json!("afterFileEdit");
    edit["file_path"] = json!(file.display().to_string());
    edit["edits"] =
        json!([{"old_string": "fn main\n", "new_string": "fn main\n@error(the turn broke it)\n"}]);
    let after = ws.hook(&["cursor"], &edit);
    // Cursor reads no afterFileEdit output: the block waits for stop.
    assert_eq!(text(&after.stdout), "", "stderr: {}", text(&after.stderr));
    let mut stop = common.clone();
    stop["hook_event_name"] = json!("stop");
    stop["status"] = json!("completed");
    stop["loop_count"] = json!(0);
    let out = ws.hook(&["cursor"], &stop);
    let again = ws.hook(&["cursor"], &stop);
    ws.daemon(&["stop"]);
    let reply: Value = serde_json::from_str(text(&out.stdout).trim()).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {} {}",
            text(&out.stdout),
            text(&out.stderr)
        )
    });
    let message = reply["followup_message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("Before you finish: this turn introduced 1 error"),
        "{reply}"
    );
    assert!(message.contains("ERROR [2:1] the turn broke it"), "{reply}");
    assert_eq!(text(&again.stdout), "", "held twice");
}

/// A Claude Code session whose transcript lacks the block the last hook
/// handed over (a host that dropped it): the next edit's block comes as
/// PostToolUse `decision: "block"` with the block as `reason`, the hook
/// says so on stderr, and `doctor --hooks` counts it not delivered.
#[test]
fn a_block_missing_from_the_transcript_moves_the_session_to_the_next_channel() {
    let ws = Workspace::with_lsp("evidence = true");
    let transcript = ws.outer.join("transcript.jsonl");
    std::fs::write(
        &transcript,
        "{\"type\":\"user\",\"message\":\"Make the change.\"}\n",
    )
    .unwrap_or_else(|e| panic!("write: {e}"));
    let file = ws.write("a.fk", "x @error(first)\n");
    let edit = ws.claude_event(
        "Edit",
        json!({"file_path": file.display().to_string(), "old_string": "x", "new_string": "x"}),
    );
    let first = ws.hook(INIT_CLAUDE, &edit);
    assert!(
        text(&first.stdout).contains("additionalContext"),
        "{first:?}"
    );
    // The host recorded the tool's result and the model's next turn, but
    // not squiggle's context.
    let mut record = std::fs::read_to_string(&transcript).unwrap_or_default();
    record.push_str(&format!("{}\n", tool_result("toolu_01")));
    record.push_str("{\"type\":\"assistant\",\"message\":\"Next.\"}\n");
    std::fs::write(&transcript, record).unwrap_or_else(|e| panic!("write: {e}"));
    ws.write("a.fk", "x @error(second)\n");
    let second = ws.hook(INIT_CLAUDE, &edit);
    let doctor = ws
        .command(&["doctor", "--hooks"])
        .env("HOME", &ws.outer)
        .output();
    ws.daemon(&["stop"]);
    let reply: Value = serde_json::from_str(text(&second.stdout).trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {second:?}"));
    assert_eq!(reply["decision"], "block", "{reply}");
    assert!(
        reply["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("ERROR [1:3] second"),
        "{reply}"
    );
    assert!(
        text(&second.stderr).contains("this session now reports through PostToolUse decision"),
        "{}",
        text(&second.stderr)
    );
    let doctor = doctor.map(|o| text(&o.stdout)).unwrap_or_default();
    assert!(
        doctor.contains(
            "claude abc123: 0 delivered, 1 not delivered, 0 unknown, 1 not judged yet; falls back to PostToolUse"
        ),
        "{doctor}"
    ); // The verdict is in the evidence log, with the channel it moved to.
    let deliveries: Vec<Value> = ws
        .evidence_log()
        .into_iter()
        .filter(|r| r["kind"] == "delivery")
        .collect();
    assert_eq!(deliveries.len(), 1, "{deliveries:?}");
    assert_eq!(deliveries[0]["delivered"], "no");
    assert_eq!(deliveries[0]["fallback"], true);
    assert_eq!(deliveries[0]["agent"], "claude-code");
    assert_eq!(deliveries[0]["session"], "abc123");
}

/// Parallel tool calls: the host runs each call's hook before it records
/// any result, so the next hook finds no model turn after the block yet.
/// A host that writes its record late appends the model turn that asked
/// for the tool after the hand-over: that turn precedes the call's result
/// and decides nothing. The block stays pending, the session keeps its
/// channel, and `doctor --hooks` says the blocks are not judged yet.
#[test]
fn a_block_the_host_has_not_recorded_yet_stays_pending() {
    let ws = Workspace::new();
    let transcript = ws.outer.join("transcript.jsonl");
    std::fs::write(
        &transcript,
        "{\"type\":\"user\",\"message\":\"Make the change.\"}\n",
    )
    .unwrap_or_else(|e| panic!("write: {e}"));
    let file = ws.write("a.fk", "x @error(first)\n");
    let edit = ws.claude_event(
        "Edit",
        json!({"file_path": file.display().to_string(), "old_string": "x", "new_string": "x"}),
    );
    let first = ws.hook(INIT_CLAUDE, &edit);
    assert!(
        text(&first.stdout).contains("additionalContext"),
        "{first:?}"
    );
    let asked = json!({"type": "assistant", "message": {"content": [
        {"type": "tool_use", "id": "toolu_01", "name": "Edit"}]}});
    let mut record = std::fs::read_to_string(&transcript).unwrap_or_default();
    record.push_str(&format!("{asked}\n"));
    std::fs::write(&transcript, record).unwrap_or_else(|e| panic!("write: {e}"));
    ws.write("a.fk", "x @error(second)\n");
    let second = ws.hook(INIT_CLAUDE, &edit);
    let doctor = ws
        .command(&["doctor", "--hooks"])
        .env("HOME", &ws.outer)
        .output();
    ws.daemon(&["stop"]);
    assert!(
        text(&second.stdout).contains("additionalContext"),
        "{second:?}"
    );
    assert_eq!(text(&second.stderr), "");
    let doctor = doctor.map(|o| text(&o.stdout)).unwrap_or_default();
    assert!(
        doctor
            .contains("claude abc123: 0 delivered, 0 not delivered, 0 unknown, 2 not judged yet\n"),
        "{doctor}"
    );
}

/// Claude Code's record of a tool call's result.
fn tool_result(id: &str) -> Value {
    json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": id, "content": "The file has been updated."}]}})
}

/// The same session with a transcript that holds the block: delivered,
/// and the next block keeps the usual channel.
#[test]
fn a_block_in_the_transcript_counts_as_delivered() {
    let ws = Workspace::new();
    let transcript = ws.outer.join("transcript.jsonl");
    let file = ws.write("a.fk", "x @error(first)\n");
    let edit = ws.claude_event(
        "Edit",
        json!({"file_path": file.display().to_string(), "old_string": "x", "new_string": "x"}),
    );
    let first = ws.hook(INIT_CLAUDE, &edit);
    // The host's record of the conversation, with the hook's context in it.
    let line = json!({"type": "attachment", "attachment": {"type": "hook_additional_context",
        "content": [text(&first.stdout)]}});
    let turn = json!({"type": "assistant", "message": "Next."});
    std::fs::write(&transcript, format!("{line}\n{turn}\n"))
        .unwrap_or_else(|e| panic!("write: {e}"));
    let second = ws.hook(INIT_CLAUDE, &edit);
    ws.daemon(&["stop"]);
    assert!(
        text(&second.stdout).contains("additionalContext"),
        "{second:?}"
    );
    assert_eq!(text(&second.stderr), "");
}
