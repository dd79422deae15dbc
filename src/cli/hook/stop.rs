//! The turn-end gate: when an agent is about to end a turn that left
//! errors it introduced in the files it touched, or in the files that
//! import them, the turn-end hook (Claude Code's and Codex's `Stop`, Gemini
//! CLI's `AfterAgent`, VS Code's `Stop`, Cursor's `stop`, Copilot CLI's
//! `agentStop`) keeps the turn going once, with those errors. Never twice
//! in a row (the hosts' `stop_hook_active`, Cursor's `loop_count`, and the
//! turn's record is gone once read), never for an error that was there
//! before the turn. How each host is answered is `reply::turn_end`.
//!
//! Each `PostToolUse` of the session records the text every file had
//! before the turn first touched it (`record`), beside the daemons'
//! sockets — only when the gate is on (`squiggle hook AGENT --stop-gate`,
//! which `init --stop-gate` writes; the hosts whose gate `init` always
//! wires without it), so that no file text is kept for a gate that will
//! never read it. At `Stop` the daemon checks those files against those texts
//! (`squiggle/check` with `report = "new"`, `before` the turn's first
//! texts): what it flags `new` is what the turn introduced. When it cannot
//! tell (no baseline known), the gate stays open.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::reply::MAX_CONTEXT_CHARS;
use crate::cli::warm::Route;
use crate::diagnostic::Severity;
use crate::engine::Mutation;
use crate::render::{Escape, ReportMode};
use crate::service::wire::{CheckParams, RenderOverrides};

/// At most this many files' first texts are kept for one turn (a turn
/// whose `Stop` hook never runs never reads its record: it must stay
/// small).
const MAX_TURN_FILES: usize = 64;

/// What one turn touched: each file's text before the turn first changed
/// it (`None`: the turn created it).
#[derive(Debug, Default, Serialize, Deserialize)]
struct Turn {
    before: BTreeMap<PathBuf, Option<String>>,
}

fn turn_file(payload: &Value) -> Option<PathBuf> {
    let id = payload.get("session_id").and_then(Value::as_str)?;
    super::session_files::session_file("turn", id, "json")
}

fn load(path: &Path) -> Turn {
    crate::edit::read_regular(path, crate::edit::MAX_READ_BYTES)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// Adds to the session's turn the files `before` tells of that the turn
/// has not touched yet, with their text before.
pub(super) fn record(payload: &Value, before: &BTreeMap<PathBuf, Option<String>>) {
    let Some(path) = turn_file(payload) else {
        return;
    };
    // Parallel tool calls end in parallel hooks: each reads, adds to and
    // writes the one record, so each does so holding the turn's lock.
    let _held = hold_turn(&path);
    let mut turn = load(&path);
    let mut changed = false;
    for (file, text) in before {
        if !turn.before.contains_key(file) && turn.before.len() < MAX_TURN_FILES {
            turn.before.insert(file.clone(), text.clone());
            changed = true;
        }
    }
    if !changed {
        return;
    }
    let written = serde_json::to_vec(&turn)
        .ok()
        .is_some_and(|bytes| super::session_files::write_session_file(&path, &bytes));
    if !written {
        tracing::debug!(path = %path.display(), "turn not recorded");
    }
}

/// The turn record's lock, held until the returned file is dropped: an
/// exclusive lock on `turn/ID.lock` beside the record (the record itself
/// is replaced by a rename at each write, so it cannot carry the lock).
/// `None` when the lock cannot be taken; the record is then updated
/// unlocked, as before there was a lock.
fn hold_turn(record: &Path) -> Option<std::fs::File> {
    let lock_path = record.with_extension("lock");
    let dir = lock_path.parent()?;
    crate::daemon::socket::ensure_private_dir(dir.parent().unwrap_or(dir)).ok()?;
    crate::daemon::socket::ensure_private_dir(dir).ok()?;
    let file = crate::platform::paths::private_file()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| tracing::debug!(path = %lock_path.display(), error = %e, "turn lock"))
        .ok()?;
    file.lock()
        .map_err(|e| tracing::debug!(path = %lock_path.display(), error = %e, "turn lock"))
        .ok()?;
    Some(file)
}

/// The turn-end hook: the text that keeps the turn going, or `None`. The
/// turn's files are checked as one whole-file change (`Mutation::Write`),
/// so the files importing them are checked too.
pub(super) async fn gate(
    payload: &Value,
    root: Option<&Path>,
    cwd: &Path,
    route: Route,
    escape: Option<Escape>,
) -> Option<String> {
    let path = turn_file(payload)?;
    let turn = {
        let _held = hold_turn(&path);
        let turn = load(&path);
        // The turn's record is read once: a continued turn starts a new one.
        let _ = std::fs::remove_file(&path);
        turn
    };
    if payload["stop_hook_active"] == true || turn.before.is_empty() {
        return None;
    }
    let files: Vec<PathBuf> = turn
        .before
        .keys()
        .filter(|f| f.is_file())
        .cloned()
        .collect();
    if files.is_empty() {
        return None;
    }
    let params = CheckParams {
        file_paths: files,
        mutation: Mutation::Write,
        before: turn.before,
        options: RenderOverrides {
            report: Some(ReportMode::New),
            max_chars: Some(MAX_CONTEXT_CHARS),
            escape,
            ..RenderOverrides::default()
        },
        ..CheckParams::default()
    };
    let reply = crate::cli::warm::check(root, cwd, params, route, None)
        .await
        .map_err(|e| tracing::debug!(error = %e, "stop gate: nothing checked"))
        .ok()?;
    let introduced = reply
        .diagnostics
        .iter()
        .filter(|d| d.new && d.severity == Severity::Error)
        .count();
    if !reply.baseline_known || introduced == 0 || reply.feedback.is_empty() {
        return None;
    }
    let noun = if introduced == 1 { "error" } else { "errors" };
    Some(format!(
        "Before you finish: this turn introduced {introduced} {noun} that {} still there. Fix {}, or say why {} must stay.\n\n{}",
        if introduced == 1 { "is" } else { "are" },
        if introduced == 1 { "it" } else { "them" },
        if introduced == 1 { "it" } else { "they" },
        reply.feedback
    ))
}
