//! The scan's listing and file heads, kept between writes by a long-lived
//! engine. Without it every write re-lists the project root and re-reads
//! the head of every candidate file: 12,000 files of a 200-package
//! monorepo served from its root cost about half a second per write, more
//! than the type checker's own answer. The disk watch
//! ([`crate::workspace::watch`]) says what changed since the last query;
//! those changes are applied before the next scan, so the cache answers
//! as a fresh walk would:
//! - a file created, deleted or renamed is added to or taken from every
//!   listing it lies in, and its head forgotten;
//! - a file changed has its head read again at once, if it was cached;
//! - the written file's own head is read again on every scan (the watch
//!   may not have reported the write yet);
//! - when the watch lost track (queue overflow, a directory removed or
//!   moved, a new directory too big to report file by file, or a
//!   directory it could not watch) everything is dropped and rebuilt.
//!
//! Only what the watch covers is cached: roots and files under the
//! workspace and outside ignored and dot-directories; anything else is
//! read from the disk on every scan, as a one-shot command does.
//!
//! Besides the listings, each root's listing as one resolver filters it
//! for one set of servers is kept (a [`Tree`]): otherwise every scan
//! passes each listed path through the servers' language lookup again.
//!
//! A Python or TypeScript scan's answer is kept too, per (edited file,
//! root, servers): it is a function of the listing, the cached heads and
//! (TypeScript) the tsconfig files, so it holds until a file is created or
//! deleted under a cached root, a cached head reads differently, or a
//! config file a kept answer read changes. A Python head is a file's
//! import lines, so a body edit keeps every answer. An agent editing one
//! file again and again then pays no scan at all. An answer that read a
//! file the watch does not see (a tsconfig `extends` outside the
//! workspace) is not kept, nor are the other families' answers: their
//! resolvers read go.mod, compile flags or Cargo.toml without telling the
//! cache, possibly from above the workspace.
//!
//! Bounded: at most [`MAX_ROOTS`] listings of at most [`MAX_CACHED_LISTED`]
//! files in all (least recently used dropped first), [`MAX_TREES`]
//! filtered trees, and at most
//! [`MAX_CACHED_HEADS`] heads of at most [`MAX_CACHED_BYTES`] bytes in all
//! (past that, heads are read from the disk each time). Python heads are
//! kept as their import lines only (`Family::digest`).

mod kept;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::Family;
use super::walk::{Kept, Listing, Reader, Tree, read_head};
use crate::mutex::lock;
use crate::workspace::watch::{DiskChange, DiskWatch};

/// At most this many project roots' listings are kept.
pub const MAX_ROOTS: usize = 8;
/// At most this many listed files are kept over all listings.
pub const MAX_CACHED_LISTED: usize = 200_000;
/// At most this many filtered trees are kept (a root's listing as one
/// resolver with one set of servers sees it); past it, all are dropped.
pub const MAX_TREES: usize = 16;
/// At most this many file heads are kept.
pub const MAX_CACHED_HEADS: usize = 100_000;
/// At most this many bytes of file heads are kept.
pub const MAX_CACHED_BYTES: usize = 32 * 1024 * 1024;
/// At most this many scans' answers are kept; past it, all are dropped.
pub const MAX_ANSWERS: usize = 256;
/// More changes than this between two scans drop everything: rebuilding
/// costs one walk, keeping them costs memory for nothing.
const MAX_PENDING: usize = 10_000;

/// A workspace's scan cache; see the module's doc.
pub struct ScanCache {
    /// Changes noted since the last scan. Kept apart from the store so that
    /// noting never waits for a scan in progress, and applied by the next
    /// scan only after any scan in progress has stored what it read.
    pending: Mutex<Pending>,
    /// Held through a scan: scans are serialized.
    store: Mutex<Store>,
}

#[derive(Default)]
struct Pending {
    changes: Vec<(PathBuf, DiskChange)>,
    reset: bool,
}

impl ScanCache {
    /// A cache for a workspace whose every directory (but the ignored ones)
    /// is watched from `workspace_root` (canonical).
    pub fn new(workspace_root: &Path) -> ScanCache {
        ScanCache {
            pending: Mutex::default(),
            store: Mutex::new(Store {
                workspace: workspace_root.to_path_buf(),
                listings: Vec::new(),
                heads: HashMap::new(),
                head_bytes: 0,
                heads_dropped: false,
                trees: HashMap::new(),
                answers: HashMap::new(),
                answers_used: 0,
                answers_read: HashSet::new(),
            }),
        }
    }

    /// Notes what `watch` just drained (call before its `overflowed` flag
    /// is taken); when it could not see every change, everything cached is
    /// dropped.
    pub fn note_drained(&self, watch: &mut DiskWatch, changes: &BTreeMap<PathBuf, DiskChange>) {
        let lost_track =
            watch.overflowed || std::mem::take(&mut watch.lost_track) || !watch.complete();
        let mut pending = lock(&self.pending);
        if pending.reset {
            return;
        }
        pending
            .changes
            .extend(changes.iter().map(|(p, c)| (p.clone(), *c)));
        if lost_track || pending.changes.len() > MAX_PENDING {
            pending.reset = true;
            pending.changes = Vec::new();
        }
    }

    /// [`super::likely_dependents`] through the cache. `serves_key` names
    /// what `serves` answers from (the servers' ids, say): scans with the
    /// same key reuse the project's filtered file list.
    pub fn likely_dependents(
        &self,
        edited: &Path,
        project_root: &Path,
        serves_key: &str,
        serves: impl Fn(&Path) -> bool,
    ) -> Vec<PathBuf> {
        let mut store = lock(&self.store);
        let pending = std::mem::take(&mut *lock(&self.pending));
        if pending.reset {
            store.clear();
        }
        tracing::debug!(
            reset = pending.reset,
            changes = pending.changes.len(),
            listings = store.listings.len(),
            trees = store.trees.len(),
            heads = store.heads.len(),
            "scan cache"
        );
        for (path, change) in &pending.changes {
            store.apply(path, *change);
        }
        let canonical =
            crate::platform::paths::canonicalize(edited).unwrap_or_else(|_| edited.to_path_buf());
        // Squiggle's own write (or the agent's, just before the query),
        // unless the watch already reported it (and `apply` read it).
        if !pending.changes.iter().any(|(path, _)| *path == canonical) {
            store.refresh_head(&canonical);
        }
        let root = crate::platform::paths::canonicalize(project_root)
            .unwrap_or_else(|_| project_root.to_path_buf());
        let kept =
            Family::of(&canonical).is_some_and(Family::answers_may_be_kept) && store.covers(&root);
        // What else the family's answer is kept by (a TypeScript answer's
        // order follows the edited file's exports).
        let mut by = serves_key.to_string();
        if let Some(also) = Family::answer_key(&mut Reader::cached(&mut *store, None), &canonical) {
            by = format!("{by}|{also}");
        }
        let key = (canonical, root, by);
        if kept && let Some(found) = store.answers.get(&key) {
            let found = found.clone();
            store.answers_used += 1;
            tracing::debug!(found = found.len(), "scan answer kept from the last scan");
            return found;
        }
        let mut reader = Reader::cached(&mut *store, Some(serves_key.to_string()));
        let found = super::scan(&mut reader, edited, project_root, &serves);
        let kept = kept && reader.watched_only();
        if kept {
            let beside = reader.beside().to_vec();
            if store.answers.len() >= MAX_ANSWERS {
                store.answers.clear();
            }
            store.answers.insert(key, found.clone());
            store.answers_read.extend(beside);
        }
        found
    }

    /// How many scans' answers are kept, and how many scans were answered
    /// from them (for tests).
    pub fn answers(&self) -> (usize, u64) {
        let store = lock(&self.store);
        (store.answers.len(), store.answers_used)
    }

    /// How many listings, filtered trees and heads are cached (for tests).
    pub fn sizes(&self) -> (usize, usize, usize) {
        let store = lock(&self.store);
        (store.listings.len(), store.trees.len(), store.heads.len())
    }
}

/// What is cached; see the module's doc.
pub(super) struct Store {
    workspace: PathBuf,
    /// Least recently used first.
    listings: Vec<(PathBuf, Listing)>,
    heads: HashMap<PathBuf, Box<[u8]>>,
    head_bytes: usize,
    /// A head was read but not kept (the caps): the kept answers may
    /// depend on a head the cache cannot compare.
    heads_dropped: bool,
    /// Listings filtered for a resolver, by root and filter key.
    trees: HashMap<(PathBuf, String), Arc<Tree>>,
    /// Scans' answers by (edited file, root, servers and, for TypeScript,
    /// the edited file's exports); see the module's doc.
    answers: HashMap<(PathBuf, PathBuf, String), Vec<PathBuf>>,
    answers_used: u64,
    /// The files kept answers read past the heads (tsconfig files and
    /// their `extends`), normalized: a change to one drops the answers.
    answers_read: HashSet<PathBuf>,
}

impl Store {
    fn clear(&mut self) {
        self.trees.clear();
        self.listings.clear();
        self.heads.clear();
        self.head_bytes = 0;
        self.heads_dropped = false;
        self.answers.clear();
        self.answers_read.clear();
    }

    /// Drops least recently used listings (never the newest) over the caps.
    fn evict_listings(&mut self) {
        let total =
            |ls: &[(PathBuf, Listing)]| ls.iter().map(|(_, l)| l.files.len()).sum::<usize>();
        while self.listings.len() > 1
            && (self.listings.len() > MAX_ROOTS || total(&self.listings) > MAX_CACHED_LISTED)
        {
            let (root, _) = self.listings.remove(0);
            self.trees.retain(|(r, _), _| *r != root);
            // Files created or deleted under a root no longer listed are
            // not followed: its answers go with it.
            self.answers.retain(|(_, r, _), _| *r != root);
        }
    }

    pub fn forget_head(&mut self, path: &Path) {
        if let Some(head) = self.heads.remove(path) {
            self.head_bytes -= head.len();
        }
    }

    /// Reads `path`'s head again if it is cached (a file no kept answer
    /// read needs no reading). When it reads differently, or is not cached
    /// but a head was dropped for the caps (an answer may have read it),
    /// the kept answers are dropped, but for `path`'s own: a resolver reads
    /// the edited file's head for the edited file's importers only for
    /// what the answer is kept by (its exports).
    fn refresh_head(&mut self, path: &Path) {
        let Some(old) = self.heads.get(path) else {
            if self.heads_dropped {
                self.drop_answers_but(path);
            }
            return;
        };
        let mut buf = Vec::new();
        let same = read_head(path, &mut buf) && {
            Family::digest(path, &mut buf);
            **old == *buf
        };
        if !same {
            self.drop_answers_but(path);
            self.forget_head(path);
        }
    }

    /// Drops every kept answer but those for `edited`.
    fn drop_answers_but(&mut self, edited: &Path) {
        self.answers.retain(|(e, _, _), _| e == edited);
    }

    /// Applies one change the watch saw.
    fn apply(&mut self, path: &Path, change: DiskChange) {
        if self.answers_read.contains(path) {
            self.answers.clear();
        }
        match change {
            DiskChange::Deleted => self.forget_head(path),
            DiskChange::Created | DiskChange::Changed => self.refresh_head(path),
        }
        let exists = change != DiskChange::Deleted;
        let mut changed = false;
        self.listings.retain_mut(|(root, listing)| {
            let Ok(rel) = path.strip_prefix(root.as_path()) else {
                return true;
            };
            if exists == listing.files.contains(path) {
                return true;
            }
            changed = true;
            // A truncated listing holds the first files in walk order,
            // which a change cannot replay: walked again when next asked.
            if listing.truncated {
                return false;
            }
            if !exists {
                listing.files.remove(path);
                return true;
            }
            if rel.components().count() > 1 {
                let dirs = path.ancestors().skip(1);
                let dirs = dirs.take_while(|d| d.starts_with(root.as_path()));
                listing.dirs.extend(dirs.map(Path::to_path_buf));
            }
            listing.files.insert(path.to_path_buf());
            listing.files.len() <= super::walk::MAX_LISTED
        });
        if changed {
            self.trees.retain(|(root, _), _| !path.starts_with(root));
            self.answers.clear();
        }
    }
}
