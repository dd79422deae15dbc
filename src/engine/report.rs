//! A check's result: per file, the diagnostics and how each server's wait
//! ended; and as the renderer's input, one block per checked file and one per
//! other file. Every way in (tools, hooks, service, check) renders the same
//! report the same way.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;

use crate::diagnostic::{Diagnostic, Outcome};
use crate::render::{FileDiagnostics, RenderOptions, Unknown, render_feedback, render_unknown};

/// `text`, then (when `opts` asks and something is unknown) a blank line and
/// the line naming what.
fn with_unknown(mut text: String, unknown: &[Unknown], opts: &RenderOptions) -> String {
    if !opts.report_unknown {
        return text;
    }
    let notes = render_unknown(unknown);
    if !notes.is_empty() {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&notes);
    }
    text
}

/// How one server's wait ended for one file.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerOutcome {
    pub server: String,
    pub outcome: Outcome,
    pub elapsed_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The instance's project root (to match dependents to instances).
    #[serde(skip)]
    pub root: PathBuf,
    /// The server's `received_count()` once this file's change was written.
    #[serde(skip)]
    pub written_at: u64,
}

impl ServerOutcome {
    pub(super) fn without_server(outcome: Outcome, detail: String) -> ServerOutcome {
        ServerOutcome {
            server: String::new(),
            outcome,
            elapsed_ms: 0,
            detail: Some(detail),
            root: PathBuf::new(),
            written_at: 0,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileReport {
    /// Workspace-relative, or the path as given when outside.
    pub file: String,
    pub diagnostics: Vec<Diagnostic>,
    pub outcomes: Vec<ServerOutcome>,
    #[serde(skip)]
    pub text: Option<Arc<str>>,
    #[serde(skip)]
    pub canonical: Option<PathBuf>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckReport {
    pub files: Vec<FileReport>,
    /// Other files with diagnostics from the servers involved, by relative path.
    pub others: BTreeMap<String, Vec<Diagnostic>>,
    /// How each server's wait ended for each other file waited on (the
    /// importers of the edited files), by relative path.
    pub other_outcomes: BTreeMap<String, Vec<ServerOutcome>>,
}

impl CheckReport {
    /// Whether any server could answer for any file.
    pub fn any_server(&self) -> bool {
        self.files.iter().flat_map(|f| &f.outcomes).any(|o| {
            matches!(
                o.outcome,
                Outcome::Pulled | Outcome::Settled | Outcome::TimedOut | Outcome::ServerDead
            )
        })
    }

    /// The ids of the servers that answered for a checked file.
    pub(super) fn involved_servers(&self) -> HashSet<&str> {
        self.files
            .iter()
            .flat_map(|f| &f.outcomes)
            .map(|o| o.server.as_str())
            .collect()
    }

    /// The checked files' canonical paths.
    pub(super) fn checked_paths(&self) -> impl Iterator<Item = &PathBuf> {
        self.files.iter().filter_map(|f| f.canonical.as_ref())
    }
}

impl CheckReport {
    /// Every (file, server) pair whose diagnostics are unknown: the wait ran
    /// out or the server stopped, in either phase.
    pub fn unknown(&self) -> Vec<Unknown> {
        let touched = self.files.iter().map(|f| (&f.file, &f.outcomes));
        touched
            .chain(self.other_outcomes.iter())
            .flat_map(|(file, outcomes)| {
                outcomes
                    .iter()
                    .filter(|o| matches!(o.outcome, Outcome::TimedOut | Outcome::ServerDead))
                    .map(move |o| Unknown {
                        server: o.server.clone(),
                        file: file.clone(),
                        outcome: o.outcome,
                        after_ms: o.elapsed_ms,
                    })
            })
            .collect()
    }

    /// The feedback after an edit as every surface renders it: the checked
    /// files' blocks, the other files', and (when `opts` asks) the line
    /// saying what is unknown.
    pub fn feedback(&self, opts: &RenderOptions) -> String {
        self.feedback_with(&self.file_blocks(), opts)
    }

    /// [`feedback`](Self::feedback) with the checked files' blocks given
    /// (classified or filtered by the caller).
    pub fn feedback_with(&self, edited: &[FileDiagnostics], opts: &RenderOptions) -> String {
        let text = render_feedback(edited, &self.other_blocks(), opts);
        with_unknown(text, &self.unknown(), opts)
    }

    /// The checked files' diagnostics, in the order they were given.
    pub fn file_blocks(&self) -> Vec<FileDiagnostics> {
        self.files
            .iter()
            .map(|f| FileDiagnostics {
                file: f.file.clone(),
                diagnostics: f.diagnostics.clone(),
                baseline_hidden: 0,
            })
            .collect()
    }

    /// Other files' diagnostics, sorted by path.
    pub fn other_blocks(&self) -> Vec<FileDiagnostics> {
        self.others
            .iter()
            .map(|(file, d)| FileDiagnostics {
                file: file.clone(),
                diagnostics: d.clone(),
                baseline_hidden: 0,
            })
            .collect()
    }
}
