//! Just enough of Anthropic's Messages API (streamed as server-sent events)
//! for Claude Code: a main request (one that offers the `Edit` tool) gets
//! the script's next `tool_use` (a step is `{"name": …, "input": {…}}`, or
//! an array of them for several calls in one turn),
//! then a closing text; anything else (titles, token counts) gets a short
//! text or an empty JSON answer.

use axum::Router;
use axum::response::Response;
use serde_json::{Value, json};

use super::{Project, Shared, json_response, record, sse};

/// Claude Code, headless, against the scripted model server on `port`,
/// with every phone-home opted out.
pub fn claude(project: &Project, program: &std::path::Path, port: u16) -> std::process::Command {
    let mut cmd = project.command(program);
    cmd.args([
        "-p",
        "Make the change.",
        "--permission-mode",
        "acceptEdits",
        "--model",
        "claude-sonnet-4-5",
    ])
    .env("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{port}"))
    .env("ANTHROPIC_API_KEY", "sk-ant-scripted");
    no_phoning_home(&mut cmd);
    cmd
}

/// Opts Claude Code out of telemetry, updates, error reports and every
/// other request that is not the model's.
pub fn no_phoning_home(cmd: &mut std::process::Command) {
    cmd.env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_ERROR_REPORTING", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
}

pub fn router(model: Shared) -> Router {
    super::router(model, answer)
}

fn answer(model: &Shared, path: &str, body: &Value) -> Response {
    if !path.ends_with("/messages") {
        record(model, path, None);
        return json_response(200, &json!({"input_tokens": 10}));
    }
    let main = body["tools"]
        .as_array()
        .is_some_and(|tools| tools.iter().any(|t| t["name"] == "Edit"));
    let turn = record(model, path, main.then_some(body));
    if turn.over {
        return json_response(
            500,
            &json!({"type": "error", "error": {"type": "api_error", "message": "request bound reached"}}),
        );
    }
    let stream = body["stream"].as_bool().unwrap_or(false);
    match turn.step {
        Some(step) if main => tool_use(&step, turn.index, stream),
        _ => text("done", stream),
    }
}

fn message(content: Value, stop: &str) -> Value {
    json!({"id": "msg_scripted", "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-5", "content": content, "stop_reason": stop,
        "stop_sequence": null, "usage": {"input_tokens": 10, "output_tokens": 5}})
}

fn start() -> (&'static str, Value) {
    let mut m = message(json!([]), "");
    m["stop_reason"] = Value::Null;
    (
        "message_start",
        json!({"type": "message_start", "message": m}),
    )
}

fn end(stop: &str) -> [(&'static str, Value); 2] {
    [
        (
            "message_delta",
            json!({"type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": null},
            "usage": {"output_tokens": 5}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ]
}

fn tool_use(step: &Value, index: usize, stream: bool) -> Response {
    let calls = match step {
        Value::Array(calls) => calls.clone(),
        one => vec![one.clone()],
    };
    let id = |k: usize| format!("toolu_scripted_{index}_{k}");
    if !stream {
        let blocks: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(k, c)| json!({"type": "tool_use", "id": id(k), "name": c["name"], "input": c["input"]}))
            .collect();
        return json_response(200, &message(json!(blocks), "tool_use"));
    }
    let mut events = vec![start()];
    for (k, call) in calls.iter().enumerate() {
        events.extend([
            ("content_block_start", json!({"type": "content_block_start", "index": k,
                "content_block": {"type": "tool_use", "id": id(k), "name": call["name"], "input": {}}})),
            ("content_block_delta", json!({"type": "content_block_delta", "index": k,
                "delta": {"type": "input_json_delta", "partial_json": call["input"].to_string()}})),
            ("content_block_stop", json!({"type": "content_block_stop", "index": k})),
        ]);
    }
    events.extend(end("tool_use"));
    sse(&events)
}

fn text(text: &str, stream: bool) -> Response {
    if !stream {
        return json_response(
            200,
            &message(json!([{"type": "text", "text": text}]), "end_turn"),
        );
    }
    let mut events = vec![
        start(),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": text}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
    ];
    events.extend(end("end_turn"));
    sse(&events)
}
