//! The Stop gate under parallel tool calls: Claude Code runs the
//! `PostToolUse` hooks of parallel tool calls at once, and each adds the
//! file it touched to the turn's record. Every one must be held.

use serde_json::json;

use super::{bounded, hook_context, pull, start, stop_daemon, workspace};
use crate::support::both;

/// Eight `PostToolUse` hooks of one turn, started together, each adding an
/// error to its own file: the gate at `Stop` holds all eight (the record
/// was read, changed and written without a lock, and kept one or two).
#[test]
fn the_stop_gate_holds_every_parallel_edit() {
    let ws = workspace("", pull());
    let names: Vec<String> = (0..8).map(|i| format!("f{i}.fk")).collect();
    for (i, name) in names.iter().enumerate() {
        ws.write(name, &format!("@error(broken {i})\n"));
    }
    let hooks: Vec<_> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let file = ws.root.join(name).display().to_string();
            let input = json!({
                "file_path": file,
                "old_string": "fine",
                "new_string": format!("@error(broken {i})"),
            });
            let event = ws.claude_event("Edit", input).to_string();
            let mut command = ws.command(&["hook", "claude", "--stop-gate"]);
            command.env_remove("SQUIGGLE_NO_DAEMON");
            start(&mut command, event.as_bytes())
        })
        .collect();
    for hook in hooks {
        let out = hook.finish();
        assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    }
    let mut stop = ws.claude_event("Edit", json!({}));
    stop["hook_event_name"] = json!("Stop");
    stop["stop_hook_active"] = json!(false);
    let mut command = ws.command(&["hook", "claude"]);
    command.env_remove("SQUIGGLE_NO_DAEMON");
    let out = bounded(&mut command, stop.to_string().as_bytes());
    let context = hook_context(&out);
    assert!(
        context.contains("this turn introduced 8 errors"),
        "{context}"
    );
    for i in 0..8 {
        assert!(context.contains(&format!("broken {i}")), "{context}");
    }
    stop_daemon(&ws);
}
