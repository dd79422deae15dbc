//! The changes being checked now. Background work (the session start's
//! survey, `engine::warm`) waits until there is none before each of its
//! steps, so an agent's edit never queues behind it for more than a step.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::Notify;

#[derive(Debug, Default)]
pub(super) struct InFlight {
    count: AtomicUsize,
    idle: Notify,
}

/// One change being checked; dropping it ends it.
pub(super) struct Entered(Arc<InFlight>);

impl InFlight {
    pub(super) fn enter(self: &Arc<Self>) -> Entered {
        self.count.fetch_add(1, Ordering::SeqCst);
        Entered(Arc::clone(self))
    }

    /// Returns once no change is being checked.
    pub(super) async fn idle(&self) {
        loop {
            // Created before the count is read: a change that ends in
            // between still wakes it.
            let ended = self.idle.notified();
            if self.count.load(Ordering::SeqCst) == 0 {
                return;
            }
            ended.await;
        }
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        if self.0.count.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn idle_waits_for_the_last_change_to_end() {
        let changes = Arc::new(InFlight::default());
        changes.idle().await;
        let first = changes.enter();
        let second = changes.enter();
        let waiter = tokio::spawn({
            let changes = Arc::clone(&changes);
            async move { changes.idle().await }
        });
        tokio::task::yield_now().await;
        drop(first);
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        drop(second);
        waiter.await.unwrap_or_else(|e| panic!("idle: {e}"));
    }
}
