//! Auto-fix (`autoFix`, off by default): after an edit through a wrapped
//! tool, the preferred (or only) quick fix of each error the edit
//! introduced in a file it touched — when the configuration names the
//! fix's kind or title — is applied and the files checked again. It is kept
//! only when the errors of the files it edits drop and no error appears
//! anywhere (those files, and the other files the servers report) that was
//! not there before it; otherwise the files are put back to the exact bytes
//! they had. A fix that would edit a file the edit did not touch is never
//! applied. Fixes are written as a patch is (`commit_patch`: every file or
//! none, the servers told), one after the other, at most `autoFixMax` per
//! edit, and every one found is reported — kept, reverted or skipped.

mod judge;

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use tokio::time::Instant;

use super::Engine;
use crate::baseline::classify;
use crate::diagnostic::{Diagnostic, Severity};
use crate::engine::blocks::Baseline;
use crate::engine::check::FileInput;
use crate::engine::report::CheckReport;
use crate::engine::tools::PatchSteps;
use crate::engine::touched::Touched;
use crate::lsp::FileChangeKind;
use crate::lsp::quick_fix::{FixedFile, chosen};
use crate::render::{AutoFix, AutoFixOutcome};
use crate::workspace::PathClass;
use judge::judge;

/// What auto-fix did: each fix it found, and the check of the files as
/// they are now (`None`: it wrote nothing, the edit's own check stands).
#[derive(Default)]
pub(in crate::engine) struct AutoFixRun {
    pub tried: Vec<AutoFix>,
    pub check: Option<CheckReport>,
    /// Whether some fix was kept (the touched files' texts changed).
    pub kept: bool,
}

/// The touched files' state between fixes: each canonical path with its
/// text, and the last check of them (with their importers).
struct State {
    paths: Vec<PathBuf>,
    texts: Vec<Arc<str>>,
    check: CheckReport,
}

impl Engine {
    /// Tries the allowed fixes of `introduced` (errors the edit introduced
    /// in the touched files `paths`, whose texts now are `texts` and whose
    /// check was `check`), in order of position.
    pub(in crate::engine) async fn auto_fix(
        self: &Arc<Self>,
        paths: Vec<PathBuf>,
        texts: Vec<Arc<str>>,
        introduced: Vec<Diagnostic>,
        check: CheckReport,
    ) -> AutoFixRun {
        let mut state = State {
            paths,
            texts,
            check,
        };
        let mut run = AutoFixRun {
            tried: Vec::new(),
            check: None,
            kept: false,
        };
        let wanted: HashSet<(String, String)> = introduced
            .iter()
            .map(|d| (d.file.clone(), d.message.clone()))
            .collect();
        let mut asked: HashSet<(String, String)> = HashSet::new();
        while run.tried.len() < self.config.auto_fix.max {
            // The errors of the edit still there, where they are now.
            let mut pending: Vec<&Diagnostic> = state
                .check
                .files
                .iter()
                .flat_map(|f| &f.diagnostics)
                .filter(|d| d.severity == Severity::Error)
                .filter(|d| {
                    let key = (d.file.clone(), d.message.clone());
                    wanted.contains(&key) && !asked.contains(&key)
                })
                .collect();
            pending.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
            let Some(d) = pending.first().map(|d| (*d).clone()) else {
                break;
            };
            asked.insert((d.file.clone(), d.message.clone()));
            let Some((server, title, files)) = self.allowed_fix(&d).await else {
                continue;
            };
            let mut tried = AutoFix {
                file: d.file.clone(),
                line: d.line,
                column: d.column,
                message: d.message.clone(),
                server,
                title,
                outcome: AutoFixOutcome::Skipped,
                diff: self.short_diff(&files),
                reason: String::new(),
            };
            match self.try_fix(&mut state, &files).await {
                Ok(()) => {
                    tried.outcome = AutoFixOutcome::Kept;
                    run.kept = true;
                    run.check = Some(state.check.clone());
                }
                Err((outcome, reason)) => {
                    if outcome != AutoFixOutcome::Skipped {
                        run.check = Some(state.check.clone());
                        run.kept |= outcome == AutoFixOutcome::Kept;
                    }
                    tried.outcome = outcome;
                    tried.reason = reason;
                }
            }
            run.tried.push(tried);
        }
        run
    }

    /// The fix auto-fix may apply for `d` now: its server, title and the
    /// files it changes — the preferred or only quick fix, when a rule of
    /// `autoFix` allows its kind or title.
    async fn allowed_fix(&self, d: &Diagnostic) -> Option<(String, String, Vec<FixedFile>)> {
        let path = self.workspace.root().join(&d.file);
        let client = self.client_holding(&d.server, &path)?;
        let deadline = Instant::now() + self.config.diagnostic_timeout;
        let fixes = client
            .quick_fixes(&path, d.line, &d.message, deadline)
            .await;
        let fix = chosen(&fixes)?;
        if !self.config.auto_fix.allows(fix.kind(), &fix.title) {
            return None;
        }
        let files = client.fix_texts(fix, deadline).await.ok()?;
        Some((d.server.clone(), fix.title.clone(), files))
    }

    /// Applies `files` (a fix's texts before and after), checks, and keeps
    /// it or puts the bytes back; `state` follows what is on disk.
    async fn try_fix(
        self: &Arc<Self>,
        state: &mut State,
        files: &[FixedFile],
    ) -> Result<(), (AutoFixOutcome, String)> {
        let skipped = |reason: String| (AutoFixOutcome::Skipped, reason);
        let mut befores = Vec::with_capacity(files.len());
        for (path, before, _) in files {
            let shown = self
                .workspace
                .relative(path)
                .unwrap_or_else(|| path.display().to_string());
            let Some(index) = state.paths.iter().position(|p| p == path) else {
                return Err(skipped(format!(
                    "it edits {shown}, which the edit did not touch"
                )));
            };
            // The exact bytes on disk, which a revert writes back.
            let disk = crate::edit::read_regular(path, crate::edit::MAX_READ_BYTES)
                .map_err(|e| skipped(format!("cannot read {shown}: {e}")))?;
            if disk != before.as_bytes() || *state.texts[index] != **before {
                return Err(skipped(format!(
                    "{shown} on disk is not the text the fix was computed for"
                )));
            }
            befores.push((index, disk));
        }
        // What the servers report for every file before the fix: an error
        // there afterwards that is not among these is the fix's.
        let known = self.known_snapshot();
        let writes = files.iter().map(|(p, _, after)| (p.clone(), after.clone()));
        self.commit_texts(writes.collect())
            .map_err(|e| skipped(e.to_string()))?;
        let mut texts = state.texts.clone();
        for (path, _, after) in files {
            if let Some(i) = state.paths.iter().position(|p| p == path) {
                texts[i] = Arc::from(after.as_str());
            }
        }
        let after = self.check_state(&state.paths, &texts, &state.texts).await;
        let known = known.for_files(self, after.others.keys());
        let edited: Vec<usize> = befores.iter().map(|(i, _)| *i).collect();
        match judge(state, &texts, &after, &known, &edited) {
            Ok(()) => {
                state.texts = texts;
                state.check = after;
                Ok(())
            }
            Err(reason) => {
                if let Some(moved) = self.not_ours(files) {
                    // Another writer changed a file while the fix was
                    // checked: its text is not squiggle's to overwrite.
                    state.texts = texts;
                    state.check = after;
                    let reason = format!(
                        "{reason}; not put back: {moved} no longer holds the fix's text (another writer changed it), so it was left as it is"
                    );
                    return Err((AutoFixOutcome::Kept, reason));
                }
                let restore = befores
                    .iter()
                    .map(|(i, bytes)| (state.paths[*i].clone(), bytes.clone()))
                    .collect();
                if let Err(e) = self.commit_bytes(restore) {
                    // Nothing was written: the fix stays, and says so.
                    state.texts = texts;
                    state.check = after;
                    let reason = format!("{reason}; putting it back failed, so it stays: {e}");
                    return Err((AutoFixOutcome::Kept, reason));
                }
                state.check = self.check_state(&state.paths, &state.texts, &texts).await;
                Err((AutoFixOutcome::Reverted, reason))
            }
        }
    }

    /// The first of `files` whose disk no longer holds the fix's text
    /// (workspace-relative), when one does not: a revert writes back only
    /// over what auto-fix itself wrote.
    fn not_ours(&self, files: &[FixedFile]) -> Option<String> {
        files.iter().find_map(|(path, _, after)| {
            let now = crate::edit::read_regular(path, crate::edit::MAX_READ_BYTES);
            let ours = now.is_ok_and(|bytes| bytes == after.as_bytes());
            (!ours).then(|| {
                self.workspace
                    .relative(path)
                    .unwrap_or_else(|| path.display().to_string())
            })
        })
    }

    /// Checks the touched files as `texts` (they were `before`), with the
    /// files that import them.
    async fn check_state(
        self: &Arc<Self>,
        paths: &[PathBuf],
        texts: &[Arc<str>],
        before: &[Arc<str>],
    ) -> CheckReport {
        let inputs = paths
            .iter()
            .zip(texts.iter().zip(before))
            .map(|(path, (text, before))| FileInput {
                path: path.clone(),
                content: Some(text.clone()),
                before: Some(before.clone()),
            })
            .collect();
        self.check_with_dependents(inputs).await
    }

    /// Writes whole texts as a patch writes its files.
    fn commit_texts(
        &self,
        writes: Vec<(PathBuf, String)>,
    ) -> Result<(), crate::engine::tools::ToolError> {
        let events = writes
            .iter()
            .map(|(p, _)| (p.clone(), FileChangeKind::Changed))
            .collect();
        self.commit_patch(&PatchSteps {
            checked: Vec::new(),
            events,
            writes,
            removes: Vec::new(),
        })
    }

    /// Puts files back to exactly `bytes` (a revert; the texts were read as
    /// UTF-8 before, so they are text).
    fn commit_bytes(
        &self,
        files: Vec<(PathBuf, Vec<u8>)>,
    ) -> Result<(), crate::engine::tools::ToolError> {
        let writes = files
            .into_iter()
            .map(|(p, bytes)| (p, String::from_utf8_lossy(&bytes).into_owned()))
            .collect();
        self.commit_texts(writes)
    }

    /// What a fix changes, as unified hunks without context, under file
    /// headers when it edits more than one file.
    fn short_diff(&self, files: &[FixedFile]) -> String {
        let mut diff = String::new();
        for (path, before, after) in files {
            let text = similar::TextDiff::from_lines(before, after);
            let mut unified = text.unified_diff();
            unified.context_radius(0);
            if files.len() > 1 {
                let shown = self
                    .workspace
                    .relative(path)
                    .unwrap_or_else(|| path.display().to_string());
                unified.header(&format!("a/{shown}"), &format!("b/{shown}"));
            }
            diff.push_str(&unified.to_string());
        }
        diff
    }
}

impl Engine {
    /// Auto-fix over a change just checked (`check`): the errors it
    /// introduced in the touched files, against their baselines, offered
    /// to [`Engine::auto_fix`].
    pub(in crate::engine) async fn auto_fix_change(
        self: &Arc<Self>,
        files: &[Touched],
        baselines: &[Option<Baseline>],
        check: CheckReport,
    ) -> AutoFixRun {
        let mut introduced = Vec::new();
        let (mut paths, mut texts) = (Vec::new(), Vec::new());
        for ((report, file), baseline) in check.files.iter().zip(files).zip(baselines) {
            let (PathClass::Inside { canonical, .. }, Some(after)) =
                (self.workspace.classify(&file.path), &file.after)
            else {
                continue;
            };
            paths.push(canonical);
            texts.push(after.clone());
            let (before, before_text) = baseline
                .as_ref()
                .map_or((&[][..], ""), |b| (b.diagnostics.as_slice(), &*b.text));
            let delta = classify(before, before_text, &report.diagnostics, after, true);
            introduced.extend(
                delta
                    .introduced
                    .iter()
                    .map(|&i| report.diagnostics[i].clone())
                    .filter(|d| d.severity == Severity::Error),
            );
        }
        if introduced.is_empty() || paths.len() != check.files.len() {
            return AutoFixRun::default();
        }
        self.auto_fix(paths, texts, introduced, check).await
    }
}
