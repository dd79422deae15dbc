//! Aider 0.86.2, the real program, headless (`--message`, `--yes-always`)
//! against the scripted model as an OpenAI-compatible API, in a fresh
//! project where only `squiggle init aider` ran: the model's reply edits
//! `app.py` with a search/replace block, Aider runs the `lint-cmd` init
//! wrote (`squiggle check app.py`, `--auto-lint`), and because it fails,
//! the model's next request carries squiggle's block.

use std::path::Path;
use std::process::Command;

use serde_json::json;

use crate::support::agents;
use crate::support::agents::{Project, chat, strings};

fn aider_cli(project: &Project, program: &Path, port: u16) -> Command {
    let mut cmd = project.command(program);
    cmd.args([
        "--model",
        "openai/scripted",
        "--openai-api-base",
        &format!("http://127.0.0.1:{port}/v1"),
        "--openai-api-key",
        "scripted-key",
        "--edit-format",
        "diff",
        "--message",
        "Make the change.",
        "--yes-always",
        "--no-stream",
        "--no-pretty",
        "--no-fancy-input",
        "--no-auto-commits",
        "--no-gitignore",
        "--no-check-update",
        "--no-show-model-warnings",
        "--no-show-release-notes",
        "--analytics-disable",
        "--map-tokens",
        "0",
        "app.py",
    ]);
    cmd
}

#[tokio::test(flavor = "multi_thread")]
async fn an_edit_that_breaks_the_file_sends_the_block_to_the_model() {
    let Some((program, project)) = agents::agent_project("aider", &[agents::APP]) else {
        return;
    };
    let said = project.init("aider", &[]);
    assert!(said.contains(".aider.conf.yml"), "{said}");
    let reply = format!(
        "app.py\n```python\n<<<<<<< SEARCH\ndef greet(name: str) -> str:\n=======\n{}def greet(name: str) -> str:\n>>>>>>> REPLACE\n```\n",
        agents::BROKEN_LINE
    );
    let run = project
        .run(chat::text_router, &program, vec![json!(reply)], aider_cli)
        .await;
    agents::assert_app_broken(&project, &run);
    let checked = project.squiggle(&["check", "app.py"]);
    let block = String::from_utf8_lossy(&checked.stdout).into_owned();
    assert!(block.contains("<diagnostics file=\"app.py\">"), "{block}");
    let seen = strings(run.after_step(0));
    assert!(
        seen.contains(block.trim_end()),
        "the model's request after the edit lacks squiggle's block\nexpected:\n{block}\nrequest text:\n{seen}\n{}",
        run.log()
    );
}
