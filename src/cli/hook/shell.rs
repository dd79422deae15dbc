//! Edits made through a shell tool: Claude Code's `Bash` (`sed -i`, a
//! formatter, a code generator), Codex's shell (which also applies patches
//! with `apply_patch <<'EOF'` and then fires PreToolUse only, never
//! PostToolUse), Gemini CLI's `run_shell_command`. None of them says which
//! files changed, so the hook before a shell command (PreToolUse,
//! BeforeTool) records the size and mtime of the workspace's files, and the
//! next after-tool event of the session (the command's own, or for Codex's
//! patches the next one Codex fires) reports the files that changed since.
//!
//! A snapshot not yet consumed is kept when another shell command starts,
//! so a change is reported once, on the first after-tool event that follows
//! it. The walk honours `.gitignore` and skips hidden directories; a
//! workspace of more than [`MAX_FILES`] files gets no snapshot.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Above this many files a walk costs more than a hook may: no snapshot.
pub const MAX_FILES: usize = 20_000;
/// At most this many changed files are checked after one shell command.
pub const MAX_CHANGED: usize = 20;

/// mtime (ns), size and inode by relative path: `sed -i` replaces the file
/// (a new inode) even when size and mtime tick do not change.
type Stamps = BTreeMap<String, (u128, u64, u64)>;

/// A session's snapshot on disk: the workspace it was taken of and its
/// files' stamps.
#[derive(Serialize, Deserialize)]
struct Snapshot {
    root: PathBuf,
    files: Stamps,
}

/// The snapshot file of `session`, or `None` for an id that is not a plain
/// name.
fn snapshot_path(session: &str) -> Option<PathBuf> {
    super::session_files::session_file("shell", session, "json")
}

/// Before a shell command: record the workspace's files unless a snapshot
/// of this session is still waiting to be compared.
pub fn before(payload: &Value, root: &Path) {
    let Some(path) = payload["session_id"].as_str().and_then(snapshot_path) else {
        return;
    };
    if path.exists() {
        return;
    }
    let Some(stamps) = walk(root) else {
        tracing::debug!(root = %root.display(), "too many files for a shell snapshot");
        return;
    };
    let record = Snapshot {
        root: root.to_path_buf(),
        files: stamps,
    };
    let Ok(bytes) = serde_json::to_vec(&record) else {
        return;
    };
    super::session_files::write_session_file(&path, &bytes);
}

/// After a tool: the files of `root` that changed or appeared since the
/// session's snapshot (which is consumed), at most [`MAX_CHANGED`]; empty
/// without a snapshot.
pub fn changed_since(payload: &Value, root: &Path) -> Vec<PathBuf> {
    let Some(path) = payload["session_id"].as_str().and_then(snapshot_path) else {
        return Vec::new();
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Vec::new();
    };
    let _ = std::fs::remove_file(&path);
    // A snapshot of another workspace, or not one squiggle wrote: nothing
    // to compare with.
    let Ok(record) = serde_json::from_str::<Snapshot>(&text) else {
        return Vec::new();
    };
    if record.root != root {
        return Vec::new();
    }
    let before = record.files;
    let Some(now) = walk(root) else {
        return Vec::new();
    };
    now.into_iter()
        .filter(|(name, stamp)| before.get(name) != Some(stamp))
        .map(|(name, _)| root.join(name))
        .take(MAX_CHANGED)
        .collect()
}

/// Size and mtime (ns) of every file under `root`, by relative path;
/// `None` past [`MAX_FILES`].
fn walk(root: &Path) -> Option<Stamps> {
    let mut stamps = Stamps::new();
    for entry in ignore::WalkBuilder::new(root).build().flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        let mtime = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        stamps.insert(
            rel.to_string_lossy().into_owned(),
            (
                mtime,
                meta.len(),
                crate::platform::paths::file_id(&meta).unwrap_or(0),
            ),
        );
        if stamps.len() > MAX_FILES {
            return None;
        }
    }
    Some(stamps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_and_new_files_are_found_once() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        std::fs::write(root.join("a.py"), "x = 1\n").ok();
        std::fs::write(root.join("b.py"), "y = 2\n").ok();
        let before_walk = walk(root).unwrap_or_default();
        std::fs::write(root.join("a.py"), "x = 11\n").ok();
        std::fs::write(root.join("c.py"), "z = 3\n").ok();
        let after_walk = walk(root).unwrap_or_default();
        let changed: Vec<&String> = after_walk
            .iter()
            .filter(|(n, s)| before_walk.get(*n) != Some(s))
            .map(|(n, _)| n)
            .collect();
        assert_eq!(changed, ["a.py", "c.py"]);
        assert!(snapshot_path("../x").is_none());
    }
}
