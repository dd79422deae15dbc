//! What the running servers already said about files: the one query for it
//! ([`Engine::known_diagnostics`], behind `lsp/diagnostics`, MCP
//! `lsp_diagnostics` and an edit's "known before"). A snapshot is cheap to
//! take before an edit — each server's held lists (`lsp::normalize::Held`),
//! no normalizing and no disk reads — and is normalized afterwards only for
//! the files someone asks about (an edit's other files), so a write does not
//! pay for every diagnostic of the workspace. A file gone from disk is in
//! no answer, whatever a server still holds for it.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

use super::Engine;
use crate::diagnostic::{Diagnostic, sort_and_dedupe};
use crate::lsp::normalize::Held;
use crate::workspace::PathClass;

/// Every running server's diagnostics at one moment, not yet normalized.
pub(super) struct KnownSnapshot {
    held: Vec<Held>,
}

impl Engine {
    /// What the running servers last said for every file of the workspace,
    /// normalized against the server's copy of the file (or the file on
    /// disk), merged across servers, by workspace-relative path.
    pub fn known_diagnostics(&self) -> BTreeMap<String, Vec<Diagnostic>> {
        self.known_snapshot().normalized(self, |_| true)
    }

    /// The servers' diagnostics now, raw (see the module comment).
    pub(super) fn known_snapshot(&self) -> KnownSnapshot {
        let held = self
            .pool
            .clients()
            .iter()
            .flat_map(|client| client.held_diagnostics())
            .collect();
        KnownSnapshot { held }
    }

    /// [`known_diagnostics`](Self::known_diagnostics) of the lists that
    /// `wanted(server id, file uri)`.
    pub(super) fn known_diagnostics_of(
        &self,
        wanted: impl Fn(&str, &str) -> bool,
    ) -> BTreeMap<String, Vec<Diagnostic>> {
        self.known_snapshot()
            .normalized(self, |held| wanted(held.server(), held.uri()))
    }
}

impl KnownSnapshot {
    /// The snapshot's diagnostics of `files` (workspace-relative) only.
    pub(super) fn for_files<'a>(
        &self,
        engine: &Engine,
        files: impl IntoIterator<Item = &'a String>,
    ) -> BTreeMap<String, Vec<Diagnostic>> {
        let root = engine.workspace.root();
        let paths: HashSet<PathBuf> = files.into_iter().map(|f| root.join(f)).collect();
        if paths.is_empty() {
            return BTreeMap::new();
        }
        self.normalized(engine, |held| {
            held.path().is_some_and(|p| paths.contains(&p))
        })
    }

    /// The lists `keep` accepts, normalized and merged per file.
    fn normalized(
        &self,
        engine: &Engine,
        keep: impl Fn(&Held) -> bool,
    ) -> BTreeMap<String, Vec<Diagnostic>> {
        let mut known: BTreeMap<String, Vec<Diagnostic>> = BTreeMap::new();
        for held in self.held.iter().filter(|h| keep(h)) {
            let Some(path) = held.path() else {
                continue;
            };
            let PathClass::Inside { relative, .. } = engine.workspace.classify(&path) else {
                continue;
            };
            if let Some(normalized) = held.normalize(&relative) {
                known.entry(relative).or_default().extend(normalized);
            }
        }
        for list in known.values_mut() {
            sort_and_dedupe(list);
        }
        known
    }
}
