//! The hook's reply: how much text each agent's context takes (the daemon
//! cuts its rendering to it, `maxChars`), and the JSON envelope the agents
//! read it from.

use serde_json::Value;

use super::Agent;

/// The most characters one reply puts into the model's context: a hook
/// must not flood it.
pub const MAX_CONTEXT_CHARS: usize = 10_000;
/// Codex CLI moves hook context above about 2,500 tokens out of the
/// conversation (a 9,971-character reply was cut mid-line with a warning,
/// Codex CLI 0.169.0); 5,000 characters stay below it even at two
/// characters a token.
pub const CODEX_MAX_CONTEXT_CHARS: usize = 5_000;

/// Who gets a reply after a tool, and whether their session has fallen
/// back to the next channel (a block of it did not reach the model).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Answer {
    pub agent: Agent,
    pub fallback: bool,
}

/// How `host` takes `text` after a tool (`event`, as its payload named
/// it), or `None` where it reads no reply there and the block waits for
/// the turn's end: Cursor (`afterFileEdit` output is not read). Copilot
/// CLI reads only a top-level `additionalContext` (1.0.102, in either of
/// its hook formats; `hookSpecificOutput` is ignored).
pub fn after_tool(host: Agent, event: &str, text: &str) -> Option<String> {
    match host {
        Agent::Cursor => None,
        Agent::Copilot => Some(serde_json::json!({"additionalContext": text}).to_string()),
        Agent::Cline => {
            Some(serde_json::json!({"cancel": false, "contextModification": text}).to_string())
        }
        _ => Some(additional_context(event, text)),
    }
}

/// The turn-end gate's reply, which keeps `host`'s turn going with `text`:
/// Claude Code reads it as context of its `Stop`; Codex (`Stop`, whose
/// output allows no other field), Gemini CLI (`AfterAgent`), VS Code
/// (`Stop`), Copilot CLI (`agentStop`) and Qwen Code (`Stop`) as a blocking decision whose
/// reason is the next prompt; Cursor as a follow-up message. `None` for a
/// host with no such event.
pub fn turn_end(host: Agent, text: &str) -> Option<String> {
    match host {
        Agent::Claude => Some(additional_context("Stop", text)),
        Agent::Codex | Agent::Gemini | Agent::Vscode | Agent::Copilot | Agent::Qwen => {
            Some(serde_json::json!({"decision": "block", "reason": text}).to_string())
        }
        Agent::Cursor => Some(serde_json::json!({"followup_message": text}).to_string()),
        Agent::Cline => None,
    }
}

/// `{"hookSpecificOutput":{"hookEventName":…,"additionalContext":…}}`, the
/// reply shape Claude Code, Codex and Gemini CLI all read extra context from.
pub fn additional_context(event: &str, text: &str) -> String {
    serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": event,
            "additionalContext": text,
        }
    })
    .to_string()
}

/// Gives the agent the feedback `text` in the format it reads after a
/// tool (Gemini's is stashed for its next model call instead, in the
/// readable form it was rendered in).
pub(super) fn reply_to(answer: Answer, payload: &Value, text: &str) {
    let agent = answer.agent;
    if text.is_empty() {
        return;
    }
    if answer.fallback && matches!(agent, Agent::Claude | Agent::Vscode) {
        // Its context did not reach the model: the tool's own feedback does.
        super::emit(&serde_json::json!({"decision": "block", "reason": text}).to_string());
        super::delivery::handed_over(agent, payload, text);
        return;
    }
    let event = match agent {
        Agent::Claude if payload["hook_event_name"] == super::claude::BATCH_EVENT => {
            super::claude::BATCH_EVENT
        }
        Agent::Codex => super::codex::EVENT,
        Agent::Gemini => {
            if super::gemini_model::stash(payload, text) {
                return;
            }
            super::gemini::EVENT
        }
        _ => super::claude::EVENT,
    };
    if let Some(reply) = after_tool(agent, event, text) {
        super::emit(&reply);
        super::delivery::handed_over(agent, payload, text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reply_envelope() {
        let v: serde_json::Value =
            serde_json::from_str(&additional_context("PostToolUse", "x <y>\n")).unwrap_or_default();
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PostToolUse");
        assert_eq!(v["hookSpecificOutput"]["additionalContext"], "x <y>\n");
    }
}
