//! What a change answers, on every surface: the touched files checked in
//! one parallel wait (and, where the configuration says so, the files that
//! import them), each classified against what was there before
//! (`crate::baseline`), and rendered once. The wrapped tools
//! (`edit`, `write`, `apply_patch`) and `squiggle/check` — which the hooks
//! call through the daemon, or in process — all run [`Engine::report`],
//! so one change gets one answer whoever reports it. The structured result
//! carries every diagnostic the rendered feedback came from — other files
//! included — and every (file, server) outcome of both phases, so a program
//! reading it misses nothing the model is told.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use tokio::time::Instant;

use super::Mode;
use super::blocks::{Baseline, attach, classified, others_into, read_after};
use super::check::{FileInput, HeldOthers, WaitRules};
use super::evidence::{FileFacts, Seen};
use super::fixes::EarlyFixes;
use super::report::{CheckReport, FileReport};
use super::reported::Reported;
use super::result::ToolResult;
use super::touched::Touched;
use super::{Change, Engine, Mutation};
use crate::baseline::{Before, Classification, worst};
use crate::diagnostic::Diagnostic;
use crate::render::{FileDiagnostics, RenderOptions, ReportMode, with_auto_fixes};
use crate::workspace::PathClass;

/// What was known before a change's check: each touched file's
/// baseline, what the servers said of every other file (when other files
/// are reported), and when the change began.
struct Prior {
    baselines: Vec<Option<Baseline>>,
    known_before: Option<super::known::KnownSnapshot>,
    /// The importers squiggle had never taken, checked for the text
    /// before the change (`engine::before`).
    importers_before: BTreeMap<String, Vec<Diagnostic>>,
    started: Instant,
    /// The fix lookups begun during the check (none after an auto-fix).
    early: EarlyFixes,
}

impl Engine {
    /// The answer to `change`: the touched files checked in one parallel
    /// wait (with their importers when `otherFiles` says so for this kind of
    /// mutation), each classified against what was there before, rendered
    /// under the engine's options. Auto-fix (`autoFix`) runs after it when
    /// `change` allows it and the change introduced errors: the answer is
    /// then the files' state after it, and says what it applied and
    /// reverted.
    pub(super) async fn report(
        self: &Arc<Self>,
        change: Change,
        files: Vec<Touched>,
    ) -> ToolResult {
        let opts = self.render_options();
        self.report_with(change, files, None, &opts).await
    }

    /// [`report`](Self::report) for a change made outside the engine (the
    /// hooks' `squiggle/check`), rendered under `opts`, its files held as
    /// an edit holds them (in path order), so two checks of one file, each
    /// with its own text before, never put their texts on the servers in
    /// between each other's (four agents' hooks at once on one daemon).
    pub(super) async fn report_outside_change(
        self: &Arc<Self>,
        files: Vec<Touched>,
        mutation: Mutation,
        opts: &RenderOptions,
    ) -> ToolResult {
        let _held = self
            .lock_files(files.iter().map(|f| f.path.as_path()))
            .await;
        let change = Change::of(String::new(), mutation, Mode::Apply);
        self.report_with(change, files, None, opts).await
    }

    /// [`report`](Self::report) against a "before" the caller states for
    /// every file (relative path → diagnostics; a file not named had
    /// none): a speculative session's evaluation, measured against the
    /// disk when the session opened, so that its text and its
    /// `newErrors` agree.
    pub(super) async fn report_against(
        self: &Arc<Self>,
        change: Change,
        files: Vec<Touched>,
        stated: BTreeMap<String, Vec<Diagnostic>>,
    ) -> ToolResult {
        let opts = self.render_options();
        self.report_with(change, files, Some(stated), &opts).await
    }

    /// The one way every door above answers; with `stated`, every file's
    /// "before" is the caller's, not squiggle's own.
    async fn report_with(
        self: &Arc<Self>,
        change: Change,
        files: Vec<Touched>,
        stated: Option<BTreeMap<String, Vec<Diagnostic>>>,
        opts: &RenderOptions,
    ) -> ToolResult {
        let _checking = self.changes.enter();
        let started = Instant::now();
        let mut files: Vec<Touched> = files.into_iter().map(read_after).collect();
        let others = self.reports_other_files(change.mutation);
        // What the servers said of every other file before this edit (and
        // before a git baseline is checked): an importer's error that was
        // already there is not the edit's.
        let known_before = (others && stated.is_none()).then(|| self.known_snapshot());
        let fixing =
            change.auto_fix && change.mode == Mode::Apply && !self.config.auto_fix.rules.is_empty();
        // Auto-fix touches only what the edit introduced, so it needs to
        // know what was there before as much as `report = "new"` does.
        let wanted = opts.report == ReportMode::New || fixing;
        let befores = match stated {
            Some(stated) => self.stated_befores(&files, stated),
            None => self.befores(&files, wanted, others).await,
        };
        let baselines = befores.baselines;
        let mut early = EarlyFixes::default();
        let mut check = self.check_change(&files, others, &early).await;
        self.hide_ignored(&mut check, &self.texts(&files));
        let mut auto_fixes = Vec::new();
        if fixing {
            let fixing = Instant::now();
            let run = self
                .auto_fix_change(&files, &baselines, check.clone())
                .await;
            tracing::debug!(
                auto_fix_us = fixing.elapsed().as_micros() as u64,
                tried = run.tried.len(),
                "auto-fix done"
            );
            auto_fixes = run.tried;
            let replaced = run.check.is_some();
            if let Some(mut now) = run.check {
                early = EarlyFixes::default();
                if !others {
                    now.others.clear();
                    now.other_outcomes.clear();
                }
                check = now;
            }
            if run.kept {
                files = files
                    .into_iter()
                    .map(|f| read_after(Touched { after: None, ..f }))
                    .collect();
            }
            if replaced {
                self.hide_ignored(&mut check, &self.texts(&files));
            }
        }
        let prior = Prior {
            baselines,
            known_before,
            importers_before: befores.importers,
            started,
            early,
        };
        let mut result = self
            .answer_check(&change, &files, prior, &check, opts)
            .await;
        if !auto_fixes.is_empty() {
            let feedback = std::mem::take(&mut result.feedback);
            result.feedback = with_auto_fixes(&auto_fixes, opts.escape, feedback);
            result.auto_fixes = auto_fixes;
        }
        result
    }

    /// The touched files checked in one wait, with the files that import
    /// them when `others`.
    async fn check_change(
        self: &Arc<Self>,
        files: &[Touched],
        others: bool,
        early: &EarlyFixes,
    ) -> CheckReport {
        // Several files: every new text on the servers before the check
        // waits on any, so that the answer is for the final state of all.
        if files.len() > 1 {
            let texts: Vec<(PathBuf, Arc<str>)> = files
                .iter()
                .filter_map(|f| match self.workspace.classify(&f.path) {
                    PathClass::Inside { canonical, .. } => Some((canonical, f.after.clone()?)),
                    _ => None,
                })
                .collect();
            self.send_first(&texts).await;
        }
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
        let early = (self.config.fix_lines > 0)
            .then(|| Arc::new(early.clone()) as Arc<dyn super::check::OnAnswer>);
        if others {
            self.check_with_dependents_early(inputs, early).await
        } else {
            let rules = WaitRules {
                early,
                ..WaitRules::default()
            };
            self.check_files_with(inputs, HeldOthers::Skip, rules).await
        }
    }

    /// The answer to `change` from its check: each touched file against its
    /// baseline, the other files against what the servers said before
    /// (`known_before`), the fix lines; the evidence recorded.
    async fn answer_check(
        self: &Arc<Self>,
        change: &Change,
        files: &[Touched],
        prior: Prior,
        check: &CheckReport,
        opts: &RenderOptions,
    ) -> ToolResult {
        let Prior {
            baselines,
            known_before,
            importers_before,
            started,
            early,
        } = prior;
        let mut result = ToolResult {
            message: change.message.clone(),
            feedback: String::new(),
            diagnostics: Vec::new(),
            classification: Classification::LspUnavailable,
            baseline_known: true,
            outcomes: BTreeMap::new(),
            other_files: Vec::new(),
            dry_run: change.mode == Mode::DryRun,
            auto_fixes: Vec::new(),
            ignored: check.ignored.clone(),
        };
        let remember = change.mode == Mode::Apply && check.any_server();
        let (mut edited, mut verdicts, facts) = self.touched_into(
            files,
            baselines,
            check,
            (opts.report, remember),
            &mut result,
        );
        // Every other file waited on, with errors now or not: one that has
        // none now may have had some before (an importer this change
        // repaired), which the evidence log says.
        let mut known_before = known_before
            .map(|known| {
                known.for_files(self, check.others.keys().chain(check.other_outcomes.keys()))
            })
            .unwrap_or_default();
        known_before.extend(importers_before);
        let mut others = others_into(check, &known_before, opts, &mut result, &mut verdicts);
        result.classification = worst(&verdicts);
        let answered = Instant::now();
        if self.config.fix_lines > 0 {
            let blocks: Vec<&FileDiagnostics> = edited.iter().chain(&others).collect();
            let offers = self
                .offer_fixes(&blocks, &early, self.check_deadline(started))
                .await;
            attach(offers, &mut edited, &mut others, &mut result.diagnostics);
        }
        // What the fix lookups add to the answer, apart from the check
        // (`scripts/truth/truth.py fixes` reads these).
        tracing::debug!(
            checked_us = answered.duration_since(started).as_micros() as u64,
            fixes_us = answered.elapsed().as_micros() as u64,
            "change answered"
        );
        result.feedback = check.feedback_with(&edited, &others, opts);
        self.record_change(&Seen {
            facts: &facts,
            check,
            classification: result.classification,
            diagnostics: &result.diagnostics,
            outcomes: &result.outcomes,
            known_before: &known_before,
            mutation: change.mutation,
            dry_run: change.mode == Mode::DryRun,
            recorded: change.recorded,
        });
        result
    }

    /// Each touched file's answer into `result` (its diagnostics flagged
    /// new against its baseline, its outcomes), remembered as the next
    /// change's "before" when `remember`; its block, verdict and facts.
    fn touched_into(
        &self,
        files: &[Touched],
        baselines: Vec<Option<Baseline>>,
        check: &CheckReport,
        (mode, remember): (ReportMode, bool),
        result: &mut ToolResult,
    ) -> (Vec<FileDiagnostics>, Vec<Classification>, Vec<FileFacts>) {
        let mut verdicts = Vec::new();
        let mut edited = Vec::new();
        let mut facts = Vec::new();
        for ((report, file), baseline) in check.files.iter().zip(files).zip(baselines) {
            result.baseline_known &= baseline.is_some() || file.before == Before::Absent;
            let (block, verdict, fact, new) = classified(report, file, baseline, check, mode);
            edited.push(block);
            verdicts.push(verdict);
            facts.push(fact);
            let flagged = report.diagnostics.iter().cloned().zip(new);
            result
                .diagnostics
                .extend(flagged.map(|(d, new)| Reported::new(d, new)));
            let outcomes = report.outcomes.clone();
            result.outcomes.insert(report.file.clone(), outcomes);
            if remember {
                self.remember(file, report);
            }
        }
        (edited, verdicts, facts)
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
