//! The fake's side of the LSP lifecycle: reading what the client offers in
//! `initialize`, answering it with the scripted capabilities (or one of the
//! faults that strike there), and what it does once `initialized` arrives
//! (dynamic registration, startup progress, configuration, scripted requests).

use serde_json::{Value, json};

use super::Server;
use super::outgoing::Purpose;
use crate::position::Encoding;
use crate::script::{DiagnosticMode, Fault, Trigger};

impl Server {
    pub(super) fn read_client_capabilities(&mut self, params: &Value) {
        let caps = &params["capabilities"];
        self.client_pulls = !caps["textDocument"]["diagnostic"].is_null();
        let preferred = self.script.position_encoding;
        let offered = caps["general"]["positionEncodings"].as_array();
        let offers_preferred =
            offered.is_some_and(|list| list.iter().any(|e| e.as_str() == Some(preferred.name())));
        self.encoding = if offers_preferred {
            preferred
        } else {
            Encoding::Utf16
        };
    }

    pub(super) fn answer_initialize(&mut self, id: Value) {
        let result = json!({
            "capabilities": self.capabilities(),
            "serverInfo": self.script.server_info,
        });
        let msg = json!({"jsonrpc": "2.0", "id": id, "result": result});
        let write = match self.script.fault {
            Some(Fault::OversizedFrame { bytes }) => self.out.write_oversized(bytes),
            Some(Fault::PartialFrame) => {
                self.send(msg);
                let half = json!({"jsonrpc": "2.0", "method": "window/logMessage",
                    "params": {"type": 3, "message": "this frame is cut in half"}});
                let body = serde_json::to_vec(&half).expect("JSON values always serialize");
                let _ = self.out.write_partial(&body);
                self.exit(0);
            }
            _ => Ok(()),
        };
        if let Err(err) = write {
            eprintln!("squiggle-fake-lsp: writing stdout failed: {err}");
            self.exit(1);
        }
        self.send(msg);
        self.initialized = true;
        match self.script.fault {
            Some(Fault::ExitAfterInitialize) => self.exit(0),
            Some(Fault::Hang) => {
                self.hung = true;
                self.timers.clear();
            }
            Some(Fault::StuckFrame) => {
                let half = json!({"jsonrpc": "2.0", "method": "window/logMessage",
                    "params": {"type": 3, "message": "this frame is never finished"}});
                let body = serde_json::to_vec(&half).expect("JSON values always serialize");
                if let Err(err) = self.out.write_partial(&body) {
                    eprintln!("squiggle-fake-lsp: writing stdout failed: {err}");
                    self.exit(1);
                }
                self.hung = true;
                self.timers.clear();
            }
            _ => {}
        }
    }

    fn capabilities(&self) -> Value {
        let mut sync = json!({
            "openClose": self.script.open_close,
            "change": self.script.sync.lsp_number(),
        });
        if self.script.save_notify {
            sync["save"] = json!({"includeText": false});
        }
        let mut caps = json!({
            "positionEncoding": self.encoding.name(),
            "textDocumentSync": sync,
        });
        let pulls = self.script.diagnostic_mode != DiagnosticMode::Push;
        if pulls && !self.script.register_pull_dynamically {
            caps["diagnosticProvider"] =
                json!({"interFileDependencies": true, "workspaceDiagnostics": false});
        }
        for (key, value) in &self.script.capabilities {
            caps[key] = value.clone();
        }
        caps
    }

    pub(super) fn on_initialized(&mut self) {
        if self.script.diagnostic_mode != DiagnosticMode::Push
            && self.script.register_pull_dynamically
        {
            let registration = json!({
                "id": "fake-pull-diagnostics",
                "method": "textDocument/diagnostic",
                "registerOptions": {
                    "documentSelector": null,
                    "interFileDependencies": true,
                    "workspaceDiagnostics": false,
                },
            });
            let params = json!({"registrations": [registration]});
            self.request("client/registerCapability", Some(params), Purpose::Other);
        }
        if let Some(progress) = self.script.progress_on_initialized.clone() {
            let params = json!({"token": progress.token});
            let purpose = Purpose::InitProgress {
                token: progress.token,
                title: progress.title,
                duration_ms: progress.duration_ms,
            };
            self.request("window/workDoneProgress/create", Some(params), purpose);
        }
        if self.script.require_configuration {
            let params = json!({"items": [{"section": "python"}, {"section": "python.analysis"}]});
            self.request(
                "workspace/configuration",
                Some(params),
                Purpose::Configuration,
            );
        }
        self.send_scripted_requests(Trigger::Initialized);
        if let Some(Fault::RequestStorm { count }) = self.script.fault {
            for _ in 0..count {
                let params = json!({"items": [{"section": "fake"}]});
                self.request("workspace/configuration", Some(params), Purpose::Other);
            }
        }
    }
}
