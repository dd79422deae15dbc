//! `docs/protocol.md`'s answers to a change: every `←` result shown for a
//! method that answers `ToolResult` reads back into `ToolResult` and writes
//! out as the same JSON, so the documented shape is the type's, member for
//! member (`squiggle/check` answered `files`, `others` and `text` once).

use serde_json::Value;
use squiggle::engine::tools::ToolResult;

use super::blocks;

/// The methods whose answer is the engine's `ToolResult`.
const CHANGES: &[&str] = &[
    "squiggle/edit",
    "squiggle/write",
    "squiggle/applyPatch",
    "squiggle/fix",
    "squiggle/delete",
    "squiggle/check",
    "squiggle/sessionCommit",
];

/// Each `→` request of `docs/protocol.md` with its `←` answer, which may
/// run over several lines.
fn exchanges() -> Vec<(Value, Value)> {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/protocol.md");
    let mut pairs = Vec::new();
    for block in blocks(&file) {
        let mut request: Option<Value> = None;
        let mut answer: Option<String> = None;
        let mut finish = |request: &mut Option<Value>, answer: &mut Option<String>| {
            if let (Some(req), Some(text)) = (request.take(), answer.take()) {
                let parsed = serde_json::from_str::<Value>(&text)
                    .unwrap_or_else(|e| panic!("answer to {req} is not JSON ({e}): {text}"));
                pairs.push((req, parsed));
            }
        };
        for line in &block.lines {
            if let Some(json) = line.strip_prefix("→ ") {
                finish(&mut request, &mut answer);
                request = serde_json::from_str::<Value>(json).ok();
            } else if let Some(json) = line.strip_prefix("← ") {
                answer = Some(json.to_string());
            } else if let Some(text) = answer.as_mut() {
                text.push_str(line);
            }
        }
        finish(&mut request, &mut answer);
    }
    pairs
}

#[test]
fn every_documented_change_answer_is_a_tool_result_member_for_member() {
    let mut seen = Vec::new();
    for (request, answer) in exchanges() {
        let method = request["method"].as_str().unwrap_or_default();
        let Some(result) = answer.get("result").filter(|_| CHANGES.contains(&method)) else {
            continue;
        };
        let typed: ToolResult = serde_json::from_value(result.clone())
            .unwrap_or_else(|e| panic!("{method}'s documented answer is no ToolResult: {e}"));
        let back = serde_json::to_value(&typed).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            &back, result,
            "{method}: the documented answer is not the type's shape"
        );
        seen.push(method.to_string());
    }
    for method in ["squiggle/edit", "squiggle/check"] {
        assert!(
            seen.iter().any(|m| m == method),
            "docs/protocol.md shows no answer to {method}"
        );
    }
}
