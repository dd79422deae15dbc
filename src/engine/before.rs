//! What was there before a change, found before its check: each touched
//! file's baseline (`crate::baseline`), and — so that a first edit blames
//! nothing old — the diagnostics of the files that import the touched ones
//! and whose diagnostics squiggle has never taken. Those importers are
//! checked as they are on disk in the same wait as the touched files' text
//! before (the caller's, squiggle's last snapshot, or git's), so that an
//! importer's error that was there before the change counts as old, never
//! as the change's; then closed, so that the change's own check opens them
//! afresh. A warm edit, whose importers the servers already hold, adds no
//! wait. An importer of a server that does not re-check an open file when
//! what it includes changes (clangd) is left to the change's check.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::Engine;
use super::blocks::Baseline;
use super::check::{FileInput, HeldOthers};
use super::plan::PlanMemo;
use super::touched::Touched;
use crate::baseline::{Before, git};
use crate::diagnostic::{Diagnostic, Outcome};
use crate::lsp::profile::OthersDone;
use crate::uri;
use crate::workspace::PathClass;

/// What was there before a change, as far as it could be known.
pub(super) struct Befores {
    /// Each touched file's baseline, in the order given.
    pub(super) baselines: Vec<Option<Baseline>>,
    /// The diagnostics of the importers squiggle had never taken, for the
    /// text before the change, by relative path (clean ones included); or
    /// every file's, as the caller stated them.
    pub(super) importers: BTreeMap<String, Vec<Diagnostic>>,
}

/// One touched file inside the workspace: where it is, its baseline when
/// a snapshot serves, and its text before when one is known.
struct Earlier {
    index: usize,
    canonical: PathBuf,
    /// The snapshot's text, else the caller's text before, else git's.
    text: Option<Arc<str>>,
    /// Whether its baseline is to be checked as text (no snapshot serves).
    check: bool,
}

impl Engine {
    /// Each touched file's baseline: the snapshot its [`Before`] allows;
    /// else, when what the edit introduced must be told apart (`wanted`:
    /// `report = "new"`, or auto-fix), the text before as the change tells
    /// it (else the file as git has it), checked as text in one wait before
    /// the change is; else none. With `importers` (the change reports other
    /// files), the importers never taken are checked in that same wait.
    pub(super) async fn befores(
        self: &Arc<Self>,
        files: &[Touched],
        wanted: bool,
        importers: bool,
    ) -> Befores {
        let (mut baselines, earlier, created) = self.earlier_texts(files, wanted, importers);
        // An importer's "before" needs every touched file's text before on
        // the servers: a created file cannot be put back to absent.
        let all_known = !created && earlier.iter().all(|e| e.text.is_some());
        let untaken = if importers && all_known && !earlier.is_empty() {
            self.untaken_importers(&earlier).await
        } else {
            Vec::new()
        };
        let checked: Vec<&Earlier> = earlier
            .iter()
            .filter(|e| e.text.is_some() && (e.check || !untaken.is_empty()))
            .collect();
        if checked.is_empty() {
            return Befores {
                baselines,
                importers: BTreeMap::new(),
            };
        }
        let importers = self.check_earlier(checked, &untaken, &mut baselines).await;
        Befores {
            baselines,
            importers,
        }
    }

    /// Each touched file's known baseline (a snapshot whose text is the
    /// text before), and for each file inside the workspace its text
    /// before, where known, and whether it must be checked; and whether
    /// the change created a file.
    fn earlier_texts(
        &self,
        files: &[Touched],
        wanted: bool,
        importers: bool,
    ) -> (Vec<Option<Baseline>>, Vec<Earlier>, bool) {
        let mut baselines: Vec<Option<Baseline>> = Vec::with_capacity(files.len());
        let mut earlier: Vec<Earlier> = Vec::new();
        let mut created = false;
        for (index, file) in files.iter().enumerate() {
            let PathClass::Inside {
                canonical,
                relative,
            } = self.workspace.classify(&file.path)
            else {
                baselines.push(None);
                continue;
            };
            created |= file.before == Before::Absent;
            let snapshot = self.history.baseline(&canonical, &file.before);
            let check = snapshot.is_none()
                && wanted
                && file.before != Before::Absent
                && file.after.is_some();
            let text = match (&snapshot, &file.before) {
                (Some(s), _) => Some(s.text.clone()),
                // The text right before, as the caller tells it: exactly
                // what was there, committed or not.
                (None, Before::Text(text)) => Some(text.clone()),
                (None, Before::Absent) => None,
                // git is asked only when its answer is used: for this
                // file's baseline, or for the importers' "before".
                (None, Before::Unknown) if check || importers => {
                    git::committed_text(self.workspace.root(), &relative).map(Arc::from)
                }
                (None, Before::Unknown) => None,
            };
            baselines.push(snapshot.map(|s| Baseline {
                text: s.text,
                diagnostics: s.diagnostics,
            }));
            earlier.push(Earlier {
                index,
                canonical,
                text,
                check,
            });
        }
        (baselines, earlier, created)
    }

    /// Checks the `checked` files' texts before, and the `untaken`
    /// importers on disk beside them, in one wait: each checked file's
    /// answer becomes its baseline; the importers' answers (those a server
    /// gave) are returned as their "before".
    async fn check_earlier(
        self: &Arc<Self>,
        checked: Vec<&Earlier>,
        untaken: &[PathBuf],
        baselines: &mut [Option<Baseline>],
    ) -> BTreeMap<String, Vec<Diagnostic>> {
        let inputs = checked
            .iter()
            .map(|e| FileInput {
                content: e.text.clone(),
                ..FileInput::on_disk(&e.canonical)
            })
            .chain(untaken.iter().map(FileInput::on_disk))
            .collect();
        let mut check = self.check_files(inputs, HeldOthers::Skip).await;
        let importer_reports = check.files.split_off(checked.len());
        // Closed again: the change's own check opens them afresh, so that a
        // server which does not re-check an open file when what it imports
        // changes (clangd) answers for the change, not for the text before.
        for client in self.pool.clients() {
            for path in untaken {
                client.close_document(path);
            }
        }
        for (e, report) in checked.into_iter().zip(check.files) {
            tracing::debug!(file = %report.file, count = report.diagnostics.len(), "baseline checked as text");
            if let (true, Some(text)) = (e.check, &e.text) {
                baselines[e.index] = Some(Baseline {
                    text: text.clone(),
                    diagnostics: report.diagnostics,
                });
            }
        }
        let importers = importer_reports
            .into_iter()
            .filter(|r| {
                r.outcomes
                    .iter()
                    .any(|o| matches!(o.outcome, Outcome::Pulled | Outcome::Settled))
            })
            .map(|r| (r.file, r.diagnostics))
            .collect::<BTreeMap<_, _>>();
        tracing::debug!(importers = importers.len(), "importers' before checked");
        importers
    }

    /// The baselines a caller states: each touched file's text before
    /// (empty for a created one) with `stated`'s diagnostics for it; and
    /// `stated` as every other file's "before".
    pub(super) fn stated_befores(
        &self,
        files: &[Touched],
        stated: BTreeMap<String, Vec<Diagnostic>>,
    ) -> Befores {
        let baselines = files
            .iter()
            .map(|file| {
                let PathClass::Inside { relative, .. } = self.workspace.classify(&file.path) else {
                    return None;
                };
                let text = match &file.before {
                    Before::Text(text) => text.clone(),
                    Before::Absent => Arc::from(""),
                    Before::Unknown => return None,
                };
                Some(Baseline {
                    text,
                    diagnostics: stated.get(&relative).cloned().unwrap_or_default(),
                })
            })
            .collect();
        Befores {
            baselines,
            importers: stated,
        }
    }

    /// Whether every server of `path` re-checks it, open, when what it
    /// imports changes: one that rebuilds only the files it reports a
    /// status for (`OthersDone::RebuildStatus`, clangd's includers) would
    /// answer the change's check for the text before.
    fn rechecks_open_importers(&self, path: &Path, memo: &mut PlanMemo) -> bool {
        self.plan_file(path, memo).iter().all(|p| {
            self.servers[p.server_index].spec.wait.others_done != OthersDone::RebuildStatus
        })
    }

    /// The files importing the touched ones (canonical) that no running
    /// server has open or has reported on: squiggle has never taken their
    /// diagnostics.
    async fn untaken_importers(self: &Arc<Self>, earlier: &[Earlier]) -> Vec<PathBuf> {
        let inputs: Vec<FileInput> = earlier
            .iter()
            .map(|e| FileInput::on_disk(&e.canonical))
            .collect();
        let found = self.importers(&inputs).await.unwrap_or_default();
        if found.is_empty() {
            return found;
        }
        let clients = self.pool.clients();
        let mut memo = PlanMemo::default();
        found
            .into_iter()
            .filter(|path| self.rechecks_open_importers(path, &mut memo))
            .filter(|path| {
                let file_uri = uri::from_path(path);
                !clients
                    .iter()
                    .any(|c| c.document(path).is_some() || c.has_published(&file_uri))
            })
            .collect()
    }
}
