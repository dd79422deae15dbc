//! The operating system's file watcher, through the `notify` crate, and
//! what each one promises. [`crate::workspace::watch`] keeps one guarantee
//! on every platform — a change made before a query is seen by that query
//! — and how it keeps it depends on these promises:
//!
//! - Linux (inotify): one queue per watcher, in the order the changes
//!   happened, naming every file written. A barrier (a file created in a
//!   watched directory of squiggle's own, then waited for) proves that
//!   every earlier event has arrived.
//! - macOS (kqueue; FSEvents would need the CoreServices framework, which
//!   cannot be linked without an Apple SDK): one queue per watcher, but a
//!   watched directory reports only that its entries changed, and a write
//!   to a file is reported only if the file itself has a watch (an open
//!   descriptor each). Files are not watched one by one; their writes are
//!   found by the stamp check (size and modification time) at query time.
//!   Each watched directory holds a descriptor, and macOS starts processes
//!   with a soft limit of 256: the limit is raised to the hard one (at most
//!   `OPEN_MAX`) before the first watch. notify's kqueue backend, told that
//!   a directory changed, reports the first file in it that it has no
//!   watch for as created (and watches it from then on): a spurious
//!   "created" for a file that exists, which costs a re-read, never a
//!   missed change. None of this could be run here.
//! - Windows (ReadDirectoryChangesW): one recursive watch of the tree, its
//!   results delivered asynchronously and writes reported when the file
//!   system gets round to it. No barrier can prove arrival, so the stamp
//!   check runs at query time.

use std::path::Path;

use notify::{Config, EventHandler, RecursiveMode, Watcher};

/// What a platform's watcher promises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Traits {
    /// Events of one watcher arrive in the order their changes happened,
    /// across all its directories: a barrier proves arrival.
    pub ordered: bool,
    /// A watched directory's events name each file written in it (not
    /// only the directory).
    pub names_files: bool,
    /// One watch covers a directory and everything under it.
    pub recursive: bool,
}

#[cfg(any(target_os = "linux", target_os = "android"))]
pub const TRAITS: Traits = Traits {
    ordered: true,
    names_files: true,
    recursive: false,
};

#[cfg(target_os = "macos")]
pub const TRAITS: Traits = Traits {
    ordered: true,
    names_files: false,
    recursive: false,
};

#[cfg(windows)]
pub const TRAITS: Traits = Traits {
    ordered: false,
    names_files: true,
    recursive: true,
};

#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_os = "macos",
    windows
)))]
pub const TRAITS: Traits = Traits {
    ordered: false,
    names_files: false,
    recursive: false,
};

/// The platform's watcher, delivering events to `handler` on its own thread.
pub struct NativeWatcher(notify::RecommendedWatcher);

impl NativeWatcher {
    pub fn new(handler: impl EventHandler) -> notify::Result<NativeWatcher> {
        #[cfg(target_os = "macos")]
        raise_descriptor_limit();
        notify::RecommendedWatcher::new(handler, Config::default()).map(NativeWatcher)
    }

    /// Watches `dir` itself (with [`Traits::recursive`], everything under it).
    pub fn watch(&mut self, dir: &Path) -> notify::Result<()> {
        let mode = if TRAITS.recursive {
            RecursiveMode::Recursive
        } else {
            RecursiveMode::NonRecursive
        };
        self.0.watch(dir, mode)
    }

    pub fn unwatch(&mut self, dir: &Path) -> notify::Result<()> {
        self.0.unwatch(dir)
    }
}

/// Raises the soft limit on open descriptors to the hard limit (at most
/// `OPEN_MAX`, 10240), once: kqueue holds one per watched directory.
#[cfg(target_os = "macos")]
fn raise_descriptor_limit() {
    /// `<sys/syslimits.h>`: the most a process may raise its limit to.
    const OPEN_MAX: libc::rlim_t = 10240;
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: getrlimit/setrlimit read and write the struct given.
        unsafe {
            let mut limit: libc::rlimit = std::mem::zeroed();
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
                return;
            }
            let wanted = limit.rlim_max.min(OPEN_MAX);
            if limit.rlim_cur < wanted {
                limit.rlim_cur = wanted;
                libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
            }
        }
    });
}
