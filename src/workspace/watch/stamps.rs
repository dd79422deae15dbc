//! The check at query time for platforms whose watcher cannot prove that
//! every event has arrived ([`crate::platform::watch::Traits`]): every
//! watched directory is listed again and each file's size and modification
//! time compared with those seen before. A file whose stamp moved changed,
//! whether or not its event has arrived; a name that is new was created, a
//! name that is missing was deleted, and a new directory is reported for
//! the watch to take in. On Windows a listing carries each file's size and
//! time, so this costs one directory read per directory.
//!
//! A file rewritten with the same size within the file system's timestamp
//! granularity looks unchanged (ext4 and NTFS stamp in far less than a
//! millisecond; FAT in two seconds); its event reports it at the next query.
//!
//! Bounded: at most [`MAX_STAMPED`] files; past that the watch says it is
//! incomplete (and the dependents cache is not kept).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::OsString;
use std::fs::DirEntry;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::{DiskChange, ignored};

/// The most files whose stamps are kept.
pub const MAX_STAMPED: usize = 50_000;

/// A file's size and modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
}

/// One directory's files, by name.
type Listing = HashMap<OsString, Stamp>;

#[derive(Default)]
pub struct Stamps {
    dirs: HashMap<PathBuf, Listing>,
    files: usize,
    /// Some file could not be stamped (over the bound).
    pub incomplete: bool,
}

/// What listing a directory found: its files' stamps and its
/// subdirectories that are not ignored.
struct Listed {
    files: Listing,
    subdirs: Vec<PathBuf>,
}

impl Stamps {
    /// Records `dir`'s files as they are now, from `entries` (its listing).
    pub fn record(&mut self, dir: &Path, entries: &[DirEntry]) {
        let listed = listed(entries);
        self.replace(dir, listed.files);
    }

    /// How many files are stamped.
    pub fn len(&self) -> usize {
        self.files
    }

    /// Lists every recorded directory again: adds to `seen` every file
    /// created, changed or deleted since the last look (unless an event
    /// reported it already), and to `new_dirs` every subdirectory not in
    /// `watched`. A directory that is gone reports its files deleted and
    /// is returned.
    pub fn check(
        &mut self,
        watched: &HashSet<PathBuf>,
        seen: &mut BTreeMap<PathBuf, DiskChange>,
        new_dirs: &mut Vec<PathBuf>,
    ) -> Vec<PathBuf> {
        let mut gone = Vec::new();
        let dirs: Vec<PathBuf> = self.dirs.keys().cloned().collect();
        for dir in dirs {
            let now = match std::fs::read_dir(&dir) {
                Ok(entries) => listed(&entries.flatten().collect::<Vec<_>>()),
                Err(_) => Listed {
                    files: Listing::new(),
                    subdirs: Vec::new(),
                },
            };
            let before = self.dirs.get(&dir);
            for (name, stamp) in &now.files {
                let change = match before.and_then(|b| b.get(name)) {
                    None => DiskChange::Created,
                    Some(old) if old != stamp => DiskChange::Changed,
                    Some(_) => continue,
                };
                seen.entry(dir.join(name)).or_insert(change);
            }
            for name in before.into_iter().flat_map(|b| b.keys()) {
                if !now.files.contains_key(name) {
                    seen.entry(dir.join(name)).or_insert(DiskChange::Deleted);
                }
            }
            new_dirs.extend(now.subdirs.into_iter().filter(|d| !watched.contains(d)));
            if dir.is_dir() {
                self.replace(&dir, now.files);
            } else {
                self.forget(&dir);
                gone.push(dir);
            }
        }
        gone
    }

    /// Stops listing `dir` (no longer watched).
    pub fn forget(&mut self, dir: &Path) {
        if let Some(old) = self.dirs.remove(dir) {
            self.files -= old.len();
        }
    }

    fn replace(&mut self, dir: &Path, mut files: Listing) {
        let old = self.dirs.get(dir).map_or(0, HashMap::len);
        let room = (MAX_STAMPED + old).saturating_sub(self.files);
        if files.len() > room {
            self.incomplete = true;
            files = files.into_iter().take(room).collect();
        }
        self.files = self.files - old + files.len();
        self.dirs.insert(dir.to_path_buf(), files);
    }
}

fn listed(entries: &[DirEntry]) -> Listed {
    let mut files = Listing::new();
    let mut subdirs = Vec::new();
    for entry in entries {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() && !ignored(&entry.file_name()) {
            subdirs.push(entry.path());
        } else if kind.is_file()
            && let Ok(meta) = entry.metadata()
        {
            let stamp = Stamp {
                len: meta.len(),
                modified: meta.modified().ok(),
            };
            files.insert(entry.file_name(), stamp);
        }
    }
    Listed { files, subdirs }
}
