//! Cline 3.0.65 (the `cline` CLI), the real binary, headless (`--json`, a
//! one-shot task; tools are approved by default) and offline against the
//! scripted model as its OpenAI-compatible provider (no Cline account),
//! in a fresh project where only `squiggle init cline` ran: the
//! `PostToolUse` hook file's `contextModification` reaches the model in
//! its next request, inside `<hook_context>`. Cline has no turn-end hook
//! that keeps a task going. `CLINE_SESSION_BACKEND_MODE=local`: no hub
//! daemon outlives the run.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::support::agents;
use crate::support::agents::{Agent, Project, chat};

/// The provider, as `cline auth -p openai-compatible` writes it (a file
/// without `updatedAt` is ignored, and Cline then tries its own service).
fn providers(port: u16) -> String {
    json!({"version": 1, "lastUsedProvider": "openai-compatible", "modes": {},
        "providers": {"openai-compatible": {"settings": {"provider": "openai-compatible",
            "apiKey": "scripted-key", "model": "scripted-model",
            "baseUrl": format!("http://127.0.0.1:{port}/v1")},
            "updatedAt": "2026-01-01T00:00:00.000Z", "tokenSource": "manual"}}})
    .to_string()
}

fn cline_cli(project: &Project, program: &Path, port: u16) -> Command {
    project.write_home(".cline/data/settings/providers.json", &providers(port));
    project.write_home(
        ".cline/data/settings/global-settings.json",
        r#"{"telemetryOptOut": true, "autoUpdateEnabled": false}"#,
    );
    let mut cmd = project.command(program);
    cmd.args(["--json", "Make the change."])
        .env("CLINE_SESSION_BACKEND_MODE", "local")
        .env("CLINE_NO_AUTO_UPDATE", "1");
    cmd
}

fn setup(project: &Project) {
    let said = project.init("cline", &[]);
    assert!(said.contains(".clinerules/hooks/PostToolUse"), "{said}");
}

pub const CLINE: Agent = Agent {
    cli: "cline",
    api: chat::router,
    command: cline_cli,
    init: setup,
    write: |file, text| json!({"name": "editor", "arguments": {"path": file, "new_text": text}}),
};

fn edit(file: &Path, old: &str, new: &str) -> Value {
    json!({"name": "editor", "arguments": {
        "path": file.display().to_string(), "old_text": old, "new_text": new}})
}

/// Cline's editor breaks `app.py`: the model's next request carries
/// squiggle's block.
#[tokio::test(flavor = "multi_thread")]
async fn an_edit_that_breaks_the_file_shows_the_block() {
    let Some((program, project)) = CLINE.project(&[agents::APP]) else {
        return;
    };
    let app = project.root.join("app.py");
    let new = format!("{}def greet", agents::BROKEN_LINE);
    let run = CLINE
        .run(&project, &program, vec![edit(&app, "def greet", &new)])
        .await;
    agents::assert_app_broken(&project, &run);
    agents::assert_model_saw_block(&project, &run, "app.py", 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_clean_write_adds_nothing() {
    CLINE.a_clean_write_adds_nothing("<diagnostics").await;
}
