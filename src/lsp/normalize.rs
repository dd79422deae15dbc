//! From a server's diagnostics to squiggle's normalized ones: 1-based lines,
//! columns in Unicode characters of that line (converted from whatever
//! encoding was negotiated), severity defaulting to error, relative path.

use super::position::{LineIndex, PositionEncoding};
use super::state::LspDiagnostic;
use crate::diagnostic::{Diagnostic, Severity};

/// Normalizes diagnostics reported against `text`.
pub fn normalize(
    diagnostics: &[LspDiagnostic],
    text: &str,
    encoding: PositionEncoding,
    relative_path: &str,
    server: &str,
) -> Vec<Diagnostic> {
    if diagnostics.is_empty() {
        // The common clean answer: no line index to build.
        return Vec::new();
    }
    let index = LineIndex::new(text);
    diagnostics
        .iter()
        .map(|d| {
            let (line, column) = index.to_one_based(text, d.range.start, encoding);
            let (end_line, end_column) = index.to_one_based(text, d.range.end, encoding);
            Diagnostic {
                file: relative_path.to_string(),
                line,
                column,
                end_line,
                end_column,
                severity: Severity::from_lsp(d.severity),
                message: d.message.clone(),
                code: d.code.clone(),
                source: d.source.clone(),
                server: server.to_string(),
            }
        })
        .collect()
}
