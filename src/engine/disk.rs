//! Keeping the servers in step with the disk: before a query, the files that
//! changed since the last one — through the agent's own tools, a shell
//! command, a formatter — are synced. A document a server has open is
//! brought to the disk's text (didChange, and didSave where wanted); every
//! change is announced to the servers that watch files
//! (`workspace/didChangeWatchedFiles`), so that a server answering for
//! `main.ts` knows that `lib.ts`, which it never had open, changed.
//! Without this a server answers one state behind.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::Engine;
use super::plan::PlanMemo;
use crate::lsp::{FileChangeKind, LspClient};
use crate::mutex::lock;
use crate::workspace::PathClass;
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

    /// A receiver that changes whenever the watch sees the disk change
    /// (`None` when the disk is not watched): the changes are synced at the
    /// next query, this only says one is worth asking.
    pub fn disk_arrivals(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        lock(&self.disk).as_ref().map(DiskWatch::arrivals)
    }

    /// Syncs every file that changed on disk since the last call; when
    /// nothing changed it costs the watch's drain (a barrier's round trip
    /// through the watcher's thread on Linux, about 0.2 ms:
    /// `docs/performance.md`). True when something changed:
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
            let mut changes = watch.drain();
            changes.retain(|path, _| !crate::edit::is_write_temp(path));
            if let Some(cache) = self.scan_cache.get() {
                cache.note_drained(watch, &changes);
            }
            (changes, std::mem::take(&mut watch.overflowed))
        };
        if overflowed {
            tracing::info!(
                "the workspace changed faster than it could be watched; open documents are re-read"
            );
            self.fresh.mark_everything();
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
        // A change a server has, or is about to get, through its open
        // document — one it holds with the disk's text (after squiggle's
        // own write), or one this query is about to send — is not announced
        // to it. An atomic write (squiggle's own, most editors') renames a
        // new file over the old one and so reads as "created"; pyright takes
        // that as a new file, rescans the workspace and checks again, for
        // nothing (docs/truth.md: py-tomli's warm median 0.37 -> 0.22 s).
        // Each changed file is read at most once per sync, here and below.
        let mut disk_texts = DiskTexts::default();
        for client in self.pool.clients() {
            let refs: Vec<(&Path, FileChangeKind)> = announced
                .iter()
                .filter(|(path, kind)| {
                    *kind == FileChangeKind::Deleted
                        || !synced_as_document(&client, path, checked, &mut disk_texts)
                })
                .map(|(p, k)| (p.as_path(), *k))
                .collect();
            client.did_change_watched_files(&refs);
        }
        if !overflowed {
            self.mark_stale(&changes, &mut disk_texts);
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
            let disk = disk_texts.get(path).map(Arc::from);
            self.reread(path, disk).await;
        }
        true
    }

    /// Brings every server's open copy of `path` to `disk`, its text on
    /// disk (`None`: gone or unreadable, so the copy is closed).
    async fn reread(&self, path: &Path, disk: Option<Arc<str>>) {
        for client in self.pool.clients() {
            let Some((_, text)) = client.document(path) else {
                continue;
            };
            match &disk {
                Some(disk) if **disk != *text => {
                    let language =
                        crate::registry::languages::language_id(path).unwrap_or("plaintext");
                    client.sync_document(path, language, disk.clone()).await;
                }
                Some(_) => {}
                None => client.close_document(path),
            }
        }
    }
}

impl Engine {
    /// Records what `changes` may have made stale (`engine::fresh`): each
    /// changed file, and the files that import it. A change squiggle made
    /// itself, whose importers its check took, is none; so is a change to a
    /// file no server serves that is no project file. A change whose
    /// importers cannot be known (a project file, too many files, more
    /// importers than are listed) makes every file stale.
    fn mark_stale(
        &self,
        changes: &std::collections::BTreeMap<PathBuf, DiskChange>,
        disk_texts: &mut DiskTexts,
    ) {
        let mut changed: Vec<PathBuf> = Vec::new();
        for (path, change) in changes {
            if !matches!(self.workspace.classify(path), PathClass::Inside { .. }) {
                continue;
            }
            if *change != DiskChange::Deleted {
                if path.is_dir() {
                    continue;
                }
                if disk_texts
                    .get(path)
                    .is_some_and(|text| self.fresh.is_covered(path, text))
                {
                    continue;
                }
            }
            self.fresh.uncover(path);
            changed.push(path.clone());
        }
        // A file no server serves matters only as a project file (a root
        // marker: `tsconfig.json`, `Cargo.toml`, `compile_commands.json`);
        // any other (a temporary file, a log) changes no diagnostic.
        let mut memo = PlanMemo::default();
        let mut project_file = false;
        changed.retain(|path| {
            if !self.plan_file(path, &mut memo).is_empty() {
                return true;
            }
            project_file |= self.is_project_file(path);
            false
        });
        let (importers, cut) = if project_file || changed.len() > MAX_CHANGES_FOLLOWED {
            (Vec::new(), true)
        } else {
            self.importers_of(&changed)
        };
        if changed.is_empty() && !cut {
            return;
        }
        tracing::debug!(
            changed = changed.len(),
            importers = importers.len(),
            everything = cut,
            "changes on disk mark files stale"
        );
        self.fresh.mark(&changed, &importers);
        if cut {
            self.fresh.mark_everything();
        }
    }

    /// Whether `path` names a project file of a configured server (one of
    /// its root markers; `*.sln` matches any name ending in `.sln`).
    fn is_project_file(&self, path: &Path) -> bool {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            return false;
        };
        self.servers
            .iter()
            .flat_map(|s| &s.spec.root_markers)
            .any(|marker| crate::workspace::names_marker(name, marker))
    }
}

/// At most this many files changed on disk at once are followed to their
/// importers; beyond them every file is taken as stale.
const MAX_CHANGES_FOLLOWED: usize = 16;

/// Files' texts on disk, each read at most once per sync (`None`: gone,
/// unreadable or not UTF-8).
#[derive(Default)]
struct DiskTexts(HashMap<PathBuf, Option<String>>);

impl DiskTexts {
    fn get(&mut self, path: &Path) -> Option<&str> {
        self.0
            .entry(path.to_path_buf())
            .or_insert_with(|| {
                // Never a named pipe: a watched change to one would block
                // the daemon here.
                crate::edit::read_regular(path, crate::edit::MAX_READ_BYTES)
                    .ok()
                    .and_then(|bytes| String::from_utf8(bytes).ok())
            })
            .as_deref()
    }
}

/// Whether `client` has `path` open and so learns of its change as a
/// document: the query's own files (`checked`) are sent next, and any other
/// must already hold the disk's text.
fn synced_as_document(
    client: &LspClient,
    path: &Path,
    checked: &[PathBuf],
    disk_texts: &mut DiskTexts,
) -> bool {
    let Some((_, open)) = client.document(path) else {
        return false;
    };
    if checked.iter().any(|c| c == path) {
        return true;
    }
    disk_texts.get(path) == Some(&*open)
}
