//! `squiggle hook`: the real binary, fed real-shaped agent payloads on stdin,
//! against a workspace whose `.fk` files are served by the scripted fake
//! server (`squiggle-fake-lsp`, pull mode, diagnostics from `@error(...)`).

mod support;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};
use support::fake_server::FakeServer;

use support::scratch::Scratch as Workspace;

impl Workspace {
    /// `ws/` (a git root, with `.squiggle.toml` naming the fake) plus a user
    /// config under `config/` that trusts it.
    fn new() -> Workspace {
        let ws = Workspace::bare();
        std::fs::create_dir_all(ws.root.join(".git")).unwrap_or_else(|e| panic!("mkdir: {e}"));
        ws.write(
            ".squiggle.toml",
            &FakeServer::new(json!({"diagnosticMode": "pull"})).toml("fake"),
        );
        let user = ws.config_home.join("squiggle/config.toml");
        std::fs::create_dir_all(user.parent().unwrap_or(&ws.outer))
            .unwrap_or_else(|e| panic!("mkdir: {e}"));
        std::fs::write(
            &user,
            format!("[lsp]\ntrustedWorkspaces = [\"{}\"]\n", ws.root.display()),
        )
        .unwrap_or_else(|e| panic!("write user config: {e}"));
        ws
    }

    fn path(&self, name: &str) -> String {
        self.root.join(name).display().to_string()
    }

    fn hook(&self, args: &[&str], stdin: &str) -> Output {
        self.hook_env(args, stdin, &[("SQUIGGLE_NO_DAEMON", "1")])
    }

    /// Runs `squiggle hook` with extra environment (the daemon tests give it
    /// a private runtime dir instead of forbidding the daemon).
    fn hook_env(&self, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
        let mut child = Command::new(env!("CARGO_BIN_EXE_squiggle"))
            .arg("hook")
            .args(args)
            .current_dir(&self.root)
            .env("XDG_CONFIG_HOME", &self.config_home)
            .env("HOME", &self.outer)
            .envs(env.iter().copied())
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn squiggle: {e}"));
        if let Some(mut input) = child.stdin.take() {
            input
                .write_all(stdin.as_bytes())
                .unwrap_or_else(|e| panic!("stdin: {e}"));
        }
        child
            .wait_with_output()
            .unwrap_or_else(|e| panic!("wait: {e}"))
    }

    /// Runs `squiggle hook` through the workspace's daemon, in a private
    /// runtime dir (started by the first such hook; see `daemon`).
    fn hook_daemon(&self, args: &[&str], stdin: &str) -> Output {
        let runtime = self.runtime_dir.display().to_string();
        let env = [
            ("XDG_RUNTIME_DIR", runtime.as_str()),
            ("SQUIGGLE_DAEMON_IDLE_MS", "60000"),
        ];
        self.hook_env(args, stdin, &env)
    }

    /// `squiggle daemon ARGS --root WS` against the private runtime dir.
    fn daemon(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_squiggle"))
            .arg("daemon")
            .args(args)
            .arg("--root")
            .arg(&self.root)
            .env("XDG_RUNTIME_DIR", &self.runtime_dir)
            .env("XDG_CONFIG_HOME", &self.config_home)
            .output()
            .unwrap_or_else(|e| panic!("squiggle daemon {args:?}: {e}"))
    }

    fn claude(&self, tool: &str, tool_input: Value) -> Value {
        json!({
            "session_id": "abc123",
            "transcript_path": self.outer.join("transcript.jsonl").display().to_string(),
            "cwd": self.root.display().to_string(),
            "permission_mode": "default",
            "hook_event_name": "PostToolUse",
            "tool_name": tool,
            "tool_input": tool_input,
            "tool_response": {"filePath": tool_input_path(&tool_input), "success": true},
            "tool_use_id": "toolu_01"
        })
    }
}

fn tool_input_path(input: &Value) -> Value {
    input.get("file_path").cloned().unwrap_or(Value::Null)
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
    let payload = ws.claude(
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
    let payload = ws.claude(
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
    let payload = ws.claude(
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
    let notebook = ws.claude(
        "NotebookEdit",
        json!({"notebook_path": ws.path("n.ipynb"), "new_source": "@error(x)", "cell_id": "c1"}),
    );
    let out = ws.hook(&["claude"], &notebook.to_string());
    silent(&out);
    assert_eq!(stderr(&out), "");
    let bash = ws.claude("Bash", json!({"command": "ls"}));
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
    let payload = ws.claude("Edit", json!({"file_path": ws.path("x.fk")}));
    let out = ws.hook(&["claude"], &payload.to_string());
    silent(&out);
    assert_contains(&stderr(&out), "squiggle hook: ");
    assert_contains(&stderr(&out), "noSuchKey");
}

#[test]
fn hooks_go_through_one_warm_daemon_and_reuse_its_servers() {
    let ws = Workspace::new();
    let file = ws.write("a.fk", "x @error(first)\n");
    let payload = ws.claude(
        "Edit",
        json!({"file_path": file.display().to_string(), "old_string": "a", "new_string": "b"}),
    );
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

/// `report = "new"` through the daemon's hook path (issue 14, item 8): the
/// hook remembers what it saw of a file, so an old error moved down by
/// inserted lines stays hidden and only the edit's new one shows.
#[test]
fn report_new_hides_old_errors_through_the_daemon() {
    let ws = Workspace::new();
    let config = std::fs::read_to_string(ws.root.join(".squiggle.toml")).unwrap_or_default();
    ws.write(
        ".squiggle.toml",
        &format!("[lsp]\nreport = \"new\"\n\n{config}"),
    );
    let file = ws.write("n.fk", "ok\nx @error(old one)\n");
    let payload = ws.claude(
        "Edit",
        json!({"file_path": file.display().to_string(), "old_string": "a", "new_string": "b"}),
    );
    // The first look at the file: nothing to compare with, all shown.
    let first = stdout(&ws.hook_daemon(&["claude"], &payload.to_string()));
    assert_contains(&first, "ERROR [2:3] old one");
    // Two lines inserted above the old error, one of them a new error.
    ws.write("n.fk", "ok\ny @error(new one)\nz\nx @error(old one)\n");
    let second = stdout(&ws.hook_daemon(&["claude"], &payload.to_string()));
    assert!(ws.daemon(&["stop"]).status.success(), "daemon stop failed");
    assert_contains(&second, "ERROR [2:3] new one");
    assert!(!second.contains("old one"), "{second}");
    assert_contains(&second, "from before this edit");
}

/// `report = "new"` on the first hook of a session (issue 14, item 8): with
/// no earlier look at the file, the baseline is git's version of it,
/// checked once, so the old error stays hidden from the first edit on.
#[test]
fn report_new_takes_a_first_touch_baseline_from_git() {
    let ws = Workspace::new();
    let config = std::fs::read_to_string(ws.root.join(".squiggle.toml")).unwrap_or_default();
    ws.write(
        ".squiggle.toml",
        &format!("[lsp]\nreport = \"new\"\n\n{config}"),
    );
    std::fs::remove_dir_all(ws.root.join(".git")).unwrap_or_else(|e| panic!("{e}"));
    let file = ws.write("n.fk", "ok\nx @error(old one)\n");
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t", "-C"])
            .arg(&ws.root)
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("git: {e}"));
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "n.fk"]);
    git(&["commit", "-qm", "old"]);
    // The agent's first edit: two lines above the committed error, one of
    // them a new error.
    ws.write("n.fk", "ok\ny @error(new one)\nz\nx @error(old one)\n");
    let payload = ws.claude(
        "Edit",
        json!({"file_path": file.display().to_string(), "old_string": "a", "new_string": "b"}),
    );
    let first = stdout(&ws.hook_daemon(&["claude"], &payload.to_string()));
    assert!(ws.daemon(&["stop"]).status.success(), "daemon stop failed");
    assert_contains(&first, "ERROR [2:3] new one");
    assert!(!first.contains("old one"), "{first}");
    assert_contains(&first, "from before this edit");
}

/// Session start (issue 14, item 6): the hook answers with nothing, and the
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
    let payload = ws.claude(
        "Edit",
        json!({"file_path": file.display().to_string(), "old_string": "a", "new_string": "b"}),
    );
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
