//! "What are this server's diagnostics for the exact version I just gave it?"
//!
//! Resolved as early as the protocol allows:
//! 1. Pull (declared statically or registered dynamically): ask with
//!    `textDocument/diagnostic`. The answer is for the version on the wire
//!    before the request, so it is exact; no settle wait.
//! 2. Push: a publish counts only if it carries version V, or carries no
//!    version and arrived after the change for V was written (and, for a
//!    server with a stale window, at least that long after). The rest —
//!    settle windows, open progress, an unversioned server's silence, a
//!    partial pull's on-save check — is decided by `lsp::decide` from the
//!    server's profile (`lsp::profile`); this module takes the snapshots and
//!    acts on the decisions.
//!
//! A server that registers pull while we wait (pyright, ruff do so right
//! after `initialized`) switches the wait to pull.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use super::client::{ClientError, LspClient};
use super::decide::{Answer, Decision, PartialView, PartialWait, PushView, PushWait};
use super::documents::DocumentVersion;
use super::pull_store::{PULL_METHOD, united};
use super::state::LspDiagnostic;
use crate::diagnostic::Outcome;
use crate::jsonrpc::message::codes;
use crate::uri;

/// How one wait ended and what it found.
#[derive(Debug, Clone)]
pub struct DiagnosticsReport {
    pub outcome: Outcome,
    pub diagnostics: Arc<[LspDiagnostic]>,
    pub elapsed: Duration,
}

/// How waiting on a partial pull answer ended.
enum Partial {
    Done(Outcome, Arc<[LspDiagnostic]>),
    /// The server asked for a re-pull (`workspace/diagnostic/refresh`).
    Repull,
}

impl LspClient {
    /// Whether diagnostics are pulled from this server (static or dynamic).
    pub fn pulls_diagnostics(&self) -> bool {
        self.facts().is_some_and(|f| f.static_pull) || self.state().has_registration(PULL_METHOD)
    }

    /// Waits for the diagnostics of `doc` (a version given by `sync_document`)
    /// until they are final or the deadline passes.
    pub async fn diagnostics_for(
        &self,
        doc: &DocumentVersion,
        deadline: Instant,
    ) -> DiagnosticsReport {
        self.diagnostics_since(doc, 0, deadline).await
    }

    /// Like `diagnostics_for`, but a publish counts only if it also arrived
    /// after `since` (a `received_count()` taken earlier). For a document that
    /// did not change while another one did (an importer of an edited file),
    /// its earlier publish for the same version is stale.
    pub async fn diagnostics_since(
        &self,
        doc: &DocumentVersion,
        since: u64,
        deadline: Instant,
    ) -> DiagnosticsReport {
        let started = Instant::now();
        let (outcome, diagnostics) = self.resolve(doc, since, deadline).await;
        DiagnosticsReport {
            outcome,
            diagnostics,
            elapsed: started.elapsed(),
        }
    }

    /// Messages received so far: a point in the server's stream to compare
    /// publishes against.
    pub fn received_count(&self) -> u64 {
        self.inner
            .received
            .load(std::sync::atomic::Ordering::Acquire)
    }

    async fn resolve(
        &self,
        doc: &DocumentVersion,
        since: u64,
        deadline: Instant,
    ) -> (Outcome, Arc<[LspDiagnostic]>) {
        let profile = &self.inner.config.wait;
        if let Some(kind) = profile.sync_pull
            && let Some(path) = uri::to_path(&doc.uri)
            && let Some(diagnostics) = self.sync_pull(kind, &path, deadline).await
        {
            return (Outcome::Pulled, diagnostics);
        }
        let mut wakeups = self.inner.state.for_document(&doc.uri);
        let mut wait = PushWait::new(Instant::now(), deadline);
        loop {
            if self.pulls_diagnostics() {
                return self.pull(doc, since, deadline).await;
            }
            wakeups.mark_seen();
            let (view, counting, held) = {
                let state = self.state();
                let held = state.published.get(&doc.uri);
                let counting = held
                    .filter(|p| p.seq > since)
                    .filter(|p| match p.version {
                        Some(v) => v == doc.version,
                        None => {
                            p.seq > doc.changed_at
                                && (doc.at_once || p.arrived >= doc.written + profile.stale_window)
                        }
                    })
                    .cloned();
                let view = PushView {
                    counting: counting.as_ref().map(|p| p.seq),
                    held_unversioned: held.is_some_and(|p| p.version.is_none()),
                    busy: state.busy_since(doc.changed_at.max(since), profile),
                    pass_done: state.pass_done_since(doc.changed_at.max(since), profile),
                    dead: self.inner.is_dead(),
                };
                (view, counting, held.map(|p| p.diagnostics.clone()))
            };
            match wait.decide(&view, profile, Instant::now()) {
                Decision::Done(outcome, answer) => {
                    let diagnostics = match (answer, counting, held) {
                        (Answer::Held, _, Some(held)) => held,
                        (_, Some(counting), _) if answer != Answer::Unknown => counting.diagnostics,
                        _ => Arc::from([]),
                    };
                    return (outcome, diagnostics);
                }
                // This document's publish, any other event, or the next timer.
                decision => wakeups.until(decision.wake_at(deadline)).await,
            }
        }
    }

    async fn pull(
        &self,
        doc: &DocumentVersion,
        since: u64,
        deadline: Instant,
    ) -> (Outcome, Arc<[LspDiagnostic]>) {
        let mut events = self.subscribe();
        let mut partial = PartialWait::new(Instant::now(), deadline);
        let mut previous = self
            .state()
            .pulled
            .get(&doc.uri)
            .and_then(|p| p.result_id.clone());
        loop {
            let params = self.pull_params(&doc.uri, previous.as_deref());
            let remaining = deadline.saturating_duration_since(Instant::now());
            let refreshes_before = self.state().refreshes;
            match self
                .request_with_timeout(PULL_METHOD, params, remaining)
                .await
            {
                Ok(report) => match self.store_pull_report(&doc.uri, &report) {
                    Some(diagnostics) if !self.inner.config.wait.pull_is_partial => {
                        return (Outcome::Pulled, diagnostics);
                    }
                    Some(diagnostics) => {
                        tracing::trace!(server = %self.server_id(), uri = %doc.uri, items = diagnostics.len(), "partial pull answered");
                        match self
                            .complete_partial(
                                doc,
                                since,
                                diagnostics,
                                refreshes_before,
                                &mut partial,
                            )
                            .await
                        {
                            Partial::Done(outcome, all) => return (outcome, all),
                            Partial::Repull => previous = None,
                        }
                    }
                    // "unchanged" for a result we no longer hold: ask afresh.
                    None if previous.is_some() => previous = None,
                    None => return (Outcome::Pulled, Arc::from([])),
                },
                Err(ClientError::Rpc { error, .. })
                    if error.code == codes::SERVER_CANCELLED
                        || error.code == codes::CONTENT_MODIFIED =>
                {
                    // The server is not ready for this version yet: retry on
                    // its next event, or shortly — unless it said not to
                    // (`retriggerRequest: false`): then nothing is known.
                    tracing::trace!(server = %self.server_id(), uri = %doc.uri, code = error.code, data = ?error.data, "pull cancelled");
                    let retrigger = error
                        .data
                        .as_ref()
                        .and_then(|d| d.get("retriggerRequest"))
                        .and_then(Value::as_bool);
                    if Instant::now() >= deadline || retrigger == Some(false) {
                        return (Outcome::TimedOut, Arc::from([]));
                    }
                    let retry_at = (Instant::now() + Duration::from_millis(50)).min(deadline);
                    let _ = tokio::time::timeout_at(retry_at, events.changed()).await;
                }
                Err(ClientError::Timeout { .. }) => return (Outcome::TimedOut, Arc::from([])),
                Err(ClientError::Dead { .. }) => return (Outcome::ServerDead, Arc::from([])),
                Err(e) => {
                    tracing::debug!(server = %self.server_id(), "pull failed: {e}");
                    return (Outcome::TimedOut, Arc::from([]));
                }
            }
        }
    }

    /// For a server whose pull answers can be partial: after the answer, keep
    /// waiting while it reports work-done progress (loading, cargo check) and
    /// until it has been idle for the settle window, re-pull when it asks with
    /// a refresh, and add what it pushes for this version after the change.
    /// When it goes idle with no check begun since the change (a save sent
    /// while rust-analyzer's workspace loads may be ignored), the document is
    /// saved again, once. The rules are `decide::PartialWait`'s.
    async fn complete_partial(
        &self,
        doc: &DocumentVersion,
        since: u64,
        pulled: Arc<[LspDiagnostic]>,
        refreshes_before: u64,
        wait: &mut PartialWait,
    ) -> Partial {
        let mut wakeups = self.inner.state.for_document(&doc.uri);
        // The edited file's check and pushes count from its change. Another
        // file's (`since`, the edit's mark) count from the edit, even when
        // it was opened only now: the check that answered the edit covered
        // it, and what that check pushed for it before the open is its
        // answer (arrayvec: an importer's `unresolved import`, published
        // before the importer was opened, was lost behind its pull).
        let after = if since > 0 { since } else { doc.changed_at };
        let profile = &self.inner.config.wait;
        wait.pulled(Instant::now());
        loop {
            wakeups.mark_seen();
            let (view, pushed) = self.partial_view(doc, after, refreshes_before);
            let merged = || -> Arc<[LspDiagnostic]> {
                match &pushed {
                    Some(pushed) => united(&pulled, pushed),
                    None => pulled.clone(),
                }
            };
            let now = Instant::now();
            let decision = wait.decide(&view, profile, now);
            tracing::trace!(server = %self.server_id(), uri = %doc.uri, ?view, ?decision, "partial pull");
            match decision {
                Decision::Done(outcome, _) => {
                    tracing::debug!(server = %self.server_id(), uri = %doc.uri, ?outcome, pushed = view.pushed, check_done = view.check_done, "partial pull done");
                    if outcome == Outcome::TimedOut && view.check_expected {
                        self.learn_from_deadline(wait);
                    }
                    return Partial::Done(outcome, merged());
                }
                Decision::Repull => return Partial::Repull,
                Decision::Resave => {
                    self.resave(doc);
                    wait.resaved(now);
                }
                Decision::WakeAt(wake) => wakeups.until(wake).await,
            }
        }
    }

    /// A partial wait that expected a check ran to its deadline: what that
    /// says of this server's checks, so that the next wait does not.
    fn learn_from_deadline(&self, wait: &PartialWait) {
        let mut state = self.state();
        if wait.resaved_in_vain() {
            tracing::info!(server = %self.server_id(), "no check began after a save; its saves are taken to start none from now on");
            state.saves_start_no_check = true;
        } else if wait.only_quiet_checks() && !state.checks_report {
            tracing::info!(server = %self.server_id(), "its checks ended having reported nothing; a check's end is taken as its answer from now on");
            state.quiet_checks = true;
        }
    }

    /// What the partial wait for `doc` sees now, and what was pushed for
    /// it since `after`.
    fn partial_view(
        &self,
        doc: &DocumentVersion,
        after: u64,
        refreshes_before: u64,
    ) -> (PartialView, Option<Arc<[LspDiagnostic]>>) {
        let profile = &self.inner.config.wait;
        let state = self.state();
        let pushed = state
            .published
            .get(&doc.uri)
            .filter(|p| p.seq > after && p.version.is_none_or(|v| v == doc.version))
            .map(|p| p.diagnostics.clone());
        let open = || {
            state
                .progress
                .iter()
                .filter(|(t, p)| !profile.is_background(t, p.title.as_deref()))
        };
        let check_done = state.check_ended > after
            && state.saved_at < state.check_ended
            && state
                .check_ended_began_at
                .zip(state.saved_when)
                .is_none_or(|(began, saved)| began >= saved + profile.check_save_debounce);
        let view = PartialView {
            refreshed: state.refreshes > refreshes_before,
            busy: open().next().is_some(),
            check_seen: state.check_begun > after,
            checking: open()
                .any(|(t, p)| p.began > after && profile.is_check(t, p.title.as_deref())),
            // A check begun after the change has ended, and no save
            // went out since it began (a later save cancels it).
            check_done,
            check_ended_at: state
                .check_ended_at
                .filter(|_| check_done)
                .map(Instant::from_std),
            pushed: pushed.is_some(),
            can_resave: self.can_resave(doc, &state),
            check_expected: profile.save_starts_check && !state.saves_start_no_check,
            dead: self.inner.is_dead(),
        };
        (view, pushed)
    }

    /// Whether the server wants saves and still has this version of `doc`.
    fn can_resave(&self, doc: &DocumentVersion, state: &super::state::ClientState) -> bool {
        self.facts().and_then(|f| f.save).is_some()
            && state
                .documents
                .get(&doc.uri)
                .is_some_and(|d| d.version == doc.version)
    }

    /// Sends didSave again for `doc` (the decision checked it may).
    fn resave(&self, doc: &DocumentVersion) {
        let Some(include_text) = self.facts().and_then(|f| f.save) else {
            return;
        };
        tracing::debug!(server = %self.server_id(), uri = %doc.uri, "no check began after the change; saving again");
        self.send_save(&doc.uri, include_text.then_some(&*doc.text));
    }
}
