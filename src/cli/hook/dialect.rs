//! Which host sent a hook event, told by the payload's shape rather than by
//! the command line: the command `init claude` writes runs unchanged in
//! Claude Code, VS Code's agent (which reads `.claude/settings.json`,
//! ignores matchers, and sends `hookEventName`, `sessionId` and camelCase
//! `tool_input.filePath`) and Copilot CLI. Each host's event is put into
//! one vocabulary ([`Event`]) and its common fields under the names the
//! rest of the hook reads (`hook_event_name`, `session_id`, `cwd`,
//! `stop_hook_active`); the tool's own fields stay as the host sent them,
//! for that host's planner.
//!
//! Deciding that an event needs nothing (a tool that changes no file, a
//! shell hook for another tool) reads the payload alone: no workspace, no
//! daemon. VS Code runs every hook on every tool call.

use serde_json::Value;

use super::Agent;

/// What an event asks of squiggle, whoever sent it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Event {
    /// Nothing: a tool that changes no file, an event squiggle does not use.
    Quiet,
    /// The session starts: warm the daemon.
    SessionStart,
    /// A shell command is about to run: snapshot the workspace.
    BeforeShell,
    /// A tool ran that changes files (or may: a shell command).
    AfterTool,
    /// The model is about to end its turn: the turn-end gate.
    TurnEnd,
    /// Gemini CLI is about to call the model: hand over the stashed block.
    BeforeModel,
}

/// The host whose shape `payload` has; `named` (the command line's agent)
/// when the shape says nothing else.
pub(crate) fn host(named: Agent, payload: &Value) -> Agent {
    if payload.get("hookEventName").is_some() && payload.get("hook_event_name").is_none() {
        return Agent::Vscode;
    }
    if payload.get("conversation_id").is_some() || payload.get("workspace_roots").is_some() {
        return Agent::Cursor;
    }
    if payload.get("clineVersion").is_some() || payload.get("hookName").is_some() {
        return Agent::Cline;
    }
    if payload.get("toolName").is_some() || payload.get("toolArgs").is_some() {
        return Agent::Copilot;
    }
    // Copilot CLI running Claude's hook files sends their shape with its
    // own result (`tool_result`; Claude Code's is `tool_response`) and
    // its tools' arguments, which name the file `path`.
    if payload.get("tool_result").is_some() && payload.get("tool_response").is_none() {
        return Agent::Copilot;
    }
    let tool = payload["tool_name"]
        .as_str()
        .unwrap_or("")
        .to_ascii_lowercase();
    if matches!(tool.as_str(), "create" | "edit") && payload.pointer("/tool_input/path").is_some() {
        return Agent::Copilot;
    }
    named
}

/// `payload` with its common fields under the shared names.
pub(crate) fn normalise(host: Agent, mut payload: Value) -> Value {
    let Some(map) = payload.as_object_mut() else {
        return payload;
    };
    let copy = |map: &mut serde_json::Map<String, Value>, from: &str, to: &str| {
        if !map.contains_key(to)
            && let Some(v) = map.get(from).cloned()
        {
            map.insert(to.to_string(), v);
        }
    };
    match host {
        Agent::Vscode | Agent::Copilot => {
            copy(map, "hookEventName", "hook_event_name");
            copy(map, "sessionId", "session_id");
            copy(map, "stopHookActive", "stop_hook_active");
            copy(map, "transcriptPath", "transcript_path");
            if host == Agent::Copilot && !map.contains_key("hook_event_name") {
                // Copilot CLI's camelCase payloads carry no event name:
                // told by their documented fields.
                let name = if map.contains_key("toolResult") {
                    "postToolUse"
                } else if map.contains_key("toolName") {
                    "preToolUse"
                } else if map.contains_key("source") {
                    "sessionStart"
                } else {
                    "agentStop"
                };
                map.insert("hook_event_name".into(), Value::String(name.into()));
            }
        }
        Agent::Cursor => {
            copy(map, "conversation_id", "session_id");
            let root = map["workspace_roots"].get(0).cloned();
            if !map.contains_key("cwd")
                && let Some(root) = root
            {
                map.insert("cwd".into(), root);
            }
            // Cursor counts the follow-ups it has sent instead.
            let looped = map.get("loop_count").and_then(Value::as_u64).unwrap_or(0) > 0;
            map.insert("stop_hook_active".into(), Value::Bool(looped));
        }
        Agent::Cline => {
            copy(map, "taskId", "session_id");
            let root = map["workspaceRoots"].get(0).cloned();
            if !map.contains_key("cwd")
                && let Some(root) = root
            {
                map.insert("cwd".into(), root);
            }
        }
        _ => {}
    }
    payload
}

/// What a (normalised) event of `host` asks for.
pub(crate) fn event(host: Agent, payload: &Value) -> Event {
    let name = payload["hook_event_name"]
        .as_str()
        .or_else(|| payload["hookName"].as_str())
        .unwrap_or("");
    let tool = tool_name(host, payload);
    let kind = |tool: &str| tool_kind(host, tool);
    match (host, name) {
        (_, "SessionStart" | "sessionStart" | "agent_start") => Event::SessionStart,
        (Agent::Gemini, "BeforeModel") => Event::BeforeModel,
        (Agent::Gemini, "AfterAgent") => Event::TurnEnd,
        (Agent::Gemini, "BeforeTool") => before_shell(kind(tool)),
        (Agent::Gemini, "AfterTool") | (Agent::Gemini, "") => after_tool(kind(tool)),
        (Agent::Cursor, "afterFileEdit") => Event::AfterTool,
        (Agent::Cursor, "beforeShellExecution") => Event::BeforeShell,
        (Agent::Cursor, "afterShellExecution") => Event::AfterTool,
        (Agent::Cursor, "stop") => Event::TurnEnd,
        (Agent::Cline, "tool_call") => before_shell(kind(tool)),
        (Agent::Cline, "tool_result") => after_tool(kind(tool)),
        (_, "Stop" | "agentStop") => Event::TurnEnd,
        (_, "PreToolUse" | "preToolUse") => before_shell(kind(tool)),
        (_, "PostToolUse" | "postToolUse" | "PostToolBatch" | "") => after_tool(kind(tool)),
        _ => Event::Quiet,
    }
}

/// What a tool does to files, as far as squiggle cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tool {
    /// Writes or edits files it names.
    Edit,
    /// Runs a shell command, which may change any file.
    Shell,
    /// Changes no file (reads, searches, fetches) or none squiggle checks.
    Other,
}

fn before_shell(tool: Tool) -> Event {
    if tool == Tool::Shell {
        Event::BeforeShell
    } else {
        Event::Quiet
    }
}

fn after_tool(tool: Tool) -> Event {
    if tool == Tool::Other {
        Event::Quiet
    } else {
        Event::AfterTool
    }
}

/// The tool an event is about, as the host names it.
fn tool_name(host: Agent, payload: &Value) -> &str {
    let name = match host {
        Agent::Copilot => payload["toolName"].as_str(),
        Agent::Cline => payload
            .pointer("/postToolUse/toolName")
            .or_else(|| payload.pointer("/preToolUse/toolName"))
            .or_else(|| payload.pointer("/tool_result/name"))
            .or_else(|| payload.pointer("/tool_call/name"))
            .and_then(Value::as_str),
        _ => None,
    };
    name.or_else(|| payload["tool_name"].as_str()).unwrap_or("")
}

/// Each host's own tool names. A payload without a tool (Claude Code's
/// `PostToolBatch`, Cursor's file events) counts as an edit; an unknown
/// tool changes no file.
pub(crate) fn tool_kind(host: Agent, tool: &str) -> Tool {
    if tool.is_empty() {
        return Tool::Edit;
    }
    let (edits, shells): (&[&str], &[&str]) = match host {
        Agent::Claude => (&["Write", "Edit", "MultiEdit"], &["Bash"]),
        Agent::Codex => (&["apply_patch"], &["Bash"]),
        Agent::Gemini => (&["write_file", "replace"], &["run_shell_command"]),
        Agent::Vscode => (super::vscode::EDIT_TOOLS, &["run_in_terminal"]),
        Agent::Copilot => (super::copilot::EDIT_TOOLS, &["bash", "powershell"]),
        Agent::Cursor => (&[], &[]),
        Agent::Cline => (super::cline::EDIT_TOOLS, &["execute_command", "bash"]),
        Agent::Qwen => (super::qwen::EDIT_TOOLS, super::qwen::SHELL_TOOLS),
    };
    // Copilot CLI names its tools in Claude's case (`Edit`) in Claude's
    // hook files, in its own (`edit`) in its own.
    let tool = if host == Agent::Copilot {
        std::borrow::Cow::Owned(tool.to_ascii_lowercase())
    } else {
        std::borrow::Cow::Borrowed(tool)
    };
    let tool = tool.as_ref();
    if edits.contains(&tool) {
        Tool::Edit
    } else if shells.contains(&tool) {
        Tool::Shell
    } else {
        Tool::Other
    }
}

/// The tool's name for the evidence log.
pub(crate) fn tool_label(agent: Agent, payload: &Value) -> Option<String> {
    let name = match agent {
        Agent::Copilot => payload["toolName"].as_str(),
        Agent::Cursor => payload["hook_event_name"].as_str(),
        Agent::Cline => payload
            .pointer("/tool_result/name")
            .or_else(|| payload.pointer("/postToolUse/toolName"))
            .and_then(Value::as_str),
        _ => payload["tool_name"].as_str(),
    };
    name.map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn seen(named: Agent, payload: Value) -> (Agent, Event) {
        let host = host(named, &payload);
        let payload = normalise(host, payload);
        (host, event(host, &payload))
    }

    #[test]
    fn vs_code_through_the_claude_command() {
        let edit = json!({"hookEventName": "PostToolUse", "sessionId": "s", "timestamp": "t",
            "tool_name": "replace_string_in_file", "tool_input": {"filePath": "/a.py"}});
        assert_eq!(seen(Agent::Claude, edit), (Agent::Vscode, Event::AfterTool));
        let read = json!({"hookEventName": "PostToolUse", "tool_name": "read_file"});
        assert_eq!(seen(Agent::Claude, read), (Agent::Vscode, Event::Quiet));
        let pre = json!({"hookEventName": "PreToolUse", "tool_name": "read_file"});
        assert_eq!(seen(Agent::Claude, pre), (Agent::Vscode, Event::Quiet));
        let shell = json!({"hookEventName": "PreToolUse", "tool_name": "run_in_terminal"});
        assert_eq!(
            seen(Agent::Claude, shell),
            (Agent::Vscode, Event::BeforeShell)
        );
        let stop = json!({"hookEventName": "Stop", "stop_hook_active": false});
        assert_eq!(seen(Agent::Claude, stop), (Agent::Vscode, Event::TurnEnd));
    }

    #[test]
    fn each_host_is_told_by_its_shape() {
        let claude = json!({"hook_event_name": "PostToolUse", "tool_name": "Edit"});
        assert_eq!(
            seen(Agent::Claude, claude),
            (Agent::Claude, Event::AfterTool)
        );
        let read = json!({"hook_event_name": "PostToolUse", "tool_name": "Read"});
        assert_eq!(seen(Agent::Claude, read), (Agent::Claude, Event::Quiet));
        let cursor = json!({"hook_event_name": "stop", "conversation_id": "c",
            "workspace_roots": ["/ws"], "status": "completed", "loop_count": 0});
        assert_eq!(seen(Agent::Claude, cursor), (Agent::Cursor, Event::TurnEnd));
        let copilot = json!({"sessionId": "s", "timestamp": 1, "cwd": "/ws",
            "toolName": "view", "toolArgs": "{}"});
        assert_eq!(
            seen(Agent::Copilot, copilot),
            (Agent::Copilot, Event::Quiet)
        );
        let cline = json!({"clineVersion": "3", "hookName": "tool_result", "taskId": "t",
            "workspaceRoots": ["/ws"], "postToolUse": {"toolName": "write_to_file"}});
        assert_eq!(seen(Agent::Cline, cline), (Agent::Cline, Event::AfterTool));
        let codex = json!({"hook_event_name": "Stop", "stop_hook_active": false});
        assert_eq!(seen(Agent::Codex, codex), (Agent::Codex, Event::TurnEnd));
        let gemini = json!({"hook_event_name": "AfterAgent", "stop_hook_active": false});
        assert_eq!(seen(Agent::Gemini, gemini), (Agent::Gemini, Event::TurnEnd));
        let qwen = json!({"hook_event_name": "PostToolUse", "tool_name": "edit",
            "tool_input": {"file_path": "/ws/a.py"}});
        assert_eq!(seen(Agent::Qwen, qwen), (Agent::Qwen, Event::AfterTool));
        let qwen = json!({"hook_event_name": "PostToolUse", "tool_name": "notebook_edit"});
        assert_eq!(seen(Agent::Qwen, qwen), (Agent::Qwen, Event::Quiet));
        let qwen = json!({"hook_event_name": "PreToolUse", "tool_name": "run_shell_command"});
        assert_eq!(seen(Agent::Qwen, qwen), (Agent::Qwen, Event::BeforeShell));
    }

    /// Copilot CLI 1.0.102 on Claude's hook file: Claude's names, its own
    /// tool arguments and result (as the real CLI sent them).
    #[test]
    fn copilot_cli_through_the_claude_command() {
        let edit = json!({"hook_event_name": "PostToolUse", "session_id": "s",
            "timestamp": "2026-11-28T18:00:00Z", "cwd": "/ws", "tool_name": "Edit",
            "tool_input": {"path": "/ws/a.py", "old_str": "x", "new_str": "y"},
            "tool_result": {"result_type": "success", "text_result_for_llm": "File updated."}});
        assert_eq!(
            seen(Agent::Claude, edit),
            (Agent::Copilot, Event::AfterTool)
        );
        let view = json!({"hook_event_name": "PostToolUse", "tool_name": "View",
            "tool_input": {"path": "/ws/a.py"}, "tool_result": {"result_type": "success"}});
        assert_eq!(seen(Agent::Claude, view), (Agent::Copilot, Event::Quiet));
    }

    #[test]
    fn common_fields_get_the_shared_names() {
        let cursor = normalise(
            Agent::Cursor,
            json!({"conversation_id": "c1", "workspace_roots": ["/ws"], "loop_count": 1}),
        );
        assert_eq!(cursor["session_id"], "c1");
        assert_eq!(cursor["cwd"], "/ws");
        assert_eq!(cursor["stop_hook_active"], true);
        let vscode = normalise(
            Agent::Vscode,
            json!({"hookEventName": "Stop", "sessionId": "s"}),
        );
        assert_eq!(vscode["hook_event_name"], "Stop");
        assert_eq!(vscode["session_id"], "s");
    }
}
