//! The engine behind every way in (CLI, hooks, service, MCP): a workspace, its
//! configuration, the resolved servers and a lazy pool of running ones.
//! `check` tells every server that serves each file and waits for all
//! (file, server) pairs in parallel under one deadline; `tools` performs the
//! agent's mutation and renders the feedback.

mod check;
pub mod dependents;
mod disk;
mod feedback;
mod known;
pub mod lookup;
mod others;
pub mod plan;
pub mod pool;
mod report;
pub mod servers;
mod status;
pub mod tools;
mod warm;

use std::path::Path;

pub use crate::config::Mutation;
use crate::config::{Config, ConfigError, LoadOptions, PartialConfig};
use crate::registry::builtin_servers;
use crate::workspace::Workspace;

pub use check::{FileInput, HeldOthers};
pub use pool::{InstanceStatus, Pool, PoolSummary, ServerState};
pub use report::{CheckReport, FileReport, ServerOutcome};
pub use servers::ResolvedServer;
pub use status::ServerStatus;

pub struct Engine {
    pub workspace: Workspace,
    pub config: Config,
    pub servers: Vec<ResolvedServer>,
    pub pool: Pool,
    /// Per-file locks: concurrent mutations of one file are serialized.
    file_locks: std::sync::Mutex<
        std::collections::HashMap<std::path::PathBuf, std::sync::Arc<tokio::sync::Mutex<()>>>,
    >,
    /// The last checked text and diagnostics per file: the "before" of the
    /// next edit's classification.
    history: std::sync::Mutex<std::collections::HashMap<std::path::PathBuf, tools::Snapshot>>,
    /// Changes on disk made outside squiggle, when watched (`watch_disk`).
    disk: std::sync::Mutex<Option<crate::workspace::watch::DiskWatch>>,
    /// The importer scan's listing and file heads, kept in step with the
    /// disk by the watch (set with it when it covers the whole workspace).
    scan_cache: std::sync::OnceLock<dependents::ScanCache>,
}

/// How to build an engine from the command line or a service call.
#[derive(Debug, Clone, Default)]
pub struct EngineOptions {
    pub root: Option<std::path::PathBuf>,
    pub trust_workspace: bool,
    pub user_config: Option<std::path::PathBuf>,
    pub cli: PartialConfig,
}

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("cannot use {} as the workspace: {source}", path.display())]
    Workspace {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Config(#[from] ConfigError),
}

impl Engine {
    pub fn new(opts: &EngineOptions, cwd: &Path) -> Result<Engine, EngineError> {
        let workspace = Workspace::discover(opts.root.as_deref(), cwd).map_err(|source| {
            EngineError::Workspace {
                path: opts.root.clone().unwrap_or_else(|| cwd.to_path_buf()),
                source,
            }
        })?;
        let config = crate::config::load(&LoadOptions {
            workspace_root: workspace.root().to_path_buf(),
            user_config: opts.user_config.clone(),
            trust_workspace: opts.trust_workspace,
            known_server_ids: builtin_servers().into_iter().map(|s| s.id).collect(),
            cli: opts.cli.clone(),
        })?;
        Ok(Engine::with(workspace, config))
    }

    pub fn with(workspace: Workspace, config: Config) -> Engine {
        let servers = servers::resolve(&config);
        let pool = Pool::new(pool::Limits::from_config(&config));
        Engine {
            workspace,
            config,
            servers,
            pool,
            file_locks: Default::default(),
            history: Default::default(),
            disk: Default::default(),
            scan_cache: Default::default(),
        }
    }

    pub fn render_options(&self) -> crate::render::RenderOptions {
        crate::render::RenderOptions {
            max_per_file: self.config.max_diagnostics_per_file,
            max_other_files: self.config.max_project_diagnostics_files,
            max_lines: self.config.max_diagnostic_lines,
            include: self.config.include_severities.clone(),
            report: match self.config.report {
                crate::config::Report::All => crate::render::ReportMode::All,
                crate::config::Report::New => crate::render::ReportMode::New,
            },
            report_unknown: self.config.report_unknown,
        }
    }

    /// Whether `mutation` also reports the files that import what it
    /// changed: `otherFiles` says which mutations do, and
    /// `maxProjectDiagnosticsFiles = 0` shows none.
    pub fn reports_other_files(&self, mutation: Mutation) -> bool {
        self.config.other_files.for_mutation(mutation)
            && self.config.max_project_diagnostics_files > 0
    }

    pub async fn shutdown(&self) {
        self.pool.shutdown().await;
    }

    /// Kills every server at once (on SIGTERM); servers still starting are
    /// killed when their futures are dropped.
    pub fn kill_servers(&self) {
        self.pool.kill_all();
    }
}
