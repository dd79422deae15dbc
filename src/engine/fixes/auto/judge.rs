//! Whether a fix is kept: every server answered, the errors of the files
//! it edited dropped, and no error appeared anywhere.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::State;
use crate::baseline::{classify, new_other_errors};
use crate::diagnostic::{Diagnostic, Severity};
use crate::engine::report::CheckReport;

/// Whether the check `after` (of the touched files as `texts`) keeps a
/// fix: every server answered, the errors of the files it edited
/// (`edited`) dropped, and no error appeared — in a touched file against
/// its check before (line shifts followed), in another file against what
/// the servers reported before (`known`). The reason when not.
pub(super) fn judge(
    state: &State,
    texts: &[Arc<str>],
    after: &CheckReport,
    known: &BTreeMap<String, Vec<Diagnostic>>,
    edited: &[usize],
) -> Result<(), String> {
    if let Some(u) = after.unknown().first() {
        return Err(format!(
            "{} did not finish checking {} after it, so it could not be verified",
            u.server, u.file
        ));
    }
    let errors = |report: &CheckReport, i: usize| {
        report.files.get(i).map_or(0, |f| {
            f.diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .count()
        })
    };
    let before: usize = edited.iter().map(|&i| errors(&state.check, i)).sum();
    let now: usize = edited.iter().map(|&i| errors(after, i)).sum();
    for (i, report) in after.files.iter().enumerate() {
        let Some(then) = state.check.files.get(i) else {
            continue;
        };
        let delta = classify(
            &then.diagnostics,
            &state.texts[i],
            &report.diagnostics,
            &texts[i],
            true,
        );
        let added = delta
            .introduced
            .iter()
            .map(|&k| &report.diagnostics[k])
            .find(|d| d.severity == Severity::Error);
        if let Some(d) = added {
            return Err(added_error(d));
        }
    }
    for (file, diagnostics) in &after.others {
        let mut then: Vec<Diagnostic> = known.get(file).cloned().unwrap_or_default();
        then.extend(state.check.others.get(file).cloned().unwrap_or_default());
        if let Some(d) = new_other_errors(diagnostics, &then).first() {
            return Err(added_error(d));
        }
    }
    if now >= before {
        return Err(format!(
            "the errors did not drop ({before} before it, {now} after)"
        ));
    }
    Ok(())
}

fn added_error(d: &Diagnostic) -> String {
    format!(
        "it added an error: {} [{}:{}] {}",
        d.file, d.line, d.column, d.message
    )
}
