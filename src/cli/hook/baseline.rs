//! `report = "new"` for hooks: each hook is a fresh process, so it keeps
//! what it last saw of a file (its text and every diagnostic) next to the
//! daemon's socket, and classifies the next check of that file against it
//! (`crate::classify`: old errors moved by inserted lines stay old). Only
//! the edit's own diagnostics are shown, plus the renderer's "(N errors from
//! before this edit are not shown)". The first check of a file squiggle has
//! not seen before shows everything, as on a first edit through the
//! wrapped tools.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::classify::classify;
use crate::daemon::socket::{ensure_private_dir, socket_dir};
use crate::diagnostic::Diagnostic;
use crate::render::{FileDiagnostics, ReportMode};

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
