//! The service's JSON shapes. The `lsp/*` methods keep the spec's shapes
//! (`Diagnostic` with `character`, messages with `<`, `>`, `&` escaped;
//! `ServerStatus`); the `squiggle/*` methods speak squiggle's own types with
//! raw messages, since their consumer renders them (or asks `squiggle/render`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::diagnostic::{Diagnostic, Outcome, Severity};
use crate::engine::{CheckReport, ServerOutcome};
use crate::render::{FileDiagnostics, RenderOptions};

/// A diagnostic as the `lsp/*` methods return it: squiggle's `Diagnostic`
/// plus the spec's `character` (equal to `column`), with the message escaped
/// so it can be pasted into a `<diagnostics>` block as is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WireDiagnostic {
    pub file: String,
    pub line: u32,
    pub character: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub severity: Severity,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(default)]
    pub server: String,
}

impl From<&Diagnostic> for WireDiagnostic {
    fn from(d: &Diagnostic) -> WireDiagnostic {
        WireDiagnostic {
            file: d.file.clone(),
            line: d.line,
            character: d.column,
            column: d.column,
            end_line: d.end_line,
            end_column: d.end_column,
            severity: d.severity,
            message: quick_xml::escape::partial_escape(&d.message).into_owned(),
            code: d.code.clone(),
            source: d.source.clone(),
            server: d.server.clone(),
        }
    }
}

/// One configured server or running instance, for `lsp/status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerStatus {
    pub id: String,
    /// `active`, `starting`, `broken`, `idle`, `disabled`, `unavailable`
    /// or `untrusted` (see `docs/protocol.md`).
    pub status: String,
    /// The first language id the server serves (`""` when it has none).
    pub language: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_pid: Option<u32>,
    /// The instance's project root; absent for servers that never started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Why the server is broken, unavailable or untrusted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// How many times this instance was started (0 for never).
    #[serde(default)]
    pub starts: u32,
    /// Resident memory of a live instance and the processes it spawned, KiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rss_kb: Option<u64>,
    /// Milliseconds since a check last used a live instance (0 while one does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_ms: Option<u64>,
    /// Checks and navigation requests using a live instance now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_flight: Option<u32>,
    /// Documents a live instance has open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_documents: Option<usize>,
    /// Why the pool last stopped this instance: `evicted` (for the cap) or
    /// `idle`; it starts again on the next file it serves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<crate::engine::pool::StopReason>,
}

/// How one server's wait ended for one file (`squiggle/check`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckedOutcome {
    pub server: String,
    pub outcome: Outcome,
    pub elapsed_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl From<&ServerOutcome> for CheckedOutcome {
    fn from(o: &ServerOutcome) -> CheckedOutcome {
        CheckedOutcome {
            server: o.server.clone(),
            outcome: o.outcome,
            elapsed_ms: o.elapsed_ms,
            detail: o.detail.clone(),
        }
    }
}

impl From<CheckedOutcome> for ServerOutcome {
    fn from(o: CheckedOutcome) -> ServerOutcome {
        ServerOutcome {
            server: o.server,
            outcome: o.outcome,
            elapsed_ms: o.elapsed_ms,
            detail: o.detail,
            root: PathBuf::new(),
            written_at: 0,
        }
    }
}

/// One checked file (`squiggle/check`), diagnostics unfiltered and raw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckedFile {
    pub file: String,
    pub diagnostics: Vec<Diagnostic>,
    pub outcomes: Vec<CheckedOutcome>,
}

/// The result of `squiggle/check`: the engine's `CheckReport` plus its two
/// renderings under the engine's render options.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckReply {
    pub files: Vec<CheckedFile>,
    pub others: BTreeMap<String, Vec<Diagnostic>>,
    /// How each server's wait ended for each other file waited on.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub other_outcomes: BTreeMap<String, Vec<CheckedOutcome>>,
    /// As after an edit: the checked files ("please fix"), then other files.
    pub feedback: String,
    /// As `squiggle check` prints it: the checked files only.
    pub text: String,
}

impl CheckReply {
    pub fn new(report: &CheckReport, feedback: String, text: String) -> CheckReply {
        CheckReply {
            files: report
                .files
                .iter()
                .map(|f| CheckedFile {
                    file: f.file.clone(),
                    diagnostics: f.diagnostics.clone(),
                    outcomes: f.outcomes.iter().map(CheckedOutcome::from).collect(),
                })
                .collect(),
            others: report.others.clone(),
            other_outcomes: report
                .other_outcomes
                .iter()
                .map(|(file, outcomes)| {
                    let outcomes = outcomes.iter().map(CheckedOutcome::from).collect();
                    (file.clone(), outcomes)
                })
                .collect(),
            feedback,
            text,
        }
    }
}

/// `squiggle/render`'s `options`, camelCase on the wire; a missing member
/// takes the engine's configured value.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct WireRenderOptions {
    pub max_per_file: Option<usize>,
    pub max_other_files: Option<usize>,
    pub max_lines: Option<usize>,
    pub include: Option<Vec<Severity>>,
    pub report: Option<crate::render::ReportMode>,
}

impl WireRenderOptions {
    pub fn over(self, base: RenderOptions) -> RenderOptions {
        RenderOptions {
            max_per_file: self.max_per_file.unwrap_or(base.max_per_file),
            max_other_files: self.max_other_files.unwrap_or(base.max_other_files),
            max_lines: self.max_lines.unwrap_or(base.max_lines),
            include: self.include.unwrap_or(base.include),
            report: self.report.unwrap_or(base.report),
            report_unknown: base.report_unknown,
        }
    }
}

/// One file handed to `squiggle/render`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WireFileDiagnostics {
    pub file: String,
    #[serde(default)]
    pub diagnostics: Vec<Diagnostic>,
    /// With `report: "new"`: pre-existing errors left out of `diagnostics`.
    #[serde(default)]
    pub baseline_hidden: usize,
}

impl From<WireFileDiagnostics> for FileDiagnostics {
    fn from(f: WireFileDiagnostics) -> FileDiagnostics {
        FileDiagnostics {
            file: f.file,
            diagnostics: f.diagnostics,
            baseline_hidden: f.baseline_hidden,
        }
    }
}
