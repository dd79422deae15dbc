//! OpenCode 1.18.33, the real binary, headless (`opencode run`) against the
//! scripted model as an OpenAI-compatible provider, in a fresh project
//! where only `squiggle init opencode` ran: the plugin it writes appends
//! squiggle's block to the edit tool's output, so the model's next request
//! carries it in the tool message; a clean write adds nothing.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::support::agents;
use crate::support::agents::{Agent, Project, chat};

/// The user config of an OpenCode-family host: one provider, the scripted
/// model at `port` through the OpenAI-compatible package OpenCode bundles,
/// no language servers of its own, no update checks, no sharing.
pub fn provider_config(port: u16) -> String {
    json!({
        "autoupdate": false,
        "lsp": false,
        "share": "disabled",
        "provider": {"scripted": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Scripted",
            "options": {"baseURL": format!("http://127.0.0.1:{port}/v1"), "apiKey": "scripted-key"},
            "models": {"model": {"name": "model", "tool_call": true}}
        }},
        "model": "scripted/model"
    })
    .to_string()
}

/// What OpenCode reads to decide its plugin package (`@opencode-ai/plugin`)
/// is installed in a config directory: `node_modules/` and a lock naming
/// it. Without them, each run asks the npm registry, which the test's
/// network namespace cannot reach, and waits about 70 s for npm's retries
/// before it goes on (measured with OpenCode 1.18.33); squiggle's plugin
/// imports nothing from that package.
pub const PLUGIN_DEPENDENCY_LOCK: &str =
    r#"{"lockfileVersion": 3, "packages": {"": {"dependencies": {"@opencode-ai/plugin": "*"}}}}"#;

/// Marks the plugin package installed in the user's config directory
/// (`home_dir`, under the home) and in the project's (`project_dir`).
pub fn plugin_dependency_installed(project: &Project, home_dir: &str, project_dir: &str) {
    project.write_home(&format!("{home_dir}/node_modules/.keep"), "");
    project.write_home(
        &format!("{home_dir}/package-lock.json"),
        PLUGIN_DEPENDENCY_LOCK,
    );
    project.write(&format!("{project_dir}/node_modules/.keep"), "");
    project.write(
        &format!("{project_dir}/package-lock.json"),
        PLUGIN_DEPENDENCY_LOCK,
    );
}

fn opencode_cli(project: &Project, program: &Path, port: u16) -> Command {
    project.write_home(".config/opencode/opencode.json", &provider_config(port));
    plugin_dependency_installed(project, ".config/opencode", ".opencode");
    let mut cmd = project.command(program);
    cmd.args(["run", "Make the change."])
        .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
        .env("OPENCODE_DISABLE_AUTOUPDATE", "1");
    cmd
}

/// The edit tool's call replacing `old` with `new` in `file`.
pub fn edit(file: &Path, old: &str, new: &str) -> Value {
    json!({"name": "edit", "arguments": {
        "filePath": file.display().to_string(), "oldString": old, "newString": new}})
}

fn setup(project: &Project) {
    let said = project.init("opencode", &[]);
    assert!(said.contains(".opencode/plugins/squiggle.js"), "{said}");
}

pub const OPENCODE: Agent = Agent {
    cli: "opencode",
    api: chat::router,
    command: opencode_cli,
    init: setup,
    write: |file, text| json!({"name": "write", "arguments": {"filePath": file, "content": text}}),
};

/// The host's edit tool breaks `app.py`; its tool message in the model's
/// next request ends with squiggle's block.
pub async fn edit_breaks_app_and_model_sees_block(host: &Agent) {
    let Some((program, project)) = host.project(&[agents::APP]) else {
        return;
    };
    let app = project.root.join("app.py");
    let new = format!("{}def greet", agents::BROKEN_LINE);
    let run = host
        .run(&project, &program, vec![edit(&app, "def greet", &new)])
        .await;
    agents::assert_app_broken(&project, &run);
    agents::assert_model_saw_block(&project, &run, "app.py", 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_edit_that_breaks_the_file_shows_the_block() {
    edit_breaks_app_and_model_sees_block(&OPENCODE).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_clean_write_adds_nothing() {
    OPENCODE.a_clean_write_adds_nothing("<diagnostics").await;
}
