//! Just enough of the Gemini API (`generateContent`, and
//! `streamGenerateContent` as server-sent events) for Gemini CLI: a main
//! request (one that declares the `replace` tool) gets the script's next
//! function call (a step is `{"name": …, "args": {…}}`), then a closing
//! text; side requests (next-speaker checks and the like) get a JSON text
//! saying the user speaks next.

use axum::Router;
use axum::response::Response;
use serde_json::{Value, json};

use super::{Shared, json_response, record, sse};

pub fn router(model: Shared) -> Router {
    super::router(model, answer)
}

fn answer(model: &Shared, path: &str, body: &Value) -> Response {
    if path.ends_with(":countTokens") {
        record(model, path, None);
        return json_response(200, &json!({"totalTokens": 10}));
    }
    let main = super::strings(&body["tools"])
        .lines()
        .any(|l| l == "replace");
    let turn = record(model, path, main.then_some(body));
    if turn.over {
        return json_response(
            500,
            &json!({"error": {"code": 500, "message": "request bound reached", "status": "INTERNAL"}}),
        );
    }
    let part = match turn.step {
        Some(step) if main => json!({"functionCall": {"name": step["name"], "args": step["args"]}}),
        _ if main => json!({"text": "done"}),
        _ => json!({"text": "{\"next_speaker\": \"user\", \"reasoning\": \"done\"}"}),
    };
    let chunk = json!({
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-2.5-pro"
    });
    if path.contains(":streamGenerateContent") {
        sse(&[("", chunk)])
    } else {
        json_response(200, &chunk)
    }
}
