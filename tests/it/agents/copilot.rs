//! GitHub Copilot CLI 1.0.102, the real CLI, headless (`-p`, every tool
//! allowed) and offline against the scripted model as its own OpenAI
//! provider (`COPILOT_OFFLINE`, `COPILOT_PROVIDER_*`: no GitHub account),
//! in a fresh project where only `squiggle init copilot` ran: its
//! postToolUse reply (a top-level `additionalContext`) reaches the model
//! after the edit tool's result, and its `agentStop` keeps a turn that
//! left the error going once. In `-p` mode Copilot CLI loads a
//! repository's hooks only when told to
//! (`GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS`).

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::support::agents;
use crate::support::agents::{Agent, Project, chat, strings};

fn copilot_cli(project: &Project, program: &Path, port: u16) -> Command {
    let mut cmd = project.command(program);
    cmd.args([
        "-p",
        "Make the change.",
        "--allow-all-tools",
        "--no-color",
        "--no-auto-update",
    ])
    .env("COPILOT_OFFLINE", "true")
    .env("COPILOT_PROVIDER_TYPE", "openai")
    .env(
        "COPILOT_PROVIDER_BASE_URL",
        format!("http://127.0.0.1:{port}/v1"),
    )
    .env("COPILOT_PROVIDER_API_KEY", "scripted-key")
    .env("COPILOT_PROVIDER_MODEL_ID", "scripted-model")
    .env("COPILOT_AUTO_UPDATE", "false")
    .env("GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS", "true")
    .env("XDG_CACHE_HOME", project.home.join(".cache"))
    .env("XDG_STATE_HOME", project.home.join(".local/state"))
    .env("XDG_DATA_HOME", project.home.join(".local/share"));
    cmd
}

fn setup(project: &Project) {
    let said = project.init("copilot", &[]);
    assert!(
        said.contains(".github/hooks/squiggle-copilot.json"),
        "{said}"
    );
}

pub const COPILOT: Agent = Agent {
    cli: "copilot",
    api: chat::router,
    command: copilot_cli,
    init: setup,
    write: |file, text| json!({"name": "create", "arguments": {"path": file, "file_text": text}}),
};

fn edit(file: &Path, old: &str, new: &str) -> Value {
    json!({"name": "edit", "arguments": {
        "path": file.display().to_string(), "old_str": old, "new_str": new}})
}

/// The gate's first line, as every host gets it.
const GATE: &str = "Before you finish: this turn introduced 1 error that is still there.";

/// The edit tool breaks `app.py`: its result in the model's next request
/// ends with squiggle's block; when the model then ends its turn,
/// `agentStop` keeps it going once with the error.
#[tokio::test(flavor = "multi_thread")]
async fn an_edit_that_breaks_the_file_shows_the_block_and_the_gate_holds_the_turn_once() {
    let Some((program, project)) = COPILOT.project(&[agents::APP]) else {
        return;
    };
    let app = project.root.join("app.py");
    let new = format!("{}def greet", agents::BROKEN_LINE);
    let run = COPILOT
        .run(&project, &program, vec![edit(&app, "def greet", &new)])
        .await;
    agents::assert_app_broken(&project, &run);
    agents::assert_model_saw_block(&project, &run, "app.py", 0);
    // The edit, the turn's "done", the one the gate kept going; no more.
    let gate: Vec<bool> = run.main.iter().map(|r| strings(r).contains(GATE)).collect();
    assert_eq!(gate, [false, false, true], "{}", run.log());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_clean_write_adds_nothing() {
    COPILOT.a_clean_write_adds_nothing("<diagnostics").await;
}
