//! The write transaction every multi-file mutation goes through: the
//! files written (and removed) all or nothing, then the servers told. A
//! patch (`apply_patch`) and a speculative session's commit (`write_all`)
//! both commit here; and every file's new text reaches the servers before
//! the check waits on any ([`Engine::send_first`]).

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;

use super::tools::{Mode, PatchSteps, ToolError, ToolResult, Touched};
use super::{Change, Engine, Mutation};
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
                .push(Touched::written(path.clone(), before.as_deref(), &after));
            steps.writes.push((path, after));
        }
        self.commit_patch(&steps)?;
        // A commit writes whole files: its importers are re-checked and
        // reported like any write's.
        Ok(self
            .report(
                Change::of(message, Mutation::Write, Mode::Apply),
                steps.checked,
            )
            .await)
    }

    /// Sends every file's text to each server that serves it, queued in
    /// the order given and all before any wait begins: a server that
    /// analyses between two changes (pyright publishes an importer the
    /// moment it has it) would otherwise answer for the importer's new
    /// text against the imported file's old one, and a check could take
    /// that answer before the corrected one. The check then finds each
    /// text already sent and waits for the server's answer to it. A server
    /// that must see a document opened before it changes
    /// (`open_then_change`) is left to the check for a file it does not
    /// hold yet.
    pub(crate) async fn send_first(self: &Arc<Self>, texts: &[(PathBuf, Arc<str>)]) {
        // The disk as it is now, these files aside: they were just written
        // and go to the servers as documents below, not as watched-file
        // changes (which start a pass or a rescan of their own in some
        // servers, for text about to be replaced).
        self.sync_disk(&self.canonical_of(texts.iter().map(|(p, _)| p.as_path())))
            .await;
        let mut held = Vec::new();
        for (path, text) in texts {
            let Ok(files) = self.servers_for(path) else {
                continue;
            };
            for candidate in &files.candidates {
                let Ok(checkout) = self.start_candidate(candidate).await else {
                    continue;
                };
                let client = &checkout.client;
                if client.wait_profile().open_then_change && client.document(path).is_none() {
                    continue;
                }
                held.push((checkout, path, candidate.language.clone(), text.clone()));
            }
        }
        let syncs = held
            .iter()
            .map(|(c, path, language, text)| c.client.sync_document(path, language, text.clone()));
        in_order(syncs.collect()).await;
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

/// Runs `futures` together, polling each first in the order given: what
/// each does before its first wait (a sync queues its message) happens in
/// that order, before any of them waits.
async fn in_order<F: Future>(futures: Vec<F>) {
    let mut pending: Vec<Option<Pin<Box<F>>>> =
        futures.into_iter().map(|f| Some(Box::pin(f))).collect();
    std::future::poll_fn(|cx| {
        for slot in &mut pending {
            if let Some(future) = slot
                && future.as_mut().poll(cx).is_ready()
            {
                *slot = None;
            }
        }
        if pending.iter().all(Option::is_none) {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
}
