//! The session calls on the engine: open (the disk's state checked as the
//! baseline), edit, evaluate, chain, commit (through the engine's write
//! transaction, refused when a file changed on disk) and discard.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::answers::{ChainAnswer, ChainStep, SessionAnswer};
use super::evaluate::verdict;
use crate::baseline::Classification;
use crate::config::Mutation;
use crate::engine::Engine;
use crate::engine::tools::{Mode, ToolResult, Touched};
use crate::sessions::session::{Session, digest};
use crate::sessions::store::Held;
use crate::sessions::{Edit, Owner, SessionError};

impl Engine {
    /// Opens a session over `paths` (files that do not exist yet may be
    /// created in it) for `owner`, the only client that may use it: reads
    /// each from disk and checks that state, which becomes the baseline.
    pub async fn session_open(
        self: &Arc<Self>,
        owner: Owner,
        paths: &[String],
    ) -> Result<SessionAnswer, SessionError> {
        if paths.is_empty() {
            return Err(SessionError::NoFiles);
        }
        let sessions = self.sessions();
        let id = sessions.next_id()?;
        let files = self.read_files(&id, paths)?;
        let mut session = Session {
            id: id.clone(),
            files,
            baseline: HashMap::new(),
            closed: None,
        };
        let bytes = session.bytes();
        if bytes > sessions.limits().max_bytes {
            return Err(SessionError::TooLarge {
                session: id,
                bytes,
                max: sessions.limits().max_bytes,
            });
        }
        // The disk's state, checked as an ordinary check (and remembered as
        // the "before" of these files): the baseline.
        let touched = session
            .files
            .iter()
            .filter_map(|(p, f)| {
                f.base
                    .as_ref()
                    .map(|t| Touched::written(p.clone(), Some(t), t))
            })
            .collect::<Vec<_>>();
        let message = format!(
            "Session {id} opened over {} file(s); the diagnostics below were there before it.",
            session.files.len()
        );
        // A listing of what is there, not a change: no evidence record.
        let listing = crate::engine::Change {
            recorded: false,
            ..crate::engine::Change::of(message.clone(), Mutation::Write, Mode::Apply)
        };
        let mut result = self.report(listing, touched).await;
        // Everything found now was there before the session.
        if result.classification != Classification::LspUnavailable {
            result.classification = verdict(&[], &result.diagnostics);
        }
        result.baseline_known = true;
        for d in &mut result.diagnostics {
            d.new = false;
        }
        for d in &result.diagnostics {
            session
                .baseline
                .entry(d.file.clone())
                .or_default()
                .push(d.diagnostic.clone());
        }
        let answer = SessionAnswer {
            session: id.clone(),
            message,
            files: session.states(),
            new_errors: Vec::new(),
            result: Some(result),
        };
        sessions.insert(session, owner)?;
        Ok(answer)
    }

    /// Applies `edits` to the text of `owner`'s session `id` (all or
    /// none); with `evaluate`, evaluates the result. Every session call
    /// finds only its owner's sessions.
    pub async fn session_edit(
        self: &Arc<Self>,
        owner: Owner,
        id: &str,
        edits: &[Edit],
        evaluate: bool,
    ) -> Result<SessionAnswer, SessionError> {
        let handle = self.sessions().get(id, owner)?;
        let (engine, id, edits) = (self.clone(), id.to_string(), edits.to_vec());
        to_the_end(async move { engine.edit_now(handle, &id, &edits, evaluate).await }).await
    }

    /// [`Engine::session_edit`] in its own task.
    async fn edit_now(
        self: &Arc<Self>,
        handle: Held,
        id: &str,
        edits: &[Edit],
        evaluate: bool,
    ) -> Result<SessionAnswer, SessionError> {
        let mut session = handle.lock_owned().await;
        session.usable()?;
        self.apply_edits(&mut session, edits)?;
        let answer = if evaluate {
            self.evaluate(&session).await
        } else {
            SessionAnswer {
                session: session.id.clone(),
                message: format!(
                    "{} edit(s) applied to session {id}; nothing was written.",
                    edits.len()
                ),
                files: session.states(),
                new_errors: Vec::new(),
                result: None,
            }
        };
        self.sessions().touch(id);
        Ok(answer)
    }

    /// The session's text against its baseline.
    pub async fn session_evaluate(
        self: &Arc<Self>,
        owner: Owner,
        id: &str,
    ) -> Result<SessionAnswer, SessionError> {
        let handle = self.sessions().get(id, owner)?;
        let (engine, id) = (self.clone(), id.to_string());
        to_the_end(async move {
            let session = handle.lock_owned().await;
            session.usable()?;
            let answer = engine.evaluate(&session).await;
            engine.sessions().touch(&id);
            Ok(answer)
        })
        .await
    }

    /// Applies `edits` one step at a time, evaluating after each; with
    /// `stop_on_new_errors`, stops after the first step that leaves errors
    /// the session did not open with (it stays applied).
    pub async fn session_chain(
        self: &Arc<Self>,
        owner: Owner,
        id: &str,
        edits: &[Edit],
        stop_on_new_errors: bool,
    ) -> Result<ChainAnswer, SessionError> {
        let handle = self.sessions().get(id, owner)?;
        let (engine, id, edits) = (self.clone(), id.to_string(), edits.to_vec());
        to_the_end(async move {
            engine
                .chain_now(handle, &id, &edits, stop_on_new_errors)
                .await
        })
        .await
    }

    /// [`Engine::session_chain`] in its own task.
    async fn chain_now(
        self: &Arc<Self>,
        handle: Held,
        id: &str,
        edits: &[Edit],
        stop_on_new_errors: bool,
    ) -> Result<ChainAnswer, SessionError> {
        let mut session = handle.lock_owned().await;
        session.usable()?;
        let mut steps = Vec::new();
        let mut stopped_at = None;
        let mut last = None;
        let mut failed = None;
        // One exclusive hold for the whole chain: the servers go back to
        // the disk's text once, at its end.
        self.sessions()
            .gate()
            .exclusive(async {
                for (index, edit) in edits.iter().enumerate() {
                    if let Err(e) = self.apply_edits(&mut session, std::slice::from_ref(edit)) {
                        failed = Some((index + 1, e));
                        break;
                    }
                    let answer = self.evaluate_now(&session).await;
                    let classification = answer
                        .result
                        .as_ref()
                        .map_or(Classification::LspUnavailable, |r| r.classification);
                    steps.push(ChainStep {
                        step: index + 1,
                        classification,
                        new_errors: answer.new_errors.clone(),
                    });
                    let adds = !answer.new_errors.is_empty();
                    last = answer.result;
                    if stop_on_new_errors && adds {
                        stopped_at = Some(index + 1);
                        break;
                    }
                }
                self.restore_disk(&session).await;
            })
            .await;
        self.sessions().touch(id);
        let message = match (&failed, stopped_at) {
            (Some((step, e)), _) => format!(
                "Session {id}: step {step} could not be applied ({e}); the steps before it are applied."
            ),
            (None, Some(step)) => format!(
                "Session {id}: stopped after step {step}, which added errors; it stays applied, the {} later step(s) were not. Nothing was written.",
                edits.len() - step
            ),
            (None, None) => format!(
                "Session {id}: {} step(s) applied and evaluated; nothing was written.",
                steps.len()
            ),
        };
        Ok(ChainAnswer {
            session: id.to_string(),
            message,
            steps,
            stopped_at,
            files: session.states(),
            result: last,
        })
    }

    /// Writes every changed file of the session, all or none, and closes
    /// it; refused, with nothing written, when a file changed on disk
    /// since the session opened.
    pub async fn session_commit(
        self: &Arc<Self>,
        owner: Owner,
        id: &str,
    ) -> Result<ToolResult, SessionError> {
        // Not in a task of its own: a commit whose caller hung up before it
        // wrote never writes, as a hung-up mutation never lands.
        let handle = self.sessions().get(id, owner)?;
        self.commit_now(handle, id).await
    }

    /// [`Engine::session_commit`] once the session is found.
    async fn commit_now(
        self: &Arc<Self>,
        handle: Held,
        id: &str,
    ) -> Result<ToolResult, SessionError> {
        let mut session = handle.lock_owned().await;
        session.usable()?;
        let max = self.sessions().limits().max_bytes as u64;
        for (canonical, file) in &session.files {
            self.still_at(id, canonical, &file.relative)?;
            let now = match crate::edit::read_regular(canonical, max) {
                Ok(bytes) => Some(digest(&bytes)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => {
                    return Err(SessionError::Read {
                        path: file.relative.clone(),
                        reason: e.to_string(),
                    });
                }
            };
            if now != file.digest {
                return Err(SessionError::ChangedOnDisk {
                    session: id.to_string(),
                    path: file.relative.clone(),
                });
            }
        }
        let changed: Vec<(PathBuf, Option<String>, String)> = session
            .files
            .iter()
            .filter(|(_, f)| f.changed())
            .filter_map(|(p, f)| {
                let text = f.text.as_ref()?;
                Some((
                    p.clone(),
                    f.base.as_deref().map(str::to_string),
                    text.to_string(),
                ))
            })
            .collect();
        let message = format!("Session {id} committed: {} file(s) written.", changed.len());
        let result = self
            .write_all(message, changed)
            .await
            .map_err(|e| SessionError::Write(format!("{e}; session {id} is still open")))?;
        session.closed = Some("committed");
        drop(session);
        self.sessions().remove(id);
        Ok(result)
    }

    /// Forgets the session; every server has the disk's text.
    pub async fn session_discard(
        self: &Arc<Self>,
        owner: Owner,
        id: &str,
    ) -> Result<SessionAnswer, SessionError> {
        let handle = self.sessions().get(id, owner)?;
        let (engine, id) = (self.clone(), id.to_string());
        to_the_end(async move { engine.discard_now(handle, &id).await }).await
    }

    async fn discard_now(
        self: &Arc<Self>,
        handle: Held,
        id: &str,
    ) -> Result<SessionAnswer, SessionError> {
        let mut session = handle.lock_owned().await;
        session.usable()?;
        // Evaluations already give the servers the disk's text back; this
        // makes sure of it.
        self.sessions()
            .gate()
            .exclusive(self.restore_disk(&session))
            .await;
        let answer = SessionAnswer {
            session: id.to_string(),
            message: format!("Session {id} discarded; nothing was written."),
            files: session.states(),
            new_errors: Vec::new(),
            result: None,
        };
        session.closed = Some("discarded");
        drop(session);
        self.sessions().remove(id);
        Ok(answer)
    }

    /// Applies `edits` to `session`, all or none, within its size bound.
    fn apply_edits(&self, session: &mut Session, edits: &[Edit]) -> Result<(), SessionError> {
        let resolve = |p: &str| self.session_path(p).map(|(c, _)| c);
        let texts = session.apply(edits, &resolve)?;
        // The disk's texts it opened with count too: an edited file is
        // held twice.
        let bytes = session.bytes_with(&texts);
        let max = self.sessions().limits().max_bytes;
        if bytes > max {
            return Err(SessionError::TooLarge {
                session: session.id.clone(),
                bytes,
                max,
            });
        }
        for (path, text) in texts {
            if let Some(file) = session.files.get_mut(&path) {
                file.text = text;
            }
        }
        Ok(())
    }
}

/// Runs `work` as a task of its own and waits for it. A caller that hangs
/// up drops only the wait: the work still ends whole, so an evaluation
/// always gives every server the disk's text back before it lets the
/// servers go, and a commit either writes every file or none.
async fn to_the_end<T: Send + 'static>(
    work: impl Future<Output = Result<T, SessionError>> + Send + 'static,
) -> Result<T, SessionError> {
    match tokio::spawn(work).await {
        Ok(answer) => answer,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(_) => Err(SessionError::Write(
            "the session call was stopped as the daemon shut down".into(),
        )),
    }
}
