//! Where the watcher's thread leaves its events for the next drain, and
//! the barrier that proves they have all arrived. The watcher delivers
//! events on a thread of its own, so an event may still be in flight when
//! a query drains: on a platform whose events arrive in order
//! ([`crate::platform::watch::Traits::ordered`]), the drain creates a file
//! in a directory of squiggle's own that the same watcher watches, and
//! waits until that file's event arrives; every change made before it has
//! then arrived too.
//!
//! Bounded: past [`MAX_QUEUED`] paths between two drains the inbox stops
//! keeping them and says it overflowed, as the kernel's queue would.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode, CreateKind, EventKind, ModifyKind};

use crate::mutex::lock;

/// The most paths kept between two drains.
pub const MAX_QUEUED: usize = 100_000;

/// What an event says happened to a path, as far as the drain cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hint {
    Created,
    /// Created, and the watcher knows it is a directory.
    DirCreated,
    Changed,
    Removed,
    /// Renamed to this path.
    MovedTo,
    /// Renamed away from this path.
    MovedFrom,
    /// Renamed, without saying which end this path is (kqueue).
    Renamed,
}

#[derive(Default)]
struct State {
    events: Vec<(PathBuf, Hint)>,
    overflowed: bool,
    /// The watcher reported an error: some changes may be lost.
    failed: bool,
    /// The highest barrier number whose event has arrived.
    barrier: u64,
}

/// Shared by the watcher's thread (writing) and the drain (reading).
#[derive(Default)]
pub struct Inbox {
    state: Mutex<State>,
    arrived: Condvar,
    /// Events under this directory are barriers, not changes.
    barrier_dir: Mutex<Option<PathBuf>>,
    /// Bumped whenever something other than a barrier arrives, for whoever
    /// waits for the disk to change rather than asking at a query.
    arrivals: tokio::sync::watch::Sender<u64>,
}

/// What one drain took out of the inbox.
#[derive(Default)]
pub struct Taken {
    pub events: Vec<(PathBuf, Hint)>,
    pub overflowed: bool,
    pub failed: bool,
}

impl Inbox {
    pub fn new() -> Arc<Inbox> {
        Arc::new(Inbox::default())
    }

    pub fn set_barrier_dir(&self, dir: &Path) {
        *lock(&self.barrier_dir) = Some(dir.to_path_buf());
    }

    /// A receiver that changes whenever something other than a barrier
    /// arrived (an error included: changes may have been lost).
    pub fn arrivals(&self) -> tokio::sync::watch::Receiver<u64> {
        self.arrivals.subscribe()
    }

    /// Called on the watcher's thread for every event.
    pub fn push(&self, event: notify::Result<notify::Event>) {
        if self.store(event) {
            self.arrivals.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    /// Keeps what `event` says; whether it said more than a barrier.
    fn store(&self, event: notify::Result<notify::Event>) -> bool {
        let barrier_dir = lock(&self.barrier_dir).clone();
        let mut state = lock(&self.state);
        let event = match event {
            Ok(event) => event,
            Err(e) => {
                tracing::debug!("the file watcher reported an error: {e}");
                state.failed = true;
                return true;
            }
        };
        let mut changed = event.need_rescan();
        if event.need_rescan() {
            state.overflowed = true;
        }
        let hints = hints(&event.kind);
        for (i, path) in event.paths.into_iter().enumerate() {
            if let Some(dir) = &barrier_dir
                && path.parent() == Some(dir.as_path())
            {
                let number = path.file_name().and_then(|n| n.to_str()?.parse().ok());
                state.barrier = state.barrier.max(number.unwrap_or(0));
                self.arrived.notify_all();
                continue;
            }
            // A rename with both ends names the old path first.
            let Some(hint) = hints.get(i).or(hints.last()).copied() else {
                continue;
            };
            changed = true;
            if state.events.len() >= MAX_QUEUED {
                state.overflowed = true;
                continue;
            }
            state.events.push((path, hint));
        }
        changed
    }

    /// Waits until barrier `number` has arrived or `timeout` passed; true
    /// when it arrived.
    pub fn wait_for_barrier(&self, number: u64, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut state = lock(&self.state);
        while state.barrier < number {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            state = match self.arrived.wait_timeout(state, left) {
                Ok((state, _)) => state,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        true
    }

    /// Everything that arrived since the last call.
    pub fn take(&self) -> Taken {
        let mut state = lock(&self.state);
        Taken {
            events: std::mem::take(&mut state.events),
            overflowed: std::mem::take(&mut state.overflowed),
            failed: std::mem::take(&mut state.failed),
        }
    }
}

/// What an event of `kind` says about each of its paths (one hint for
/// all, or one per path for a rename with both ends). Reads, opens and
/// metadata changes say nothing about a file's text.
fn hints(kind: &EventKind) -> Vec<Hint> {
    use notify::event::RenameMode;
    match kind {
        EventKind::Create(CreateKind::Folder) => vec![Hint::DirCreated],
        EventKind::Create(_) => vec![Hint::Created],
        EventKind::Remove(_) => vec![Hint::Removed],
        // inotify reports both ends of a rename separately too.
        EventKind::Modify(ModifyKind::Name(RenameMode::Both)) => vec![],
        EventKind::Modify(ModifyKind::Name(RenameMode::To)) => vec![Hint::MovedTo],
        EventKind::Modify(ModifyKind::Name(RenameMode::From)) => vec![Hint::MovedFrom],
        EventKind::Modify(ModifyKind::Name(_)) => vec![Hint::Renamed],
        EventKind::Modify(ModifyKind::Metadata(_)) => vec![],
        EventKind::Modify(_) => vec![Hint::Changed],
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => vec![Hint::Changed],
        EventKind::Access(_) => vec![],
        // Windows reports some changes without a kind.
        EventKind::Any | EventKind::Other => vec![Hint::Changed],
    }
}
