//! The turn's record (each file's text before the turn touched it) is kept
//! only for a turn-end gate that will read it: `squiggle hook AGENT
//! --stop-gate`, which `init --stop-gate` writes on the after-tool hook.
//! An older settings file with the gate and no flag is named by `doctor
//! --hooks` and mended by `init`.

use std::path::PathBuf;
use std::process::Output;

use serde_json::{Value, json};

use crate::hostile::{bounded, hook_context, pull, workspace};
use crate::support::both;
use crate::support::scratch::Scratch;

/// Claude Code's `Write` of `a.fk` (from `x` to a text with an error),
/// as its `PostToolUse` payload tells it.
fn write_event(ws: &Scratch) -> Value {
    let file = ws.root.join("a.fk").display().to_string();
    let mut payload = ws.claude_event(
        "Write",
        json!({"file_path": file, "content": "x @error(new)\n"}),
    );
    payload["tool_response"] = json!({
        "type": "update", "filePath": file, "content": "x @error(new)\n",
        "structuredPatch": [], "originalFile": "x\n"
    });
    payload
}

fn hook(ws: &Scratch, args: &[&str], payload: &Value) -> Output {
    let mut command = ws.command(&["hook"]);
    command
        .args(args)
        .env("SQUIGGLE_NO_DAEMON", "1")
        .env_remove("RUST_LOG");
    bounded(&mut command, payload.to_string().as_bytes())
}

fn record(ws: &Scratch) -> PathBuf {
    ws.runtime_dir.join("squiggle/turn/abc123.json")
}

/// Without `--stop-gate` the hook kept every touched file's text before
/// the turn, for a gate nobody wired; now nothing. With it, the record is
/// kept and the `Stop` hook holds the turn with the error.
#[test]
fn the_turn_is_recorded_only_with_the_stop_gate() {
    let ws = workspace("", pull());
    ws.write("a.fk", "x @error(new)\n");
    let payload = write_event(&ws);
    let out = hook(&ws, &["claude"], &payload);
    assert!(hook_context(&out).contains("new"), "{}", both(&out));
    assert!(!record(&ws).exists(), "a turn record without the gate");

    let out = hook(&ws, &["claude", "--stop-gate"], &payload);
    assert!(hook_context(&out).contains("new"), "{}", both(&out));
    assert!(record(&ws).is_file(), "no turn record with the gate");
    let mut stop = ws.claude_event("Write", json!({}));
    stop["hook_event_name"] = json!("Stop");
    stop["stop_hook_active"] = json!(false);
    let out = hook(&ws, &["claude"], &stop);
    let context = hook_context(&out);
    assert!(
        context.contains("this turn introduced 1 error"),
        "{context}"
    );
    assert!(!record(&ws).exists(), "the record outlived its gate");
}

fn run(ws: &Scratch, args: &[&str]) -> String {
    let out = ws
        .command(args)
        .env("HOME", &ws.home)
        .env("USERPROFILE", &ws.home)
        .env_remove("CODEX_HOME")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", both(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn commands(ws: &Scratch, event: &str) -> Vec<String> {
    let text = std::fs::read_to_string(ws.root.join(".claude/settings.json")).unwrap_or_default();
    let settings: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    settings["hooks"][event]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|g| g["hooks"].as_array().cloned().unwrap_or_default())
        .filter_map(|h| h["command"].as_str().map(str::to_string))
        .collect()
}

/// `init claude --stop-gate` writes the flag on `PostToolUse` (only). A
/// file an older `init --stop-gate` wrote (its `Stop` hook, no flag):
/// `doctor --hooks` says the gate sees no edit, and `init claude` gives
/// the hook the flag, saying so, once.
#[test]
fn init_writes_the_flag_and_mends_an_older_gate() {
    let fresh = Scratch::with_git_root();
    run(&fresh, &["init", "claude", "--stop-gate"]);
    assert_eq!(
        commands(&fresh, "PostToolUse"),
        ["squiggle hook claude --stop-gate"]
    );
    assert_eq!(commands(&fresh, "Stop"), ["squiggle hook claude"]);
    assert_eq!(commands(&fresh, "SessionStart"), ["squiggle hook claude"]);

    let old = Scratch::with_git_root();
    let hook = json!([{"type": "command", "command": "squiggle hook claude"}]);
    let settings = json!({"hooks": {
        "PostToolUse": [{"matcher": "Write|Edit|Bash", "hooks": hook}],
        "PreToolUse": [{"matcher": "Bash", "hooks": hook}],
        "SessionStart": [{"hooks": hook}],
        "Stop": [{"hooks": hook}],
    }});
    old.write(".claude/settings.json", &settings.to_string());
    let doctor = run(&old, &["doctor", "--hooks"]);
    assert!(
        doctor.contains("(no `--stop-gate` on its PostToolUse hook, without which the turn-end gate sees no edit): run it again"),
        "{doctor}"
    );
    let said = run(&old, &["init", "claude"]);
    assert!(
        said.contains("gave the `squiggle hook claude` hook for 1 event: PostToolUse (matcher \"Write|Edit|Bash\")")
            && !said.contains("added"),
        "{said}"
    );
    assert_eq!(
        commands(&old, "PostToolUse"),
        ["squiggle hook claude --stop-gate"]
    );
    assert_eq!(commands(&old, "Stop"), ["squiggle hook claude"]);
    let doctor = run(&old, &["doctor", "--hooks"]);
    assert!(
        doctor.contains("as `squiggle init claude` writes it"),
        "{doctor}"
    );
    assert!(run(&old, &["init", "claude"]).contains("nothing changed"));
}
