//! The other-files phase: after the touched files' own wait, the files that
//! import them — and the other files the servers hold diagnostics for whose
//! answer a change may have made stale (`engine::fresh`) — are opened (or
//! kept open), synced with their text on disk, and their diagnostics taken
//! once each server is done with the edit — by the server's own signals
//! (`LspClient::other_file_diagnostics`), not by waiting for a fresh publish
//! of each, which a server that has nothing new to say never sends. The
//! other held files keep what the servers said, and nothing waits for them.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::time::Instant;

use super::Engine;
use super::beside::Beside;
use super::check::{FileInput, Mark, OnAnswer, Order, Phase, WaitRules};
use super::dependents::{MAX_DEPENDENTS, likely_dependents};
use super::plan::PlanMemo;
use super::pool::Busy;
use super::report::CheckReport;
use super::send_order::SendOrder;
use super::servers::language_for;
use crate::diagnostic::Diagnostic;
use crate::lsp::other_files::EditMark;
use crate::uri;
use crate::workspace::PathClass;

/// At most this many files the servers hold diagnostics for are checked
/// again beside an edit's importers; beyond them none is reported.
const MAX_HELD_RECHECKED: usize = MAX_DEPENDENTS;

impl Engine {
    /// `check_files` plus the importers of the checked files and the held
    /// files a change may have made stale, opened (or kept open) and taken
    /// once each server is done with the edit; their diagnostics go to
    /// `others`, their outcomes to `other_outcomes`. The other held files'
    /// diagnostics go to `others` as the servers hold them, with no outcome.
    pub async fn check_with_dependents(self: &Arc<Self>, files: Vec<FileInput>) -> CheckReport {
        self.check_with_dependents_early(files, None).await
    }

    /// [`check_with_dependents`](Self::check_with_dependents), beginning
    /// fix lookups for the checked files in `early` as each server answers.
    pub(super) async fn check_with_dependents_early(
        self: &Arc<Self>,
        files: Vec<FileInput>,
        early: Option<Arc<dyn OnAnswer>>,
    ) -> CheckReport {
        let _view = self.shared_view().await;
        let synced = Instant::now();
        self.sync_disk(&self.canonical_paths(&files)).await;
        // Every mark made before now is answered by this check for the
        // files it takes (`fresh`).
        let since = self.fresh.now();
        let started = Instant::now();
        let sync_us = started.duration_since(synced).as_micros() as u64;
        // The first phase's instances stay held through the second: its
        // `written_at` counts are those instances' own.
        let mut held_instances = Vec::new();
        let (phase, beside) = self
            .first_phase(files, early, started, &mut held_instances)
            .await;
        let checked = phase.canonical;
        let mut check = CheckReport {
            files: phase.reports,
            ..CheckReport::default()
        };
        let sent = phase.marks.iter().any(|m| m.sent);
        let edits = edit_marks(phase.marks, started);
        let Beside {
            later: mut others,
            cut,
            phase: beside,
        } = beside;
        if !sent {
            // Every server held every touched text already: no importer
            // can have changed by this check, and only those stale for
            // another reason are checked again (`engine::fresh`).
            others.retain(|path| self.held_is_stale(path));
        }
        let beside_checked: Vec<PathBuf> = beside
            .as_ref()
            .map(|p| p.canonical.clone())
            .unwrap_or_default();
        if !cut {
            // These texts' importers are all checked below: seen again on
            // disk, they are changes the servers have answered for.
            for (path, text) in &phase.sent {
                self.fresh.covered(path, text);
            }
        }
        let kept = self.add_stale_held(&mut others, &check, &checked, &beside_checked);
        let mut taken = checked.clone();
        if let Some(phase) = beside {
            taken.extend(phase.canonical);
            self.take_others(&mut check, phase.reports);
        }
        if !others.is_empty() {
            let rules = WaitRules {
                edits: Arc::new(edits),
                ..WaitRules::default()
            };
            let canonical = self
                .check_later(others, rules, &mut check, &mut held_instances)
                .await;
            taken.extend(canonical);
        }
        self.fresh.taken(&taken, since);
        let kept: Vec<PathBuf> = kept.into_iter().filter(|p| !taken.contains(p)).collect();
        self.keep_held(&mut check, &kept);
        drop(held_instances);
        tracing::debug!(
            files = check.files.len(),
            others = check.others.len(),
            kept = kept.len(),
            sync_us,
            us = started.elapsed().as_micros() as u64,
            "check with dependents done"
        );
        check
    }

    /// The importers, and every other file the servers that answered hold
    /// diagnostics for whose answer a change may have made stale: added to
    /// `others`, to be checked again for their text on disk now (unless
    /// checked beside the touched files). The rest, returned, keep what the
    /// servers said, and nothing waits for them.
    fn add_stale_held(
        &self,
        others: &mut Vec<PathBuf>,
        check: &CheckReport,
        checked: &[PathBuf],
        beside_checked: &[PathBuf],
    ) -> Vec<PathBuf> {
        let (stale, kept): (Vec<PathBuf>, Vec<PathBuf>) = self
            .held_files(check, checked)
            .into_iter()
            .partition(|path| self.held_is_stale(path));
        for path in stale.into_iter().take(MAX_HELD_RECHECKED) {
            if !others.contains(&path) && !beside_checked.contains(&path) {
                others.push(path);
            }
        }
        kept
    }

    /// The first phase: the touched files checked, and beside them the
    /// importers a server answers by pull (`engine::beside`). `started`
    /// precedes every write of it: each server's quiet for the other files
    /// is counted from its last publish after it.
    async fn first_phase(
        self: &Arc<Self>,
        files: Vec<FileInput>,
        early: Option<Arc<dyn OnAnswer>>,
        started: Instant,
        held_instances: &mut Vec<Busy>,
    ) -> (Phase, Beside) {
        // Finding the importers reads files, not servers: it runs on a
        // blocking thread while the first phase waits.
        let touched = self.canonical_paths(&files);
        let importers = {
            let engine = self.clone();
            let edited = touched.clone();
            tokio::task::spawn_blocking(move || engine.importers_of(&edited))
        };
        let mut held_beside = Vec::new();
        let order = SendOrder::new();
        let rules = WaitRules {
            early,
            order: Some(Order::Touched(order.clone())),
            ..WaitRules::default()
        };
        let first = self.check_phase(files, rules, started, held_instances);
        let beside = self.check_beside(importers, &touched, order, started, &mut held_beside);
        let answered = tokio::join!(first, beside);
        held_instances.append(&mut held_beside);
        answered
    }

    /// The second phase: `others` checked for their text on disk, each
    /// server's quiet counted from its last write of the first
    /// (`rules.edits`), into `check`; the files it took.
    async fn check_later(
        self: &Arc<Self>,
        others: Vec<PathBuf>,
        rules: WaitRules,
        check: &mut CheckReport,
        held_instances: &mut Vec<Busy>,
    ) -> Vec<PathBuf> {
        // Its own budget from now: after a cold start the first phase may
        // have used more than diagnosticTimeout already.
        let inputs = others.into_iter().map(FileInput::on_disk).collect();
        let phase = self
            .check_phase(inputs, rules, Instant::now(), held_instances)
            .await;
        self.take_others(check, phase.reports);
        phase.canonical
    }

    /// Other files' reports into `check`: their diagnostics (when any) and
    /// their outcomes.
    fn take_others(&self, check: &mut CheckReport, reports: Vec<super::report::FileReport>) {
        for report in reports {
            if !report.diagnostics.is_empty() {
                check.others.insert(report.file.clone(), report.diagnostics);
            }
            check.other_outcomes.insert(report.file, report.outcomes);
        }
    }

    /// Whether a change may have made the servers' diagnostics of `path`
    /// (a held file) stale: always, when the disk is not watched.
    fn held_is_stale(&self, path: &Path) -> bool {
        self.fresh.stale(path).is_some() || crate::mutex::lock(&self.disk).is_none()
    }

    /// What the involved servers hold for `kept` (canonical paths of files
    /// not checked again), put into `check.others` as they said it.
    fn keep_held(&self, check: &mut CheckReport, kept: &[PathBuf]) {
        if kept.is_empty() {
            return;
        }
        let involved = check.involved_servers();
        let kept: HashSet<String> = kept.iter().map(|p| uri::from_path(p)).collect();
        let held = self.known_diagnostics_of(|server, file_uri| {
            involved.contains(server) && kept.contains(file_uri)
        });
        for (file, diagnostics) in held {
            check.others.entry(file).or_insert(diagnostics);
        }
    }

    /// The files other than `checked` (canonical) that the servers which
    /// answered for `check`'s files hold diagnostics for and that exist on
    /// disk, by canonical path, sorted.
    fn held_files(&self, check: &CheckReport, checked: &[PathBuf]) -> Vec<PathBuf> {
        let involved = check.involved_servers();
        let mut held: Vec<PathBuf> = self
            .pool
            .clients()
            .iter()
            .filter(|client| involved.contains(client.server_id()))
            .flat_map(|client| client.known_diagnostics())
            .filter_map(|(file_uri, _)| uri::to_path(&file_uri))
            .filter(|path| !checked.contains(path) && path.is_file())
            .filter(|path| matches!(self.workspace.classify(path), PathClass::Inside { .. }))
            .collect();
        held.sort();
        held.dedup();
        held
    }

    /// The canonical paths of the inputs inside the workspace.
    pub(super) fn canonical_paths(&self, files: &[FileInput]) -> Vec<PathBuf> {
        self.canonical_of(files.iter().map(|f| f.path.as_path()))
    }

    /// The canonical form of each of `paths` inside the workspace.
    pub(super) fn canonical_of<'a>(
        &self,
        paths: impl IntoIterator<Item = &'a Path>,
    ) -> Vec<PathBuf> {
        paths
            .into_iter()
            .filter_map(|path| match self.workspace.classify(path) {
                PathClass::Inside { canonical, .. } => Some(canonical),
                _ => None,
            })
            .collect()
    }

    /// The files that import any of `files` (not themselves among them), at
    /// most `MAX_DEPENDENTS`, found on a blocking thread (see
    /// [`importers_of`](Self::importers_of)).
    pub(crate) fn importers(
        self: &Arc<Self>,
        files: &[FileInput],
    ) -> tokio::task::JoinHandle<Vec<PathBuf>> {
        let edited = self.canonical_paths(files);
        let engine = self.clone();
        tokio::task::spawn_blocking(move || engine.importers_of(&edited).0)
    }

    /// The files that import any of `edited` (canonical; not themselves
    /// among them), at most `MAX_DEPENDENTS`: one scan per (file, project
    /// root), whichever servers serve it, through the scan cache when the
    /// disk is watched. True beside them when the list was cut short.
    pub(super) fn importers_of(&self, edited: &[PathBuf]) -> (Vec<PathBuf>, bool) {
        let started = std::time::Instant::now();
        let mut scanned: HashSet<(PathBuf, PathBuf)> = HashSet::new();
        let mut found: Vec<PathBuf> = Vec::new();
        let mut cut = false;
        let mut memo = PlanMemo::default();
        for canonical in edited {
            let planned = self.plan_file(canonical, &mut memo);
            let servers: Vec<_> = planned
                .iter()
                .map(|p| &self.servers[p.server_index])
                .collect();
            for root in planned.iter().map(|p| p.root.clone()) {
                if !scanned.insert((canonical.clone(), root.clone())) {
                    continue;
                }
                let serves = |p: &Path| servers.iter().any(|s| language_for(p, s).is_some());
                let deps = match self.scan_cache.get() {
                    Some(cache) => {
                        let ids: Vec<&str> = servers.iter().map(|s| s.spec.id.as_str()).collect();
                        cache.likely_dependents(canonical, &root, &ids.join(","), serves)
                    }
                    None => likely_dependents(canonical, &root, serves),
                };
                cut |= deps.len() >= MAX_DEPENDENTS;
                for dep in deps {
                    if edited.contains(&dep) || found.contains(&dep) {
                        continue;
                    }
                    if found.len() < MAX_DEPENDENTS {
                        found.push(dep);
                    } else {
                        cut = true;
                    }
                }
            }
        }
        tracing::debug!(
            found = found.len(),
            cached = self.scan_cache.get().is_some(),
            us = started.elapsed().as_micros() as u64,
            "importers found"
        );
        (found, cut)
    }

    /// For servers that answer pulls (LSP or synchronous), the other files
    /// they reported before are pulled again (those this check did not
    /// pull), so that `other_files` reports what they say now
    /// (`LspClient::repull_reported`).
    /// `fresh`: the canonical paths of every file this check took, in
    /// either phase.
    pub(super) async fn repull_reported(&self, check: &CheckReport, fresh: &[PathBuf]) {
        let involved = check.involved_servers();
        let fresh: HashSet<String> = fresh.iter().map(|p| uri::from_path(p)).collect();
        let deadline = Instant::now() + self.config.diagnostic_timeout;
        for client in self.pool.clients() {
            if involved.contains(client.server_id()) {
                client.repull_reported(&fresh, deadline).await;
            }
        }
    }

    /// Diagnostics the running servers hold for files other than the checked
    /// ones (`checked`: their canonical paths), from the servers involved in
    /// the check.
    pub(super) fn other_files(
        &self,
        check: &CheckReport,
        checked: &[PathBuf],
    ) -> BTreeMap<String, Vec<Diagnostic>> {
        let involved = check.involved_servers();
        let checked: HashSet<String> = checked.iter().map(|p| uri::from_path(p)).collect();
        self.known_diagnostics_of(|server, file_uri| {
            involved.contains(server) && !checked.contains(file_uri)
        })
    }
}

/// Where each server (and root) stood after the first phase's writes: its
/// last write's sequence number and whether it had answered for all of
/// them; the second phase counts each server's quiet from there.
fn edit_marks(marks: Vec<Mark>, started: Instant) -> HashMap<(String, PathBuf), EditMark> {
    let mut edits: HashMap<(String, PathBuf), EditMark> = HashMap::new();
    for mark in marks {
        let seen = edits
            .entry((mark.server, mark.root))
            .or_insert(EditMark::new(0, started, true));
        seen.seq = seen.seq.max(mark.written_at);
        seen.done &= mark.done;
    }
    edits
}
