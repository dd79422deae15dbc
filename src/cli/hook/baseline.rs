//! `report = "new"` for hooks: each hook is a fresh process, so it keeps
//! what it last saw of a file (its text and every diagnostic) next to the
//! daemon's socket, and classifies the next check of that file against it
//! (`crate::classify`: old errors moved by inserted lines stay old). Only
//! the edit's own diagnostics are shown, plus the renderer's "(N errors from
//! before this edit are not shown)". The first check of a file the hook has
//! not seen takes its baseline from git instead (`prime`): the file as the
//! index has it (else `HEAD`), checked once as text, so that "new" means new
//! since the session began from its first edit on. A file git does not
//! track has no baseline: everything in it is new.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use std::sync::Arc;

use crate::classify::classify;
use crate::cli::warm::{Route, check_text};
use crate::daemon::socket::{ensure_private_dir, socket_dir};
use crate::diagnostic::Diagnostic;
use crate::engine::Engine;
use crate::render::{FileDiagnostics, ReportMode};
use crate::workspace::PathClass;

/// What a hook last saw of one file.
#[derive(Serialize, Deserialize)]
struct Seen {
    text: String,
    diagnostics: Vec<Diagnostic>,
}

/// The state file for `file` (absolute) of workspace `root`.
fn state_path(root: &Path, file: &Path) -> PathBuf {
    let key = format!("{}\0{}", root.display(), file.display());
    let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    socket_dir(None)
        .join("seen")
        .join(format!("{hash:016x}.json"))
}

/// With `ReportMode::New`, leaves out of each block the diagnostics that
/// were there at the hook's last look at that file, counting them in
/// `baseline_hidden`; in every mode records what was seen now. Blocks name
/// files relative to `root`.
pub fn apply(
    mut blocks: Vec<FileDiagnostics>,
    root: &Path,
    mode: ReportMode,
) -> Vec<FileDiagnostics> {
    for block in &mut blocks {
        let file = root.join(&block.file);
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let path = state_path(root, &file);
        let before: Option<Seen> = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok());
        let now = Seen {
            text,
            diagnostics: block.diagnostics.clone(),
        };
        if mode == ReportMode::New
            && let Some(before) = before
        {
            let delta = classify(
                &before.diagnostics,
                &before.text,
                &block.diagnostics,
                &now.text,
                true,
            );
            block.baseline_hidden = delta.baseline.len();
            block.diagnostics = delta
                .introduced
                .iter()
                .filter_map(|&i| block.diagnostics.get(i).cloned())
                .collect();
        }
        save(&path, &now);
    }
    blocks
}

fn save(path: &Path, seen: &Seen) {
    let Some(dir) = path.parent() else {
        return;
    };
    if ensure_private_dir(dir.parent().unwrap_or(dir)).is_err() || ensure_private_dir(dir).is_err()
    {
        return;
    }
    if let Ok(text) = serde_json::to_string(seen) {
        let _ = crate::edit::write_atomic(path, text.as_bytes());
    }
}

/// For each of `files` the hook has never seen, records git's version of it
/// and that version's diagnostics as what was seen before, so that
/// [`apply`] hides what was already wrong there.
pub async fn prime(engine: &Arc<Engine>, files: &[PathBuf], route: Route) {
    let root = engine.workspace.root();
    for file in files {
        let PathClass::Inside {
            canonical,
            relative,
        } = engine.workspace.classify(file)
        else {
            continue;
        };
        let path = state_path(root, &root.join(&relative));
        if path.exists() {
            continue;
        }
        let Some(text) = git_text(root, &relative) else {
            continue;
        };
        let diagnostics = check_text(engine, &canonical, &text, route).await;
        tracing::debug!(file = %relative, count = diagnostics.len(), "baseline from git");
        save(&path, &Seen { text, diagnostics });
    }
}

/// `relative`'s text in git's index, else at `HEAD`; `None` when git does
/// not track it (or there is no git).
fn git_text(root: &Path, relative: &str) -> Option<String> {
    [format!(":{relative}"), format!("HEAD:{relative}")]
        .iter()
        .find_map(|object| {
            let out = std::process::Command::new("git")
                .arg("-C")
                .arg(root)
                .args(["show", object])
                .stdin(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .output()
                .ok()?;
            if !out.status.success() {
                return None;
            }
            String::from_utf8(out.stdout).ok()
        })
}
