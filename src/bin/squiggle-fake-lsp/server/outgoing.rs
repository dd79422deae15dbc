//! What the fake does on its own initiative: requests it sends the client
//! (configuration, progress tokens, scripted requests) and what it does with
//! each answer, and the work-done progress of its on-save checks.

use serde_json::{Value, json};

use super::{Action, SAVE_PROGRESS_TOKEN, Server, id_key};
use crate::script::Trigger;

/// An on-save check, whose last wave ends its progress. With
/// `checkRestartGapMs` it has a number, so that a check cancelled by a later
/// save knows its pending waves are void; without, it is never cancelled.
#[derive(Clone, Copy)]
pub struct Check {
    pub number: Option<u64>,
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
                if check.number.is_none() || check.number == self.running_check {
                    if self.script.aborted_check_first {
                        // rust-analyzer 1.99 once its workspace has loaded:
                        // a check that begins and ends with nothing done.
                        self.progress_begin(SAVE_PROGRESS_TOKEN, "cargo check");
                        match self.script.aborted_check_ms {
                            0 => self.progress_end(SAVE_PROGRESS_TOKEN),
                            ms => {
                                let token = SAVE_PROGRESS_TOKEN.to_string();
                                self.timers.after(ms, Action::ProgressEnd { token });
                            }
                        }
                        let at = self.script.check_restart_gap_ms.unwrap_or(50);
                        let action = Action::BeginCheck {
                            uri,
                            version,
                            check,
                        };
                        self.timers.after(at, action);
                        return;
                    }
                    self.begin_check(uri, version, check);
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

    /// A check that does something: it begins, says which crate it
    /// checks (rust-analyzer reports each), and publishes its waves.
    pub(super) fn begin_check(&mut self, uri: String, version: i64, check: Check) {
        self.progress_begin(SAVE_PROGRESS_TOKEN, "cargo check");
        if !self.script.quiet_checks {
            let value = json!({"kind": "report", "message": "fake (lib)"});
            self.notify(
                "$/progress",
                json!({"token": SAVE_PROGRESS_TOKEN, "value": value}),
            );
        }
        self.schedule_waves(uri, version, Some(check));
    }

    pub(super) fn progress_end(&mut self, token: &str) {
        self.notify(
            "$/progress",
            json!({"token": token, "value": {"kind": "end"}}),
        );
    }

    /// Creates the check's progress token; the check begins once the client
    /// answers (see `Purpose::SaveProgress`). The token is the same for every
    /// check, as rust-analyzer's `rust-analyzer/flycheck/0` is.
    pub(super) fn start_check(&mut self, uri: String) {
        let Some(version) = self.docs.get(&uri).map(|d| d.version) else {
            return;
        };
        let mut check = Check { number: None };
        if self.script.check_restart_gap_ms.is_some() {
            self.checks_started += 1;
            check.number = Some(self.checks_started);
            self.running_check = check.number;
        }
        let params = json!({"token": SAVE_PROGRESS_TOKEN});
        let purpose = Purpose::SaveProgress {
            uri,
            version,
            check,
        };
        self.request("window/workDoneProgress/create", Some(params), purpose);
    }
}
