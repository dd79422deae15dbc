//! Server instances, started lazily: one per (server id, project root), on
//! the first file that needs it. Concurrent first touches share one start
//! (the slot's async lock is held across it). A server that dies is
//! restarted once; after a second failure it is `broken` for the session and
//! never respawned in a loop. Shutdown stops every instance.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::Mutex as AsyncMutex;

use super::servers::ResolvedServer;
use crate::lsp::{ClientConfig, LspClient, Spawn};
use crate::mutex::lock;
use crate::registry::detect::find_command;

/// A server instance's state, as `status` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerState {
    Starting,
    Active,
    Broken,
    Disabled,
    Unavailable,
    Untrusted,
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    pub starts: u32,
}

/// Why no client could be had.
#[derive(Debug, Clone)]
pub struct Unavailable {
    pub state: ServerState,
    pub reason: String,
}

#[derive(Default)]
struct Slot {
    client: Option<LspClient>,
    starts: u32,
    broken: Option<String>,
}

/// (server id, project root): one instance each.
type InstanceKey = (String, PathBuf);

#[derive(Default)]
pub struct Pool {
    slots: Mutex<HashMap<InstanceKey, Arc<AsyncMutex<Slot>>>>,
    /// Snapshot for status without taking async locks.
    statuses: Mutex<HashMap<InstanceKey, InstanceStatus>>,
}

impl Pool {
    /// The running client for `server` at `root`, starting it if needed.
    /// `cold` is set when this call started (or restarted) the server.
    pub async fn client(
        &self,
        server: &ResolvedServer,
        root: &Path,
        workspace_root: &Path,
        start_timeout: Duration,
        cold: &mut bool,
    ) -> Result<LspClient, Unavailable> {
        if let Some(reason) = &server.untrusted {
            return Err(Unavailable {
                state: ServerState::Untrusted,
                reason: reason.clone(),
            });
        }
        let key = (server.spec.id.clone(), root.to_path_buf());
        let slot = lock(&self.slots).entry(key.clone()).or_default().clone();
        let mut slot = slot.lock().await;
        if let Some(client) = &slot.client
            && client.is_alive()
        {
            return Ok(client.clone());
        }
        if let Some(reason) = &slot.broken {
            return Err(Unavailable {
                state: ServerState::Broken,
                reason: reason.clone(),
            });
        }
        if let Some(dead) = slot.client.take() {
            let reason = dead.dead_reason().unwrap_or_default();
            tracing::debug!(server = %key.0, root = %key.1.display(), "server died ({reason}); restarting once");
            if slot.starts >= 2 {
                return Err(self.mark_broken(&key, &mut slot, reason));
            }
        }
        let Some((program, candidate)) = find_command(
            &server.spec,
            root,
            workspace_root,
            std::env::var_os("PATH").as_deref(),
        ) else {
            let reason = format!(
                "{} not found on PATH, in node_modules/.bin or .venv/bin; install it with `{}`",
                server
                    .spec
                    .commands
                    .first()
                    .map_or(server.spec.id.as_str(), |c| c.program.as_str()),
                server.spec.install_hint
            );
            return Err(Unavailable {
                state: ServerState::Unavailable,
                reason,
            });
        };
        self.set_status(&key, ServerState::Starting, None, None, slot.starts + 1);
        let spawn = Spawn {
            program,
            args: candidate.args.clone(),
            env: server.env.clone(),
            cwd: root.to_path_buf(),
        };
        let mut config = ClientConfig::new(server.spec.id.clone(), spawn, root.to_path_buf());
        config.initialization_options = server.spec.initialization_options.clone();
        config.settings = server.spec.settings.clone();
        config.wait = server.spec.wait.clone();
        slot.starts += 1;
        *cold = true;
        let started = Instant::now();
        match LspClient::start(config, start_timeout).await {
            Ok(client) => {
                tracing::debug!(server = %key.0, root = %key.1.display(), ms = started.elapsed().as_millis() as u64, "server started");
                let version = client.facts().and_then(|f| f.version.clone());
                self.set_status(
                    &key,
                    ServerState::Active,
                    Some(client.pid()),
                    version,
                    slot.starts,
                );
                slot.client = Some(client.clone());
                Ok(client)
            }
            Err(e) => {
                let reason = e.to_string();
                tracing::debug!(server = %key.0, "start failed: {reason}");
                if slot.starts >= 2 {
                    Err(self.mark_broken(&key, &mut slot, reason))
                } else {
                    self.set_status(&key, ServerState::Starting, None, None, slot.starts);
                    Err(Unavailable {
                        state: ServerState::Starting,
                        reason,
                    })
                }
            }
        }
    }

    fn mark_broken(&self, key: &InstanceKey, slot: &mut Slot, reason: String) -> Unavailable {
        slot.broken = Some(reason.clone());
        self.set_status(key, ServerState::Broken, None, None, slot.starts);
        if let Some(s) = lock(&self.statuses).get_mut(key) {
            s.detail = Some(reason.clone());
        }
        Unavailable {
            state: ServerState::Broken,
            reason,
        }
    }

    fn set_status(
        &self,
        key: &InstanceKey,
        status: ServerState,
        pid: Option<u32>,
        version: Option<String>,
        starts: u32,
    ) {
        lock(&self.statuses).insert(
            key.clone(),
            InstanceStatus {
                id: key.0.clone(),
                root: key.1.clone(),
                status,
                server_pid: pid,
                version,
                detail: None,
                starts,
            },
        );
    }

    /// Every instance this pool has tried, with its live state.
    pub fn statuses(&self) -> Vec<InstanceStatus> {
        let mut all: Vec<InstanceStatus> = lock(&self.statuses).values().cloned().collect();
        all.sort_by(|a, b| (&a.id, &a.root).cmp(&(&b.id, &b.root)));
        all
    }

    /// Running clients (for "other files" and navigation).
    pub fn clients(&self) -> Vec<LspClient> {
        let slots: Vec<_> = lock(&self.slots).values().cloned().collect();
        slots
            .iter()
            .filter_map(|s| s.try_lock().ok().and_then(|s| s.client.clone()))
            .filter(LspClient::is_alive)
            .collect()
    }

    /// Kills every running server's process group now, without the
    /// shutdown handshake (squiggle itself is being terminated).
    pub fn kill_all(&self) {
        for slot in lock(&self.slots).values() {
            if let Ok(slot) = slot.try_lock()
                && let Some(client) = &slot.client
            {
                client.kill();
            }
        }
    }

    /// Stops every server: shutdown → exit → kill, all at once.
    pub async fn shutdown(&self) {
        let slots: Vec<_> = lock(&self.slots).drain().map(|(_, s)| s).collect();
        let mut tasks = tokio::task::JoinSet::new();
        for slot in slots {
            tasks.spawn(async move {
                let client = slot.lock().await.client.take();
                if let Some(client) = client {
                    client.shutdown().await;
                }
            });
        }
        while tasks.join_next().await.is_some() {}
        lock(&self.statuses).clear();
    }
}
