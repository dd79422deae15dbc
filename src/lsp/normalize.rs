//! From a server's diagnostics to squiggle's normalized ones: 1-based lines,
//! columns in Unicode characters of that line (converted from the encoding
//! the server negotiated), severity defaulting to error, relative path.
//!
//! The client normalizes with its own encoding: callers ask it
//! ([`LspClient::normalize`]), or take what it holds as [`Held`] lists that
//! normalize themselves, and never read the encoding back to do it.

use std::path::PathBuf;
use std::sync::Arc;

use super::LspClient;
use super::position::{LineIndex, PositionEncoding};
use super::state::LspDiagnostic;
use crate::diagnostic::{Diagnostic, Severity};
use crate::uri;

impl LspClient {
    /// `diagnostics`, reported by this server against `text`, in squiggle's
    /// form, naming the file `relative`.
    pub fn normalize(
        &self,
        diagnostics: &[LspDiagnostic],
        text: &str,
        relative: &str,
    ) -> Vec<Diagnostic> {
        normalize(
            diagnostics,
            text,
            self.encoding(),
            relative,
            self.server_id(),
        )
    }

    /// Every non-empty list this server holds, one per file, raw until
    /// asked (see [`Held`]).
    pub fn held_diagnostics(&self) -> Vec<Held> {
        let encoding = self.encoding();
        self.known_diagnostics()
            .into_iter()
            .map(|(uri, diagnostics)| Held {
                server: self.server_id().to_string(),
                encoding,
                text: self.document_by_uri(&uri),
                uri,
                diagnostics,
            })
            .collect()
    }

    fn encoding(&self) -> PositionEncoding {
        self.facts().map(|f| f.encoding).unwrap_or_default()
    }
}

/// One server's diagnostics for one file, as held when taken: raw, with
/// what normalizing them needs (the server's encoding and its copy of the
/// file), so that taking every list is cheap and only the files someone
/// asks about are normalized.
#[derive(Debug, Clone)]
pub struct Held {
    server: String,
    uri: String,
    encoding: PositionEncoding,
    diagnostics: Arc<[LspDiagnostic]>,
    /// The server's copy of the file, when it has it open.
    text: Option<Arc<str>>,
}

impl Held {
    pub fn server(&self) -> &str {
        &self.server
    }

    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The file the list is for, when its uri names a local path.
    pub fn path(&self) -> Option<PathBuf> {
        uri::to_path(&self.uri)
    }

    /// The list in squiggle's form, naming the file `relative`, against the
    /// server's copy of the file, else the file on disk. `None` when the
    /// file is gone from disk: a removed file is in no report, whatever
    /// copy the server still holds.
    pub fn normalize(&self, relative: &str) -> Option<Vec<Diagnostic>> {
        let path = self.path().filter(|p| p.is_file())?;
        let text = match &self.text {
            Some(text) => text.clone(),
            None => Arc::from(
                crate::edit::read_regular_string(&path, crate::edit::MAX_READ_BYTES).ok()?,
            ),
        };
        Some(normalize(
            &self.diagnostics,
            &text,
            self.encoding,
            relative,
            &self.server,
        ))
    }
}

/// Normalizes diagnostics reported against `text`.
fn normalize(
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
