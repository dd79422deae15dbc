//! Hostile input and a new user's path ("nothing false, nothing lost"):
//! every hostile input that is not the hook's has a test here that failed
//! before its fix, through the real binary and, where the
//! finding was the daemon's, through a running daemon.
//!
//! `files`: file names, file types, line endings, byte order marks and
//! permissions. `config`: every number range-checked
//!. `replies`: what the model and the user read — a server
//! that could not run, hook stderr, control characters, long messages, an
//! impossible frame. `new_user`: the path a new user
//! follows — install hints that agree (19). The kit below is what they share: a scratch
//! workspace whose user configuration serves `.fk` files with the fake
//! server (so no `--trust-workspace` is needed, and the daemon is the
//! plain one), and runs bounded so that a hang is a failure, not a stuck
//! test run.

mod config;
mod files;
mod new_user;
mod new_user_edges;
mod pipes;
mod replies;
mod turns;

use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::fake_server::FakeServer;
use crate::support::scratch::{Scratch, write_under};

/// A workspace whose user configuration holds `[lsp]` lines `lsp` and the
/// fake (running `script`) for `.fk` files.
pub fn workspace(lsp: &str, script: Value) -> Scratch {
    let ws = Scratch::with_git_root();
    let config = format!("[lsp]\n{lsp}\n\n{}", FakeServer::new(script).toml("fake"));
    write_under(&ws.config_home, "squiggle/config.toml", config.as_bytes());
    ws
}

/// The fake in pull mode, answering at once.
pub fn pull() -> Value {
    json!({"diagnosticMode": "pull"})
}

/// Longer than any of these runs takes on a loaded machine: reaching it
/// means the command hung.
pub const HANG: Duration = Duration::from_secs(60);

/// Runs `command` with `stdin`, killing it (and failing the test) if it has
/// not ended within [`HANG`]. Its output is read as it comes (a child
/// blocked on a full pipe is not a hang of its own).
pub fn bounded(command: &mut Command, stdin: &[u8]) -> Output {
    start(command, stdin).finish()
}

/// A command [`start`]ed, its output being read on a thread of its own.
pub struct Running {
    shown: String,
    pid: u32,
    output: std::sync::mpsc::Receiver<std::io::Result<Output>>,
}

/// Starts `command` with `stdin`: [`bounded`] without the wait, so that
/// parallel runs are all started from one thread (under qemu-user, a fork
/// from one of several threads forking at once has been seen never to
/// reach exec).
pub fn start(command: &mut Command, stdin: &[u8]) -> Running {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {:?}: {e}", command.get_program()));
    if let Some(mut input) = child.stdin.take() {
        let _ = input.write_all(stdin);
    }
    let pid = child.id();
    let (tx, output) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    Running {
        shown: format!("{command:?}"),
        pid,
        output,
    }
}

impl Running {
    /// Its output, once it ended; killed (failing the test) if it has not
    /// ended within [`HANG`] from now.
    pub fn finish(self) -> Output {
        match self.output.recv_timeout(HANG) {
            Ok(out) => out.unwrap_or_else(|e| panic!("wait for {}: {e}", self.shown)),
            Err(_) => {
                crate::support::process::kill(self.pid);
                panic!("{} hung", self.shown);
            }
        }
    }
}

/// `squiggle ARGS…` in `ws` (through its daemon unless `SQUIGGLE_NO_DAEMON`
/// is given in `env`), bounded, with `stdin`.
pub fn squiggle(ws: &Scratch, args: &[&str], env: &[(&str, &str)], stdin: &[u8]) -> Output {
    let mut command = ws.command(args);
    command
        .env_remove("RUST_LOG")
        .env_remove("SQUIGGLE_NO_DAEMON")
        .envs(env.iter().copied());
    bounded(&mut command, stdin)
}

/// Runs in this process rather than the daemon.
pub const IN_PROCESS: &[(&str, &str)] = &[("SQUIGGLE_NO_DAEMON", "1")];

/// stdout as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// stderr as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `squiggle daemon stop` for `ws`; it must work.
pub fn stop_daemon(ws: &Scratch) {
    let out = ws.command(&["daemon", "stop"]).output();
    let out = out.unwrap_or_else(|e| panic!("daemon stop: {e}"));
    assert!(
        out.status.success(),
        "daemon stop: {}",
        crate::support::both(&out)
    );
}

/// The context a hook reply (`{"hookSpecificOutput": …}`) carries; the
/// hook must have exited 0.
pub fn hook_context(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(0), "{}", crate::support::both(out));
    let reply: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("hook reply is not JSON ({e}): {}", stdout(out)));
    let text = reply["hookSpecificOutput"]["additionalContext"].as_str();
    text.unwrap_or_else(|| panic!("no context in {reply}"))
        .to_string()
}

/// Claude Code's `PostToolUse` event after an `Edit` of `name` in `ws`.
pub fn claude_edit(ws: &Scratch, name: &str) -> Vec<u8> {
    let file = ws.root.join(name).display().to_string();
    let input = json!({"file_path": file, "old_string": "a", "new_string": "b"});
    ws.claude_event("Edit", input).to_string().into_bytes()
}
