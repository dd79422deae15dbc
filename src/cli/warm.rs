//! A check that uses the warm per-workspace daemon when it can: cold
//! language servers cost seconds (typescript-language-server about five),
//! and a hook is a fresh process per edit. If the daemon cannot be reached,
//! or dies mid-request, the check runs in this process instead — slower,
//! still correct. `--no-daemon` or `SQUIGGLE_NO_DAEMON=1` force in-process.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::daemon::DaemonError;
use crate::daemon::client::{CHECK_TIMEOUT, Options};
use crate::engine::tools::ToolResult;
use crate::engine::{Engine, EngineOptions};
use crate::service::wire::CheckParams;
use crate::service::wire::method::Check;
use crate::workspace::Workspace;

/// Which process checks: the daemon (which one), or this one.
#[derive(Debug, Clone, Copy, Default)]
pub struct Route {
    /// Check in this process (`--no-daemon`; `SQUIGGLE_NO_DAEMON=1` too).
    pub no_daemon: bool,
    /// Through the daemon that honours the workspace configuration's
    /// `command`/`args`/`env` (`--trust-workspace`).
    pub trust_workspace: bool,
}

impl Route {
    /// Whether this process checks: `--no-daemon`, or the environment
    /// forbids the daemon.
    pub fn in_process(self) -> bool {
        self.no_daemon
            || std::env::var_os("SQUIGGLE_NO_DAEMON").is_some_and(|v| !v.is_empty() && v != "0")
    }

    /// How to reach the daemon this route names.
    pub fn daemon_options(self) -> Options {
        Options {
            trust_workspace: self.trust_workspace,
            ..Default::default()
        }
    }
}

/// `squiggle/check` with `params`, answered by the workspace's daemon
/// (started when needed) — or, when it cannot be reached or dies mid-call,
/// by the same method in this process: `engine`, else one built here for
/// `root` (default: the git top-level of `cwd`), its servers shut down
/// after. `Err` only when neither could check (a broken configuration).
pub async fn check(
    root: Option<&Path>,
    cwd: &Path,
    params: CheckParams,
    route: Route,
    engine: Option<&Arc<Engine>>,
) -> Result<ToolResult, String> {
    if !route.in_process() {
        match through_daemon(root, cwd, &params, route, engine).await {
            Ok(reply) => return Ok(reply),
            Err(e) => tracing::debug!("daemon unavailable ({e}); checking in this process"),
        }
    }
    let engine = match engine {
        Some(engine) => engine.clone(),
        None => {
            let opts = EngineOptions {
                root: root.map(Path::to_path_buf),
                trust_workspace: route.trust_workspace,
                ..Default::default()
            };
            Arc::new(Engine::new(&opts, cwd).map_err(|e| e.to_string())?)
        }
    };
    let reply = crate::service::change(&engine, params).await;
    engine.shutdown().await;
    reply.map_err(|e| e.message().to_string())
}

/// The daemon's answer for the workspace of `engine`, else of `root`/`cwd`.
async fn through_daemon(
    root: Option<&Path>,
    cwd: &Path,
    params: &CheckParams,
    route: Route,
    engine: Option<&Arc<Engine>>,
) -> Result<ToolResult, DaemonError> {
    let workspace = match engine {
        Some(engine) => engine.workspace().root().to_path_buf(),
        None => workspace_root(root, cwd)?,
    };
    if engine.is_none() {
        config_loads(&workspace, route)?;
    }
    let opts = route.daemon_options();
    let mut connection = crate::daemon::client::try_connect_or_spawn(&workspace, &opts).await?;
    connection.call::<Check>(params, CHECK_TIMEOUT).await
}

/// The workspace root the daemon serves for `root` (default: the git
/// top-level of `cwd`), found without building an engine.
pub fn workspace_root(root: Option<&Path>, cwd: &Path) -> Result<PathBuf, DaemonError> {
    let workspace = Workspace::discover(root, cwd).map_err(|source| DaemonError::Workspace {
        root: root.unwrap_or(cwd).to_path_buf(),
        source,
    })?;
    Ok(workspace.root().to_path_buf())
}

/// Refuses the daemon when the configuration no longer loads: the daemon
/// keeps answering under its last good configuration, but a hook must say
/// the file is broken, as `edit` does. The check in this process that
/// follows then fails naming the file, and the hook says it in one line.
fn config_loads(workspace: &Path, route: Route) -> Result<(), DaemonError> {
    let load = crate::config::LoadOptions {
        workspace_root: workspace.to_path_buf(),
        user_config: None,
        trust_workspace: route.trust_workspace,
        known_server_ids: crate::registry::builtin_servers()
            .into_iter()
            .map(|s| s.id)
            .collect(),
        cli: Default::default(),
    };
    crate::config::load(&load)
        .map(|_| ())
        .map_err(|e| DaemonError::Workspace {
            root: workspace.to_path_buf(),
            source: std::io::Error::other(e.to_string()),
        })
}
