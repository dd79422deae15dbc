//! Which files changed on disk since squiggle last looked: an agent's own
//! edit tool, `sed -i`, a formatter or a code generator change files that
//! squiggle never wrote, and a server that is not told keeps answering for
//! the old text — one state behind. A long-lived engine (the daemon, `serve`,
//! `mcp`) watches the workspace's directories with inotify and drains the
//! kernel's queue before every query. Draining reads the queue in the
//! calling thread, without blocking: an event is queued by the write that
//! caused it, so a change made before a query is always seen by it.
//!
//! Directories the workspace ignores (`node_modules`, `.git`, `target`, …)
//! are not watched, nor are more than `MAX_DIRS` directories (the watch is
//! then incomplete, and says so in the log).

use std::collections::{BTreeMap, HashMap};
use std::ffi::{CString, OsStr};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::IGNORED_DIRS;

/// The most directories one workspace watch covers.
pub const MAX_DIRS: usize = 20_000;

/// What happened to a path since the last drain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiskChange {
    Created,
    Changed,
    Deleted,
}

/// An inotify watch over a workspace's directories.
pub struct DiskWatch {
    fd: OwnedFd,
    dirs: HashMap<i32, PathBuf>,
    /// The queue overflowed since the last drain: some changes were lost.
    pub overflowed: bool,
    /// Since the last drain some files changed without an event of their
    /// own: a directory was removed or moved, or a new one held more files
    /// than are reported one by one. Whoever keeps a listing re-lists.
    pub lost_track: bool,
    /// A directory could not be watched (over `MAX_DIRS`, or the kernel's
    /// watch limit): changes there are never seen.
    incomplete: bool,
}

const FILE_EVENTS: u32 = libc::IN_CLOSE_WRITE
    | libc::IN_MODIFY
    | libc::IN_CREATE
    | libc::IN_DELETE
    | libc::IN_MOVED_FROM
    | libc::IN_MOVED_TO
    | libc::IN_ONLYDIR;

impl DiskWatch {
    /// Watches `root` and the directories under it that are not ignored.
    pub fn start(root: &Path) -> io::Result<DiskWatch> {
        // SAFETY: inotify_init1 takes flags only; a negative return is an error.
        let raw = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `raw` is a fresh descriptor that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let mut watch = DiskWatch {
            fd,
            dirs: HashMap::new(),
            overflowed: false,
            lost_track: false,
            incomplete: false,
        };
        watch.watch_tree(root);
        Ok(watch)
    }

    /// How many directories are watched.
    pub fn watched_dirs(&self) -> usize {
        self.dirs.len()
    }

    /// Whether every directory it tried to watch is watched.
    pub fn complete(&self) -> bool {
        !self.incomplete
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
            for entry in entries.flatten() {
                let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
                if is_dir && !ignored(&entry.file_name()) {
                    stack.push(entry.path());
                }
            }
        }
    }

    fn add(&mut self, dir: &Path) -> bool {
        let Ok(path) = CString::new(dir.as_os_str().as_bytes()) else {
            return false;
        };
        // SAFETY: a valid descriptor and a NUL-terminated path.
        let wd =
            unsafe { libc::inotify_add_watch(self.fd.as_raw_fd(), path.as_ptr(), FILE_EVENTS) };
        if wd < 0 {
            return false;
        }
        self.dirs.insert(wd, dir.to_path_buf());
        true
    }

    /// Every file path changed since the last drain, with what happened to
    /// it now (a file created and deleted again is `Deleted`). New
    /// directories are watched from now on and their files reported.
    pub fn drain(&mut self) -> BTreeMap<PathBuf, DiskChange> {
        let mut seen: BTreeMap<PathBuf, DiskChange> = BTreeMap::new();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            // SAFETY: reading into a buffer we own, at most its length.
            let n = unsafe {
                libc::read(
                    self.fd.as_raw_fd(),
                    buf.as_mut_ptr().cast::<libc::c_void>(),
                    buf.len(),
                )
            };
            if n <= 0 {
                break; // EAGAIN: the queue is empty (or the read failed).
            }
            let n = usize::try_from(n).unwrap_or(0);
            self.parse(&buf[..n], &mut seen);
        }
        for (path, change) in seen.iter_mut() {
            if !path.exists() {
                *change = DiskChange::Deleted;
            }
        }
        seen
    }

    fn parse(&mut self, mut bytes: &[u8], seen: &mut BTreeMap<PathBuf, DiskChange>) {
        const HEADER: usize = std::mem::size_of::<libc::inotify_event>();
        let mut new_dirs = Vec::new();
        while bytes.len() >= HEADER {
            // SAFETY: at least HEADER bytes remain; the read may be unaligned.
            let event: libc::inotify_event =
                unsafe { std::ptr::read_unaligned(bytes.as_ptr().cast()) };
            let len = event.len as usize;
            let Some(name) = bytes.get(HEADER..HEADER + len) else {
                break;
            };
            bytes = &bytes[HEADER + len..];
            if event.mask & libc::IN_Q_OVERFLOW != 0 {
                self.overflowed = true;
                continue;
            }
            if event.mask & libc::IN_IGNORED != 0 {
                self.dirs.remove(&event.wd);
                continue;
            }
            let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())];
            let Some(dir) = self.dirs.get(&event.wd) else {
                continue;
            };
            if name.is_empty() {
                continue;
            }
            let path = dir.join(OsStr::from_bytes(name));
            if event.mask & libc::IN_ISDIR != 0 {
                if event.mask & (libc::IN_CREATE | libc::IN_MOVED_TO) != 0
                    && !ignored(OsStr::from_bytes(name))
                {
                    new_dirs.push(path);
                } else if event.mask & (libc::IN_DELETE | libc::IN_MOVED_FROM) != 0
                    && !ignored(OsStr::from_bytes(name))
                {
                    // Its files are gone from here without events of their own.
                    self.lost_track = true;
                    if event.mask & libc::IN_MOVED_FROM != 0 {
                        self.forget(&path);
                    }
                }
                continue;
            }
            let change = if event.mask & (libc::IN_CREATE | libc::IN_MOVED_TO) != 0 {
                DiskChange::Created
            } else if event.mask & (libc::IN_DELETE | libc::IN_MOVED_FROM) != 0 {
                DiskChange::Deleted
            } else {
                DiskChange::Changed
            };
            seen.entry(path)
                .and_modify(|c| {
                    // Created then written is still created.
                    if !(*c == DiskChange::Created && change == DiskChange::Changed) {
                        *c = change;
                    }
                })
                .or_insert(change);
        }
        for dir in new_dirs {
            self.watch_tree(&dir);
            // Files written into it before its watch existed.
            let (files, all) = files_under(&dir);
            self.lost_track |= !all;
            for file in files {
                seen.insert(file, DiskChange::Created);
            }
        }
    }

    /// Stops watching a directory moved away and those under it: their
    /// watches follow the moved directory and would report its files under
    /// the old path. Moved back in, it is watched afresh.
    fn forget(&mut self, gone: &Path) {
        let stale: Vec<i32> = self
            .dirs
            .iter()
            .filter(|(_, dir)| dir.starts_with(gone))
            .map(|(wd, _)| *wd)
            .collect();
        for wd in stale {
            // SAFETY: a descriptor we own and a watch it returned.
            unsafe { libc::inotify_rm_watch(self.fd.as_raw_fd(), wd) };
            self.dirs.remove(&wd);
        }
    }
}

fn ignored(name: &OsStr) -> bool {
    let name = name.to_string_lossy();
    name.starts_with('.') || IGNORED_DIRS.contains(&name.as_ref())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sees_writes_creations_deletions_and_new_directories() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
        std::fs::create_dir_all(root.join("src")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::create_dir_all(root.join("node_modules/x")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(root.join("src/lib.ts"), "a").unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(root.join("gone.ts"), "a").unwrap_or_else(|e| panic!("{e}"));
        let mut watch = DiskWatch::start(&root).unwrap_or_else(|e| panic!("{e}"));
        assert!(watch.drain().is_empty(), "nothing changed yet");

        std::fs::write(root.join("src/lib.ts"), "b").unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(root.join("new.ts"), "n").unwrap_or_else(|e| panic!("{e}"));
        std::fs::remove_file(root.join("gone.ts")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(root.join("node_modules/x/i.js"), "i").unwrap_or_else(|e| panic!("{e}"));
        std::fs::create_dir_all(root.join("pkg")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(root.join("pkg/m.ts"), "m").unwrap_or_else(|e| panic!("{e}"));
        let changes = watch.drain();
        assert_eq!(
            changes.into_iter().collect::<Vec<_>>(),
            vec![
                (root.join("gone.ts"), DiskChange::Deleted),
                (root.join("new.ts"), DiskChange::Created),
                (root.join("pkg/m.ts"), DiskChange::Created),
                (root.join("src/lib.ts"), DiskChange::Changed),
            ]
        );
        // Drained: the next look finds nothing new.
        assert!(watch.drain().is_empty());
        // The new directory is watched from now on.
        std::fs::write(root.join("pkg/m.ts"), "m2").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            watch.drain().into_iter().collect::<Vec<_>>(),
            vec![(root.join("pkg/m.ts"), DiskChange::Changed)]
        );
    }
}
