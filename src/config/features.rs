//! The settings of the reference designs' features (issue 27), kept apart
//! from the core keys: strict mode (`strict`), speculative sessions
//! (`[lsp.sessions]`) and the evidence log (`evidence`). Each layer says
//! only what it sets (`Partial*`); [`merge`] lays one over the merged value.

use std::path::PathBuf;
use std::time::Duration;

/// Bounds on speculative sessions (`[lsp.sessions]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    /// A session untouched this long is discarded (`idleMinutes`).
    pub idle: Duration,
    /// At most this many sessions open at once (`maxOpen`).
    pub max_open: usize,
    /// At most this many bytes of edited text per session (`maxEditedMiB`).
    pub max_bytes: usize,
}

impl Default for SessionLimits {
    fn default() -> SessionLimits {
        SessionLimits {
            idle: Duration::from_secs(30 * 60),
            max_open: 8,
            max_bytes: 64 * 1024 * 1024,
        }
    }
}

/// At most this many rotated evidence logs are kept (`keep`).
pub const MAX_EVIDENCE_KEEP: usize = 100;

/// The evidence log (`evidence = true`, or an `[lsp.evidence]` table).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvidenceConfig {
    pub enabled: bool,
    /// Where the log is; `None`: the default (`evidence::default_path`).
    /// Only the user file may set it.
    pub path: Option<PathBuf>,
    /// Past this size the log is rotated (`maxMiB`).
    pub max_bytes: u64,
    /// Rotated files kept beside it (`keep`).
    pub keep: usize,
    /// Record diagnostic messages too (`messages`); never by default.
    pub messages: bool,
}

impl Default for EvidenceConfig {
    fn default() -> EvidenceConfig {
        EvidenceConfig {
            enabled: false,
            path: None,
            max_bytes: 16 * 1024 * 1024,
            keep: 3,
            messages: false,
        }
    }
}

/// What one layer says of `[lsp.sessions]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PartialSessions {
    pub idle: Option<Duration>,
    pub max_open: Option<usize>,
    pub max_bytes: Option<usize>,
}

/// What one layer says of the evidence log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PartialEvidence {
    pub enabled: Option<bool>,
    pub path: Option<PathBuf>,
    pub max_bytes: Option<u64>,
    pub keep: Option<usize>,
    pub messages: Option<bool>,
}

/// Lays one layer's feature settings over the merged ones.
pub(super) fn merge(
    config: &mut super::Config,
    strict: Option<bool>,
    sessions: PartialSessions,
    evidence: PartialEvidence,
) {
    if let Some(strict) = strict {
        config.strict = strict;
    }
    let s = &mut config.sessions;
    s.idle = sessions.idle.unwrap_or(s.idle);
    s.max_open = sessions.max_open.unwrap_or(s.max_open);
    s.max_bytes = sessions.max_bytes.unwrap_or(s.max_bytes);
    let e = &mut config.evidence;
    e.enabled = evidence.enabled.unwrap_or(e.enabled);
    if evidence.path.is_some() {
        e.path = evidence.path;
    }
    e.max_bytes = evidence.max_bytes.unwrap_or(e.max_bytes);
    e.keep = evidence.keep.unwrap_or(e.keep);
    e.messages = evidence.messages.unwrap_or(e.messages);
}
