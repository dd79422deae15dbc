//! The user's own settings: where they live, what they may say, and which file
//! wins.
//!
//! squiggle reads at most two files — the user's
//! `$XDG_CONFIG_HOME/squiggle/config.toml` and the workspace's
//! `.squiggle.toml` — plus overrides from the command line, and merges them key
//! by key over built-in defaults (command line > workspace > user > defaults).
//! Reading is strict: an unknown key, a wrong type or a server id nobody
//! defined is an error that names the file and the key, because a typo that
//! is silently ignored costs more than one that stops the run.
//!
//! A workspace file travels with a repository, so it is not fully trusted: it
//! may tune and disable anything, but the program a server runs (`command`,
//! `args`, `env`) is taken from it only when the user trusts that workspace.
//! See `docs/configuration.md`.
//!
//! These types are self-contained; merging with the built-in server registry
//! happens in the caller.

pub mod features;
pub mod ignore;
mod load;
mod schema;
mod trust;

use crate::render::ReportMode;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

pub use crate::diagnostic::Severity;
pub use features::{AutoFixConfig, EvidenceConfig, FixRule, MAX_EVIDENCE_KEEP, SessionLimits};
pub use ignore::IgnoreRule;
pub use load::{WORKSPACE_FILE, deep_merge, load, user_config_path, user_config_path_from};
pub use schema::{FileKind, parse_str};

/// The merged configuration a session runs with.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// `false` when some layer said `lsp = false`: squiggle does nothing.
    pub enabled: bool,
    /// How long one check waits for diagnostics of an already-running server.
    pub diagnostic_timeout: Duration,
    /// How long the first check waits while a server starts and indexes.
    pub first_touch_timeout: Duration,
    pub max_diagnostics_per_file: usize,
    /// How many other files with diagnostics a write may report.
    pub max_project_diagnostics_files: usize,
    /// Cap on the diagnostic entries shown in all, across every block of one
    /// rendering (not per block).
    pub max_diagnostic_lines: usize,
    /// Severities shown; sorted, no duplicates.
    pub include_severities: Vec<Severity>,
    pub navigation_tools: bool,
    pub write_tools: bool,
    /// Start built-in servers found on `PATH` without listing them.
    pub auto_detect: bool,
    pub report: ReportMode,
    /// Which mutations also report the errors they cause in other files.
    pub other_files: OtherFiles,
    /// Say in one line which servers had not finished (or had stopped) when
    /// the answer was given, instead of staying silent about it.
    pub report_unknown: bool,
    /// At most this many errors of a reply are given the fix their server
    /// offers, on a line under each (zero: none asked for).
    pub fix_lines: usize,
    /// How long a reply whose diagnostics are ready waits for the fix
    /// lookups still running; those not done by then are left out of it
    /// (zero: only those done already).
    pub fix_wait: Duration,
    /// How long an idle daemon keeps its servers warm before exiting.
    pub daemon_idle: Duration,
    /// At most this many live instances of one server (one per project
    /// root); the least recently used idle one is stopped to make room.
    pub max_instances_per_server: usize,
    /// An instance unused this long is stopped (zero: never).
    pub server_idle: Duration,
    /// A document no check or edit touched for this long is closed in its
    /// server (zero: never).
    pub document_idle: Duration,
    /// Per-server overrides by id, merged across layers.
    pub servers: BTreeMap<String, ServerOverride>,
    /// The files that were read, lowest precedence first.
    pub sources: Vec<PathBuf>,
    /// Only servers named under `servers` start. Set from `strict = true`
    /// when squiggle runs non-interactively (`docs/configuration.md`).
    pub strict: bool,
    /// Bounds on speculative sessions.
    pub sessions: SessionLimits,
    /// The evidence log.
    pub evidence: EvidenceConfig,
    /// Which quick fixes are applied unasked after an edit (none by default).
    pub auto_fix: AutoFixConfig,
    /// Which diagnostics are hidden (`ignore`): every layer's rules, user
    /// first, those under a server's table bound to it.
    pub ignore: Vec<IgnoreRule>,
}

impl Default for Config {
    fn default() -> Config {
        // The caps are the renderer's defaults, stated there once.
        let render = crate::render::RenderOptions::default();
        Config {
            enabled: true,
            diagnostic_timeout: Duration::from_millis(3000),
            first_touch_timeout: Duration::from_millis(10_000),
            max_diagnostics_per_file: render.max_per_file,
            max_project_diagnostics_files: render.max_other_files,
            max_diagnostic_lines: render.max_lines,
            include_severities: vec![Severity::Error],
            navigation_tools: true,
            write_tools: true,
            auto_detect: true,
            report: ReportMode::All,
            other_files: OtherFiles::Write,
            report_unknown: true,
            fix_lines: 3,
            fix_wait: Duration::from_millis(10),
            daemon_idle: Duration::from_secs(30 * 60),
            max_instances_per_server: 8,
            server_idle: Duration::from_secs(10 * 60),
            document_idle: Duration::from_secs(5 * 60),
            servers: BTreeMap::new(),
            sources: Vec::new(),
            strict: false,
            sessions: SessionLimits::default(),
            evidence: EvidenceConfig::default(),
            auto_fix: AutoFixConfig::default(),
            ignore: Vec::new(),
        }
    }
}

/// Which mutations look at the files that import what they changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OtherFiles {
    /// Only `write` (the spec's contract): a file written whole is the one
    /// most likely to change what others import.
    Write,
    /// Every mutation: `edit`, `apply-patch` and the agent hooks too.
    All,
    /// None: only the touched files are reported.
    None,
}

/// The kind of mutation a check follows: what `otherFiles` decides on. On
/// the wire (`squiggle/check`'s `mutation`) `"edit"` or `"write"`.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Mutation {
    /// A file written whole: `write`, or an agent's Write tool.
    Write,
    /// Any other change: `edit`, `apply-patch`, an agent's edit tools.
    #[default]
    Edit,
}

impl Mutation {
    pub fn is_edit(&self) -> bool {
        *self == Mutation::Edit
    }
}

impl OtherFiles {
    /// Whether `mutation` reports other files.
    pub fn for_mutation(self, mutation: Mutation) -> bool {
        match self {
            OtherFiles::Write => mutation == Mutation::Write,
            OtherFiles::All => true,
            OtherFiles::None => false,
        }
    }
}

/// What the configuration says about one server. Every field is optional: an
/// absent field keeps the built-in value (or, for a custom server, has none).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ServerOverride {
    pub enabled: Option<bool>,
    pub command: Option<String>,
    /// Attach to a server that already runs there instead of starting
    /// `command` (never both in one file; a later layer's one wins).
    pub connect: Option<crate::platform::endpoint::Endpoint>,
    pub args: Option<Vec<String>>,
    /// File extensions with the leading dot (`.py`).
    pub extensions: Option<Vec<String>>,
    pub language_id: Option<String>,
    pub env: Option<BTreeMap<String, String>>,
    pub root_markers: Option<Vec<String>>,
    pub initialization_options: Option<serde_json::Value>,
    pub settings: Option<serde_json::Value>,
    pub settle_ms: Option<u64>,
    /// Unversioned publishes arriving this soon after a change are the
    /// previous round's (`registry::ServerSpec::stale_window_ms`).
    pub stale_window_ms: Option<u64>,
    /// An unversioned server silent this long after a change keeps its
    /// earlier publish (`lsp::WaitProfile::unchanged_quiet`).
    pub unchanged_quiet_ms: Option<u64>,
    /// Other open files are current once the server published nothing for
    /// this long (`lsp::WaitProfile::others_quiet`).
    pub others_quiet_ms: Option<u64>,
    /// Whether the server may run as configured. `Untrusted` means an
    /// untrusted workspace file asked for a `command`, `connect`, `args` or `env` that
    /// was dropped; the caller shows the server as `untrusted` rather than
    /// running a program the user never chose.
    pub trust: Trust,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Trust {
    #[default]
    Trusted,
    Untrusted {
        /// Says which file asked and how to trust it; ready to show as is.
        reason: String,
    },
}

/// One layer of configuration as read from one file (or built by the command
/// line): only what it says, nothing defaulted.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PartialConfig {
    pub enabled: Option<bool>,
    pub diagnostic_timeout: Option<Duration>,
    pub first_touch_timeout: Option<Duration>,
    pub max_diagnostics_per_file: Option<usize>,
    pub max_project_diagnostics_files: Option<usize>,
    pub max_diagnostic_lines: Option<usize>,
    pub include_severities: Option<Vec<Severity>>,
    pub navigation_tools: Option<bool>,
    pub write_tools: Option<bool>,
    pub auto_detect: Option<bool>,
    pub report: Option<ReportMode>,
    pub other_files: Option<OtherFiles>,
    pub report_unknown: Option<bool>,
    pub fix_lines: Option<usize>,
    pub fix_wait: Option<Duration>,
    pub daemon_idle: Option<Duration>,
    pub max_instances_per_server: Option<usize>,
    pub server_idle: Option<Duration>,
    pub document_idle: Option<Duration>,
    /// Absolute paths as written; only ever set from the user file.
    pub trusted_workspaces: Vec<PathBuf>,
    pub servers: BTreeMap<String, ServerOverride>,
    pub strict: Option<bool>,
    pub sessions: features::PartialSessions,
    pub evidence: features::PartialEvidence,
    pub auto_fix: features::PartialAutoFix,
    /// The file's ignore rules, `[lsp]`'s then each server's.
    pub ignore: Vec<IgnoreRule>,
}

/// What [`load`] needs to know.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// Where `.squiggle.toml` is looked for; also the path `trustedWorkspaces`
    /// entries are compared with.
    pub workspace_root: PathBuf,
    /// The user file; `None` discovers it from `XDG_CONFIG_HOME` or `HOME`.
    /// A path that does not exist counts as an empty file.
    pub user_config: Option<PathBuf>,
    /// `--trust-workspace`: honour `command`, `args` and `env` from the
    /// workspace file for this run.
    pub trust_workspace: bool,
    /// Built-in server ids; an entry for any other id must define `command`.
    pub known_server_ids: Vec<String>,
    /// Overrides from the command line, the highest layer. Always trusted.
    pub cli: PartialConfig,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}:{line}:{column}: invalid TOML: {message}", path.display())]
    Syntax {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    /// `key` is the dotted path from the top of the file
    /// (`lsp.servers.pyright.settleMs`).
    #[error("{}: {key}: {message}", path.display())]
    Invalid {
        path: PathBuf,
        key: String,
        message: String,
    },
}
