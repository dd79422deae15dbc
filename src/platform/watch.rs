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
