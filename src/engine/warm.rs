//! Warming up at session start: the first edit of a session otherwise pays
//! for starting its servers and loading the project (pyright about a second,
//! typescript-language-server several). An agent's session-start hook asks
//! the daemon to warm the workspace while the model writes its first reply;
//! the daemon checks one representative file per server — exactly the
//! servers auto-detection and workspace trust would start on a first edit
//! there, no others — and the first real edit finds them running.
//!
//! Then it surveys: every source file a server serves (the shallowest
//! [`MAX_SURVEY_FILES`]) is checked, a few at a time, and what the servers
//! said of each is remembered as that file's "before" — exactly as a
//! careful client opens every file at start. A first edit of a surveyed
//! file, or of a file that surveyed files import, then needs no check of
//! the text before on its way (see `engine::before`): without the survey
//! that check is a second full wait on the edit's path. The survey gives
//! way to changes: before each batch it waits until no change is being
//! checked, so an edit waits at most for the batch in flight.

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Engine, FileInput, HeldOthers};
use crate::diagnostic::Outcome;
use crate::workspace::walked_dir;

/// At most this many directory entries are looked at: the shallowest files
/// of each language are found early in a breadth-first walk, and a session
/// start must not read a whole monorepo.
const MAX_ENTRIES: usize = 5_000;

/// At most this many files are surveyed (below the documents a server
/// keeps open, `pool::MAX_OPEN_DOCUMENTS`).
pub const MAX_SURVEY_FILES: usize = 200;

/// Files checked together in one step of the survey: what an edit that
/// arrives meanwhile may wait for.
const SURVEY_BATCH: usize = 4;

/// A file past this size is not surveyed (its first edit checks its text
/// before as usual).
const MAX_SURVEY_BYTES: u64 = 1 << 20;

impl Engine {
    /// One file per server that would serve it, the shallowest first found
    /// (breadth-first, ignored and dot directories skipped).
    pub fn warm_targets(&self) -> Vec<PathBuf> {
        let mut servers_seen: HashSet<String> = HashSet::new();
        let mut extensions_seen: HashSet<std::ffi::OsString> = HashSet::new();
        let mut targets = Vec::new();
        for file in shallow_files(self.workspace.root()) {
            let Some(ext) = file.extension() else {
                continue;
            };
            if !extensions_seen.insert(ext.to_os_string()) {
                continue;
            }
            let Ok(found) = self.servers_for(&file) else {
                continue;
            };
            let new = found
                .candidates
                .iter()
                .filter(|c| servers_seen.insert(c.server_id.clone()))
                .count();
            if new > 0 {
                targets.push(file);
            }
        }
        targets
    }

    /// Checks `targets` (from [`Engine::warm_targets`]) in one parallel
    /// wait, starting their servers; the diagnostics are thrown away.
    pub async fn warm(self: &Arc<Self>, targets: &[PathBuf]) {
        if targets.is_empty() {
            return;
        }
        let inputs = targets.iter().map(FileInput::on_disk).collect();
        let report = self.check_files(inputs, HeldOthers::Skip).await;
        let outcomes: Vec<_> = report.files.iter().map(|f| &f.outcomes).collect();
        tracing::info!(files = ?targets, ?outcomes, "warmed");
    }

    /// The files a survey checks: every file some server serves, the
    /// shallowest first, at most [`MAX_SURVEY_FILES`].
    pub fn survey_targets(&self) -> Vec<PathBuf> {
        shallow_files(self.workspace.root())
            .into_iter()
            .filter(|f| {
                std::fs::metadata(f).is_ok_and(|m| m.len() <= MAX_SURVEY_BYTES)
                    && self
                        .servers_for(f)
                        .is_ok_and(|found| !found.candidates.is_empty())
            })
            .take(MAX_SURVEY_FILES)
            .collect()
    }

    /// Checks `files` a batch at a time, each batch once no change is
    /// being checked, and remembers each file's diagnostics for the text
    /// checked as its "before" when every server answered for that text.
    /// Returns how many files were remembered.
    pub async fn survey(self: &Arc<Self>, files: &[PathBuf]) -> usize {
        let mut remembered = 0;
        for batch in files.chunks(SURVEY_BATCH) {
            self.changes.idle().await;
            // Held as an edit holds them: no change of these files puts
            // its text on the servers between the survey's read and check.
            let (sorted, held) = self.lock_files(batch.iter().map(PathBuf::as_path)).await;
            let texts: Vec<(PathBuf, Arc<str>)> = sorted
                .iter()
                .filter_map(|path| {
                    let text = crate::edit::read_regular_string(path, MAX_SURVEY_BYTES).ok()?;
                    Some((path.clone(), Arc::from(text)))
                })
                .collect();
            let inputs = texts
                .iter()
                .map(|(path, text)| FileInput {
                    content: Some(text.clone()),
                    ..FileInput::on_disk(path)
                })
                .collect();
            let report = self.check_files(inputs, HeldOthers::Skip).await;
            for ((path, text), file) in texts.into_iter().zip(report.files) {
                let answered = !file.outcomes.is_empty()
                    && file
                        .outcomes
                        .iter()
                        .all(|o| matches!(o.outcome, Outcome::Pulled | Outcome::Settled));
                if answered
                    && self
                        .history
                        .baseline(&path, &crate::baseline::Before::Unknown)
                        .is_none()
                {
                    self.history.record(&path, text, file.diagnostics);
                    remembered += 1;
                }
            }
            drop(held);
        }
        tracing::info!(files = files.len(), remembered, "surveyed");
        remembered
    }
}

/// Files under `root`, breadth first, at most [`MAX_ENTRIES`] entries read.
fn shallow_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut queue = VecDeque::from([root.to_path_buf()]);
    let mut entries_read = 0usize;
    while let Some(dir) = queue.pop_front() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut sorted: Vec<_> = entries.flatten().collect();
        sorted.sort_by_key(|e| e.file_name());
        for entry in sorted {
            entries_read += 1;
            if entries_read > MAX_ENTRIES {
                return files;
            }
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if walked_dir(&name) {
                    queue.push_back(entry.path());
                }
            } else if kind.is_file() {
                files.push(entry.path());
            }
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shallow_files_come_first_and_ignored_directories_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for path in [
            "deep/er/z.py",
            "a.ts",
            "node_modules/m/x.ts",
            ".hidden/h.py",
            "b/c.go",
        ] {
            let file = root.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, "").unwrap();
        }
        let names: Vec<String> = shallow_files(root)
            .iter()
            .map(|p| crate::platform::paths::slashed(p.strip_prefix(root).unwrap()))
            .collect();
        assert_eq!(names, ["a.ts", "b/c.go", "deep/er/z.py"]);
    }
}
