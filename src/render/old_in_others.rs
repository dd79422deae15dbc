//! The one line under other files' blocks counting what they left out as
//! there before the edit, so that "not shown" never reads as "not there".

use std::fmt::Write as _;

use super::FileDiagnostics;

/// What other files' blocks left out as there before the edit: counted in
/// one line under them (`3 errors in 2 other files were there before this
/// edit`), written only when the reply shows something else — a clean
/// edit stays silent about errors it did not cause.
pub(super) struct OldInOthers {
    pub(super) diagnostics: usize,
    files: usize,
}

impl OldInOthers {
    pub(super) fn count(others: &[&FileDiagnostics]) -> OldInOthers {
        let mut files: Vec<&str> = others
            .iter()
            .filter(|f| f.baseline_hidden > 0)
            .map(|f| f.file.as_str())
            .collect();
        files.dedup();
        OldInOthers {
            diagnostics: others.iter().map(|f| f.baseline_hidden).sum(),
            files: files.len(),
        }
    }

    pub(super) fn line(&self, text: &mut String, noun: &str) {
        if self.diagnostics == 0 {
            return;
        }
        let (noun, verb) = match (noun, self.diagnostics) {
            ("errors", 1) => ("error", "was"),
            ("diagnostics", 1) => ("diagnostic", "was"),
            (plural, _) => (plural, "were"),
        };
        let files = if self.files == 1 { "file" } else { "files" };
        let _ = writeln!(
            text,
            "{} {noun} in {} other {files} {verb} there before this edit",
            self.diagnostics, self.files
        );
    }
}
