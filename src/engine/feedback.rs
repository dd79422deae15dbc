//! What a change answers, on every surface: the touched files checked in
//! one parallel wait (and, where the configuration says so, the files that
//! import them), each classified against what was there before
//! (`crate::baseline`), and rendered once. The wrapped tools
//! (`edit`, `write`, `apply_patch`) and `squiggle/check` — which the hooks
//! call through the daemon, or in process — all run [`Engine::report_change`],
//! so one change gets one answer whoever reports it. The structured result
//! carries every diagnostic the rendered feedback came from — other files
//! included — and every (file, server) outcome of both phases, so a program
//! reading it misses nothing the model is told.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use tokio::time::Instant;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::check::{FileInput, HeldOthers};
use super::evidence::{FileFacts, Seen};
use super::fixes::FixOffer;
use super::report::{CheckReport, FileReport, ServerOutcome};
use super::reported::Reported;
use super::tools::Mode;
use super::{Engine, Mutation};
use crate::baseline::{
    Before, Classification, classify, git, new_in_other_file, other_file_verdict, worst,
};
use crate::diagnostic::{Diagnostic, Severity};
use crate::render::{FileDiagnostics, FixNote, RenderOptions, ReportMode};
use crate::workspace::PathClass;

/// What a wrapped tool returns: the text for the model plus structure. The
/// same type travels from the daemon to the CLI (`squiggle/edit` and
/// friends) and is an edit tool's MCP `structuredContent`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// `Edit applied successfully.` and the like.
    pub message: String,
    /// The rendered `<diagnostics>` feedback; empty when nothing to show.
    pub feedback: String,
    /// Every diagnostic of the touched files and of the other files the
    /// feedback reports on, before the render caps and the choice of what
    /// is new, each flagged `new` or not.
    pub diagnostics: Vec<Reported>,
    /// The worst verdict over the touched files and the other files.
    pub classification: Classification,
    /// Whether each touched file's "before" diagnostics were known (an
    /// earlier check of the text right before the change, the file as git
    /// has it, or none for a created file), so that `classification` can
    /// tell new errors from old ones.
    pub baseline_known: bool,
    /// How each server's wait ended, per file: the touched files, and the
    /// other files waited on (their importers).
    pub outcomes: BTreeMap<String, Vec<ServerOutcome>>,
    /// The files in `diagnostics` and `outcomes` that the mutation did not
    /// touch, sorted.
    pub other_files: Vec<String>,
    pub dry_run: bool,
}

impl ToolResult {
    /// What the agent's tool returns: the message, then the feedback.
    pub fn text(&self) -> String {
        let feedback = self.feedback.trim_end();
        if feedback.is_empty() {
            self.message.clone()
        } else {
            format!("{}\n\n{feedback}", self.message)
        }
    }
}

/// One file a change touched.
#[derive(Debug, Clone)]
pub struct Touched {
    pub path: PathBuf,
    /// What the caller knows of its text right before the change.
    pub before: Before,
    /// Its text after; `None`: the text on disk.
    pub after: Option<Arc<str>>,
}

/// A touched file's "before": a text and what the servers said of it.
struct Baseline {
    text: Arc<str>,
    diagnostics: Vec<Diagnostic>,
}

impl Engine {
    /// Checks the touched files in one parallel wait (with their importers
    /// when `otherFiles` says so for this kind of mutation), classifies each
    /// against what was there before and renders under `opts`. The check's
    /// report comes back beside the result.
    pub async fn report_change(
        self: &Arc<Self>,
        message: String,
        files: Vec<Touched>,
        mutation: Mutation,
        mode: Mode,
        opts: &RenderOptions,
    ) -> (ToolResult, CheckReport) {
        let started = Instant::now();
        let files: Vec<Touched> = files.into_iter().map(read_after).collect();
        let others = self.reports_other_files(mutation);
        // What the servers said of every other file before this edit (and
        // before a git baseline is checked): an importer's error that was
        // already there is not the edit's.
        let known_before = others.then(|| self.known_snapshot());
        let baselines = self.baselines(&files, opts.report).await;
        let inputs = files
            .iter()
            .map(|f| FileInput {
                path: f.path.clone(),
                content: f.after.clone(),
                before: match &f.before {
                    Before::Text(text) => Some(text.clone()),
                    Before::Absent | Before::Unknown => None,
                },
            })
            .collect();
        let check = if others {
            self.check_with_dependents(inputs).await
        } else {
            self.check_files(inputs, HeldOthers::Skip).await
        };
        let mut result = ToolResult {
            message,
            feedback: String::new(),
            diagnostics: Vec::new(),
            classification: Classification::LspUnavailable,
            baseline_known: true,
            outcomes: BTreeMap::new(),
            other_files: Vec::new(),
            dry_run: mode == Mode::DryRun,
        };
        let mut verdicts = Vec::new();
        let mut edited = Vec::new();
        let mut facts = Vec::new();
        for ((report, file), baseline) in check.files.iter().zip(&files).zip(baselines) {
            result.baseline_known &= baseline.is_some() || file.before == Before::Absent;
            let (block, verdict, fact, new) =
                classified(report, file, baseline, &check, opts.report);
            edited.push(block);
            verdicts.push(verdict);
            facts.push(fact);
            let flagged = report.diagnostics.iter().cloned().zip(new);
            result
                .diagnostics
                .extend(flagged.map(|(d, new)| Reported::new(d, new)));
            let outcomes = report.outcomes.clone();
            result.outcomes.insert(report.file.clone(), outcomes);
            if mode == Mode::Apply && check.any_server() {
                self.remember(file, report);
            }
        }
        let known_before = known_before
            .map(|known| known.for_files(self, check.others.keys()))
            .unwrap_or_default();
        let mut others = others_into(&check, &known_before, opts, &mut result, &mut verdicts);
        result.classification = worst(&verdicts);
        if self.config.fix_lines > 0 {
            let blocks: Vec<&FileDiagnostics> = edited.iter().chain(&others).collect();
            let offers = self
                .offer_fixes(&blocks, self.check_deadline(started))
                .await;
            attach(offers, &mut edited, &mut others, &mut result.diagnostics);
        }
        result.feedback = check.feedback_with(&edited, &others, opts);
        self.record_change(&Seen {
            facts: &facts,
            check: &check,
            classification: result.classification,
            diagnostics: &result.diagnostics,
            outcomes: &result.outcomes,
            known_before: &known_before,
            mutation,
            dry_run: mode == Mode::DryRun,
        });
        (result, check)
    }

    /// Each touched file's baseline (see `crate::baseline`): the snapshot
    /// its [`Before`] allows; else, when only the edit's own diagnostics are
    /// shown (`report = "new"`), the text before as the change tells it
    /// (else the file as git has it), checked as text in one wait before
    /// the change is; else none.
    async fn baselines(
        self: &Arc<Self>,
        files: &[Touched],
        report: ReportMode,
    ) -> Vec<Option<Baseline>> {
        let mut baselines: Vec<Option<Baseline>> = Vec::with_capacity(files.len());
        let mut earlier_texts: Vec<(usize, PathBuf, Arc<str>)> = Vec::new();
        for (index, file) in files.iter().enumerate() {
            let PathClass::Inside {
                canonical,
                relative,
            } = self.workspace.classify(&file.path)
            else {
                baselines.push(None);
                continue;
            };
            let snapshot = self.history.baseline(&canonical, &file.before);
            let wants_check = snapshot.is_none()
                && report == ReportMode::New
                && file.before != Before::Absent
                && file.after.is_some();
            baselines.push(snapshot.map(|s| Baseline {
                text: s.text,
                diagnostics: s.diagnostics,
            }));
            let earlier = match &file.before {
                // The text right before, as the caller tells it: exactly
                // what was there, committed or not.
                Before::Text(text) => Some(text.clone()),
                _ => git::committed_text(self.workspace.root(), &relative).map(Arc::from),
            };
            if let (true, Some(text)) = (wants_check, earlier) {
                earlier_texts.push((index, canonical, text));
            }
        }
        if earlier_texts.is_empty() {
            return baselines;
        }
        let inputs = earlier_texts
            .iter()
            .map(|(_, canonical, text)| FileInput {
                content: Some(text.clone()),
                ..FileInput::on_disk(canonical)
            })
            .collect();
        let check = self.check_files(inputs, HeldOthers::Skip).await;
        for ((index, _, text), report) in earlier_texts.into_iter().zip(check.files) {
            tracing::debug!(file = %report.file, count = report.diagnostics.len(), "baseline checked as text");
            baselines[index] = Some(Baseline {
                text,
                diagnostics: report.diagnostics,
            });
        }
        baselines
    }

    /// The deadline the check begun at `started` had: the first touch's
    /// when it took longer than a warm check may (a server started), else
    /// the warm one. Fix lookups end by it.
    fn check_deadline(&self, started: Instant) -> Instant {
        let warm = self.config.diagnostic_timeout;
        let budget = if started.elapsed() > warm {
            self.config.first_touch_timeout.max(warm)
        } else {
            warm
        };
        started + budget
    }

    /// Records a checked file's text and diagnostics as the next change's
    /// "before".
    fn remember(&self, file: &Touched, report: &FileReport) {
        let (Some(after), PathClass::Inside { canonical, .. }) =
            (&file.after, self.workspace.classify(&file.path))
        else {
            return;
        };
        self.history
            .record(&canonical, after.clone(), report.diagnostics.clone());
    }
}

/// Records the other files of `check` in `result` — their diagnostics,
/// outcomes and names — and their verdicts against what the servers had
/// reported for them before the edit (`known_before`, by relative path).
/// Returns their blocks: only what is new in each, with the number of
/// diagnostics `opts` would show that were there before.
fn others_into(
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
fn attach(
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
fn read_after(mut file: Touched) -> Touched {
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
fn classified(
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
