//! The evidence log (`[lsp] evidence = true`, or an `[lsp.evidence]`
//! table): an append-only JSONL trail of every mutation and every check
//! after one, on every surface — who asked ([`origin`]), the files with
//! their sha256 before and after, the servers asked with their version and
//! outcome, the errors before and after, the verdict — and a
//! `diagnostic_regression` record whenever new errors appear. It is
//! evidence for a reviewer, not a control: writing it never blocks or
//! fails an edit (a failure is logged once and the edit goes on). File
//! contents are never written; diagnostic messages only with
//! `messages = true`. `squiggle audit` reads it back ([`audit`]).

pub mod audit;
pub mod clock;
pub mod file;
pub mod origin;
pub mod record;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

pub use origin::{Origin, Surface};
pub use record::Record;

use crate::config::EvidenceConfig;

/// `$XDG_STATE_HOME/squiggle/evidence.jsonl`, else
/// `~/.local/state/squiggle/evidence.jsonl`, else (Windows without `HOME`)
/// `%LOCALAPPDATA%\squiggle\evidence.jsonl`.
pub fn default_path() -> Option<PathBuf> {
    let non_empty = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let state = non_empty("XDG_STATE_HOME")
        .map(PathBuf::from)
        .or_else(|| non_empty("HOME").map(|h| PathBuf::from(h).join(".local/state")))
        .or_else(|| non_empty("LOCALAPPDATA").map(PathBuf::from))?;
    Some(state.join("squiggle").join("evidence.jsonl"))
}

/// Where the configuration puts the log: its `path`, else the default.
pub fn path_for(config: &EvidenceConfig) -> Option<PathBuf> {
    config.path.clone().or_else(default_path)
}

/// Appends `records` to the log `config` describes, when it is on: for a
/// process that writes a record now and then (a hook's delivery verdicts)
/// and keeps no engine. Never fails, as [`Log::write`].
pub fn append(config: &EvidenceConfig, records: &[Record]) {
    let log = Log::new(config);
    if log.enabled() {
        log.write(records);
    }
}

/// An engine's evidence log: off, or where it writes and how.
pub struct Log {
    config: EvidenceConfig,
    path: Option<PathBuf>,
    /// A failed write is reported once, not at every edit.
    failed: AtomicBool,
}

impl Log {
    pub fn new(config: &EvidenceConfig) -> Log {
        let path = if config.enabled {
            path_for(config)
        } else {
            None
        };
        if config.enabled && path.is_none() {
            tracing::warn!(
                "evidence log enabled but no place for it: set [lsp.evidence] path, XDG_STATE_HOME or HOME"
            );
        }
        Log {
            config: config.clone(),
            path,
            failed: AtomicBool::new(false),
        }
    }

    /// Whether records are written.
    pub fn enabled(&self) -> bool {
        self.path.is_some()
    }

    /// Whether diagnostic messages go into the records.
    pub fn messages(&self) -> bool {
        self.config.messages
    }

    /// Appends `records`, each one line. Never fails: a write that fails
    /// is logged (once) and dropped.
    pub fn write(&self, records: &[Record]) {
        let Some(path) = &self.path else {
            return;
        };
        for record in records {
            let Ok(line) = serde_json::to_string(record) else {
                continue;
            };
            let written = file::append(path, &line, self.config.max_bytes, self.config.keep);
            if let Err(e) = written
                && !self.failed.swap(true, Ordering::Relaxed)
            {
                // At the default level, so that it reaches stderr (and the
                // daemon's log) once: the record is lost, the edit is not.
                tracing::error!(path = %path.display(), "cannot write the evidence log: {e}; this record is lost and the edit goes on");
            }
        }
    }
}
