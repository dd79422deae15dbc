//! A session belongs to the MCP session (`Mcp-Session-Id`) that opened it,
//! on one `squiggle mcp --http`: another MCP session is answered as for an
//! id never opened, and the first still uses its session afterwards; an
//! MCP session that is deleted leaves no session behind.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::owners::unknown;
use crate::support::service::{DEADLINE, Workspace};

/// `squiggle mcp --http` on a loopback port, without a token, over a
/// workspace served by the fake; killed when dropped.
struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(ws: &Workspace) -> Server {
    let mut command = ws.command(&["mcp", "--http", "127.0.0.1:0", "--no-auth"]);
    command
        .args(["--trust-workspace", "--root"])
        .arg(&ws.root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap_or_else(|e| panic!("{e}"));
    let stderr = child.stderr.take().unwrap_or_else(|| panic!("no stderr"));
    let mut lines = BufReader::new(stderr).lines();
    let addr = loop {
        let line = lines
            .next()
            .unwrap_or_else(|| panic!("squiggle mcp exited"));
        let line = line.unwrap_or_else(|e| panic!("{e}"));
        if let Some(rest) = line.strip_prefix("squiggle mcp: listening on http://") {
            break rest.trim_end_matches("/mcp").to_string();
        }
    };
    std::thread::spawn(move || lines.for_each(drop));
    Server { child, addr }
}

/// One HTTP/1.1 exchange with `/mcp`: the status, the headers (lower
/// case) and the body, de-chunked.
fn exchange(
    addr: &str,
    method: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    let mut stream = TcpStream::connect(addr).unwrap_or_else(|e| panic!("connect {addr}: {e}"));
    stream.set_read_timeout(Some(DEADLINE)).ok();
    let mut request = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream
        .write_all(request.as_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let text = String::from_utf8_lossy(&response).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok());
    let status = status.unwrap_or_else(|| panic!("no status in {text:?}"));
    let head = head.to_ascii_lowercase();
    let body = if head.contains("transfer-encoding: chunked") {
        dechunk(body)
    } else {
        body.to_string()
    };
    (status, head, body)
}

fn dechunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 || after.len() < size {
            break;
        }
        out.push_str(&after[..size]);
        rest = after[size..].trim_start_matches("\r\n");
    }
    out
}

/// One MCP client over HTTP: its own `Mcp-Session-Id`.
struct Client<'a> {
    addr: &'a str,
    session: String,
    next: i64,
}

impl<'a> Client<'a> {
    fn initialize(server: &'a Server) -> Client<'a> {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "owners", "version": "0"}}});
        let (status, head, body) = exchange(&server.addr, "POST", &[], &init.to_string());
        assert_eq!(status, 200, "{body}");
        let session = head
            .lines()
            .find_map(|l| l.strip_prefix("mcp-session-id:"))
            .map(|v| v.trim().to_string())
            .unwrap_or_else(|| panic!("no Mcp-Session-Id in {head}"));
        let client = Client {
            addr: &server.addr,
            session,
            next: 0,
        };
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let (status, _, body) = client.send("POST", &initialized.to_string());
        assert_eq!(status, 202, "{body}");
        client
    }

    fn send(&self, method: &str, body: &str) -> (u16, String, String) {
        let headers = [
            ("Mcp-Session-Id", self.session.as_str()),
            ("MCP-Protocol-Version", "2025-06-18"),
        ];
        exchange(self.addr, method, &headers, body)
    }

    /// Calls `tool`: its text, `Ok` or (when the tool failed) `Err`.
    fn tool(&mut self, tool: &str, arguments: Value) -> Result<String, String> {
        self.next += 1;
        let request = json!({"jsonrpc": "2.0", "id": self.next, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}});
        let (status, _, body) = self.send("POST", &request.to_string());
        assert_eq!(status, 200, "{body}");
        answer(&body, self.next, tool)
    }
}

/// Calls `tool` as a client of the protocol revision without MCP
/// sessions (2026-07-28): no `Mcp-Session-Id`, its context in `_meta`.
fn sessionless(server: &Server, tool: &str, arguments: Value) -> Result<String, String> {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "owners", "version": "0"},
    });
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": meta}});
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", tool),
    ];
    let (status, _, body) = exchange(&server.addr, "POST", &headers, &request.to_string());
    assert_eq!(status, 200, "{body}");
    answer(&body, 1, tool)
}

/// The answer to request `id` in an SSE or JSON body: the tool's text,
/// `Err` when the tool failed.
fn answer(body: &str, id: i64, tool: &str) -> Result<String, String> {
    let reply = std::iter::once(body)
        .chain(body.lines().filter_map(|l| l.strip_prefix("data:")))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|v| v["id"] == id)
        .unwrap_or_else(|| panic!("no answer to {tool} in {body}"));
    let result = &reply["result"];
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    match result["isError"].as_bool() {
        Some(true) => Err(text.to_string()),
        _ => Ok(text.to_string()),
    }
}

fn workspace(max_open: usize) -> Workspace {
    let ws = Workspace::pull();
    let toml = std::fs::read_to_string(ws.root.join(".squiggle.toml")).unwrap_or_default();
    ws.write(
        ".squiggle.toml",
        &format!("{toml}\n[lsp.sessions]\nmaxOpen = {max_open}\n"),
    );
    ws.write("a.fk", "@error(old)\n");
    ws
}

/// The second MCP session evaluated (read the text and errors of) and
/// discarded the first's session. Every session tool is now refused it as
/// for an id never opened; the first evaluates and commits afterwards.
#[test]
fn another_mcp_session_cannot_reach_a_session() {
    let ws = workspace(8);
    let server = start(&ws);
    let mut first = Client::initialize(&server);
    let mut second = Client::initialize(&server);
    first
        .tool("session_open", json!({"paths": ["a.fk"]}))
        .unwrap_or_else(|e| panic!("{e}"));
    let edit = json!({"path": "a.fk", "old_string": "@error(old)", "new_string": "@error(mine)"});
    first
        .tool(
            "session_edit",
            json!({"session": "s1", "edits": [edit], "evaluate": false}),
        )
        .unwrap_or_else(|e| panic!("{e}"));

    assert_eq!(
        second.tool("session_evaluate", json!({"session": "s99"})),
        Err(unknown("s99"))
    );
    let stolen = json!({"path": "a.fk", "content": "stolen\n"});
    let calls = [
        ("session_evaluate", json!({"session": "s1"})),
        ("session_edit", json!({"session": "s1", "edits": [stolen]})),
        ("session_chain", json!({"session": "s1", "edits": [stolen]})),
        ("session_commit", json!({"session": "s1"})),
        ("session_discard", json!({"session": "s1"})),
    ];
    for (tool, arguments) in calls {
        assert_eq!(second.tool(tool, arguments), Err(unknown("s1")), "{tool}");
    }

    let evaluated = first.tool("session_evaluate", json!({"session": "s1"}));
    let evaluated = evaluated.unwrap_or_else(|e| panic!("{e}"));
    assert!(evaluated.contains("mine"), "{evaluated}");
    first
        .tool("session_commit", json!({"session": "s1"}))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.fk")).unwrap_or_default(),
        "@error(mine)\n"
    );
}

/// An MCP session deleted by its client left its open session holding the
/// one place `maxOpen = 1` allows until it idled out, 30 minutes later. It
/// is discarded with the MCP session.
#[test]
fn a_deleted_mcp_session_s_sessions_are_discarded() {
    let ws = workspace(1);
    let server = start(&ws);
    let mut first = Client::initialize(&server);
    let mut second = Client::initialize(&server);
    let open = json!({"paths": ["a.fk"]});
    first
        .tool("session_open", open.clone())
        .unwrap_or_else(|e| panic!("{e}"));
    let refused = second.tool("session_open", open.clone());
    assert!(
        refused.as_ref().is_err_and(|e| e.contains("maxOpen")),
        "{refused:?}"
    );
    let (status, _, body) = first.send("DELETE", "");
    assert!((200..300).contains(&status), "{status} {body}");
    // The MCP session's worker ends on its own time after the DELETE is
    // answered: nothing to wait on but the room coming free.
    let until = Instant::now() + DEADLINE;
    let reopened = loop {
        let tried = second.tool("session_open", open.clone());
        if tried.is_ok() || Instant::now() >= until {
            break tried;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(reopened.is_ok(), "{reopened:?}");
}

/// Requests outside any MCP session (the protocol revision without them)
/// each get a handler of their own; they share one owner, so a session one
/// of them opens is used by the next — and by no MCP session, as theirs
/// are not reached by them.
#[test]
fn requests_outside_mcp_sessions_share_their_sessions_only_among_themselves() {
    let ws = workspace(8);
    let server = start(&ws);
    let mut client = Client::initialize(&server);
    let opened = sessionless(&server, "session_open", json!({"paths": ["a.fk"]}));
    assert!(opened.is_ok(), "{opened:?}");
    let edit = json!({"path": "a.fk", "old_string": "@error(old)", "new_string": "@error(mine)"});
    let edited = sessionless(
        &server,
        "session_edit",
        json!({"session": "s1", "edits": [edit]}),
    );
    let edited = edited.unwrap_or_else(|e| panic!("{e}"));
    assert!(edited.contains("mine"), "{edited}");
    assert_eq!(
        client.tool("session_evaluate", json!({"session": "s1"})),
        Err(unknown("s1"))
    );
    client
        .tool("session_open", json!({"paths": ["a.fk"]}))
        .unwrap_or_else(|e| panic!("{e}"));
    let theirs = sessionless(&server, "session_evaluate", json!({"session": "s2"}));
    assert_eq!(
        theirs,
        Err(unknown("s2").replace("(it has none)", "(it has s1)"))
    );
}
