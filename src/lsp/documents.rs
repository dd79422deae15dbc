//! Keeping the server's copy of a document equal to ours: didOpen (version 1),
//! didChange with strictly increasing versions (full or incremental, in the
//! negotiated position encoding), didSave when the server asks for it, and
//! didClose. A version is assigned and its message queued under one lock, so
//! concurrent updates reach the wire in version order.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use lsp_types::TextDocumentContentChangeEvent;
use serde::Serialize;
use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::capabilities::SyncKind;
use super::client::LspClient;
use super::position::PositionEncoding;
use super::state::{ClientState, OpenDocument};
use super::text_sync::{full_change, incremental_changes};
use crate::uri;

/// Resolves once a notification is on the wire.
type Written = oneshot::Receiver<()>;

/// What happened to a file on disk, for `workspace/didChangeWatchedFiles`;
/// serialized as the protocol's numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileChangeKind {
    Created = 1,
    Changed = 2,
    Deleted = 3,
}

impl FileChangeKind {
    /// The kind of a write: a file created, or one that was there changed.
    pub fn of_write(created: bool) -> FileChangeKind {
        if created {
            FileChangeKind::Created
        } else {
            FileChangeKind::Changed
        }
    }
}

impl Serialize for FileChangeKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u8(*self as u8)
    }
}

/// A document version the server has been given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentVersion {
    pub uri: String,
    pub version: i32,
    /// `received` count once the change was written: publishes without a
    /// version count only when they arrived after this.
    pub changed_at: u64,
    /// When the change was written: with the server's stale window, an
    /// unversioned publish must also arrive late enough after this.
    pub written: Instant,
    /// The server answers this version's open at once and completely
    /// (`WaitProfile::reopen_when_indexed`): no stale window applies.
    pub at_once: bool,
    pub text: Arc<str>,
}

impl LspClient {
    /// Opens the document or brings the server's copy to `text`, then saves
    /// it if the server wants didSave. Identical text sends nothing.
    pub async fn sync_document(
        &self,
        path: &Path,
        language_id: &str,
        text: Arc<str>,
    ) -> DocumentVersion {
        self.sync(path, language_id, text, false, true).await
    }

    /// Like `sync_document`, for a file taken only for its diagnostics
    /// after another file's edit: not saved
    /// when the server's on-save check covers the whole project
    /// (`WaitProfile::check_covers_project`).
    pub async fn sync_other_document(
        &self,
        path: &Path,
        language_id: &str,
        text: Arc<str>,
    ) -> DocumentVersion {
        let save = !self.inner.config.wait.check_covers_project;
        self.sync(path, language_id, text, false, save).await
    }

    /// Like `sync_document`, but identical text is sent again as a new
    /// version: other files changed on disk, and the server must answer for
    /// this document afresh rather than by what it said before.
    pub async fn resync_document(
        &self,
        path: &Path,
        language_id: &str,
        text: Arc<str>,
    ) -> DocumentVersion {
        self.sync(path, language_id, text, true, true).await
    }

    async fn sync(
        &self,
        path: &Path,
        language_id: &str,
        text: Arc<str>,
        again: bool,
        may_save: bool,
    ) -> DocumentVersion {
        let uri = uri::from_path(path);
        let (version, written, save, at_once) = {
            let mut state = self.state();
            let save = self
                .inner
                .facts
                .get()
                .and_then(|f| f.save)
                .filter(|_| may_save);
            let indexed = self.inner.config.wait.reopen_when_indexed
                && state.indexed(&self.inner.config.wait);
            let reopen = indexed && state.answered(&uri);
            let (version, written) = match state.documents.get_mut(&uri) {
                Some(doc) if *doc.text == *text && !again => {
                    doc.used = Instant::now();
                    return DocumentVersion {
                        uri,
                        version: doc.version,
                        changed_at: doc.changed_at,
                        written: doc.written,
                        at_once: doc.at_once,
                        text: doc.text.clone(),
                    };
                }
                Some(_) if reopen => self.reopen(&mut state, &uri, language_id, &text),
                Some(doc) => {
                    doc.version += 1;
                    doc.used = Instant::now();
                    doc.at_once = false;
                    let changes = self.changes(language_id, &doc.text, &text);
                    doc.text = text.clone();
                    let params = json!({
                        "textDocument": { "uri": uri, "version": doc.version },
                        "contentChanges": changes,
                    });
                    let written = self.notify_written("textDocument/didChange", params);
                    (doc.version, written)
                }
                None => self.open(&mut state, &uri, language_id, &text, 1, indexed),
            };
            let at_once = state.documents.get(&uri).is_some_and(|d| d.at_once);
            (version, written, save, at_once)
        };
        let _ = written.await;
        let changed_at = self.inner.received.load(Ordering::Acquire);
        let written = Instant::now();
        if let Some(include_text) = save {
            self.send_save(&uri, include_text.then_some(&*text));
        }
        if let Some(doc) = self.state().documents.get_mut(&uri)
            && doc.version == version
        {
            doc.changed_at = changed_at;
            doc.written = written;
        }
        DocumentVersion {
            uri,
            version,
            changed_at,
            written,
            at_once,
            text,
        }
    }

    /// The content changes that bring the server's `old` copy to `new`:
    /// incremental where the server takes them and the language allows.
    fn changes(
        &self,
        language_id: &str,
        old: &str,
        new: &str,
    ) -> Vec<TextDocumentContentChangeEvent> {
        let facts = self.inner.facts.get();
        let whole = (self.inner.config.full_sync_languages.iter()).any(|l| l == language_id);
        let encoding = facts.map_or(PositionEncoding::Utf16, |f| f.encoding);
        match facts.filter(|_| !whole).map_or(SyncKind::Full, |f| f.sync) {
            SyncKind::Incremental => incremental_changes(old, new, encoding),
            _ => vec![full_change(new)],
        }
    }

    /// Sends didOpen for `text` as `version` and records the document.
    fn open(
        &self,
        state: &mut ClientState,
        uri: &str,
        language_id: &str,
        text: &Arc<str>,
        version: i32,
        at_once: bool,
    ) -> (i32, Written) {
        let params = json!({
            "textDocument": { "uri": uri, "languageId": language_id, "version": version, "text": &**text },
        });
        let doc = OpenDocument {
            version,
            language_id: language_id.to_string(),
            text: text.clone(),
            changed_at: 0,
            written: Instant::now(),
            used: Instant::now(),
            at_once,
        };
        state.documents.insert(uri.to_string(), doc);
        (version, self.notify_written("textDocument/didOpen", params))
    }

    /// A new text for a server that answers an open at once but a change
    /// only after its debounce (`WaitProfile::reopen_when_indexed`): closed
    /// (its clear set aside as a late one) and opened again, one version on.
    fn reopen(
        &self,
        state: &mut ClientState,
        uri: &str,
        language_id: &str,
        text: &Arc<str>,
    ) -> (i32, Written) {
        let version = state.documents.get(uri).map_or(1, |d| d.version + 1);
        self.close_uri(state, uri);
        self.open(state, uri, language_id, text, version, true)
    }

    /// Sends didSave for `uri` (with `text` when the server wants it) and
    /// notes when: a save can cancel an on-save check already running.
    pub(super) fn send_save(&self, uri: &str, text: Option<&str>) {
        let mut params = json!({ "textDocument": { "uri": uri } });
        if let Some(text) = text {
            params["text"] = Value::String(text.to_string());
        }
        {
            // Saves of several files can race here: keep the latest count.
            let mut state = self.state();
            let now = self.inner.received.load(Ordering::Acquire);
            state.saved_at = state.saved_at.max(now);
            state.saved_when = Some(std::time::Instant::now());
        }
        self.notify("textDocument/didSave", params);
    }

    /// Closes the document and forgets its diagnostics.
    pub fn close_document(&self, path: &Path) {
        let uri = uri::from_path(path);
        let mut state = self.state();
        self.close_uri(&mut state, &uri);
    }

    /// Closes every document no sync touched in the `idle` before `now`,
    /// forgetting what was known of it — except the most recently used one:
    /// a server such as tsserver unloads a project none of whose files is
    /// open, and workspace-wide requests are routed through an open file.
    /// Returns how many were closed and when the least recently used of the
    /// others that may still close was last touched.
    pub fn close_documents_unused_since(
        &self,
        now: Instant,
        idle: Duration,
    ) -> (usize, Option<Instant>) {
        let mut state = self.state();
        let newest = state
            .documents
            .iter()
            .max_by_key(|(_, d)| d.used)
            .map(|(uri, _)| uri.clone());
        let stale: Vec<String> = state
            .documents
            .iter()
            .filter(|(uri, d)| d.used + idle <= now && Some(*uri) != newest.as_ref())
            .map(|(uri, _)| uri.clone())
            .collect();
        for uri in &stale {
            self.close_uri(&mut state, uri);
        }
        let oldest = state
            .documents
            .iter()
            .filter(|(uri, _)| Some(*uri) != newest.as_ref())
            .map(|(_, d)| d.used)
            .min();
        (stale.len(), oldest)
    }

    /// Closes the least recently used documents past the first `cap`,
    /// forgetting what was known of them; returns how many. The most
    /// recently used are the ones a next edit is likely to touch again.
    pub fn close_documents_over(&self, cap: usize) -> usize {
        let mut state = self.state();
        let over = state.documents.len().saturating_sub(cap.max(1));
        if over == 0 {
            return 0;
        }
        let mut by_use: Vec<(Instant, String)> = state
            .documents
            .iter()
            .map(|(uri, d)| (d.used, uri.clone()))
            .collect();
        by_use.sort();
        for (_, uri) in by_use.iter().take(over) {
            self.close_uri(&mut state, uri);
        }
        over
    }

    /// Closes every open document, forgetting what was known of them;
    /// resolves once the last `didClose` is on the wire.
    pub(crate) fn close_all_documents(&self) -> tokio::sync::oneshot::Receiver<()> {
        let mut state = self.state();
        let uris: Vec<String> = state.documents.keys().cloned().collect();
        for uri in &uris {
            self.close_uri(&mut state, uri);
        }
        drop(state);
        self.flushed()
    }

    /// How many documents the server has open.
    pub fn open_document_count(&self) -> usize {
        self.state().documents.len()
    }

    fn close_uri(&self, state: &mut ClientState, uri: &str) {
        if state.documents.remove(uri).is_some() {
            state.closed(uri);
            self.notify(
                "textDocument/didClose",
                json!({ "textDocument": { "uri": uri } }),
            );
        }
        state.published.remove(uri);
        state.pulled.remove(uri);
        state.file_status.remove(uri);
    }

    /// The server's current copy of a document, if open.
    pub fn document(&self, path: &Path) -> Option<(i32, Arc<str>)> {
        let uri = uri::from_path(path);
        self.state()
            .documents
            .get(&uri)
            .map(|d| (d.version, d.text.clone()))
    }

    /// The paths of the documents this server has open.
    pub fn open_paths(&self) -> Vec<std::path::PathBuf> {
        self.state()
            .documents
            .keys()
            .filter_map(|u| uri::to_path(u))
            .collect()
    }

    /// The server's current copy of the document at `uri`, if open: for
    /// callers that already hold the URI (no path → URI encoding).
    pub fn document_by_uri(&self, uri: &str) -> Option<Arc<str>> {
        self.state().documents.get(uri).map(|d| d.text.clone())
    }

    /// Tells servers that registered for file watching about changed files.
    pub fn did_change_watched_files(&self, changes: &[(&Path, FileChangeKind)]) {
        if changes.is_empty()
            || !self
                .state()
                .has_registration("workspace/didChangeWatchedFiles")
        {
            return;
        }
        let events: Vec<Value> = changes
            .iter()
            .map(|(p, kind)| json!({ "uri": uri::from_path(p), "type": kind }))
            .collect();
        self.notify(
            "workspace/didChangeWatchedFiles",
            json!({ "changes": events }),
        );
    }
}

#[cfg(test)]
mod tests;
