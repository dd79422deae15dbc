//! The bounded listing and reading every resolver shares: one walk of the
//! project (skipping `IGNORED_DIRS` and dot-directories, as the workspace
//! does), which also notes the configuration files resolution needs, and a
//! read of each file's head only. Existence checks during resolution are
//! lookups in the listing, not file-system calls.

use std::collections::HashSet;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use crate::workspace::IGNORED_DIRS;

/// At most this many files are listed per scan; a bigger tree is resolved
/// on its first files in walk order.
pub const MAX_LISTED: usize = 100_000;
/// At most this many bytes of each file are read: imports sit at the top,
/// and a file that imports past this point is rare enough to miss.
pub const MAX_HEAD_BYTES: u64 = 64 * 1024;

/// One scan's view of the project.
#[derive(Default)]
pub(super) struct Tree {
    /// Files of the edited file's family the server serves, in path order.
    pub sources: Vec<PathBuf>,
    /// `sources`, the edited file, and every listed file of `also` names:
    /// what "exists" means during resolution.
    pub known: HashSet<PathBuf>,
    /// Every directory walked.
    pub dirs: HashSet<PathBuf>,
    /// Files whose names the caller asked for (tsconfig.json, go.mod, ...).
    pub configs: Vec<PathBuf>,
}

impl Tree {
    /// Lists `root`, keeping sources that pass `keep` and configuration
    /// files named in `config_names`; `edited` always counts as known.
    pub fn walk(
        root: &Path,
        edited: &Path,
        config_names: &[&str],
        keep: &dyn Fn(&Path) -> bool,
    ) -> Tree {
        let mut tree = Tree::default();
        tree.add(root, config_names, keep);
        tree.known.insert(edited.to_path_buf());
        tree
    }

    /// Adds another root (a `go.work` member) to the listing.
    pub fn add(&mut self, root: &Path, config_names: &[&str], keep: &dyn Fn(&Path) -> bool) {
        let mut listed = 0usize;
        let mut stack = vec![root.to_path_buf()];
        'walk: while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            self.dirs.insert(dir);
            for entry in entries.flatten() {
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let name = entry.file_name();
                let Some(name) = name.to_str() else {
                    continue;
                };
                if kind.is_dir() {
                    if !IGNORED_DIRS.contains(&name) && !name.starts_with('.') {
                        stack.push(entry.path());
                    }
                    continue;
                }
                listed += 1;
                if listed > MAX_LISTED {
                    break 'walk;
                }
                let path = entry.path();
                if config_names.contains(&name) {
                    self.configs.push(path);
                } else if keep(&path) {
                    self.known.insert(path.clone());
                    self.sources.push(path);
                }
            }
        }
        self.sources.sort();
        self.configs.sort();
    }

    pub fn exists(&self, path: &Path) -> bool {
        self.known.contains(path)
    }
}

/// Reads at most [`MAX_HEAD_BYTES`] of `path` into `buf` (cleared first).
pub(super) fn read_head(path: &Path, buf: &mut Vec<u8>) -> bool {
    buf.clear();
    match std::fs::File::open(path) {
        Ok(file) => file.take(MAX_HEAD_BYTES).read_to_end(buf).is_ok(),
        Err(_) => false,
    }
}

/// Whether any needle occurs in `haystack`: the cheap test that spares
/// parsing files that cannot name the edited one.
pub(super) fn mentions(haystack: &[u8], needles: &[String]) -> bool {
    needles
        .iter()
        .any(|n| memchr::memmem::find(haystack, n.as_bytes()).is_some())
}

/// `path` with `.` and `..` settled lexically (the way import specifiers
/// are joined; no symlinks are followed).
pub(super) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}
