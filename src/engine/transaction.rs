//! The write transaction every multi-file mutation goes through: the
//! files written (and removed) all or nothing, then the servers told. A
//! patch (`apply_patch`) and a speculative session's commit (`write_all`)
//! both commit here.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::tools::{Mode, PatchSteps, ToolError, ToolResult};
use super::{Engine, Mutation};
use crate::edit::{FileOp, apply_all};
use crate::lsp::FileChangeKind;

impl Engine {
    /// Writes whole files, all or nothing, exactly as `apply_patch` writes
    /// a patch's files (one transaction, the servers told), then checks
    /// them: a speculative session's commit. `files` holds each canonical
    /// path with its text before (`None`: created) and after.
    pub async fn write_all(
        self: &Arc<Self>,
        message: String,
        files: Vec<(PathBuf, Option<String>, String)>,
    ) -> Result<ToolResult, ToolError> {
        let mut steps = PatchSteps {
            checked: Vec::new(),
            events: Vec::new(),
            writes: Vec::new(),
            removes: Vec::new(),
        };
        for (path, before, after) in files {
            let kind = FileChangeKind::of_write(before.is_none());
            steps.events.push((path.clone(), kind));
            steps
                .checked
                .push((path.clone(), before, Arc::from(after.as_str())));
            steps.writes.push((path, after));
        }
        self.commit_patch(&steps)?;
        Ok(self
            .answer(message, steps.checked, Mutation::Edit, Mode::Apply)
            .await)
    }

    /// Applies a patch's steps on disk, all or nothing: a write that fails
    /// half-way (a full disk, an immutable file) puts back every file
    /// already touched. Then the servers hear of the removed and changed files.
    pub(super) fn commit_patch(&self, steps: &PatchSteps) -> Result<(), ToolError> {
        let (writes, removes) = (&steps.writes, &steps.removes);
        let ops: Vec<FileOp<'_>> = writes
            .iter()
            .map(|(path, content)| FileOp::Write {
                path,
                content: content.as_bytes(),
            })
            .chain(removes.iter().map(|(path, _)| FileOp::Remove { path }))
            .collect();
        if let Err(e) = apply_all(&ops) {
            let failed = match e.index.checked_sub(writes.len()) {
                None => writes.get(e.index),
                Some(i) => removes.get(i),
            };
            let path = failed
                .and_then(|(p, _)| self.workspace.relative(p))
                .unwrap_or_else(|| "a file of the patch".to_string());
            return Err(ToolError::Write {
                path,
                reason: format!("{}; no file of the patch was changed", e.source),
            });
        }
        for (path, _) in removes {
            self.close_everywhere(path);
        }
        let refs: Vec<(&Path, FileChangeKind)> = steps
            .events
            .iter()
            .map(|(p, k)| (p.as_path(), *k))
            .collect();
        self.watched(&refs);
        Ok(())
    }
}
