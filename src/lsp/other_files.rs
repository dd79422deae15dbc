//! The wait on another open file after an edit to a different one: its
//! diagnostics are current once the server is done with the edit, by the
//! server's profile (`decide::decide_other`), not when the file gets a fresh
//! publish of its own, which a server with nothing new to say for it never
//! sends.

use std::sync::Arc;

use serde_json::Value;
use tokio::sync::OnceCell;
use tokio::time::Instant;

use super::client::LspClient;
use super::decide::{Answer, Decision, OtherView, decide_other};
use super::diagnostics::DiagnosticsReport;
use super::documents::DocumentVersion;

/// Where the edit of another file stands on one server, for the wait on the
/// files that did not change (`other_file_diagnostics`).
#[derive(Debug, Clone)]
pub struct EditMark {
    /// The server's `received_count()` once the last edited file was written:
    /// what arrives after it answers the edit.
    pub seq: u64,
    /// When the edit was written: a server's quiet is counted from its last
    /// publish after this, so the edited file's own settle window counts
    /// towards the other files' quiet instead of being waited twice.
    pub at: Instant,
    /// Every edited file's wait on this server ended settled or pulled.
    pub done: bool,
    /// Whether the server answered its idle request
    /// (`WaitProfile::idle_request`) sent after the edit: asked once, by
    /// the first wait on another file, for them all.
    pub idle: Arc<OnceCell<bool>>,
}

impl EditMark {
    pub fn new(seq: u64, at: Instant, done: bool) -> EditMark {
        EditMark {
            seq,
            at,
            done,
            idle: Arc::default(),
        }
    }
}

impl LspClient {
    /// The diagnostics of `doc`, another file the server has open, once the
    /// server is done with a change to a different file (written at
    /// `since`) — by the server's profile, not by a fresh publish of `doc`,
    /// which a server may never send when nothing changed for it. A
    /// document changed or opened for this check (`doc.changed_at > since`)
    /// and a server that pulls (or answers a synchronous pull) are waited on
    /// like the edited file.
    pub async fn other_file_diagnostics(
        &self,
        doc: &DocumentVersion,
        edit: &EditMark,
        deadline: Instant,
    ) -> DiagnosticsReport {
        let since = edit.seq;
        let profile = &self.inner.config.wait;
        if doc.changed_at > since || self.pulls_diagnostics() || profile.sync_pull.is_some() {
            return self.diagnostics_since(doc, since, deadline).await;
        }
        let started = Instant::now();
        let mut wakeups = self.inner.state.for_document(&doc.uri);
        let idle = async {
            match &profile.idle_request {
                Some(method) => {
                    *edit
                        .idle
                        .get_or_init(|| self.idle_answer(method, deadline))
                        .await
                }
                None => false,
            }
        };
        tokio::pin!(idle);
        // `None`: not answered yet (or not asked: the wait ended first).
        let mut idle_answered: Option<bool> = None;
        loop {
            wakeups.mark_seen();
            let (view, latest) = {
                let state = self.state();
                let published = state.published.get(&doc.uri);
                let status = state.file_status.get(&doc.uri);
                let view = OtherView {
                    edited_done: edit.done,
                    republished: published.is_some_and(|p| p.seq > since),
                    status_since: status.is_some_and(|s| s.seq > since),
                    idle_after_work: status
                        .filter(|s| s.idle && s.worked > since)
                        .and_then(|s| s.at)
                        .map(Instant::from_std),
                    last_publish: state.last_publish.map(Instant::from_std),
                    busy: state.busy_since(since, profile),
                    idle_pending: profile.idle_request.is_some() && idle_answered.is_none(),
                    pass_done: idle_answered == Some(true) || state.pass_done_since(since, profile),
                    dead: self.inner.is_dead(),
                };
                let latest = published.map(|p| p.diagnostics.clone());
                (view, latest)
            };
            match decide_other(&view, profile, edit.at, deadline, Instant::now()) {
                Decision::Done(outcome, answer) => {
                    let diagnostics = match answer {
                        Answer::Unknown => Arc::from([]),
                        _ => latest.unwrap_or_else(|| Arc::from([])),
                    };
                    return DiagnosticsReport {
                        outcome,
                        diagnostics,
                        elapsed: started.elapsed(),
                    };
                }
                decision if idle_answered.is_none() && profile.idle_request.is_some() => {
                    tokio::select! {
                        answered = &mut idle => idle_answered = Some(answered),
                        () = wakeups.until(decision.wake_at(deadline)) => {}
                    }
                }
                decision => wakeups.until(decision.wake_at(deadline)).await,
            }
        }
    }

    /// Whether the server answered `method`, sent now, before `deadline`
    /// (`WaitProfile::idle_request`): it answers once every file's work is
    /// done and published.
    async fn idle_answer(&self, method: &str, deadline: Instant) -> bool {
        let remaining = deadline.saturating_duration_since(Instant::now());
        match self
            .request_with_timeout(method, Value::Null, remaining)
            .await
        {
            Ok(_) => true,
            Err(e) => {
                tracing::debug!(server = %self.server_id(), method, "no idle answer: {e}");
                false
            }
        }
    }
}
