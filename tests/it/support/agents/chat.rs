//! Just enough of OpenAI's Chat Completions API (streamed as server-sent
//! events) for the hosts that speak it to an OpenAI-compatible provider
//! (OpenCode, Kilo CLI, Qwen Code): a request that offers tools is a main
//! request and gets the script's next tool call (a step is `{"name",
//! "arguments"}`, the arguments an object), then a plain "done"; a request
//! without tools (a session title) gets a short text and is not part of
//! the script. Anything not a completion gets an empty model list.
//!
//! [`text_router`] is the same API for a host that edits through the
//! model's text instead of tools (Aider): every completion request is a
//! main one, a step is the reply's text, and the answer streams or not as
//! the request asks.

use axum::Router;
use axum::response::Response;
use serde_json::{Value, json};

use super::{Shared, json_response, record};

pub fn router(model: Shared) -> Router {
    super::router(model, answer)
}

pub fn text_router(model: Shared) -> Router {
    super::router(model, answer_text)
}

fn answer_text(model: &Shared, path: &str, body: &Value) -> Response {
    if !path.ends_with("/chat/completions") {
        record(model, path, None);
        return json_response(200, &json!({"object": "list", "data": []}));
    }
    let turn = record(model, path, Some(body));
    if turn.over {
        return json_response(500, &json!({"error": {"message": "request bound reached"}}));
    }
    let text = turn
        .step
        .as_ref()
        .and_then(Value::as_str)
        .unwrap_or("done")
        .to_string();
    if body["stream"].as_bool() != Some(true) {
        return json_response(
            200,
            &json!({"id": "chatcmpl-scripted", "object": "chat.completion", "created": 0,
                "model": "scripted", "choices": [{"index": 0, "finish_reason": "stop",
                "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}),
        );
    }
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0,
            "model": "scripted", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    sse_done(&[
        chunk(json!({"role": "assistant", "content": text}), Value::Null),
        chunk(json!({}), json!("stop")),
    ])
}

fn answer(model: &Shared, path: &str, body: &Value) -> Response {
    if !path.ends_with("/chat/completions") {
        record(model, path, None);
        return json_response(200, &json!({"object": "list", "data": []}));
    }
    let offers_tools = body["tools"].as_array().is_some_and(|t| !t.is_empty());
    let turn = record(model, path, offers_tools.then_some(body));
    if turn.over {
        return json_response(500, &json!({"error": {"message": "request bound reached"}}));
    }
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0,
            "model": "scripted", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let (delta, finish) = match turn.step.filter(|_| offers_tools) {
        Some(step) => (
            json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0,
                "id": format!("call_scripted_{}", turn.index), "type": "function",
                "function": {"name": step["name"], "arguments": step["arguments"].to_string()}}]}),
            "tool_calls",
        ),
        None => (json!({"role": "assistant", "content": "done"}), "stop"),
    };
    let usage = json!({"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0,
        "model": "scripted", "choices": [],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}});
    sse_done(&[
        chunk(delta, Value::Null),
        chunk(json!({}), json!(finish)),
        usage,
    ])
}

/// A data-only event stream with the closing `data: [DONE]` Chat
/// Completions streams end with.
fn sse_done(events: &[Value]) -> Response {
    let mut body = String::new();
    for data in events {
        body.push_str(&format!("data: {data}\n\n"));
    }
    body.push_str("data: [DONE]\n\n");
    axum::response::Response::builder()
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache")
        .body(axum::body::Body::from(body))
        .unwrap_or_else(|e| panic!("sse response: {e}"))
}
