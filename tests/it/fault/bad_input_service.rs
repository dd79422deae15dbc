//! Bad input at the process boundaries: a malformed `.squiggle.toml` or user
//! config (the file and the key are named, nothing is touched), malformed
//! JSON-RPC on `squiggle serve` (a protocol error, and the service keeps
//! serving), refused mutations over the service, and malformed hook JSON
//! (exit 0, one line on stderr, nothing on stdout).

use std::time::Duration;

use serde_json::{Value, json};

use crate::support;
use crate::support::service;
use crate::support::service::{Service, Workspace};

/// What a finished `squiggle` run printed.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(ws: &Workspace, args: &[&str], stdin: &[u8]) -> Run {
    let out = support::output_with_stdin(&mut ws.command(args), stdin);
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn malformed_config_names_the_file_and_the_key_and_touches_nothing() {
    let ws = Workspace::pull();
    let file = ws.write("a.fk", "hi\n");
    let config = ws.root.join(".squiggle.toml");
    let shown = config.display().to_string();
    let cases = [
        (
            "[lsp]\ndiagnosticTimout = 5\n",
            "lsp.diagnosticTimout: unknown key; did you mean \"diagnosticTimeout\"?",
        ),
        ("[lsp\nx = 1\n", ":1:5: invalid TOML"),
        (
            "[lsp]\ndiagnosticTimeout = \"fast\"\n",
            "lsp.diagnosticTimeout: expected a positive integer",
        ),
        (
            "[lsp.servers.nosuch]\nenabled = true\n",
            "lsp.servers.nosuch",
        ),
        (
            "[lsp]\ntrustedWorkspaces = [\"/\"]\n",
            "lsp.trustedWorkspaces",
        ),
    ];
    for (toml, expected) in cases {
        std::fs::write(&config, toml).unwrap_or_else(|e| panic!("{e}"));
        for args in [
            &["edit", "a.fk", "--old-string", "hi", "--new-string", "ho"][..],
            &["serve"][..],
            &["check", "a.fk"][..],
        ] {
            let out = run(&ws, args, b"");
            assert_eq!(out.code, Some(2), "{args:?} with {toml:?}: {}", out.stderr);
            assert!(
                out.stderr.contains(&shown) && out.stderr.contains(expected),
                "{args:?} with {toml:?}: stderr {:?} should name {shown} and {expected:?}",
                out.stderr
            );
            assert!(out.stdout.is_empty(), "{args:?}: {}", out.stdout);
        }
        assert_eq!(std::fs::read_to_string(&file).ok().as_deref(), Some("hi\n"));
    }

    std::fs::remove_file(&config).unwrap_or_else(|e| panic!("{e}"));
    let user = squiggle::platform::paths::join_slashed(&ws.config_home, "squiggle/config.toml");
    std::fs::create_dir_all(ws.config_home.join("squiggle")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&user, "[lsp]\nreport = \"some\"\n").unwrap_or_else(|e| panic!("{e}"));
    let out = run(
        &ws,
        &["edit", "a.fk", "--old-string", "hi", "--new-string", "ho"],
        b"",
    );
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(
        out.stderr.contains(&user.display().to_string()) && out.stderr.contains("lsp.report"),
        "{}",
        out.stderr
    );
    assert_eq!(std::fs::read_to_string(&file).ok().as_deref(), Some("hi\n"));
}

/// `squiggle serve` spoken to with raw bytes too (`Service::send_bytes`), so
/// that broken framing can be sent.
impl Service {
    /// The next frame, which must be an error with `code` and a null id.
    fn protocol_error(&self, code: i64, what: &str) {
        let frame = self.next_frame();
        assert_eq!(frame["error"]["code"], json!(code), "{what}: {frame}");
        assert_eq!(frame["id"], Value::Null, "{what}: {frame}");
        let message = frame["error"]["message"].as_str().unwrap_or_default();
        assert!(!message.is_empty(), "{what}: {frame}");
    }

    /// A request whose answer must come back: the service still serves.
    fn still_serving(&mut self, id: i64) -> Value {
        let frame = self.call_with_id(id, "lsp/status", Value::Null);
        assert!(frame["result"].is_array(), "{frame}");
        frame
    }
}

#[test]
fn malformed_json_rpc_is_a_protocol_error_and_the_service_keeps_serving() {
    let ws = Workspace::pull();
    ws.write("a.fk", "@error(e)\n");
    let mut raw = Service::start(&ws);
    let pid = raw.child.id();
    raw.still_serving(1);
    let fds = support::process::open_fds(Some(pid));

    // Unknown header lines alone are junk a server might print: skipped.
    raw.send_bytes(b"X-Nothing: here\r\n\r\n");
    raw.still_serving(2);
    raw.send_bytes(b"Content-Type: application/json\r\n\r\n");
    raw.protocol_error(-32700, "no Content-Length");
    raw.send_bytes(b"Content-Length: many\r\n\r\n");
    raw.protocol_error(-32700, "Content-Length not a number");
    raw.still_serving(3);
    raw.send_bytes(b"Content-Length: -5\r\n\r\n");
    raw.protocol_error(-32700, "negative Content-Length");
    raw.still_serving(4);
    raw.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"lsp/status\xff\"}");
    raw.protocol_error(-32700, "invalid UTF-8");
    raw.send_raw(&[b'['; 100_000]);
    raw.protocol_error(-32700, "100,000 nested arrays");
    raw.send_raw(b"");
    raw.protocol_error(-32700, "an empty body");
    raw.send_raw(b"null");
    let frame = raw.next_frame();
    assert_eq!(frame["error"]["code"], -32600, "{frame}");
    raw.send_raw(br#"{"jsonrpc":"2.0","id":5,"method":7}"#);
    let frame = raw.next_frame();
    assert_eq!(
        frame["error"]["code"], -32600,
        "method not a string: {frame}"
    );
    raw.send_raw(br#"{"jsonrpc":"2.0","id":6,"result":"a stray response"}"#);
    raw.send_raw(br#"{"jsonrpc":"2.0","id":7,"method":"squiggle/edit","params":null}"#);
    let frame = raw.next_frame();
    assert_eq!(
        (frame["id"].clone(), frame["error"]["code"].clone()),
        (json!(7), json!(-32602)),
        "{frame}"
    );
    raw.still_serving(8);

    // One frame over the 64 MiB limit is skipped whole; the stream stays in sync.
    let huge = 64 * 1024 * 1024 + 1;
    raw.send_bytes(format!("Content-Length: {huge}\r\n\r\n").as_bytes());
    let chunk = vec![b' '; 1024 * 1024];
    let mut left = huge;
    while left > 0 {
        let n = left.min(chunk.len());
        raw.send_bytes(&chunk[..n]);
        left -= n;
    }
    raw.protocol_error(-32700, "a frame over the limit");
    raw.still_serving(10);

    let after = support::process::open_fds(Some(pid));
    assert!(
        support::process::fds_within(after, fds, 0),
        "{after:?} fds after the bad frames, {fds:?} before"
    );
    let rss = support::process::rss_kib(pid).unwrap_or(0);
    assert!(
        rss < 512 * 1024,
        "the service holds {rss} KiB after the big frame"
    );
    raw.close_stdin();
    let exited = support::poll_until(Duration::from_secs(10), || {
        matches!(raw.child.try_wait(), Ok(Some(_)))
    });
    assert!(exited, "the service did not exit at end of input");
}

/// JSON-RPC 2.0: a request whose id is not a string, an integer or null is an
/// Invalid Request, answered with a null id. Treating it as a notification
/// leaves the client waiting for an answer that never comes.
#[test]
fn a_request_with_an_unusable_id_is_answered() {
    let ws = Workspace::pull();
    let mut raw = Service::start(&ws);
    for id in [r#"{"deep":1}"#, "[1]", "1.5", "true"] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"lsp/status"}}"#);
        raw.send_raw(body.as_bytes());
        let frame = raw.next_frame();
        assert_eq!(frame["error"]["code"], -32600, "id {id}: {frame}");
        assert_eq!(frame["id"], Value::Null, "id {id}: {frame}");
    }
    raw.still_serving(1);
}

#[test]
fn refused_mutations_over_the_service_say_why_and_keep_the_file() {
    let ws = Workspace::pull();
    let latin = ws.root.join("latin.fk");
    std::fs::write(&latin, b"caf\xe9\n").unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir(ws.root.join("dir.fk")).unwrap_or_else(|e| panic!("{e}"));
    let mut svc = service::Service::start(&ws);
    let cases = [
        (
            "squiggle/edit",
            json!({"filePath": "latin.fk", "oldString": "caf", "newString": "x"}),
            "not valid UTF-8",
        ),
        (
            "squiggle/edit",
            json!({"filePath": "missing.fk", "oldString": "a", "newString": "b"}),
            "cannot read missing.fk",
        ),
        (
            "squiggle/write",
            json!({"filePath": "dir.fk", "content": "x"}),
            "cannot write dir.fk",
        ),
        (
            "squiggle/applyPatch",
            json!({"patch": "*** Begin Patch\n*** Add File: ../out.fk\n+x\n*** End Patch\n"}),
            "outside the workspace",
        ),
        (
            "squiggle/applyPatch",
            json!({"patch": "this is not a patch"}),
            "patch",
        ),
    ];
    for (method, params, expected) in cases {
        let e = svc.err(method, params.clone());
        assert_eq!(e["code"], -32001, "{method} {params}: {e}");
        let message = e["message"].as_str().unwrap_or_default();
        assert!(message.contains(expected), "{method} {params}: {message}");
    }
    assert_eq!(std::fs::read(&latin).ok(), Some(b"caf\xe9\n".to_vec()));
    assert!(!ws.tmp.path().join("out.fk").exists());
    assert_eq!(svc.ok("lsp/shutdown", json!({})), Value::Null);
}

#[test]
fn malformed_hook_json_exits_zero_with_one_line_on_stderr() {
    let ws = Workspace::pull();
    let file = ws.write("a.fk", "@error(e)\n");
    let big = vec![b'{'; 10 * 1024 * 1024];
    let inputs: [&[u8]; 9] = [
        b"",
        b"not json",
        b"\xff\xfe\x00garbage",
        b"[1, 2, 3]",
        br#"{"tool_name": 5}"#,
        br#"{"hook_event_name": "PostToolUse", "tool_name": "Edit"}"#,
        br#"{"hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_input": {"file_path": ["a"]}}"#,
        br#"{"hook_event_name": "AfterTool", "tool_name": "replace", "tool_input": null}"#,
        &big,
    ];
    for agent in ["claude", "codex", "gemini"] {
        for input in inputs {
            let out = run(&ws, &["hook", agent, "--no-daemon"], input);
            let shown = String::from_utf8_lossy(&input[..input.len().min(80)]).into_owned();
            assert_eq!(out.code, Some(0), "{agent} {shown:?}: {}", out.stderr);
            assert!(out.stdout.is_empty(), "{agent} {shown:?}: {}", out.stdout);
            assert!(
                out.stderr.lines().count() <= 1,
                "{agent} {shown:?}: {}",
                out.stderr
            );
        }
    }
    assert_eq!(
        std::fs::read_to_string(&file).ok().as_deref(),
        Some("@error(e)\n")
    );
}
