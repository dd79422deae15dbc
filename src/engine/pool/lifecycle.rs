//! When instances start and stop. Every decision is taken under the pool's
//! one table lock, where a checkout also counts itself in: so "this instance
//! is idle" and "a check is about to use it" are never both true.
//!
//! - **Cap.** Before an instance starts, while its server has
//!   `max_per_server` live instances, the least recently used one with no
//!   check in flight is stopped. When every one is mid-check the start goes
//!   ahead over the cap (a check is never blocked or failed by it), the
//!   moment is counted, and as checks finish the pool stops idle instances
//!   until it is back under the cap.
//! - **Idleness.** A reaper task sleeps until the next instance or document
//!   falls idle (or a check ends), then stops instances unused for
//!   `server_idle` and closes documents untouched for `document_idle` in
//!   instances no check is using, and the least recently used documents
//!   past [`MAX_OPEN_DOCUMENTS`] in each (however recent: an agent can
//!   touch thousands of files within the idle time).
//! - **Stopping.** `shutdown` → `exit` → kill after a grace, in the
//!   background; `Pool::shutdown` waits for these, and `kill_all` kills them,
//!   so no server outlives squiggle.

mod reaper;

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::{Mutex as AsyncMutex, Notify, watch};

use super::{
    Checkout, Instance, InstanceKey, Limits, MAX_FAILED_STARTS, ServerState, StopReason, Table,
    Unavailable,
};
use crate::lsp::LspClient;
use crate::mutex::lock;

/// At most this many documents stay open in an instance between checks.
/// An edit opens its file and at most `MAX_DEPENDENTS` (20) importers, so
/// this keeps the last dozen edits' files open and current, while an agent
/// sweeping a big repository within `documentIdleMinutes` does not keep
/// thousands open (each costs the server memory and, in pyright, a
/// re-check after every change).
pub const MAX_OPEN_DOCUMENTS: usize = 256;

pub(super) struct Shared {
    pub(super) limits: Limits,
    pub(super) table: Mutex<Table>,
    /// Background stops (evictions, idle stops).
    stops: Mutex<tokio::task::JoinSet<()>>,
    /// Wakes the reaper: a check ended, an instance started, or shutdown.
    pub(super) wake: Arc<Notify>,
    reaper: AtomicBool,
    pub(super) changes: watch::Sender<u64>,
}

impl Default for Shared {
    fn default() -> Shared {
        Shared::new(Limits::default())
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        // The reaper holds only a weak handle: wake it to find us gone.
        self.wake.notify_one();
    }
}

/// One checkout's hold on its instance: while it lives the instance is not
/// stopped. Dropping it marks the instance used now, and lets the pool
/// come back under the cap.
pub struct Busy {
    shared: Arc<Shared>,
    key: InstanceKey,
}

impl Drop for Busy {
    fn drop(&mut self) {
        {
            let mut table = lock(&self.shared.table);
            if let Some(instance) = table.instances.get_mut(&self.key) {
                instance.in_flight = instance.in_flight.saturating_sub(1);
                instance.last_used = Instant::now();
            }
            let server = self.key.0.clone();
            self.shared.shrink(&mut table, &server, None);
        }
        self.shared.wake.notify_one();
        self.shared.changed();
    }
}

/// A start in progress: if it is dropped before it ends (the check was
/// cancelled), the instance is no longer counted as starting.
pub(super) struct Starting<'a> {
    shared: &'a Shared,
    key: &'a InstanceKey,
    done: bool,
}

impl Starting<'_> {
    pub(super) fn succeeded(&mut self, client: LspClient) {
        self.done = true;
        let mut table = lock(&self.shared.table);
        if let Some(i) = table.instances.get_mut(self.key) {
            i.starting = false;
            i.status = ServerState::Active;
            i.version = client.facts().and_then(|f| f.version.clone());
            i.detail = None;
            i.client = Some(client);
        }
        drop(table);
        self.shared.changed();
    }

    pub(super) fn failed(&mut self, reason: String) -> Unavailable {
        self.done = true;
        let mut table = lock(&self.shared.table);
        let Some(i) = table.instances.get_mut(self.key) else {
            return Unavailable {
                state: ServerState::Starting,
                reason,
            };
        };
        i.starting = false;
        if i.budget >= MAX_FAILED_STARTS {
            return mark_broken(self.key, i, reason);
        }
        Unavailable {
            state: ServerState::Starting,
            reason,
        }
    }
}

impl Drop for Starting<'_> {
    fn drop(&mut self) {
        if !self.done
            && let Some(i) = lock(&self.shared.table).instances.get_mut(self.key)
        {
            i.starting = false;
        }
    }
}

fn mark_broken(key: &InstanceKey, i: &mut Instance, reason: String) -> Unavailable {
    tracing::debug!(server = %key.0, root = %key.1.display(), "broken: {reason}");
    i.broken = Some(reason.clone());
    i.status = ServerState::Broken;
    i.detail = Some(reason.clone());
    Unavailable {
        state: ServerState::Broken,
        reason,
    }
}

impl Shared {
    pub(super) fn new(limits: Limits) -> Shared {
        Shared {
            limits,
            table: Mutex::default(),
            stops: Mutex::default(),
            wake: Arc::default(),
            reaper: AtomicBool::new(false),
            changes: watch::channel(0).0,
        }
    }

    pub(super) fn changed(&self) {
        self.changes.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Counts a checkout in. `Ok` when the instance runs; otherwise the
    /// hold and the start lock to take before starting it.
    pub(super) fn enter(
        self: &Arc<Self>,
        key: &InstanceKey,
    ) -> Result<Checkout, (Busy, Arc<AsyncMutex<()>>)> {
        let mut table = lock(&self.table);
        let instance = table
            .instances
            .entry(key.clone())
            .or_insert_with(Instance::new);
        instance.in_flight += 1;
        instance.last_used = Instant::now();
        let busy = Busy {
            shared: self.clone(),
            key: key.clone(),
        };
        match instance.alive() {
            Some(client) => Ok(Checkout {
                client: client.clone(),
                cold: false,
                busy,
            }),
            None => Err((busy, instance.start_lock.clone())),
        }
    }

    /// Under the start lock: the client another checkout started meanwhile,
    /// `None` when this one must start it, or why it must not (broken).
    pub(super) fn reuse(&self, key: &InstanceKey) -> Result<Option<LspClient>, Unavailable> {
        let mut table = lock(&self.table);
        let Some(i) = table.instances.get_mut(key) else {
            return Ok(None);
        };
        if let Some(client) = i.alive() {
            return Ok(Some(client.clone()));
        }
        if let Some(reason) = &i.broken {
            return Err(Unavailable {
                state: ServerState::Broken,
                reason: reason.clone(),
            });
        }
        if let Some(dead) = i.client.take() {
            let reason = dead.dead_reason().unwrap_or_default();
            tracing::debug!(server = %key.0, root = %key.1.display(), "server died ({reason}); restarting once");
            if i.budget >= MAX_FAILED_STARTS {
                return Err(mark_broken(key, i, reason));
            }
        }
        Ok(None)
    }

    /// Makes room under the cap and records the start.
    pub(super) fn begin_start<'a>(
        &'a self,
        key: &'a InstanceKey,
    ) -> Result<Starting<'a>, Unavailable> {
        let mut table = lock(&self.table);
        if table.closed {
            return Err(Unavailable {
                state: ServerState::Unavailable,
                reason: "squiggle is shutting down".into(),
            });
        }
        self.shrink(&mut table, &key.0, Some(key));
        let live = 1 + count_live(&table, &key.0, Some(key));
        let cap = self.limits.max_per_server;
        let c = &mut table.counters;
        c.peak_live = c.peak_live.max(live);
        if live > cap {
            c.over_cap_moments += 1;
            c.max_over_cap = c.max_over_cap.max(live - cap);
            tracing::debug!(server = %key.0, live, cap, "over the cap: every instance is mid-check");
        }
        if let Some(i) = table.instances.get_mut(key) {
            i.starting = true;
            i.starts += 1;
            i.budget += 1;
            i.status = ServerState::Starting;
            i.stopped = None;
        }
        drop(table);
        self.changed();
        Ok(Starting {
            shared: self,
            key,
            done: false,
        })
    }

    /// Stops the least recently used idle instances of `server` while it
    /// has more live instances than the cap allows; with `making_room` (an
    /// instance about to start, not counted), until one more fits.
    pub(super) fn shrink(
        &self,
        table: &mut Table,
        server: &str,
        making_room: Option<&InstanceKey>,
    ) {
        let allowed = self.limits.max_per_server - usize::from(making_room.is_some());
        while count_live(table, server, making_room) > allowed {
            let victim = table
                .instances
                .iter()
                .filter(|(k, i)| {
                    k.0 == server
                        && Some(*k) != making_room
                        && i.in_flight == 0
                        && !i.starting
                        && i.alive().is_some()
                })
                .min_by_key(|(_, i)| i.last_used)
                .map(|(k, _)| k.clone());
            let Some(victim) = victim else {
                return;
            };
            table.counters.evictions += 1;
            self.stop(table, &victim, StopReason::Evicted);
        }
    }

    /// Stops every running instance of `server`, for a change of its
    /// settings; the number stopped.
    pub(super) fn retire(&self, server: &str) -> usize {
        let mut table = lock(&self.table);
        let keys: Vec<InstanceKey> = table
            .instances
            .iter()
            .filter(|(k, i)| k.0 == server && i.client.is_some())
            .map(|(k, _)| k.clone())
            .collect();
        for key in &keys {
            self.stop(&mut table, key, StopReason::Reconfigured);
        }
        keys.len()
    }

    /// Stops one idle instance: its documents and diagnostics go with its
    /// client; it starts again on demand with a fresh crash budget.
    fn stop(&self, table: &mut Table, key: &InstanceKey, reason: StopReason) {
        let Some(i) = table.instances.get_mut(key) else {
            return;
        };
        let Some(client) = i.client.take() else {
            return;
        };
        tracing::debug!(server = %key.0, root = %key.1.display(), ?reason, "stopping an instance");
        i.status = ServerState::Stopped;
        i.stopped = Some(reason);
        i.budget = 0;
        i.version = None;
        table.retiring.retain(LspClient::is_alive);
        table.retiring.push(client.clone());
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => {
                let mut stops = lock(&self.stops);
                while stops.try_join_next().is_some() {}
                stops.spawn_on(async move { client.shutdown().await }, &handle);
            }
            Err(_) => client.kill(),
        }
        self.changed();
    }

    /// Waits for every background stop to end.
    pub(super) async fn join_stops(&self) {
        let mut stops = std::mem::take(&mut *lock(&self.stops));
        while stops.join_next().await.is_some() {}
        lock(&self.table).retiring.retain(LspClient::is_alive);
    }
}

/// Live instances of `server`, not counting `except`.
fn count_live(table: &Table, server: &str, except: Option<&InstanceKey>) -> usize {
    table
        .instances
        .iter()
        .filter(|(k, i)| k.0 == server && Some(*k) != except && i.live())
        .count()
}
