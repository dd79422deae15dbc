//! One navigation request's setup: the file's servers, the first that
//! declared the capability (started through the engine's pool), the
//! document synced to the text on disk, and the wait for indexing to end.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use crate::engine::Engine;
use crate::engine::lookup::LookupError;
use crate::engine::pool::{Busy, Checkout};
use crate::lsp::LspClient;
use crate::lsp::position::{LineIndex, PositionEncoding};
use crate::uri;

/// Why a navigation request has no answer. The text is for the model.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct NavError(pub String);

impl From<LookupError> for NavError {
    fn from(e: LookupError) -> NavError {
        NavError(e.to_string())
    }
}

impl NavError {
    pub fn new(text: impl Into<String>) -> NavError {
        NavError(text.into())
    }
}

/// A file opened in the server that answers one kind of request.
pub struct Session {
    pub engine: Arc<Engine>,
    pub client: LspClient,
    /// Holds the instance: the pool does not stop it mid-request.
    _busy: Busy,
    /// Holds the servers' view: no speculative session shows them its
    /// text mid-request (`sessions::gate`).
    _view: crate::sessions::gate::SharedView,
    pub server: String,
    pub relative: String,
    pub uri: String,
    pub text: Arc<str>,
    pub index: LineIndex,
    pub encoding: PositionEncoding,
    /// When the indexing wait (and the request) must end.
    pub deadline: Instant,
}

/// What a request needs from a server.
pub struct Need<'a> {
    /// The server capability, such as `definitionProvider`.
    pub capability: &'a str,
    /// The LSP method, for dynamic registrations and messages.
    pub method: &'a str,
    /// A short name for messages: "definition", "references".
    pub feature: &'a str,
}

/// Opens `path` in the first server that serves it and declared `need`.
pub async fn open(engine: &Arc<Engine>, path: &str, need: &Need<'_>) -> Result<Session, NavError> {
    let files = engine.servers_for(Path::new(path))?;
    let view = engine.shared_view().await;
    let mut lacking: Vec<String> = Vec::new();
    let mut missing: Vec<String> = Vec::new();
    for candidate in &files.candidates {
        let started = Instant::now();
        let Checkout { client, cold, busy } = match engine.start_candidate(candidate).await {
            Ok(found) => found,
            Err(unavailable) => {
                missing.push(format!("{}: {}", candidate.server_id, unavailable.reason));
                continue;
            }
        };
        if !declares(&client, need) {
            lacking.push(candidate.server_id.clone());
            continue;
        }
        let text: Arc<str> =
            match crate::edit::read_regular_string(&files.canonical, crate::edit::MAX_READ_BYTES) {
                Ok(t) => Arc::from(t),
                Err(e) => return Err(NavError(format!("cannot read {}: {e}", files.relative))),
            };
        // Indexing after a cold start can take as long as the first touch
        // may; a warm server gets the same bound for a re-index.
        let budget = engine.config().first_touch_timeout;
        let was_open = client.document(&files.canonical).is_some();
        let doc = client
            .sync_document(&files.canonical, &candidate.language, text.clone())
            .await;
        if cold || !was_open {
            // A server answers navigation about a file it just opened
            // before its project is loaded (tsserver resolves imports only
            // to the import line). Its first diagnostics for the file mean
            // the project is loaded: wait for them.
            let report = client.diagnostics_for(&doc, started + budget).await;
            tracing::debug!(server = %candidate.server_id, outcome = report.outcome.as_str(), "ready for navigation");
        }
        let encoding = client.facts().map(|f| f.encoding).unwrap_or_default();
        return Ok(Session {
            engine: engine.clone(),
            server: candidate.server_id.clone(),
            relative: files.relative.clone(),
            uri: uri::from_path(&files.canonical),
            index: LineIndex::new(&text),
            text,
            encoding,
            client,
            _busy: busy,
            _view: view,
            deadline: started + budget,
        });
    }
    if !lacking.is_empty() {
        return Err(NavError(format!(
            "{} does not support {}",
            lacking.join(" or "),
            need.feature
        )));
    }
    Err(NavError(format!(
        "no language server could answer for {}: {}; meanwhile, search the text instead (for example `grep -rn NAME .`)",
        files.relative,
        missing.join("; ")
    )))
}

fn declares(client: &LspClient, need: &Need<'_>) -> bool {
    client.facts().is_some_and(|f| f.declares(need.capability))
        || client.registered_methods().iter().any(|m| m == need.method)
}

impl Session {
    pub fn params(&self) -> Value {
        serde_json::json!({ "textDocument": { "uri": self.uri } })
    }

    /// Waits while the server reports work-done progress (indexing), up to
    /// the deadline. Returns the titles still open when it gave up.
    pub async fn wait_indexed(&self) -> Vec<String> {
        let mut events = self.client.subscribe();
        loop {
            let open = self.client.active_progress();
            if open.is_empty() {
                return Vec::new();
            }
            let changed = tokio::time::timeout_at(self.deadline, events.changed()).await;
            if !matches!(changed, Ok(Ok(()))) {
                return open
                    .into_iter()
                    .map(|(title, message)| {
                        [title, message]
                            .into_iter()
                            .flatten()
                            .collect::<Vec<_>>()
                            .join(": ")
                    })
                    .collect();
            }
        }
    }

    /// Sends a request once indexing is over (or the deadline passed).
    /// Returns the result and, when the server was still indexing, what it
    /// was doing.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, NavError> {
        let timeout = self
            .deadline
            .saturating_duration_since(Instant::now())
            .max(Duration::from_secs(5));
        self.client
            .request_with_timeout(method, params, timeout)
            .await
            .map_err(|e| NavError(e.to_string()))
    }

    /// Sends a request whose empty answer may mean "not indexed yet": waits
    /// for indexing first, and reports an empty answer given while indexing
    /// as an error.
    pub async fn request_list(&self, method: &str, params: Value) -> Result<Value, NavError> {
        let indexing = self.wait_indexed().await;
        let result = self.request(method, params).await?;
        let empty = match &result {
            Value::Null => true,
            Value::Array(a) => a.is_empty(),
            _ => false,
        };
        if empty && !indexing.is_empty() {
            return Err(NavError(format!(
                "{} is still indexing ({}); no answer yet, try again shortly",
                self.server,
                indexing.join(", ")
            )));
        }
        Ok(result)
    }
}
