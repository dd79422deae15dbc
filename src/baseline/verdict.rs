//! Verdicts beyond one edited file: the rule for a file the edit did not
//! touch, and how the verdicts of several files make one.

use super::Classification;
use crate::diagnostic::{Diagnostic, Severity};

/// The order verdicts combine in, worst first: a batch (a patch, an edit
/// and the files that import it) is as bad as its worst file. New errors
/// come first because they are what the model must act on; old errors
/// before warnings because an error, even an old one, is still a broken
/// build; "clean" before "unavailable" because a file some server judged
/// says more than one no server could judge. So a batch is only
/// `lsp_unavailable` when no file of it was judged at all.
pub const WORST_FIRST: [Classification; 5] = [
    Classification::NewErrors,
    Classification::BaselineError,
    Classification::WarningsOnly,
    Classification::Clean,
    Classification::LspUnavailable,
];

/// The worst of `verdicts` in [`WORST_FIRST`] order; `lsp_unavailable`
/// when there are none.
pub fn worst(verdicts: &[Classification]) -> Classification {
    WORST_FIRST
        .into_iter()
        .find(|c| verdicts.contains(c))
        .unwrap_or(Classification::LspUnavailable)
}

/// Which of a file's diagnostics the edit did not touch are new: for each
/// of `after` (its diagnostics now), whether no diagnostic the servers had
/// reported for it before the edit (`before`) has the same line, column,
/// severity and message.
///
/// The position must match exactly here, unlike in an edited file: the
/// edit did not change this file's text, so its errors do not move.
pub fn new_in_other_file(after: &[Diagnostic], before: &[Diagnostic]) -> Vec<bool> {
    let known = |d: &Diagnostic| {
        before.iter().any(|b| {
            b.line == d.line
                && b.column == d.column
                && b.severity == d.severity
                && b.message == d.message
        })
    };
    after.iter().map(|d| !known(d)).collect()
}

/// The verdict on a file the mutation did not touch, from its diagnostics
/// now (`after`) and what the servers had reported for it before the edit
/// (`before`): new errors when it has an error [`new_in_other_file`] calls
/// new, an old error when all its errors were there before, warnings only
/// otherwise. A file with nothing to report adds no verdict.
pub fn other_file_verdict(after: &[Diagnostic], before: &[Diagnostic]) -> Option<Classification> {
    if !new_other_errors(after, before).is_empty() {
        Some(Classification::NewErrors)
    } else if after.iter().any(|d| d.severity == Severity::Error) {
        Some(Classification::BaselineError)
    } else if !after.is_empty() {
        Some(Classification::WarningsOnly)
    } else {
        None
    }
}

/// The errors of a file the mutation did not touch that were not reported
/// before (the rule of [`new_in_other_file`]).
pub fn new_other_errors<'a>(after: &'a [Diagnostic], before: &[Diagnostic]) -> Vec<&'a Diagnostic> {
    after
        .iter()
        .zip(new_in_other_file(after, before))
        .filter(|(d, new)| *new && d.severity == Severity::Error)
        .map(|(d, _)| d)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(line: u32, message: &str) -> Diagnostic {
        Diagnostic {
            file: "b.py".into(),
            line,
            column: 1,
            end_line: line,
            end_column: 2,
            severity: Severity::Error,
            message: message.into(),
            code: None,
            source: None,
            server: "pyright".into(),
        }
    }

    #[test]
    fn the_worst_verdict_wins() {
        use Classification::*;
        assert_eq!(worst(&[Clean, NewErrors, BaselineError]), NewErrors);
        assert_eq!(worst(&[LspUnavailable, Clean]), Clean);
        assert_eq!(worst(&[WarningsOnly, BaselineError]), BaselineError);
        assert_eq!(worst(&[]), LspUnavailable);
    }

    #[test]
    fn another_files_error_is_new_unless_reported_there_before() {
        let old = error(3, "old");
        assert_eq!(other_file_verdict(&[], std::slice::from_ref(&old)), None);
        assert_eq!(
            other_file_verdict(std::slice::from_ref(&old), std::slice::from_ref(&old)),
            Some(Classification::BaselineError)
        );
        assert_eq!(
            other_file_verdict(&[error(4, "old")], std::slice::from_ref(&old)),
            Some(Classification::NewErrors)
        );
        let mut warning = old.clone();
        warning.severity = Severity::Warning;
        assert_eq!(
            other_file_verdict(&[warning], &[]),
            Some(Classification::WarningsOnly)
        );
    }
}
