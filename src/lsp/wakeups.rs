//! Who is woken when a message arrives.
//!
//! A check of N files has N waits on one server at once. If every publish
//! woke every wait, a server answering N files would cause N² wakeups, each
//! taking the state lock to find nothing new: the cost per file would grow
//! with the number of files. So a wait for one document wakes only on that
//! document's publishes, plus the events that concern every wait (progress,
//! registration, refresh, death), which are few.
//!
//! The state and its signals live together in `SharedState`: a change the
//! server causes goes through `SharedState::change`, which wakes whom the
//! change says it concerns, so no call site has to remember to.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use tokio::sync::watch;
use tokio::time::Instant;

use super::state::{ClientState, Wake};
use crate::mutex::lock;

/// A client's state behind its lock, with the signals that wake its waits.
pub(crate) struct SharedState {
    state: Mutex<ClientState>,
    signals: Signals,
}

impl SharedState {
    pub(crate) fn new() -> Self {
        Self {
            state: Mutex::new(ClientState::default()),
            signals: Signals::new(),
        }
    }

    /// The state, for reading and for the client's own bookkeeping (the
    /// documents it sent, the pulls it made), which no wait is woken by.
    pub(crate) fn lock(&self) -> MutexGuard<'_, ClientState> {
        lock(&self.state)
    }

    /// Applies a change the server caused, then wakes the waits it concerns
    /// (after the lock is released, so a woken wait finds the change).
    pub(crate) fn change(&self, apply: impl FnOnce(&mut ClientState) -> Wake) {
        let wake = apply(&mut lock(&self.state));
        match wake {
            Wake::Nobody => {}
            Wake::Document(uri) => self.signals.published(&uri),
            Wake::Everyone => self.signals.event(),
        }
    }

    /// The server died or was shut down: every wait looks again.
    pub(crate) fn died(&self) {
        self.signals.event();
    }

    /// A receiver that changes on every event, publishes included: for code
    /// that watches the whole server (navigation waiting for indexing,
    /// doctor's probe, benchmarks).
    pub(crate) fn any(&self) -> watch::Receiver<u64> {
        self.signals.any.subscribe()
    }

    /// The wakeups of a wait for `uri`.
    pub(crate) fn for_document(&self, uri: &str) -> DocumentWakeups {
        self.signals.for_document(uri)
    }
}

struct Signals {
    /// Every event, publishes included: for code that watches the whole
    /// server (navigation waiting for indexing, doctor's probe, benchmarks).
    any: watch::Sender<u64>,
    /// Every event that is not a publish.
    control: watch::Sender<u64>,
    /// Publishes, per URI, for the URIs a wait is watching.
    documents: Mutex<HashMap<String, watch::Sender<u64>>>,
}

impl Signals {
    fn new() -> Self {
        Self {
            any: watch::channel(0).0,
            control: watch::channel(0).0,
            documents: Mutex::new(HashMap::new()),
        }
    }

    /// Progress, a registration, a refresh, death: anything but a publish.
    fn event(&self) {
        bump(&self.any);
        bump(&self.control);
    }

    /// A publish (or a status, for servers that report one per file) for
    /// `uri` was stored.
    fn published(&self, uri: &str) {
        bump(&self.any);
        let mut documents = lock(&self.documents);
        if let Some(sender) = documents.get(uri) {
            if sender.receiver_count() == 0 {
                // Nobody waits on it any more: forget it rather than keep an
                // entry per URI ever waited on.
                documents.remove(uri);
            } else {
                bump(sender);
            }
        }
    }

    fn for_document(&self, uri: &str) -> DocumentWakeups {
        let document = lock(&self.documents)
            .entry(uri.to_string())
            .or_insert_with(|| watch::channel(0).0)
            .subscribe();
        DocumentWakeups {
            control: self.control.subscribe(),
            document,
        }
    }
}

fn bump(sender: &watch::Sender<u64>) {
    sender.send_modify(|n| *n = n.wrapping_add(1));
}

/// What one document's wait wakes on: its own publishes and every event that
/// is not a publish.
pub(crate) struct DocumentWakeups {
    control: watch::Receiver<u64>,
    document: watch::Receiver<u64>,
}

impl DocumentWakeups {
    /// Marks everything so far as seen; call before reading the state, so an
    /// event arriving after the read wakes the next `until`.
    pub(crate) fn mark_seen(&mut self) {
        self.control.borrow_and_update();
        self.document.borrow_and_update();
    }

    /// Returns at the next event unseen since `mark_seen`, or at `deadline`.
    pub(crate) async fn until(&mut self, deadline: Instant) {
        let next = async {
            // The senders live as long as the client; an error would mean it
            // is gone, and the deadline still bounds the wait.
            tokio::select! {
                Ok(()) = self.control.changed() => {}
                Ok(()) = self.document.changed() => {}
                else => std::future::pending::<()>().await,
            }
        };
        let _ = tokio::time::timeout_at(deadline, next).await;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::lsp::state::ServerChange;

    fn woken(w: &DocumentWakeups) -> (bool, bool) {
        let changed = |r: &watch::Receiver<u64>| r.has_changed().unwrap_or(true);
        (changed(&w.control), changed(&w.document))
    }

    #[test]
    fn a_change_wakes_whom_it_concerns_after_it_is_stored() {
        let shared = SharedState::new();
        let mut a = shared.for_document("file:///a");
        let mut b = shared.for_document("file:///b");
        let seen = |a: &mut DocumentWakeups, b: &mut DocumentWakeups| {
            a.mark_seen();
            b.mark_seen();
        };

        seen(&mut a, &mut b);
        let publish = json!({"uri": "file:///a", "diagnostics": []});
        shared.change(|s| s.on_publish(publish, 1));
        assert_eq!(shared.lock().publishes, 1);
        assert_eq!((woken(&a), woken(&b)), ((false, true), (false, false)));

        seen(&mut a, &mut b);
        shared.change(|s| s.on_publish(json!({"no uri": 1}), 2));
        assert_eq!((woken(&a), woken(&b)), ((false, false), (false, false)));

        seen(&mut a, &mut b);
        shared.change(|s| s.apply(ServerChange::Refresh, 3));
        assert_eq!(shared.lock().refreshes, 1);
        assert_eq!((woken(&a), woken(&b)), ((true, false), (true, false)));

        seen(&mut a, &mut b);
        shared.died();
        assert_eq!((woken(&a), woken(&b)), ((true, false), (true, false)));
    }
}
