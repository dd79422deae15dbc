//! A check's result as the renderer's input: one block per checked file,
//! one per other file. Every way in (tools, hooks, service, check) renders
//! the same report the same way.

use super::CheckReport;
use crate::render::FileDiagnostics;

impl CheckReport {
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
