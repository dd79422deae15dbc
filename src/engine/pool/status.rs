//! What `status` reports about the pool: each instance (state, pid or
//! endpoint, memory,
//! idle time, checks in flight) and the pool as a whole (live instances,
//! the cap, the moments it was exceeded, stops by reason). Memory is the
//! server's own resident memory plus that of every process it spawned
//! (tsserver's node workers), as [`crate::platform::proc_info`] reads it.

use std::path::PathBuf;
use std::time::Instant;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::lifecycle::Shared;
use crate::mutex::lock;

/// A server's state, as `status` reports it (`docs/protocol.md` says what
/// each means). The pool sets the states of instances; `Idle`, `Disabled`
/// and `Untrusted` describe configured servers without one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ServerState {
    /// Starting, or its first start failed and the next file retries it.
    Starting,
    /// Running and initialized.
    Active,
    /// Stopped answering (a request and then a health probe went
    /// unanswered in silence, `lsp::health`): being stopped; the next file
    /// it serves restarts it once, as after a crash.
    Unresponsive,
    /// Died; the next file it serves restarts it once.
    Crashed,
    /// Stopped by the pool (evicted for the cap, or idle); it starts again
    /// on the next file it serves.
    Stopped,
    /// Died or failed to start twice; not restarted this session.
    Broken,
    /// Enabled and installed, not started yet.
    Idle,
    /// Turned off by configuration (or `lsp = false`).
    Disabled,
    /// Enabled, but its command is not installed.
    Unavailable,
    /// Installed and enabled, but not started because the configuration
    /// does not name it: `strict` in non-interactive use, or
    /// `autoDetect = false` (`detail` says which).
    NotStarted,
    /// The workspace configuration sets its `command`/`args`/`env` and the
    /// workspace is not trusted.
    Untrusted,
}

impl ServerState {
    /// The name serde writes (`active`, `unavailable`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            ServerState::Starting => "starting",
            ServerState::Active => "active",
            ServerState::Unresponsive => "unresponsive",
            ServerState::Crashed => "crashed",
            ServerState::Stopped => "stopped",
            ServerState::Broken => "broken",
            ServerState::Idle => "idle",
            ServerState::Disabled => "disabled",
            ServerState::Unavailable => "unavailable",
            ServerState::NotStarted => "not_started",
            ServerState::Untrusted => "untrusted",
        }
    }
}

impl std::fmt::Display for ServerState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// One instance as reported by `status`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InstanceStatus {
    pub id: String,
    pub root: PathBuf,
    pub status: ServerState,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_pid: Option<u32>,
    /// Where an attached server listens (`connect`): it has no pid here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    pub starts: u32,
    /// Resident memory of the server and the processes it spawned, in KiB
    /// (live instances only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rss_kb: Option<u64>,
    /// Milliseconds since a check last used it (0 while one does).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idle_ms: Option<u64>,
    /// Checks and navigation requests using it now.
    pub in_flight: u32,
    /// Documents it has open.
    pub open_documents: usize,
    /// Why it was last stopped by the pool: `evicted` or `idle`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<StopReason>,
}

/// Why the pool stopped an instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// Room was needed for another instance of the same server.
    Evicted,
    /// Unused for `serverIdleMinutes`.
    Idle,
    /// Its settings changed in a configuration file (`engine::Live`).
    Reconfigured,
}

/// The pool as a whole, for `daemon status --json` and benchmarks.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PoolSummary {
    /// `maxInstancesPerServer`.
    pub cap: usize,
    /// Instances running or starting now, all servers.
    pub live: usize,
    /// The most instances of one server that were live at once.
    pub peak_live: usize,
    /// How many times an instance started while its server was at the cap
    /// and every instance of it had a check in flight.
    pub over_cap_moments: u64,
    /// The most instances of one server above the cap at any moment.
    pub max_over_cap: usize,
    pub evictions: u64,
    pub idle_stops: u64,
    /// Documents closed because no check touched them for
    /// `documentIdleMinutes` (instance stops not counted).
    pub documents_closed: u64,
    /// Sum of the live instances' `rssKb`.
    pub servers_rss_kb: u64,
}

impl Shared {
    /// Every instance tried, sorted by (server, root). Memory is read
    /// after the table lock is released.
    pub(super) fn statuses(&self) -> Vec<InstanceStatus> {
        let now = Instant::now();
        let mut all: Vec<InstanceStatus> = {
            let table = lock(&self.table);
            table
                .instances
                .iter()
                .map(|((id, root), i)| {
                    let client = i.alive();
                    let (status, detail) = dead_state(i);
                    InstanceStatus {
                        id: id.clone(),
                        root: root.clone(),
                        status,
                        server_pid: client.and_then(|c| c.pid()),
                        endpoint: client.and_then(|c| c.endpoint()),
                        version: i.version.clone(),
                        detail,
                        starts: i.starts,
                        rss_kb: None,
                        idle_ms: client.map(|_| {
                            if i.in_flight > 0 {
                                0
                            } else {
                                now.saturating_duration_since(i.last_used).as_millis() as u64
                            }
                        }),
                        in_flight: i.in_flight,
                        open_documents: client.map_or(0, |c| c.open_document_count()),
                        stopped: i.stopped,
                    }
                })
                .collect()
        };
        for s in &mut all {
            s.rss_kb = s.server_pid.and_then(rss_kb_tree);
        }
        all.sort_by(|a, b| (&a.id, &a.root).cmp(&(&b.id, &b.root)));
        all
    }

    pub(super) fn summary(&self) -> PoolSummary {
        let (mut summary, pids) = {
            let table = lock(&self.table);
            let live: Vec<_> = table.instances.values().filter(|i| i.live()).collect();
            let pids: Vec<u32> = live
                .iter()
                .filter_map(|i| i.alive())
                .filter_map(|c| c.pid())
                .collect();
            let summary = PoolSummary {
                cap: self.limits.max_per_server,
                live: live.len(),
                ..table.counters.clone()
            };
            (summary, pids)
        };
        summary.servers_rss_kb = pids.into_iter().filter_map(rss_kb_tree).sum();
        summary
    }
}

/// An instance's state and detail: an active one whose server died since
/// is `crashed`, or `unresponsive` when squiggle stopped it for not
/// answering (the next file it serves restarts it either way).
fn dead_state(i: &super::Instance) -> (ServerState, Option<String>) {
    match &i.client {
        Some(client) if i.status == ServerState::Active && !client.is_alive() => {
            let state = match client.unresponsive() {
                Some(_) => ServerState::Unresponsive,
                None => ServerState::Crashed,
            };
            (state, client.dead_reason())
        }
        _ => (i.status, i.detail.clone()),
    }
}

/// Resident memory of `pid` and every descendant, in KiB; `None` when the
/// process is gone or cannot be inspected.
pub fn rss_kb_tree(pid: u32) -> Option<u64> {
    let own = rss_kb(pid)?;
    let mut total = own;
    let mut stack = children(pid);
    let mut seen = 0;
    while let Some(child) = stack.pop() {
        // A bound against a pathological tree (or a pid reused mid-walk).
        seen += 1;
        if seen > 4096 {
            break;
        }
        total += rss_kb(child).unwrap_or(0);
        stack.extend(children(child));
    }
    Some(total)
}

/// Resident memory of one process, in KiB.
pub fn rss_kb(pid: u32) -> Option<u64> {
    crate::platform::proc_info::rss_kb(pid)
}

fn children(pid: u32) -> Vec<u32> {
    crate::platform::proc_info::children(pid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_our_own_rss() {
        let ours = rss_kb(std::process::id());
        assert!(ours.is_some_and(|kb| kb > 0), "{ours:?}");
        // Not compared with `ours`: other tests allocate and free between
        // the two reads. That children are found: `platform::proc_info`.
        let tree = rss_kb_tree(std::process::id());
        assert!(tree.is_some_and(|kb| kb > 0), "{tree:?}");
    }

    #[test]
    fn a_missing_process_has_no_rss() {
        assert_eq!(rss_kb(u32::MAX), None);
    }
}
