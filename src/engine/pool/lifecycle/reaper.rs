//! The reaper: a task that sleeps until the next instance or document
//! falls idle (or a check ends), then stops idle instances and closes idle
//! documents and those past the cap.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::{MAX_OPEN_DOCUMENTS, Shared};
use crate::engine::pool::{InstanceKey, StopReason};
use crate::mutex::lock;

impl Shared {
    /// Starts the reaper once.
    pub(in crate::engine::pool) fn ensure_reaper(self: &Arc<Self>) {
        if self.reaper.swap(true, Ordering::SeqCst) {
            return;
        }
        let weak = Arc::downgrade(self);
        let wake = self.wake.clone();
        tokio::spawn(async move {
            loop {
                let next = match weak.upgrade() {
                    Some(shared) => match shared.reap(Instant::now()) {
                        Some(next) => next,
                        None => return,
                    },
                    None => return,
                };
                let sleep = async {
                    match next {
                        Some(at) => tokio::time::sleep_until(at.into()).await,
                        None => std::future::pending().await,
                    }
                };
                tokio::select! {
                    () = sleep => {}
                    () = wake.notified() => {}
                }
            }
        });
    }

    /// Stops idle instances and closes idle documents as of `now`. Returns
    /// when to look again (`Some(None)`: at the next wake), or `None` once
    /// the pool is shut down.
    fn reap(&self, now: Instant) -> Option<Option<Instant>> {
        let limits = self.limits;
        let mut table = lock(&self.table);
        if table.closed {
            return None;
        }
        let mut next: Option<Instant> = None;
        let mut soonest = |at: Instant| next = Some(next.map_or(at, |n| n.min(at)));
        let idle: Vec<(InstanceKey, Instant)> = table
            .instances
            .iter()
            .filter(|(_, i)| i.in_flight == 0 && !i.starting && i.alive().is_some())
            .map(|(k, i)| (k.clone(), i.last_used))
            .collect();
        for (key, last_used) in idle {
            if !limits.server_idle.is_zero() {
                let due = last_used + limits.server_idle;
                if due <= now {
                    table.counters.idle_stops += 1;
                    self.stop(&mut table, &key, StopReason::Idle);
                    continue;
                }
                soonest(due);
            }
            let Some(client) = table.instances.get(&key).and_then(|i| i.alive().cloned()) else {
                continue;
            };
            let over = client.close_documents_over(MAX_OPEN_DOCUMENTS);
            if over > 0 {
                tracing::debug!(server = %key.0, root = %key.1.display(), closed = over, "closed documents over the cap");
                table.counters.documents_closed += over as u64;
                self.changed();
            }
            if limits.document_idle.is_zero() {
                continue;
            }
            let (closed, oldest) = client.close_documents_unused_since(now, limits.document_idle);
            if closed > 0 {
                tracing::debug!(server = %key.0, root = %key.1.display(), closed, "closed idle documents");
                table.counters.documents_closed += closed as u64;
                self.changed();
            }
            if let Some(oldest) = oldest {
                soonest(oldest + limits.document_idle);
            }
        }
        Some(next)
    }
}
