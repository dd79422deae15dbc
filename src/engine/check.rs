//! Checking files: open or update each file in every server that serves it,
//! then wait for every (file, server) pair at once under one deadline —
//! never one wait per file or per server in sequence. A server that had to
//! start gets `firstTouchTimeout`; a warm one `diagnosticTimeout`.
//!
//! `check_with_dependents` (`engine::others`) adds a second phase for the
//! files that import the checked ones.

mod one;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use tokio::task::JoinSet;
use tokio::time::Instant;

use super::Engine;
use super::checkable::checkable_text;
use super::plan::PlanMemo;
use super::pool::Busy;
use super::report::{CheckReport, FileReport, ServerOutcome};
use super::send_order::SendOrder;
use crate::diagnostic::{Diagnostic, Outcome, sort_and_dedupe};
use crate::lsp::other_files::EditMark;
use crate::workspace::PathClass;

/// A file to check, with its content when the caller has it (staged content,
/// a dry run); otherwise it is read from disk.
#[derive(Debug, Clone)]
pub struct FileInput {
    pub path: PathBuf,
    pub content: Option<Arc<str>>,
    /// The text before the edit, when the caller knows it (see
    /// `WaitProfile::open_then_change`).
    pub before: Option<Arc<str>>,
}

impl FileInput {
    pub fn on_disk(path: impl Into<PathBuf>) -> FileInput {
        FileInput {
            path: path.into(),
            content: None,
            before: None,
        }
    }
}

/// One (file, server) pair to wait on.
struct Pending {
    server_index: usize,
    language: String,
    root: PathBuf,
    canonical: PathBuf,
    text: Arc<str>,
    before: Option<Arc<str>>,
    relative: String,
}

/// Where the edit reached each (server, root) instance, and whether that
/// server's answer for the edited files was final: the facts a wait for
/// another file needs. Empty in the first phase.
#[derive(Default, Clone)]
pub(super) struct WaitRules {
    pub(super) edits: Arc<HashMap<(String, PathBuf), EditMark>>,
    /// Told of each server's answer for a checked file as it comes in
    /// (a change's first phase, when it shows fix lines: the lookups
    /// begin there, `fixes::EarlyFixes`).
    pub(super) early: Option<Arc<dyn OnAnswer>>,
    /// When importers are checked beside the touched files
    /// (`engine::beside`): which side of the send order this phase is on.
    pub(super) order: Option<Order>,
}

/// Told of each server's answer for a checked file while the check still
/// waits for the others: how a room above the check (the fix lines)
/// begins work early without the check naming it.
pub(super) trait OnAnswer: Send + Sync {
    fn answered(&self, engine: &Engine, diagnostics: &[Diagnostic], deadline: Instant);
}

/// A phase's place in a change's send order.
#[derive(Clone)]
pub(super) enum Order {
    /// The touched files: each wait says when its text was sent.
    Touched(Arc<SendOrder>),
    /// Importers checked beside them: sent once every touched text was.
    Beside(Arc<SendOrder>),
}

/// Where one server's wait for one checked file stood: what the
/// other-files phase needs about the first, and the engine's own
/// bookkeeping (never part of the public [`CheckReport`]).
#[derive(Debug, Clone)]
pub(super) struct Mark {
    pub(super) server: String,
    /// The instance's project root (to match dependents to instances).
    pub(super) root: PathBuf,
    /// The server's `received_count()` once this file's change was written.
    pub(super) written_at: u64,
    /// Whether the server's answer for the file was final (pulled or settled).
    pub(super) done: bool,
    /// Whether the file's text was sent: false when the server held it
    /// already, so nothing that imports it can have changed by this check.
    pub(super) sent: bool,
}

/// One parallel wait's result: the public reports, in the order the files
/// were given, and the bookkeeping beside them.
pub(super) struct Phase {
    pub(super) reports: Vec<FileReport>,
    /// The canonical paths of the checked files inside the workspace.
    pub(super) canonical: Vec<PathBuf>,
    /// One per (file, server) wait that asked a server.
    pub(super) marks: Vec<Mark>,
    /// The text sent for each checked file, by canonical path.
    pub(super) sent: Vec<(PathBuf, Arc<str>)>,
}

/// Whether a check also reports what the involved servers already hold for
/// files it did not check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeldOthers {
    /// Only the checked files.
    Skip,
    /// The checked files, and every other file's diagnostics the servers
    /// that served them hold once the wait is over.
    Include,
}

impl Engine {
    /// Checks `files`; with [`HeldOthers::Include`], also collects the
    /// diagnostics the involved servers hold for other files.
    pub async fn check_files(
        self: &Arc<Self>,
        files: Vec<FileInput>,
        others: HeldOthers,
    ) -> CheckReport {
        self.check_files_with(files, others, WaitRules::default())
            .await
    }

    /// [`check_files`](Self::check_files) under `rules`.
    pub(super) async fn check_files_with(
        self: &Arc<Self>,
        files: Vec<FileInput>,
        others: HeldOthers,
        rules: WaitRules,
    ) -> CheckReport {
        let _view = self.shared_view().await;
        self.sync_disk(&self.canonical_paths(&files)).await;
        let since = self.fresh.now();
        let started = Instant::now();
        let mut held = Vec::new();
        let phase = self.check_phase(files, rules, started, &mut held).await;
        self.fresh.taken(&phase.canonical, since);
        let mut check = CheckReport {
            files: phase.reports,
            ..CheckReport::default()
        };
        if others == HeldOthers::Include {
            self.repull_reported(&check, &phase.canonical).await;
            check.others = self.other_files(&check, &phase.canonical);
        }
        drop(held);
        tracing::debug!(
            files = check.files.len(),
            ms = started.elapsed().as_millis() as u64,
            "check done"
        );
        check
    }

    /// One parallel wait over `files`. The instances it used stay held in
    /// `held` (never stopped by the pool) until the caller drops them: the
    /// other-files phase needs the same instances the first phase used.
    pub(super) async fn check_phase(
        self: &Arc<Self>,
        files: Vec<FileInput>,
        rules: WaitRules,
        started: Instant,
        held: &mut Vec<Busy>,
    ) -> Phase {
        let mut reports: Vec<FileReport> = Vec::with_capacity(files.len());
        let mut canonical = Vec::new();
        let mut marks = Vec::new();
        let mut sent = Vec::new();
        let mut waits = JoinSet::new();
        let mut memo = PlanMemo::default();
        for (index, input) in files.into_iter().enumerate() {
            let (report, path, pending) = self.prepare(input, &mut memo);
            reports.push(report);
            canonical.extend(path);
            if let Some(p) = pending.first() {
                sent.push((p.canonical.clone(), p.text.clone()));
            }
            for p in pending {
                let engine = self.clone();
                let rules = rules.clone();
                let token = match &rules.order {
                    Some(Order::Touched(order)) => Some(order.token()),
                    _ => None,
                };
                waits.spawn(
                    async move { (index, engine.wait_one(p, &rules, started, token).await) },
                );
            }
        }
        if let Some(Order::Touched(order)) = &rules.order {
            order.arm();
        }
        while let Some(joined) = waits.join_next().await {
            let Ok((index, (outcome, mark, diagnostics, busy))) = joined else {
                continue;
            };
            held.extend(busy);
            marks.push(mark);
            if let Some(early) = &rules.early {
                early.answered(self, &diagnostics, started + self.config.diagnostic_timeout);
            }
            let report = &mut reports[index];
            report.outcomes.push(outcome);
            report.diagnostics.extend(diagnostics);
        }
        for report in &mut reports {
            sort_and_dedupe(&mut report.diagnostics);
            report.outcomes.sort_by(|a, b| a.server.cmp(&b.server));
        }
        Phase {
            reports,
            canonical,
            marks,
            sent,
        }
    }

    /// Classifies a file and lists the (server, language, root) pairs to
    /// wait on; with its canonical path when it is inside the workspace.
    fn prepare(
        &self,
        input: FileInput,
        memo: &mut PlanMemo,
    ) -> (FileReport, Option<PathBuf>, Vec<Pending>) {
        let mut report = FileReport {
            file: input.path.display().to_string(),
            diagnostics: Vec::new(),
            outcomes: Vec::new(),
        };
        let (canonical, relative) = match self.workspace.classify(&input.path) {
            PathClass::Inside {
                canonical,
                relative,
            } => (canonical, relative),
            PathClass::Outside { canonical } => {
                let detail = format!(
                    "{} is outside the workspace {}",
                    canonical.display(),
                    self.workspace.root().display()
                );
                report.outcomes.push(ServerOutcome::without_server(
                    Outcome::OutsideWorkspace,
                    detail,
                ));
                return (report, None, Vec::new());
            }
            PathClass::Ignored { relative, dir, .. } => {
                report.file = relative;
                report.outcomes.push(ServerOutcome::without_server(
                    Outcome::Ignored,
                    format!("files under {dir}/ are not checked"),
                ));
                return (report, None, Vec::new());
            }
        };
        report.file = relative.clone();
        if !self.config.enabled {
            report.outcomes.push(ServerOutcome::without_server(
                Outcome::Unavailable,
                "lsp is disabled in the configuration".into(),
            ));
            return (report, Some(canonical), Vec::new());
        }
        let text = match checkable_text(input.content, &canonical) {
            Ok(text) => text,
            Err(outcome) => {
                report.outcomes.push(outcome);
                return (report, Some(canonical), Vec::new());
            }
        };
        let pending: Vec<Pending> = self
            .plan_file(&canonical, memo)
            .into_iter()
            .map(|planned| Pending {
                server_index: planned.server_index,
                language: planned.language,
                root: planned.root,
                canonical: canonical.clone(),
                text: text.clone(),
                before: input.before.clone(),
                relative: relative.clone(),
            })
            .collect();
        if pending.is_empty() {
            let detail = format!("no language server is configured for {}", report.file);
            report
                .outcomes
                .push(ServerOutcome::without_server(Outcome::Unavailable, detail));
        }
        (report, Some(canonical), pending)
    }
}
