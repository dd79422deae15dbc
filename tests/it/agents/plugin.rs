//! The Claude Code plugin end to end: the real `claude` (2.1.328) installs
//! the plugin from this repository's marketplace into a private home, with no
//! `squiggle init`, then runs headless against the scripted model server. The
//! model's next request after an edit that breaks the file must carry
//! squiggle's block: the plugin-installed hook ran, found `squiggle` on PATH
//! and answered.

use std::path::Path;

use serde_json::json;

use crate::support::agents;
use crate::support::agents::{Project, anthropic};

/// Runs a `claude plugin …` command in the project's private environment,
/// telemetry off and every proxy at a closed loopback port (it needs no
/// network: the marketplace is a local directory).
fn plugin(project: &Project, program: &Path, args: &[&str]) {
    let mut cmd = project.command(program);
    anthropic::no_phoning_home(&mut cmd);
    cmd.arg("plugin")
        .args(args)
        .env("HTTPS_PROXY", "http://127.0.0.1:9")
        .env("HTTP_PROXY", "http://127.0.0.1:9");
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("run claude plugin {args:?}: {e}"));
    assert!(
        out.status.success(),
        "claude plugin {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_plugin_installed_hook_shows_the_block_to_the_model() {
    let Some((program, project)) = agents::agent_project("claude", &[]) else {
        return;
    };
    project.trust();
    plugin(
        &project,
        &program,
        &["marketplace", "add", env!("CARGO_MANIFEST_DIR")],
    );
    plugin(&project, &program, &["install", "squiggle@squiggle"]);
    assert!(
        !project
            .read(".claude/settings.json")
            .contains("squiggle hook"),
        "the hook must come from the plugin, not the project's settings"
    );

    let app = project.write("app.py", agents::ORIGINAL);
    let file = app.display().to_string();
    let steps = vec![
        json!({"name": "Read", "input": {"file_path": file}}),
        json!({"name": "Edit", "input": {"file_path": file,
            "old_string": "def greet", "new_string": format!("{}def greet", agents::BROKEN_LINE)}}),
    ];
    let run = project
        .run(anthropic::router, &program, steps, anthropic::claude)
        .await;

    agents::assert_app_broken(&project, &run);
    agents::assert_model_saw_block(&project, &run, "app.py", 1);
}
