//! Gemini CLI 0.61.0, the real binary, headless in a trusted folder against
//! the scripted model server after `squiggle init gemini`: the model's next
//! request after an edit carries squiggle's block, readable as it arrives
//! (Gemini HTML-escapes every AfterTool context, so squiggle hands the
//! block over in a BeforeModel hook instead), and nothing after a clean
//! one.

use std::path::Path;
use std::process::Command;

use serde_json::json;

use crate::support::agents;
use crate::support::agents::{Agent, Project, Run, gemini, strings};

fn gemini_cli(project: &Project, program: &Path, port: u16) -> Command {
    let mut cmd = project.command(program);
    cmd.args([
        "-p",
        "Make the change.",
        "--approval-mode",
        "yolo",
        "-m",
        "gemini-2.5-pro",
    ])
    .env("GEMINI_API_KEY", "scripted-key")
    .env("GOOGLE_GEMINI_BASE_URL", format!("http://127.0.0.1:{port}"))
    .env("GEMINI_TELEMETRY_ENABLED", "false");
    cmd
}

/// User settings that pick API-key auth and turn off telemetry and update
/// checks, and a trusted-folder entry for the project (without it Gemini
/// CLI runs no hooks).
fn setup(project: &Project) {
    project.write_home(
        ".gemini/settings.json",
        &json!({
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": false},
            "telemetry": {"enabled": false},
            "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}
        })
        .to_string(),
    );
    project.write_home(
        ".gemini/trustedFolders.json",
        &json!({ project.root.display().to_string(): "TRUST_FOLDER" }).to_string(),
    );
    let said = project.init("gemini", &[]);
    assert!(said.contains("trusted folder"), "{said}");
}

const GEMINI: Agent = Agent {
    cli: "gemini",
    api: gemini::router,
    command: gemini_cli,
    init: setup,
    write: |file, text| json!({"name": "write_file", "args": {"file_path": file, "content": text}}),
};

#[tokio::test(flavor = "multi_thread")]
async fn a_replace_that_breaks_the_file_shows_the_block_unescaped() {
    let Some((program, project)) = GEMINI.project(&[agents::APP]) else {
        return;
    };
    let app = project.root.join("app.py");
    let steps = vec![json!({"name": "replace", "args": {
        "file_path": app.display().to_string(),
        "instruction": "Add a counter above greet.",
        "old_string": "def greet",
        "new_string": format!("{}def greet", agents::BROKEN_LINE)}})];
    let run = GEMINI.run(&project, &program, steps).await;
    agents::assert_app_broken(&project, &run);
    let (rendered, seen) = assert_model_saw_readable_block(&project, &run);
    // Readable as it arrives: pyright's message keeps its own characters
    // (the rendering escapes them; the edit's own text is in the request too,
    // so look for the message's quoting).
    assert!(rendered.contains("&lt;tag&gt; &amp; more"), "{rendered}");
    assert!(seen.contains("\"Literal['<tag> & more']\""), "{seen}");
    assert!(!seen.contains("&lt;") && !seen.contains("&amp;"), "{seen}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_clean_write_adds_nothing() {
    GEMINI.a_clean_write_adds_nothing("diagnostics").await;
}

/// The model's request after the first step carries `app.py`'s block as
/// the Gemini hook hands it over: rendered readable, the messages with
/// their own characters (`hook --file --readable`, as the AfterTool hook
/// asks the daemon; `src/cli/hook/gemini_model.rs`). The usual rendering
/// and the request's text.
fn assert_model_saw_readable_block(project: &Project, run: &Run) -> (String, String) {
    let rendered = project.rendered("app.py");
    assert!(
        rendered.contains("<diagnostics file=\"app.py\">"),
        "{rendered}"
    );
    let expected = project.rendered_readable("app.py");
    eprintln!("the block as the model reads it:\n{expected}");
    let seen = strings(run.after_step(0));
    assert!(
        seen.contains(expected.trim_end()),
        "the model's next request lacks the block\nexpected:\n{expected}\nrequest text:\n{seen}\n{}",
        run.log()
    );
    (rendered, seen)
}

/// `run_shell_command` running `sed -i`: BeforeTool snapshots, AfterTool
/// reports the changed file, BeforeModel hands it over.
#[tokio::test(flavor = "multi_thread")]
async fn a_sed_through_the_shell_is_reported() {
    let Some((program, project)) = GEMINI.project(&[agents::APP]) else {
        return;
    };
    let steps = vec![json!({"name": "run_shell_command", "args": {
        "command": agents::SED_BREAK, "description": "Return an int"}})];
    let run = GEMINI.run(&project, &program, steps).await;
    assert!(project.read("app.py").contains("return 1"), "{}", run.log());
    assert_model_saw_readable_block(&project, &run);
}

/// Gemini CLI's `AfterAgent` with `init gemini --stop-gate`: a turn whose
/// `replace` breaks `app.py` is kept going once (`decision: "block"`, whose
/// reason Gemini sends as the next prompt), then ends.
#[tokio::test(flavor = "multi_thread")]
async fn the_stop_gate_keeps_a_broken_turn_going_once() {
    let Some((program, project)) = GEMINI.project(&[agents::APP]) else {
        return;
    };
    let said = project.init("gemini", &["--stop-gate"]);
    assert!(said.contains("AfterAgent"), "{said}");
    let app = project.root.join("app.py");
    let steps = vec![json!({"name": "replace", "args": {
        "file_path": app.display().to_string(),
        "instruction": "Add a counter above greet.",
        "old_string": "def greet",
        "new_string": format!("{}def greet", agents::BROKEN_LINE)}})];
    let run = GEMINI.run(&project, &program, steps).await;
    project.stop_daemon();
    agents::assert_app_broken(&project, &run);
    let gate = "Before you finish: this turn introduced 1 error that is still there.";
    let held: Vec<usize> = (0..run.main.len())
        .filter(|&i| strings(&run.main[i]).contains(gate))
        .collect();
    // Held once, by the last request: the continued turn then ended.
    assert_eq!(held, [run.main.len() - 1], "{}", run.log());
    assert!(run.main.len() >= 3, "{}", run.log());
}
