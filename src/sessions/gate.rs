//! The rule that keeps a session's text out of every other answer. The
//! servers have one copy of each file; while a session's evaluation shows
//! them its text, a check or navigation request from any other surface
//! would read that text as if it were on disk. So a session's evaluation
//! holds the view alone (a write lock), every other query shares it (a
//! read lock), and the servers get the disk's text back before the
//! evaluation lets go. A query arriving meanwhile waits — at most one
//! evaluation, itself bounded by the diagnostics deadlines.
//!
//! The evaluation's own checks run the same engine code, which asks for
//! the shared view too: inside an evaluation (a task-local mark) they are
//! let through rather than deadlocking on the lock their caller holds.

use std::future::Future;
use std::sync::Arc;

use tokio::sync::{OwnedRwLockReadGuard, RwLock};

tokio::task_local! {
    static SPECULATING: ();
}

/// Held by a query for as long as it reads the servers (`None` inside a
/// session's own evaluation).
pub type SharedView = Option<OwnedRwLockReadGuard<()>>;

#[derive(Debug, Default)]
pub struct Gate {
    lock: Arc<RwLock<()>>,
}

impl Gate {
    /// The shared view for an ordinary query: waits while a session's
    /// evaluation holds the servers.
    pub async fn shared(&self) -> SharedView {
        if SPECULATING.try_with(|_| ()).is_ok() {
            return None;
        }
        Some(self.lock.clone().read_owned().await)
    }

    /// Runs `work` with the servers to itself: every other query waits
    /// until it ends.
    pub async fn exclusive<F: Future>(&self, work: F) -> F::Output {
        let _alone = self.lock.write().await;
        SPECULATING.scope((), work).await
    }
}
