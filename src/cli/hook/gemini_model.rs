//! Gemini CLI HTML-escapes every AfterTool `additionalContext` (`<` and `>`
//! become `&lt;` and `&gt;`, `&` stays; Gemini CLI 0.61.0), so a block
//! handed over there reaches the model as `&lt;diagnostics file=…&gt;`, and
//! messages squiggle escaped arrive escaped twice. Its BeforeModel hook can
//! add messages to the next model request unescaped. So the AfterTool hook
//! leaves the block in a per-session file, and the BeforeModel hook takes
//! it and appends it as a user message to the request the model reads next.
//!
//! The text is rendered for a channel nobody escapes: the AfterTool hook
//! asks the daemon for `escape: "readable"` (`render::Escape::Readable`):
//! messages keep their own `<`, `>`, `&` and `"`; only a `<diagnostics` or
//! `</diagnostics` inside a message is escaped, so the block is still
//! delimited. Nothing is un-escaped here.

use std::path::PathBuf;

use serde_json::{Value, json};

/// The event the reply names.
pub const EVENT: &str = "BeforeModel";

/// The file an AfterTool hook leaves session `id`'s block in, or `None`
/// for an id that is not a plain name.
fn pending(id: &str) -> Option<PathBuf> {
    super::session_files::session_file("gemini", id, "txt")
}

/// Leaves `text` for the session's next model request; `false` when it
/// cannot (no session id, an unusable directory), and the caller falls
/// back to AfterTool's escaped channel.
pub fn stash(payload: &Value, text: &str) -> bool {
    let Some(path) = payload["session_id"].as_str().and_then(pending) else {
        return false;
    };
    // Two edits before one model call: both blocks go.
    let mut all = std::fs::read_to_string(&path).unwrap_or_default();
    all.push_str(text);
    super::session_files::write_session_file(&path, all.as_bytes())
}

/// The BeforeModel reply that appends the session's pending block to the
/// request, or `None` when nothing is pending. Gemini CLI merges the
/// returned messages into the request by position (text parts replaced in
/// order, function calls and responses kept), so every message comes back
/// unchanged and the block follows as one more user message.
pub fn before_model(payload: &Value) -> Option<String> {
    let path = payload["session_id"].as_str().and_then(pending)?;
    let text = std::fs::read_to_string(&path).ok()?;
    let _ = std::fs::remove_file(&path);
    let messages = payload["llm_request"]["messages"].as_array()?;
    if text.is_empty() {
        return None;
    }
    let mut messages = messages.clone();
    messages.push(json!({"role": "user", "content": text}));
    Some(
        json!({"hookSpecificOutput": {"hookEventName": EVENT,
            "llm_request": {"messages": messages}}})
        .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_session_ids_get_no_file() {
        assert!(pending("../x").is_none());
        assert!(pending("").is_none());
        assert!(pending("a1-b2_c3").is_some());
    }
}
