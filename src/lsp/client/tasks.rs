//! The bodies of a client's I/O tasks: the writer, which sends queued frames
//! in order, and the reader, which parses each frame and dispatches it
//! (responses to their waiters, server requests answered, notifications into
//! the state), and fails everything pending when the stream closes.

use std::sync::Weak;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

use super::{ClientError, Inner, Outgoing};
use crate::jsonrpc::framing::{FrameReader, push_frame};
use crate::jsonrpc::message::{Message, RequestId, ResponseError};
use crate::lsp::server_requests;
use crate::mutex::lock;

impl Inner {
    fn respond(&self, id: RequestId, result: Result<Value, ResponseError>) {
        self.send(
            Message::Response {
                id: Some(id),
                result,
            }
            .to_bytes(),
            None,
        );
    }

    fn dispatch(&self, message: Message) {
        self.received.fetch_add(1, Ordering::AcqRel);
        match message {
            Message::Response {
                id: Some(id),
                result,
            } => {
                *lock(&self.last_response) = Some(std::time::Instant::now());
                let waiter = lock(&self.pending).remove(&id);
                match waiter {
                    Some(tx) => {
                        let reply = result.map_err(|error| ClientError::Rpc {
                            server: self.config.server_id.clone(),
                            method: String::new(),
                            error,
                        });
                        let _ = tx.send(reply);
                    }
                    None => {
                        tracing::debug!(server = %self.config.server_id, %id, "response to an unknown request id ignored")
                    }
                }
            }
            Message::Response { id: None, result } => {
                tracing::debug!(server = %self.config.server_id, ?result, "response without id ignored");
            }
            Message::Request { id, method, params } => {
                let answer = server_requests::answer(&self.config, &method, &params);
                if let Some(change) = answer.change {
                    let seq = self.received.load(Ordering::Acquire);
                    self.state.change(|state| state.apply(change, seq));
                }
                self.respond(id, answer.reply);
            }
            Message::Notification { method, params } => self.on_notification(&method, params),
        }
    }

    fn on_notification(&self, method: &str, params: Value) {
        match method {
            "textDocument/publishDiagnostics" => {
                let seq = self.received.load(Ordering::Acquire);
                self.state.change(|state| state.on_publish(params, seq));
            }
            "$/progress" => {
                tracing::trace!(server = %self.config.server_id, ?params, "progress");
                let seq = self.received.load(Ordering::Acquire);
                let profile = &self.config.wait;
                self.state
                    .change(|state| state.on_progress(&params, seq, profile));
            }
            method if self.config.wait.status_method.as_deref() == Some(method) => {
                let seq = self.received.load(Ordering::Acquire);
                let profile = &self.config.wait;
                self.state
                    .change(|state| state.on_file_status(&params, seq, profile));
            }
            "window/logMessage" | "window/showMessage" => {
                let text = params
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let kind = params.get("type").and_then(Value::as_i64).unwrap_or(4);
                match kind {
                    1 => tracing::warn!(server = %self.config.server_id, "{text}"),
                    2 => tracing::info!(server = %self.config.server_id, "{text}"),
                    _ => tracing::debug!(server = %self.config.server_id, "{text}"),
                }
            }
            _ => tracing::trace!(server = %self.config.server_id, method, "notification ignored"),
        }
    }

    /// The stream is over: fail everything pending at once with the reason.
    async fn on_stream_closed(&self, why: &str) {
        let ended = self.link.ended(Duration::from_millis(200)).await;
        let why = match self.health.unresponsive() {
            Some(reason) => reason.as_str(),
            None => why,
        };
        let tail = self.link.stderr_tail();
        let tail = tail.trim();
        let detail = if tail.is_empty() {
            format!("{why}; {ended}")
        } else {
            let start = tail.char_indices().rev().nth(1999).map_or(0, |(i, _)| i);
            format!("{why}; {ended}; stderr: {}", &tail[start..])
        };
        tracing::debug!(server = %self.config.server_id, "{detail}");
        self.gone(&detail);
        // Last: for a connection this ends the reader, the task running it.
        self.link.kill();
    }
}

/// A write gathers the messages queued meanwhile, up to this many bytes: a
/// check of 100 files queues 100 didChanges and 100 pulls at once, and one
/// write for them costs one syscall and one wakeup of the server, not 200.
const MAX_WRITE_BATCH: usize = 256 * 1024;

pub(super) async fn write_loop(
    mut stdin: impl AsyncWrite + Unpin,
    mut queue: mpsc::UnboundedReceiver<Outgoing>,
) {
    let mut batch: Vec<u8> = Vec::new();
    let mut acks: Vec<oneshot::Sender<()>> = Vec::new();
    while let Some(first) = queue.recv().await {
        batch.clear();
        let mut item = Some(first);
        while let Some(next) = item.take() {
            if !next.bytes.is_empty() {
                push_frame(&mut batch, &next.bytes);
            }
            acks.extend(next.written);
            if batch.len() < MAX_WRITE_BATCH {
                item = queue.try_recv().ok();
            }
        }
        let written = async {
            stdin.write_all(&batch).await?;
            stdin.flush().await
        };
        if let Err(e) = written.await {
            tracing::debug!("writing to server failed: {e}");
            return;
        }
        // Acknowledged only once on the wire: "written" orders publishes
        // against the change (see `DocumentVersion::changed_at`).
        for ack in acks.drain(..) {
            let _ = ack.send(());
        }
    }
}

pub(super) async fn read_loop(
    inner: Weak<Inner>,
    stdout: impl AsyncRead + Unpin,
    max_frame: usize,
) {
    let mut reader =
        FrameReader::with_limit(BufReader::with_capacity(64 * 1024, stdout), max_frame);
    let why = loop {
        let frame = reader.read_frame().await;
        let Some(inner) = inner.upgrade() else { return };
        match frame {
            Ok(Some(body)) => match Message::parse(&body) {
                Ok(message) => inner.dispatch(message),
                Err(e) => {
                    tracing::warn!(server = %inner.config.server_id, "ignored a message: {e}")
                }
            },
            Ok(None) => break "the server closed its output".to_string(),
            Err(e) if e.is_recoverable() => tracing::warn!(server = %inner.config.server_id, "{e}"),
            Err(e) => break e.to_string(),
        }
    };
    if let Some(inner) = inner.upgrade() {
        inner.on_stream_closed(&why).await;
    }
}
