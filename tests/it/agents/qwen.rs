//! Qwen Code 0.24.4, the real CLI, headless (a one-shot prompt, edits
//! approved) against the scripted model as an OpenAI-compatible provider,
//! in a fresh project where only `squiggle init qwen --stop-gate` ran: its
//! PostToolUse reply reaches the model appended to the edit tool's result
//! (Qwen writes `<` and `>` in it as `&lt;` and `&gt;`), and its `Stop`
//! keeps a turn that left the error going once. Qwen's `edit` refuses a
//! file the model has not read in the session, so the script reads first.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::support::agents;
use crate::support::agents::{Agent, Project, chat, strings};

/// The user settings: no usage statistics, telemetry, update checks or
/// sleep inhibitor (`$version` as Qwen writes it, so it leaves the file be).
const HOME_SETTINGS: &str = r#"{"$version": 4, "general": {"enableAutoUpdate": false, "preventSystemSleep": false}, "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false}}"#;

fn qwen_cli(project: &Project, program: &Path, port: u16) -> Command {
    project.write_home(".qwen/settings.json", HOME_SETTINGS);
    let mut cmd = project.command(program);
    cmd.args(["--approval-mode", "auto-edit", "Make the change."])
        .env("OPENAI_API_KEY", "scripted-key")
        .env("OPENAI_BASE_URL", format!("http://127.0.0.1:{port}/v1"))
        .env("OPENAI_MODEL", "scripted-model")
        // No second Node with a larger heap (about 3 s).
        .env("QWEN_CODE_NO_RELAUNCH", "true")
        .env("QWEN_USAGE_STATISTICS_ENABLED", "false")
        .env("QWEN_CODE_DISABLE_PRECONNECT", "1")
        .env("QWEN_CODE_SKIP_UPDATE_CHECK_ONCE", "true");
    cmd
}

fn setup(project: &Project) {
    let said = project.init("qwen", &["--stop-gate"]);
    assert!(said.contains(".qwen/settings.json"), "{said}");
}

pub const QWEN: Agent = Agent {
    cli: "qwen",
    api: chat::router,
    command: qwen_cli,
    init: setup,
    write: |file, text| json!({"name": "write_file", "arguments": {"file_path": file, "content": text}}),
};

fn read(file: &Path) -> Value {
    json!({"name": "read_file", "arguments": {"file_path": file.display().to_string()}})
}

fn edit(file: &Path, old: &str, new: &str) -> Value {
    json!({"name": "edit", "arguments": {
        "file_path": file.display().to_string(), "old_string": old, "new_string": new}})
}

/// The gate's first line, as every host gets it.
const GATE: &str = "Before you finish: this turn introduced 1 error that is still there.";

/// The edit tool breaks `app.py`: its result in the model's next request
/// ends with squiggle's block as Qwen escapes it; when the model then ends
/// its turn, the gate keeps it going once with the error.
#[tokio::test(flavor = "multi_thread")]
async fn an_edit_that_breaks_the_file_shows_the_block_and_the_gate_holds_the_turn_once() {
    let Some((program, project)) = QWEN.project(&[agents::APP]) else {
        return;
    };
    let app = project.root.join("app.py");
    let new = format!("{}def greet", agents::BROKEN_LINE);
    let steps = vec![read(&app), edit(&app, "def greet", &new)];
    let run = QWEN.run(&project, &program, steps).await;
    agents::assert_app_broken(&project, &run);
    let rendered = project.rendered("app.py");
    assert!(
        rendered.contains("<diagnostics file=\"app.py\">"),
        "{rendered}"
    );
    let escaped = rendered
        .trim_end()
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    let seen = strings(run.after_step(1));
    assert!(
        seen.contains(&escaped),
        "the edit's result lacks the block\nexpected:\n{escaped}\nrequest text:\n{seen}\n{}",
        run.log()
    );
    // Read, edit, the turn's "done", the one the gate kept going; no more.
    let gate: Vec<bool> = run.main.iter().map(|r| strings(r).contains(GATE)).collect();
    assert_eq!(gate, [false, false, false, true], "{}", run.log());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_clean_write_adds_nothing() {
    QWEN.a_clean_write_adds_nothing("&lt;diagnostics").await;
}
