//! Warming up at session start: the first edit of a session otherwise pays
//! for starting its servers and loading the project (pyright about a second,
//! typescript-language-server several). An agent's session-start hook asks
//! the daemon to warm the workspace while the model writes its first reply;
//! the daemon checks one representative file per server — exactly the
//! servers auto-detection and workspace trust would start on a first edit
//! there, no others — and the first real edit finds them running.

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Engine, FileInput, HeldOthers};
use crate::workspace::IGNORED_DIRS;

/// At most this many directory entries are looked at: the shallowest files
/// of each language are found early in a breadth-first walk, and a session
/// start must not read a whole monorepo.
const MAX_ENTRIES: usize = 5_000;

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
                if !name.starts_with('.') && !IGNORED_DIRS.contains(&name.as_ref()) {
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
