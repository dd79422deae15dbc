//! Classifying what an edit changed: which diagnostics the edit introduced
//! and which were already there.
//!
//! An agent that sees twenty errors after a one-line edit needs to know
//! whether it caused them. We compare the diagnostics reported before the edit
//! with those reported after, carrying each old diagnostic's line through a
//! line diff of the two texts so that inserting lines above an error does not
//! make it look new.
//!
//! Matching rules. An `after` diagnostic is *baseline* when some not yet
//! matched `before` diagnostic has the same severity, code and message, and
//! its line, mapped through the diff, is the `after` line. A line the diff
//! kept unchanged maps to its new position and the column must match too. A
//! line inside a replaced hunk maps by position within the hunk (the `k`th old
//! line to the `k`th new line) and the column may differ, since the line
//! itself changed. A deleted line maps nowhere, so code that moved to another
//! place in the file reports its errors as introduced: when in doubt we tell
//! rather than hide. Each `before` diagnostic matches at most once, and one on
//! the same column is preferred. Lines past the end of the old text (servers
//! put end-of-file errors there) keep their distance from the end.
//!
//! Requiring the same severity goes beyond the bare rule of code and message:
//! a warning that became an error is news.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use similar::{DiffOp, TextDiff};

use crate::diagnostic::{Diagnostic, Severity};

/// How an edit left the file, judged on error-level diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Classification {
    /// No diagnostics at all.
    Clean,
    /// Diagnostics, but no errors.
    WarningsOnly,
    /// At least one error the edit introduced.
    NewErrors,
    /// Errors, all of which were there before the edit.
    BaselineError,
    /// No language server could judge the file.
    LspUnavailable,
}

impl Classification {
    pub fn as_str(self) -> &'static str {
        match self {
            Classification::Clean => "clean",
            Classification::WarningsOnly => "warnings_only",
            Classification::NewErrors => "new_errors",
            Classification::BaselineError => "baseline_error",
            Classification::LspUnavailable => "lsp_unavailable",
        }
    }
}

/// The verdict on one edit. Every index into `after` is in exactly one of
/// `introduced` and `baseline`, each list ascending.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EditDelta {
    pub classification: Classification,
    /// Indices into `after` of diagnostics the edit introduced.
    pub introduced: Vec<usize>,
    /// Indices into `after` of diagnostics that were there before.
    pub baseline: Vec<usize>,
}

/// A pathological diff gives up on minimality after this long; the result is
/// still a correct diff, only coarser.
const DIFF_TIMEOUT: Duration = Duration::from_millis(200);

/// `before` diagnostics were reported for `before_text`, `after` for
/// `after_text` (same file). See the module doc for the matching rules.
pub fn classify(
    before: &[Diagnostic],
    before_text: &str,
    after: &[Diagnostic],
    after_text: &str,
    lsp_available: bool,
) -> EditDelta {
    let lines = LineMap::new(before_text, after_text);
    let mapped: Vec<Option<Mapped>> = before.iter().map(|b| lines.map(b.line)).collect();
    let mut used = vec![false; before.len()];
    let mut introduced = Vec::new();
    let mut baseline = Vec::new();

    for (i, a) in after.iter().enumerate() {
        let candidates = before.iter().enumerate().filter(|&(j, b)| {
            !used[j]
                && mapped[j]
                    .is_some_and(|m| m.line == a.line && (m.changed || b.column == a.column))
                && b.severity == a.severity
                && b.code == a.code
                && b.message == a.message
        });
        let mut first = None;
        let mut same_column = None;
        for (j, b) in candidates {
            first.get_or_insert(j);
            if b.column == a.column {
                same_column = Some(j);
                break;
            }
        }
        match same_column.or(first) {
            Some(j) => {
                used[j] = true;
                baseline.push(i);
            }
            None => introduced.push(i),
        }
    }

    let is_error = |&i: &usize| after[i].severity == Severity::Error;
    let classification = if !lsp_available {
        Classification::LspUnavailable
    } else if after.is_empty() {
        Classification::Clean
    } else if introduced.iter().any(is_error) {
        Classification::NewErrors
    } else if baseline.iter().any(is_error) {
        Classification::BaselineError
    } else {
        Classification::WarningsOnly
    };
    EditDelta {
        classification,
        introduced,
        baseline,
    }
}

/// Where an old line went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Mapped {
    /// 1-based line in the new text.
    line: u32,
    /// The line's text changed (or is past the end), so columns may move.
    changed: bool,
}

/// The old-to-new line mapping of one line diff.
struct LineMap {
    /// Indexed by 0-based old line.
    old: Vec<Option<Mapped>>,
    new_len: usize,
}

impl LineMap {
    fn new(before_text: &str, after_text: &str) -> LineMap {
        let diff = TextDiff::configure()
            .timeout(DIFF_TIMEOUT)
            .diff_lines(before_text, after_text);
        let mut old = Vec::with_capacity(diff.old_slices().len());
        let at = |index: usize, changed: bool| {
            Some(Mapped {
                line: u32::try_from(index + 1).unwrap_or(u32::MAX),
                changed,
            })
        };
        for op in diff.ops() {
            match *op {
                DiffOp::Equal { new_index, len, .. } => {
                    old.extend((0..len).map(|k| at(new_index + k, false)))
                }
                DiffOp::Delete { old_len, .. } => old.extend((0..old_len).map(|_| None)),
                DiffOp::Insert { .. } => {}
                DiffOp::Replace {
                    old_len,
                    new_index,
                    new_len,
                    ..
                } => old.extend((0..old_len).map(|k| {
                    if k < new_len {
                        at(new_index + k, true)
                    } else {
                        None
                    }
                })),
            }
        }
        LineMap {
            old,
            new_len: diff.new_slices().len(),
        }
    }

    /// Maps a 1-based old line.
    fn map(&self, line: u32) -> Option<Mapped> {
        let index = (line as usize).saturating_sub(1);
        match self.old.get(index) {
            Some(mapped) => *mapped,
            None => {
                let past_end = index - self.old.len();
                Some(Mapped {
                    line: u32::try_from(self.new_len + past_end + 1).unwrap_or(u32::MAX),
                    changed: true,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests;
