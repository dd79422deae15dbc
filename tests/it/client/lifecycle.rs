//! The client's lifecycle against the scripted fake: requests and their
//! order, timeouts and cancellation, every server-to-client request, crash
//! handling, shutdown (including a server that ignores `exit`), and framing
//! faults on the real pipe.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use squiggle::lsp::{ClientError, LspClient};

use crate::support;
use crate::support::{Fake, process_exists, progress_open, wait_for};

#[tokio::test]
async fn initialize_records_facts_and_negotiates_utf8() {
    let fake = Fake::new();
    let client = fake
        .start(
            json!({"positionEncoding": "utf-8", "serverInfo": {"name": "fakey", "version": "9.1"}}),
        )
        .await;
    let facts = client
        .facts()
        .cloned()
        .unwrap_or_else(|| panic!("no facts"));
    assert_eq!(facts.encoding.as_lsp(), "utf-8");
    assert_eq!(
        (facts.name.as_deref(), facts.version.as_deref()),
        (Some("fakey"), Some("9.1"))
    );
    let init = &fake.received("initialize")[0]["params"];
    assert_eq!(init["clientInfo"]["name"], "squiggle");
    assert!(
        init["rootUri"]
            .as_str()
            .is_some_and(|u| u.starts_with("file:///"))
    );
    assert_eq!(init["workspaceFolders"][0]["uri"], init["rootUri"]);
    fake.wait_log("initialized", |f| f.received("initialized").len() == 1)
        .await;
}

#[tokio::test]
async fn requests_reach_the_wire_in_call_order() {
    let fake = Fake::new();
    let client = fake
        .start(
            json!({"responses": {"textDocument/hover": {"contents": "h"}, "workspace/symbol": []}}),
        )
        .await;
    let first = client.request("textDocument/hover", json!({"n": 1}));
    let second = client.request("workspace/symbol", json!({"query": ""}));
    // Awaited in reverse: order on the wire must still be the call order.
    let (b, a) = (second.await, first.await);
    assert_eq!(a.ok(), Some(json!({"contents": "h"})));
    assert_eq!(b.ok(), Some(json!([])));
    let methods: Vec<Value> = fake
        .messages("in")
        .iter()
        .map(|m| m["method"].clone())
        .filter(|m| m == "textDocument/hover" || m == "workspace/symbol")
        .collect();
    assert_eq!(
        methods,
        vec![json!("textDocument/hover"), json!("workspace/symbol")]
    );
}

#[tokio::test]
async fn timeout_fails_the_request_and_sends_cancel() {
    let fake = Fake::new();
    // The answer is due in a minute: a timeout, not the answer, ends the request.
    let client = fake.start(json!({"requestDelayMs": {"textDocument/hover": 60000}, "responses": {"textDocument/hover": null}})).await;
    let result = client
        .request_with_timeout("textDocument/hover", json!({}), Duration::from_millis(100))
        .await;
    assert!(
        matches!(result, Err(ClientError::Timeout { .. })),
        "{result:?}"
    );
    let id = fake.received("textDocument/hover")[0]["id"].clone();
    fake.wait_log("$/cancelRequest", |f| {
        f.received("$/cancelRequest")
            .iter()
            .any(|c| c["params"]["id"] == id)
    })
    .await;
}

#[tokio::test]
async fn dropping_a_request_future_sends_cancel() {
    let fake = Fake::new();
    let client = fake.start(json!({"requestDelayMs": {"textDocument/hover": 3000}, "responses": {"textDocument/hover": null}})).await;
    let pending = client.request("textDocument/hover", json!({}));
    drop(pending);
    fake.wait_log("$/cancelRequest", |f| {
        !f.received("$/cancelRequest").is_empty()
    })
    .await;
    // The fake answers a cancelled request with RequestCancelled; the client
    // ignores that response (its id is no longer pending) and keeps working.
    let ok = client.request("shutdown", Value::Null).await;
    assert!(ok.is_ok(), "{ok:?}");
}

#[tokio::test]
async fn unknown_methods_come_back_as_errors() {
    let fake = Fake::new();
    let client = fake.start(json!({})).await;
    let result = client.request("custom/unknown", json!({})).await;
    let Err(ClientError::Rpc { error, method, .. }) = result else {
        panic!("{result:?}")
    };
    assert_eq!((error.code, method.as_str()), (-32601, "custom/unknown"));
}

#[tokio::test]
async fn every_server_request_is_answered() {
    let fake = Fake::new();
    let requests = json!([
        {"method": "workspace/configuration", "params": {"items": [{"section": "a.b"}, {}]}, "after": "initialized"},
        {"method": "window/workDoneProgress/create", "params": {"token": "t1"}, "after": "initialized"},
        {"method": "workspace/workspaceFolders", "after": "initialized"},
        {"method": "window/showMessageRequest", "params": {"type": 3, "message": "pick", "actions": [{"title": "x"}]}, "after": "initialized"},
        {"method": "workspace/applyEdit", "params": {"edit": {"changes": {}}}, "after": "initialized"},
        {"method": "client/registerCapability", "params": {"registrations": [{"id": "w", "method": "workspace/didChangeWatchedFiles", "registerOptions": {"watchers": [{"globPattern": "**/*.py"}]}}]}, "after": "initialized"},
        {"method": "client/unregisterCapability", "params": {"unregisterations": [{"id": "w", "method": "workspace/didChangeWatchedFiles"}]}, "after": "didOpen"},
        {"method": "workspace/diagnostic/refresh", "after": "initialized"},
        {"method": "something/unheardOf", "after": "initialized"}
    ]);
    let mut config = fake.config(json!({"serverRequests": requests}));
    config.settings = json!({"a": {"b": {"c": 1}}});
    let client = fake.start_with(config).await;
    fake.wait_log("answers to initialized requests", |f| {
        f.messages("in")
            .iter()
            .filter(|m| m.get("method").is_none())
            .count()
            >= 8
    })
    .await;
    assert!(
        client
            .registered_methods()
            .contains(&"workspace/didChangeWatchedFiles".to_string())
    );
    assert_eq!(client.diagnostic_refreshes(), 1);
    support::sync(&client, &fake.file("a.py"), "x\n").await;
    fake.wait_log("unregister answer", |f| {
        f.messages("in")
            .iter()
            .filter(|m| m.get("method").is_none())
            .count()
            >= 9
    })
    .await;
    assert!(client.registered_methods().is_empty());

    let sent = fake.messages("out");
    let answers = fake.messages("in");
    let answer_to = |method: &str| {
        let id = sent
            .iter()
            .find(|m| m["method"] == method)
            .map(|m| m["id"].clone())
            .unwrap_or_default();
        answers
            .iter()
            .find(|m| m["id"] == id && m.get("method").is_none())
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(
        answer_to("workspace/configuration")["result"],
        json!([{"c": 1}, {"a": {"b": {"c": 1}}}])
    );
    assert_eq!(
        answer_to("window/workDoneProgress/create")["result"],
        Value::Null
    );
    assert!(
        answer_to("workspace/workspaceFolders")["result"][0]["uri"]
            .as_str()
            .is_some_and(|u| u.starts_with("file://"))
    );
    assert_eq!(
        answer_to("window/showMessageRequest")["result"],
        Value::Null
    );
    assert_eq!(answer_to("workspace/applyEdit")["result"]["applied"], false);
    assert_eq!(
        answer_to("client/registerCapability")["result"],
        Value::Null
    );
    assert_eq!(
        answer_to("workspace/diagnostic/refresh")["result"],
        Value::Null
    );
    assert_eq!(answer_to("something/unheardOf")["error"]["code"], -32601);
}

#[tokio::test]
async fn progress_is_tracked_from_begin_to_end() {
    let fake = Fake::new();
    let client = fake.start(json!({"progressOnInitialized": {"token": "idx", "title": "Indexing", "durationMs": 300}})).await;
    wait_for(&client, "the indexing progress to begin", |c| {
        progress_open(c, "Indexing")
    })
    .await;
    wait_for(&client, "the indexing progress to end", |c| {
        !progress_open(c, "Indexing")
    })
    .await;
    assert!(client.active_progress().is_empty(), "progress never ended");
}

#[tokio::test]
async fn crash_fails_pending_requests_at_once_with_status_and_stderr() {
    let fake = Fake::new();
    let client = fake
        .start(json!({
            "stderrOnStart": "fatal: out of cheese",
            "requestDelayMs": {"workspace/symbol": 20000},
            "responses": {"workspace/symbol": []},
            "fault": {"kind": "crashOnRequest", "method": "textDocument/hover"}
        }))
        .await;
    let pid = client.pid().expect("a spawned server has a pid");
    // The slow request would be answered in 20 s and time out in 30 s:
    // failing as dead, with the exit status, means it failed at the crash.
    let slow = client.request_with_timeout("workspace/symbol", json!({}), Duration::from_secs(30));
    let crash = client.request("textDocument/hover", json!({})).await;
    let other = slow.await;
    for result in [crash, other] {
        let Err(ClientError::Dead { detail, .. }) = result else {
            panic!("{result:?}")
        };
        assert!(detail.contains(&support::exit_text(4)), "{detail}");
        assert!(detail.contains("out of cheese"), "{detail}");
    }
    assert!(!client.is_alive());
    assert!(matches!(
        client.request("x", json!({})).await,
        Err(ClientError::Dead { .. })
    ));
    assert!(!process_exists(pid), "crashed server still present");
}

#[tokio::test]
async fn shutdown_sends_shutdown_without_params_then_exit() {
    let fake = Fake::new();
    let client = fake.start(json!({})).await;
    let pid = client.pid().expect("a spawned server has a pid");
    client.shutdown().await;
    let shutdown = &fake.received("shutdown")[0];
    assert!(
        shutdown.get("params").is_none(),
        "shutdown must carry no params member: {shutdown}"
    );
    assert_eq!(fake.received("exit").len(), 1);
    assert!(!process_exists(pid));
}

#[tokio::test]
async fn a_server_that_ignores_exit_is_killed() {
    let fake = Fake::new();
    let client = fake.start(json!({"fault": {"kind": "ignoreExit"}})).await;
    let pid = client.pid().expect("a spawned server has a pid");
    client.shutdown().await;
    assert!(
        !process_exists(pid),
        "server that ignored exit was left running"
    );
}

#[tokio::test]
async fn dropping_the_client_kills_the_server() {
    let fake = Fake::new();
    let client = fake.start(json!({"fault": {"kind": "ignoreExit"}})).await;
    let pid = client.pid().expect("a spawned server has a pid");
    drop(client);
    let until = Instant::now() + Duration::from_secs(5);
    while process_exists(pid) && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        !process_exists(pid),
        "dropped client left its server running"
    );
}

#[tokio::test]
async fn a_server_that_exits_at_once_fails_start_fast() {
    // Dead, not a timeout of the 60 s initialize: it failed at the exit.
    let fake = Fake::new();
    let result = LspClient::start(
        fake.config(json!({"fault": {"kind": "exitImmediately"}})),
        Duration::from_secs(60),
    )
    .await;
    assert!(
        matches!(result, Err(ClientError::Dead { .. })),
        "{:?}",
        result.err()
    );
}

#[tokio::test]
async fn a_server_that_never_initializes_times_out_and_is_killed() {
    let fake = Fake::new();
    let result = LspClient::start(
        fake.config(json!({"fault": {"kind": "hangOnInitialize"}})),
        Duration::from_millis(300),
    )
    .await;
    assert!(
        matches!(result, Err(ClientError::Timeout { .. })),
        "{:?}",
        result.err()
    );
    let pid: Option<u64> = std::fs::read_to_string(&fake.log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find_map(|v| v["pid"].as_u64());
    let pid = pid.unwrap_or_else(|| panic!("fake logged no pid"));
    let until = Instant::now() + Duration::from_secs(5);
    while process_exists(pid as u32) && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(!process_exists(pid as u32));
}

#[tokio::test]
async fn junk_lines_garbage_frames_and_headers_do_not_derail_the_client() {
    for fault in ["junkHeaderLines", "garbageFrames"] {
        let fake = Fake::new();
        let client = fake.start(json!({"fault": {"kind": fault}, "lowercaseHeaders": true, "header": "Content-Type: application/vscode-jsonrpc; charset=utf-8"})).await;
        let doc = support::sync(&client, &fake.file("a.txt"), "@error(still fine 😀 中文)\n").await;
        let report = client.diagnostics_for(&doc, support::deadline(5000)).await;
        assert_eq!(
            support::messages(&report),
            vec!["still fine 😀 中文"],
            "{fault}"
        );
    }
}

#[tokio::test]
async fn an_oversized_frame_is_skipped_and_the_session_goes_on() {
    let fake = Fake::new();
    let mut config = fake.config(json!({"fault": {"kind": "oversizedFrame", "bytes": 2_000_000}}));
    config.max_frame = 1_000_000;
    let client = fake.start_with(config).await;
    assert!(client.is_alive());
    let doc = support::sync(&client, &fake.file("a.txt"), "@error(after the big one)\n").await;
    let report = client.diagnostics_for(&doc, support::deadline(5000)).await;
    assert_eq!(support::messages(&report), vec!["after the big one"]);
}

#[tokio::test]
async fn a_stderr_flood_is_drained_and_bounded() {
    let fake = Fake::new();
    let client = fake
        .start(json!({"fault": {"kind": "stderrFlood", "bytes": 4_000_000}}))
        .await;
    let doc = support::sync(&client, &fake.file("a.txt"), "@error(heard)\n").await;
    let report = client
        .diagnostics_for(&doc, support::deadline(10_000))
        .await;
    assert_eq!(support::messages(&report), vec!["heard"]);
    assert!(client.stderr_tail().len() <= 8 * 1024);
}

#[tokio::test]
async fn a_request_storm_is_answered_in_full() {
    let fake = Fake::new();
    let client = fake
        .start(json!({"fault": {"kind": "requestStorm", "count": 500}}))
        .await;
    fake.wait_log("500 answers", |f| {
        f.messages("in")
            .iter()
            .filter(|m| m.get("method").is_none())
            .count()
            >= 500
    })
    .await;
    assert!(client.is_alive());
}
