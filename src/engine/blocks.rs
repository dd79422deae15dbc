//! The blocks of a change's reply: each touched file classified against
//! its baseline (only the edit's own diagnostics with `report = "new"`),
//! the other files against what the servers had reported there before the
//! edit, and the fixes offered put under their diagnostics. Pure functions
//! over a check's report, split from `feedback`, which runs the check.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::evidence::FileFacts;
use super::report::{CheckReport, FileReport};
use super::reported::FixOffer;
use super::reported::Reported;
use super::result::ToolResult;
use super::touched::Touched;
use crate::baseline::{Classification, classify, new_in_other_file, other_file_verdict};
use crate::diagnostic::{Diagnostic, Severity};
use crate::render::{FileDiagnostics, FixNote, RenderOptions, ReportMode};

/// A touched file's "before": a text and what the servers said of it.
#[derive(Clone)]
pub(super) struct Baseline {
    pub(super) text: Arc<str>,
    pub(super) diagnostics: Vec<Diagnostic>,
}

/// Records the other files of `check` in `result` — their diagnostics,
/// outcomes and names — and their verdicts against what the servers had
/// reported for them before the edit (`known_before`, by relative path).
/// Returns their blocks: only what is new in each, with the number of
/// diagnostics `opts` would show that were there before.
pub(super) fn others_into(
    check: &CheckReport,
    known_before: &BTreeMap<String, Vec<Diagnostic>>,
    opts: &RenderOptions,
    result: &mut ToolResult,
    verdicts: &mut Vec<Classification>,
) -> Vec<FileDiagnostics> {
    let mut blocks = Vec::with_capacity(check.others.len());
    for (file, diagnostics) in &check.others {
        let before = known_before.get(file).map_or(&[][..], Vec::as_slice);
        verdicts.extend(other_file_verdict(diagnostics, before));
        let flagged: Vec<Reported> = diagnostics
            .iter()
            .cloned()
            .zip(new_in_other_file(diagnostics, before))
            .map(|(d, new)| Reported::new(d, new))
            .collect();
        let old = flagged.iter().filter(|d| !d.new);
        blocks.push(FileDiagnostics {
            file: file.clone(),
            diagnostics: flagged
                .iter()
                .filter(|d| d.new)
                .map(|d| d.diagnostic.clone())
                .collect(),
            baseline_hidden: old.filter(|d| opts.include.contains(&d.severity)).count(),
            fixes: Vec::new(),
        });
        result.diagnostics.extend(flagged);
    }
    for (file, outcomes) in &check.other_outcomes {
        let entry = result.outcomes.entry(file.clone()).or_default();
        entry.extend(outcomes.iter().cloned());
    }
    let touched: Vec<&String> = check.files.iter().map(|f| &f.file).collect();
    let mut other_files: Vec<String> = check
        .others
        .keys()
        .chain(check.other_outcomes.keys())
        .filter(|f| !touched.contains(f))
        .cloned()
        .collect();
    other_files.sort();
    other_files.dedup();
    result.other_files = other_files;
    blocks
}

/// Puts each offered fix under its diagnostic: in the block that shows it
/// (a fix line) and in the structured result.
pub(super) fn attach(
    offers: Vec<(Diagnostic, FixOffer)>,
    edited: &mut [FileDiagnostics],
    others: &mut [FileDiagnostics],
    reported: &mut [Reported],
) {
    for (d, offer) in offers {
        let note = FixNote {
            line: d.line,
            column: d.column,
            message: d.message.clone(),
            title: offer.title.clone(),
        };
        let same = |r: &&mut Reported| r.file == d.file && note.is_for(r);
        if let Some(r) = reported.iter_mut().find(same) {
            r.fix = Some(offer);
        }
        let block = edited
            .iter_mut()
            .chain(others.iter_mut())
            .find(|b| b.file == d.file);
        if let Some(block) = block {
            block.fixes.push(note);
        }
    }
}

/// `file` with its text after read from disk when the caller did not give
/// it (left `None` when it cannot be read as text, or is no regular file —
/// a named pipe would block the read: the check then says why).
pub(super) fn read_after(mut file: Touched) -> Touched {
    if file.after.is_none() && crate::edit::special_file(&file.path).is_none() {
        file.after = std::fs::read(&file.path)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .map(Arc::from);
    }
    file
}

/// A touched file's block, verdict, facts for the evidence log and which
/// of its diagnostics are new:
/// its diagnostics against `baseline`, only the edit's own shown with
/// `report = "new"` (the others counted).
pub(super) fn classified(
    report: &FileReport,
    file: &Touched,
    baseline: Option<Baseline>,
    check: &CheckReport,
    mode: ReportMode,
) -> (FileDiagnostics, Classification, FileFacts, Vec<bool>) {
    let errors_before = baseline.as_ref().map(|b| {
        b.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    });
    let (before, before_text) =
        baseline.map_or((Vec::new(), Arc::from("")), |b| (b.diagnostics, b.text));
    let after_text = file.after.as_deref().unwrap_or("");
    let delta = classify(
        &before,
        &before_text,
        &report.diagnostics,
        after_text,
        check.any_server(),
    );
    tracing::debug!(file = %report.file, before = before.len(), after = report.diagnostics.len(), introduced = delta.introduced.len(), baseline = delta.baseline.len(), "classified");
    let shown: Vec<Diagnostic> = match mode {
        ReportMode::All => report.diagnostics.clone(),
        ReportMode::New => delta
            .introduced
            .iter()
            .map(|&i| report.diagnostics[i].clone())
            .collect(),
    };
    let hidden = delta
        .baseline
        .iter()
        .filter(|&&i| report.diagnostics[i].severity == Severity::Error)
        .count();
    let block = FileDiagnostics {
        file: report.file.clone(),
        diagnostics: shown,
        baseline_hidden: hidden,
        fixes: Vec::new(),
    };
    let facts = FileFacts {
        before: file.before.clone(),
        after: file.after.clone(),
        errors_before,
        introduced: delta
            .introduced
            .iter()
            .copied()
            .filter(|&i| report.diagnostics[i].severity == Severity::Error)
            .collect(),
    };
    let mut new = vec![false; report.diagnostics.len()];
    for &i in &delta.introduced {
        new[i] = true;
    }
    (block, delta.classification, facts, new)
}
