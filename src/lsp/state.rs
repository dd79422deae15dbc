//! What a client knows about its server between messages: dynamic
//! registrations, open work-done progress, open documents, and the latest
//! diagnostics per document — pushed or pulled, each with the document
//! version it belongs to. Plain data behind one mutex, never held across an
//! await. Each change the server causes says whom it concerns (`Wake`), and
//! `wakeups::SharedState` wakes them.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use lsp_types::{Position, Range};

use super::profile::WaitProfile;
use serde_json::Value;

/// One diagnostic as the server sent it, read leniently: unknown members are
/// ignored and `code` may be a number or a string.
#[derive(Debug, Clone, PartialEq)]
pub struct LspDiagnostic {
    pub range: Range,
    pub severity: Option<i64>,
    pub code: Option<String>,
    pub source: Option<String>,
    pub message: String,
    /// What the server keeps with the diagnostic for its own later use
    /// (basedpyright's import actions): sent back with it in a code
    /// action's context, or its quick fixes are not offered.
    pub data: Option<Value>,
}

impl LspDiagnostic {
    pub fn from_value(v: &Value) -> Option<LspDiagnostic> {
        let range = v.get("range")?;
        let pos = |p: &Value| -> Option<Position> {
            let line = p.get("line")?.as_u64()?;
            let character = p.get("character")?.as_u64()?;
            Some(Position::new(
                u32::try_from(line).ok()?,
                u32::try_from(character).ok()?,
            ))
        };
        let start = pos(range.get("start")?)?;
        let end = pos(range.get("end")?)?;
        let message = match v.get("message")? {
            Value::String(s) => s.clone(),
            // LSP 3.18 allows MarkupContent: flattened to plain text.
            Value::Object(o) => super::markup::plain(
                o.get("kind").and_then(Value::as_str).unwrap_or("plaintext"),
                o.get("value")?.as_str()?,
            ),
            _ => return None,
        };
        let code = match v.get("code") {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        Some(LspDiagnostic {
            range: Range::new(start, end),
            severity: v.get("severity").and_then(Value::as_i64),
            code,
            source: v.get("source").and_then(Value::as_str).map(str::to_string),
            message,
            data: v.get("data").cloned(),
        })
    }

    /// Parses an array of diagnostics, skipping (and logging) malformed entries.
    pub fn parse_list(items: Option<&Value>) -> Arc<[LspDiagnostic]> {
        let Some(Value::Array(items)) = items else {
            return Arc::from([]);
        };
        items
            .iter()
            .filter_map(|item| {
                let parsed = LspDiagnostic::from_value(item);
                if parsed.is_none() {
                    tracing::debug!(?item, "malformed diagnostic skipped");
                }
                parsed
            })
            .collect()
    }
}

/// The latest publishDiagnostics for one URI.
#[derive(Debug, Clone)]
pub struct Published {
    pub version: Option<i32>,
    /// `received` count when it arrived (orders it against changes we sent).
    pub seq: u64,
    /// When it was stored: an unversioned publish counts only if it arrived
    /// past the server's stale window after the change (and benchmarks read
    /// it as the server's own answer time).
    pub arrived: Instant,
    pub diagnostics: Arc<[LspDiagnostic]>,
}

/// The latest pull answer for one URI.
#[derive(Debug, Clone)]
pub struct Pulled {
    pub result_id: Option<String>,
    pub diagnostics: Arc<[LspDiagnostic]>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Registration {
    pub method: String,
    pub options: Value,
}

#[derive(Debug, Clone)]
pub struct Progress {
    pub title: Option<String>,
    pub message: Option<String>,
    /// A `report` arrived for it (rust-analyzer's check reports each crate
    /// it finished).
    pub reported: bool,
    /// `received` count when it began.
    pub began: u64,
    /// When it began.
    pub began_at: Instant,
}

/// A document as the server has it.
#[derive(Debug, Clone)]
pub struct OpenDocument {
    pub version: i32,
    pub language_id: String,
    pub text: Arc<str>,
    /// `received` count once the change making this version was written.
    pub changed_at: u64,
    /// When that change was written.
    pub written: Instant,
    /// This version was sent as an open the server answers at once
    /// (`DocumentVersion::at_once`).
    pub at_once: bool,
    /// When a check or edit last synced it, changed or not: documents
    /// unused for `documentIdleMinutes` are closed.
    pub used: Instant,
}

/// Whom a change to the state concerns: the waits `wakeups` wakes for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Wake {
    /// No wait looks at what changed.
    Nobody,
    /// The waits on this document (a publish or a status for its URI).
    Document(String),
    /// Every wait: progress, a registration, a refresh.
    Everyone,
}

/// What a server's request changes in the state: `server_requests` says it,
/// the client's dispatcher applies it (`ClientState::apply`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ServerChange {
    /// `client/registerCapability`: registrations by id.
    Register(Vec<(String, Registration)>),
    /// `client/unregisterCapability`: the ids to forget.
    Unregister(Vec<String>),
    /// `window/workDoneProgress/create`: a token, keyed as text.
    ProgressCreated(String),
    /// `workspace/diagnostic/refresh`.
    Refresh,
}

#[derive(Debug, Default)]
pub struct ClientState {
    pub registrations: HashMap<String, Registration>,
    pub progress: HashMap<String, Progress>,
    pub documents: HashMap<String, OpenDocument>,
    pub published: HashMap<String, Published>,
    pub pulled: HashMap<String, Pulled>,
    /// Count of `workspace/diagnostic/refresh` requests received.
    pub refreshes: u64,
    /// Count of publishDiagnostics stored (for benchmarks).
    pub publishes: u64,
    /// `began` of the latest on-save check progress that has ended having
    /// done something (0: none): it published, or reported progress. A
    /// check that ends with neither was abandoned (rust-analyzer 1.99 starts
    /// one and drops it once its workspace has loaded, then checks again)
    /// and is not the answer — unless this server's checks are quiet
    /// (`quiet_checks`).
    pub check_ended: u64,
    /// `began` of the latest diagnosis pass (`WaitProfile::pass_progress`)
    /// that has ended (0: none).
    pub pass_ended: u64,
    /// `received` count of the latest publish (for any document).
    pub last_publish_seq: u64,
    /// `received` count when the latest didSave was sent (0: none).
    pub saved_at: u64,
    /// When the check recorded in `check_ended` began, and when it ended.
    pub check_ended_began_at: Option<Instant>,
    pub check_ended_at: Option<Instant>,
    /// When the latest didSave was sent.
    pub saved_when: Option<Instant>,
    /// A wait saved again and no check began before its deadline: this
    /// server's saves start no check (its settings turned it off), and
    /// `WaitProfile::save_starts_check` no longer holds for it.
    pub saves_start_no_check: bool,
    /// `received` count when the latest on-save check progress began
    /// (0: none), whatever it went on to do.
    pub check_begun: u64,
    /// A check of this server has ended having reported what it checked
    /// (cargo reports each crate).
    pub checks_report: bool,
    /// Learned at a deadline that saw only checks doing nothing, before
    /// any check reported: a check's end is its answer until one reports
    /// (a `check.overrideCommand` that prints no crates).
    pub quiet_checks: bool,
    /// The latest check, ended having done nothing, none begun since: a
    /// publish that trails its end is its (`publish_after_check`).
    pub check_ended_empty: Option<Progress>,
    /// When the latest publish (for any document) was stored.
    pub last_publish: Option<Instant>,
    /// `received` count when the latest work-done progress (not
    /// background) ended, 0: none yet. The server's indexing, where it
    /// reports one, is done (`WaitProfile::reopen_when_indexed`).
    pub progress_ended: u64,
    /// `received` count of the latest status notification per document
    /// (the profile's `status_method`, clangd's `fileStatus`).
    pub file_status: HashMap<String, FileStatus>,
    /// Documents closed whose clearing publish (the empty, unversioned one
    /// servers send for a closed file) has not arrived yet. Should the
    /// document be reopened first, that late clear must not count as the
    /// answer for the new version.
    pub clear_pending: HashSet<String>,
}

/// The latest status notification for one document.
#[derive(Debug, Clone, Copy, Default)]
pub struct FileStatus {
    /// `received` count of the latest status.
    pub seq: u64,
    /// The latest status says the file has nothing to do.
    pub idle: bool,
    /// When the latest status arrived.
    pub at: Option<std::time::Instant>,
    /// `received` count of the latest status saying work was under way.
    pub worked: u64,
}

impl ClientState {
    /// Stores a publish; wakes nobody when it was malformed.
    pub(crate) fn on_publish(&mut self, params: Value, seq: u64) -> Wake {
        let Some(uri) = params.get("uri").and_then(Value::as_str) else {
            return Wake::Nobody;
        };
        // A server may spell the URI another way than squiggle sent it
        // (`file:///c%3A/…` for `file:///C:/…`): keyed as squiggle spells it.
        let uri = &*crate::uri::canonical(uri);
        let version = params
            .get("version")
            .and_then(Value::as_i64)
            .and_then(|v| i32::try_from(v).ok());
        let diagnostics = LspDiagnostic::parse_list(params.get("diagnostics"));
        tracing::debug!(uri, ?version, items = diagnostics.len(), seq, "publish");
        tracing::trace!(uri, ?diagnostics, "published");
        if self.clear_pending.remove(uri) && version.is_none() && diagnostics.is_empty() {
            // The server's clear for a didClose we sent, late: it says
            // nothing of a document reopened since.
            // Not reopened: a publish like any (its waiters, if any, wake).
            if self.documents.contains_key(uri) {
                return Wake::Nobody;
            }
            self.published.remove(uri);
            return Wake::Document(uri.to_string());
        }
        let arrived = Instant::now();
        self.last_publish = Some(arrived);
        self.last_publish_seq = seq;
        self.publishes += 1;
        self.publish_after_check();
        if diagnostics.is_empty() && !self.documents.contains_key(uri) {
            // Nothing to say of a file that is not open (one just closed,
            // or one a server checks unasked): keep no entry for it, or the
            // map would grow with every file the server ever mentioned.
            self.published.remove(uri);
            return Wake::Document(uri.to_string());
        }
        self.published.insert(
            uri.to_string(),
            Published {
                version,
                seq,
                arrived,
                diagnostics,
            },
        );
        Wake::Document(uri.to_string())
    }

    /// Notes a per-file status notification (`status_method` of the profile).
    /// A file's status decides its wait like a publish does: it wakes the
    /// document's waits.
    pub(crate) fn on_file_status(
        &mut self,
        params: &Value,
        seq: u64,
        profile: &WaitProfile,
    ) -> Wake {
        let Some(uri) = params.get("uri").and_then(Value::as_str) else {
            return Wake::Nobody;
        };
        // A server may spell the URI another way than squiggle sent it
        // (`file:///c%3A/…` for `file:///C:/…`): keyed as squiggle spells it.
        let uri = &*crate::uri::canonical(uri);
        let text = params.get("state").and_then(Value::as_str).unwrap_or("");
        let idle = profile.status_idle.as_deref() == Some(text);
        let queued = profile.status_queued.as_deref() == Some(text);
        let status = self.file_status.entry(uri.to_string()).or_default();
        status.seq = seq;
        status.idle = idle;
        status.at = Some(std::time::Instant::now());
        if !idle && !queued {
            status.worked = seq;
        }
        Wake::Document(uri.to_string())
    }

    /// Applies what a server's request changed; `seq` is the `received`
    /// count when it arrived.
    pub(crate) fn apply(&mut self, change: ServerChange, seq: u64) -> Wake {
        match change {
            ServerChange::Register(registrations) => self.registrations.extend(registrations),
            ServerChange::Unregister(ids) => {
                for id in ids {
                    self.registrations.remove(&id);
                }
            }
            ServerChange::ProgressCreated(token) => {
                // A created token counts as open work until its `end`:
                // servers create the token, then begin a moment later, and a
                // wait that looked in between would miss that the server is
                // still busy.
                self.progress.entry(token).or_insert(Progress {
                    title: None,
                    message: None,
                    reported: false,
                    began: seq,
                    began_at: Instant::now(),
                });
            }
            ServerChange::Refresh => self.refreshes += 1,
        }
        Wake::Everyone
    }

    pub fn has_registration(&self, method: &str) -> bool {
        self.registrations.values().any(|r| r.method == method)
    }

    pub fn registration_options(&self, method: &str) -> Option<&Value> {
        self.registrations
            .values()
            .find(|r| r.method == method)
            .map(|r| &r.options)
    }

    /// Whether the server has published for `uri` since its latest change
    /// was written and since its indexing ended: nothing more is due for
    /// it (an unversioned server republishes open files when indexing
    /// ends, and answers a change once), so a close and an open now are
    /// answered by one clear and one publish, in that order.
    pub fn answered(&self, uri: &str) -> bool {
        let Some(doc) = self.documents.get(uri) else {
            return false;
        };
        (self.published.get(uri)).is_some_and(|p| p.seq > doc.changed_at.max(self.progress_ended))
    }

    /// Notes that `uri` was closed: its server's clearing publish is due.
    /// Bounded: a server that never clears would otherwise grow the set
    /// (forgetting it costs only the protection against a late clear).
    pub fn closed(&mut self, uri: &str) {
        if self.clear_pending.len() >= 4096 {
            self.clear_pending.clear();
        }
        self.clear_pending.insert(uri.to_string());
    }

    /// Forgets documents and diagnostics (on shutdown).
    pub fn clear(&mut self) {
        self.clear_pending.clear();
        self.documents.clear();
        self.published.clear();
        self.pulled.clear();
        self.progress.clear();
        self.file_status.clear();
    }
}

mod progress;

pub use progress::token_key;

#[cfg(test)]
mod tests;
