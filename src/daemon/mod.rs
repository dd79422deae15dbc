//! The per-workspace daemon: one long-lived `squiggle` process per workspace
//! (and trust setting) that keeps language servers warm between the short
//! processes hooks and `squiggle check` run. It serves the service protocol
//! (`docs/protocol.md`) on a Unix socket only its user can reach, starts on
//! demand ([`client::connect_or_spawn`]) and exits after `daemonIdleMinutes`
//! without requests. Callers treat any daemon error as "check in-process".

pub mod client;
pub mod server;
pub mod socket;

use std::path::PathBuf;

use crate::jsonrpc::message::ResponseError;

#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
    #[error(
        "{} is not private (owner uid {uid}, mode {mode:o}); remove it and squiggle recreates it with mode 700",
        dir.display()
    )]
    UnsafeDir { dir: PathBuf, uid: u32, mode: u32 },
    #[error("cannot use {} as the workspace: {source}", root.display())]
    Workspace {
        root: PathBuf,
        source: std::io::Error,
    },
    #[error("no daemon for {}", .0.display())]
    NotRunning(PathBuf),
    #[error("the daemon for {} did not start; see {}", root.display(), log.display())]
    DidNotStart { root: PathBuf, log: PathBuf },
    #[error("the daemon closed the connection")]
    Closed,
    #[error("the daemon did not answer {0} in time")]
    Timeout(String),
    #[error("the daemon refused {method}: {} ({})", .error.message, .error.code)]
    Rpc {
        method: String,
        error: ResponseError,
    },
    #[error("the daemon's answer to {method} has an unexpected shape: {reason}")]
    BadReply { method: String, reason: String },
    #[error("cannot send {method} to the daemon: {reason}")]
    BadRequest { method: String, reason: String },
    #[error(transparent)]
    Engine(#[from] crate::engine::EngineError),
}

impl DaemonError {
    pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> DaemonError {
        let what = what.into();
        move |source| DaemonError::Io { what, source }
    }
}

/// What `squiggle/daemonStatus` returns.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DaemonStatus {
    pub pid: u32,
    pub uptime_secs: u64,
    pub workspace: PathBuf,
    pub trusted: bool,
    pub servers: Vec<crate::service::ServerStatus>,
    /// Requests received since start (this one included).
    pub requests: u64,
    /// Requests being answered now (this one included).
    pub in_flight: u64,
    pub idle_timeout_ms: u64,
    /// The daemon's own resident memory, KiB (servers not included).
    #[serde(default)]
    pub rss_kb: u64,
    /// Live instances against the cap, over-cap moments, stops by reason,
    /// the servers' total memory.
    #[serde(default)]
    pub pool: crate::engine::PoolSummary,
}

/// The daemon's own methods, beside the service's.
pub mod method {
    use crate::service::wire::{Method, NoParams};

    /// The daemon's process, counters and every server's status.
    pub enum DaemonStatus {}

    impl Method for DaemonStatus {
        const NAME: &'static str = "squiggle/daemonStatus";
        type Params = NoParams;
        type Answer = super::DaemonStatus;
    }

    /// Answers `null`, then the daemon exits as on idle.
    pub enum DaemonShutdown {}

    impl Method for DaemonShutdown {
        const NAME: &'static str = "squiggle/daemonShutdown";
        type Params = NoParams;
        type Answer = ();
    }
}
