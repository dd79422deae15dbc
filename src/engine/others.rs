//! The other-files phase: after the touched files' own wait, the files that
//! import them are opened (or kept open) and their diagnostics taken once each
//! server is done with the edit — by the server's own signals
//! (`LspClient::other_file_diagnostics`), not by waiting for a fresh publish
//! of each importer, which a server that has nothing new to say never sends.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::time::Instant;

use super::Engine;
use super::check::{FileInput, WaitRules};
use super::dependents::{MAX_DEPENDENTS, likely_dependents};
use super::report::CheckReport;
use super::servers::{language_for, serving};
use crate::diagnostic::Diagnostic;
use crate::lsp::other_files::EditMark;
use crate::lsp::uri;
use crate::workspace::PathClass;

impl Engine {
    /// `check_files` plus the importers of the checked files, opened (or
    /// kept open) and taken once each server is done with the edit; their
    /// diagnostics go to `others`, their outcomes to `other_outcomes`.
    pub async fn check_with_dependents(self: &Arc<Self>, files: Vec<FileInput>) -> CheckReport {
        let synced = Instant::now();
        let first = WaitRules {
            resend: self.sync_disk(&self.canonical_paths(&files)).await,
            ..WaitRules::default()
        };
        let started = Instant::now();
        let sync_us = started.duration_since(synced).as_micros() as u64;
        // Finding the importers reads files, not servers: it runs on a
        // blocking thread while the first phase waits.
        let importers = self.importers(&files);
        // The first phase's instances stay held through the second: its
        // `written_at` counts are those instances' own. `started` precedes
        // every write of the first phase: each server's quiet for the other
        // files is counted from its last publish after it.
        let mut held = Vec::new();
        let phase = self.check_phase(files, first, started, &mut held).await;
        let mut checked = phase.canonical;
        let mut check = CheckReport {
            files: phase.reports,
            ..CheckReport::default()
        };
        let mut edits: HashMap<(String, PathBuf), EditMark> = HashMap::new();
        for mark in phase.marks {
            let seen = edits.entry((mark.server, mark.root)).or_insert(EditMark {
                seq: 0,
                at: started,
                done: true,
            });
            seen.seq = seen.seq.max(mark.written_at);
            seen.done &= mark.done;
        }
        let dependents = importers.await.unwrap_or_default();
        let first_phase = checked.len();
        if !dependents.is_empty() {
            // Phase 2 has its own budget from now: after a cold start the
            // first phase may have used more than diagnosticTimeout already.
            let rules = WaitRules {
                edits: Arc::new(edits),
                resend: false,
            };
            let inputs = dependents.into_iter().map(FileInput::on_disk).collect();
            let phase = self.check_phase(inputs, rules, Instant::now(), &mut held);
            let phase = phase.await;
            checked.extend(phase.canonical);
            for report in phase.reports {
                if !report.diagnostics.is_empty() {
                    check.others.insert(report.file.clone(), report.diagnostics);
                }
                check.other_outcomes.insert(report.file, report.outcomes);
            }
        }
        self.repull_reported(&check, &checked).await;
        for (file, diagnostics) in self.other_files(&check, &checked[..first_phase]) {
            check.others.entry(file).or_insert(diagnostics);
        }
        drop(held);
        tracing::debug!(
            files = check.files.len(),
            others = check.others.len(),
            sync_us,
            us = started.elapsed().as_micros() as u64,
            "check with dependents done"
        );
        check
    }

    /// The canonical paths of the inputs inside the workspace.
    pub(super) fn canonical_paths(&self, files: &[FileInput]) -> Vec<PathBuf> {
        files
            .iter()
            .filter_map(|f| match self.workspace.classify(&f.path) {
                PathClass::Inside { canonical, .. } => Some(canonical),
                _ => None,
            })
            .collect()
    }

    /// The files that import any of `files` (not themselves among them), at
    /// most `MAX_DEPENDENTS`, found on a blocking thread: one scan per
    /// (file, project root), whichever servers serve it, through the scan
    /// cache when the disk is watched.
    fn importers(self: &Arc<Self>, files: &[FileInput]) -> tokio::task::JoinHandle<Vec<PathBuf>> {
        let edited = self.canonical_paths(files);
        let engine = self.clone();
        tokio::task::spawn_blocking(move || {
            let started = std::time::Instant::now();
            let mut scanned: HashSet<(PathBuf, PathBuf)> = HashSet::new();
            let mut found: Vec<PathBuf> = Vec::new();
            for canonical in &edited {
                let servers: Vec<_> = serving(canonical, &engine.servers)
                    .into_iter()
                    .map(|(index, _)| &engine.servers[index])
                    .collect();
                for server in &servers {
                    let root = engine.project_root_for(canonical, server);
                    if !scanned.insert((canonical.clone(), root.clone())) {
                        continue;
                    }
                    let serves = |p: &Path| servers.iter().any(|s| language_for(p, s).is_some());
                    let deps = match engine.scan_cache.get() {
                        Some(cache) => {
                            let ids: Vec<&str> =
                                servers.iter().map(|s| s.spec.id.as_str()).collect();
                            cache.likely_dependents(canonical, &root, &ids.join(","), serves)
                        }
                        None => likely_dependents(canonical, &root, serves),
                    };
                    for dep in deps {
                        if !edited.contains(&dep)
                            && !found.contains(&dep)
                            && found.len() < MAX_DEPENDENTS
                        {
                            found.push(dep);
                        }
                    }
                }
            }
            tracing::debug!(
                found = found.len(),
                cached = engine.scan_cache.get().is_some(),
                us = started.elapsed().as_micros() as u64,
                "importers found"
            );
            found
        })
    }

    /// For servers answering synchronous pulls, the other files they
    /// reported before are pulled again (those this check did not pull), so
    /// that `other_files` reports what they say now (`lsp::sync_pull`).
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
        self.known_diagnostics(|server, file_uri| {
            involved.contains(server) && !checked.contains(file_uri)
        })
    }
}
