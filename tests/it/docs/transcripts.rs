//! `docs/protocol.md`'s refusals, sent to `squiggle serve`: each `→`
//! request whose `←` answer is an error must be answered exactly so.

use serde_json::Value;

use super::blocks;
use crate::support::service::{Framing, Service};

/// The `→`/`←` pairs of `docs/protocol.md` whose answer is an error.
fn refusals() -> Vec<(Value, Value)> {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/protocol.md");
    let mut pairs = Vec::new();
    for block in blocks(&file) {
        let mut request = None;
        for line in &block.lines {
            if let Some(json) = line.strip_prefix("→ ") {
                request = serde_json::from_str::<Value>(json).ok();
            } else if let Some(json) = line.strip_prefix("← ")
                && let Ok(answer) = serde_json::from_str::<Value>(json)
                && answer.get("error").is_some()
                && let Some(request) = request.take()
            {
                pairs.push((request, answer));
            }
        }
    }
    pairs
}

#[test]
fn protocol_md_refusals_are_the_binarys() {
    let pairs = refusals();
    assert!(!pairs.is_empty(), "docs/protocol.md shows no refusal");
    // The docs' workspace: `a.fk` served by the fake, holding `x = 1`.
    let ws = crate::support::service::Workspace::new(serde_json::json!({"diagnosticMode": "pull"}));
    ws.write("a.fk", "x = 1\n");
    let mut command = ws.command(&["serve", "--trust-workspace", "--root"]);
    command.arg(&ws.root).env_remove("RUST_LOG");
    let mut service = Service::spawn(&mut command, Framing::Headers);
    for (request, expected) in pairs {
        service.send_raw(request.to_string().as_bytes());
        let answer = service.next_frame();
        assert_eq!(
            answer, expected,
            "docs/protocol.md shows {expected} for {request}"
        );
    }
}
