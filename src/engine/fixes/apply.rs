//! Applying a fix through the checked path: the file is checked for its
//! text now, the fix asked of its server again for that text (a fix
//! computed for older text is never applied), and its edit written as a
//! patch through `Engine::apply_patch` — every file or none, `--dry-run`
//! included — whose answer reports the diagnostics like any edit.

use std::path::Path;
use std::sync::Arc;

use tokio::time::Instant;

use super::{digest, offer, parse_id};
use crate::config::Mutation;
use crate::diagnostic::{Diagnostic, Severity};
use crate::edit::EditError;
use crate::engine::tools::{Mode, ToolError, ToolResult};
use crate::engine::{Engine, FileInput, HeldOthers};
use crate::lsp::quick_fix::{FixedFile, QuickFix, chosen};
use crate::workspace::PathClass;

/// Which diagnostic's fix to apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Which {
    /// The fix an earlier answer offered, by its id.
    Id(String),
    /// The first error on this line (1-based), at this column when given:
    /// its preferred or only fix.
    At { line: u32, column: Option<u32> },
}

/// Why no fix was applied; nothing was written either way.
#[derive(Debug, thiserror::Error)]
pub enum FixError {
    #[error(transparent)]
    Tool(#[from] ToolError),
    #[error("{0}; nothing was written")]
    Refused(String),
}

fn refused(reason: impl Into<String>) -> FixError {
    FixError::Refused(reason.into())
}

impl Engine {
    /// Applies the fix `which` names in `path`, recomputed for the file's
    /// text now, through the same mutation path as `apply_patch`.
    pub async fn fix(
        self: &Arc<Self>,
        path: &Path,
        which: &Which,
        mode: Mode,
    ) -> Result<ToolResult, FixError> {
        let PathClass::Inside {
            canonical,
            relative,
        } = self.workspace.classify(path)
        else {
            return Err(refused(format!(
                "{} is not a workspace file squiggle serves",
                path.display()
            )));
        };
        let check = self
            .check_files(vec![FileInput::on_disk(&canonical)], HeldOthers::Skip)
            .await;
        let now: Vec<Diagnostic> = check
            .files
            .into_iter()
            .flat_map(|f| f.diagnostics)
            .collect();
        if let Which::Id(id) = which {
            unchanged_since_offered(id, &canonical, &relative)?;
        }
        let d = target(&now, which, &relative)?;
        let client = self
            .client_holding(&d.server, &canonical)
            .ok_or_else(|| refused(format!("{} is not running for {relative}", d.server)))?;
        let text = client
            .document(&canonical)
            .map(|(_, t)| t)
            .ok_or_else(|| refused(format!("{} does not hold {relative}", d.server)))?;
        let deadline = Instant::now() + self.config.diagnostic_timeout;
        let fixes = client
            .quick_fixes(&canonical, d.line, &d.message, deadline)
            .await;
        let fix = pick(&fixes, which, d, &text)?;
        let texts = client.fix_texts(fix, deadline).await.map_err(refused)?;
        let patch = self.patch_of(&texts)?;
        // Reported like a write: a fix may change what other files import
        // (a signature, an export), so its importers are checked again
        // under the default `otherFiles = "write"`.
        let mut result = self
            .patch(&patch, mode, false, Mutation::Write)
            .await
            .map_err(|e| changed_since(e, &d.server))?;
        // Every file the fix changes is named: a fix may edit more than the
        // file it was asked for (an import added elsewhere).
        let changed: Vec<String> = texts
            .iter()
            .filter(|(_, before, after)| before != after)
            .filter_map(|(file, _, _)| self.workspace.relative(file))
            .collect();
        let changed = changed.join(", ");
        result.message = match mode {
            Mode::Apply => format!("Fix applied: {} (changed {changed})", fix.title),
            Mode::DryRun => format!(
                "Dry run: the fix \"{}\" applies cleanly to {changed}; nothing was written.",
                fix.title
            ),
        };
        Ok(result)
    }
}

impl Engine {
    /// The fix's texts (each file's before and after) as one unified diff
    /// over workspace paths; refused when it edits a file outside.
    fn patch_of(&self, texts: &[FixedFile]) -> Result<String, FixError> {
        let mut patch = String::new();
        for (file, before, after) in texts {
            let Some(shown) = self.workspace.relative(file) else {
                return Err(refused(format!(
                    "the fix edits {}, outside the workspace",
                    file.display()
                )));
            };
            let diff = similar::TextDiff::from_lines(before, after);
            let header = (format!("a/{shown}"), format!("b/{shown}"));
            patch.push_str(&diff.unified_diff().header(&header.0, &header.1).to_string());
        }
        Ok(patch)
    }
}

/// Refuses fix `id` when the file's text is no longer the one it was
/// offered for.
fn unchanged_since_offered(id: &str, canonical: &Path, relative: &str) -> Result<(), FixError> {
    let text = crate::edit::read_regular_string(canonical, crate::edit::MAX_READ_BYTES)
        .map_err(|e| refused(format!("cannot read {relative}: {e}")))?;
    if parse_id(id).is_some_and(|(_, _, digest_then, _)| digest_then != digest(&[relative, &text]))
    {
        return Err(refused(format!(
            "{relative} has changed since fix {id} was offered; check it again for the fixes offered now"
        )));
    }
    Ok(())
}

/// A hunk of the fix's patch that does not apply: the file changed on disk
/// after the server read it (another writer). Said as that, not as a patch
/// for the caller to regenerate.
fn changed_since(e: ToolError, server: &str) -> FixError {
    match e {
        ToolError::Edit(EditError::HunkFailed { path, .. }) => refused(format!(
            "{path} changed on disk since {server} read it; check it again, then ask for the fix again"
        )),
        other => FixError::Tool(other),
    }
}

/// The diagnostic `which` names among `now` (the file's diagnostics now).
fn target<'a>(
    now: &'a [Diagnostic],
    which: &Which,
    file: &str,
) -> Result<&'a Diagnostic, FixError> {
    let (line, column) = match which {
        Which::Id(id) => {
            let (line, column, _, _) =
                parse_id(id).ok_or_else(|| refused(format!("{id:?} is not a fix id")))?;
            (line, Some(column))
        }
        Which::At { line, column } => (*line, *column),
    };
    let at = |d: &&Diagnostic| d.line == line && column.is_none_or(|c| d.column == c);
    now.iter()
        .filter(at)
        .min_by_key(|d| d.severity != Severity::Error)
        .ok_or_else(|| {
            let place = column.map_or(format!("{file}:{line}"), |c| format!("{file}:{line}:{c}"));
            refused(format!("no diagnostic at {place} now"))
        })
}

/// The fix to apply among those offered now: the one with `which`'s id,
/// else the preferred or only one.
fn pick<'a>(
    fixes: &'a [QuickFix],
    which: &Which,
    d: &Diagnostic,
    text: &str,
) -> Result<&'a QuickFix, FixError> {
    let place = format!("{}:{}:{}", d.file, d.line, d.column);
    if fixes.is_empty() {
        return Err(refused(format!(
            "{} offers no fix for {place} now",
            d.server
        )));
    }
    let found = match which {
        Which::Id(id) => fixes.iter().find(|f| offer(d, text, f).id == *id),
        Which::At { .. } => chosen(fixes),
    };
    found.ok_or_else(|| {
        let offered: Vec<String> = fixes
            .iter()
            .map(|f| format!("\"{}\" (id {})", f.title, offer(d, text, f).id))
            .collect();
        let why = match which {
            Which::Id(id) => format!("{} no longer offers fix {id} for {place}", d.server),
            Which::At { .. } => format!("{} offers several fixes for {place}", d.server),
        };
        refused(format!("{why}; offered now: {}", offered.join(", ")))
    })
}
