//! One framed JSON-RPC connection: read frames, answer each request in its
//! own task (so a slow check never holds up `lsp/status`), and write every
//! response through one writer task so frames never interleave.
//!
//! Errors on the wire are answered, never fatal: malformed JSON gets a
//! ParseError with a null id, a JSON value that is not a message gets
//! InvalidRequest, a bad frame header gets ParseError, and the loop reads on.
//! Notifications are ignored except `exit`. The connection ends at end of
//! input (in-flight requests are answered first, unless the host cancels
//! them: the daemon's client that hung up is gone, and a mutation it had
//! asked for must not land after it gave up), on `exit` (they are dropped),
//! or after answering `lsp/shutdown`.
//!
//! The connection owns the sessions it opens (`squiggle/session*`): no
//! other connection finds them, and when it ends they are discarded.

use std::io;
use std::sync::Arc;

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use super::{methods, sessions};
use crate::engine::Engine;
use crate::evidence::origin::scope;
use crate::evidence::{Origin, Surface};
use crate::jsonrpc::framing::{FrameReader, write_frame};
use crate::jsonrpc::message::{Message, MessageError, RequestId, ResponseError, codes};
use crate::sessions::Owner;

/// Why a connection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectionEnd {
    /// End of input (or a broken stream).
    Eof,
    /// The `exit` notification.
    Exit,
    /// `lsp/shutdown` was answered: the servers are stopped.
    Shutdown,
}

/// What the process hosting a connection adds: activity tracking and its own
/// methods (the daemon's `squiggle/daemonStatus`, `squiggle/daemonShutdown`).
pub trait Host: Send + Sync + 'static {
    /// A request arrived.
    fn request_started(&self) {}
    /// A request was answered.
    fn request_finished(&self) {}
    /// Answers a method the service does not know; `None` when the host
    /// does not know it either (MethodNotFound).
    fn handle(&self, _method: &str, _params: &Value) -> Option<Result<Value, ResponseError>> {
        None
    }
    /// The engine for the next request, when the host keeps it current
    /// (the daemon follows its configuration files: `engine::Live`);
    /// `None` keeps the connection's own.
    fn engine(&self) -> Option<Arc<Engine>> {
        None
    }
    /// Whether end of input cancels the requests still in flight rather
    /// than answering them. A cancelled mutation stops at its next wait (for
    /// the file's lock, before anything is read or written), so no write
    /// lands after its requester hung up.
    fn cancel_on_disconnect(&self) -> bool {
        false
    }
}

/// Says a request is over when dropped: answered, or cancelled.
struct Finished(Arc<dyn Host>);

impl Drop for Finished {
    fn drop(&mut self) {
        self.0.request_finished();
    }
}

/// Aborts the handler task when the request is dropped (cancelled), so the
/// handler does not run on without anyone to answer.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A host with nothing to add (`squiggle serve`).
pub struct NoHost;

impl Host for NoHost {}

/// Serves one connection with the service's methods only.
pub async fn serve_connection<R, W>(
    engine: Arc<Engine>,
    reader: R,
    writer: W,
) -> io::Result<ConnectionEnd>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    serve_connection_with(engine, Arc::new(NoHost), reader, writer).await
}

/// Serves one connection; `host` answers the methods the service does not.
pub async fn serve_connection_with<R, W>(
    engine: Arc<Engine>,
    host: Arc<dyn Host>,
    reader: R,
    mut writer: W,
) -> io::Result<ConnectionEnd>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let writer_task = tokio::spawn(async move {
        while let Some(body) = rx.recv().await {
            write_frame(&mut writer, &body).await?;
        }
        Ok::<(), io::Error>(())
    });
    let mut frames = FrameReader::new(BufReader::new(reader));
    let mut tasks = JoinSet::new();
    let connection = Connection {
        engine,
        host,
        tx,
        owner: Owner::new(),
    };
    let end = loop {
        while tasks.try_join_next().is_some() {}
        let body = match frames.read_frame().await {
            Ok(Some(body)) => body,
            Ok(None) => break ConnectionEnd::Eof,
            Err(e) if e.is_recoverable() => {
                send_error(&connection.tx, None, codes::PARSE_ERROR, e.to_string());
                continue;
            }
            Err(e) => {
                tracing::debug!("connection closed: {e}");
                break ConnectionEnd::Eof;
            }
        };
        if let Some(end) = connection.on_frame(&body, &mut tasks).await {
            break end;
        }
    };
    let cancel = match end {
        ConnectionEnd::Exit => true,
        ConnectionEnd::Eof => connection.host.cancel_on_disconnect(),
        ConnectionEnd::Shutdown => false,
    };
    if cancel && !tasks.is_empty() {
        tracing::debug!(
            requests = tasks.len(),
            "the client is gone: its requests in flight are cancelled"
        );
        tasks.abort_all();
    }
    while tasks.join_next().await.is_some() {}
    // Its sessions go with it: nobody else may use them.
    let engine = connection.host.engine();
    let engine = engine.unwrap_or_else(|| connection.engine.clone());
    engine.release_sessions(connection.owner).await;
    drop(connection);
    match writer_task.await {
        Ok(Ok(())) | Err(_) => {}
        Ok(Err(e)) if e.kind() == io::ErrorKind::BrokenPipe => {}
        Ok(Err(e)) => return Err(e),
    }
    Ok(end)
}

/// What a connection's requests need: the engine, the host, the way to
/// the writer task, and the mark of the sessions it opens.
struct Connection {
    engine: Arc<Engine>,
    host: Arc<dyn Host>,
    tx: mpsc::UnboundedSender<Vec<u8>>,
    owner: Owner,
}

impl Connection {
    /// Handles one frame: a request is answered in its own task (or, for
    /// `lsp/shutdown`, here), a bad message is answered with its error.
    /// `Some` when the connection ends with it.
    async fn on_frame(&self, body: &[u8], tasks: &mut JoinSet<()>) -> Option<ConnectionEnd> {
        match Message::parse(body) {
            Ok(Message::Request { id, method, params }) if method == "lsp/shutdown" => {
                self.host.request_started();
                let engine = self.host.engine().unwrap_or_else(|| self.engine.clone());
                let reply = methods::handle(&engine, &method, params).await;
                let reply = reply.unwrap_or(Ok(Value::Null));
                // Refused params stopped nothing: the connection goes on.
                let stopped = reply.is_ok();
                send(
                    &self.tx,
                    Message::Response {
                        id: Some(id),
                        result: reply,
                    },
                );
                self.host.request_finished();
                return stopped.then_some(ConnectionEnd::Shutdown);
            }
            Ok(Message::Request { id, method, params }) => {
                self.host.request_started();
                let engine = self.host.engine().unwrap_or_else(|| self.engine.clone());
                let (host, tx, owner) = (self.host.clone(), self.tx.clone(), self.owner);
                tasks.spawn(async move {
                    let _finished = Finished(host.clone());
                    let result = answer(engine, host, owner, method, params).await;
                    send(
                        &tx,
                        Message::Response {
                            id: Some(id),
                            result,
                        },
                    );
                });
            }
            Ok(Message::Notification { method, .. }) if method == "exit" => {
                return Some(ConnectionEnd::Exit);
            }
            Ok(_) => {} // other notifications and stray responses
            Err(MessageError::InvalidId) => {
                send_error(
                    &self.tx,
                    None,
                    codes::INVALID_REQUEST,
                    MessageError::InvalidId.to_string(),
                );
            }
            Err(MessageError::Json(e)) => {
                send_error(&self.tx, None, codes::PARSE_ERROR, format!("{e}"));
            }
            Err(MessageError::NotJsonRpc) => {
                let id = request_id(body);
                let message = "not a JSON-RPC request: expected an object with `method`";
                send_error(&self.tx, id, codes::INVALID_REQUEST, message.into());
            }
        }
        None
    }
}

/// Runs one request in its own task, so that a panic becomes InternalError
/// instead of a request that is never answered.
async fn answer(
    engine: Arc<Engine>,
    host: Arc<dyn Host>,
    owner: Owner,
    method: String,
    params: Value,
) -> Result<Value, ResponseError> {
    let name = method.clone();
    let started = std::time::Instant::now();
    let origin = Origin::new(Surface::Service, None, method.as_str());
    let mut handler = AbortOnDrop(tokio::spawn(scope(origin, async move {
        if let Some(reply) = methods::handle(&engine, &method, params.clone()).await {
            return reply;
        }
        if let Some(reply) = sessions::handle(&engine, owner, &method, params.clone()).await {
            return reply;
        }
        host.handle(&method, &params).unwrap_or_else(|| {
            Err(ResponseError {
                code: codes::METHOD_NOT_FOUND,
                message: format!("unknown method {method:?}; see docs/protocol.md"),
                data: None,
            })
        })
    })));
    let handled = (&mut handler.0).await;
    tracing::debug!(method = %name, us = started.elapsed().as_micros() as u64, "request handled");
    handled.unwrap_or_else(|e| {
        tracing::error!(method = %name, "request handler failed: {e}");
        Err(ResponseError {
            code: codes::INTERNAL_ERROR,
            message: format!("{name} failed inside squiggle: {e}"),
            data: None,
        })
    })
}

fn send(tx: &mpsc::UnboundedSender<Vec<u8>>, message: Message) {
    let _ = tx.send(message.to_bytes());
}

fn send_error(
    tx: &mpsc::UnboundedSender<Vec<u8>>,
    id: Option<RequestId>,
    code: i64,
    message: String,
) {
    let error = ResponseError {
        code,
        message,
        data: None,
    };
    send(
        tx,
        Message::Response {
            id,
            result: Err(error),
        },
    );
}

/// The id of a JSON object that is not a valid message, when it has one.
fn request_id(body: &[u8]) -> Option<RequestId> {
    let value: Value = serde_json::from_slice(body).ok()?;
    serde_json::from_value(value.get("id")?.clone()).ok()
}
