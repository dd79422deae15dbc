//! One server on its sample: start it as the pool would (same command,
//! environment, settings, settle window; or attach to it where it runs,
//! `connect`), time the start, open the sample's
//! main file, wait for its first diagnostics, read back what the server
//! declared, and shut it down. The result is a plain `ServerReport`; nothing
//! of the LSP vocabulary leaves this module.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use serde::Serialize;
use tokio::time::Instant;

use super::samples::{self, Sample};
use crate::diagnostic::Outcome;
use crate::engine::ResolvedServer;
use crate::lsp::capabilities::SyncKind;
use crate::lsp::{ClientConfig, DocumentVersion, LspClient, Spawn};
use crate::platform::endpoint::{Endpoint, connect};
use crate::registry::toolchain::Launch;

/// The navigation features doctor asks about: (name shown, capability key).
pub const NAVIGATION: &[(&str, &str)] = &[
    ("definition", "definitionProvider"),
    ("references", "referencesProvider"),
    ("hover", "hoverProvider"),
    ("documentSymbol", "documentSymbolProvider"),
    ("workspaceSymbol", "workspaceSymbolProvider"),
    ("rename", "renameProvider"),
    ("typeDefinition", "typeDefinitionProvider"),
    ("implementation", "implementationProvider"),
    ("callHierarchy", "callHierarchyProvider"),
    ("signatureHelp", "signatureHelpProvider"),
    ("codeAction", "codeActionProvider"),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Status {
    #[serde(rename = "working")]
    Working,
    #[serde(rename = "failed")]
    Failed,
    #[serde(rename = "not installed")]
    NotInstalled,
    #[serde(rename = "untrusted")]
    Untrusted,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::Failed => "failed",
            Status::NotInstalled => "not installed",
            Status::Untrusted => "untrusted",
        }
    }
}

/// What doctor found out about one server.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerReport {
    pub id: String,
    pub enabled: bool,
    pub status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The compiler the server runs on for this workspace, for a server
    /// that runs on the project's (`typescript 7.0.2 (project: …)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compiler: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub install_hint: Option<String>,
    /// Spawn to `initialized` sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_ms: Option<u64>,
    /// `pull`, `pull (dynamic)`, `push` or `push+pull`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnostics_mode: Option<String>,
    /// `none`, `full` or `incremental`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sync: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position_encoding: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_check: Option<FirstCheck>,
    /// The navigation features declared, in `NAVIGATION` order.
    pub navigation: Vec<String>,
}

/// The first check of the sample's main file.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FirstCheck {
    pub file: String,
    pub diagnostics: usize,
    /// `pulled`, `settled`, `timed_out` or `server_dead`.
    pub outcome: String,
    pub ms: u64,
}

impl ServerReport {
    pub fn new(server: &ResolvedServer, status: Status) -> ServerReport {
        ServerReport::named(server.spec.id.clone(), server.enabled, status)
    }

    /// A report of `status` alone, every probe's finding still absent.
    pub fn named(id: String, enabled: bool, status: Status) -> ServerReport {
        ServerReport {
            id,
            enabled,
            status,
            path: None,
            version: None,
            compiler: None,
            error: None,
            install_hint: None,
            start_ms: None,
            diagnostics_mode: None,
            sync: None,
            position_encoding: None,
            first_check: None,
            navigation: Vec::new(),
        }
    }

    fn failed(mut self, error: String) -> ServerReport {
        self.status = Status::Failed;
        self.error = Some(error);
        self
    }
}

/// Starts `server` (as `launch` says) on its sample in a fresh temporary
/// directory and reports on it. `timeout` bounds the start and, separately,
/// the first check.
pub async fn probe(server: &ResolvedServer, launch: Launch, timeout: Duration) -> ServerReport {
    let mut report = ServerReport::new(server, Status::Working);
    let Launch {
        program,
        args,
        initialization_options,
        ..
    } = launch;
    report.path = Some(program.display().to_string());
    let (sample, dir) = match prepare(server, Some(&program)) {
        Ok(prepared) => prepared,
        Err(e) => return report.failed(e),
    };
    let spawn = Spawn {
        program,
        args,
        env: server.env.clone(),
        cwd: dir.path().to_path_buf(),
    };
    let mut config = ClientConfig::new(server.spec.id.clone(), spawn, dir.path().to_path_buf());
    config.initialization_options = initialization_options;
    config.settings = server.spec.settings.clone();
    config.wait = server.spec.wait.clone();

    let started = Instant::now();
    let client = match LspClient::start(config, timeout).await {
        Ok(client) => client,
        Err(e) => return report.failed(e.to_string()),
    };
    report.start_ms = Some(millis(started.elapsed()));
    let report = examine(report, &client, &sample, dir.path(), timeout).await;
    client.shutdown().await;
    report
}

/// Attaches to `server`, which runs at `endpoint` (`connect`), with its
/// sample's directory as the root, reports on it as on a spawned one, and
/// disconnects: the server is not squiggle's to stop.
pub async fn attached(
    server: &ResolvedServer,
    endpoint: &Endpoint,
    timeout: Duration,
) -> ServerReport {
    let mut report = ServerReport::new(server, Status::Working);
    report.path = Some(endpoint.to_string());
    let (sample, dir) = match prepare(server, None) {
        Ok(prepared) => prepared,
        Err(e) => return report.failed(e),
    };
    let connection = match connect(endpoint).await {
        Ok(connection) => connection,
        Err(e) => return report.failed(e.to_string()),
    };
    let mut config = ClientConfig::attached(server.spec.id.clone(), dir.path().to_path_buf());
    config.initialization_options = server.spec.initialization_options.clone();
    config.settings = server.spec.settings.clone();
    config.wait = server.spec.wait.clone();
    let started = Instant::now();
    let client = match LspClient::attach(config, endpoint.clone(), connection, timeout).await {
        Ok(client) => client,
        Err(e) => return report.failed(e.to_string()),
    };
    report.start_ms = Some(millis(started.elapsed()));
    let report = examine(report, &client, &sample, dir.path(), timeout).await;
    client.shutdown().await;
    report
}

/// The server's sample, written into a fresh directory (with the
/// `node_modules` beside `program`, when it has one).
fn prepare(server: &ResolvedServer, program: Option<&Path>) -> Result<(Sample, SampleDir), String> {
    let sample = samples::for_server(server);
    let dir = SampleDir::create(&server.spec.id)
        .map_err(|e| format!("cannot create the sample directory: {e}"))?;
    let written = sample.write(dir.path()).and_then(|()| match program {
        Some(program) => samples::link_node_modules(dir.path(), program),
        None => Ok(()),
    });
    written.map_err(|e| format!("cannot write the sample in {}: {e}", dir.path().display()))?;
    Ok((sample, dir))
}

/// Reads the server's declarations and runs the first check.
async fn examine(
    mut report: ServerReport,
    client: &LspClient,
    sample: &Sample,
    dir: &Path,
    timeout: Duration,
) -> ServerReport {
    if let Some(facts) = client.facts() {
        report.version = facts.version.clone();
        report.sync = Some(
            match facts.sync {
                SyncKind::None => "none",
                SyncKind::Full => "full",
                SyncKind::Incremental => "incremental",
            }
            .into(),
        );
        report.position_encoding = Some(facts.encoding.as_lsp().into());
        report.navigation = NAVIGATION
            .iter()
            .filter(|(_, key)| facts.declares(key))
            .map(|(name, _)| name.to_string())
            .collect();
    }
    let checked = Instant::now();
    let path = dir.join(&sample.main);
    let doc = client
        .sync_document(&path, &sample.language_id, Arc::from(sample.main_text()))
        .await;
    let found = client.diagnostics_for(&doc, checked + timeout).await;
    let ms = millis(checked.elapsed());
    let static_pull = client.facts().is_some_and(|f| f.static_pull);
    let pulls = client.pulls_diagnostics();
    let pushed = if pulls {
        // A server may also push; give it its settle window to show it.
        let quiet = Duration::from_millis(client_settle_ms(client).max(200));
        published_within(client, &doc, Instant::now() + quiet).await
    } else {
        true
    };
    report.diagnostics_mode = Some(
        match (static_pull, pulls, pushed) {
            (_, false, _) => "push",
            (_, true, true) => "push+pull",
            (true, true, false) => "pull",
            (false, true, false) => "pull (dynamic)",
        }
        .into(),
    );
    report.first_check = Some(FirstCheck {
        file: sample.main.clone(),
        diagnostics: found.diagnostics.len(),
        outcome: found.outcome.as_str().into(),
        ms,
    });
    if found.outcome == Outcome::ServerDead {
        let reason = client
            .dead_reason()
            .unwrap_or_else(|| "the server exited".into());
        return report.failed(format!("died during the first check: {reason}"));
    }
    report
}

fn client_settle_ms(client: &LspClient) -> u64 {
    millis(client.wait_profile().settle)
}

/// Whether the server publishes diagnostics for `doc`, waiting until
/// `deadline` for the first publish.
async fn published_within(client: &LspClient, doc: &DocumentVersion, deadline: Instant) -> bool {
    let mut events = client.subscribe();
    loop {
        events.borrow_and_update();
        if client.has_published(&doc.uri) {
            return true;
        }
        if !client.is_alive() {
            return false;
        }
        match tokio::time::timeout_at(deadline, events.changed()).await {
            Ok(Ok(())) => continue,
            Ok(Err(_)) | Err(_) => {
                return client.has_published(&doc.uri);
            }
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// A fresh directory under the system's temporary directory, removed on drop.
struct SampleDir(PathBuf);

impl SampleDir {
    fn create(id: &str) -> std::io::Result<SampleDir> {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let name: String = id
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let dir = std::env::temp_dir().join(format!(
            "squiggle-doctor-{}-{}-{name}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
        std::fs::create_dir_all(&dir)?;
        // Servers report canonical paths (macOS's /tmp is a symlink).
        Ok(SampleDir(crate::platform::paths::canonicalize(&dir)?))
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for SampleDir {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_dir_all(&self.0) {
            tracing::debug!("cannot remove {}: {e}", self.0.display());
        }
    }
}
