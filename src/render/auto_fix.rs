//! The lines that tell the model what auto-fix (`autoFix`) did after its
//! edit: every fix applied, with the lines it changed, and every fix tried
//! and reverted, with the reason. A file squiggle changed on its own is
//! never left unsaid.
//!
//! ```text
//! Auto-fix applied in src/app.ts: Add import from "./lib" (for [2:28] Cannot find name 'scale'.)
//!   @@ -0,0 +1 @@
//!   +import { scale } from "./lib";
//! Auto-fix tried and reverted in src/app.ts: Declare 'x' (for [3:1] Cannot find name 'x'.): it added an error: src/app.ts [5:3] Duplicate identifier 'x'.
//! ```
//!
//! Titles, messages, reasons and changed lines are escaped as messages
//! are; a diff shows at most [`MAX_DIFF_LINES`] lines, the rest counted.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Escape, escaped, sanitize};

/// The most lines of one fix's diff a reply shows.
pub const MAX_DIFF_LINES: usize = 8;

/// What became of one fix auto-fix found for an error the edit introduced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AutoFixOutcome {
    /// Applied and kept: the file's errors dropped and no error appeared.
    Kept,
    /// Applied, checked, and put back to the exact bytes before it.
    Reverted,
    /// Not applied (it edits a file the edit did not touch, or the disk
    /// no longer held the text it was computed for).
    Skipped,
}

/// One fix auto-fix tried, as a change's result carries it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AutoFix {
    /// The edited file the error is in (workspace-relative).
    pub file: String,
    /// The error, where it was when the fix was asked for.
    pub line: u32,
    pub column: u32,
    pub message: String,
    /// The server that offered the fix, and its title.
    pub server: String,
    pub title: String,
    pub outcome: AutoFixOutcome,
    /// What the fix changes: unified hunks (no context lines), each file's
    /// headed by `--- a/FILE` / `+++ b/FILE` when it edits more than one.
    pub diff: String,
    /// Why it was reverted or skipped; empty when kept.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
}

/// A reply's feedback with the auto-fix lines first, a blank line between
/// them and the blocks (the lines alone when there are no blocks).
pub fn with_auto_fixes(fixes: &[AutoFix], escape: Escape, feedback: String) -> String {
    let lines = render_auto_fixes(fixes, escape);
    match (lines.is_empty(), feedback.is_empty()) {
        (true, _) => feedback,
        (false, true) => lines,
        (false, false) => format!("{lines}\n{feedback}"),
    }
}

/// The auto-fix lines of a reply; `""` for none. Every line ends with `\n`.
pub fn render_auto_fixes(fixes: &[AutoFix], escape: Escape) -> String {
    let mut text = String::new();
    for fix in fixes {
        let one_line = |s: &str| {
            let s = sanitize::cut(s, sanitize::MAX_MESSAGE_CHARS);
            let s = sanitize::controls(&s, &sanitize::ONE_LINE).into_owned();
            escaped(s.trim(), escape).into_owned()
        };
        let verb = match fix.outcome {
            AutoFixOutcome::Kept => "applied in",
            AutoFixOutcome::Reverted => "tried and reverted in",
            AutoFixOutcome::Skipped => "not applied in",
        };
        text.push_str(&format!(
            "Auto-fix {verb} {}: {} (for [{}:{}] {})",
            one_line(&fix.file),
            one_line(&fix.title),
            fix.line,
            fix.column,
            one_line(&fix.message),
        ));
        if !fix.reason.is_empty() {
            text.push_str(": ");
            text.push_str(&one_line(&fix.reason));
        }
        text.push('\n');
        if fix.outcome != AutoFixOutcome::Kept {
            continue;
        }
        let lines: Vec<&str> = fix.diff.lines().collect();
        for line in lines.iter().take(MAX_DIFF_LINES) {
            // A changed line keeps its indentation: only its end is trimmed.
            let line = sanitize::cut(line, sanitize::MAX_MESSAGE_CHARS);
            let line = sanitize::controls(&line, &sanitize::ONE_LINE);
            text.push_str("  ");
            text.push_str(escaped(line.trim_end(), escape).as_ref());
            text.push('\n');
        }
        if lines.len() > MAX_DIFF_LINES {
            let more = lines.len() - MAX_DIFF_LINES;
            text.push_str(&format!("  ... and {more} more diff lines\n"));
        }
    }
    text
}
