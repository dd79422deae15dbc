//! One answer to "which servers are there, and what are they doing": every
//! configured server (built in or custom; enabled or not; installed or not;
//! trusted or not) and every instance the pool has tried. JSON-RPC
//! `lsp/status`, MCP `lsp_status`, `squiggle status --json` and `squiggle
//! daemon status --json` all serialize these rows, so no surface can tell
//! another story about the same workspace.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Engine;
use super::pool::{InstanceStatus, ServerState, StopReason, not_installed};
use super::servers::ResolvedServer;
use crate::lsp::LspClient;
use crate::registry::toolchain::{Lookup, launch, lookup};

/// One configured server without an instance, or one instance (a server
/// with instances has a row per project root instead of its own).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerStatus {
    pub id: String,
    pub status: ServerState,
    /// The first language id the server serves (`""` when it has none).
    pub language: String,
    /// The program that runs (or would run) it, when one is found; never
    /// looked up for an untrusted server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<PathBuf>,
    /// The project's compiler the server runs on (TypeScript), or why it
    /// runs its own; absent for a server that runs on no package.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compiler: Option<CompilerStatus>,
    /// The instance's project root; absent for servers without an instance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_pid: Option<u32>,
    /// Where the server listens when squiggle attaches to it (`connect`):
    /// it has no command or pid, since squiggle neither starts nor stops it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// What the server said its version is, once started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Why the server is broken, unavailable or untrusted (and what to do).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// How many times this instance was started (0 for never).
    #[serde(default)]
    pub starts: u32,
    /// Resident memory of a live instance and the processes it spawned, KiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rss_kb: Option<u64>,
    /// Milliseconds since a check last used a live instance (0 while one does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_ms: Option<u64>,
    /// Checks and navigation requests using a live instance now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_flight: Option<u32>,
    /// Documents a live instance has open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_documents: Option<usize>,
    /// Why the pool last stopped this instance: `evicted` (for the cap) or
    /// `idle`; it starts again on the next file it serves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<StopReason>,
    /// Work-done progress a live instance has open (indexing).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub progress: Vec<String>,
}

/// The package a server runs on, as `status` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompilerStatus {
    /// The package found (`typescript`), suited or not; absent when none is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Its directory, as found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<PathBuf>,
    /// `project` (its `node_modules`) or `squiggle install`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    /// Whether the server runs on it (false: it runs its own).
    pub used: bool,
    /// One line: `typescript 7.0.2 (project: /w/node_modules/typescript)`.
    pub text: String,
}

impl CompilerStatus {
    fn of(lookup: &Lookup) -> Option<Self> {
        if *lookup == Lookup::NotApplicable {
            return None;
        }
        let package = lookup.package();
        Some(CompilerStatus {
            package: package.map(|p| p.name.clone()),
            version: package.map(|p| p.version.clone()),
            dir: package.map(|p| p.dir.clone()),
            origin: package.map(|p| p.origin.as_str().to_string()),
            used: matches!(lookup, Lookup::Found(..)),
            text: lookup.to_string(),
        })
    }
}

impl Engine {
    /// Every instance the pool has tried, sorted by (server, root), then
    /// every configured server that has none, in configuration order:
    /// `untrusted`, `disabled`, `unavailable` (not installed) or `idle`.
    /// Reads `/proc` and looks commands up on `PATH`; starts nothing.
    pub fn status(&self) -> Vec<ServerStatus> {
        let path_var = std::env::var_os("PATH");
        let found = |server: &ResolvedServer, root: &Path| {
            launch(
                &server.spec,
                root,
                self.workspace.root(),
                path_var.as_deref(),
            )
            .map(|l| l.program)
        };
        let clients = self.pool.clients();
        let instances = self.pool.statuses();
        let mut rows: Vec<ServerStatus> = instances
            .iter()
            .map(|i| {
                let server = self.servers.iter().find(|s| s.spec.id == i.id);
                let mut row = self.instance_status(i, server, &clients);
                row.command = server.and_then(|s| found(s, &i.root));
                row
            })
            .collect();
        for server in &self.servers {
            if instances.iter().any(|i| i.id == server.spec.id) {
                continue;
            }
            let command = match server.untrusted {
                Some(_) => None,
                None => found(server, self.workspace.root()),
            };
            rows.push(self.configured_status(server, command));
        }
        rows
    }

    /// A running (or stopped) instance's row, `command` left to the caller.
    fn instance_status(
        &self,
        i: &InstanceStatus,
        server: Option<&ResolvedServer>,
        clients: &[LspClient],
    ) -> ServerStatus {
        let mut row = instance_row(i, clients);
        if row.endpoint.is_none() {
            row.endpoint = server.and_then(|s| s.connect.as_ref().map(ToString::to_string));
        }
        row.language = server.map(language).unwrap_or_default();
        // An instance no longer running whose server the configuration now
        // keeps from starting (turned off, untrusted, held back by
        // `strict`) says so, not "stopped".
        if row.in_flight.is_none()
            && let Some(server) = server
            && let (
                state @ (ServerState::Disabled | ServerState::Untrusted | ServerState::NotStarted),
                detail,
            ) = self.configured_state(server, true)
        {
            row.status = state;
            row.detail = detail;
        }
        row.compiler = server
            .and_then(|s| CompilerStatus::of(&lookup(&s.spec, &i.root, self.workspace.root())));
        row
    }

    /// The row of a configured server with no instance: `command` is the
    /// program it would start, when found.
    fn configured_status(&self, server: &ResolvedServer, command: Option<PathBuf>) -> ServerStatus {
        let found = command.is_some() || server.connect.is_some();
        let (status, detail) = self.configured_state(server, found);
        let root = self.workspace.root();
        ServerStatus {
            id: server.spec.id.clone(),
            status,
            language: language(server),
            command,
            compiler: match server.untrusted {
                Some(_) => None,
                None => CompilerStatus::of(&lookup(&server.spec, root, root)),
            },
            root: None,
            server_pid: None,
            endpoint: server.connect.as_ref().map(ToString::to_string),
            version: None,
            detail,
            starts: 0,
            rss_kb: None,
            idle_ms: None,
            in_flight: None,
            open_documents: None,
            stopped: None,
            progress: Vec::new(),
        }
    }
}

impl Engine {
    /// What the configuration says of `server` now (`found`: its command
    /// was found, or it is attached to): untrusted, disabled, unavailable,
    /// held back, or idle, with the detail that explains it.
    fn configured_state(
        &self,
        server: &ResolvedServer,
        found: bool,
    ) -> (ServerState, Option<String>) {
        if let Some(reason) = &server.untrusted {
            (ServerState::Untrusted, Some(reason.clone()))
        } else if !server.enabled || !self.config.enabled {
            (ServerState::Disabled, None)
        } else if !found {
            (ServerState::Unavailable, Some(not_installed(server)))
        } else if let Some(reason) = &server.held {
            (ServerState::NotStarted, Some(reason.clone()))
        } else {
            (ServerState::Idle, None)
        }
    }
}

/// The first language id `server` serves.
fn language(server: &ResolvedServer) -> String {
    server
        .language_id
        .clone()
        .or_else(|| server.spec.languages.first().cloned())
        .unwrap_or_default()
}

/// An instance's row; a live one's counts and open progress included.
fn instance_row(i: &InstanceStatus, clients: &[LspClient]) -> ServerStatus {
    let live = i.server_pid.is_some() || i.endpoint.is_some();
    let progress = clients
        .iter()
        .find(|c| c.server_id() == i.id && c.root() == i.root)
        .map(|c| {
            c.active_progress()
                .into_iter()
                .filter_map(|(title, message)| title.or(message))
                .collect()
        })
        .unwrap_or_default();
    ServerStatus {
        id: i.id.clone(),
        status: i.status,
        language: String::new(),
        command: None,
        compiler: None,
        root: Some(i.root.clone()),
        server_pid: i.server_pid,
        endpoint: i.endpoint.clone(),
        version: i.version.clone(),
        detail: i.detail.clone(),
        starts: i.starts,
        rss_kb: i.rss_kb,
        idle_ms: i.idle_ms,
        in_flight: live.then_some(i.in_flight),
        open_documents: live.then_some(i.open_documents),
        stopped: i.stopped,
        progress,
    }
}
