//! Server instances, started lazily: one per (server id, project root), on
//! the first file that needs it. Concurrent first touches share one start
//! (the instance's start lock is held across it). A server that dies is
//! restarted once; after a second failure it is `broken` for the session and
//! never respawned in a loop. Shutdown stops every instance.
//!
//! The pool also bounds what a long session costs (`lifecycle`): at most
//! `maxInstancesPerServer` live instances of one server, the least recently
//! used idle one stopped to make room; instances unused for
//! `serverIdleMinutes` stopped; documents untouched for
//! `documentIdleMinutes` closed. A check holds its instance through a
//! [`Checkout`], and an instance with a checkout alive is never stopped.
//! A stopped instance starts again on the next file it serves — a cold
//! start, not a crash: it does not spend the restart budget.

mod lifecycle;
mod starts;
mod status;

/// Starts an instance may use before the pool stops trying: the first,
/// and one restart after a crash. A start that fails (or a server that dies)
/// with this many spent marks the instance `broken` for the session, so a
/// server that cannot run is never respawned in a loop. An eviction or an
/// idle stop gives the budget back.
pub const MAX_FAILED_STARTS: u32 = 2;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Mutex as AsyncMutex;

use super::servers::ResolvedServer;
use crate::config::Config;
use crate::lsp::LspClient;
use crate::mutex::lock;
pub use lifecycle::{Busy, MAX_OPEN_DOCUMENTS};
use starts::launch_for;
pub use starts::not_installed;
pub use status::{InstanceStatus, PoolSummary, ServerState, StopReason, rss_kb, rss_kb_tree};

/// How many instances may live, and for how long unused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Live instances per server id (at least 1).
    pub max_per_server: usize,
    /// An instance unused this long is stopped; zero never.
    pub server_idle: Duration,
    /// A document untouched this long is closed; zero never.
    pub document_idle: Duration,
    /// How long a health probe waits (`lsp::health`): the warm check
    /// deadline, so a server silent through a check and then through a
    /// probe as long is unresponsive.
    pub probe_timeout: Duration,
}

impl Limits {
    pub fn from_config(config: &Config) -> Limits {
        Limits {
            max_per_server: config.max_instances_per_server.max(1),
            server_idle: config.server_idle,
            document_idle: config.document_idle,
            probe_timeout: config.diagnostic_timeout,
        }
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits::from_config(&Config::default())
    }
}

/// Why no client could be had.
#[derive(Debug, Clone)]
pub struct Unavailable {
    pub state: ServerState,
    pub reason: String,
}

/// A client held for one check or navigation request. While it lives, the
/// pool never stops its instance (not for the cap, not for idleness).
pub struct Checkout {
    pub client: LspClient,
    /// This checkout started (or restarted) the server.
    pub cold: bool,
    pub busy: Busy,
}

/// (server id, project root): one instance each.
type InstanceKey = (String, PathBuf);

/// One (server, root) the pool has tried. Kept after a stop (its state and
/// counts are status), so the table holds one small entry per project root
/// ever served, never per file.
struct Instance {
    /// Held across a start, so that concurrent first touches share it.
    start_lock: Arc<AsyncMutex<()>>,
    client: Option<LspClient>,
    starting: bool,
    /// Checkouts alive now.
    in_flight: u32,
    last_used: Instant,
    starts: u32,
    /// Starts since the pool last stopped it on purpose: a crash budget that
    /// an eviction or an idle stop gives back.
    budget: u32,
    broken: Option<String>,
    status: ServerState,
    version: Option<String>,
    detail: Option<String>,
    stopped: Option<StopReason>,
}

impl Instance {
    fn new() -> Instance {
        Instance {
            start_lock: Arc::default(),
            client: None,
            starting: false,
            in_flight: 0,
            last_used: Instant::now(),
            starts: 0,
            budget: 0,
            broken: None,
            status: ServerState::Starting,
            version: None,
            detail: None,
            stopped: None,
        }
    }

    fn alive(&self) -> Option<&LspClient> {
        self.client.as_ref().filter(|c| c.is_alive())
    }

    /// Running or starting: what the cap counts.
    fn live(&self) -> bool {
        self.starting || self.alive().is_some()
    }
}

#[derive(Default)]
struct Table {
    instances: HashMap<InstanceKey, Instance>,
    /// Stopped clients whose shutdown is still running (killed at once by
    /// `kill_all`).
    retiring: Vec<LspClient>,
    counters: PoolSummary,
    /// `shutdown` ran: nothing starts any more and the reaper ends.
    closed: bool,
}

#[derive(Default)]
pub struct Pool {
    shared: Arc<lifecycle::Shared>,
}

impl Pool {
    pub fn new(limits: Limits) -> Pool {
        Pool {
            shared: Arc::new(lifecycle::Shared::new(limits)),
        }
    }

    pub fn limits(&self) -> Limits {
        self.shared.limits
    }

    /// Another handle to this pool (its instances, its limits): for the
    /// successor of a reconfigured engine.
    pub(crate) fn handle(&self) -> Pool {
        Pool {
            shared: self.shared.clone(),
        }
    }

    /// Stops every instance of `server`, busy or not (its settings changed:
    /// a check still using one ends as `server_dead`); each starts again,
    /// with the settings of whoever checks out next. The number stopped.
    pub fn retire(&self, server: &str) -> usize {
        self.shared.retire(server)
    }

    /// The running client for `server` at `root`, starting it if needed,
    /// held until the returned checkout is dropped.
    pub async fn checkout(
        &self,
        server: &ResolvedServer,
        root: &Path,
        workspace_root: &Path,
        start_timeout: Duration,
    ) -> Result<Checkout, Unavailable> {
        if let Some(reason) = &server.untrusted {
            return Err(Unavailable {
                state: ServerState::Untrusted,
                reason: reason.clone(),
            });
        }
        if let Some(reason) = &server.held {
            return Err(Unavailable {
                state: ServerState::NotStarted,
                reason: format!("{} not started ({reason})", server.spec.id),
            });
        }
        let key = (server.spec.id.clone(), root.to_path_buf());
        let (busy, start_lock) = match self.shared.enter(&key) {
            Ok(checkout) => return Ok(checkout),
            Err(waiting) => waiting,
        };
        let _starting = start_lock.lock().await;
        if let Some(client) = self.shared.reuse(&key)? {
            return Ok(Checkout {
                client,
                cold: false,
                busy,
            });
        }
        if let Some(endpoint) = &server.connect {
            let client = self.attach(server, &key, endpoint, start_timeout).await?;
            return Ok(Checkout {
                client,
                cold: true,
                busy,
            });
        }
        let launch = match launch_for(server, root, workspace_root) {
            Ok(launch) => launch,
            Err(unavailable) => {
                self.shared.not_installed(&key, &unavailable.reason);
                return Err(unavailable);
            }
        };
        let client = self.start(server, &key, launch, start_timeout).await?;
        Ok(Checkout {
            client,
            cold: true,
            busy,
        })
    }

    /// Every instance this pool has tried, with its live state, memory and
    /// idle time.
    pub fn statuses(&self) -> Vec<InstanceStatus> {
        self.shared.statuses()
    }

    /// The pool as a whole: live instances, the cap and its over-cap
    /// moments, stops by reason.
    pub fn summary(&self) -> PoolSummary {
        self.shared.summary()
    }

    /// A receiver that changes whenever an instance starts or stops, or a
    /// check releases one (tests wait on it instead of sleeping).
    pub fn changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.shared.changes.subscribe()
    }

    /// Waits until every instance the pool stopped on its own (evicted,
    /// idle) has exited.
    pub async fn wait_stops(&self) {
        self.shared.join_stops().await;
    }

    /// Running clients (for "other files" and navigation).
    pub fn clients(&self) -> Vec<LspClient> {
        let table = lock(&self.shared.table);
        table
            .instances
            .values()
            .filter_map(|i| i.alive().cloned())
            .collect()
    }

    /// Kills every running server's process group now, without the
    /// shutdown handshake (squiggle itself is being terminated).
    pub fn kill_all(&self) {
        let table = lock(&self.shared.table);
        let running = table.instances.values().filter_map(|i| i.client.as_ref());
        for client in running.chain(&table.retiring) {
            client.kill();
        }
    }

    /// Stops every server: shutdown → exit → kill, all at once; then waits
    /// for the stops the pool began itself.
    pub async fn shutdown(&self) {
        let clients: Vec<LspClient> = {
            let mut table = lock(&self.shared.table);
            table.closed = true;
            let clients = table
                .instances
                .values_mut()
                .filter_map(|i| i.client.take())
                .collect();
            table.instances.clear();
            clients
        };
        self.shared.wake.notify_one();
        let mut tasks = tokio::task::JoinSet::new();
        for client in clients {
            tasks.spawn(async move { client.shutdown().await });
        }
        while tasks.join_next().await.is_some() {}
        self.shared.join_stops().await;
    }
}
