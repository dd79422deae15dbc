//! `squiggle mcp --http`: the bearer token guards `/mcp` (401 without it or
//! with a wrong one), `/health` is open, `--no-auth` is refused on a
//! non-loopback address and accepted on loopback, bodies are bounded.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::support::mcp;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;

struct Server {
    child: Child,
    addr: String,
    _fixture: mcp::Fixture,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn command(fixture: &mcp::Fixture, args: &[&str], token: Option<&str>) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_squiggle"));
    cmd.arg("mcp")
        .arg("--root")
        .arg(&fixture.root)
        .args(args)
        .env("XDG_CONFIG_HOME", &fixture.config_home)
        .env_remove("SQUIGGLE_MCP_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(token) = token {
        cmd.env("SQUIGGLE_MCP_TOKEN", token);
    }
    cmd
}

fn start(args: &[&str], token: Option<&str>) -> Server {
    let fixture = mcp::Fixture::new();
    let mut child = command(&fixture, args, token)
        .spawn()
        .unwrap_or_else(|e| panic!("spawn squiggle: {e}"));
    let stderr = child.stderr.take().unwrap_or_else(|| panic!("no stderr"));
    let mut lines = BufReader::new(stderr).lines();
    let addr = loop {
        let line = lines
            .next()
            .unwrap_or_else(|| panic!("squiggle exited before listening"))
            .unwrap_or_else(|e| panic!("{e}"));
        if let Some(rest) = line.strip_prefix("squiggle mcp: listening on http://") {
            break rest.trim_end_matches("/mcp").to_string();
        }
    };
    // Keep draining stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    Server {
        child,
        addr,
        _fixture: fixture,
    }
}

/// One HTTP/1.1 request; returns (status, body).
fn http(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap_or_else(|e| panic!("connect {addr}: {e}"));
    stream.set_read_timeout(Some(Duration::from_secs(30))).ok();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    stream
        .write_all(request.as_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    // A server refusing an oversized body may close before reading it all.
    let _ = stream.write_all(body.as_bytes());
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let text = String::from_utf8_lossy(&response).to_string();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {text:?}"));
    let body = text.split_once("\r\n\r\n").map(|x| x.1).unwrap_or_default();
    (status, body.to_string())
}

fn post_initialize(addr: &str, auth: Option<&str>) -> (u16, String) {
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    let bearer = auth.map(|t| format!("Bearer {t}"));
    if let Some(b) = &bearer {
        headers.push(("Authorization", b));
    }
    http(addr, "POST", "/mcp", &headers, INITIALIZE)
}

#[test]
fn the_token_guards_mcp_and_health_is_open() {
    let server = start(&["--http", "127.0.0.1:0"], Some("s3cret-token"));
    let (status, body) = http(&server.addr, "GET", "/health", &[], "");
    assert_eq!((status, body.trim()), (200, "ok"));
    let (status, _) = post_initialize(&server.addr, None);
    assert_eq!(status, 401, "no token");
    let (status, _) = post_initialize(&server.addr, Some("s3cret-tokeN"));
    assert_eq!(status, 401, "wrong token");
    let (status, body) = post_initialize(&server.addr, Some("s3cret-token"));
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("\"serverInfo\"") && body.contains("squiggle"),
        "{body}"
    );
}

#[test]
fn request_bodies_are_bounded() {
    let server = start(&["--http", "127.0.0.1:0"], Some("t"));
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(5 * 1024 * 1024)
    );
    let (status, _) = http(
        &server.addr,
        "POST",
        "/mcp",
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("Authorization", "Bearer t"),
        ],
        &big,
    );
    assert_eq!(status, 413);
}

#[test]
fn no_auth_is_allowed_on_loopback_only() {
    let server = start(&["--http", "127.0.0.1:0", "--no-auth"], None);
    let (status, body) = post_initialize(&server.addr, None);
    assert_eq!(status, 200, "{body}");

    let fixture = mcp::Fixture::new();
    let out = command(&fixture, &["--http", "0.0.0.0:0", "--no-auth"], None)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--no-auth is only allowed on a loopback address"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn http_without_a_token_or_no_auth_is_refused() {
    let fixture = mcp::Fixture::new();
    let out = command(&fixture, &["--http", "127.0.0.1:0"], None)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("SQUIGGLE_MCP_TOKEN"), "{stderr}");
}
