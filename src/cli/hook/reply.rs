//! The hook's reply: how much text each agent's context takes (the daemon
//! cuts its rendering to it, `maxChars`), and the JSON envelope the agents
//! read it from.

/// The most characters one reply puts into the model's context: a hook
/// must not flood it.
pub const MAX_CONTEXT_CHARS: usize = 10_000;
/// Codex CLI moves hook context above about 2,500 tokens out of the
/// conversation (a 9,971-character reply was cut mid-line with a warning,
/// Codex CLI 0.169.0); 5,000 characters stay below it even at two
/// characters a token.
pub const CODEX_MAX_CONTEXT_CHARS: usize = 5_000;

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
