//! A client's beginning and end: spawning a server or attaching to one
//! that runs, the `initialize` handshake, and stopping — `shutdown`/`exit`
//! and then a kill for a server squiggle spawned; for an attached one,
//! `didClose` for every document it has open and then closing the
//! connection, never `shutdown` or `exit`: the server is its owner's.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, AtomicU64};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;
use tracing::Instrument;

use super::tasks::{read_loop, write_loop};
use super::{ClientError, Inner, LspClient};
use crate::lsp::capabilities::{ServerFacts, client_capabilities};
use crate::lsp::client_config::ClientConfig;
use crate::lsp::health::state::Health;
use crate::lsp::link::{Attached, Link};
use crate::lsp::process::ServerProcess;
use crate::lsp::wakeups::SharedState;
use crate::platform::endpoint::{Connection, Endpoint};
use crate::uri;

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
        let client = LspClient::over(config, Link::Process(process), stdout, stdin);
        client.handshake(init_timeout).await
    }

    /// Initializes a server that already runs at `endpoint`, over
    /// `connection` (opened by the caller: a refused one is the caller's
    /// to report). `config.spawn` is not used.
    pub async fn attach(
        config: ClientConfig,
        endpoint: Endpoint,
        connection: Connection,
        init_timeout: Duration,
    ) -> Result<LspClient, ClientError> {
        let link = Link::Attached(Attached::new(endpoint));
        let client = LspClient::over(config, link, connection.read, connection.write);
        client.handshake(init_timeout).await
    }

    /// The client over `link`, its reader and writer tasks running.
    fn over(
        config: ClientConfig,
        link: Link,
        read: impl AsyncRead + Unpin + Send + 'static,
        write: impl AsyncWrite + Unpin + Send + 'static,
    ) -> LspClient {
        let (out_tx, out_rx) = mpsc::unbounded_channel();
        let max_frame = config.max_frame;
        let span = instance_span(&config, &link);
        let inner = Arc::new(Inner {
            span: span.clone(),
            config,
            link,
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
        let writer = tokio::spawn(write_loop(write, out_rx).instrument(span.clone()));
        let reader =
            tokio::spawn(read_loop(Arc::downgrade(&inner), read, max_frame).instrument(span));
        if let Link::Attached(attached) = &inner.link {
            attached.hold(writer.abort_handle());
            attached.hold(reader.abort_handle());
        }
        LspClient { inner }
    }

    /// Which instance a log line is about (several instances of one server
    /// run at once: one per root, or a restart beside its predecessor): the
    /// reader's and writer's lines, and a check's wait (`engine::check`),
    /// run inside it.
    pub fn span(&self) -> tracing::Span {
        self.inner.span.clone()
    }

    async fn handshake(self, init_timeout: Duration) -> Result<LspClient, ClientError> {
        match self.initialize(init_timeout).await {
            Ok(()) => Ok(self),
            Err(e) => {
                self.kill();
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
        // A server exits when the process named here does (the spec's
        // `processId`): only a server squiggle started is tied to it.
        let process_id = match self.is_attached() {
            true => Value::Null,
            false => json!(std::process::id()),
        };
        let mut params = json!({
            "processId": process_id,
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

    /// Stops the server: `shutdown` (no params member), `exit`, up to 2 s
    /// for the process to leave, then kill — never leaving the process (or
    /// its process group) running. An attached server instead gets
    /// `didClose` for every open document and the connection closed, and
    /// runs on. Clears documents and diagnostics either way.
    pub async fn shutdown(&self) {
        let grace = Duration::from_secs(2);
        if self.is_attached() {
            if self.is_alive() {
                let flushed = self.close_all_documents();
                if tokio::time::timeout(grace, flushed).await.is_err() {
                    tracing::debug!(server = %self.server_id(), "didClose not written in time");
                }
            }
            self.inner.link.kill();
        } else {
            self.stop_process(grace).await;
        }
        self.state().clear();
        self.inner.gone("shut down");
    }

    async fn stop_process(&self, grace: Duration) {
        let Link::Process(process) = &self.inner.link else {
            return;
        };
        if self.is_alive() {
            tracing::debug!(server = %self.server_id(), "stopping: shutdown sent");
            let answered = self
                .request_with_timeout("shutdown", Value::Null, grace)
                .await;
            if let Err(e) = answered {
                tracing::debug!(server = %self.server_id(), "shutdown request failed: {e}");
            }
            self.notify("exit", Value::Null);
            if process.wait_exit(grace).await.is_none() {
                tracing::debug!(server = %self.server_id(), "server ignored exit; killing it");
            }
        }
        process.kill();
        process.wait_exit(grace).await;
    }
}

/// The instance's span: its server, and its process id or endpoint. At
/// `error` level, so that it is there whenever any of its lines is shown.
fn instance_span(config: &ClientConfig, link: &Link) -> tracing::Span {
    let instance = match (link.pid(), link.endpoint()) {
        (Some(pid), _) => format!("pid {pid}"),
        (None, Some(endpoint)) => endpoint.to_string(),
        (None, None) => String::new(),
    };
    tracing::error_span!("lsp", server = %config.server_id, %instance)
}
