//! Which files changed on disk since squiggle last looked: an agent's own
//! edit tool, `sed -i`, a formatter or a code generator change files that
//! squiggle never wrote, and a server that is not told keeps answering for
//! the old text — one state behind. A long-lived engine (the daemon,
//! `serve`, `mcp`) watches the workspace's directories with the platform's
//! watcher ([`crate::platform::watch`]) and drains what it reported before
//! every query.
//!
//! The contract: a change made before a query is seen by that query. The
//! watcher delivers events on a thread of its own, so draining what has
//! arrived is not enough — an event may still be in flight. Where events
//! arrive in order (Linux, macOS), the drain first passes a barrier
//! ([`inbox`]): it creates a file in a directory of squiggle's own that the
//! same watcher watches and waits for that file's event, after which every
//! earlier change has arrived. Where they do not (Windows), or where a
//! directory's events do not name the files written in it (macOS), the
//! drain lists every watched directory again and compares each file's
//! size and modification time with those seen before ([`stamps`]). `docs/performance.md` has what
//! each costs at 1,000 and 20,000 files.
//!
//! Directories the workspace ignores (`node_modules`, `.git`, `target`, …)
//! are not watched, nor are more than `MAX_DIRS` directories (the watch is
//! then incomplete, and says so in the log).

mod barrier;
mod inbox;
mod stamps;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashSet};
use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use barrier::Barrier;
use inbox::{Hint, Inbox};
use stamps::Stamps;

use crate::platform::watch::{NativeWatcher, TRAITS};

pub use inbox::MAX_QUEUED;
pub use stamps::MAX_STAMPED;

/// The most directories one workspace watch covers.
pub const MAX_DIRS: usize = 20_000;

/// How long a drain waits for its barrier's event before it gives up and
/// says it lost track (the watcher's thread is stuck or gone).
pub const BARRIER_TIMEOUT: Duration = Duration::from_secs(2);

/// What happened to a path since the last drain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiskChange {
    Created,
    Changed,
    Deleted,
}

/// How a drain makes sure it saw every change made before it. The default
/// is the platform's ([`crate::platform::watch::Traits`]); benchmarks and
/// tests choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WatchOptions {
    /// Pass a barrier before draining (needs ordered events).
    pub barrier: bool,
    /// Compare every file's size and modification time with the disk's.
    pub stamps: bool,
}

impl Default for WatchOptions {
    fn default() -> WatchOptions {
        WatchOptions {
            barrier: TRAITS.ordered,
            stamps: !TRAITS.ordered || !TRAITS.names_files,
        }
    }
}

/// A watch over a workspace's directories.
pub struct DiskWatch {
    native: NativeWatcher,
    inbox: Arc<Inbox>,
    root: PathBuf,
    dirs: HashSet<PathBuf>,
    barrier: Option<Barrier>,
    stamps: Option<Stamps>,
    /// The watcher's queue overflowed since the last drain (or the watcher
    /// failed): some changes were lost.
    pub overflowed: bool,
    /// Since the last drain some files changed without an event of their
    /// own: a directory was removed or moved, or a new one held more files
    /// than are reported one by one. Whoever keeps a listing re-lists.
    pub lost_track: bool,
    /// A directory could not be watched (over `MAX_DIRS`, or the system's
    /// watch limit): changes there are never seen.
    incomplete: bool,
}

impl DiskWatch {
    /// Watches `root` and the directories under it that are not ignored,
    /// the platform's way.
    pub fn start(root: &Path) -> io::Result<DiskWatch> {
        DiskWatch::start_with(root, WatchOptions::default())
    }

    /// [`DiskWatch::start`] with a chosen way of keeping the contract.
    pub fn start_with(root: &Path, options: WatchOptions) -> io::Result<DiskWatch> {
        let inbox = Inbox::new();
        let sink = inbox.clone();
        let native = NativeWatcher::new(move |event| sink.push(event)).map_err(io::Error::other)?;
        let mut watch = DiskWatch {
            native,
            inbox,
            root: root.to_path_buf(),
            dirs: HashSet::new(),
            barrier: None,
            stamps: options.stamps.then(Stamps::default),
            overflowed: false,
            lost_track: false,
            incomplete: false,
        };
        if options.barrier {
            match Barrier::create(&mut watch.native) {
                Ok(barrier) => {
                    watch.inbox.set_barrier_dir(&barrier.dir);
                    watch.barrier = Some(barrier);
                }
                Err(e) => {
                    tracing::info!(
                        "cannot set up the watch's barrier ({e}); files are compared with the disk at every query instead"
                    );
                    watch.stamps.get_or_insert_with(Stamps::default);
                }
            }
        }
        watch.watch_tree(root);
        Ok(watch)
    }

    /// A receiver that changes whenever the watcher reports a change (not
    /// yet drained), for whoever follows the disk between queries.
    pub fn arrivals(&self) -> tokio::sync::watch::Receiver<u64> {
        self.inbox.arrivals()
    }

    /// How many directories are watched.
    pub fn watched_dirs(&self) -> usize {
        self.dirs.len()
    }

    /// How many files' stamps are compared at every drain (0 when the
    /// platform's events need no comparison).
    pub fn stamped_files(&self) -> usize {
        self.stamps.as_ref().map_or(0, Stamps::len)
    }

    /// Whether every directory it tried to watch is watched (and, where
    /// files are compared with the disk, every file is).
    pub fn complete(&self) -> bool {
        !self.incomplete && !self.stamps.as_ref().is_some_and(|s| s.incomplete)
    }

    fn watch_tree(&mut self, top: &Path) {
        let mut stack = vec![top.to_path_buf()];
        while let Some(dir) = stack.pop() {
            if self.dirs.len() >= MAX_DIRS {
                self.incomplete = true;
                tracing::info!(
                    "watching the first {MAX_DIRS} directories only; changes elsewhere are seen when their files are checked"
                );
                return;
            }
            if !self.add(&dir) {
                self.incomplete = true;
                continue;
            }
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let entries: Vec<_> = entries.flatten().collect();
            for entry in &entries {
                let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
                if is_dir && !ignored(&entry.file_name()) {
                    stack.push(entry.path());
                }
            }
            if let Some(stamps) = &mut self.stamps {
                stamps.record(&dir, &entries);
            }
        }
    }

    fn add(&mut self, dir: &Path) -> bool {
        if self.dirs.contains(dir) {
            return true;
        }
        // A recursive watch of the root covers every directory under it.
        if (!TRAITS.recursive || dir == self.root)
            && let Err(e) = self.native.watch(dir)
        {
            tracing::debug!("cannot watch {}: {e}", dir.display());
            return false;
        }
        self.dirs.insert(dir.to_path_buf());
        true
    }

    /// Every file path changed since the last drain, with what happened to
    /// it now (a file created and deleted again is `Deleted`). New
    /// directories are watched from now on and their files reported.
    pub fn drain(&mut self) -> BTreeMap<PathBuf, DiskChange> {
        if let Some(barrier) = &mut self.barrier
            && !barrier.pass(&self.inbox)
        {
            tracing::info!(
                "the file watcher did not answer in time; open documents are re-read and cached listings dropped"
            );
            self.overflowed = true;
            self.lost_track = true;
        }
        let taken = self.inbox.take();
        self.overflowed |= taken.overflowed || taken.failed;
        let mut seen: BTreeMap<PathBuf, DiskChange> = BTreeMap::new();
        let mut new_dirs = Vec::new();
        let mut gone_dirs: HashSet<PathBuf> = HashSet::new();
        for (path, hint) in taken.events {
            if !self.covers(&path) || gone_dirs.contains(&path) {
                continue;
            }
            if self.dirs.contains(&path) {
                self.directory_event(&path, hint, &mut gone_dirs);
                continue;
            }
            let change = match hint {
                Hint::DirCreated => {
                    new_dirs.push(path);
                    continue;
                }
                Hint::Created | Hint::MovedTo | Hint::Renamed if path.is_dir() => {
                    if !ignored(path.file_name().unwrap_or_default()) {
                        new_dirs.push(path);
                    }
                    continue;
                }
                Hint::Created | Hint::MovedTo => DiskChange::Created,
                Hint::Renamed if path.exists() => DiskChange::Created,
                Hint::Removed | Hint::MovedFrom | Hint::Renamed => DiskChange::Deleted,
                Hint::Changed => DiskChange::Changed,
            };
            note(&mut seen, path, change);
        }
        if let Some(stamps) = &mut self.stamps {
            for dir in stamps.check(&self.dirs, &mut seen, &mut new_dirs) {
                // Its files are reported deleted; the cache re-lists.
                self.lost_track = true;
                self.forget(&dir);
            }
        }
        for dir in new_dirs {
            if self.dirs.contains(&dir) {
                continue;
            }
            self.watch_tree(&dir);
            // Files written into it before its watch existed.
            let (files, all) = files_under(&dir);
            self.lost_track |= !all;
            for file in files {
                seen.insert(file, DiskChange::Created);
            }
        }
        // What happened to each path is what is on the disk now: an event
        // can arrive a drain late (ReadDirectoryChangesW delivers when it
        // gets round to it), so a deletion reported now may be of a file
        // that was deleted before the last drain and created again since.
        for (path, change) in seen.iter_mut() {
            match (path.exists(), *change) {
                (false, _) => *change = DiskChange::Deleted,
                (true, DiskChange::Deleted) => *change = DiskChange::Created,
                (true, _) => {}
            }
        }
        seen
    }

    /// An event naming a watched directory itself.
    fn directory_event(&mut self, dir: &Path, hint: Hint, gone: &mut HashSet<PathBuf>) {
        match hint {
            Hint::Removed | Hint::MovedFrom | Hint::Renamed if !dir.is_dir() => {
                // Its files are gone from here without events of their own.
                self.lost_track = true;
                self.forget(dir);
                gone.insert(dir.to_path_buf());
            }
            // Something in it changed that the watcher did not name
            // (kqueue): whoever keeps a listing re-lists.
            Hint::Changed if !TRAITS.names_files => self.lost_track = true,
            _ => {}
        }
    }

    /// Whether `path` is one the watch reports: under the root and not
    /// under an ignored directory (a recursive watch sees those too).
    fn covers(&self, path: &Path) -> bool {
        let Ok(rest) = path.strip_prefix(&self.root) else {
            return false;
        };
        let mut parents = rest.components();
        parents.next_back();
        !parents.any(|c| ignored(c.as_os_str()))
    }

    /// Stops watching a directory moved away or removed and those under
    /// it: an inotify watch follows a moved directory and would report its
    /// files under the old path. Moved back in, it is watched afresh.
    fn forget(&mut self, gone: &Path) {
        let stale: Vec<PathBuf> = self
            .dirs
            .iter()
            .filter(|dir| dir.starts_with(gone))
            .cloned()
            .collect();
        for dir in stale {
            if !TRAITS.recursive || dir == self.root {
                let _ = self.native.unwatch(&dir);
            }
            self.dirs.remove(&dir);
            if let Some(stamps) = &mut self.stamps {
                stamps.forget(&dir);
            }
        }
    }
}

/// Records `change` for `path`, keeping what the drain means by it: a file
/// created then written is still created, and one deleted then written was
/// created again.
fn note(seen: &mut BTreeMap<PathBuf, DiskChange>, path: PathBuf, change: DiskChange) {
    seen.entry(path)
        .and_modify(|c| {
            *c = match (*c, change) {
                (DiskChange::Created | DiskChange::Deleted, DiskChange::Changed) => {
                    DiskChange::Created
                }
                (_, change) => change,
            };
        })
        .or_insert(change);
}

fn ignored(name: &OsStr) -> bool {
    !super::walked_dir(&name.to_string_lossy())
}

/// The files under a directory that just appeared (bounded), and whether
/// that is all of them.
fn files_under(dir: &Path) -> (Vec<PathBuf>, bool) {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            match entry.file_type() {
                Ok(t) if t.is_dir() && !ignored(&entry.file_name()) => stack.push(entry.path()),
                Ok(t) if t.is_file() => out.push(entry.path()),
                _ => {}
            }
            if out.len() >= 1_000 {
                return (out, false);
            }
        }
    }
    (out, true)
}
