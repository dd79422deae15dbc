//! One language server, driven over its stdio (a server squiggle spawned)
//! or a connection (one it attached to, `lsp::link`).
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

use super::capabilities::ServerFacts;
use super::health::state::Health;
use super::link::Link;
use super::profile::WaitProfile;
use super::state::ClientState;
use super::wakeups::SharedState;
use crate::jsonrpc::message::{Message, RequestId, ResponseError};
use crate::mutex::lock;
use crate::uri;
mod lifecycle;
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
    pub(super) link: Link,
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
    /// The instance's log span (`LspClient::span`).
    span: tracing::Span,
}

/// A handle to a running server. Cloning shares the server; dropping the last
/// handle kills its process group.
#[derive(Clone)]
pub struct LspClient {
    pub(super) inner: Arc<Inner>,
}

impl LspClient {
    /// The state, locked: for `lsp`'s own reads and bookkeeping (a change
    /// the server causes goes through `SharedState::change` instead).
    pub(super) fn state(&self) -> MutexGuard<'_, ClientState> {
        self.inner.state.lock()
    }

    pub fn server_id(&self) -> &str {
        &self.inner.config.server_id
    }

    /// The spawned server's process id; none for an attached server.
    pub fn pid(&self) -> Option<u32> {
        self.inner.link.pid()
    }

    /// Where an attached server listens; none for a spawned one.
    pub fn endpoint(&self) -> Option<String> {
        self.inner.link.endpoint().map(ToString::to_string)
    }

    fn is_attached(&self) -> bool {
        self.inner.link.endpoint().is_some()
    }

    /// The project root this instance serves.
    pub fn root(&self) -> &std::path::Path {
        &self.inner.config.root
    }

    /// When the server process was spawned (or the connection opened).
    pub fn spawned(&self) -> std::time::Instant {
        self.inner.link.started()
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
        self.inner.link.stderr_tail()
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
        tracing::trace!(server = %self.inner.config.server_id, method, "notify");
        let message = Message::Notification {
            method: method.to_string(),
            params,
        };
        self.inner.send(message.to_bytes(), None);
    }

    /// Queues a notification and resolves once it has been written to the
    /// server's stdin (or the server is gone).
    pub(crate) fn notify_written(&self, method: &str, params: Value) -> oneshot::Receiver<()> {
        tracing::trace!(server = %self.inner.config.server_id, method, "notify");
        let (tx, rx) = oneshot::channel();
        let message = Message::Notification {
            method: method.to_string(),
            params,
        };
        self.inner.send(message.to_bytes(), Some(tx));
        rx
    }

    /// Resolves once everything queued so far is on the wire (or the
    /// server is gone): an empty message is acknowledged, never written.
    pub(crate) fn flushed(&self) -> oneshot::Receiver<()> {
        let (tx, rx) = oneshot::channel();
        self.inner.send(Vec::new(), Some(tx));
        rx
    }

    /// Kills the server without the shutdown handshake (an attached
    /// server: closes the connection, leaving it running).
    pub fn kill(&self) {
        self.inner.cut("disconnected");
    }

    /// Open work-done progress ("is the server still indexing?"): the title
    /// and latest message of each.
    /// Whether the server has ended its indexing progress and has none open
    /// (`WaitProfile::reopen_when_indexed`).
    pub fn indexed(&self) -> bool {
        self.state().indexed(&self.inner.config.wait)
    }

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

    /// Kills the process (whose reader then sees the stream end and fails
    /// what is pending), or closes the connection and fails what is
    /// pending now, for `why` (the reader is gone with the connection).
    pub(super) fn cut(&self, why: &str) {
        self.link.kill();
        if self.link.endpoint().is_some() {
            self.gone(why);
        }
    }

    /// Marks the client dead for `why`, waking whoever waits on it.
    pub(super) fn gone(&self, why: &str) {
        let _ = self.dead.set(why.to_string());
        let pending: Vec<_> = lock(&self.pending).drain().collect();
        for (_, tx) in pending {
            let _ = tx.send(Err(self.dead_error(why)));
        }
        self.state.died();
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
