//! Codex CLI 0.169.0, the real binary, headless (`codex exec`) against the
//! scripted model server after `squiggle init codex --trust-hook`: the hook
//! runs (its trust recorded as Codex's `/hooks` screen records it), the
//! model's next request after an `apply_patch` carries squiggle's block
//! exactly as rendered, and nothing after a clean one.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::support::agents;
use crate::support::agents::{Agent, Project, openai, strings};

fn codex(project: &Project, program: &Path, port: u16) -> Command {
    project.write_home(
        ".codex/config.toml",
        &format!(
            "model = \"gpt-5.5\"\nmodel_provider = \"scripted\"\napproval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\ncheck_for_update_on_startup = false\n\n[analytics]\nenabled = false\n\n[model_providers.scripted]\nname = \"scripted\"\nbase_url = \"http://127.0.0.1:{port}/v1\"\nwire_api = \"responses\"\nrequest_max_retries = 0\nstream_max_retries = 0\n\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n{}",
            project.root.display(),
            project.read_home(".codex/trust.toml"),
        ),
    );
    let mut cmd = project.command(program);
    cmd.args(["exec", "--skip-git-repo-check", "Make the change."])
        .env("CODEX_HOME", project.home.join(".codex"))
        .env("OPENAI_API_KEY", "sk-scripted")
        .env("CODEX_DISABLE_TELEMETRY", "1");
    cmd
}

const CODEX: Agent = Agent {
    cli: "codex",
    api: openai::router,
    command: codex,
    init,
    write: add_file,
};

fn patch(body: &str) -> Value {
    json!({"type": "custom_tool_call", "id": "ctc_scripted", "name": "apply_patch",
        "input": format!("*** Begin Patch\n{body}*** End Patch\n")})
}

/// Codex writes files through patches: `text` as an added file at `path`,
/// named as a patch names it, relative to the project (the tests write at
/// its top).
fn add_file(path: &str, text: &str) -> Value {
    let name = Path::new(path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let added: String = text.lines().map(|l| format!("+{l}\n")).collect();
    patch(&format!("*** Add File: {name}\n{added}"))
}

/// The patch body that puts `BROKEN_LINE` above `greet` in `app.py`.
fn break_app() -> String {
    format!(
        "*** Update File: app.py\n@@\n+{} def greet(name: str) -> str:\n",
        agents::BROKEN_LINE
    )
}

/// `squiggle init codex --trust-hook`, keeping what it wrote to Codex's
/// user config aside: the test rewrites that file with the port once known.
fn init(project: &Project) {
    project.init("codex", &["--trust-hook"]);
    let written = project.read_home(".codex/config.toml");
    project.write_home(".codex/trust.toml", &written);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_patch_that_breaks_the_file_shows_the_block_to_the_model() {
    let Some((program, project)) = CODEX.project(&[agents::APP]) else {
        return;
    };
    let steps = vec![patch(&break_app())];
    let run = CODEX.run(&project, &program, steps).await;
    agents::assert_app_broken(&project, &run);
    agents::assert_model_saw_block(&project, &run, "app.py", 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_clean_patch_adds_nothing() {
    CODEX.a_clean_write_adds_nothing("<diagnostics").await;
}

/// Without the trust entry Codex skips the hook silently: `init` must say
/// so, and `--trust-hook` (above) is what makes the difference.
#[tokio::test(flavor = "multi_thread")]
async fn an_untrusted_hook_does_not_run_and_init_says_so() {
    let Some((program, project)) = agents::agent_project("codex", &[agents::APP]) else {
        return;
    };
    let said = project.init("codex", &[]);
    assert!(said.contains("--trust-hook"), "{said}");
    let steps = vec![patch(&break_app())];
    let run = CODEX.run(&project, &program, steps).await;
    agents::assert_app_broken(&project, &run);
    let seen = strings(run.after_step(0));
    assert!(!seen.contains("<diagnostics"), "{seen}");
    let doctor = project.squiggle(&["doctor", "--only", "pyright"]);
    let doctor = String::from_utf8_lossy(&doctor.stdout);
    assert!(
        doctor.contains("codex: squiggle's hook in") && doctor.contains("is not trusted"),
        "{doctor}"
    );
    project.init("codex", &["--trust-hook"]);
    let doctor = project.squiggle(&["doctor", "--only", "pyright"]);
    let doctor = String::from_utf8_lossy(&doctor.stdout);
    assert!(!doctor.contains("not trusted"), "{doctor}");
}

/// A patch applied through the shell (`apply_patch <<'EOF'` run by
/// `exec_command`, what Codex offers models it does not know) fires
/// PreToolUse only; squiggle reports it on the next after-tool event Codex
/// fires, here the next shell command's.
#[tokio::test(flavor = "multi_thread")]
async fn a_patch_through_the_shell_is_reported_on_the_next_event() {
    let Some((program, project)) = CODEX.project(&[agents::APP]) else {
        return;
    };
    let patch = format!(
        "apply_patch <<'EOF'\n*** Begin Patch\n{}*** End Patch\nEOF\n",
        break_app()
    );
    let shell = |cmd: &str| {
        json!({"type": "function_call", "id": "fc_scripted", "name": "exec_command",
            "arguments": json!({"cmd": cmd}).to_string()})
    };
    let steps = vec![shell(&patch), shell("true")];
    let run = CODEX.run(&project, &program, steps).await;
    agents::assert_app_broken(&project, &run);
    // The request after the next command Codex runs.
    agents::assert_model_saw_block(&project, &run, "app.py", 1);
}

/// The gate's first line, as every host gets it.
const GATE: &str = "Before you finish: this turn introduced 1 error that is still there.";

/// Codex's `Stop` with `init codex --trust-hook --stop-gate`: a turn whose
/// patch breaks `app.py` is kept going once (`decision: "block"`, the
/// reason as the continuation prompt), then ends (`stop_hook_active`).
#[tokio::test(flavor = "multi_thread")]
async fn the_stop_gate_keeps_a_broken_turn_going_once() {
    let Some((program, project)) = agents::agent_project("codex", &[agents::APP]) else {
        return;
    };
    project.init("codex", &["--trust-hook", "--stop-gate"]);
    let written = project.read_home(".codex/config.toml");
    project.write_home(".codex/trust.toml", &written);
    let run = CODEX
        .run(&project, &program, vec![patch(&break_app())])
        .await;
    project.stop_daemon();
    agents::assert_app_broken(&project, &run);
    let seen: Vec<bool> = run.main.iter().map(|r| strings(r).contains(GATE)).collect();
    // The first request, the one after the patch (the turn then ends with
    // "done"), the one the gate kept going; nothing after.
    assert_eq!(seen, [false, false, true], "{}", run.log());
    assert!(strings(&run.main[2]).contains("<diagnostics file=\"app.py\">"));
}

/// A clean patch: the gate stays open, the turn ends.
#[tokio::test(flavor = "multi_thread")]
async fn the_stop_gate_stays_open_after_a_clean_patch() {
    let Some((program, project)) = agents::agent_project("codex", &[agents::APP]) else {
        return;
    };
    project.init("codex", &["--trust-hook", "--stop-gate"]);
    let written = project.read_home(".codex/config.toml");
    project.write_home(".codex/trust.toml", &written);
    let clean = format!(
        "*** Update File: app.py\n@@\n+{} def greet(name: str) -> str:\n",
        "x: int = 1\n"
    );
    let run = CODEX.run(&project, &program, vec![patch(&clean)]).await;
    project.stop_daemon();
    assert_eq!(run.main.len(), 2, "{}", run.log());
}
