//! The fake's main loop and LSP lifecycle: it owns all state, reacts to each incoming
//! message, and runs timed actions from the scheduler between messages.
//!
//! Everything runs on one thread (the reader thread only parses frames), so the order of
//! what the fake writes is easy to reason about in tests.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Instant;

use serde_json::{Value, json};

use crate::documents::Documents;
use crate::eventlog::EventLog;
use crate::position::Encoding;
use crate::scheduler::Scheduler;
use crate::script::{DiagnosticMode, Fault, Script};
use crate::wire::{FrameStyle, FrameWriter, Incoming, parse_body, spawn_reader};

mod actions;
mod lifecycle;
mod outgoing;
mod text_sync;

use outgoing::{Check, Purpose};

const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_REQUEST: i64 = -32600;
const SERVER_NOT_INITIALIZED: i64 = -32002;
const REQUEST_CANCELLED: i64 = -32800;
const SERVER_CANCELLED: i64 = -32802;

/// How long a fake told to ignore `exit` (or to hang) outlives its closed stdin, so a client
/// that forgets to kill it does not leak processes forever.
const ORPHAN_LIFETIME_MS: u64 = 30_000;

const SAVE_PROGRESS_TOKEN: &str = "fake-check";

/// Something the fake does later.
pub enum Action {
    /// A client request held back by a delay; answered unless cancelled meanwhile.
    Answer {
        id: Value,
        method: String,
        params: Value,
    },
    /// Publish wave `wave` for `uri` if the document is still at `version`;
    /// the last wave of an on-save check then ends its progress.
    Wave {
        uri: String,
        version: i64,
        wave: usize,
        check: Option<Check>,
    },
    /// Begin an on-save check of `uri` (after `checkRestartGapMs`), unless
    /// a later save (a higher `save`) has scheduled another.
    StartCheck {
        uri: String,
        save: u64,
    },
    /// The real check after an aborted one (`abortedCheckFirst`): its
    /// progress begins and its waves are scheduled, unless a later save
    /// cancelled it meanwhile.
    BeginCheck {
        uri: String,
        version: i64,
        check: Check,
    },
    ProgressEnd {
        token: String,
    },
    Refresh,
    /// `fileStatus`: the other open documents re-read after a save of `saved`.
    Reread {
        saved: String,
    },
    LoopPublish {
        uri: String,
        interval_ms: u64,
    },
    OrphanExit,
}

struct Server {
    script: Script,
    out: FrameWriter,
    log: EventLog,
    docs: Documents,
    timers: Scheduler<Action>,
    encoding: Encoding,
    client_pulls: bool,
    initialized: bool,
    shutdown: bool,
    configured: bool,
    hung: bool,
    seen_open: bool,
    stdin_closed: bool,
    /// Keys of client requests waiting on a delay (see [`id_key`]).
    delayed: HashSet<String>,
    next_request_id: i64,
    outgoing: HashMap<String, Purpose>,
    /// With `checkRestartGapMs`: saves seen, on-save checks started, and the
    /// one running (by number).
    saves: u64,
    /// Pull requests answered with ServerCancelled so far (`cancelPulls`).
    pulls_cancelled: u64,
    /// With `stalePullMs`: per document, the text before its latest change
    /// and until when pulls still answer for it.
    stale_pulls: HashMap<String, (String, Instant)>,
    checks_started: u64,
    running_check: Option<u64>,
    /// With `quietChecks`: the documents whose latest publish had
    /// diagnostics.
    published_some: HashSet<String>,
}

/// Request ids may be numbers or strings; their JSON text tells them apart.
fn id_key(id: &Value) -> String {
    id.to_string()
}

pub fn run(script: Script, log: EventLog) -> ! {
    let style = FrameStyle {
        garbage_frames: script.has_fault(&Fault::GarbageFrames),
        junk_header_lines: script.has_fault(&Fault::JunkHeaderLines),
        lowercase_headers: script.lowercase_headers,
        extra_header: script.header.clone(),
    };
    let mut server = Server {
        hung: script.has_fault(&Fault::HangOnInitialize),
        configured: !script.require_configuration,
        encoding: Encoding::Utf16,
        script,
        out: FrameWriter::new(style),
        log,
        docs: Documents::default(),
        timers: Scheduler::new(),
        client_pulls: false,
        initialized: false,
        shutdown: false,
        seen_open: false,
        stdin_closed: false,
        delayed: HashSet::new(),
        next_request_id: 1,
        outgoing: HashMap::new(),
        saves: 0,
        pulls_cancelled: 0,
        stale_pulls: HashMap::new(),
        checks_started: 0,
        running_check: None,
        published_some: HashSet::new(),
    };
    server.start();

    let (tx, rx) = mpsc::channel();
    spawn_reader(tx);
    loop {
        if server.stdin_closed {
            match server.timers.next_deadline() {
                Some(at) => std::thread::sleep(at.saturating_duration_since(Instant::now())),
                None => server.exit(if server.shutdown { 0 } else { 1 }),
            }
        } else {
            let received = match server.timers.next_deadline() {
                Some(at) => rx.recv_timeout(at.saturating_duration_since(Instant::now())),
                None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            };
            match received {
                Ok(Incoming::Body(body)) => {
                    if let Some(msg) = parse_body(&body) {
                        server.handle(msg);
                    }
                }
                Ok(Incoming::Eof) | Err(RecvTimeoutError::Disconnected) => server.on_eof(),
                Err(RecvTimeoutError::Timeout) => {}
            }
        }
        while let Some(action) = server.timers.pop_due(Instant::now()) {
            server.run_action(action);
        }
    }
}

impl Server {
    fn start(&mut self) {
        self.log.event("start", json!({"pid": std::process::id()}));
        if let Some(text) = &self.script.stderr_on_start {
            eprint!("{text}");
        }
        match self.script.fault {
            Some(Fault::ExitImmediately) => self.exit(0),
            Some(Fault::StderrFlood { bytes }) => {
                // In 64 KiB writes, as a server's buffered stderr would: the
                // flood's size is what matters, and a write per KiB costs a
                // wineserver round trip each under wine.
                let line = vec![b'e'; 64 * 1024];
                let mut stderr = std::io::stderr().lock();
                let mut left = bytes;
                while left > 0 {
                    let n = left.min(line.len());
                    if stderr.write_all(&line[..n]).is_err() {
                        break;
                    }
                    left -= n;
                }
            }
            _ => {}
        }
    }

    fn exit(&mut self, code: i32) -> ! {
        self.log.event("exit", json!({"code": code}));
        std::process::exit(code)
    }

    fn on_eof(&mut self) {
        if self.stdin_closed {
            return;
        }
        self.stdin_closed = true;
        self.log.event("stdinClosed", json!({}));
        let lingers = self.hung || self.script.has_fault(&Fault::IgnoreExit);
        if !lingers {
            self.exit(if self.shutdown { 0 } else { 1 });
        }
        self.timers.after(ORPHAN_LIFETIME_MS, Action::OrphanExit);
    }

    fn send(&mut self, msg: Value) {
        self.log.outgoing(&msg);
        let body = serde_json::to_vec(&msg).expect("JSON values always serialize");
        if let Err(err) = self.out.write(&body) {
            eprintln!("squiggle-fake-lsp: writing stdout failed: {err}");
            self.exit(1);
        }
    }

    fn respond(&mut self, id: Value, result: Result<Value, (i64, String)>) {
        let msg = match result {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err((code, message)) => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
            }
        };
        self.send(msg);
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn handle(&mut self, mut msg: Value) {
        self.log.incoming(&msg);
        let method = msg.get("method").and_then(Value::as_str).map(str::to_owned);
        let id = msg.get("id").cloned();
        // Taken, not cloned: params of a didOpen or didChange hold a document.
        let params = msg.get_mut("params").map_or(Value::Null, Value::take);
        match (method, id) {
            (Some(method), Some(id)) => self.on_request(id, method, params),
            (Some(method), None) => self.on_notification(&method, params),
            (None, Some(id)) => self.on_response(&id),
            (None, None) => eprintln!("squiggle-fake-lsp: ignoring a message with no method or id"),
        }
    }

    fn on_request(&mut self, id: Value, method: String, params: Value) {
        if let Some(Fault::CrashOnRequest { method: crash_on }) = &self.script.fault
            && *crash_on == method
        {
            self.exit(4);
        }
        if method == "initialize" && self.script.has_fault(&Fault::CrashOnInitialize) {
            self.exit(3);
        }
        if self.hung {
            return;
        }
        if method == "shutdown" && self.script.has_fault(&Fault::IgnoreShutdown) {
            self.shutdown = true;
            return;
        }
        if method != "initialize" && !self.initialized {
            let message = "the server is not initialized yet; send initialize first".to_owned();
            return self.respond(id, Err((SERVER_NOT_INITIALIZED, message)));
        }
        if self.shutdown {
            let message = format!("{method} after shutdown");
            return self.respond(id, Err((INVALID_REQUEST, message)));
        }
        let delay = self.script.request_delay(&method)
            + match method.as_str() {
                "initialize" => self.script.initialize_delay_ms,
                "textDocument/diagnostic" => self.script.pull_delay_ms,
                _ => 0,
            };
        if method == "initialize" {
            self.read_client_capabilities(&params);
        }
        if method == "shutdown" {
            self.shutdown = true;
        }
        if delay == 0 {
            return self.answer(id, &method, &params);
        }
        self.delayed.insert(id_key(&id));
        self.timers
            .after(delay, Action::Answer { id, method, params });
    }

    fn answer(&mut self, id: Value, method: &str, params: &Value) {
        match method {
            "initialize" => self.answer_initialize(id),
            "shutdown" => self.respond(id, Ok(Value::Null)),
            "textDocument/diagnostic" if self.script.diagnostic_mode != DiagnosticMode::Push => {
                if let Some(cancel) = self.script.cancel_pulls
                    && self.pulls_cancelled < cancel.count
                {
                    self.pulls_cancelled += 1;
                    let data = json!({"retriggerRequest": cancel.retrigger});
                    let error = json!({"code": SERVER_CANCELLED, "message": "server cancelled", "data": data});
                    self.send(json!({"jsonrpc": "2.0", "id": id, "error": error}));
                    return;
                }
                let report = self.pull_report(params);
                self.respond(id, Ok(report));
            }
            _ => match self.script.responses.get(method) {
                Some(result) => self.respond(id, Ok(result.clone())),
                None => {
                    let message = format!("the fake has no response scripted for {method}");
                    self.respond(id, Err((METHOD_NOT_FOUND, message)));
                }
            },
        }
    }

    fn on_notification(&mut self, method: &str, params: Value) {
        if self.hung {
            return;
        }
        match method {
            "initialized" => self.on_initialized(),
            "exit" => {
                if self.script.has_fault(&Fault::IgnoreExit) {
                    self.log.event("ignoredExit", json!({}));
                    return;
                }
                self.exit(if self.shutdown { 0 } else { 1 });
            }
            "$/cancelRequest" => {
                let id = params.get("id").cloned().unwrap_or(Value::Null);
                if self.delayed.remove(&id_key(&id)) {
                    self.log.event("cancelled", json!({"id": id}));
                    self.respond(id, Err((REQUEST_CANCELLED, "request cancelled".to_owned())));
                }
            }
            "textDocument/didOpen" => self.did_open(&params),
            "textDocument/didChange" => self.did_change(&params),
            "textDocument/didSave" => self.did_save(&params),
            "textDocument/didClose" => self.did_close(&params),
            _ => {}
        }
    }
}
