//! What the running servers already said about files: the one query for it.
//! A snapshot is cheap to take before an edit — the servers' shared
//! diagnostic lists and the open documents' shared texts, no normalizing and
//! no disk reads — and is normalized afterwards only for the files someone
//! asks about (an edit's other files), so a write does not pay for every
//! diagnostic of the workspace.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use super::Engine;
use crate::diagnostic::{Diagnostic, sort_and_dedupe};
use crate::lsp::normalize::normalize;
use crate::lsp::position::PositionEncoding;
use crate::lsp::state::LspDiagnostic;
use crate::lsp::uri;
use crate::workspace::PathClass;

/// One server's list for one file, as it was when the snapshot was taken.
struct Entry {
    server: String,
    encoding: PositionEncoding,
    uri: String,
    diagnostics: Arc<[LspDiagnostic]>,
    /// The server's copy of the file, when it has it open.
    text: Option<Arc<str>>,
}

/// Every running server's diagnostics at one moment, not yet normalized.
pub(super) struct KnownSnapshot {
    entries: Vec<Entry>,
}

impl Engine {
    /// The servers' diagnostics now, raw (see the module comment).
    pub(super) fn known_snapshot(&self) -> KnownSnapshot {
        let mut entries = Vec::new();
        for client in self.pool.clients() {
            let encoding = client.facts().map(|f| f.encoding).unwrap_or_default();
            for (uri, diagnostics) in client.known_diagnostics() {
                entries.push(Entry {
                    server: client.server_id().to_string(),
                    encoding,
                    text: client.document_by_uri(&uri),
                    uri,
                    diagnostics,
                });
            }
        }
        KnownSnapshot { entries }
    }

    /// What the running servers last said for every file of the workspace
    /// that `wanted(server id, file uri)`, normalized against the server's
    /// copy of the file (or the file on disk), merged across servers.
    pub(super) fn known_diagnostics(
        &self,
        wanted: impl Fn(&str, &str) -> bool,
    ) -> BTreeMap<String, Vec<Diagnostic>> {
        self.known_snapshot()
            .normalized(self, |e| wanted(&e.server, &e.uri))
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
        self.normalized(engine, |e| {
            uri::to_path(&e.uri).is_some_and(|p| paths.contains(&p))
        })
    }

    /// The entries `keep` accepts, normalized and merged per file.
    fn normalized(
        &self,
        engine: &Engine,
        keep: impl Fn(&Entry) -> bool,
    ) -> BTreeMap<String, Vec<Diagnostic>> {
        let mut known: BTreeMap<String, Vec<Diagnostic>> = BTreeMap::new();
        for entry in self.entries.iter().filter(|e| keep(e)) {
            let Some(path) = uri::to_path(&entry.uri) else {
                continue;
            };
            let PathClass::Inside { relative, .. } = engine.workspace.classify(&path) else {
                continue;
            };
            let text = match &entry.text {
                Some(text) => text.clone(),
                None => match std::fs::read_to_string(&path) {
                    Ok(t) => Arc::from(t),
                    Err(_) => continue,
                },
            };
            let normalized = normalize(
                &entry.diagnostics,
                &text,
                entry.encoding,
                &relative,
                &entry.server,
            );
            known.entry(relative).or_default().extend(normalized);
        }
        for list in known.values_mut() {
            sort_and_dedupe(list);
        }
        known
    }
}
