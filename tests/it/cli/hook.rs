//! `squiggle hook`: the real binary, fed real-shaped agent payloads on stdin,
//! against a workspace whose `.fk` files are served by the scripted fake
//! server (`squiggle-fake-lsp`, pull mode, diagnostics from `@error(...)`).

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use crate::support::fake_server::{FakeServer, squiggle_toml};
use crate::support::output_with_stdin;
use crate::support::scratch::{Scratch, scratch_type};

scratch_type!(Workspace);

impl Workspace {
    /// `ws/` (a git root, with `.squiggle.toml` naming the fake) plus a user
    /// config under `config/` that trusts it.
    fn new() -> Workspace {
        Workspace::with_lsp("")
    }

    /// `new`, with `lsp` (lines such as `report = "new"`) in `[lsp]`.
    fn with_lsp(lsp: &str) -> Workspace {
        let ws = Workspace(Scratch::with_git_root());
        let fake = FakeServer::new(json!({"diagnosticMode": "pull"}));
        ws.write(".squiggle.toml", &squiggle_toml(lsp, &fake));
        ws.trust();
        ws
    }

    /// Claude Code's event after an `Edit` of `file`.
    fn edit_event(&self, file: &Path) -> Value {
        self.claude_event(
            "Edit",
            json!({"file_path": file.display().to_string(), "old_string": "a", "new_string": "b"}),
        )
    }

    fn path(&self, name: &str) -> String {
        self.root.join(name).display().to_string()
    }

    fn hook(&self, args: &[&str], stdin: &str) -> Output {
        self.hook_env(args, stdin, &[("SQUIGGLE_NO_DAEMON", "1")])
    }

    /// Runs `squiggle hook` with extra environment (the daemon tests leave
    /// the daemon allowed instead of forbidding it).
    fn hook_env(&self, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
        let mut command = self.command(&["hook"]);
        command
            .args(args)
            .env("HOME", &self.outer)
            .envs(env.iter().copied())
            .env_remove("RUST_LOG");
        output_with_stdin(&mut command, stdin)
    }

    /// Runs `squiggle hook` through the workspace's daemon, in its private
    /// runtime dir (started by the first such hook; see `daemon`).
    fn hook_daemon(&self, args: &[&str], stdin: &str) -> Output {
        self.hook_env(args, stdin, &[("SQUIGGLE_DAEMON_IDLE_MS", "60000")])
    }
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Exit 0 and a reply with `event`; returns the additionalContext.
fn context(out: &Output, event: &str) -> String {
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(out));
    let reply: Value = serde_json::from_str(stdout(out).trim()).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}):\n{}\nstderr: {}",
            stdout(out),
            stderr(out)
        )
    });
    let keys: Vec<&String> = reply
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    assert_eq!(keys, ["hookSpecificOutput"], "reply: {reply}");
    assert_eq!(
        reply["hookSpecificOutput"]["hookEventName"], event,
        "reply: {reply}"
    );
    reply["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_else(|| panic!("no additionalContext: {reply}"))
        .to_string()
}

fn silent(out: &Output) {
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(out));
    assert_eq!(
        stdout(out),
        "",
        "expected no output; stderr: {}",
        stderr(out)
    );
}

fn assert_contains(haystack: &str, needle: &str) {
    assert!(
        haystack.contains(needle),
        "expected to find:\n{needle}\nin:\n{haystack}"
    );
}

#[test]
fn claude_edit_with_an_error_replies_with_the_block() {
    let ws = Workspace::new();
    ws.write("lib.fk", "fn one\n@error(lib is broken)\n");
    ws.write("app.fk", "import lib\n@error(app is broken too)\n");
    let payload = ws.claude_event(
        "Edit",
        json!({"file_path": ws.path("lib.fk"), "old_string": "fn", "new_string": "fn one", "replace_all": false}),
    );
    let text = context(&ws.hook(&["claude"], &payload.to_string()), "PostToolUse");
    assert_eq!(
        text,
        "LSP errors detected in this file, please fix:\n<diagnostics file=\"lib.fk\">\nERROR [2:1] lib is broken\n</diagnostics>\n"
    );
}

#[test]
fn claude_clean_file_says_nothing() {
    let ws = Workspace::new();
    ws.write("ok.fk", "all good\n");
    let payload = ws.claude_event(
        "MultiEdit",
        json!({"file_path": ws.path("ok.fk"), "edits": [{"old_string": "a", "new_string": "all"}]}),
    );
    silent(&ws.hook(&["claude"], &payload.to_string()));
}

#[test]
fn claude_write_includes_other_files() {
    let ws = Workspace::new();
    ws.write("util.fk", "export nothing\n");
    ws.write("app.fk", "import util\n@error(app lost its import)\n");
    let payload = ws.claude_event(
        "Write",
        json!({"file_path": ws.path("util.fk"), "content": "export nothing\n"}),
    );
    let text = context(&ws.hook(&["claude"], &payload.to_string()), "PostToolUse");
    assert_contains(
        &text,
        "LSP errors detected in other files:\n<diagnostics file=\"app.fk\">\nERROR [2:1] app lost its import\n</diagnostics>\n",
    );
}

#[test]
fn claude_notebook_edit_and_other_tools_are_skipped() {
    let ws = Workspace::new();
    let notebook = ws.claude_event(
        "NotebookEdit",
        json!({"notebook_path": ws.path("n.ipynb"), "new_source": "@error(x)", "cell_id": "c1"}),
    );
    let out = ws.hook(&["claude"], &notebook.to_string());
    silent(&out);
    assert_eq!(stderr(&out), "");
    let bash = ws.claude_event("Bash", json!({"command": "ls"}));
    silent(&ws.hook(&["claude"], &bash.to_string()));
}

#[test]
fn malformed_input_never_blocks_the_agent() {
    let ws = Workspace::new();
    for (agent, input, reason) in [
        ("claude", "this is not json".to_string(), "not JSON"),
        (
            "claude",
            json!({"hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_input": {}})
                .to_string(),
            "tool_input.file_path is missing",
        ),
        (
            "codex",
            json!({"tool_name": "apply_patch", "tool_input": {"command": "no patch here"}})
                .to_string(),
            "tool_input.command is not a patch",
        ),
        ("gemini", String::new(), "not JSON"),
    ] {
        let out = ws.hook(&[agent], &input);
        silent(&out);
        assert_contains(
            &stderr(&out),
            &format!("squiggle hook: ignored malformed input: {reason}"),
        );
    }
}

#[test]
fn codex_apply_patch_checks_every_written_file_in_one_reply() {
    let ws = Workspace::new();
    // The hook runs after the patch was applied: the files hold the result.
    ws.write("new.fk", "@error(new file is broken)\n");
    ws.write("old.fk", "kept\n@error(old file is broken)\n");
    let patch = "*** Begin Patch\n*** Add File: new.fk\n+@error(new file is broken)\n*** Update File: old.fk\n@@\n kept\n-fine\n+@error(old file is broken)\n*** Delete File: gone.fk\n*** End Patch\n";
    let payload = json!({
        "session_id": "s1",
        "turn_id": "t1",
        "transcript_path": null,
        "cwd": ws.root.display().to_string(),
        "hook_event_name": "PostToolUse",
        "model": "gpt-5-codex",
        "permission_mode": "default",
        "tool_name": "apply_patch",
        "tool_use_id": "call_1",
        "tool_input": {"command": patch},
        "tool_response": "Success. Updated the following files:\nA new.fk\nM old.fk\nD gone.fk\n"
    });
    let text = context(&ws.hook(&["codex"], &payload.to_string()), "PostToolUse");
    assert_eq!(
        text,
        "LSP errors detected in edited files, please fix:\n<diagnostics file=\"new.fk\">\nERROR [1:1] new file is broken\n</diagnostics>\n<diagnostics file=\"old.fk\">\nERROR [2:1] old file is broken\n</diagnostics>\n"
    );
}

/// Gemini CLI HTML-escapes AfterTool context, so the AfterTool hook leaves
/// the block for the session and the BeforeModel hook appends it, readable,
/// to the next model request.
#[test]
fn gemini_replace_hands_the_block_to_the_next_model_request() {
    let ws = Workspace::new();
    ws.write("g.fk", "@error(Array<string> & co)\n");
    let run = ws.outer.join("run");
    std::fs::create_dir_all(&run).unwrap_or_else(|e| panic!("mkdir: {e}"));
    let env = [
        ("SQUIGGLE_NO_DAEMON", "1"),
        ("XDG_RUNTIME_DIR", run.to_str().unwrap_or_default()),
    ];
    let payload = json!({
        "session_id": "g1",
        "transcript_path": ws.outer.join("t.json").display().to_string(),
        "cwd": ws.root.display().to_string(),
        "hook_event_name": "AfterTool",
        "timestamp": "2026-01-28T10:00:00.000Z",
        "tool_name": "replace",
        "tool_input": {"file_path": ws.path("g.fk"), "old_string": "x", "new_string": "y"},
        "tool_response": {"llmContent": "Successfully modified file", "returnDisplay": "..."}
    });
    let out = ws.hook_env(&["gemini"], &payload.to_string(), &env);
    assert_eq!(stdout(&out), "", "stderr: {}", stderr(&out));
    let before = json!({"session_id": "g1", "hook_event_name": "BeforeModel",
        "llm_request": {"model": "m", "messages": [{"role": "user", "content": "hi"}]}});
    let out = ws.hook_env(&["gemini"], &before.to_string(), &env);
    let reply: Value = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(&out)));
    assert_eq!(reply["hookSpecificOutput"]["hookEventName"], "BeforeModel");
    let messages = &reply["hookSpecificOutput"]["llm_request"]["messages"];
    assert_eq!(messages[0], json!({"role": "user", "content": "hi"}));
    assert_eq!(messages[1]["role"], "user");
    assert_contains(
        messages[1]["content"].as_str().unwrap_or_default(),
        "<diagnostics file=\"g.fk\">\nERROR [1:1] Array<string> & co\n</diagnostics>\n",
    );
    // Taken once: the next model request gets nothing more.
    let out = ws.hook_env(&["gemini"], &before.to_string(), &env);
    assert_eq!(stdout(&out), "");
}

#[test]
fn generic_file_mode_prints_the_text() {
    let ws = Workspace::new();
    ws.write("bad.fk", "@error(plain text please)\n");
    ws.write("good.fk", "fine\n");
    let out = ws.hook(&["--file", "bad.fk"], "");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "LSP errors detected in this file, please fix:\n<diagnostics file=\"bad.fk\">\nERROR [1:1] plain text please\n</diagnostics>\n"
    );
    silent(&ws.hook(&["--file", "good.fk"], ""));
}

#[test]
fn a_broken_configuration_is_not_the_agents_problem() {
    let ws = Workspace::new();
    ws.write(".squiggle.toml", "[lsp]\nnoSuchKey = 1\n");
    ws.write("x.fk", "@error(x)\n");
    let payload = ws.claude_event("Edit", json!({"file_path": ws.path("x.fk")}));
    let out = ws.hook(&["claude"], &payload.to_string());
    silent(&out);
    assert_contains(&stderr(&out), "squiggle hook: ");
    assert_contains(&stderr(&out), "noSuchKey");
}

#[test]
fn hooks_go_through_one_warm_daemon_and_reuse_its_servers() {
    let ws = Workspace::new();
    let file = ws.write("a.fk", "x @error(first)\n");
    let payload = ws.edit_event(&file);
    let first = ws.hook_daemon(&["claude"], &payload.to_string());
    assert!(
        String::from_utf8_lossy(&first.stdout).contains("ERROR [1:3] first"),
        "{first:?}"
    );
    ws.write("a.fk", "x @error(second)\n");
    let second = ws.hook_daemon(&["claude"], &payload.to_string());
    assert!(
        String::from_utf8_lossy(&second.stdout).contains("ERROR [1:3] second"),
        "{second:?}"
    );
    // One daemon answered both, with the server it started for the first.
    let status = ws.daemon(&["status"]);
    let text = String::from_utf8_lossy(&status.stdout).to_string();
    assert!(ws.daemon(&["stop"]).status.success(), "daemon stop failed");
    // Two checks plus this status request, and one fake server, still active.
    assert!(text.contains("requests   3"), "daemon status:\n{text}");
    assert_eq!(
        text.lines()
            .filter(|l| l.contains("server") && l.contains("fake") && l.contains("active"))
            .count(),
        1,
        "{text}"
    );
}

/// `n.fk` with an error, before the edit.
const OLD_ERROR: &str = "ok\nx @error(old one)\n";

/// Writes the edit that inserts two lines above `OLD_ERROR`'s error, one of
/// them a new error, and runs the Claude hook through the daemon (then
/// stopped): with `report = "new"`, only the new error shows, marked as the
/// edit's.
fn assert_only_the_new_error_shows(ws: &Workspace, file: &Path) {
    ws.write("n.fk", "ok\ny @error(new one)\nz\nx @error(old one)\n");
    let payload = ws.edit_event(file);
    let shown = stdout(&ws.hook_daemon(&["claude"], &payload.to_string()));
    assert!(ws.daemon(&["stop"]).status.success(), "daemon stop failed");
    assert_contains(&shown, "ERROR [2:3] new one");
    assert!(!shown.contains("old one"), "{shown}");
    assert_contains(&shown, "from before this edit");
}

/// `report = "new"` through the daemon's hook path: the
/// hook remembers what it saw of a file, so an old error moved down by
/// inserted lines stays hidden and only the edit's new one shows.
#[test]
fn report_new_hides_old_errors_through_the_daemon() {
    let ws = Workspace::with_lsp("report = \"new\"");
    let file = ws.write("n.fk", OLD_ERROR);
    let payload = ws.edit_event(&file);
    // The first look at the file: nothing to compare with, all shown.
    let first = stdout(&ws.hook_daemon(&["claude"], &payload.to_string()));
    assert_contains(&first, "ERROR [2:3] old one");
    assert_only_the_new_error_shows(&ws, &file);
}

/// `report = "new"` on the first hook of a session: with
/// no earlier look at the file, the baseline is git's version of it,
/// checked once, so the old error stays hidden from the first edit on.
#[test]
fn report_new_takes_a_first_touch_baseline_from_git() {
    let ws = Workspace::with_lsp("report = \"new\"");
    std::fs::remove_dir_all(ws.root.join(".git")).unwrap_or_else(|e| panic!("{e}"));
    ws.repo(&[("n.fk", OLD_ERROR)]);
    // The agent's first edit.
    assert_only_the_new_error_shows(&ws, &ws.root.join("n.fk"));
}

/// Session start: the hook answers with nothing, and the
/// daemon it started brings up the server for the project's files before
/// any edit; the first edit then finds it running (one start in all).
#[test]
fn session_start_warms_the_daemon_and_its_servers() {
    let ws = Workspace::new();
    let file = ws.write("a.fk", "x @error(from the start)\n");
    let start = json!({
        "session_id": "s",
        "transcript_path": ws.outer.join("t.jsonl").display().to_string(),
        "cwd": ws.root.display().to_string(),
        "hook_event_name": "SessionStart",
        "source": "startup"
    });
    silent(&ws.hook_daemon(&["claude"], &start.to_string()));
    // The warm-up runs in the daemon after the hook has gone: wait for the
    // server to be up (a bounded wait for another process's state, not a
    // timing assertion).
    let fake_active = |text: &str| {
        text.lines()
            .filter(|l| l.contains("server") && l.contains("fake") && l.contains("active"))
            .count()
    };
    let fake_pid = |text: &str| {
        text.lines()
            .find(|l| l.contains("server") && l.contains("fake"))
            .and_then(|l| l.split_whitespace().last().map(str::to_string))
    };
    let mut warmed = String::new();
    for _ in 0..600 {
        warmed = String::from_utf8_lossy(&ws.daemon(&["status"]).stdout).to_string();
        if fake_active(&warmed) == 1 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let payload = ws.edit_event(&file);
    let edit = stdout(&ws.hook_daemon(&["claude"], &payload.to_string()));
    let after = String::from_utf8_lossy(&ws.daemon(&["status"]).stdout).to_string();
    assert!(ws.daemon(&["stop"]).status.success(), "daemon stop failed");
    assert_eq!(
        fake_active(&warmed),
        1,
        "no server after session start:\n{warmed}"
    );
    assert_contains(&edit, "ERROR [1:3] from the start");
    // The edit was answered by the server the session start brought up.
    assert_eq!(fake_active(&after), 1, "{after}");
    assert_eq!(fake_pid(&after), fake_pid(&warmed), "{warmed}\n{after}");
}

/// The turn's record for the Stop gate is written beside the daemons'
/// sockets before the first hook starts its daemon. Written into a
/// directory made with the default mode, it made every daemon refuse that
/// directory ("not private"), and every hook after it check in process,
/// starting the servers again each time (seen as a 3–7 s hook).
#[test]
fn recording_the_turn_first_leaves_the_daemon_a_private_directory() {
    let ws = Workspace::new();
    let file = ws.write("a.fk", "x\n");
    let mut payload = ws.claude_event(
        "Write",
        json!({"file_path": file.display().to_string(), "content": "x @error(new)\n"}),
    );
    payload["tool_response"] = json!({
        "type": "update", "filePath": file.display().to_string(),
        "content": "x @error(new)\n", "structuredPatch": [], "originalFile": "x\n"
    });
    ws.write("a.fk", "x @error(new)\n");
    let text = context(
        &ws.hook_daemon(&["claude", "--stop-gate"], &payload.to_string()),
        "PostToolUse",
    );
    assert_contains(&text, "ERROR [1:3] new");
    let sockets = ws.runtime_dir.join("squiggle");
    assert!(
        sockets.join("turn").join("abc123.json").is_file(),
        "no turn record"
    );
    let status = ws.daemon(&["status"]);
    let served = String::from_utf8_lossy(&status.stdout).to_string();
    let _reaper = served
        .lines()
        .find_map(|l| l.strip_prefix("pid")?.trim().parse().ok())
        .map(crate::support::process::Reaper);
    assert!(status.status.success(), "no daemon: {}", stderr(&status));
    #[cfg(unix)]
    for dir in [&sockets, &sockets.join("turn")] {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir).map(|m| m.permissions().mode() & 0o777);
        assert_eq!(mode.ok(), Some(0o700), "{}", dir.display());
    }
    ws.daemon(&["stop"]);
}
