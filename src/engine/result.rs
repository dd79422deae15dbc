//! What a change answers, on every surface: the text for the model and
//! its structure.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::report::ServerOutcome;
use super::reported::Reported;
use crate::baseline::Classification;
use crate::hidden::Hidden;
use crate::render::AutoFix;

/// What a wrapped tool returns: the text for the model plus structure. The
/// same type travels from the daemon to the CLI (`squiggle/edit` and
/// friends) and is an edit tool's MCP `structuredContent`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// `Edit applied successfully.` and the like.
    pub message: String,
    /// The rendered `<diagnostics>` feedback; empty when nothing to show.
    pub feedback: String,
    /// Every diagnostic of the touched files and of the other files the
    /// feedback reports on, before the render caps and the choice of what
    /// is new, each flagged `new` or not.
    pub diagnostics: Vec<Reported>,
    /// The worst verdict over the touched files and the other files.
    pub classification: Classification,
    /// Whether each touched file's "before" diagnostics were known (an
    /// earlier check of the text right before the change, the file as git
    /// has it, or none for a created file), so that `classification` can
    /// tell new errors from old ones.
    pub baseline_known: bool,
    /// How each server's wait ended, per file: the touched files, and the
    /// other files waited on (their importers).
    pub outcomes: BTreeMap<String, Vec<ServerOutcome>>,
    /// The files in `diagnostics` and `outcomes` that the mutation did not
    /// touch, sorted.
    pub other_files: Vec<String>,
    pub dry_run: bool,
    /// What auto-fix (`autoFix`) did after the edit: each fix it found for
    /// an error the edit introduced, kept, reverted or skipped, with what
    /// it changes. Empty when it is off or found nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub auto_fixes: Vec<AutoFix>,
    /// The diagnostics hidden by ignore rules or acknowledgements, each
    /// with `ignored: true`: in neither `diagnostics` nor the feedback
    /// (which counts them in one line), never an error of the verdict.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignored: Vec<Hidden>,
}

impl ToolResult {
    /// What the agent's tool returns: the message, then the feedback.
    pub fn text(&self) -> String {
        let feedback = self.feedback.trim_end();
        if feedback.is_empty() {
            self.message.clone()
        } else {
            format!("{}\n\n{feedback}", self.message)
        }
    }
}
