//! "What are this server's diagnostics for the exact version I just gave it?"
//!
//! Resolved as early as the protocol allows:
//! 1. Pull (declared statically or registered dynamically): ask with
//!    `textDocument/diagnostic`. The answer is for the version on the wire
//!    before the request, so it is exact; no settle wait.
//! 2. Push: a publish counts only if it carries version V, or carries no
//!    version and arrived after the change for V was written (and, for a
//!    server with a stale window, at least that long after: a round it began
//!    before the change can still publish the old text's diagnostics right
//!    after it). An older version never counts. After a counting publish,
//!    wait the settle window for further waves (a new counting publish
//!    restarts it), and while work-done progress begun after the change is
//!    still open (rust-analyzer runs cargo check after didSave inside one).
//! 3. An unversioned push server that stays silent for `UNCHANGED_QUIET`
//!    after the change, with an earlier publish held for the document, is
//!    taken to have nothing new (typescript-language-server does not repeat
//!    an unchanged set): that publish is the answer.
//! 4. At the deadline, return what is known for V, marked `timed_out`.
//!
//! A server that registers pull while we wait (pyright, ruff do so right
//! after `initialized`) switches the wait to pull.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::client::{ClientError, LspClient, lock};
use super::documents::DocumentVersion;
use super::message::codes;
use super::state::{LspDiagnostic, Pulled};
use crate::diagnostic::Outcome;

/// How one wait ended and what it found.
#[derive(Debug, Clone)]
pub struct DiagnosticsReport {
    pub outcome: Outcome,
    pub diagnostics: Arc<[LspDiagnostic]>,
    pub elapsed: Duration,
}

const PULL_METHOD: &str = "textDocument/diagnostic";

/// How long an unversioned push server may stay silent after a change before
/// its earlier publish for the document is taken as still true.
/// typescript-language-server 5.3.0 publishes only when a file's diagnostics
/// changed, so an edit that changes none (a blank line, a restored file) gets
/// no publish at all; its changed diagnostics arrive within 0.4–0.6 s of a
/// warm change (`scripts/server-report`, `docs/servers.md`).
const UNCHANGED_QUIET: Duration = Duration::from_millis(2000);

/// How long a partial-pull wait stays once the on-save check begun after the
/// change has ended (instead of the settle window). rust-analyzer 1.95
/// publishes the check's diagnostics before its progress ends (39 of 40
/// edits, up to 22 ms before), or just after it (once, 0.7 ms;
/// `scripts/ra-check-probe`). A check cancelled by a newer save also ends
/// its progress, and the next one begins 60–67 ms later (a 50 ms debounce,
/// then cargo's spawn); a save we sent after the check began already keeps
/// the settle window, and this grace outlasts that gap for a save that
/// raced the check's start (unless the restart takes longer than the grace:
/// the known limit in `docs/servers.md`).
const CHECK_END_GRACE: Duration = Duration::from_millis(100);

/// How waiting on a partial pull answer ended.
enum Partial {
    Done(Outcome, Arc<[LspDiagnostic]>),
    /// The server asked for a re-pull (`workspace/diagnostic/refresh`).
    Repull,
}

/// What a partial-pull wait has seen of the server's on-save check, kept
/// across re-pulls.
#[derive(Default)]
struct CheckWatch {
    /// A check (progress named like one, or a push) began after the change.
    began: bool,
    /// The document was saved again because none had.
    resaved: bool,
}

impl LspClient {
    /// Whether diagnostics are pulled from this server (static or dynamic).
    pub fn pulls_diagnostics(&self) -> bool {
        self.facts().is_some_and(|f| f.static_pull)
            || lock(&self.inner.state).has_registration(PULL_METHOD)
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
        let mut wakeups = self.inner.signals.for_document(&doc.uri);
        let started = Instant::now();
        let settle = self.inner.config.settle;
        let mut settle_until: Option<Instant> = None;
        let mut last_counted_seq = 0u64;
        loop {
            if self.pulls_diagnostics() {
                return self.pull(doc, since, deadline).await;
            }
            wakeups.mark_seen();
            let (counting, unchanged, busy, dead) = {
                let state = lock(&self.inner.state);
                let held = state.published.get(&doc.uri);
                let counting = held
                    .filter(|p| p.seq > since)
                    .filter(|p| match p.version {
                        Some(v) => v == doc.version,
                        None => {
                            p.seq > doc.changed_at
                                && p.arrived >= doc.written + self.inner.config.stale_window
                        }
                    })
                    .cloned();
                // An unversioned server's publish from before the change: it
                // stands if the server stays silent (see UNCHANGED_QUIET).
                let unchanged = held.filter(|p| p.version.is_none()).cloned();
                (
                    counting,
                    unchanged,
                    state.busy_since(doc.changed_at.max(since)),
                    self.inner.is_dead(),
                )
            };
            let known = counting
                .as_ref()
                .map_or_else(|| Arc::from([]), |p| p.diagnostics.clone());
            if dead {
                return (Outcome::ServerDead, known);
            }
            if let Some(p) = &counting
                && p.seq != last_counted_seq
            {
                last_counted_seq = p.seq;
                settle_until = Some(Instant::now() + settle);
            }
            let now = Instant::now();
            if let Some(until) = settle_until
                && now >= until
                && !busy
            {
                return (Outcome::Settled, known);
            }
            let quiet_until = started + UNCHANGED_QUIET.max(settle);
            if counting.is_none()
                && !busy
                && now >= quiet_until
                && let Some(held) = &unchanged
            {
                return (Outcome::Settled, held.diagnostics.clone());
            }
            if now >= deadline {
                return (Outcome::TimedOut, known);
            }
            let wake = match settle_until {
                Some(until) if !busy => until.min(deadline),
                _ if counting.is_none() && unchanged.is_some() && !busy => {
                    quiet_until.min(deadline)
                }
                _ => deadline,
            };
            // This document's publish, any other event, or the next timer.
            wakeups.until(wake).await;
        }
    }

    async fn pull(
        &self,
        doc: &DocumentVersion,
        since: u64,
        deadline: Instant,
    ) -> (Outcome, Arc<[LspDiagnostic]>) {
        let mut events = self.subscribe();
        let mut checks = CheckWatch::default();
        let mut previous = lock(&self.inner.state)
            .pulled
            .get(&doc.uri)
            .and_then(|p| p.result_id.clone());
        loop {
            let mut params = json!({ "textDocument": { "uri": doc.uri } });
            if let Some(id) = &previous {
                params["previousResultId"] = Value::String(id.clone());
            }
            let identifier = lock(&self.inner.state)
                .registration_options(PULL_METHOD)
                .and_then(|o| o.get("identifier"))
                .cloned()
                .or_else(|| {
                    self.facts()
                        .and_then(|f| f.raw.get("diagnosticProvider")?.get("identifier").cloned())
                });
            if let Some(identifier) = identifier {
                params["identifier"] = identifier;
            }
            let remaining = deadline.saturating_duration_since(Instant::now());
            let refreshes_before = lock(&self.inner.state).refreshes;
            match self
                .request_with_timeout(PULL_METHOD, params, remaining)
                .await
            {
                Ok(report) => match self.store_pull_report(&doc.uri, &report) {
                    Some(diagnostics) if !self.inner.config.pull_is_partial => {
                        return (Outcome::Pulled, diagnostics);
                    }
                    Some(diagnostics) => {
                        match self
                            .complete_partial(
                                doc,
                                since,
                                diagnostics,
                                refreshes_before,
                                &mut checks,
                                deadline,
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
                    // its next event, or shortly.
                    if Instant::now() >= deadline {
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
    ///
    /// rust-analyzer quirks this handles (measured with 1.95, see
    /// `docs/servers.md`):
    /// - Loading is a chain of progress phases with gaps of a few ms between
    ///   them, so the settle window restarts whenever the server goes idle
    ///   rather than running once from the first answer.
    /// - Its cache priming ("Indexing") runs for ~12 s after a cold start and
    ///   produces no diagnostics; it does not hold the wait.
    /// - A save sent while its workspace is still loading may be ignored, so
    ///   no cargo check runs for the change. When the server has gone idle
    ///   and no check began (no check progress, no push) since the change, the
    ///   document is saved again, once, and the wait goes on.
    async fn complete_partial(
        &self,
        doc: &DocumentVersion,
        since: u64,
        pulled: Arc<[LspDiagnostic]>,
        refreshes_before: u64,
        checks: &mut CheckWatch,
        deadline: Instant,
    ) -> Partial {
        let mut wakeups = self.inner.signals.for_document(&doc.uri);
        let after = doc.changed_at.max(since);
        let settle = self.inner.config.settle;
        let mut idle_since = Instant::now();
        let mut was_busy = false;
        let mut was_done = false;
        loop {
            wakeups.mark_seen();
            let (refreshes, busy, checking, check_done, pushed) = {
                let state = lock(&self.inner.state);
                let pushed = state
                    .published
                    .get(&doc.uri)
                    .filter(|p| p.seq > after && p.version.is_none_or(|v| v == doc.version))
                    .map(|p| p.diagnostics.clone());
                let open = || state.progress.iter().filter(|(t, p)| !p.is_background(t));
                let checking = open().any(|(t, p)| p.began > after && p.is_check(t));
                // A check begun after the change has ended, and no save went
                // out since it began (a later save cancels it, see CHECK_END_GRACE).
                let check_done = state.check_ended > after && state.saved_at < state.check_ended;
                (
                    state.refreshes,
                    open().next().is_some(),
                    checking,
                    check_done,
                    pushed,
                )
            };
            checks.began |= checking || check_done || pushed.is_some();
            if refreshes > refreshes_before {
                return Partial::Repull;
            }
            let merged: Arc<[LspDiagnostic]> = match pushed {
                Some(pushed) if !pushed.is_empty() => {
                    let mut all: Vec<LspDiagnostic> = pulled.to_vec();
                    all.extend(pushed.iter().filter(|d| !pulled.contains(d)).cloned());
                    all.into()
                }
                _ => pulled.clone(),
            };
            if self.inner.is_dead() {
                return Partial::Done(Outcome::ServerDead, merged);
            }
            let now = Instant::now();
            // The grace runs from when the check was seen to end, even if
            // its begin and end both came between two wakeups.
            if (was_busy && !busy) || (check_done && !was_done) {
                idle_since = now;
            }
            was_busy = busy;
            was_done = check_done;
            let window = if check_done {
                CHECK_END_GRACE.min(settle)
            } else {
                settle
            };
            let idle_until = idle_since + window;
            if !busy && now >= idle_until {
                if checks.began || checks.resaved || !self.resave(doc) {
                    return Partial::Done(Outcome::Pulled, merged);
                }
                checks.resaved = true;
                idle_since = now;
                continue;
            }
            if now >= deadline {
                return Partial::Done(Outcome::TimedOut, merged);
            }
            let wake = if busy {
                deadline
            } else {
                idle_until.min(deadline)
            };
            wakeups.until(wake).await;
        }
    }

    /// Sends didSave again for `doc` if the server wants saves and still has
    /// this version; returns whether it was sent.
    fn resave(&self, doc: &DocumentVersion) -> bool {
        let Some(include_text) = self.facts().and_then(|f| f.save) else {
            return false;
        };
        let current = lock(&self.inner.state)
            .documents
            .get(&doc.uri)
            .is_some_and(|d| d.version == doc.version);
        if !current {
            return false;
        }
        tracing::debug!(server = %self.server_id(), uri = %doc.uri, "no check began after the change; saving again");
        self.send_save(&doc.uri, include_text.then_some(&*doc.text));
        true
    }

    /// Stores a `DocumentDiagnosticReport` (and its related documents);
    /// returns the diagnostics for `uri`, or None for an `unchanged` report
    /// whose earlier result we do not have.
    fn store_pull_report(&self, uri: &str, report: &Value) -> Option<Arc<[LspDiagnostic]>> {
        let mut state = lock(&self.inner.state);
        if let Some(Value::Object(related)) = report.get("relatedDocuments") {
            for (other, sub) in related {
                if sub.get("kind").and_then(Value::as_str) == Some("full") {
                    let diagnostics = LspDiagnostic::parse_list(sub.get("items"));
                    let result_id = sub
                        .get("resultId")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    state.pulled.insert(
                        other.clone(),
                        Pulled {
                            result_id,
                            diagnostics,
                        },
                    );
                }
            }
        }
        let result_id = report
            .get("resultId")
            .and_then(Value::as_str)
            .map(str::to_string);
        match report.get("kind").and_then(Value::as_str) {
            Some("unchanged") => {
                let held = state.pulled.get_mut(uri)?;
                held.result_id = result_id.or(held.result_id.take());
                Some(held.diagnostics.clone())
            }
            _ => {
                let diagnostics = LspDiagnostic::parse_list(report.get("items"));
                state.pulled.insert(
                    uri.to_string(),
                    Pulled {
                        result_id,
                        diagnostics: diagnostics.clone(),
                    },
                );
                Some(diagnostics)
            }
        }
    }

    /// Every URI with non-empty diagnostics this server has reported (pushed
    /// or pulled), with the latest set for each. Used for "other files".
    pub fn known_diagnostics(&self) -> Vec<(String, Arc<[LspDiagnostic]>)> {
        let state = lock(&self.inner.state);
        let mut all: Vec<(String, Arc<[LspDiagnostic]>)> = state
            .published
            .iter()
            .filter(|(uri, _)| !state.pulled.contains_key(*uri))
            .map(|(uri, p)| (uri.clone(), p.diagnostics.clone()))
            .chain(
                state
                    .pulled
                    .iter()
                    .map(|(uri, p)| (uri.clone(), p.diagnostics.clone())),
            )
            .filter(|(_, d)| !d.is_empty())
            .collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all
    }
}
