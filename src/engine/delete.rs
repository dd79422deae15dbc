//! `delete`: a file removed through the checked path. The path is vetted
//! as every mutation's is (refused outside the workspace, nothing removed);
//! the files that import it are found while it is still there, then checked
//! again once it is gone, so an agent sees the imports it broke. A dry run
//! removes nothing and checks those importers as they are.

use std::path::Path;
use std::sync::Arc;

use super::tools::{Mode, ToolError, ToolResult, read_text};
use super::touched::Touched;
use super::{Change, Engine, FileInput, Mutation};
use crate::baseline::Before;
use crate::lsp::FileChangeKind;

impl Engine {
    /// Removes `path` and checks its importers.
    pub(super) async fn delete(
        self: &Arc<Self>,
        path: &Path,
        mode: Mode,
    ) -> Result<ToolResult, ToolError> {
        let target = self.target(path)?;
        let _held = self.lock_file(&target.canonical).await;
        // A file to remove, not a directory or nothing.
        read_text(&target)?;
        let importers = self
            .importers(&[FileInput::on_disk(target.canonical.clone())])
            .await
            .unwrap_or_default();
        let shown: Vec<String> = importers
            .iter()
            .filter_map(|p| self.workspace.relative(p))
            .collect();
        let message = match (mode, shown.is_empty()) {
            (Mode::DryRun, true) => {
                "Dry run: the file was not deleted; no file imports it.".to_string()
            }
            (Mode::DryRun, false) => format!(
                "Dry run: the file was not deleted; {} import it, shown as they are now.",
                shown.join(", ")
            ),
            (Mode::Apply, true) => "File deleted; no file imported it.".to_string(),
            (Mode::Apply, false) => format!(
                "File deleted; {} imported it, checked again.",
                shown.join(", ")
            ),
        };
        if mode == Mode::Apply {
            std::fs::remove_file(&target.canonical).map_err(|e| ToolError::Write {
                path: target.relative.clone(),
                reason: e.to_string(),
            })?;
            self.watched(&[(&target.canonical, FileChangeKind::Deleted)]);
            self.close_everywhere(&target.canonical);
        }
        let files = importers
            .into_iter()
            .map(|path| Touched {
                path,
                before: Before::Unknown,
                after: None,
            })
            .collect();
        let change = Change::of(message, Mutation::Edit, mode);
        Ok(self.report(change, files).await)
    }
}
