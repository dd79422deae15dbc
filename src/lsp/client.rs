//! One language server, driven over stdio.
//!
//! Three tasks per server, as in the best clients: one writes stdin in queue
//! order, one reads stdout and dispatches, one drains stderr. A request's
//! message is queued *before* its future is returned, so call order is wire
//! order. Every request has a timeout; dropping or timing out a request sends
//! `$/cancelRequest`. Server-to-client requests are always answered. When the
//! stream closes, every pending request fails at once with the exit status
//! and the stderr tail, and the client reports itself dead.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot, watch};

use super::client_config::ClientConfig;

use super::capabilities::{ServerFacts, client_capabilities};
use super::health::state::Health;
use super::process::ServerProcess;
use super::profile::WaitProfile;
use super::state::ClientState;
use super::wakeups::SharedState;
use crate::jsonrpc::message::{Message, RequestId, ResponseError};
use crate::mutex::lock;
use crate::uri;
use tasks::{read_loop, write_loop};

mod tasks;

#[derive(Debug, Clone, thiserror::Error)]
pub enum ClientError {
    #[error("could not start {server} ({program}): {reason}")]
    Spawn {
        server: String,
        program: String,
        reason: String,
    },
    #[error("{server} did not answer {method} within {after:?}")]
    Timeout {
        server: String,
        method: String,
        after: Duration,
    },
    #[error("{server} is not running: {detail}")]
    Dead { server: String, detail: String },
    #[error("{server} answered {method} with error {}: {}", .error.code, .error.message)]
    Rpc {
        server: String,
        method: String,
        error: ResponseError,
    },
}

type Reply = Result<Value, ClientError>;

struct Outgoing {
    bytes: Vec<u8>,
    written: Option<oneshot::Sender<()>>,
}

/// What the handles, the I/O tasks and the code elsewhere in `lsp` share.
/// Private to `lsp`: other modules use `LspClient`'s methods.
pub(super) struct Inner {
    pub(super) config: ClientConfig,
    pub(super) process: ServerProcess,
    out: mpsc::UnboundedSender<Outgoing>,
    next_id: AtomicI64,
    pending: Mutex<HashMap<RequestId, oneshot::Sender<Reply>>>,
    pub(super) facts: OnceLock<ServerFacts>,
    /// The state and the signals that wake waits on it (see `wakeups`).
    pub(super) state: SharedState,
    /// Count of messages received: orders publishes against changes sent.
    pub(super) received: AtomicU64,
    /// When the last response arrived (for benchmarks: a pull's answer time).
    last_response: Mutex<Option<std::time::Instant>>,
    dead: OnceLock<String>,
    /// Whether it still answers (`lsp::health`).
    pub(super) health: Health,
}

/// A handle to a running server. Cloning shares the server; dropping the last
/// handle kills its process group.
#[derive(Clone)]
pub struct LspClient {
    pub(super) inner: Arc<Inner>,
}

impl LspClient {
    /// Spawns the server and completes `initialize` / `initialized` within `init_timeout`.
    pub async fn start(
        config: ClientConfig,
        init_timeout: Duration,
    ) -> Result<LspClient, ClientError> {
        let server = config.server_id.clone();
        let (process, stdin, stdout) =
            ServerProcess::spawn(&config.spawn, &server).map_err(|e| ClientError::Spawn {
                server: server.clone(),
                program: config.spawn.program.display().to_string(),
                reason: e.to_string(),
            })?;
        let (out_tx, out_rx) = mpsc::unbounded_channel();
        let max_frame = config.max_frame;
        let inner = Arc::new(Inner {
            config,
            process,
            out: out_tx,
            next_id: AtomicI64::new(1),
            pending: Mutex::new(HashMap::new()),
            facts: OnceLock::new(),
            state: SharedState::new(),
            received: AtomicU64::new(0),
            last_response: Mutex::new(None),
            dead: OnceLock::new(),
            health: Health::default(),
        });
        tokio::spawn(write_loop(stdin, out_rx));
        tokio::spawn(read_loop(Arc::downgrade(&inner), stdout, max_frame));
        let client = LspClient { inner };
        match client.initialize(init_timeout).await {
            Ok(()) => Ok(client),
            Err(e) => {
                client.inner.process.kill();
                Err(e)
            }
        }
    }

    async fn initialize(&self, timeout: Duration) -> Result<(), ClientError> {
        let root = &self.inner.config.root;
        let root_uri = uri::from_path(root);
        let name = root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "root".into());
        let mut params = json!({
            "processId": std::process::id(),
            "clientInfo": { "name": "squiggle", "version": env!("CARGO_PKG_VERSION") },
            "locale": "en",
            "rootPath": root.display().to_string(),
            "rootUri": root_uri,
            "workspaceFolders": [{ "uri": root_uri, "name": name }],
            "capabilities": client_capabilities(),
            "trace": "off",
        });
        if !self.inner.config.initialization_options.is_null() {
            params["initializationOptions"] = self.inner.config.initialization_options.clone();
        }
        let result = self
            .request_with_timeout("initialize", params, timeout)
            .await?;
        let facts = ServerFacts::from_initialize_result(&result);
        tracing::debug!(server = %self.server_id(), name = ?facts.name, version = ?facts.version, encoding = facts.encoding.as_lsp(), pull = facts.static_pull, "initialized");
        let _ = self.inner.facts.set(facts);
        self.notify("initialized", json!({}));
        Ok(())
    }

    /// The state, locked: for `lsp`'s own reads and bookkeeping (a change
    /// the server causes goes through `SharedState::change` instead).
    pub(super) fn state(&self) -> MutexGuard<'_, ClientState> {
        self.inner.state.lock()
    }

    pub fn server_id(&self) -> &str {
        &self.inner.config.server_id
    }

    pub fn pid(&self) -> u32 {
        self.inner.process.pid
    }

    /// When the server process was spawned.
    pub fn spawned(&self) -> std::time::Instant {
        self.inner.process.spawned
    }

    pub fn facts(&self) -> Option<&ServerFacts> {
        self.inner.facts.get()
    }

    /// Why the server is dead (or was found unresponsive), or None while
    /// it runs.
    pub fn dead_reason(&self) -> Option<String> {
        self.unresponsive()
            .or_else(|| self.inner.dead.get().cloned())
    }

    /// Running and answering: neither dead nor found unresponsive.
    pub fn is_alive(&self) -> bool {
        self.inner.dead.get().is_none() && self.inner.health.unresponsive().is_none()
    }

    pub fn stderr_tail(&self) -> String {
        self.inner.process.stderr_tail()
    }

    /// Sends a request with the configured default timeout.
    pub fn request(
        &self,
        method: &str,
        params: Value,
    ) -> impl Future<Output = Reply> + Send + 'static {
        self.request_with_timeout(method, params, self.inner.config.request_timeout)
    }

    /// Queues the request now; the returned future waits for its answer. On
    /// timeout or drop before the answer, `$/cancelRequest` is sent.
    pub fn request_with_timeout(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> impl Future<Output = Reply> + Send + 'static {
        let inner = self.inner.clone();
        let id = RequestId::Number(inner.next_id.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        let since = inner.received.load(Ordering::Acquire);
        let queued = match inner.dead.get() {
            Some(detail) => Err(inner.dead_error(detail)),
            None => {
                lock(&inner.pending).insert(id.clone(), tx);
                let message = Message::Request {
                    id: id.clone(),
                    method: method.to_string(),
                    params,
                };
                inner.send(message.to_bytes(), None);
                Ok(())
            }
        };
        let guard = CancelGuard {
            inner: inner.clone(),
            id,
            armed: queued.is_ok(),
        };
        let method = method.to_string();
        async move {
            // Bind the whole guard: the block must own it so that dropping the
            // future (not just returning this function) is what cancels.
            let mut guard = guard;
            queued?;
            let reply = match tokio::time::timeout(timeout, rx).await {
                Ok(Ok(reply)) => reply,
                Ok(Err(_)) => {
                    Err(inner.dead_error(inner.dead.get().map_or("stream closed", String::as_str)))
                }
                Err(_) => {
                    inner.timed_out(&method, since, timeout);
                    return Err(ClientError::Timeout {
                        server: inner.config.server_id.clone(),
                        method,
                        after: timeout,
                    });
                }
            };
            guard.disarm();
            reply.map_err(|e| match e {
                ClientError::Rpc { server, error, .. } => ClientError::Rpc {
                    server,
                    method,
                    error,
                },
                other => other,
            })
        }
    }

    /// Queues a notification.
    pub fn notify(&self, method: &str, params: Value) {
        let message = Message::Notification {
            method: method.to_string(),
            params,
        };
        self.inner.send(message.to_bytes(), None);
    }

    /// Queues a notification and resolves once it has been written to the
    /// server's stdin (or the server is gone).
    pub(crate) fn notify_written(&self, method: &str, params: Value) -> oneshot::Receiver<()> {
        let (tx, rx) = oneshot::channel();
        let message = Message::Notification {
            method: method.to_string(),
            params,
        };
        self.inner.send(message.to_bytes(), Some(tx));
        rx
    }

    /// `shutdown` (no params member), `exit`, up to 2 s for the process to
    /// leave, then kill. Clears documents and diagnostics. Never leaves the
    /// process (or its process group) running.
    pub async fn shutdown(&self) {
        let grace = Duration::from_secs(2);
        if self.is_alive() {
            tracing::debug!(server = %self.server_id(), "stopping: shutdown sent");
            let answered = self
                .request_with_timeout("shutdown", Value::Null, grace)
                .await;
            if let Err(e) = answered {
                tracing::debug!(server = %self.server_id(), "shutdown request failed: {e}");
            }
            self.notify("exit", Value::Null);
            if self.inner.process.wait_exit(grace).await.is_none() {
                tracing::debug!(server = %self.server_id(), "server ignored exit; killing it");
            }
        }
        self.inner.process.kill();
        self.inner.process.wait_exit(grace).await;
        self.state().clear();
        let _ = self.inner.dead.set("shut down".into());
        self.inner.state.died();
    }

    /// Kills the server without the shutdown handshake.
    pub fn kill(&self) {
        self.inner.process.kill();
    }

    /// Open work-done progress ("is the server still indexing?"): the title
    /// and latest message of each.
    pub fn active_progress(&self) -> Vec<(Option<String>, Option<String>)> {
        self.state()
            .progress
            .values()
            .map(|p| (p.title.clone(), p.message.clone()))
            .collect()
    }

    /// How many `workspace/diagnostic/refresh` requests the server has sent.
    pub fn diagnostic_refreshes(&self) -> u64 {
        self.state().refreshes
    }

    /// The methods the server registered dynamically.
    pub fn registered_methods(&self) -> Vec<String> {
        self.state()
            .registrations
            .values()
            .map(|r| r.method.clone())
            .collect()
    }

    /// A receiver that changes on every publish, progress, registration,
    /// refresh or death: wait on it instead of polling the accessors above.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.inner.state.any()
    }

    /// How this server signals it is done with a change.
    pub fn wait_profile(&self) -> &WaitProfile {
        &self.inner.config.wait
    }

    /// Whether the server has published diagnostics for the document at
    /// `uri` (and they were not forgotten since).
    pub fn has_published(&self, uri: &str) -> bool {
        self.state().published.contains_key(uri)
    }

    /// For benchmarks: when the server's own answer arrived, as seen on the
    /// wire. The last response of any request (a pull's answer when that was
    /// the last request), and the last publish for `path`.
    pub fn answer_times(
        &self,
        path: &std::path::Path,
    ) -> (Option<std::time::Instant>, Option<std::time::Instant>) {
        let response = *lock(&self.inner.last_response);
        let publish = self
            .state()
            .published
            .get(&uri::from_path(path))
            .map(|p| p.arrived);
        (response, publish)
    }

    /// For benchmarks: how many publishDiagnostics were stored so far.
    pub fn publish_count(&self) -> u64 {
        self.state().publishes
    }
}

impl Inner {
    fn send(&self, bytes: Vec<u8>, written: Option<oneshot::Sender<()>>) {
        // A closed queue means the writer is gone (server dead): the written
        // ack is dropped, which its receiver sees as "done".
        let _ = self.out.send(Outgoing { bytes, written });
    }

    pub(super) fn dead_error(&self, detail: &str) -> ClientError {
        ClientError::Dead {
            server: self.config.server_id.clone(),
            detail: detail.to_string(),
        }
    }

    pub(super) fn is_dead(&self) -> bool {
        self.dead.get().is_some()
    }
}

/// Sends `$/cancelRequest` when a request future is dropped or times out
/// before its answer arrived.
struct CancelGuard {
    inner: Arc<Inner>,
    id: RequestId,
    armed: bool,
}

impl CancelGuard {
    fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for CancelGuard {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let was_pending = lock(&self.inner.pending).remove(&self.id).is_some();
        if was_pending && !self.inner.is_dead() {
            let id = serde_json::to_value(&self.id).unwrap_or(Value::Null);
            let message = Message::Notification {
                method: "$/cancelRequest".into(),
                params: json!({ "id": id }),
            };
            self.inner.send(message.to_bytes(), None);
        }
    }
}
