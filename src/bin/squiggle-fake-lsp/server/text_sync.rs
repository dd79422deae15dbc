//! Document notifications and the diagnostics they lead to: pushed in waves, or pulled.
//!
//! Kept apart from the lifecycle code in `server.rs` because this is where the scripted
//! timing (delays, waves, stale and empty publishes) lives.

use serde_json::{Value, json};

use super::{Action, Check, SAVE_PROGRESS_TOKEN, Server};
use crate::documents::Document;
use crate::markers;
use crate::script::{DiagnosticMode, Fault, FileStatus, Trigger};

impl Server {
    pub(super) fn did_open(&mut self, params: &Value) {
        let item = &params["textDocument"];
        let Some(uri) = item["uri"].as_str().map(str::to_owned) else {
            return;
        };
        if item["languageId"].as_str().is_none_or(str::is_empty) {
            eprintln!("squiggle-fake-lsp: didOpen for {uri} has no languageId");
        }
        let doc = Document {
            version: item["version"].as_i64().unwrap_or(0),
            text: item["text"].as_str().unwrap_or("").to_owned(),
        };
        let version = doc.version;
        self.docs.open(uri.clone(), doc);
        if !self.seen_open {
            self.seen_open = true;
            self.send_scripted_requests(Trigger::DidOpen);
            if let Some(ms) = self.script.refresh_after_ms {
                self.timers.after(ms, Action::Refresh);
            }
            if let Some(Fault::PublishLoop { interval_ms }) = self.script.fault {
                let action = Action::LoopPublish {
                    uri: uri.clone(),
                    interval_ms,
                };
                self.timers.after(interval_ms, action);
            }
        }
        if !self.script.publish_on_save {
            self.schedule_waves(uri, version, None);
        }
    }

    pub(super) fn did_change(&mut self, params: &Value) {
        let Some(uri) = params["textDocument"]["uri"].as_str().map(str::to_owned) else {
            return;
        };
        let version = params["textDocument"]["version"].as_i64().unwrap_or(0);
        let changes = params["contentChanges"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if self.script.stale_publish
            && let Some(old) = self.docs.get(&uri)
        {
            let diagnostics = markers::diagnostics(&old.text, self.last_wave(), self.encoding);
            self.publish(&uri, Some(version - 1), diagnostics);
        }
        if let Some(ms) = self.script.stale_pull_ms
            && let Some(old) = self.docs.get(&uri)
        {
            // rust-analyzer 1.99: a pull right after a change answers for
            // the text before it; once the change is processed, a refresh.
            let until = std::time::Instant::now() + std::time::Duration::from_millis(ms);
            self.stale_pulls
                .insert(uri.clone(), (old.text.clone(), until));
            self.timers.after(ms, super::Action::Refresh);
        }
        let before = self.docs.get(&uri).map(|d| d.text.clone());
        let Some(clamps) = self.docs.change(&uri, version, &changes, self.encoding) else {
            eprintln!("squiggle-fake-lsp: didChange for {uri}, which is not open");
            self.log.event("changeUnopened", json!({"uri": uri}));
            return;
        };
        for clamp in clamps {
            eprintln!(
                "squiggle-fake-lsp: change {} to {uri} (version {version}) is out of range: {}",
                clamp.change_index, clamp.range
            );
            let fields = json!({"uri": uri, "version": version, "change": clamp.change_index,
                "range": clamp.range});
            self.log.event("clamped", fields);
        }
        // clangd: a change that leaves the text as it was is not checked
        // again, and nothing is published for its version.
        let unchanged = before.is_some_and(|b| self.docs.get(&uri).is_some_and(|d| d.text == b));
        if self.script.silent_when_unchanged && unchanged {
            self.log.event(
                "unchangedNotChecked",
                json!({"uri": uri, "version": version}),
            );
            return;
        }
        if !self.script.publish_on_save {
            let debounce = self.script.change_delay_ms;
            self.schedule_waves_after(debounce, uri, version, None);
        }
    }

    pub(super) fn did_save(&mut self, params: &Value) {
        let Some(uri) = params["textDocument"]["uri"].as_str().map(str::to_owned) else {
            return;
        };
        let Some(version) = self.docs.get(&uri).map(|d| d.version) else {
            return;
        };
        if let Some(status) = self.script.file_status {
            match status.queued_after_ms {
                0 => self.reread_others(&uri, status),
                after => {
                    let saved = uri.clone();
                    self.timers.after(after, Action::Reread { saved });
                }
            }
        }
        if self.script.silent_when_unchanged {
            // The change before it was checked, or was not worth checking.
            return;
        }
        if !(self.script.publish_on_save && self.script.progress_on_save) {
            self.schedule_waves(uri, version, None);
        } else if let Some(gap) = self.script.check_restart_gap_ms {
            // rust-analyzer: a save cancels the running check (its progress
            // ends at once), and saves coalesce: only the last one within
            // the gap starts a check.
            if self.running_check.take().is_some() {
                self.progress_end(SAVE_PROGRESS_TOKEN);
            }
            self.saves += 1;
            let save = self.saves;
            self.timers.after(gap, Action::StartCheck { uri, save });
        } else {
            self.start_check(uri);
        }
    }

    /// `fileStatus`: every other open document queued, re-read and idle;
    /// republished later with its wave-1 markers when the script says.
    pub(super) fn reread_others(&mut self, saved: &str, status: FileStatus) {
        let others: Vec<(String, i64)> = self
            .docs
            .uris()
            .into_iter()
            .filter(|u| u != saved)
            .filter_map(|u| self.docs.get(&u).map(|d| (u.clone(), d.version)))
            .collect();
        for (uri, version) in others {
            for state in ["file is queued", "parsing includes", "idle"] {
                let params = json!({"uri": uri, "state": state});
                self.notify("textDocument/clangd.fileStatus", params);
            }
            if let Some(after) = status.republish_after_ms {
                let wave = Action::Wave {
                    uri,
                    version,
                    wave: 1,
                    check: None,
                };
                self.timers.after(after, wave);
            }
        }
    }

    pub(super) fn did_close(&mut self, params: &Value) {
        let Some(uri) = params["textDocument"]["uri"].as_str().map(str::to_owned) else {
            return;
        };
        if self.docs.close(&uri).is_some() {
            self.publish(&uri, None, Vec::new());
        }
    }

    pub(super) fn last_wave(&self) -> usize {
        self.script.waves.len() - 1
    }

    /// Whether pushing diagnostics is allowed right now.
    pub(super) fn can_push(&self) -> bool {
        !self.hung
            && self.configured
            && self.script.diagnostic_mode != DiagnosticMode::Pull
            && !(self.script.push_off_when_client_pulls && self.client_pulls)
            && !self.script.has_fault(&Fault::NeverPublish)
    }

    /// Schedules every wave for `uri` at `version`, after `publishDelayMs`.
    pub(super) fn schedule_waves(&mut self, uri: String, version: i64, check: Option<Check>) {
        self.schedule_waves_after(0, uri, version, check);
    }

    /// Like `schedule_waves`, `extra_ms` later.
    fn schedule_waves_after(
        &mut self,
        extra_ms: u64,
        uri: String,
        version: i64,
        check: Option<Check>,
    ) {
        let mut at = self.script.publish_delay_ms + extra_ms;
        for (wave, delay) in self.script.waves.clone().into_iter().enumerate() {
            at += delay;
            let action = Action::Wave {
                uri: uri.clone(),
                version,
                wave,
                check,
            };
            self.timers.after(at, action);
        }
    }

    pub(super) fn publish(&mut self, uri: &str, version: Option<i64>, diagnostics: Vec<Value>) {
        if !self.can_push() {
            return;
        }
        if self.script.quiet_checks {
            // Nothing to say, and nothing said before: no publish.
            let said_some = self.published_some.remove(uri);
            if !diagnostics.is_empty() {
                self.published_some.insert(uri.to_string());
            } else if !said_some {
                return;
            }
        }
        let uri = if self.script.respell_uris {
            respell(uri)
        } else {
            uri.to_string()
        };
        let mut params = json!({"uri": uri, "diagnostics": diagnostics});
        if let (Some(version), true) = (version, self.script.publish_version) {
            params["version"] = json!(version);
        }
        self.notify("textDocument/publishDiagnostics", params);
        if self.script.has_fault(&Fault::CrashAfterPublish) {
            self.exit(5);
        }
    }

    /// Publishes the current diagnostics of `uri` as of wave `wave`.
    pub(super) fn publish_current(&mut self, uri: &str, wave: usize) {
        let Some(doc) = self.docs.get(uri) else {
            return;
        };
        let version = doc.version;
        let diagnostics = match self.script.pushed_from_wave {
            Some(from) => markers::diagnostics_of_waves(&doc.text, from..=wave, self.encoding),
            None => markers::diagnostics(&doc.text, wave, self.encoding),
        };
        self.publish(uri, Some(version), diagnostics);
    }

    /// Publishes, without a version, every file beside `uri` on disk with
    /// its extension that is not open, from its text on disk (as cargo
    /// check reports files nobody opened). Only `file://` URIs, converted
    /// as squiggle converts them: cutting `file://` off leaves `/C:/a/b.rs`
    /// on Windows, no path there, and the neighbours went unpublished.
    pub(super) fn publish_neighbours_on_disk(&mut self, uri: &str, wave: usize) {
        let Some(path) = squiggle::uri::to_path(uri) else {
            return;
        };
        let (Some(dir), Some(ext)) = (path.parent(), path.extension()) else {
            return;
        };
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut files: Vec<std::path::PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension() == Some(ext))
            .collect();
        files.sort();
        for file in files {
            let other = squiggle::uri::from_path(&file);
            if self.docs.get(&other).is_some() {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            let diagnostics = match self.script.pushed_from_wave {
                Some(from) => markers::diagnostics_of_waves(&text, from..=wave, self.encoding),
                None => markers::diagnostics(&text, wave, self.encoding),
            };
            self.publish(&other, None, diagnostics);
        }
    }

    pub(super) fn pull_report(&self, params: &Value) -> Value {
        let uri = params["textDocument"]["uri"].as_str().unwrap_or("");
        let doc = match self.docs.get(uri) {
            Some(doc) if self.configured => doc,
            _ => return json!({"kind": "full", "items": []}),
        };
        let result_id = doc.version.to_string();
        if params["previousResultId"].as_str() == Some(result_id.as_str()) {
            return json!({"kind": "unchanged", "resultId": result_id});
        }
        let text = match self.stale_pulls.get(uri) {
            Some((old, until)) if std::time::Instant::now() < *until => old.as_str(),
            _ => doc.text.as_str(),
        };
        let items = match self.script.pushed_from_wave {
            Some(from) => markers::diagnostics_of_waves(text, ..from, self.encoding),
            None => markers::diagnostics(text, self.last_wave(), self.encoding),
        };
        json!({"kind": "full", "resultId": result_id, "items": items})
    }
}

/// `uri` as another client might spell the same file: a `localhost`
/// authority and every byte of the path but `/` percent-encoded, hex in
/// lower case (`file:///a/b.fk` → `file://localhost/%61/%62%2e%66%6b`), as
/// servers on Windows send `file:///c%3A/…` for `file:///C:/…`.
fn respell(uri: &str) -> String {
    let Some(path) = uri.strip_prefix("file://") else {
        return uri.to_string();
    };
    let decoded: Vec<u8> = percent_encoding::percent_decode_str(path).collect();
    let mut out = String::from("file://localhost");
    for byte in decoded {
        if byte == b'/' {
            out.push('/');
        } else {
            out.push_str(&format!("%{byte:02x}"));
        }
    }
    out
}
