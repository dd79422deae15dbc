//! What a session answers, one shape for every surface: the service's
//! methods and the MCP tools answer these types, each carrying the check
//! behind it shaped as an edit's result.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::baseline::Classification;
use crate::diagnostic::Diagnostic;
use crate::engine::tools::ToolResult;
use crate::sessions::SessionFile;

/// What opening, editing, evaluating or discarding a session answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionAnswer {
    /// The session's id (`s1`, `s2`, …).
    pub session: String,
    /// What happened, in one sentence.
    pub message: String,
    pub files: Vec<SessionFile>,
    /// Errors in the session's text (its files and the files that import
    /// them) that were not there when it opened: the delta.
    #[serde(default)]
    pub new_errors: Vec<Diagnostic>,
    /// The check behind the answer, shaped as an edit's: at open, the
    /// disk's state (the baseline); after an edit or an evaluation, the
    /// session's text against it (`dryRun: true`: nothing was written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<ToolResult>,
}

impl SessionAnswer {
    /// The text an agent reads: the message, then the feedback.
    pub fn text(&self) -> String {
        let mut text = self.message.clone();
        if let Some(result) = &self.result {
            let feedback = result.feedback.trim_end();
            if !feedback.is_empty() {
                text.push_str("\n\n");
                text.push_str(feedback);
            }
        }
        text
    }
}

/// One step of a chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChainStep {
    /// 1-based.
    pub step: usize,
    pub classification: Classification,
    /// Errors not there when the session opened, after this step.
    pub new_errors: Vec<Diagnostic>,
}

/// What a chain answers: each step evaluated, and where it stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChainAnswer {
    pub session: String,
    pub message: String,
    pub steps: Vec<ChainStep>,
    /// The step that added errors when the chain was told to stop there
    /// (it stays applied; the later steps were not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_at: Option<usize>,
    pub files: Vec<SessionFile>,
    /// The last step's check, as `evaluate` answers it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<ToolResult>,
}

impl ChainAnswer {
    pub fn text(&self) -> String {
        let mut text = self.message.clone();
        for step in &self.steps {
            text.push_str(&format!(
                "\nstep {}: {} ({} new error(s))",
                step.step,
                step.classification.as_str(),
                step.new_errors.len()
            ));
        }
        if let Some(result) = &self.result {
            let feedback = result.feedback.trim_end();
            if !feedback.is_empty() {
                text.push_str("\n\n");
                text.push_str(feedback);
            }
        }
        text
    }
}
