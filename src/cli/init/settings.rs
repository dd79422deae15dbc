//! The settings file `init` changes: where it is (the user's or the
//! project's), its text and JSON as read, and the new text written with what
//! was done said.

use std::path::{Path, PathBuf};

use super::groups::STOP_GATE_FLAG;
use super::ordered::Json;
use super::{Args, HookEvent, Target, command, describe_events, turn_end_event};
use crate::cli::hook::Agent;
use crate::edit::write_atomic;
use crate::platform::paths::join_slashed;
use crate::workspace::Workspace;

/// The settings file to change: the user's (`--user`) or the project's.
pub(super) fn settings_path(args: &Args, target: &Target) -> Result<PathBuf, String> {
    if args.user {
        return (target.user_file)()
            .ok_or_else(|| "your home directory is unknown (HOME is not set; USERPROFILE on Windows); pass --project or set it".to_string());
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    match Workspace::discover(args.root.as_deref(), &cwd) {
        // Each part joined on its own: Codex keys its trust by this path as
        // the platform spells it (`C:\\p\\.codex\\hooks.json`).
        Ok(ws) => Ok(join_slashed(ws.root(), target.project_file)),
        Err(e) => Err(format!("cannot use the project directory: {e}")),
    }
}

/// The settings file's text (`None` when there is none) and its JSON (an
/// empty object for a missing or blank file).
pub(super) fn read_settings(path: &Path) -> Result<(Option<String>, Json), String> {
    let existing = match std::fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let settings = match existing.as_deref() {
        Some(text) if !text.trim().is_empty() => {
            serde_json::from_str::<Json>(text).map_err(|e| {
                format!(
                    "{} is not valid JSON ({e}); fix it and run again; it was not changed",
                    path.display()
                )
            })?
        }
        _ => Json::Object(Vec::new()),
    };
    Ok((existing, settings))
}

/// Writes the settings' new `content` (`None`: they did not change), and
/// says what was done: the events `added` (the others were there), and
/// those `mended`, whose hook got `--stop-gate`.
pub(super) fn write_settings(
    args: &Args,
    agent: Agent,
    path: &Path,
    content: Option<(&str, &[HookEvent], &[HookEvent])>,
) -> Result<(), String> {
    let Some((content, added, mended)) = content else {
        crate::outln!(
            "{} already runs `{}`; nothing changed",
            path.display(),
            command(agent)
        );
        return Ok(());
    };
    write_atomic(path, content.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let batch = if args.batch {
        "; PostToolBatch reports once per model turn"
    } else {
        ""
    };
    // With the gate, the after-tool hook carries the flag.
    let gated = added.iter().any(|(e, _)| *e == turn_end_event(agent));
    let flag = if gated {
        format!(
            "; the after-tool hook runs it with `{STOP_GATE_FLAG}`, keeping what the turn touched for the gate"
        )
    } else {
        String::new()
    };
    if !added.is_empty() {
        crate::outln!(
            "added `{}` to {} for {}{batch}{flag}",
            command(agent),
            path.display(),
            describe_events(added)
        );
    }
    if !mended.is_empty() {
        crate::outln!(
            "gave the `{}` hook for {} in {} `{STOP_GATE_FLAG}`: the turn-end gate ({}) reads the turn's edits from it",
            command(agent),
            describe_events(mended),
            path.display(),
            turn_end_event(agent)
        );
    }
    Ok(())
}
