//! What a client knows about its server between messages: dynamic
//! registrations, open work-done progress, open documents, and the latest
//! diagnostics per document — pushed or pulled, each with the document
//! version it belongs to. Plain data behind one mutex, never held across an
//! await.

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
            // LSP 3.18 allows MarkupContent.
            Value::Object(o) => o.get("value")?.as_str()?.to_string(),
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

#[derive(Debug, Clone)]
pub struct Registration {
    pub method: String,
    pub options: Value,
}

#[derive(Debug, Clone)]
pub struct Progress {
    pub title: Option<String>,
    pub message: Option<String>,
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
    /// When a check or edit last synced it, changed or not: documents
    /// unused for `documentIdleMinutes` are closed.
    pub used: Instant,
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
    /// `began` of the latest on-save check progress that has ended (0: none).
    pub check_ended: u64,
    /// `received` count when the latest didSave was sent (0: none).
    pub saved_at: u64,
    /// When the check recorded in `check_ended` began.
    pub check_ended_began_at: Option<Instant>,
    /// When the latest didSave was sent.
    pub saved_when: Option<Instant>,
    /// When the latest publish (for any document) was stored.
    pub last_publish: Option<Instant>,
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
    /// Stores a publish; returns false when it was malformed.
    pub fn on_publish(&mut self, params: Value, seq: u64) -> bool {
        let Some(uri) = params.get("uri").and_then(Value::as_str) else {
            return false;
        };
        let version = params
            .get("version")
            .and_then(Value::as_i64)
            .and_then(|v| i32::try_from(v).ok());
        let diagnostics = LspDiagnostic::parse_list(params.get("diagnostics"));
        if self.clear_pending.remove(uri) && version.is_none() && diagnostics.is_empty() {
            // The server's clear for a didClose we sent, late: it says
            // nothing of a document reopened since.
            // Not reopened: a publish like any (its waiters, if any, wake).
            let closed = !self.documents.contains_key(uri);
            if closed {
                self.published.remove(uri);
            }
            return closed;
        }
        let arrived = Instant::now();
        self.last_publish = Some(arrived);
        self.publishes += 1;
        if diagnostics.is_empty() && !self.documents.contains_key(uri) {
            // Nothing to say of a file that is not open (one just closed,
            // or one a server checks unasked): keep no entry for it, or the
            // map would grow with every file the server ever mentioned.
            self.published.remove(uri);
            return true;
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
        true
    }

    /// Notes a per-file status notification (`status_method` of the profile).
    pub fn on_file_status(&mut self, params: &Value, seq: u64, profile: &WaitProfile) {
        let Some(uri) = params.get("uri").and_then(Value::as_str) else {
            return;
        };
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
    }

    pub fn on_progress(&mut self, params: &Value, seq: u64, profile: &WaitProfile) {
        let Some(token) = params.get("token").map(token_key) else {
            return;
        };
        let value = params.get("value");
        let text = |key: &str| {
            value
                .and_then(|v| v.get(key))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        match value.and_then(|v| v.get("kind")).and_then(Value::as_str) {
            Some("begin") => {
                self.progress.insert(
                    token,
                    Progress {
                        title: text("title"),
                        message: text("message"),
                        began: seq,
                        began_at: Instant::now(),
                    },
                );
            }
            Some("report") => {
                if let Some(p) = self.progress.get_mut(&token)
                    && let Some(message) = text("message")
                {
                    p.message = Some(message);
                }
            }
            Some("end") => {
                if let Some(p) = self.progress.remove(&token)
                    && profile.is_check(&token, p.title.as_deref())
                    && p.began > self.check_ended
                {
                    self.check_ended = p.began;
                    self.check_ended_began_at = Some(p.began_at);
                }
            }
            _ => {}
        }
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

    /// Whether work-done progress that began after `seq` is still open
    /// (progress the profile calls background does not count).
    pub fn busy_since(&self, seq: u64, profile: &WaitProfile) -> bool {
        self.progress
            .iter()
            .any(|(token, p)| p.began > seq && !profile.is_background(token, p.title.as_deref()))
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

/// Progress tokens may be integers or strings; key them as text.
pub fn token_key(token: &Value) -> String {
    match token {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn diagnostics_are_read_leniently() {
        let list = LspDiagnostic::parse_list(Some(&json!([
            {"range": {"start": {"line": 1, "character": 2}, "end": {"line": 1, "character": 5}}, "message": "m", "code": 2322, "extra": 1},
            {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "message": {"kind": "markdown", "value": "md"}, "code": "E1", "severity": 2},
            {"message": "no range"},
            "garbage"
        ])));
        assert_eq!(list.len(), 2);
        assert_eq!(list[0].code.as_deref(), Some("2322"));
        assert_eq!(list[0].severity, None);
        assert_eq!(list[1].message, "md");
    }

    fn checks() -> WaitProfile {
        WaitProfile {
            check_progress: vec![super::super::profile::ProgressPattern::token("flycheck")],
            ..WaitProfile::default()
        }
    }

    #[test]
    fn a_late_clear_for_a_reopened_document_does_not_count() {
        let mut state = ClientState::default();
        let uri = "file:///a.fk";
        let open = |state: &mut ClientState| {
            let now = Instant::now();
            let doc = OpenDocument {
                version: 1,
                language_id: "fake".into(),
                text: Arc::from("x"),
                changed_at: 0,
                written: now,
                used: now,
            };
            state.documents.insert(uri.into(), doc);
        };
        let clear = json!({"uri": uri, "diagnostics": []});
        let error = json!({"uri": uri, "version": 1, "diagnostics": [
            {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "message": "e"}
        ]});
        // Closed, then reopened before the server's clear arrived.
        open(&mut state);
        state.documents.remove(uri);
        state.closed(uri);
        open(&mut state);
        assert!(!state.on_publish(clear.clone(), 5), "the late clear counts");
        assert!(!state.published.contains_key(uri));
        assert!(state.on_publish(error, 6));
        assert_eq!(state.published[uri].diagnostics.len(), 1);
        // Once consumed, an empty publish is an answer again.
        assert!(state.on_publish(clear, 7));
        assert!(state.published[uri].diagnostics.is_empty());
    }

    #[test]
    fn empty_publishes_for_files_not_open_are_not_kept() {
        let mut state = ClientState::default();
        let uri = "file:///b.fk";
        state.closed(uri);
        assert!(state.on_publish(json!({"uri": uri, "diagnostics": []}), 1));
        assert!(state.published.is_empty() && state.clear_pending.is_empty());
        assert!(state.on_publish(json!({"uri": uri, "diagnostics": []}), 2));
        assert!(state.published.is_empty());
    }

    #[test]
    fn progress_begin_report_end() {
        let profile = checks();
        let mut state = ClientState::default();
        state.on_progress(
            &json!({"token": 7, "value": {"kind": "begin", "title": "Indexing"}}),
            10,
            &profile,
        );
        assert!(state.busy_since(9, &profile));
        assert!(!state.busy_since(10, &profile));
        state.on_progress(
            &json!({"token": 7, "value": {"kind": "report", "message": "3/9"}}),
            11,
            &profile,
        );
        assert_eq!(state.progress["7"].message.as_deref(), Some("3/9"));
        state.on_progress(&json!({"token": 7, "value": {"kind": "end"}}), 12, &profile);
        assert!(state.progress.is_empty());
        assert_eq!(state.check_ended, 0, "indexing is not a check");
    }

    #[test]
    fn an_ended_check_is_remembered_by_when_it_began() {
        let profile = checks();
        let mut state = ClientState::default();
        let begin = json!({"token": "rust-analyzer/flycheck/0", "value": {"kind": "begin", "title": "cargo check"}});
        let end = json!({"token": "rust-analyzer/flycheck/0", "value": {"kind": "end"}});
        state.on_progress(&begin, 20, &profile);
        assert_eq!(state.check_ended, 0, "still running");
        state.on_progress(&end, 25, &profile);
        assert_eq!(state.check_ended, 20);
        // An end for a token never begun changes nothing.
        state.on_progress(&end, 30, &profile);
        assert_eq!(state.check_ended, 20);
    }
}
