//! Scenario 2: a whole `squiggle hook claude` process, a real Claude Code
//! PostToolUse payload on stdin, against a warm daemon serving the fake
//! (workspace `.squiggle.toml` plus a user config trusting it, as in
//! `tests/it/cli/hook.rs`). Interleaved with `squiggle --version`, the floor of
//! starting the binary at all, and with VS Code's PostToolUse for `read_file`
//! through the same command line: VS Code runs every hook on every tool
//! call, and a tool that changes no file must cost no more than a start.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, ensure};
use serde_json::json;

use crate::fixtures::{fake_workspace_config, runtime_dir, sibling};
use crate::stats::{Samples, header, ratio, row};

pub fn run(runs: usize) -> Result<()> {
    let squiggle = sibling("squiggle")?;
    let tmp = crate::fixtures::TempDir::new()?;
    let outer = tmp.path().to_path_buf();
    let root = outer.join("ws");
    std::fs::create_dir_all(root.join(".git"))?;
    fake_workspace_config(&outer, &root)?;
    let run_dir = runtime_dir(&outer)?;
    let file = root.join("a.fk");
    let env = [
        ("XDG_CONFIG_HOME", outer.join("xdg").display().to_string()),
        ("HOME", outer.display().to_string()),
        ("XDG_RUNTIME_DIR", run_dir.display().to_string()),
        ("SQUIGGLE_DAEMON_IDLE_MS", "600000".to_string()),
    ];
    let payload = payload(&outer, &root, &file);
    let hook = |n: usize, no_daemon: bool| -> Result<Output> {
        std::fs::write(&file, format!("x = {n} @error(e{n})\n"))?;
        let mut args = vec!["hook", "claude"];
        if no_daemon {
            args.push("--no-daemon");
        }
        let out = spawn(&squiggle, &args, &root, &env, payload.as_bytes())?;
        let text = String::from_utf8_lossy(&out.stdout);
        ensure!(
            text.contains(&format!("e{n}")),
            "hook reply without the diagnostic: {text:?}; stderr {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Ok(out)
    };
    // The first hook starts the daemon and its server: not counted.
    hook(0, false)?;
    hook(1, false)?;
    let (mut warm, mut floor, mut cold, mut quiet) = (
        Samples::default(),
        Samples::default(),
        Samples::default(),
        Samples::default(),
    );
    let read = read_file_payload(&root, &file);
    for n in 2..2 + runs {
        let t = Instant::now();
        hook(n, false)?;
        warm.push(t.elapsed());
        let t = Instant::now();
        spawn(&squiggle, &["--version"], &root, &env, b"")?;
        floor.push(t.elapsed());
        let t = Instant::now();
        let out = spawn(&squiggle, &["hook", "claude"], &root, &env, read.as_bytes())?;
        quiet.push(t.elapsed());
        ensure!(out.stdout.is_empty(), "a read_file payload got a reply");
        // In-process (no daemon) every tenth round: it starts the fake each time.
        if n % 10 == 0 {
            let t = Instant::now();
            hook(n, true)?;
            cold.push(t.elapsed());
        }
    }
    let stop = Command::new(&squiggle)
        .args(["daemon", "stop", "--root"])
        .arg(&root)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .context("squiggle daemon stop")?;
    ensure!(stop.status.success(), "squiggle daemon stop failed");
    print_table(&warm, &floor, &quiet, &cold);
    Ok(())
}

/// The samples as `docs/performance.md` shows them: a row each, then
/// their ratios.
fn print_table(warm: &Samples, floor: &Samples, quiet: &Samples, cold: &Samples) {
    header("whole process, wall time");
    row("`squiggle hook claude`, warm daemon", warm);
    row("`squiggle --version` (process start floor)", floor);
    row(
        "`squiggle hook claude`, VS Code `read_file` (no file changed)",
        quiet,
    );
    row("`squiggle hook claude --no-daemon` (starts the fake)", cold);
    println!();
    println!("| ratio (same run) | medians |");
    println!("| --- | --- |");
    ratio("hook via warm daemon / process start", warm, floor);
    ratio("hook without daemon / hook via warm daemon", cold, warm);
    ratio("read_file hook / process start", quiet, floor);
}

/// A real Claude Code PostToolUse payload for an Edit of `file`.
fn payload(outer: &Path, root: &Path, file: &Path) -> String {
    json!({
        "session_id": "bench",
        "transcript_path": outer.join("transcript.jsonl").display().to_string(),
        "cwd": root.display().to_string(),
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": file.display().to_string(), "old_string": "a", "new_string": "b"},
        "tool_response": {"filePath": file.display().to_string(), "success": true},
        "tool_use_id": "toolu_01"
    })
    .to_string()
}

/// VS Code's PostToolUse payload for `read_file`, a tool that changes no file.
fn read_file_payload(root: &Path, file: &Path) -> String {
    json!({
        "timestamp": "2026-11-28T08:00:00.000Z",
        "hookEventName": "PostToolUse",
        "sessionId": "bench-vscode",
        "cwd": root.display().to_string(),
        "tool_name": "read_file",
        "tool_input": {"filePath": file.display().to_string(), "startLine": 1, "endLine": 20},
        "tool_use_id": "call_1",
        "tool_response": "x = 1"
    })
    .to_string()
}

fn spawn(
    exe: &Path,
    args: &[&str],
    cwd: &Path,
    env: &[(&str, String)],
    stdin: &[u8],
) -> Result<Output> {
    let mut child = Command::new(exe)
        .args(args)
        .current_dir(cwd)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("spawn {}", exe.display()))?;
    if let Some(mut input) = child.stdin.take() {
        input.write_all(stdin)?;
    }
    Ok(child.wait_with_output()?)
}
