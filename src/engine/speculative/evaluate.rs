//! A session's evaluation: its changed texts shown to the servers inside
//! the exclusive gate, checked as a dry-run edit, measured against the
//! session's baseline (`new_errors`), and the disk's texts given back.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::answers::SessionAnswer;
use crate::baseline::{Classification, classify};
use crate::config::Mutation;
use crate::diagnostic::{Diagnostic, Severity};
use crate::engine::tools::{Mode, ToolResult, Touched};
use crate::engine::{Change, Engine, Reported};
use crate::sessions::session::{File, Session, digest};

impl Engine {
    /// An evaluation with the servers to itself, then their disk texts back.
    pub(super) async fn evaluate(self: &Arc<Self>, session: &Session) -> SessionAnswer {
        self.sessions()
            .gate()
            .exclusive(async {
                let answer = self.evaluate_now(session).await;
                self.restore_disk(session).await;
                answer
            })
            .await
    }

    /// Shows the servers the session's text and measures it against the
    /// baseline. Inside the exclusive gate only.
    pub(super) async fn evaluate_now(self: &Arc<Self>, session: &Session) -> SessionAnswer {
        // Only the changed files are sent: an unchanged one is an importer
        // like any other (the other-files phase waits until each server is
        // done with the change), and sending its unchanged text again would
        // wait for a publish some servers never send.
        let touched = session
            .files
            .iter()
            .filter(|(_, f)| f.changed())
            .filter_map(|(p, f)| {
                let text = f.text.clone()?;
                Some(Touched::written(p.clone(), f.base.as_deref(), &text))
            })
            .collect::<Vec<_>>();
        let changed = touched.len();
        let moved: Vec<&str> = session
            .files
            .iter()
            .filter(|(p, f)| {
                crate::edit::read_regular(p, crate::edit::MAX_READ_BYTES)
                    .ok()
                    .map(|b| digest(&b))
                    != f.digest
            })
            .map(|(_, f)| f.relative.as_str())
            .collect();
        let mut message = format!(
            "Session {}: {changed} changed file(s) evaluated against the disk's state when it opened; nothing was written.",
            session.id
        );
        if !moved.is_empty() {
            message.push_str(&format!(
                " {} changed on disk since; commit will refuse.",
                moved.join(", ")
            ));
        }
        if touched.is_empty() {
            return SessionAnswer {
                session: session.id.clone(),
                message: format!(
                    "Session {}: no file differs from the disk's state when it opened; nothing to evaluate.",
                    session.id
                ),
                files: session.states(),
                new_errors: Vec::new(),
                result: None,
            };
        }
        // Measured against the disk when the session opened, in the text
        // as in `new_errors` (the check sends every changed text before it
        // waits on any).
        let before: BTreeMap<String, Vec<Diagnostic>> = session
            .baseline
            .iter()
            .map(|(file, d)| (file.clone(), d.clone()))
            .collect();
        let mut result = self
            .report_against(
                Change::of(message.clone(), Mutation::Write, Mode::DryRun),
                touched,
                before,
            )
            .await;
        let new_errors = new_errors(session, &result);
        // New as the session counts it: against the text it opened with.
        for d in &mut result.diagnostics {
            d.new = new_errors.contains(&d.diagnostic);
        }
        if result.classification != Classification::LspUnavailable {
            result.classification = verdict(&new_errors, &result.diagnostics);
        }
        SessionAnswer {
            session: session.id.clone(),
            message,
            files: session.states(),
            new_errors,
            result: Some(result),
        }
    }

    /// Puts every server's copy of the session's files back to the disk's
    /// text (closing those the disk does not have).
    pub(super) async fn restore_disk(&self, session: &Session) {
        for canonical in session.files.keys() {
            match crate::edit::read_regular_string(canonical, crate::edit::MAX_READ_BYTES) {
                Ok(text) => self.restore(canonical, Arc::from(text)).await,
                Err(_) => {
                    for client in self.pool().clients() {
                        client.close_document(canonical);
                    }
                }
            }
        }
    }
}

/// The errors in `result` that the session's baseline does not explain:
/// in its own files matched through a line diff against the text it
/// opened with (`classify`), in other files by position and message.
fn new_errors(session: &Session, result: &ToolResult) -> Vec<Diagnostic> {
    let mut by_file: BTreeMap<&str, Vec<Diagnostic>> = BTreeMap::new();
    for d in &result.diagnostics {
        by_file
            .entry(d.file.as_str())
            .or_default()
            .push(d.diagnostic.clone());
    }
    let own: HashMap<&str, &File> = session
        .files
        .values()
        .map(|f| (f.relative.as_str(), f))
        .collect();
    let mut new = Vec::new();
    for (file, after) in by_file {
        let before = session.baseline.get(file).map_or(&[][..], Vec::as_slice);
        match own.get(file) {
            Some(f) => {
                let before_text = f.base.as_deref().unwrap_or("");
                let after_text = f.text.as_deref().unwrap_or("");
                let delta = classify(before, before_text, &after, after_text, true);
                new.extend(
                    delta
                        .introduced
                        .iter()
                        .map(|&i| after[i].clone())
                        .filter(|d| d.severity == Severity::Error),
                );
            }
            None => new.extend(after.into_iter().filter(|d| {
                d.severity == Severity::Error
                    && !before
                        .iter()
                        .any(|b| b.line == d.line && b.column == d.column && b.message == d.message)
            })),
        }
    }
    new
}

/// The session's verdict: new errors, else old errors, else warnings, else clean.
pub(super) fn verdict(new_errors: &[Diagnostic], all: &[Reported]) -> Classification {
    if !new_errors.is_empty() {
        Classification::NewErrors
    } else if all.iter().any(|d| d.severity == Severity::Error) {
        Classification::BaselineError
    } else if !all.is_empty() {
        Classification::WarningsOnly
    } else {
        Classification::Clean
    }
}
