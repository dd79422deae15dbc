//! Speculative sessions: "what if I made these edits?" asked of the real
//! servers without writing anything. A session is opened over a set of
//! files; edits change its text in memory; an evaluation shows the
//! servers that text (didOpen / didChange, nothing written) and answers
//! the diagnostics delta against the session's baseline, shaped as an
//! edit's result; a chain evaluates after each step; commit writes every
//! changed file in one transaction, exactly as `apply_patch` does; discard
//! forgets it.
//!
//! Sessions live beside the engine, not in a second one: they use its
//! pool, its check and its write path. The rule that keeps them honest
//! (`gate`): servers see a session's text only during that session's own
//! evaluation, which has the servers to itself; before it ends every
//! server's copy goes back to the disk's text. So no other check or
//! navigation request ever reads a session's text as if it were on disk,
//! and the disk watch has nothing of a session's to overwrite. A file
//! changed on disk during a session (by any tool) makes commit refuse,
//! naming it.
//!
//! Bounds (`[lsp.sessions]`): at most `maxOpen` sessions, each holding at
//! most `maxEditedMiB` of text, each discarded after `idleMinutes`
//! untouched (checked at every session call); a refusal names the limit.

mod gate;
mod session;
pub mod wire;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use tokio::sync::Mutex as AsyncMutex;

pub use gate::{Gate, SharedView};
use session::{File, Session, digest};
pub use wire::{ChainAnswer, ChainStep, Edit, SessionAnswer, SessionFile};

use crate::classify::{Classification, classify};
use crate::config::{Mutation, SessionLimits};
use crate::diagnostic::{Diagnostic, Severity};
use crate::engine::Engine;
use crate::engine::tools::{Mode, ToolResult};
use crate::mutex::lock;
use crate::workspace::PathClass;

/// Why a session call was refused. Nothing changed when it is returned.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SessionError {
    #[error(
        "no session {id} is open ({open}); a session is discarded after {idle} minutes untouched"
    )]
    Unknown { id: String, open: String, idle: u64 },
    #[error(
        "{max} sessions are open, the most lsp.sessions.maxOpen allows; commit or discard one first"
    )]
    TooMany { max: usize },
    #[error(
        "session {session} would hold {} of text, over the {} lsp.sessions.maxEditedMiB allows; nothing was changed",
        size(*bytes), size(*max)
    )]
    TooLarge {
        session: String,
        bytes: usize,
        max: usize,
    },
    #[error("{path} is not in session {session} (it holds {}); open a session over every file the change touches", held.join(", "))]
    NotInSession {
        session: String,
        path: String,
        held: Vec<String>,
    },
    #[error("{path} is outside the workspace {root}")]
    Outside { path: String, root: String },
    #[error("a session needs at least one file")]
    NoFiles,
    #[error("cannot read {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("{0}; the session is unchanged")]
    Edit(String),
    #[error(
        "{path} changed on disk since session {session} opened; nothing was written; discard the session and redo the change on the file as it is now"
    )]
    ChangedOnDisk { session: String, path: String },
    #[error("{0}")]
    Write(String),
}

fn size(bytes: usize) -> String {
    if bytes < 1024 * 1024 {
        format!("{bytes} bytes")
    } else {
        format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
    }
}

/// One open session and when it was last used.
struct Entry {
    session: Arc<AsyncMutex<Session>>,
    touched: Instant,
}

/// The sessions open over one engine, their bounds, and the gate that
/// keeps their text out of other queries.
#[derive(Default)]
pub struct Sessions {
    limits: SessionLimits,
    open: std::sync::Mutex<BTreeMap<String, Entry>>,
    next: AtomicU64,
    gate: Gate,
}

impl Sessions {
    pub fn new(limits: SessionLimits) -> Sessions {
        Sessions {
            limits,
            ..Sessions::default()
        }
    }

    pub fn gate(&self) -> &Gate {
        &self.gate
    }

    /// The ids of the open sessions (idle ones expired first).
    pub fn ids(&self) -> Vec<String> {
        let mut open = lock(&self.open);
        self.expire(&mut open);
        open.keys().cloned().collect()
    }

    /// Drops sessions untouched for the idle limit (not one in use).
    fn expire(&self, open: &mut BTreeMap<String, Entry>) {
        let now = Instant::now();
        open.retain(|id, e| {
            let idle = now.saturating_duration_since(e.touched) >= self.limits.idle;
            let expired = idle && e.session.try_lock().is_ok();
            if expired {
                tracing::info!(session = %id, "session discarded after {} minutes idle", self.limits.idle.as_secs() / 60);
            }
            !expired
        });
    }

    fn get(&self, id: &str) -> Result<Arc<AsyncMutex<Session>>, SessionError> {
        let mut open = lock(&self.open);
        self.expire(&mut open);
        let ids: Vec<String> = open.keys().cloned().collect();
        match open.get_mut(id) {
            Some(entry) => {
                entry.touched = Instant::now();
                Ok(entry.session.clone())
            }
            None => Err(SessionError::Unknown {
                id: id.to_string(),
                open: if ids.is_empty() {
                    "none is".into()
                } else {
                    format!("open: {}", ids.join(", "))
                },
                idle: self.limits.idle.as_secs() / 60,
            }),
        }
    }

    fn touch(&self, id: &str) {
        if let Some(entry) = lock(&self.open).get_mut(id) {
            entry.touched = Instant::now();
        }
    }

    fn remove(&self, id: &str) {
        lock(&self.open).remove(id);
    }
}

impl Engine {
    /// Opens a session over `paths` (files that do not exist yet may be
    /// created in it): reads each from disk and checks that state, which
    /// becomes the baseline.
    pub async fn session_open(
        self: &Arc<Self>,
        paths: &[String],
    ) -> Result<SessionAnswer, SessionError> {
        if paths.is_empty() {
            return Err(SessionError::NoFiles);
        }
        let sessions = self.sessions();
        if sessions.ids().len() >= sessions.limits.max_open {
            return Err(SessionError::TooMany {
                max: sessions.limits.max_open,
            });
        }
        let id = format!("s{}", sessions.next.fetch_add(1, Ordering::Relaxed) + 1);
        let mut files = BTreeMap::new();
        for path in paths {
            let (canonical, relative) = self.session_path(path)?;
            let bytes = match std::fs::read(&canonical) {
                Ok(bytes) => Some(bytes),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => {
                    return Err(SessionError::Read {
                        path: relative,
                        reason: e.to_string(),
                    });
                }
            };
            let base = match &bytes {
                Some(b) => Some(Arc::<str>::from(String::from_utf8(b.clone()).map_err(
                    |_| SessionError::Read {
                        path: relative.clone(),
                        reason: "it is not valid UTF-8 text".into(),
                    },
                )?)),
                None => None,
            };
            let file = File {
                relative,
                digest: bytes.as_deref().map(digest),
                text: base.clone(),
                base,
            };
            files.insert(canonical, file);
        }
        let mut session = Session {
            id: id.clone(),
            files,
            baseline: HashMap::new(),
        };
        let bytes = session.bytes();
        if bytes > sessions.limits.max_bytes {
            return Err(SessionError::TooLarge {
                session: id,
                bytes,
                max: sessions.limits.max_bytes,
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
                    .map(|t| (p.clone(), Some(t.to_string()), t.clone()))
            })
            .collect::<Vec<_>>();
        let message = format!(
            "Session {id} opened over {} file(s); the diagnostics below were there before it.",
            session.files.len()
        );
        let mut result = self
            .feedback(message.clone(), touched, Mutation::Write, Mode::Apply)
            .await;
        // Everything found now was there before the session.
        if result.classification != Classification::LspUnavailable {
            result.classification = verdict(&[], &result.diagnostics);
        }
        result.baseline_known = true;
        for d in &result.diagnostics {
            session
                .baseline
                .entry(d.file.clone())
                .or_default()
                .push(d.clone());
        }
        let answer = SessionAnswer {
            session: id.clone(),
            message,
            files: session.states(),
            new_errors: Vec::new(),
            result: Some(result),
        };
        let mut open = lock(&sessions.open);
        if open.len() >= sessions.limits.max_open {
            return Err(SessionError::TooMany {
                max: sessions.limits.max_open,
            });
        }
        open.insert(
            id,
            Entry {
                session: Arc::new(AsyncMutex::new(session)),
                touched: Instant::now(),
            },
        );
        Ok(answer)
    }

    /// Applies `edits` to the session's text (all or none); with
    /// `evaluate`, evaluates the result.
    pub async fn session_edit(
        self: &Arc<Self>,
        id: &str,
        edits: &[Edit],
        evaluate: bool,
    ) -> Result<SessionAnswer, SessionError> {
        let handle = self.sessions().get(id)?;
        let mut session = handle.lock().await;
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
        id: &str,
    ) -> Result<SessionAnswer, SessionError> {
        let handle = self.sessions().get(id)?;
        let session = handle.lock().await;
        let answer = self.evaluate(&session).await;
        self.sessions().touch(id);
        Ok(answer)
    }

    /// Applies `edits` one step at a time, evaluating after each; with
    /// `stop_on_new_errors`, stops after the first step that leaves errors
    /// the session did not open with (it stays applied).
    pub async fn session_chain(
        self: &Arc<Self>,
        id: &str,
        edits: &[Edit],
        stop_on_new_errors: bool,
    ) -> Result<ChainAnswer, SessionError> {
        let handle = self.sessions().get(id)?;
        let mut session = handle.lock().await;
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
    pub async fn session_commit(self: &Arc<Self>, id: &str) -> Result<ToolResult, SessionError> {
        let handle = self.sessions().get(id)?;
        let session = handle.lock().await;
        for (canonical, file) in &session.files {
            let now = match std::fs::read(canonical) {
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
        drop(session);
        self.sessions().remove(id);
        Ok(result)
    }

    /// Forgets the session; every server has the disk's text.
    pub async fn session_discard(
        self: &Arc<Self>,
        id: &str,
    ) -> Result<SessionAnswer, SessionError> {
        let handle = self.sessions().get(id)?;
        let session = handle.lock().await;
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
        drop(session);
        self.sessions().remove(id);
        Ok(answer)
    }

    /// A path as given, resolved: canonical and workspace-relative.
    fn session_path(&self, path: &str) -> Result<(PathBuf, String), SessionError> {
        match self.workspace.classify(std::path::Path::new(path)) {
            PathClass::Inside {
                canonical,
                relative,
            }
            | PathClass::Ignored {
                canonical,
                relative,
                ..
            } => Ok((canonical, relative)),
            PathClass::Outside { canonical } => Err(SessionError::Outside {
                path: canonical.display().to_string(),
                root: self.workspace.root().display().to_string(),
            }),
        }
    }

    /// Applies `edits` to `session`, all or none, within its size bound.
    fn apply_edits(&self, session: &mut Session, edits: &[Edit]) -> Result<(), SessionError> {
        let resolve = |p: &str| self.session_path(p).map(|(c, _)| c);
        let texts = session.apply(edits, &resolve)?;
        let bytes: usize = texts.values().flatten().map(|t| t.len()).sum();
        let max = self.sessions().limits.max_bytes;
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

    /// An evaluation with the servers to itself, then their disk texts back.
    async fn evaluate(self: &Arc<Self>, session: &Session) -> SessionAnswer {
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
    async fn evaluate_now(self: &Arc<Self>, session: &Session) -> SessionAnswer {
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
                Some((p.clone(), f.base.as_deref().map(str::to_string), text))
            })
            .collect::<Vec<_>>();
        let changed = touched.len();
        let moved: Vec<&str> = session
            .files
            .iter()
            .filter(|(p, f)| std::fs::read(p).ok().map(|b| digest(&b)) != f.digest)
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
        let texts: Vec<(PathBuf, Arc<str>)> = touched
            .iter()
            .map(|(p, _, t)| (p.clone(), t.clone()))
            .collect();
        self.show(&texts).await;
        let mut result = self
            .feedback(message.clone(), touched, Mutation::Write, Mode::DryRun)
            .await;
        let new_errors = new_errors(session, &result);
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

    /// Sends every changed file's text to each of its servers in one
    /// write per server, before the check waits on any: a server that
    /// analyses between two changes (pyright publishes an importer the
    /// moment it has it) would otherwise answer for the importer's new
    /// text against the imported file's old one, and the check could take
    /// that answer before the corrected one. The check then finds the text
    /// already sent and waits for the server's answer to it.
    async fn show(self: &Arc<Self>, texts: &[(PathBuf, Arc<str>)]) {
        let mut held = Vec::new();
        for (path, text) in texts {
            let Ok(files) = self.servers_for(path) else {
                continue;
            };
            for candidate in &files.candidates {
                if let Ok(checkout) = self.start_candidate(candidate).await {
                    held.push((checkout, path, candidate.language.clone(), text.clone()));
                }
            }
        }
        let syncs = held
            .iter()
            .map(|(c, path, language, text)| c.client.sync_document(path, language, text.clone()));
        in_order(syncs.collect()).await;
    }

    /// Puts every server's copy of the session's files back to the disk's
    /// text (closing those the disk does not have).
    async fn restore_disk(&self, session: &Session) {
        for canonical in session.files.keys() {
            match std::fs::read_to_string(canonical) {
                Ok(text) => self.restore(canonical, Arc::from(text)).await,
                Err(_) => {
                    for client in self.pool.clients() {
                        client.close_document(canonical);
                    }
                }
            }
        }
    }
}

/// Runs `futures` together, polling each first in the order given: what
/// each does before its first wait (a sync queues its message) happens in
/// that order, before any of them waits.
async fn in_order<F: std::future::Future>(futures: Vec<F>) {
    let mut pending: Vec<Option<std::pin::Pin<Box<F>>>> =
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

/// The errors in `result` that the session's baseline does not explain:
/// in its own files matched through a line diff against the text it
/// opened with (`classify`), in other files by position and message.
fn new_errors(session: &Session, result: &ToolResult) -> Vec<Diagnostic> {
    let mut by_file: BTreeMap<&str, Vec<Diagnostic>> = BTreeMap::new();
    for d in &result.diagnostics {
        by_file.entry(d.file.as_str()).or_default().push(d.clone());
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
fn verdict(new_errors: &[Diagnostic], all: &[Diagnostic]) -> Classification {
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
