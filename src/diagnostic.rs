//! squiggle's own diagnostic vocabulary, shared by every layer above the LSP
//! client (render, classification, CLI, service, MCP).
//!
//! `lsp_types` stays inside the client: what leaves it is this small,
//! normalized shape — workspace-relative `/` paths, 1-based lines, and columns
//! counted in Unicode characters — so renderers and adapters never do
//! position math or know which encoding a server negotiated.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How serious a diagnostic is. A server that omits severity means error
/// (VS Code reads it the same way).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
    Hint,
}

impl Severity {
    /// From LSP's numeric `DiagnosticSeverity` (1 error … 4 hint); absent or
    /// out of range reads as error.
    pub fn from_lsp(value: Option<i64>) -> Severity {
        match value {
            Some(2) => Severity::Warning,
            Some(3) => Severity::Info,
            Some(4) => Severity::Hint,
            _ => Severity::Error,
        }
    }

    /// The lower-case name used in JSON (`error`, `warning`, `info`, `hint`),
    /// as serde writes it.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
            Severity::Hint => "hint",
        }
    }

    /// The upper-case label used in rendered blocks (`ERROR`, `WARN`, …).
    pub fn label(self) -> &'static str {
        match self {
            Severity::Error => "ERROR",
            Severity::Warning => "WARN",
            Severity::Info => "INFO",
            Severity::Hint => "HINT",
        }
    }

    pub fn parse(name: &str) -> Option<Severity> {
        match name.to_ascii_lowercase().as_str() {
            "error" => Some(Severity::Error),
            "warning" | "warn" => Some(Severity::Warning),
            "info" | "information" => Some(Severity::Info),
            "hint" => Some(Severity::Hint),
            _ => None,
        }
    }
}

/// One diagnostic, normalized. Positions are 1-based; columns count Unicode
/// scalar values of that line, whatever encoding the server used.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    /// Relative to the workspace root, `/`-separated.
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub severity: Severity,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The id of the server that reported it (`pyright`, `ruff`, …).
    #[serde(default)]
    pub server: String,
}

impl Diagnostic {
    /// The order diagnostics are shown in: line, column, severity, message.
    pub fn sort_key(&self) -> (u32, u32, Severity, &str) {
        (self.line, self.column, self.severity, &self.message)
    }
}

/// Sorts by (line, column, severity, message) and merges duplicates reported
/// by several servers (same range and message): the first server wins.
pub fn sort_and_dedupe(diagnostics: &mut Vec<Diagnostic>) {
    diagnostics.sort_by(|a, b| {
        a.sort_key()
            .cmp(&b.sort_key())
            .then_with(|| a.server.cmp(&b.server))
    });
    diagnostics.dedup_by(|later, kept| {
        later.line == kept.line
            && later.column == kept.column
            && later.end_line == kept.end_line
            && later.end_column == kept.end_column
            && later.message == kept.message
    });
}

/// How one (file, server) wait ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The server answered a pull request: exact, no settle wait.
    Pulled,
    /// Push diagnostics for this version arrived and the settle window passed.
    Settled,
    /// The deadline passed first; whatever was known for this version is kept.
    TimedOut,
    /// The server process died or its stream closed.
    ServerDead,
    /// No installed server serves this file (or it is broken or untrusted).
    Unavailable,
    /// The file is outside the workspace root; no server was touched.
    OutsideWorkspace,
    /// The file is under an ignored directory (`node_modules`, `.git`, …).
    Ignored,
    /// Binary or oversized content: written, never sent to a server.
    BinaryFile,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pulled => "pulled",
            Outcome::Settled => "settled",
            Outcome::TimedOut => "timed_out",
            Outcome::ServerDead => "server_dead",
            Outcome::Unavailable => "unavailable",
            Outcome::OutsideWorkspace => "outside_workspace",
            Outcome::Ignored => "ignored",
            Outcome::BinaryFile => "binary_file",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_severity_name_is_what_serde_writes() {
        for s in [
            Severity::Error,
            Severity::Warning,
            Severity::Info,
            Severity::Hint,
        ] {
            assert_eq!(serde_json::to_value(s).ok(), Some(s.name().into()));
        }
    }

    fn diag(line: u32, column: u32, severity: Severity, message: &str, server: &str) -> Diagnostic {
        Diagnostic {
            file: "a.py".into(),
            line,
            column,
            end_line: line,
            end_column: column + 1,
            severity,
            message: message.into(),
            code: None,
            source: None,
            server: server.into(),
        }
    }

    #[test]
    fn absent_severity_is_error() {
        assert_eq!(Severity::from_lsp(None), Severity::Error);
        assert_eq!(Severity::from_lsp(Some(9)), Severity::Error);
        assert_eq!(Severity::from_lsp(Some(2)), Severity::Warning);
    }

    #[test]
    fn sorts_by_position_then_severity_and_merges_cross_server_duplicates() {
        let mut all = vec![
            diag(3, 1, Severity::Error, "b", "ruff"),
            diag(1, 5, Severity::Warning, "w", "pyright"),
            diag(1, 5, Severity::Error, "e", "pyright"),
            diag(3, 1, Severity::Error, "b", "pyright"),
        ];
        sort_and_dedupe(&mut all);
        let seen: Vec<_> = all
            .iter()
            .map(|d| (d.line, d.message.as_str(), d.server.as_str()))
            .collect();
        assert_eq!(
            seen,
            vec![
                (1, "e", "pyright"),
                (1, "w", "pyright"),
                (3, "b", "pyright")
            ]
        );
    }
}
