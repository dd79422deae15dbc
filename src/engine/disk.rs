//! Keeping the servers in step with the disk: before a query, the files that
//! changed since the last one — through the agent's own tools, a shell
//! command, a formatter — are synced. A document a server has open is
//! brought to the disk's text (didChange, and didSave where wanted); every
//! change is announced to the servers that watch files
//! (`workspace/didChangeWatchedFiles`), so that a server answering for
//! `main.ts` knows that `lib.ts`, which it never had open, changed.
//! Without this a server answers one state behind.

use std::path::PathBuf;
use std::sync::Arc;

use super::Engine;
use crate::lsp::FileChangeKind;
use crate::mutex::lock;
use crate::workspace::watch::{DiskChange, DiskWatch};

impl Engine {
    /// Watches the workspace for changes made outside squiggle, from now on.
    /// For engines that answer more than one query (daemon, service, MCP);
    /// a one-shot command has no "before" to compare with.
    pub fn watch_disk(&self) {
        let mut slot = lock(&self.disk);
        if slot.is_some() {
            return;
        }
        match DiskWatch::start(self.workspace.root()) {
            Ok(watch) => {
                tracing::debug!(
                    dirs = watch.watched_dirs(),
                    complete = watch.complete(),
                    "watching the workspace for changes"
                );
                if watch.complete() {
                    let cache = super::dependents::ScanCache::new(self.workspace.root());
                    let _ = self.scan_cache.set(cache);
                }
                *slot = Some(watch);
            }
            Err(e) => tracing::info!(
                "cannot watch the workspace for changes ({e}); files changed outside squiggle are seen when they are checked"
            ),
        }
    }

    /// Syncs every file that changed on disk since the last call; costs one
    /// non-blocking read when nothing changed. True when something changed:
    /// the files a query is about are then sent again, so that each server
    /// answers for them afresh. The query's own files (`checked`, canonical)
    /// are not re-read here: the query sends their text itself, and a
    /// second change of the same text is one some servers never answer.
    pub(super) async fn sync_disk(&self, checked: &[PathBuf]) -> bool {
        let (changes, overflowed) = {
            let mut slot = lock(&self.disk);
            let Some(watch) = slot.as_mut() else {
                return false;
            };
            let changes = watch.drain();
            if let Some(cache) = self.scan_cache.get() {
                cache.note_drained(watch, &changes);
            }
            (changes, std::mem::take(&mut watch.overflowed))
        };
        if overflowed {
            tracing::info!(
                "the workspace changed faster than it could be watched; open documents are re-read"
            );
        }
        if changes.is_empty() && !overflowed {
            return false;
        }
        let mut announced: Vec<(PathBuf, FileChangeKind)> = Vec::new();
        for (path, change) in &changes {
            let kind = match change {
                DiskChange::Created => FileChangeKind::Created,
                DiskChange::Changed => FileChangeKind::Changed,
                DiskChange::Deleted => FileChangeKind::Deleted,
            };
            announced.push((path.clone(), kind));
        }
        for client in self.pool.clients() {
            let refs: Vec<(&std::path::Path, FileChangeKind)> =
                announced.iter().map(|(p, k)| (p.as_path(), *k)).collect();
            client.did_change_watched_files(&refs);
        }
        let reread: Vec<PathBuf> = if overflowed {
            self.pool
                .clients()
                .iter()
                .flat_map(|c| c.open_paths())
                .collect()
        } else {
            changes.into_keys().collect()
        };
        for path in reread.iter().filter(|p| !checked.contains(p)) {
            self.reread(path).await;
        }
        true
    }

    /// Brings every server's open copy of `path` to the disk's text.
    async fn reread(&self, path: &std::path::Path) {
        let disk = std::fs::read(path)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok());
        for client in self.pool.clients() {
            let Some((_, text)) = client.document(path) else {
                continue;
            };
            match &disk {
                Some(disk) if **disk != *text => {
                    let language =
                        crate::registry::languages::language_id(path).unwrap_or("plaintext");
                    client
                        .sync_document(path, language, Arc::from(disk.as_str()))
                        .await;
                }
                Some(_) => {}
                None => client.close_document(path),
            }
        }
    }
}
