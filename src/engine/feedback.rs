//! What a wrapped tool answers after its mutation: the touched files checked
//! in one parallel wait (and, where the configuration says so, the files
//! that import them), each classified against what was known before, and
//! rendered. The structured result carries every diagnostic the rendered
//! feedback came from — other files included — and every (file, server)
//! outcome of both phases, so a program reading it misses nothing the model
//! is told.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::check::{FileInput, HeldOthers};
use super::report::{CheckReport, ServerOutcome};
use super::tools::Mode;
use super::{Engine, Mutation};
use crate::classify::{Classification, classify};
use crate::diagnostic::{Diagnostic, Severity};
use crate::mutex::lock;
use crate::render::{FileDiagnostics, ReportMode};

/// How many files' last-checked snapshots are kept: the baseline that
/// tells an edit's new errors from old ones. A document closed in its
/// server is reopened from disk, but a baseline dropped is lost, so these
/// outlive documents; the count bounds squiggle's memory over a long session
/// touching thousands of files.
pub const MAX_SNAPSHOTS: usize = 1024;

/// A file's text and diagnostics as last checked.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub text: Arc<str>,
    pub diagnostics: Vec<Diagnostic>,
    /// When it was taken: past [`MAX_SNAPSHOTS`] the oldest is dropped.
    pub taken: std::time::Instant,
}

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
    /// feedback reports on, before the render caps.
    pub diagnostics: Vec<Diagnostic>,
    /// The worst verdict over the touched files and the other files.
    pub classification: Classification,
    /// Whether the edit's "before" diagnostics were known (from an earlier
    /// check), so that `classification` can tell new errors from old ones.
    pub baseline_known: bool,
    /// How each server's wait ended, per file: the touched files, and the
    /// other files waited on (their importers).
    pub outcomes: BTreeMap<String, Vec<ServerOutcome>>,
    /// The files in `diagnostics` and `outcomes` that the mutation did not
    /// touch, sorted.
    pub other_files: Vec<String>,
    pub dry_run: bool,
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

/// One touched file: where it is, its text before (when it existed) and after.
pub(super) type Touched = (PathBuf, Option<String>, Arc<str>);

/// The spec's order of severity for a batch: the worst class wins.
const WORST_FIRST: [Classification; 5] = [
    Classification::NewErrors,
    Classification::BaselineError,
    Classification::WarningsOnly,
    Classification::Clean,
    Classification::LspUnavailable,
];

impl Engine {
    /// Checks the touched files in one parallel wait (with their importers
    /// when `otherFiles` says so for this kind of mutation), classifies
    /// against the last known diagnostics, and renders.
    pub(super) async fn feedback(
        self: &Arc<Self>,
        message: String,
        files: Vec<Touched>,
        mutation: Mutation,
        mode: Mode,
    ) -> ToolResult {
        let others = self.reports_other_files(mutation);
        let inputs = files
            .iter()
            .map(|(p, before, text)| FileInput {
                path: p.clone(),
                content: Some(text.clone()),
                before: before.as_deref().map(Arc::from),
            })
            .collect();
        // What the servers said of every other file before this edit: an
        // importer's error that was already there is not the edit's.
        let known_before = others.then(|| self.known_snapshot());
        let check = if others {
            self.check_with_dependents(inputs).await
        } else {
            self.check_files(inputs, HeldOthers::Skip).await
        };
        let mut result = ToolResult {
            message,
            feedback: String::new(),
            diagnostics: Vec::new(),
            classification: Classification::LspUnavailable,
            baseline_known: true,
            outcomes: BTreeMap::new(),
            other_files: Vec::new(),
            dry_run: mode == Mode::DryRun,
        };
        let mut classes = Vec::new();
        let edited = self.touched_blocks(&check, &files, &mut result, &mut classes);
        let known_before = known_before
            .map(|known| known.for_files(self, check.others.keys()))
            .unwrap_or_default();
        for (file, diagnostics) in &check.others {
            classes.extend(other_file_class(
                diagnostics,
                known_before.get(file).map_or(&[], Vec::as_slice),
            ));
            result.diagnostics.extend(diagnostics.iter().cloned());
        }
        for (file, outcomes) in &check.other_outcomes {
            let entry = result.outcomes.entry(file.clone()).or_default();
            entry.extend(outcomes.iter().cloned());
        }
        let touched: Vec<&String> = check.files.iter().map(|f| &f.file).collect();
        let mut other_files: Vec<String> = check
            .others
            .keys()
            .chain(check.other_outcomes.keys())
            .filter(|f| !touched.contains(f))
            .cloned()
            .collect();
        other_files.sort();
        other_files.dedup();
        result.other_files = other_files;
        result.classification = WORST_FIRST
            .into_iter()
            .find(|c| classes.contains(c))
            .unwrap_or(Classification::LspUnavailable);
        result.feedback = check.feedback_with(&edited, &self.render_options());
        result
    }

    /// The touched files' blocks, classified against their last snapshot;
    /// records their diagnostics and outcomes in `result` and the new
    /// snapshots in the history.
    fn touched_blocks(
        &self,
        check: &CheckReport,
        files: &[Touched],
        result: &mut ToolResult,
        classes: &mut Vec<Classification>,
    ) -> Vec<FileDiagnostics> {
        let report_mode = self.render_options().report;
        let mut edited = Vec::new();
        for (report, (path, before_text, after_text)) in check.files.iter().zip(files) {
            let previous = lock(&self.history).get(path).cloned();
            let before = previous.filter(|s| before_text.as_deref() == Some(&*s.text));
            result.baseline_known &= before.is_some() || before_text.is_none();
            let (before_diags, before_text) = before.map_or((Vec::new(), String::new()), |s| {
                (s.diagnostics, s.text.to_string())
            });
            let delta = classify(
                &before_diags,
                &before_text,
                &report.diagnostics,
                after_text,
                check.any_server(),
            );
            classes.push(delta.classification);
            let shown: Vec<Diagnostic> = match report_mode {
                ReportMode::All => report.diagnostics.clone(),
                ReportMode::New => delta
                    .introduced
                    .iter()
                    .map(|&i| report.diagnostics[i].clone())
                    .collect(),
            };
            let hidden = delta
                .baseline
                .iter()
                .filter(|&&i| report.diagnostics[i].severity == Severity::Error)
                .count();
            edited.push(FileDiagnostics {
                file: report.file.clone(),
                diagnostics: shown,
                baseline_hidden: hidden,
            });
            result
                .diagnostics
                .extend(report.diagnostics.iter().cloned());
            result
                .outcomes
                .insert(report.file.clone(), report.outcomes.clone());
            if !result.dry_run && check.any_server() {
                let mut history = lock(&self.history);
                let now = std::time::Instant::now();
                if history.len() >= MAX_SNAPSHOTS && !history.contains_key(path) {
                    let oldest = history
                        .iter()
                        .min_by_key(|(_, s)| s.taken)
                        .map(|(p, _)| p.clone());
                    if let Some(oldest) = oldest {
                        history.remove(&oldest);
                    }
                }
                history.insert(
                    path.clone(),
                    Snapshot {
                        text: after_text.clone(),
                        diagnostics: report.diagnostics.clone(),
                        taken: now,
                    },
                );
            }
        }
        edited
    }
}

/// The verdict on a file the mutation did not touch: new errors when it has
/// an error the servers did not report for it before the edit, an old error
/// when all its errors were there before, warnings only otherwise. A file
/// with nothing to report adds no verdict.
fn other_file_class(after: &[Diagnostic], before: &[Diagnostic]) -> Option<Classification> {
    let errors = || after.iter().filter(|d| d.severity == Severity::Error);
    let known = |d: &Diagnostic| {
        before.iter().any(|b| {
            b.line == d.line
                && b.column == d.column
                && b.severity == d.severity
                && b.message == d.message
        })
    };
    if errors().any(|d| !known(d)) {
        Some(Classification::NewErrors)
    } else if errors().next().is_some() {
        Some(Classification::BaselineError)
    } else if !after.is_empty() {
        Some(Classification::WarningsOnly)
    } else {
        None
    }
}
