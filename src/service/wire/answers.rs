//! What the methods answer, beyond the engine's own types (`ToolResult`,
//! `CheckReport`, `ServerStatus`), which travel as they are.

use serde::{Deserialize, Serialize};

use crate::diagnostic::{Diagnostic, Severity};

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

/// The result of `squiggle/render`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenderReply {
    pub text: String,
}

/// The result of `squiggle/warm`: the files it checks, one per server,
/// relative to the workspace root; with `wait`, how many files the survey
/// remembered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarmReply {
    pub files: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surveyed: Option<usize>,
}
