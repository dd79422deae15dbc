//! `lsp_diagnostics` and `lsp_status`: what the servers report, for one file
//! (checked now, through the same path as edit feedback) or for every file
//! the running servers know, rendered with the feedback's caps and format;
//! and which servers there are (`Engine::status`'s rows) with a short text.

use std::collections::BTreeMap;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;

use super::edits::workspace_path;
use super::session::NavError;
use crate::diagnostic::{Diagnostic, Outcome};
use crate::engine::pool::ServerState;
use crate::engine::status_line::row_line;
use crate::engine::{Engine, FileInput, HeldOthers, ServerStatus};
use crate::hidden::Hidden;
use crate::render::{FileDiagnostics, ReportMode, render_files, with_hidden};

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileEntry {
    pub path: String,
    /// As every surface gives a diagnostic (`squiggle/edit`'s, without
    /// `new`: nothing changed here).
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DiagnosticsResult {
    /// Every diagnostic found (the text is capped and filtered by severity).
    pub files: Vec<FileEntry>,
    /// Why some servers could not answer, or answered late.
    pub notes: Vec<String>,
    /// What ignore rules and acknowledgements hid from `files` and the
    /// text, each with `ignored: true`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ignored: Vec<Hidden>,
}

/// Diagnostics of one file (checked now) or of every known file.
pub async fn diagnostics(
    engine: &Arc<Engine>,
    path: Option<&str>,
) -> Result<(DiagnosticsResult, String), NavError> {
    let mut notes = Vec::new();
    let by_file: BTreeMap<String, Vec<Diagnostic>> = match path {
        Some(path) => checked_now(engine, path, &mut notes).await?,
        None => {
            if engine.pool().clients().is_empty() {
                return Err(NavError::new(
                    "no language server is running yet, so no file is known; pass `path` to check a file",
                ));
            }
            engine.known_diagnostics()
        }
    };
    let (by_file, ignored) = engine.hide_ignored_in(by_file);
    let files: Vec<FileDiagnostics> = by_file
        .iter()
        .map(|(file, diagnostics)| FileDiagnostics {
            file: file.clone(),
            diagnostics: diagnostics.clone(),
            baseline_hidden: 0,
            fixes: Vec::new(),
        })
        .collect();
    let mut opts = engine.render_options();
    opts.report = ReportMode::All;
    let mut text = render_files(&files, &opts);
    let hidden = crate::hidden::count_of(&ignored, &opts.include);
    if text.is_empty() {
        let what = match path {
            Some(_) => "this file",
            None => "the files the servers know",
        };
        let shown: Vec<&str> = opts.include.iter().map(|s| s.label()).collect();
        text = format!("No diagnostics ({}) in {what}", shown.join(", "));
    }
    if hidden.total() > 0 && !text.ends_with('\n') {
        text.push('\n');
    }
    text = with_hidden(text, hidden);
    for note in &notes {
        text.push_str(&format!("\n(note: {note})"));
    }
    let result = DiagnosticsResult {
        files: by_file
            .into_iter()
            .filter(|(_, d)| !d.is_empty())
            .map(|(path, d)| FileEntry {
                path,
                diagnostics: d,
            })
            .collect(),
        notes,
        ignored,
    };
    Ok((result, text.trim_end().to_string()))
}

/// `path` checked now against the file on disk; what the servers said
/// besides their diagnostics goes to `notes`.
async fn checked_now(
    engine: &Arc<Engine>,
    path: &str,
    notes: &mut Vec<String>,
) -> Result<BTreeMap<String, Vec<Diagnostic>>, NavError> {
    let (canonical, relative) = workspace_path(engine, path)?;
    engine.servers_for(&canonical)?;
    let check = engine
        .check_files(vec![FileInput::on_disk(canonical)], HeldOthers::Skip)
        .await;
    let mut map = BTreeMap::new();
    let mut answered = false;
    for report in check.files {
        for o in &report.outcomes {
            answered |= matches!(o.outcome, Outcome::Pulled | Outcome::Settled);
            let label = if o.server.is_empty() {
                "squiggle"
            } else {
                &o.server
            };
            match o.outcome {
                Outcome::TimedOut => notes.push(format!(
                    "{label} did not finish within the timeout; the list may be incomplete"
                )),
                Outcome::Pulled | Outcome::Settled => {}
                _ => notes.push(format!(
                    "{label}: {} {}",
                    o.outcome.as_str(),
                    o.detail.clone().unwrap_or_default()
                )),
            }
        }
        map.insert(relative.clone(), report.diagnostics);
    }
    // A server that checked the file answers for it: another one missing
    // is a note beside the answer, not a failure of it.
    if !answered && !check_answered(notes, &map) {
        return Err(NavError(format!(
            "no server could check {relative}: {}",
            notes.join("; ")
        )));
    }
    Ok(map)
}

fn check_answered(notes: &[String], map: &BTreeMap<String, Vec<Diagnostic>>) -> bool {
    notes.is_empty()
        || map.values().any(|d| !d.is_empty())
        || notes.iter().any(|n| n.contains("timeout"))
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StatusResult {
    pub workspace: String,
    pub lsp_enabled: bool,
    pub navigation_tools: bool,
    pub write_tools: bool,
    /// `Engine::status()`'s rows, as JSON-RPC `lsp/status` and `squiggle
    /// status --json` give them: every instance, then every configured
    /// server without one.
    pub servers: Vec<ServerStatus>,
}

/// Every server of the workspace and what it is doing (the rows of
/// `Engine::status`), and a compact text: a line per instance, then the
/// servers without one grouped by state.
pub fn status(engine: &Engine, write_tools: bool) -> (StatusResult, String) {
    let root = engine.workspace().root();
    let servers = engine.status();
    let mut text = format!("Workspace: {}\n", root.display());
    if !engine.config().enabled {
        text.push_str("LSP is disabled in the configuration (`lsp = false`): only this status tool is available.\n");
    }
    let (instances, configured): (Vec<&ServerStatus>, Vec<&ServerStatus>) =
        servers.iter().partition(|s| s.root.is_some());
    if instances.is_empty() {
        text.push_str(
            "No language server started yet (they start on the first file that needs them).\n",
        );
    }
    for s in &instances {
        text.push_str(&format!("{}: {}\n", s.id, row_line(s)));
    }
    for (state, what) in [
        (
            ServerState::Idle,
            "Not started yet (start on the first file they serve)",
        ),
        (ServerState::Unavailable, "Not installed"),
        (ServerState::Disabled, "Disabled"),
    ] {
        let ids: Vec<&str> = configured
            .iter()
            .filter(|s| s.status == state)
            .map(|s| s.id.as_str())
            .collect();
        if !ids.is_empty() {
            text.push_str(&format!("{what}: {}\n", ids.join(", ")));
        }
    }
    for s in configured
        .iter()
        .filter(|s| s.status == ServerState::Untrusted)
    {
        let detail = s.detail.as_deref().unwrap_or_default();
        text.push_str(&format!("{}: untrusted — {detail}\n", s.id));
    }
    // Held back (`strict`, `autoDetect = false`): the cause and the remedy,
    // as `squiggle status` says them.
    for s in configured
        .iter()
        .filter(|s| s.status == ServerState::NotStarted)
    {
        text.push_str(&format!("{}: {}\n", s.id, row_line(s)));
    }
    (
        StatusResult {
            workspace: root.display().to_string(),
            lsp_enabled: engine.config().enabled,
            navigation_tools: engine.config().navigation_tools,
            write_tools,
            servers,
        },
        text.trim_end().to_string(),
    )
}
