//! The agent's tools, wrapped: `edit`, `write` and `apply_patch` perform the
//! mutation exactly as asked (atomically, all-or-nothing for patches), then
//! check the touched files and render the feedback. Diagnostics never fail a
//! mutation; a refused mutation writes nothing. The success message comes
//! first, then a blank line and the feedback.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use super::Mode;
pub use super::result::ToolResult;
pub use super::touched::Touched;
use super::{Change, Engine, Mutation};
pub use crate::edit::Replace;
use crate::edit::{EditError, PlannedChange, parse_patch, plan_patch, replace_exact, write_atomic};
use crate::lsp::FileChangeKind;
use crate::mutex::lock;
use crate::workspace::PathClass;

#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("{0}")]
    Edit(#[from] EditError),
    #[error("{path} is outside the workspace {root}; nothing was written")]
    Outside { path: String, root: String },
    #[error("cannot read {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("cannot write {path}: {reason}; the file is unchanged")]
    Write { path: String, reason: String },
    /// Refused for a reason of its own (no fix for that diagnostic).
    #[error("{0}; nothing was written")]
    Refused(String),
    /// A speculative session's commit refused (`Operation::Commit`).
    #[error(transparent)]
    Session(#[from] crate::sessions::SessionError),
}

pub(super) struct Target {
    pub(super) canonical: PathBuf,
    pub(super) relative: String,
}

impl Engine {
    /// Where a mutation of `path` lands, once it is known to be inside the
    /// workspace and not a special file or a symbolic link loop (refused
    /// before anything opens it: `edit::vet_path`).
    pub(super) fn target(&self, path: &Path) -> Result<Target, ToolError> {
        let joined = self.workspace.root().join(path);
        let shown = self
            .workspace
            .relative(&joined)
            .unwrap_or_else(|| path.display().to_string());
        crate::edit::vet_path(&joined, &shown)?;
        match self.workspace.classify(path).within() {
            Ok((canonical, relative)) => Ok(Target {
                canonical,
                relative,
            }),
            Err(canonical) => Err(ToolError::Outside {
                path: canonical.display().to_string(),
                root: self.workspace.root().display().to_string(),
            }),
        }
    }

    /// Serializes mutations of one file. The entry is removed when the last
    /// holder or waiter lets go, so the map holds only files in use.
    pub(super) async fn lock_file(&self, path: &Path) -> FileLock<'_> {
        let mutex = lock(&self.file_locks)
            .entry(path.to_path_buf())
            .or_default()
            .clone();
        FileLock {
            engine: self,
            path: path.to_path_buf(),
            guard: Some(mutex.lock_owned().await),
        }
    }

    /// Holds every workspace file among `paths` (canonical, deduplicated,
    /// in path order, so two holders never wait on each other): the files
    /// held, and their locks.
    pub(super) async fn lock_files<'p>(
        &self,
        paths: impl Iterator<Item = &'p Path>,
    ) -> (Vec<PathBuf>, Vec<FileLock<'_>>) {
        let mut held: Vec<PathBuf> = paths
            .filter_map(|path| match self.workspace.classify(path) {
                PathClass::Inside { canonical, .. } => Some(canonical),
                _ => None,
            })
            .collect();
        held.sort();
        held.dedup();
        let mut locks = Vec::with_capacity(held.len());
        for path in &held {
            locks.push(self.lock_file(path).await);
        }
        (held, locks)
    }

    /// Exact-string replacement; feedback covers this file only.
    pub async fn edit(
        self: &Arc<Self>,
        path: &Path,
        old: &str,
        new: &str,
        replace: Replace,
        mode: Mode,
    ) -> Result<ToolResult, ToolError> {
        let dry_run = mode == Mode::DryRun;
        let target = self.target(path)?;
        let _held = self.lock_file(&target.canonical).await;
        let before = read_text(&target)?;
        let replaced = replace_exact(&before, old, new, replace)?;
        if !dry_run {
            write(&target, &replaced.content)?;
        }
        let noun = if replaced.replacements == 1 {
            "replacement"
        } else {
            "replacements"
        };
        let message = if dry_run {
            format!(
                "Dry run: the edit would make {} {noun}; nothing was written.",
                replaced.replacements
            )
        } else {
            "Edit applied successfully.".to_string()
        };
        let touched = vec![Touched::written(
            target.canonical.clone(),
            Some(&before),
            &replaced.content,
        )];
        let change = Change::of(message, Mutation::Edit, mode).fixing();
        Ok(self.report_and_undo(change, touched).await)
    }

    /// Writes a whole file (creating directories); feedback covers this file
    /// and, capped, other files with diagnostics.
    pub async fn write(
        self: &Arc<Self>,
        path: &Path,
        content: &str,
        mode: Mode,
    ) -> Result<ToolResult, ToolError> {
        let dry_run = mode == Mode::DryRun;
        let target = self.target(path)?;
        let _held = self.lock_file(&target.canonical).await;
        let before = std::fs::read_to_string(&target.canonical).ok();
        let created = !target.canonical.exists();
        if !dry_run {
            write(&target, content)?;
            self.watched(&[(&target.canonical, FileChangeKind::of_write(created))]);
        }
        let message = if dry_run {
            "Dry run: the file was not written.".to_string()
        } else {
            "File written successfully.".to_string()
        };
        let touched = vec![Touched::written(
            target.canonical.clone(),
            before.as_deref(),
            content,
        )];
        let change = Change::of(message, Mutation::Write, mode).fixing();
        Ok(self.report_and_undo(change, touched).await)
    }

    /// Applies a git-style or Codex-style patch across files, all or nothing.
    pub async fn apply_patch(
        self: &Arc<Self>,
        patch_text: &str,
        mode: Mode,
    ) -> Result<ToolResult, ToolError> {
        self.patch(patch_text, mode, true, Mutation::Edit).await
    }

    /// [`apply_patch`](Self::apply_patch); auto-fix runs after it only when
    /// `auto_fix` (never after a fix being applied).
    pub(super) async fn patch(
        self: &Arc<Self>,
        patch_text: &str,
        mode: Mode,
        auto_fix: bool,
        mutation: Mutation,
    ) -> Result<ToolResult, ToolError> {
        let dry_run = mode == Mode::DryRun;
        let patch = parse_patch(patch_text)?;
        // Vet every path before anything happens: one outside refuses the whole patch.
        let mut targets: BTreeMap<String, Target> = BTreeMap::new();
        for p in patch.paths() {
            targets.insert(p.to_string(), self.target(&self.workspace.root().join(p))?);
        }
        let planned = plan_patch(&patch, |p| match targets.get(p) {
            Some(t) => std::fs::read_to_string(&t.canonical),
            None => Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                p.to_string(),
            )),
        })?;
        let steps = patch_steps(&planned, &targets)?;
        if !dry_run {
            self.commit_patch(&steps)?;
        }
        let files = planned.len();
        let message = if dry_run {
            format!("Dry run: the patch applies cleanly to {files} file(s); nothing was written.")
        } else {
            "Patch applied successfully.".to_string()
        };
        let change = Change {
            auto_fix,
            ..Change::of(message, mutation, mode)
        };
        Ok(self.report_and_undo(change, steps.checked).await)
    }

    pub(super) fn close_everywhere(&self, path: &Path) {
        for client in self.pool.clients() {
            client.close_document(path);
        }
        self.history.forget(path);
    }

    /// Announces squiggle's own writes to the servers that watch files,
    /// except a change to a file a server holds open: the check sends it
    /// the new text as a document, and the watched-file event would start
    /// a pass or a rescan of its own for text about to be replaced (gopls,
    /// pyright: docs/performance.md).
    pub(super) fn watched(&self, changes: &[(&Path, FileChangeKind)]) {
        for client in self.pool.clients() {
            let unheld: Vec<(&Path, FileChangeKind)> = changes
                .iter()
                .filter(|(path, kind)| {
                    *kind != FileChangeKind::Changed || client.document(path).is_none()
                })
                .copied()
                .collect();
            client.did_change_watched_files(&unheld);
        }
    }
}

/// Every step of a patch, in order: what to write, what to remove, what to
/// tell the servers, and which files to check (with their text before).
pub(super) struct PatchSteps {
    pub(super) checked: Vec<Touched>,
    pub(super) events: Vec<(PathBuf, FileChangeKind)>,
    pub(super) writes: Vec<(PathBuf, String)>,
    pub(super) removes: Vec<(PathBuf, String)>,
}

fn patch_steps(
    planned: &[PlannedChange],
    targets: &BTreeMap<String, Target>,
) -> Result<PatchSteps, ToolError> {
    let mut checked = Vec::new();
    let mut events: Vec<(PathBuf, FileChangeKind)> = Vec::new();
    let mut writes: Vec<(PathBuf, String)> = Vec::new();
    let mut removes: Vec<(PathBuf, String)> = Vec::new();
    for change in planned {
        match change {
            PlannedChange::Write {
                path,
                content,
                created,
            } => {
                let t = vetted(targets, path)?;
                let before = std::fs::read_to_string(&t.canonical).ok();
                writes.push((t.canonical.clone(), content.clone()));
                events.push((t.canonical.clone(), FileChangeKind::of_write(*created)));
                checked.push(Touched::written(
                    t.canonical.clone(),
                    before.as_deref(),
                    content,
                ));
            }
            PlannedChange::Delete { path } => {
                let canonical = vetted(targets, path)?.canonical.clone();
                removes.push((canonical.clone(), path.clone()));
                events.push((canonical, FileChangeKind::Deleted));
            }
            PlannedChange::Rename { from, to, content } => {
                let (old, new) = (
                    vetted(targets, from)?.canonical.clone(),
                    vetted(targets, to)?,
                );
                writes.push((new.canonical.clone(), content.clone()));
                removes.push((old.clone(), from.clone()));
                events.push((old, FileChangeKind::Deleted));
                events.push((new.canonical.clone(), FileChangeKind::Created));
                checked.push(Touched::written(new.canonical.clone(), None, content));
            }
        }
    }
    Ok(PatchSteps {
        checked,
        events,
        writes,
        removes,
    })
}

/// One file's mutation lock, held.
pub(super) struct FileLock<'a> {
    engine: &'a Engine,
    path: PathBuf,
    guard: Option<tokio::sync::OwnedMutexGuard<()>>,
}

impl Drop for FileLock<'_> {
    fn drop(&mut self) {
        drop(self.guard.take());
        let mut locks = lock(&self.engine.file_locks);
        // Only the map's own handle left: nobody holds or awaits it.
        if locks
            .get(&self.path)
            .is_some_and(|m| Arc::strong_count(m) == 1)
        {
            locks.remove(&self.path);
        }
    }
}

/// The vetted target of a path the patch planner returned (always one the
/// patch named, so always present; checked rather than indexed all the same).
fn vetted<'a>(targets: &'a BTreeMap<String, Target>, path: &str) -> Result<&'a Target, ToolError> {
    targets.get(path).ok_or_else(|| ToolError::Write {
        path: path.to_string(),
        reason: "the patch planner named a path the patch did not".into(),
    })
}

pub(super) fn read_text(target: &Target) -> Result<String, ToolError> {
    let bytes = std::fs::read(&target.canonical).map_err(|e| ToolError::Read {
        path: target.relative.clone(),
        reason: e.to_string(),
    })?;
    String::from_utf8(bytes).map_err(|_| ToolError::Read {
        path: target.relative.clone(),
        reason: "it is not valid UTF-8 text; use write to replace it whole".into(),
    })
}

fn write(target: &Target, content: &str) -> Result<(), ToolError> {
    write_atomic(&target.canonical, content.as_bytes()).map_err(|e| ToolError::Write {
        path: target.relative.clone(),
        reason: e.to_string(),
    })
}
