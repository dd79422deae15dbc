//! Claude Code 2.1.328, the real binary, headless (`-p`, and the
//! stream-json mode of the VS Code extension and the Agent SDK) against the
//! scripted model server after `squiggle init claude`: the model's next request after
//! an edit carries squiggle's block exactly as rendered, and nothing after a
//! clean one.

use serde_json::{Value, json};

use crate::support::agents;
use crate::support::agents::anthropic::{self, claude};
use crate::support::agents::{Agent, strings};

const CLAUDE: Agent = Agent {
    cli: "claude",
    api: anthropic::router,
    command: claude,
    init: |project| {
        project.init("claude", &[]);
    },
    write: |file, text| json!({"name": "Write", "input": {"file_path": file, "content": text}}),
};

/// The model reads `app.py`, then its Edit breaks it.
fn read_then_break_app(project: &agents::Project) -> Vec<Value> {
    let file = project.root.join("app.py").display().to_string();
    vec![
        json!({"name": "Read", "input": {"file_path": file}}),
        json!({"name": "Edit", "input": {"file_path": file,
            "old_string": "def greet", "new_string": format!("{}def greet", agents::BROKEN_LINE)}}),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn an_edit_that_breaks_the_file_shows_the_block_to_the_model() {
    let Some((program, project)) = CLAUDE.project(&[agents::APP]) else {
        return;
    };
    let steps = read_then_break_app(&project);
    let run = CLAUDE.run(&project, &program, steps).await;
    agents::assert_app_broken(&project, &run);
    agents::assert_model_saw_block(&project, &run, "app.py", 1);
}

/// Claude Code as the VS Code extension and the Agent SDK drive it:
/// `--input-format stream-json --output-format stream-json`, the prompt a
/// JSON message on stdin, every event a JSON line on stdout.
fn claude_stream_json(
    project: &agents::Project,
    program: &std::path::Path,
    port: u16,
) -> std::process::Command {
    let input = project.outer.join("stream-input.jsonl");
    let message =
        json!({"type": "user", "message": {"role": "user", "content": "Make the change."}});
    std::fs::write(&input, format!("{message}\n"))
        .unwrap_or_else(|e| panic!("write {}: {e}", input.display()));
    let stdin =
        std::fs::File::open(&input).unwrap_or_else(|e| panic!("open {}: {e}", input.display()));
    let mut cmd = project.command(program);
    cmd.args([
        "-p",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--verbose",
        "--permission-mode",
        "acceptEdits",
        "--model",
        "claude-sonnet-4-5",
    ])
    .env("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{port}"))
    .env("ANTHROPIC_API_KEY", "sk-ant-scripted")
    .stdin(stdin);
    anthropic::no_phoning_home(&mut cmd);
    cmd
}

#[tokio::test(flavor = "multi_thread")]
async fn in_stream_json_mode_an_edit_that_breaks_the_file_shows_the_block() {
    let stream = Agent {
        command: claude_stream_json,
        ..CLAUDE
    };
    let Some((program, project)) = stream.project(&[agents::APP]) else {
        return;
    };
    let steps = read_then_break_app(&project);
    let run = stream.run(&project, &program, steps).await;
    let stdout = String::from_utf8_lossy(&run.output.stdout);
    assert!(
        stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .any(|event| event["type"] == "result"),
        "not stream-json output:\n{}",
        run.log()
    );
    agents::assert_app_broken(&project, &run);
    agents::assert_model_saw_block(&project, &run, "app.py", 1);
}

/// The real Claude Code runs `init`'s SessionStart hook: with no edit at
/// all (the model only reads), the project's daemon is up afterwards with
/// pyright started for app.py, ready for the first edit.
#[tokio::test(flavor = "multi_thread")]
async fn session_start_leaves_pyright_running_before_any_edit() {
    let Some((program, project)) = CLAUDE.project(&[agents::APP]) else {
        return;
    };
    let app = project.root.join("app.py");
    let steps = vec![json!({"name": "Read", "input": {"file_path": app.display().to_string()}})];
    let (p, prog) = (project.clone(), program.clone());
    let run = agents::run_agent(anthropic::router, steps, move |port| {
        claude(&p, &prog, port)
    })
    .await;
    // The warm-up runs in the daemon after the hook has answered: a bounded
    // wait for its state, not a timing assertion.
    let mut status = String::new();
    for _ in 0..600 {
        let out = project.squiggle(&["daemon", "status"]);
        status = String::from_utf8_lossy(&out.stdout).into_owned();
        if status
            .lines()
            .any(|l| l.contains("pyright") && l.contains("active"))
        {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    project.stop_daemon();
    assert!(
        status
            .lines()
            .any(|l| l.contains("pyright") && l.contains("active")),
        "no daemon with pyright after session start:\n{status}\n{}",
        run.log()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_clean_write_adds_nothing() {
    CLAUDE.a_clean_write_adds_nothing("diagnostics").await;
}

/// `Bash` running `sed -i`: the PreToolUse hook snapshots the workspace,
/// the PostToolUse hook reports the file the command changed.
#[tokio::test(flavor = "multi_thread")]
async fn a_sed_through_bash_is_reported() {
    let files = [agents::APP, ("other.py", "x: int = 1\n")];
    let Some((program, project)) = CLAUDE.project(&files) else {
        return;
    };
    let steps = vec![
        json!({"name": "Bash", "input": {"command": agents::SED_BREAK,
        "description": "Return an int"}}),
    ];
    let (p, program) = (project.clone(), program.to_path_buf());
    let run = agents::run_agent(anthropic::router, steps, move |port| {
        let mut cmd = claude(&p, &program, port);
        cmd.args(["--allowedTools", "Bash(sed:*)"]);
        cmd
    })
    .await;
    project.stop_daemon();
    assert!(project.read("app.py").contains("return 1"), "{}", run.log());
    agents::assert_model_saw_block(&project, &run, "app.py", 0);
    let seen = strings(run.after_step(0));
    assert!(
        !seen.contains("other.py\">"),
        "an unchanged file was reported:\n{seen}"
    );
}

/// Five `Write`s of broken files in one model turn, per edit (PostToolUse)
/// and in batch mode (`init claude --batch`, PostToolBatch): the model's
/// next request carries every file's block, once per edit or once for the
/// turn. Prints each run's wall time (a measurement, not an assertion).
async fn five_writes(batch: bool) -> (usize, std::time::Duration) {
    let Some((program, project)) = agents::agent_project("claude", &[]) else {
        return (0, std::time::Duration::ZERO);
    };
    project.init("claude", if batch { &["--batch"] } else { &[] });
    let calls: Vec<Value> = (1..=5)
        .map(|n| {
            let file = project.root.join(format!("m{n}.py")).display().to_string();
            json!({"name": "Write", "input": {"file_path": file,
                "content": format!("value: int = \"{n}\"\n")}})
        })
        .collect();
    let started = std::time::Instant::now();
    let run = CLAUDE
        .run(&project, &program, vec![Value::Array(calls)])
        .await;
    let took = started.elapsed();
    let seen = strings(run.after_step(0));
    let blocks = seen.matches("<diagnostics file=\"m").count();
    for n in 1..=5 {
        let count = seen
            .matches(&format!("<diagnostics file=\"m{n}.py\">"))
            .count();
        // Per edit, a Write also reports the other files it may break: the
        // earlier files of the turn come back with every later Write.
        assert!(
            count == 1 || (!batch && count >= 1),
            "m{n}.py's block is there {count} times\n{seen}\n{}",
            run.log()
        );
    }
    let contexts = seen.matches("hook additional context").count();
    eprintln!(
        "five writes, {} mode: {contexts} hook context(s), {blocks} blocks, agent run {took:?}",
        if batch { "batch" } else { "per-edit" }
    );
    (contexts, took)
}

#[tokio::test(flavor = "multi_thread")]
async fn five_writes_report_per_edit_or_once_per_turn() {
    let (per_edit, _) = five_writes(false).await;
    let (batched, _) = five_writes(true).await;
    if per_edit == 0 && batched == 0 {
        return; // skipped: no claude
    }
    assert_eq!(per_edit, 5);
    assert_eq!(batched, 1);
}

/// Claude Code after `init claude --stop-gate` on `app.py` holding
/// `initial`: the model reads it, inserts `inserted` before `def greet`,
/// then ends its turn (and any turn the gate keeps going). `None` when
/// Claude Code is not installed.
async fn stop_gate_run(initial: &str, inserted: &str) -> Option<(agents::Project, agents::Run)> {
    let (program, project) = agents::agent_project("claude", &[("app.py", initial)])?;
    project.init("claude", &["--stop-gate"]);
    let file = project.root.join("app.py").display().to_string();
    let steps = vec![
        json!({"name": "Read", "input": {"file_path": file}}),
        json!({"name": "Edit", "input": {"file_path": file,
            "old_string": "def greet", "new_string": format!("{inserted}def greet")}}),
    ];
    let run = CLAUDE.run(&project, &program, steps).await;
    assert!(project.read("app.py").contains(inserted), "{}", run.log());
    Some((project, run))
}

/// With `init claude --stop-gate`, a turn that ends with
/// an error its edit introduced is kept going once: the model's next
/// request carries the gate's summary and the error's block; when the model
/// ends the turn again, it ends (one continuation, then no more requests).
#[tokio::test(flavor = "multi_thread")]
async fn the_stop_gate_keeps_a_broken_turn_going_once() {
    let Some((_project, run)) = stop_gate_run(agents::ORIGINAL, agents::BROKEN_LINE).await else {
        return;
    };
    let gate = "Before you finish: this turn introduced 1 error that is still there.";
    let seen: Vec<bool> = run
        .main
        .iter()
        .map(|request| strings(request).contains(gate))
        .collect();
    // The first request, the ones after the read and the edit (the turn
    // then ends with "done"), the one the gate kept going; nothing after.
    assert_eq!(seen, [false, false, false, true], "{}", run.log());
    let after_gate = strings(&run.main[3]);
    assert!(
        after_gate.contains("<diagnostics file=\"app.py\">"),
        "{after_gate}"
    );
}

/// The gate stays open for a clean turn: no continuation.
#[tokio::test(flavor = "multi_thread")]
async fn the_stop_gate_stays_open_after_a_clean_edit() {
    let Some((_project, run)) = stop_gate_run(agents::ORIGINAL, agents::CLEAN).await else {
        return;
    };
    assert_eq!(run.main.len(), 3, "{}", run.log());
}

/// The gate never fires for an error that was there before the turn: the
/// file starts broken, the turn's edit adds a clean function, the turn ends.
#[tokio::test(flavor = "multi_thread")]
async fn the_stop_gate_ignores_an_error_from_before_the_turn() {
    let broken = format!("{}{}", agents::BROKEN_LINE, agents::ORIGINAL);
    let Some((_project, run)) = stop_gate_run(&broken, agents::CLEAN).await else {
        return;
    };
    assert_eq!(run.main.len(), 3, "{}", run.log());
}

/// Delivery, read from Claude Code's own transcript: the block the first
/// edit's hook handed over is in the transcript when the second edit's
/// hook looks, so `doctor --hooks` counts it delivered and the session
/// keeps its channel.
#[tokio::test(flavor = "multi_thread")]
async fn the_transcript_shows_the_block_delivered() {
    let Some((program, project)) = CLAUDE.project(&[agents::APP]) else {
        return;
    };
    let file = project.root.join("app.py").display().to_string();
    let other = project.root.join("other.py").display().to_string();
    let steps = vec![
        json!({"name": "Read", "input": {"file_path": file}}),
        json!({"name": "Edit", "input": {"file_path": file,
            "old_string": "def greet", "new_string": format!("{}def greet", agents::BROKEN_LINE)}}),
        json!({"name": "Write", "input": {"file_path": other, "content": "x: int = 1\n"}}),
    ];
    let run = CLAUDE.run(&project, &program, steps).await;
    agents::assert_model_saw_block(&project, &run, "app.py", 1);
    let doctor = project.squiggle(&["doctor", "--hooks"]);
    project.stop_daemon();
    let doctor = String::from_utf8_lossy(&doctor.stdout);
    assert!(
        doctor.contains(": 1 delivered, 0 not delivered"),
        "{doctor}\n{}",
        run.log()
    );
    assert!(!doctor.contains("falls back"), "{doctor}");
}
