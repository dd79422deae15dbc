//! The drain's barrier: a directory of squiggle's own under the temporary
//! directory, watched by the same watcher; each drain creates a numbered
//! file in it and waits for that file's event, after which every event
//! before it has arrived.

use std::io;
use std::path::{Path, PathBuf};

use super::BARRIER_TIMEOUT;
use super::inbox::Inbox;
use crate::platform::watch::NativeWatcher;

/// A directory of squiggle's own, watched by the same watcher, where each
/// drain creates a numbered file and waits for its event.
pub(super) struct Barrier {
    pub(super) dir: PathBuf,
    next: u64,
}

impl Barrier {
    pub(super) fn create(native: &mut NativeWatcher) -> io::Result<Barrier> {
        let base = std::env::temp_dir();
        let pid = std::process::id();
        remove_orphans(&base);
        for n in 0..100 {
            let dir = base.join(format!("squiggle-watch-{pid}-{n}"));
            match std::fs::create_dir(&dir) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
            let barrier = Barrier { dir, next: 0 };
            native.watch(&barrier.dir).map_err(io::Error::other)?;
            return Ok(barrier);
        }
        Err(io::Error::other("no free name for the barrier directory"))
    }

    /// Creates the next barrier file and waits for its event; false when
    /// it did not arrive in time.
    pub(super) fn pass(&mut self, inbox: &Inbox) -> bool {
        self.next += 1;
        let file = self.dir.join(self.next.to_string());
        if let Err(e) = std::fs::File::create_new(&file) {
            tracing::debug!("cannot create the barrier {}: {e}", file.display());
            return false;
        }
        let arrived = inbox.wait_for_barrier(self.next, BARRIER_TIMEOUT);
        let _ = std::fs::remove_file(&file);
        arrived
    }
}

/// Removes the barrier directories of squiggle processes that are gone
/// (killed before they could remove their own).
fn remove_orphans(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name
            .to_str()
            .and_then(|n| n.strip_prefix("squiggle-watch-"))
        else {
            continue;
        };
        let owner = rest.split('-').next().and_then(|p| p.parse::<u32>().ok());
        if owner.is_some_and(|pid| !crate::platform::process::alive(pid)) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

impl Drop for Barrier {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
