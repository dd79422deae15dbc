//! What the fake does on its own initiative: requests it sends the client
//! (configuration, progress tokens, scripted requests) and what it does with
//! each answer, and the work-done progress of its on-save checks.

use serde_json::{Value, json};

use super::{Action, SAVE_PROGRESS_TOKEN, Server, id_key};
use crate::script::Trigger;

/// One on-save check: its progress token and its number, so a cancelled
/// check's pending waves know they are void.
#[derive(Clone)]
pub struct Check {
    pub token: String,
    pub id: u64,
}

/// Why the fake sent one of its own requests, so it knows what to do with the answer.
pub enum Purpose {
    Configuration,
    SaveProgress {
        uri: String,
        version: i64,
        check: Check,
    },
    InitProgress {
        token: String,
        title: String,
        duration_ms: u64,
    },
    Other,
}

impl Server {
    pub(super) fn request(&mut self, method: &str, params: Option<Value>, purpose: Purpose) {
        let id = self.next_request_id;
        self.next_request_id += 1;
        self.outgoing.insert(id_key(&json!(id)), purpose);
        let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(params) = params {
            msg["params"] = params;
        }
        self.send(msg);
    }

    pub(super) fn send_scripted_requests(&mut self, trigger: Trigger) {
        let requests: Vec<_> = self
            .script
            .server_requests
            .iter()
            .filter(|r| r.after == trigger)
            .cloned()
            .collect();
        for r in requests {
            self.request(&r.method, r.params, Purpose::Other);
        }
    }

    pub(super) fn on_response(&mut self, id: &Value) {
        let Some(purpose) = self.outgoing.remove(&id_key(id)) else {
            eprintln!("squiggle-fake-lsp: response to unknown request {id}");
            return;
        };
        if self.hung {
            return;
        }
        match purpose {
            Purpose::Configuration => {
                self.configured = true;
                for uri in self.docs.uris() {
                    let version = self.docs.get(&uri).map_or(0, |d| d.version);
                    self.schedule_waves(uri, version, None);
                }
            }
            Purpose::SaveProgress {
                uri,
                version,
                check,
            } => {
                if self.running_check == Some(check.id) {
                    self.progress_begin(&check.token, "cargo check");
                    self.schedule_waves(uri, version, Some(check));
                }
            }
            Purpose::InitProgress {
                token,
                title,
                duration_ms,
            } => {
                self.progress_begin(&token, &title);
                self.timers
                    .after(duration_ms, Action::ProgressEnd { token });
            }
            Purpose::Other => {}
        }
    }

    pub(super) fn progress_begin(&mut self, token: &str, title: &str) {
        let value = json!({"kind": "begin", "title": title});
        self.notify("$/progress", json!({"token": token, "value": value}));
    }

    pub(super) fn progress_end(&mut self, token: &str) {
        self.notify(
            "$/progress",
            json!({"token": token, "value": {"kind": "end"}}),
        );
    }

    /// Creates the check's progress token; the check begins once the client
    /// answers (see `Purpose::SaveProgress`).
    pub(super) fn start_check(&mut self, uri: String) {
        let Some(version) = self.docs.get(&uri).map(|d| d.version) else {
            return;
        };
        self.checks_started += 1;
        let id = self.checks_started;
        // One token per check when checks can be cancelled, as rust-analyzer
        // has; the plain token otherwise.
        let token = if self.script.check_restart_gap_ms.is_some() {
            format!("{SAVE_PROGRESS_TOKEN}/{id}")
        } else {
            SAVE_PROGRESS_TOKEN.to_owned()
        };
        self.running_check = Some(id);
        let params = json!({"token": token});
        let purpose = Purpose::SaveProgress {
            uri,
            version,
            check: Check { token, id },
        };
        self.request("window/workDoneProgress/create", Some(params), purpose);
    }
}
