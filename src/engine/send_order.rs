//! The order of a change's sends when its importers are checked beside it
//! (`engine::beside`): an importer's text and its pull go to a server only
//! after every touched file's text has gone to its own, so that a server,
//! which answers requests in the order they arrive, answers the importer
//! for the change. Each wait for a touched file holds a [`SendToken`]
//! until its text is sent (or it ends without sending); the order opens
//! once the phase has handed out every token and all were given back.

use std::sync::{Arc, Mutex};

use tokio::sync::watch;

/// Tokens out, and whether the phase has handed out all it will.
#[derive(Default)]
struct Count {
    out: usize,
    armed: bool,
}

pub(super) struct SendOrder {
    count: Mutex<Count>,
    open: watch::Sender<bool>,
}

/// A touched file's wait, before its text is sent: dropping it says sent.
pub(super) struct SendToken(Arc<SendOrder>);

impl SendOrder {
    pub(super) fn new() -> Arc<SendOrder> {
        Arc::new(SendOrder {
            count: Mutex::new(Count::default()),
            open: watch::Sender::new(false),
        })
    }

    pub(super) fn token(self: &Arc<Self>) -> SendToken {
        self.lock().out += 1;
        SendToken(self.clone())
    }

    /// Every token of the phase is out: the order opens once they are back.
    pub(super) fn arm(&self) {
        let mut count = self.lock();
        count.armed = true;
        self.open_if_done(&count);
    }

    /// Waits until every touched file's text was sent.
    pub(super) async fn opened(&self) {
        let mut open = self.open.subscribe();
        // The sender lives in `self`: the wait ends only when it opens.
        let _ = open.wait_for(|o| *o).await;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Count> {
        self.count.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn open_if_done(&self, count: &Count) {
        if count.armed && count.out == 0 {
            self.open.send_replace(true);
        }
    }
}

impl Drop for SendToken {
    fn drop(&mut self) {
        let mut count = self.0.lock();
        count.out = count.out.saturating_sub(1);
        self.0.open_if_done(&count);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn opens_when_armed_and_every_token_is_back() {
        let order = SendOrder::new();
        let a = order.token();
        let b = order.token();
        order.arm();
        drop(a);
        assert!(!*order.open.borrow());
        drop(b);
        order.opened().await;
        // Armed with no token out: open at once.
        let empty = SendOrder::new();
        empty.arm();
        empty.opened().await;
        // Tokens back before it is armed: not open until armed.
        let early = SendOrder::new();
        drop(early.token());
        assert!(!*early.open.borrow());
        early.arm();
        early.opened().await;
    }
}
