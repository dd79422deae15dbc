//! A check's result: per file, the diagnostics and how each server's wait
//! ended; and as the renderer's input, one block per checked file and one per
//! other file. Every way in (tools, hooks, service, check) renders the same
//! report the same way.

use std::collections::{BTreeMap, HashSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::diagnostic::{Diagnostic, Outcome};
use crate::hidden::Hidden;
use crate::render::{FileDiagnostics, RenderOptions, Unknown, render_reply, with_hidden};

/// How one server's wait ended for one file. (Where the wait stood in the
/// server, which the other-files phase needs, is the engine's own
/// bookkeeping: `check::Mark`.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerOutcome {
    /// The server's id; empty when no server was asked (the file is
    /// outside the workspace, ignored, binary, or served by none).
    pub server: String,
    pub outcome: Outcome,
    pub elapsed_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// `unavailable` for a built-in server the configuration does not name
    /// and that is not installed: the rendering says so only when no other
    /// server checked the file (a user who never asked for it would read
    /// it after every edit otherwise).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub optional: bool,
}

impl ServerOutcome {
    pub(super) fn without_server(outcome: Outcome, detail: String) -> ServerOutcome {
        ServerOutcome {
            server: String::new(),
            outcome,
            elapsed_ms: 0,
            detail: Some(detail),
            optional: false,
        }
    }
}

/// One checked file: its diagnostics (unfiltered, messages raw) and how
/// each server's wait for it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileReport {
    /// Workspace-relative, or the path as given when outside.
    pub file: String,
    pub diagnostics: Vec<Diagnostic>,
    pub outcomes: Vec<ServerOutcome>,
}

/// A check's public result: what `squiggle/check` answers (beside its two
/// renderings) and what every surface renders. The engine's phase
/// bookkeeping (canonical paths, where each server's wait stood) stays in
/// `engine::check`, so this deserializes whole from the daemon's answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckReport {
    pub files: Vec<FileReport>,
    /// Other files with diagnostics from the servers involved, by relative path.
    #[serde(default)]
    pub others: BTreeMap<String, Vec<Diagnostic>>,
    /// How each server's wait ended for each other file waited on (the
    /// importers of the edited files), by relative path.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub other_outcomes: BTreeMap<String, Vec<ServerOutcome>>,
    /// The diagnostics of `files` and `others` hidden by ignore rules or
    /// acknowledgements (`Engine::hide_ignored`), taken out of those lists.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignored: Vec<Hidden>,
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
}

impl CheckReport {
    /// Every (file, server) pair whose diagnostics are unknown: the wait ran
    /// out or the server stopped, in either phase; or the server could not
    /// run (not installed, broken, untrusted) — an optional one only when
    /// no server checked the file; or the file was sent to no server
    /// (binary, over the size limit), so that it never reads as clean.
    pub fn unknown(&self) -> Vec<Unknown> {
        let touched = self.files.iter().map(|f| (&f.file, &f.outcomes));
        touched
            .chain(self.other_outcomes.iter())
            .flat_map(|(file, outcomes)| {
                let checked = outcomes
                    .iter()
                    .any(|o| matches!(o.outcome, Outcome::Pulled | Outcome::Settled));
                outcomes
                    .iter()
                    .filter(move |o| match o.outcome {
                        Outcome::TimedOut | Outcome::ServerDead | Outcome::BinaryFile => true,
                        Outcome::Unavailable => {
                            let quiet = o.optional && checked;
                            !o.server.is_empty() && !quiet
                        }
                        _ => false,
                    })
                    .map(move |o| Unknown {
                        server: o.server.clone(),
                        file: file.clone(),
                        outcome: o.outcome,
                        after_ms: o.elapsed_ms,
                        reason: o.detail.clone().unwrap_or_default(),
                    })
            })
            .collect()
    }

    /// The feedback after an edit as every surface renders it: the checked
    /// files' blocks, the other files', and (when `opts` asks) the line
    /// saying what is unknown; then the count of what was hidden.
    pub fn feedback(&self, opts: &RenderOptions) -> String {
        self.feedback_with(&self.file_blocks(), &self.other_blocks(), opts)
    }

    /// [`feedback`](Self::feedback) with the checked files' blocks and the
    /// other files' given (classified or filtered by the caller).
    pub fn feedback_with(
        &self,
        edited: &[FileDiagnostics],
        others: &[FileDiagnostics],
        opts: &RenderOptions,
    ) -> String {
        let text = render_reply(edited, others, &self.unknown(), opts);
        with_hidden(text, crate::hidden::count_of(&self.ignored, &opts.include))
    }

    /// The checked files' diagnostics, in the order they were given.
    pub fn file_blocks(&self) -> Vec<FileDiagnostics> {
        self.files
            .iter()
            .map(|f| FileDiagnostics {
                file: f.file.clone(),
                diagnostics: f.diagnostics.clone(),
                baseline_hidden: 0,
                fixes: Vec::new(),
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
                fixes: Vec::new(),
            })
            .collect()
    }
}
