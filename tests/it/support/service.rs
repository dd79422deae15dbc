//! Shared helpers for tests that run `squiggle serve`, `squiggle mcp` and
//! `squiggle daemon` against a workspace whose `.squiggle.toml` configures
//! the scripted fake server for `.fk` files.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::fake_server::FakeServer;

// The service tests' workspace: the shared scratch workspace.
pub use crate::support::scratch::Scratch as Workspace;

impl Workspace {
    /// `script` is the fake's JSON script; pull mode is the default.
    pub fn new(script: Value) -> Workspace {
        let ws = Workspace::bare();
        let toml = FakeServer::new(script).toml("fake");
        ws.write(".squiggle.toml", &toml);
        ws
    }

    pub fn pull() -> Workspace {
        Workspace::new(json!({"diagnosticMode": "pull"}))
    }
}

/// How messages are delimited on a peer's pipes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// `Content-Length` headers, as LSP frames JSON-RPC (`squiggle serve`).
    Headers,
    /// One JSON message a line (MCP over stdio).
    Lines,
}

/// A running `squiggle serve` (or another JSON-RPC peer of ours), spoken to
/// with blocking IO; every read has a deadline.
pub struct Service {
    pub child: Child,
    stdin: Option<ChildStdin>,
    frames: mpsc::Receiver<Value>,
    next_id: i64,
    framing: Framing,
}

/// How long a test waits for one frame: longer than the timeouts the tests
/// give real servers, so that a cold server on a loaded machine is a slow
/// answer rather than a failure.
pub const DEADLINE: Duration = Duration::from_secs(60);

impl Service {
    pub fn start(ws: &Workspace) -> Service {
        let mut command = ws.command(&["serve", "--trust-workspace", "--root"]);
        command.arg(&ws.root);
        Service::spawn(&mut command, Framing::Headers)
    }

    /// Starts `command` and speaks to it with `framing`; its stdout is read
    /// on a thread of its own, its stderr is ours.
    pub fn spawn(command: &mut Command, framing: Framing) -> Service {
        let mut child = crate::support::spawn_piped(command, Stdio::inherit());
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
        let (tx, frames) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(body) = read_message(&mut reader, framing) {
                let value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        Service {
            child,
            stdin,
            frames,
            next_id: 0,
            framing,
        }
    }

    /// Sends `body` as one message (whatever it holds).
    pub fn send_raw(&mut self, body: &[u8]) {
        match self.framing {
            Framing::Headers => {
                self.send_bytes(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
                self.send_bytes(body);
            }
            Framing::Lines => {
                self.send_bytes(body);
                self.send_bytes(b"\n");
            }
        }
    }

    /// Writes `bytes` to the service's stdin as they are, framed or not.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self
            .stdin
            .as_mut()
            .unwrap_or_else(|| panic!("stdin closed"));
        stdin
            .write_all(bytes)
            .and_then(|_| stdin.flush())
            .unwrap_or_else(|e| panic!("write to service: {e}"));
    }

    pub fn next_frame(&self) -> Value {
        self.frames
            .recv_timeout(DEADLINE)
            .unwrap_or_else(|e| panic!("no frame from the service: {e}"))
    }

    /// Sends a request and returns the whole response object.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        self.call_with_id(self.next_id, method, params)
    }

    /// `call` with the id the caller chose.
    pub fn call_with_id(&mut self, id: i64, method: &str, params: Value) -> Value {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_raw(request.to_string().as_bytes());
        loop {
            let frame = self.next_frame();
            if frame["id"] == json!(id) {
                return frame;
            }
        }
    }

    /// The `result` of a successful call.
    pub fn ok(&mut self, method: &str, params: Value) -> Value {
        let response = self.call(method, params);
        assert!(
            response.get("error").is_none(),
            "{method} failed: {response}"
        );
        response["result"].clone()
    }

    /// The `error` of a failed call.
    pub fn err(&mut self, method: &str, params: Value) -> Value {
        let response = self.call(method, params);
        assert!(
            response.get("result").is_none(),
            "{method} should fail: {response}"
        );
        response["error"].clone()
    }

    pub fn close_stdin(&mut self) {
        self.stdin.take();
    }

    /// Waits for the process to exit; its exit code.
    pub fn wait(&mut self) -> Option<i32> {
        let deadline = std::time::Instant::now() + DEADLINE;
        while std::time::Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("the service did not exit");
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The next message's body, `None` at the end of the stream.
fn read_message(reader: &mut impl BufRead, framing: Framing) -> Option<Vec<u8>> {
    if framing == Framing::Lines {
        let mut line = String::new();
        return (reader.read_line(&mut line).ok()? > 0).then(|| line.into_bytes());
    }
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
        if let Some(value) = line.strip_prefix("Content-Length:") {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    Some(body)
}

pub fn path_str(path: &Path) -> String {
    path.display().to_string()
}
