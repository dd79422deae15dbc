use super::*;

/// Copilot CLI 1.0.102's record of a postToolUse hook whose text the
/// model got (`delivered`) or did not: its own `hook.end` line holds
/// the text either way.
fn copilot_record(delivered: bool) -> String {
    let block = "ERROR [1:14] bad";
    let result = if delivered { block } else { "File updated." };
    [
        r#"{"type":"hook.start","data":{"hookType":"postToolUse"}}"#.to_string(),
        format!(r#"{{"type":"hook.end","data":{{"output":{{"additionalContext":"{block}"}}}}}}"#),
        format!(
            r#"{{"type":"tool.execution_complete","data":{{"result":{{"content":"{result}"}}}}}}"#
        ),
        r#"{"type":"assistant.turn_end","data":{}}"#.to_string(),
        r#"{"type":"assistant.turn_start","data":{}}"#.to_string(),
    ]
    .join("\n")
}

fn judged(record: &str) -> Option<Delivered> {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let path = dir.path().join("events.jsonl");
    std::fs::write(&path, record).unwrap_or_else(|e| panic!("write: {e}"));
    judge(&Pending {
        probe: "ERROR [1:14] bad".into(),
        transcript: Some(path),
        offset: 0,
        tool_use: None,
    })
}

#[test]
fn copilot_hook_records_are_no_evidence() {
    assert_eq!(judged(&copilot_record(true)), Some(Delivered::Yes));
    assert_eq!(judged(&copilot_record(false)), Some(Delivered::No));
    // No model turn after the hand-over yet: still pending.
    let before_the_model: Vec<String> = copilot_record(false)
        .lines()
        .take(3)
        .map(str::to_owned)
        .collect();
    assert_eq!(judged(&before_the_model.join("\n")), None);
}
