//! How an instance comes to run: its server spawned (on the project's
//! package when it runs on one) or attached at its endpoint, configured
//! alike, and the outcome recorded; or why it cannot run.

use std::path::Path;
use std::time::{Duration, Instant};

use super::{InstanceKey, Pool, ServerState, Unavailable, lifecycle};
use crate::engine::servers::ResolvedServer;
use crate::lsp::{ClientConfig, LspClient, Spawn};
use crate::mutex::lock;
use crate::platform::endpoint::{Endpoint, connect};
use crate::registry::toolchain::{Launch, launch};

impl Pool {
    /// Starts the instance `key` (room made, state recorded); on failure
    /// the second failure in a row marks it broken.
    pub(super) async fn start(
        &self,
        server: &ResolvedServer,
        key: &InstanceKey,
        launch: Launch,
        start_timeout: Duration,
    ) -> Result<LspClient, Unavailable> {
        let starting = self.shared.begin_start(key)?;
        if let Some(package) = &launch.package {
            tracing::debug!(server = %key.0, root = %key.1.display(), package = %package.label(), dir = %package.dir.display(), "runs on the project's package");
        }
        let spawn = Spawn {
            program: launch.program,
            args: launch.args,
            env: server.env.clone(),
            cwd: key.1.clone(),
        };
        let mut config = ClientConfig::new(server.spec.id.clone(), spawn, key.1.clone());
        config.initialization_options = launch.initialization_options;
        self.configure(&mut config, server);
        let started = Instant::now();
        let result = LspClient::start(config, start_timeout).await;
        self.started(key, starting, started, result)
    }

    /// Attaches the instance `key` to the server listening at `endpoint`.
    /// Nobody listening is `unavailable`, like a server not installed:
    /// it spends no restart budget, and the next file tries again.
    pub(super) async fn attach(
        &self,
        server: &ResolvedServer,
        key: &InstanceKey,
        endpoint: &Endpoint,
        start_timeout: Duration,
    ) -> Result<LspClient, Unavailable> {
        let connection = match connect(endpoint).await {
            Ok(connection) => connection,
            Err(e) => {
                let reason = format!("{} is not listening: {e}", server.spec.id);
                self.shared.not_installed(key, &reason);
                return Err(Unavailable {
                    state: ServerState::Unavailable,
                    reason,
                });
            }
        };
        let starting = self.shared.begin_start(key)?;
        let mut config = ClientConfig::attached(server.spec.id.clone(), key.1.clone());
        config.initialization_options = server.spec.initialization_options.clone();
        self.configure(&mut config, server);
        let started = Instant::now();
        let result = LspClient::attach(config, endpoint.clone(), connection, start_timeout).await;
        self.started(key, starting, started, result)
    }

    /// What every instance of `server` is answered and waited with.
    fn configure(&self, config: &mut ClientConfig, server: &ResolvedServer) {
        config.settings = server.spec.settings.clone();
        config.wait = server.spec.wait.clone();
        config.full_sync_languages = server.spec.full_sync_languages.clone();
        config.probe_timeout = self.shared.limits.probe_timeout;
    }

    /// Records how a start (or an attach) of `key` ended.
    fn started(
        &self,
        key: &InstanceKey,
        mut starting: lifecycle::Starting<'_>,
        started: Instant,
        result: Result<LspClient, crate::lsp::ClientError>,
    ) -> Result<LspClient, Unavailable> {
        match result {
            Ok(client) => {
                tracing::debug!(server = %key.0, root = %key.1.display(), ms = started.elapsed().as_millis() as u64, "server started");
                starting.succeeded(client.clone());
                self.shared.ensure_reaper();
                Ok(client)
            }
            Err(e) => {
                let reason = e.to_string();
                tracing::debug!(server = %key.0, "start failed: {reason}");
                Err(starting.failed(reason))
            }
        }
    }
}

impl lifecycle::Shared {
    /// Records that `key`'s server is not installed: `unavailable`, with
    /// the reason, until a later start finds it.
    pub(super) fn not_installed(&self, key: &InstanceKey, reason: &str) {
        if let Some(i) = lock(&self.table).instances.get_mut(key) {
            i.status = ServerState::Unavailable;
            i.detail = Some(reason.to_string());
        }
        self.changed();
    }
}

/// Why `server` cannot run when none of its commands is found: what a
/// check's outcome, `status` and `doctor` say alike (the remedy is
/// `ResolvedServer::remedy`'s).
pub fn not_installed(server: &ResolvedServer) -> String {
    let spec = &server.spec;
    let program = spec
        .commands
        .first()
        .map_or(spec.id.as_str(), |c| c.program.as_str());
    format!(
        "{program} not found on PATH, in {}; {}",
        crate::platform::paths::project_bin_dirs_shown(),
        server.remedy()
    )
}

/// How to run `server` for `root` (with the project's package, if it runs
/// on one), or why it cannot run.
pub(super) fn launch_for(
    server: &ResolvedServer,
    root: &Path,
    workspace_root: &Path,
) -> Result<Launch, Unavailable> {
    let path_var = std::env::var_os("PATH");
    launch(&server.spec, root, workspace_root, path_var.as_deref()).ok_or_else(|| Unavailable {
        state: ServerState::Unavailable,
        reason: not_installed(server),
    })
}
