//! A change's answer seen per file, as `squiggle check` and `squiggle ack`
//! print and read it: the one answer `squiggle/check` gives, regrouped.

use std::collections::BTreeMap;

use super::report::{CheckReport, FileReport};
use super::result::ToolResult;

impl From<ToolResult> for CheckReport {
    /// Each touched file (in path order) with its diagnostics and how each
    /// server's wait ended; the other files the answer reported beside
    /// them; the hidden diagnostics as they were.
    fn from(result: ToolResult) -> CheckReport {
        let ToolResult {
            diagnostics,
            mut outcomes,
            other_files,
            ignored,
            ..
        } = result;
        let mut other_outcomes = BTreeMap::new();
        for file in &other_files {
            if let Some(o) = outcomes.remove(file) {
                other_outcomes.insert(file.clone(), o);
            }
        }
        let mut files: Vec<FileReport> = outcomes
            .into_iter()
            .map(|(file, outcomes)| FileReport {
                file,
                diagnostics: Vec::new(),
                outcomes,
            })
            .collect();
        let mut others: BTreeMap<String, Vec<_>> = BTreeMap::new();
        for reported in diagnostics {
            let d = reported.diagnostic;
            match files.iter_mut().find(|f| f.file == d.file) {
                Some(file) => file.diagnostics.push(d),
                None => others.entry(d.file.clone()).or_default().push(d),
            }
        }
        CheckReport {
            files,
            others,
            other_outcomes,
            ignored,
        }
    }
}
