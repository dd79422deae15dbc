//! The bounded listing and reading every resolver shares: one walk of the
//! project (skipping `IGNORED_DIRS` and dot-directories, as the workspace
//! does), which also notes the configuration files resolution needs, and a
//! read of each file's head only. Existence checks during resolution are
//! lookups in the listing, not file-system calls. Both come through a
//! [`Reader`]: from the disk on every scan (a one-shot command), or through
//! what a long-lived engine keeps in step with the disk ([`Kept`], which
//! `cache` implements). Nothing here knows a language: what of a head a
//! family's resolver reads is the family's to say (`Family::digest`).

use std::collections::{BTreeSet, HashSet};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::workspace::walked_dir;

/// At most this many files are listed per scan; a bigger tree is resolved
/// on its first files in walk order.
pub const MAX_LISTED: usize = 100_000;
/// At most this many bytes of each file are read: imports sit at the top,
/// and a file that imports past this point is rare enough to miss.
pub const MAX_HEAD_BYTES: u64 = 64 * 1024;

/// One scan's view of the project.
#[derive(Default, Clone)]
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
    /// `filter` names `keep` among the resolvers' filters: with the
    /// reader's key it identifies a tree a cache may hand out again.
    pub fn walk(
        reader: &mut Reader,
        root: &Path,
        edited: &Path,
        config_names: &[&str],
        filter: &str,
        keep: &dyn Fn(&Path) -> bool,
    ) -> Arc<Tree> {
        let cached = match (reader.store.as_deref_mut(), &reader.key) {
            (Some(store), Some(key)) if store.covers(root) => {
                store.tree(root, config_names, &format!("{filter}|{key}"), keep)
            }
            _ => None,
        };
        let mut tree = cached.unwrap_or_else(|| {
            let mut tree = Tree::default();
            tree.add(reader, root, config_names, keep);
            Arc::new(tree)
        });
        if !tree.known.contains(edited) {
            Arc::make_mut(&mut tree).known.insert(edited.to_path_buf());
        }
        tree
    }

    /// Adds another root (a `go.work` member) to the listing.
    pub fn add(
        &mut self,
        reader: &mut Reader,
        root: &Path,
        config_names: &[&str],
        keep: &dyn Fn(&Path) -> bool,
    ) {
        let cached = match reader.store.as_deref_mut() {
            Some(store) if store.covers(root) => store.listing(root),
            _ => None,
        };
        let fresh;
        let listing = match cached {
            Some(listing) => listing,
            None => {
                fresh = Listing::walk(root);
                &fresh
            }
        };
        self.add_listing(listing, config_names, keep);
    }

    /// Adds the files of `listing` that `config_names` or `keep` select.
    pub fn add_listing(
        &mut self,
        listing: &Listing,
        config_names: &[&str],
        keep: &dyn Fn(&Path) -> bool,
    ) {
        self.dirs.extend(listing.dirs.iter().cloned());
        for path in &listing.files {
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            if config_names.contains(&name) {
                self.configs.push(path.clone());
            } else if keep(path) {
                self.known.insert(path.clone());
                self.sources.push(path.clone());
            }
        }
        self.sources.sort();
        self.configs.sort();
    }

    pub fn exists(&self, path: &Path) -> bool {
        self.known.contains(path)
    }
}

/// Every file and directory of a root a walk reaches (at most
/// [`MAX_LISTED`] files), before any resolver's filter.
#[derive(Default)]
pub(super) struct Listing {
    /// In path order.
    pub files: BTreeSet<PathBuf>,
    pub dirs: HashSet<PathBuf>,
    /// The walk stopped at [`MAX_LISTED`]: which files made it depends on
    /// the walk's order, which a change on disk cannot replay.
    pub truncated: bool,
}

impl Listing {
    pub fn walk(root: &Path) -> Listing {
        let mut listing = Listing::default();
        let mut stack = vec![root.to_path_buf()];
        'walk: while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            listing.dirs.insert(dir);
            for entry in entries.flatten() {
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let name = entry.file_name();
                let Some(name) = name.to_str() else {
                    continue;
                };
                if kind.is_dir() {
                    if walked_dir(name) {
                        stack.push(entry.path());
                    }
                    continue;
                }
                if listing.files.len() >= MAX_LISTED {
                    listing.truncated = true;
                    break 'walk;
                }
                listing.files.insert(entry.path());
            }
        }
        listing
    }
}

/// What a long-lived cache keeps for scans (`cache::Store`): the walk
/// reads through it without knowing how it is kept.
pub(super) trait Kept {
    /// Whether the cache's disk watch covers `dir`.
    fn covers(&self, dir: &Path) -> bool;
    fn covers_file(&self, path: &Path) -> bool;
    /// `root`'s listing (a covered root), walked if not cached.
    fn listing(&mut self, root: &Path) -> Option<&Listing>;
    /// `root`'s listing filtered by `keep` (which `key` names).
    fn tree(
        &mut self,
        root: &Path,
        config_names: &[&str],
        key: &str,
        keep: &dyn Fn(&Path) -> bool,
    ) -> Option<Arc<Tree>>;
    fn has_head(&self, path: &Path) -> bool;
    fn cached_head(&self, path: &Path) -> Option<&[u8]>;
    /// The digested head of a covered file, read (and kept) if need be.
    fn head<'s>(&'s mut self, path: &Path, buf: &'s mut Vec<u8>) -> Option<&'s [u8]>;
}

/// Where a scan's listing and file heads come from.
pub(super) struct Reader<'a> {
    store: Option<&'a mut dyn Kept>,
    /// What the resolvers' `keep` depends on beyond their own filter (the
    /// servers and the edited file's kind): with it a filtered tree is
    /// kept; without it only listings and heads are.
    key: Option<String>,
    buf: Vec<u8>,
    /// Something was read that the cache's disk watch does not cover.
    uncovered: bool,
    /// The files read past the heads (configs), normalized.
    beside: Vec<PathBuf>,
}

impl<'a> Reader<'a> {
    /// Reads everything from the disk.
    pub fn disk() -> Reader<'static> {
        Reader {
            store: None,
            key: None,
            buf: Vec::new(),
            uncovered: true,
            beside: Vec::new(),
        }
    }

    /// Reads through `store`, filling it; `key` as [`Reader::key`] says.
    pub fn cached(store: &'a mut dyn Kept, key: Option<String>) -> Reader<'a> {
        Reader {
            store: Some(store),
            key,
            buf: Vec::new(),
            uncovered: false,
            beside: Vec::new(),
        }
    }

    /// Notes a file a resolver read itself, past the cache (a config).
    pub fn read_beside(&mut self, path: &Path) {
        // `extends: "../../base.json"` is joined, not resolved.
        let path = normalize(path);
        if !self.store.as_deref().is_some_and(|s| s.covers_file(&path)) {
            self.uncovered = true;
        }
        self.beside.push(path);
    }

    /// Whether everything read lies where the cache's disk watch sees
    /// each change: only then may the scan's answer be kept.
    pub fn watched_only(&self) -> bool {
        !self.uncovered
    }

    /// The files read past the heads ([`Reader::read_beside`]).
    pub fn beside(&self) -> &[PathBuf] {
        &self.beside
    }

    /// Adds what the edited file's kind decides to the key.
    pub fn qualify(&mut self, kind: &str) {
        if let Some(key) = self.key.as_mut() {
            key.push('|');
            key.push_str(kind);
        }
    }

    /// What of `path`'s head its family's resolver reads (`Family::digest`),
    /// or `None` when it cannot be read.
    pub fn head(&mut self, path: &Path) -> Option<&[u8]> {
        match self.store.as_deref_mut() {
            Some(store) if store.has_head(path) => store.cached_head(path),
            Some(store) if store.covers_file(path) => store.head(path, &mut self.buf),
            _ => {
                self.uncovered = true;
                if !read_head(path, &mut self.buf) {
                    return None;
                }
                super::Family::digest(path, &mut self.buf);
                Some(&self.buf)
            }
        }
    }
}

/// Reads at most [`MAX_HEAD_BYTES`] of `path` into `buf` (cleared first);
/// anything but a regular file (a named pipe anywhere in the project) is
/// left unopened.
pub(super) fn read_head(path: &Path, buf: &mut Vec<u8>) -> bool {
    crate::edit::read_regular_head(path, MAX_HEAD_BYTES, buf).is_ok()
}

/// A configuration file a resolver reads whole (`tsconfig.json`, `go.mod`,
/// `compile_commands.json`), refused unless it is a regular file within
/// the read limit.
pub(super) fn read_config(path: &Path) -> Option<String> {
    crate::edit::read_regular_string(path, crate::edit::MAX_READ_BYTES).ok()
}

/// Needles searched for in every candidate's head, each searcher built
/// once per scan rather than once per file.
pub(super) struct Needles(Vec<memchr::memmem::Finder<'static>>);

impl Needles {
    pub fn new(needles: &[String]) -> Needles {
        let finders = needles
            .iter()
            .map(|n| memchr::memmem::Finder::new(n.as_bytes()));
        Needles(finders.map(|f| f.into_owned()).collect())
    }

    /// [`mentions`] with these needles.
    pub fn any_in(&self, haystack: &[u8]) -> bool {
        self.0.iter().any(|f| f.find(haystack).is_some())
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
