//! Smoke tests for the scripted fake language server, driven over real pipes with framing
//! written here by hand (not squiggle's), so the fake is checked against an independent peer.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long a message may take before the test calls it a hang: long,
/// since under emulation a loaded machine has taken more than 3 s to start
/// the fake and answer `initialize` (the ARM suite, once).
const WAIT: Duration = Duration::from_secs(60);
const URI: &str = "file:///tmp/a.rs";

struct Fake {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: Receiver<Value>,
    next_id: i64,
}

impl Fake {
    fn start(script: Value) -> Fake {
        let mut child = Command::new(env!("CARGO_BIN_EXE_squiggle-fake-lsp"))
            .env("SQUIGGLE_FAKE_SCRIPT_JSON", script.to_string())
            .env_remove("SQUIGGLE_FAKE_SCRIPT")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the fake server");
        let stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        // Drained in the background: a full stderr pipe would block the fake.
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        let (tx, messages) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(msg) = read_frame(&mut reader) {
                if tx.send(msg).is_err() {
                    break;
                }
            }
        });
        Fake {
            stdin: child.stdin.take(),
            child,
            messages,
            next_id: 1,
        }
    }

    fn send(&mut self, msg: Value) {
        let body = msg.to_string();
        let frame = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(frame.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// The next message matching `pred`, skipping others; panics after [`WAIT`].
    fn recv_matching(&self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(msg) if pred(&msg) => return msg,
                Ok(_) => {}
                Err(err) => panic!("waiting for {what}: {err}"),
            }
        }
    }

    fn response(&self, id: i64) -> Value {
        self.recv_matching(&format!("response {id}"), |m| {
            m["id"] == id && m.get("method").is_none()
        })
    }

    fn publish(&self) -> Value {
        self.recv_matching("publishDiagnostics", |m| {
            m["method"] == "textDocument/publishDiagnostics"
        })["params"]
            .clone()
    }

    fn initialize(&mut self, capabilities: Value) -> Value {
        let params = json!({"processId": null, "rootUri": null, "capabilities": capabilities});
        let id = self.request("initialize", params);
        let result = self.response(id)["result"].clone();
        self.notify("initialized", json!({}));
        result
    }

    fn open(&mut self, text: &str) {
        let item = json!({"uri": URI, "languageId": "rust", "version": 1, "text": text});
        self.notify("textDocument/didOpen", json!({"textDocument": item}));
    }

    fn wait_exit(&mut self) -> ExitStatus {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the fake did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Independent framing: Content-Length counts bytes.
fn read_frame(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

fn range(start: u32, end: u32) -> Value {
    json!({"start": {"line": 0, "character": start}, "end": {"line": 0, "character": end}})
}

#[test]
fn handshake_declares_defaults() {
    let mut fake = Fake::start(json!({}));
    let result = fake.initialize(json!({}));
    assert_eq!(result["capabilities"]["positionEncoding"], "utf-16");
    assert_eq!(result["capabilities"]["textDocumentSync"]["change"], 2);
    assert_eq!(
        result["capabilities"]["textDocumentSync"]["save"],
        json!({"includeText": false})
    );
    assert!(result["capabilities"].get("diagnosticProvider").is_none());
    assert_eq!(result["serverInfo"]["name"], "squiggle-fake-lsp");
}

#[test]
fn emoji_before_marker_gives_utf16_range_then_incremental_change_republishes() {
    let mut fake = Fake::start(json!({}));
    fake.initialize(json!({}));
    // "let " (4) + 😀 (2 UTF-16 units) + " = " (3) puts the @ at 9; the marker is 18 units.
    fake.open("let 😀 = @error[E1](bad 🚀) ;\nok");
    let published = fake.publish();
    assert_eq!(published["uri"], URI);
    assert_eq!(published["version"], 1);
    let expected = json!([{"range": range(9, 27), "severity": 1, "code": "E1",
        "source": "fake", "message": "bad 🚀"}]);
    assert_eq!(published["diagnostics"], expected);

    // Replace the marker on line 0 and add a warning on line 1.
    let changes = json!([
        {"range": {"start": {"line": 0, "character": 9}, "end": {"line": 0, "character": 27}},
         "text": "1"},
        {"range": {"start": {"line": 1, "character": 2}, "end": {"line": 1, "character": 2}},
         "text": " @warning(é)"},
    ]);
    let params = json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": changes});
    fake.notify("textDocument/didChange", params);
    let published = fake.publish();
    assert_eq!(published["version"], 2);
    let diagnostics = published["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{published}");
    assert_eq!(diagnostics[0]["severity"], 2);
    assert_eq!(diagnostics[0]["message"], "é");
    assert_eq!(
        diagnostics[0]["range"]["start"],
        json!({"line": 1, "character": 3})
    );
}

#[test]
fn pull_mode_reports_full_then_unchanged() {
    let mut fake = Fake::start(json!({"diagnosticMode": "pull"}));
    let result = fake.initialize(json!({"textDocument": {"diagnostic": {}}}));
    assert_eq!(
        result["capabilities"]["diagnosticProvider"],
        json!({"interFileDependencies": true, "workspaceDiagnostics": false})
    );
    fake.open("@hint#0(h) @nosev(n)");
    let doc = json!({"uri": URI});
    let id = fake.request("textDocument/diagnostic", json!({"textDocument": doc}));
    let report = fake.response(id)["result"].clone();
    assert_eq!(report["kind"], "full");
    assert_eq!(report["resultId"], "1");
    let items = report["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["severity"], 4);
    assert!(items[1].get("severity").is_none());

    let params = json!({"textDocument": doc, "previousResultId": "1"});
    let id = fake.request("textDocument/diagnostic", params);
    assert_eq!(
        fake.response(id)["result"],
        json!({"kind": "unchanged", "resultId": "1"})
    );
}

#[test]
fn utf8_negotiation_changes_character_offsets() {
    let mut fake = Fake::start(json!({"positionEncoding": "utf-8"}));
    let caps = json!({"general": {"positionEncodings": ["utf-8", "utf-16"]}});
    let result = fake.initialize(caps);
    assert_eq!(result["capabilities"]["positionEncoding"], "utf-8");
    fake.open("let 😀 = @info(i)");
    // "let " (4) + 😀 (4 bytes) + " = " (3) puts the @ at byte 11.
    assert_eq!(fake.publish()["diagnostics"][0]["range"], range(11, 19));
}

#[test]
fn utf8_is_not_chosen_unless_offered() {
    let mut fake = Fake::start(json!({"positionEncoding": "utf-8"}));
    let result = fake.initialize(json!({"general": {"positionEncodings": ["utf-16"]}}));
    assert_eq!(result["capabilities"]["positionEncoding"], "utf-16");
}

#[test]
fn delayed_request_is_cancelled() {
    let mut fake = Fake::start(json!({
        "requestDelayMs": {"textDocument/hover": 10000},
        "responses": {"textDocument/hover": {"contents": "hi"}},
    }));
    fake.initialize(json!({}));
    let id = fake.request("textDocument/hover", json!({}));
    fake.notify("$/cancelRequest", json!({"id": id}));
    assert_eq!(fake.response(id)["error"]["code"], -32800);
    let id = fake.request("textDocument/definition", json!({}));
    assert_eq!(fake.response(id)["error"]["code"], -32601);
}

#[test]
fn shutdown_then_exit_is_code_zero_and_logged() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("fake.jsonl");
    let mut fake = Fake::start(json!({"logFile": log}));
    fake.initialize(json!({}));
    fake.send(json!({"jsonrpc": "2.0", "id": 99, "method": "shutdown"}));
    assert_eq!(fake.response(99)["result"], Value::Null);
    fake.notify("exit", json!(null));
    assert_eq!(fake.wait_exit().code(), Some(0));

    let lines: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.first().unwrap()["event"], "start");
    assert_eq!(lines.last().unwrap(), &json!({"event": "exit", "code": 0}));
    let shutdown = lines
        .iter()
        .find(|l| l["msg"]["method"] == "shutdown")
        .unwrap();
    assert_eq!(shutdown["dir"], "in");
    assert!(shutdown["msg"].get("params").is_none());
}

#[test]
fn crash_on_initialize_exits_with_code_three() {
    let mut fake = Fake::start(json!({"fault": {"kind": "crashOnInitialize"}}));
    fake.request("initialize", json!({"capabilities": {}}));
    assert_eq!(fake.wait_exit().code(), Some(3));
}

#[test]
fn ignore_exit_keeps_running() {
    let mut fake = Fake::start(json!({"fault": {"kind": "ignoreExit"}}));
    fake.initialize(json!({}));
    let id = fake.request("shutdown", json!(null));
    fake.response(id);
    fake.notify("exit", json!(null));
    drop(fake.stdin.take());
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        fake.child.try_wait().unwrap().is_none(),
        "the fake exited despite ignoreExit"
    );
}

#[test]
fn unknown_script_key_exits_with_code_two() {
    let mut fake = Fake::start(json!({"diagnosticMod": "pull"}));
    assert_eq!(fake.wait_exit().code(), Some(2));
}

fn messages(diagnostics: &Value) -> Vec<&str> {
    diagnostics
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["message"].as_str().unwrap())
        .collect()
}

#[test]
fn waves_empty_first_and_stale_publish_come_in_order() {
    let mut fake = Fake::start(json!({"waves": [0, 50], "emptyFirst": true, "stalePublish": true}));
    fake.initialize(json!({}));
    fake.open("@error(syntax) @warning#1(semantic)");
    let first = fake.publish();
    assert_eq!(
        (first["version"].clone(), messages(&first["diagnostics"])),
        (json!(1), vec![])
    );
    assert_eq!(messages(&fake.publish()["diagnostics"]), ["syntax"]);
    assert_eq!(
        messages(&fake.publish()["diagnostics"]),
        ["syntax", "semantic"]
    );

    let params = json!({"textDocument": {"uri": URI, "version": 2},
        "contentChanges": [{"text": "@hint(fresh)"}]});
    fake.notify("textDocument/didChange", params);
    let stale = fake.publish();
    assert_eq!(stale["version"], 1);
    assert_eq!(messages(&stale["diagnostics"]), ["syntax", "semantic"]);
    assert_eq!(messages(&fake.publish()["diagnostics"]), Vec::<&str>::new());
    let fresh = fake.publish();
    assert_eq!(
        (fresh["version"].clone(), messages(&fresh["diagnostics"])),
        (json!(2), vec!["fresh"])
    );
}

#[test]
fn publish_on_save_is_wrapped_in_progress() {
    let mut fake = Fake::start(json!({"publishOnSave": true, "progressOnSave": true}));
    fake.initialize(json!({}));
    fake.open("@error(x)");
    fake.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": URI}}),
    );
    let create = fake.recv_matching("progress create", |m| m.get("id").is_some());
    assert_eq!(create["method"], "window/workDoneProgress/create");
    assert_eq!(create["params"]["token"], "fake-check");
    fake.send(json!({"jsonrpc": "2.0", "id": create["id"], "result": null}));
    let begin = fake.recv_matching("progress begin", |m| m["method"] == "$/progress");
    assert_eq!(begin["params"]["value"]["kind"], "begin");
    assert_eq!(messages(&fake.publish()["diagnostics"]), ["x"]);
    let end = fake.recv_matching("progress end", |m| m["method"] == "$/progress");
    assert_eq!(end["params"]["value"]["kind"], "end");
}

#[test]
fn require_configuration_holds_diagnostics_until_answered() {
    let mut fake = Fake::start(json!({"requireConfiguration": true}));
    fake.initialize(json!({}));
    let config = fake.recv_matching("configuration", |m| m.get("id").is_some());
    assert_eq!(config["method"], "workspace/configuration");
    fake.open("@error(x)");
    // Nothing may be published before the answer; the next message must follow it.
    fake.send(json!({"jsonrpc": "2.0", "id": config["id"], "result": [{}, {}]}));
    let next = fake.recv_matching("anything", |_| true);
    assert_eq!(next["method"], "textDocument/publishDiagnostics");
    assert_eq!(messages(&next["params"]["diagnostics"]), ["x"]);
}

#[test]
fn did_close_clears_diagnostics() {
    let mut fake = Fake::start(json!({}));
    fake.initialize(json!({}));
    fake.open("@error(x)");
    fake.publish();
    fake.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": URI}}),
    );
    assert_eq!(fake.publish(), json!({"uri": URI, "diagnostics": []}));
}
