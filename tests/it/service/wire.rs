//! One typed wire and one status: JSON-RPC `lsp/status`,
//! MCP `lsp_status` and `squiggle status --json` give the same rows with the
//! same fields for one workspace; every request method refuses a member it
//! does not know with `-32602` naming it; and `docs/protocol.md`'s examples
//! are what the wire structs read and write.

use std::path::Path;

use crate::support::fake_server::FakeServer;
use crate::support::service::{Framing, Service, Workspace};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use squiggle::daemon::method::{DaemonShutdown, DaemonStatus};
use squiggle::service::extract;
use squiggle::service::wire::{Method, method};

/// A workspace with four kinds of server besides the built-in ones: `fake`
/// (runs once a `.fk` file is checked), `later` (installed, never started),
/// `gone` (its command does not exist) and `ws-lint` (the workspace's own
/// command, not trusted). The first three are the user's, so trusted.
fn four_servers() -> Workspace {
    let ws = Workspace::bare();
    let user = format!(
        "{}\n{}\n[lsp.servers.gone]\ncommand = \"squiggle-no-such-server\"\nextensions = [\".gone\"]\n",
        FakeServer::new(json!({"diagnosticMode": "pull"})).toml("fake"),
        FakeServer::new(json!({"diagnosticMode": "pull"}))
            .extensions(&[".later"])
            .toml("later"),
    );
    crate::support::scratch::write_under(&ws.config_home, "squiggle/config.toml", user.as_bytes());
    ws.write(
        ".squiggle.toml",
        "[lsp.servers.ws-lint]\ncommand = \"ws-lint\"\nextensions = [\".ws\"]\n",
    );
    ws.write("a.fk", "x @error(boom)\n");
    ws
}

/// `squiggle ARGS…` in `ws` with a PATH that holds no language server.
fn squiggle(ws: &Workspace, args: &[&str]) -> std::process::Command {
    let mut command = ws.command(args);
    command
        .env("PATH", "/usr/bin:/bin")
        .env_remove("RUST_LOG")
        .env_remove("SQUIGGLE_NO_DAEMON");
    command
}

/// The rows with what differs between processes by nature (process ids,
/// memory, time since use) replaced by their kind, so that the fields and
/// every other value must agree.
fn comparable(rows: &Value) -> Vec<Value> {
    let mut rows = rows
        .as_array()
        .unwrap_or_else(|| panic!("not a list of rows: {rows}"))
        .clone();
    for row in &mut rows {
        for field in ["serverPid", "rssKb", "idleMs"] {
            if let Some(value) = row.get_mut(field) {
                assert!(value.is_u64(), "{field} is a number: {row}");
                *value = json!("<number>");
            }
        }
    }
    rows
}

fn row<'a>(rows: &'a [Value], id: &str) -> &'a Value {
    let found = rows.iter().find(|r| r["id"] == id);
    found.unwrap_or_else(|| panic!("no {id} in {rows:#?}"))
}

/// `lsp/status` from `squiggle serve`, after checking `a.fk`.
fn service_rows(ws: &Workspace) -> Vec<Value> {
    let mut command = squiggle(ws, &["serve", "--root"]);
    command.arg(&ws.root);
    let mut svc = Service::spawn(&mut command, Framing::Headers);
    svc.ok("lsp/checkFile", json!({"filePath": "a.fk"}));
    let rows = comparable(&svc.ok("lsp/status", json!({})));
    svc.ok("lsp/shutdown", json!({}));
    rows
}

/// MCP `lsp_status`'s `servers`, after `lsp_diagnostics` of `a.fk`.
fn mcp_rows(ws: &Workspace) -> Vec<Value> {
    let mut command = squiggle(ws, &["mcp", "--root"]);
    command.arg(&ws.root);
    let mut mcp = Service::spawn(&mut command, Framing::Lines);
    mcp.ok(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "wire_status", "version": "0"}}),
    );
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    mcp.send_raw(initialized.to_string().as_bytes());
    let checked = mcp.ok(
        "tools/call",
        json!({"name": "lsp_diagnostics", "arguments": {"path": "a.fk"}}),
    );
    assert_ne!(checked["isError"], true, "{checked}");
    let status = mcp.ok("tools/call", json!({"name": "lsp_status", "arguments": {}}));
    assert_ne!(status["isError"], true, "{status}");
    let text = status["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("ws-lint: untrusted — "), "{text}");
    assert!(text.contains("Not installed: "), "{text}");
    comparable(&status["structuredContent"]["servers"])
}

/// `squiggle status --json`'s `servers`, after `squiggle check a.fk`
/// (through the workspace's daemon, whose rows they are).
fn cli_rows(ws: &Workspace) -> Vec<Value> {
    let run = |args: &[&str]| {
        squiggle(ws, args)
            .output()
            .unwrap_or_else(|e| panic!("squiggle {args:?}: {e}"))
    };
    let checked = run(&["check", "a.fk"]);
    assert_eq!(checked.status.code(), Some(1), "{checked:?}");
    let status = run(&["status", "--json"]);
    let stopped = run(&["daemon", "stop"]);
    assert!(stopped.status.success(), "{stopped:?}");
    let status: Value = serde_json::from_slice(&status.stdout)
        .unwrap_or_else(|e| panic!("status --json: {e}: {status:?}"));
    assert!(status["daemon"]["pid"].is_u64(), "{status:#}");
    comparable(&status["servers"])
}

#[test]
fn lsp_status_mcp_lsp_status_and_status_json_give_the_same_rows() {
    let ws = four_servers();
    let service = service_rows(&ws);
    let mcp = mcp_rows(&ws);
    let cli = cli_rows(&ws);

    let fake = row(&service, "fake");
    let root = ws.root.display().to_string();
    assert_eq!(
        (&fake["status"], &fake["root"], &fake["starts"]),
        (&json!("active"), &json!(root), &json!(1)),
        "{fake:#}"
    );
    assert_eq!(
        (
            &fake["serverPid"],
            &fake["inFlight"],
            &fake["openDocuments"]
        ),
        (&json!("<number>"), &json!(0), &json!(1)),
        "{fake:#}"
    );
    assert_eq!(fake["command"], FakeServer::command(), "{fake:#}");
    let later = row(&service, "later");
    assert_eq!(
        (&later["status"], &later["command"], later.get("root")),
        (&json!("idle"), &json!(FakeServer::command()), None),
        "{later:#}"
    );
    let gone = row(&service, "gone");
    assert_eq!(gone["status"], "unavailable", "{gone:#}");
    let detail = gone["detail"].as_str().unwrap_or_default();
    assert!(
        detail.starts_with("squiggle-no-such-server not found on PATH"),
        "{gone:#}"
    );
    let untrusted = row(&service, "ws-lint");
    assert_eq!(untrusted["status"], "untrusted", "{untrusted:#}");
    let detail = untrusted["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("not run") && detail.ends_with("or pass --trust-workspace"),
        "{untrusted:#}"
    );
    assert_eq!(untrusted.get("command"), None, "never looked up");
    // A built-in server this PATH does not have is unavailable, not starting.
    assert_eq!(row(&service, "pyright")["status"], "unavailable");

    assert_eq!(mcp, service, "MCP lsp_status against JSON-RPC lsp/status");
    assert_eq!(cli, service, "status --json against JSON-RPC lsp/status");
}

#[test]
fn a_server_that_is_not_installed_is_unavailable_after_a_check() {
    let ws = four_servers();
    ws.write("b.gone", "text\n");
    let mut command = squiggle(&ws, &["serve", "--root"]);
    command.arg(&ws.root);
    let mut svc = Service::spawn(&mut command, Framing::Headers);
    svc.ok("lsp/checkFile", json!({"filePath": "b.gone"}));
    let rows = comparable(&svc.ok("lsp/status", json!({})));
    let gone = row(&rows, "gone");
    assert_eq!(
        (&gone["status"], &gone["root"], &gone["starts"]),
        (
            &json!("unavailable"),
            &json!(ws.root.display().to_string()),
            &json!(0)
        ),
        "{gone:#}"
    );
    let detail = gone["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("not found on PATH"), "{gone:#}");
}

/// Each method with params it accepts, plus a member it does not know.
fn with_unknown_member(method: &str) -> Value {
    let mut params = match method {
        "lsp/checkFile" => json!({"filePath": "a.fk"}),
        "lsp/checkFiles" => json!({"filePaths": ["a.fk"]}),
        "squiggle/edit" => json!({"filePath": "a.fk", "oldString": "x", "newString": "y"}),
        "squiggle/write" => json!({"filePath": "a.fk", "content": "y\n"}),
        "squiggle/applyPatch" => {
            json!({"patch": "*** Begin Patch\n*** Add File: n.fk\n+new\n*** End Patch\n"})
        }
        "squiggle/render" => json!({"edited": []}),
        "squiggle/check" => json!({"filePaths": ["a.fk"]}),
        _ => json!({}),
    };
    params["fileName"] = json!("a.fk");
    params
}

fn assert_refused(method: &str, error: &Value) {
    assert_eq!(error["code"], -32602, "{method}: {error}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("fileName: unknown field; "),
        "{method}: {message}"
    );
}

#[test]
fn every_request_method_refuses_an_unknown_member_by_name() {
    let ws = four_servers();
    let mut command = squiggle(&ws, &["serve", "--root"]);
    command.arg(&ws.root);
    let mut svc = Service::spawn(&mut command, Framing::Headers);
    for method in method::SERVICE_METHODS {
        let error = svc.err(method, with_unknown_member(method));
        assert_refused(method, &error);
    }
    // Nothing was done: no file written, no patch applied, and the service
    // (not shut down) still answers.
    let text = std::fs::read_to_string(ws.root.join("a.fk")).unwrap_or_default();
    assert_eq!(text, "x @error(boom)\n");
    assert!(!ws.root.join("n.fk").exists());
    let error = svc.err("lsp/status", json!({"verbose": true}));
    assert_eq!(
        error["message"],
        "verbose: unknown field; this method takes no params"
    );
    svc.ok("lsp/status", Value::Null);

    // The daemon's own methods too.
    let daemon_socket = {
        let out = squiggle(&ws, &["daemon", "start"]).output();
        let out = out.unwrap_or_else(|e| panic!("daemon start: {e}"));
        assert!(out.status.success(), "{out:?}");
        ws.runtime_dir.join("squiggle")
    };
    let rt = tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("{e}"));
    rt.block_on(async {
        let opts = squiggle::daemon::client::Options {
            runtime_dir: Some(ws.runtime_dir.clone()),
            ..Default::default()
        };
        let mut connection = squiggle::daemon::client::connect(&ws.root, &opts)
            .await
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_else(|| panic!("no daemon in {}", daemon_socket.display()));
        for name in [DaemonStatus::NAME, DaemonShutdown::NAME] {
            let refused = connection
                .request(
                    name,
                    with_unknown_member(name),
                    std::time::Duration::from_secs(10),
                )
                .await;
            match refused {
                Err(squiggle::daemon::DaemonError::Rpc { error, .. }) => {
                    let error = serde_json::to_value(error).unwrap_or_default();
                    assert_refused(name, &error);
                }
                other => panic!("{name}: {other:?}"),
            }
        }
        // Still running: the refused shutdown stopped nothing.
        connection
            .status()
            .await
            .unwrap_or_else(|e| panic!("status after the refusals: {e}"));
    });
    let stopped = squiggle(&ws, &["daemon", "stop"]).output();
    assert!(stopped.is_ok_and(|o| o.status.success()));
}

/// One `→` request or `←` answer of an example, as written.
#[derive(Debug)]
struct Exchange {
    heading: String,
    request: Value,
    answer: Option<Value>,
}

/// The examples under each `### \`method\`` heading of `docs/protocol.md`:
/// every `→ {…}` line (continued on the lines after it) and the `← {…}`
/// that follows it, each one JSON text.
fn protocol_examples() -> Vec<Exchange> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/protocol.md");
    let doc = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    let mut exchanges: Vec<Exchange> = Vec::new();
    let mut heading = String::new();
    let mut in_block = false;
    let mut current: Option<(char, String)> = None;
    let finish =
        |current: &mut Option<(char, String)>, exchanges: &mut Vec<Exchange>, heading: &str| {
            let Some((arrow, text)) = current.take() else {
                return;
            };
            let value: Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{heading}: {arrow} is not JSON ({e}):\n{text}"));
            match arrow {
                '→' => exchanges.push(Exchange {
                    heading: heading.to_string(),
                    request: value,
                    answer: None,
                }),
                _ => match exchanges.last_mut() {
                    Some(last) if last.heading == heading && last.answer.is_none() => {
                        last.answer = Some(value)
                    }
                    _ => panic!("{heading}: an answer without its request:\n{text}"),
                },
            }
        };
    for line in doc.lines() {
        if let Some(title) = line.strip_prefix("### ") {
            heading = title.trim_matches('`').to_string();
        }
        if line.starts_with("## ") {
            heading.clear();
        }
        if line.starts_with("```") {
            finish(&mut current, &mut exchanges, &heading);
            in_block = !in_block;
            continue;
        }
        let method_heading = heading.starts_with("lsp/") || heading.starts_with("squiggle/");
        if !in_block || !method_heading {
            continue;
        }
        let arrow = line.chars().next();
        match arrow {
            Some(a @ ('→' | '←')) => {
                finish(&mut current, &mut exchanges, &heading);
                current = Some((a, line[a.len_utf8()..].to_string()));
            }
            _ => {
                if let Some((_, text)) = &mut current {
                    text.push('\n');
                    text.push_str(line);
                }
            }
        }
    }
    exchanges
}

/// `value` read as `T` the way the wire reads it, then written back: it
/// must come back as it was (no member lost, none invented).
fn round_trip<T: Serialize + DeserializeOwned>(what: &str, value: &Value) {
    let typed: T = serde_json::from_value(value.clone())
        .unwrap_or_else(|e| panic!("{what} does not read: {e}\n{value:#}"));
    let written = serde_json::to_value(&typed).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(&written, value, "{what} written back");
}

fn check_example<M: Method>(exchange: &Exchange) {
    let what = format!("{} example", M::NAME);
    let params = exchange
        .request
        .get("params")
        .cloned()
        .unwrap_or(Value::Null);
    let typed: M::Params = extract(params.clone())
        .unwrap_or_else(|e| panic!("{what}: params refused: {}\n{params:#}", e.message()));
    if !params.is_null() {
        let written = serde_json::to_value(&typed).unwrap_or_default();
        assert_eq!(written, params, "{what}: params written back");
    }
    let answer = exchange
        .answer
        .as_ref()
        .unwrap_or_else(|| panic!("{what}: no answer shown"));
    assert_eq!(answer["id"], exchange.request["id"], "{what}: ids");
    match (answer.get("result"), answer.get("error")) {
        (Some(result), None) => round_trip::<M::Answer>(&format!("{what}: result"), result),
        (None, Some(error)) => {
            assert!(
                error["code"].is_i64() && error["message"].is_string(),
                "{what}: {error}"
            );
        }
        _ => panic!("{what}: an answer needs a result or an error: {answer}"),
    }
}

#[test]
fn protocol_examples_are_what_the_wire_structs_read_and_write() {
    let exchanges = protocol_examples();
    let mut shown: Vec<&str> = Vec::new();
    for exchange in &exchanges {
        let name = exchange.request["method"].as_str().unwrap_or_default();
        assert_eq!(name, exchange.heading, "an example under another heading");
        match name {
            method::CheckFile::NAME => check_example::<method::CheckFile>(exchange),
            method::CheckFiles::NAME => check_example::<method::CheckFiles>(exchange),
            method::Diagnostics::NAME => check_example::<method::Diagnostics>(exchange),
            method::Status::NAME => check_example::<method::Status>(exchange),
            method::Shutdown::NAME => check_example::<method::Shutdown>(exchange),
            method::Edit::NAME => check_example::<method::Edit>(exchange),
            method::Write::NAME => check_example::<method::Write>(exchange),
            method::ApplyPatch::NAME => check_example::<method::ApplyPatch>(exchange),
            method::Fix::NAME => check_example::<method::Fix>(exchange),
            method::Render::NAME => check_example::<method::Render>(exchange),
            method::Check::NAME => check_example::<method::Check>(exchange),
            method::Delete::NAME => check_example::<method::Delete>(exchange),
            method::Warm::NAME => check_example::<method::Warm>(exchange),
            method::SessionOpen::NAME => check_example::<method::SessionOpen>(exchange),
            method::SessionEdit::NAME => check_example::<method::SessionEdit>(exchange),
            method::SessionEvaluate::NAME => check_example::<method::SessionEvaluate>(exchange),
            method::SessionChain::NAME => check_example::<method::SessionChain>(exchange),
            method::SessionCommit::NAME => check_example::<method::SessionCommit>(exchange),
            method::SessionDiscard::NAME => check_example::<method::SessionDiscard>(exchange),
            DaemonStatus::NAME => check_example::<DaemonStatus>(exchange),
            DaemonShutdown::NAME => check_example::<DaemonShutdown>(exchange),
            other => panic!("docs/protocol.md shows an unknown method {other:?}"),
        }
        shown.push(exchange.heading.as_str());
    }
    let every = method::SERVICE_METHODS
        .iter()
        .chain(&[DaemonStatus::NAME, DaemonShutdown::NAME]);
    for name in every {
        assert!(
            shown.contains(name),
            "docs/protocol.md has no example of {name}"
        );
    }
}
