//! Just enough of OpenAI's Responses API (streamed as server-sent events)
//! for Codex CLI: every `POST …/responses` is a main request and gets the
//! script's next output item (a step is a whole item, e.g. a
//! `custom_tool_call` of `apply_patch`), then a closing message; the model
//! list and anything else get an empty answer.

use axum::Router;
use axum::response::Response;
use serde_json::{Value, json};

use super::{Shared, json_response, record, sse};

pub fn router(model: Shared) -> Router {
    super::router(model, answer)
}

fn answer(model: &Shared, path: &str, body: &Value) -> Response {
    if !path.ends_with("/responses") {
        record(model, path, None);
        return json_response(200, &json!({"object": "list", "data": [], "models": []}));
    }
    let turn = record(model, path, Some(body));
    if turn.over {
        return json_response(500, &json!({"error": {"message": "request bound reached"}}));
    }
    let item = match turn.step {
        Some(mut step) => {
            step["call_id"] = json!(format!("call_scripted_{}", turn.index));
            step
        }
        None => json!({"type": "message", "role": "assistant", "id": "msg_done",
            "content": [{"type": "output_text", "text": "done", "annotations": []}]}),
    };
    let id = format!("resp_scripted_{}", turn.index);
    sse(&[
        (
            "response.created",
            json!({"type": "response.created", "response": {"id": id}}),
        ),
        (
            "response.output_item.done",
            json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        ),
        (
            "response.completed",
            json!({"type": "response.completed", "response": {"id": id,
            "usage": {"input_tokens": 10, "input_tokens_details": null, "output_tokens": 5,
                "output_tokens_details": null, "total_tokens": 15}}}),
        ),
    ])
}
