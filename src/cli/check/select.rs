//! Which files a check covers. Directories are walked the way git sees the
//! tree (`.gitignore`, `.ignore`, the global excludes; hidden files are
//! included but `.git` is not), files under the workspace's ignored
//! directories (`node_modules`, …) are skipped, and only files some enabled
//! server serves are kept, so `squiggle check .` never asks about a PNG.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::engine::Engine;
use crate::engine::servers::serving;
use crate::workspace::PathClass;

/// Workspace-relative (`/`-separated) paths of the checkable files under
/// `paths` (relative to `cwd`), sorted. An explicit file is kept even when
/// `.gitignore` names it.
pub fn walk(engine: &Engine, cwd: &Path, paths: &[PathBuf]) -> Result<Vec<String>, String> {
    let mut selected = BTreeSet::new();
    let mut dirs = Vec::new();
    for path in paths {
        let absolute = cwd.join(path);
        let metadata = std::fs::metadata(&absolute)
            .map_err(|e| format!("cannot check {}: {e}", path.display()))?;
        if let PathClass::Outside { canonical } = engine.workspace().classify(&absolute) {
            return Err(format!(
                "{} is outside the workspace {}; pass --root to check another workspace",
                canonical.display(),
                engine.workspace().root().display()
            ));
        }
        if metadata.is_dir() {
            dirs.push(absolute);
        } else if let Some(relative) = checkable(engine, &absolute) {
            selected.insert(relative);
        }
    }
    let Some((first, rest)) = dirs.split_first() else {
        return Ok(selected.into_iter().collect());
    };
    let mut walker = ignore::WalkBuilder::new(first);
    for dir in rest {
        walker.add(dir);
    }
    walker
        .hidden(false)
        .require_git(false)
        .filter_entry(|entry| entry.file_name() != ".git");
    for entry in walker.build() {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                tracing::debug!("walk: {e}");
                continue;
            }
        };
        if entry.file_type().is_some_and(|t| t.is_file())
            && let Some(relative) = checkable(engine, entry.path())
        {
            selected.insert(relative);
        }
    }
    Ok(selected.into_iter().collect())
}

/// Keeps, of the changed files git listed, those some server serves.
pub fn served(engine: &Engine, changed: Vec<String>) -> Vec<String> {
    let root = engine.workspace().root().to_path_buf();
    let mut kept: Vec<String> = changed
        .into_iter()
        .filter(|relative| checkable(engine, &root.join(relative)).is_some())
        .collect();
    kept.sort();
    kept.dedup();
    kept
}

/// The workspace-relative path of `path` when it is inside the workspace,
/// not under an ignored directory, and served by at least one server.
fn checkable(engine: &Engine, path: &Path) -> Option<String> {
    let PathClass::Inside {
        canonical,
        relative,
    } = engine.workspace().classify(path)
    else {
        return None;
    };
    (!serving(&canonical, engine.servers()).is_empty()).then_some(relative)
}

/// The absolute path the engine should read for a workspace-relative one.
pub fn absolute(engine: &Engine, relative: &str) -> PathBuf {
    engine.workspace().root().join(relative)
}
