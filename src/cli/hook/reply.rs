//! The hook's reply: the same `<diagnostics>` text the wrapped tools render
//! (edited files first, then other files), capped for the agent's context,
//! and the JSON envelope the agents read it from.

use std::path::Path;

use crate::engine::CheckReport;
use crate::render::RenderOptions;

/// The most characters one reply puts into the model's context: a hook
/// must not flood it.
pub const MAX_CONTEXT_CHARS: usize = 10_000;
/// Codex CLI moves hook context above about 2,500 tokens out of the
/// conversation (a 9,971-character reply was cut mid-line with a warning,
/// Codex CLI 0.169.0); 5,000 characters stay below it even at two
/// characters a token.
pub const CODEX_MAX_CONTEXT_CHARS: usize = 5_000;

const TRUNCATED: &str = "... (truncated)\n";
const CLOSE: &str = "</diagnostics>\n";

/// The rendered feedback for a check, `""` when there is nothing to show.
/// With `report = "new"`, diagnostics the hook saw at its last look at a
/// file are left out (see `baseline`). Otherwise the text is
/// `CheckReport::feedback`'s, unknowns line included.
pub fn feedback(report: &CheckReport, opts: &RenderOptions, root: &Path, max: usize) -> String {
    let edited = super::baseline::apply(report.file_blocks(), root, opts.report);
    cap(report.feedback_with(&edited, opts), max)
}

/// Cuts `text` to at most `max` characters at a line boundary, closing a
/// `<diagnostics>` block left open and ending with `... (truncated)`.
pub fn cap(text: String, max: usize) -> String {
    if text.chars().count() <= max {
        return text;
    }
    let budget = max.saturating_sub(CLOSE.len() + TRUNCATED.len());
    let mut out = String::new();
    let mut used = 0;
    let mut open = false;
    for line in text.split_inclusive('\n') {
        let n = line.chars().count();
        if used + n > budget {
            break;
        }
        used += n;
        out.push_str(line);
        if line.starts_with("<diagnostics ") {
            open = true;
        } else if line.starts_with("</diagnostics>") {
            open = false;
        }
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if open {
        out.push_str(CLOSE);
    }
    out.push_str(TRUNCATED);
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_kept_whole() {
        assert_eq!(cap("a\nb\n".into(), 100), "a\nb\n");
    }

    #[test]
    fn long_text_is_cut_at_a_line_closing_the_open_block() {
        let mut text = String::from(
            "LSP errors detected in this file, please fix:\n<diagnostics file=\"a.py\">\n",
        );
        for i in 0..1000 {
            text.push_str(&format!("ERROR [{i}:1] something is wrong here\n"));
        }
        text.push_str("</diagnostics>\n");
        let out = cap(text, 1000);
        assert!(out.chars().count() <= 1000, "{}", out.len());
        assert!(
            out.ends_with(" something is wrong here\n</diagnostics>\n... (truncated)\n"),
            "{out}"
        );
        assert!(out.starts_with(
            "LSP errors detected in this file, please fix:\n<diagnostics file=\"a.py\">\nERROR [0:1]"
        ));
        assert!(out.lines().all(|l| !l.is_empty()));
    }

    #[test]
    fn the_reply_envelope() {
        let v: serde_json::Value =
            serde_json::from_str(&additional_context("PostToolUse", "x <y>\n")).unwrap_or_default();
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PostToolUse");
        assert_eq!(v["hookSpecificOutput"]["additionalContext"], "x <y>\n");
    }
}
