//! The engine behind every way in (CLI, hooks, service, MCP): a workspace, its
//! configuration, the resolved servers and a lazy pool of running ones.
//! `check` tells every server that serves each file and waits for all
//! (file, server) pairs in parallel under one deadline; `tools` performs the
//! agent's mutation and renders the feedback.

mod before;
mod beside;
mod blocks;
mod check;
mod checkable;
mod delete;
pub mod dependents;
mod disk;
mod dry_run;
mod evidence;
mod feedback;
pub mod fixes;
mod fresh;
mod ignore;
mod in_flight;
mod known;
pub mod lookup;
mod others;
mod per_file;
pub mod plan;
pub mod pool;
mod reload;
mod report;
pub mod reported;
pub mod request;
mod result;
mod send_order;
pub mod servers;
pub mod speculative;
mod status;
pub mod status_line;
pub mod tools;
mod touched;
mod transaction;
mod warm;

use std::path::Path;
use std::sync::Arc;

pub use crate::config::Mutation;
use crate::config::{Config, ConfigError, LoadOptions, PartialConfig};
use crate::registry::builtin_servers;
use crate::workspace::Workspace;

pub use check::{FileInput, HeldOthers};
pub use ignore::AckRequest;
pub use pool::{InstanceStatus, Pool, PoolSummary, ServerState};
pub use reload::Live;
pub use report::{CheckReport, FileReport, ServerOutcome};
pub use reported::Reported;
pub use request::{Operation, Request};
pub use servers::ResolvedServer;
pub use speculative::{ChainAnswer, ChainStep, SessionAnswer};
pub use status::ServerStatus;

/// One configuration's engine. Its configuration and servers never change;
/// a long-lived host that follows its configuration files (`Live`) moves on
/// to a successor (`Engine::reconfigured`) that shares everything below
/// `pool` — running servers, file locks, history, the disk watch.
pub struct Engine {
    workspace: Workspace,
    config: Config,
    servers: Vec<ResolvedServer>,
    pool: Pool,
    /// Per-file locks: concurrent mutations of one file are serialized.
    file_locks: Arc<
        std::sync::Mutex<
            std::collections::HashMap<std::path::PathBuf, Arc<tokio::sync::Mutex<()>>>,
        >,
    >,
    /// The last checked text and diagnostics per file: the "before" of the
    /// next edit's classification.
    history: Arc<crate::baseline::History>,
    /// Changes on disk made outside squiggle, when watched (`watch_disk`).
    disk: Arc<std::sync::Mutex<Option<crate::workspace::watch::DiskWatch>>>,
    /// The importer scan's listing and file heads, kept in step with the
    /// disk by the watch (set with it when it covers the whole workspace).
    scan_cache: Arc<std::sync::OnceLock<dependents::ScanCache>>,
    /// What changed since each file's diagnostics were taken (`fresh`).
    fresh: Arc<fresh::Freshness>,
    /// The changes being checked now (background work gives way).
    changes: Arc<in_flight::InFlight>,
    /// Speculative sessions over this engine's servers (`crate::sessions`),
    /// shared with a successor as the servers are.
    sessions: Arc<crate::sessions::store::Sessions>,
    /// The evidence log (`crate::evidence`), off unless configured.
    evidence: Arc<crate::evidence::Log>,
    /// The configuration's ignore rules, compiled (`crate::hidden`).
    ignore_rules: Arc<[crate::config::ignore::CompiledRule]>,
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
        let sessions = Arc::new(crate::sessions::store::Sessions::new(config.sessions));
        let evidence = Arc::new(crate::evidence::Log::new(&config.evidence));
        Engine {
            ignore_rules: crate::hidden::compile(&config.ignore),
            sessions,
            evidence,
            workspace,
            config,
            servers,
            pool,
            file_locks: Default::default(),
            history: Default::default(),
            disk: Default::default(),
            scan_cache: Default::default(),
            fresh: Default::default(),
            changes: Default::default(),
        }
    }

    /// The engine for `config`, successor of this one: the servers whose
    /// resolved settings changed (or that were removed or disabled) are
    /// stopped, to start again with their new settings on their next use;
    /// the others keep running. Everything else carries over, unless the
    /// pool's own limits changed: then the successor starts a pool of its
    /// own and this one's servers are for the caller to stop. With it come
    /// the servers stopped (or to stop) and their running instances.
    pub(crate) fn reconfigured(&self, config: Config) -> (Engine, Vec<(String, usize)>) {
        let servers = servers::resolve(&config);
        let limits = pool::Limits::from_config(&config);
        let running = |s: &ResolvedServer| s.enabled && config.enabled;
        let changed = |old: &ResolvedServer| {
            let new = servers.iter().find(|s| s.spec.id == old.spec.id);
            !new.is_some_and(|new| new.runs_as(old) && running(new))
        };
        let own_pool = limits != self.pool.limits();
        let live = self.pool.clients();
        let mut stopped: Vec<(String, usize)> = self
            .servers
            .iter()
            .filter(|old| own_pool || changed(old))
            .map(|old| {
                let id = &old.spec.id;
                let n = live.iter().filter(|c| c.server_id() == id).count();
                (id.clone(), n)
            })
            .filter(|(_, n)| *n > 0)
            .collect();
        stopped.sort();
        let pool = if own_pool {
            Pool::new(limits)
        } else {
            for (id, _) in &stopped {
                self.pool.retire(id);
            }
            self.pool.handle()
        };
        let evidence = config.evidence.clone();
        let engine = Engine {
            ignore_rules: crate::hidden::compile(&config.ignore),
            workspace: self.workspace.clone(),
            config,
            servers,
            pool,
            file_locks: self.file_locks.clone(),
            history: self.history.clone(),
            disk: self.disk.clone(),
            scan_cache: self.scan_cache.clone(),
            fresh: self.fresh.clone(),
            changes: self.changes.clone(),
            sessions: self.sessions.clone(),
            evidence: Arc::new(crate::evidence::Log::new(&evidence)),
        };
        engine.sessions.set_limits(engine.config.sessions);
        (engine, stopped)
    }

    /// The workspace this engine serves.
    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// The configuration it was built with (user, workspace, command line).
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Every configured server, resolved (running or not).
    pub fn servers(&self) -> &[ResolvedServer] {
        &self.servers
    }

    /// The running servers.
    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    pub fn render_options(&self) -> crate::render::RenderOptions {
        crate::render::RenderOptions {
            max_per_file: self.config.max_diagnostics_per_file,
            max_other_files: self.config.max_project_diagnostics_files,
            max_lines: self.config.max_diagnostic_lines,
            include: self.config.include_severities.clone(),
            report: self.config.report,
            report_unknown: self.config.report_unknown,
            ..Default::default()
        }
    }

    /// Whether `mutation` also reports the files that import what it
    /// changed: `otherFiles` says which mutations do, and
    /// `maxProjectDiagnosticsFiles = 0` shows none.
    pub fn reports_other_files(&self, mutation: Mutation) -> bool {
        self.config.other_files.for_mutation(mutation)
            && self.config.max_project_diagnostics_files > 0
    }

    /// The speculative sessions open over this engine.
    pub fn sessions(&self) -> &crate::sessions::store::Sessions {
        &self.sessions
    }

    /// The servers' view for one query: waits while a speculative
    /// session's evaluation has them (`sessions::gate`).
    pub async fn shared_view(&self) -> crate::sessions::gate::SharedView {
        self.sessions.gate().shared().await
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

/// Whether a wrapped tool writes its change or only checks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Write the change, then check it.
    Apply,
    /// Check the change as the servers would see it and write nothing: the
    /// servers are shown the new text, then the old one again.
    DryRun,
}

/// What a change is, beside the files it touched.
pub(crate) struct Change {
    /// `Edit applied successfully.` and the like.
    pub message: String,
    pub mutation: Mutation,
    pub mode: Mode,
    /// Whether auto-fix may run after it (the wrapped tools' edits; never
    /// a fix being applied, a session's commit, or a hook's report).
    pub auto_fix: bool,
    /// Whether the evidence log records it: not a check that changes
    /// nothing (a session's opening).
    pub recorded: bool,
}

impl Change {
    /// A change auto-fix does not follow.
    pub fn of(message: String, mutation: Mutation, mode: Mode) -> Change {
        Change {
            message,
            mutation,
            mode,
            auto_fix: false,
            recorded: true,
        }
    }

    /// The same change, auto-fix following it: an agent's own edit.
    pub fn fixing(self) -> Change {
        Change {
            auto_fix: true,
            ..self
        }
    }
}
