//! "What was there before", through every surface: the hook prints the daemon's own rendering;
//! the hook and the wrapped tools give one answer for one change; four
//! agents' hooks on one file each report the file they were called for; and
//! nothing reported comes from an earlier look — a file gone from disk is in
//! no report, and another file's errors are those of the text on disk now.
//!
//! The kit below runs the real binary through a workspace's daemon (in the
//! scratch's private runtime dir), fed Claude Code's payloads as Claude Code
//! 2.1 sends them: the edit is on disk first, and `tool_response` carries
//! `originalFile` (and, for `Write`, `type`).

mod first_edit;
mod one_answer;
mod stale;
mod whole_change;

use std::process::Output;

use serde_json::{Value, json};

use crate::support::fake_server::{FakeServer, squiggle_toml};
use crate::support::scratch::{Scratch, scratch_type};
use crate::support::{both, output_with_stdin};

scratch_type!(Ws);

impl Ws {
    /// A git root served by the fake (pull mode) with `lsp` in `[lsp]`,
    /// trusted by the user config.
    fn fake(lsp: &str) -> Ws {
        let ws = Ws(Scratch::with_git_root());
        let fake = FakeServer::new(json!({"diagnosticMode": "pull"}));
        ws.write(".squiggle.toml", &squiggle_toml(lsp, &fake));
        ws.trust();
        ws
    }

    /// `ws` as it is (a real project), with the daemon's budgets for a
    /// loaded machine.
    fn real(ws: Scratch) -> Ws {
        ws.write(
            ".squiggle.toml",
            "[lsp]\nfirstTouchTimeout = 40000\ndiagnosticTimeout = 20000\n",
        );
        Ws(ws)
    }

    /// `squiggle ARGS` through the workspace's daemon, `stdin` on its input.
    fn run(&self, args: &[&str], stdin: &str) -> Output {
        let mut command = self.command(args);
        command
            .env("HOME", &self.home)
            .env("SQUIGGLE_DAEMON_IDLE_MS", "120000")
            .env_remove("SQUIGGLE_NO_DAEMON")
            .env_remove("RUST_LOG");
        output_with_stdin(&mut command, stdin)
    }

    /// `squiggle hook AGENT` with `payload`; the hook's `additionalContext`,
    /// or `""` when it printed nothing.
    fn hook(&self, agent: &str, payload: &Value) -> String {
        let out = self.run(&["hook", agent], &payload.to_string());
        assert_eq!(out.status.code(), Some(0), "{}", both(&out));
        let stdout = String::from_utf8_lossy(&out.stdout);
        if stdout.trim().is_empty() {
            return String::new();
        }
        let reply: Value = serde_json::from_str(stdout.trim())
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", both(&out)));
        reply["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap_or_else(|| panic!("no additionalContext: {reply}"))
            .to_string()
    }

    /// A wrapped tool (`edit …`, `write …`) through the daemon with
    /// `--json`; its rendered `feedback`.
    fn wrapped(&self, args: &[&str], stdin: &str) -> String {
        let mut all = args.to_vec();
        all.push("--json");
        let out = self.run(&all, stdin);
        assert_eq!(out.status.code(), Some(0), "{}", both(&out));
        let result: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", both(&out)));
        result["feedback"].as_str().unwrap_or_default().to_string()
    }

    /// Stops the workspace's daemon (every test ends with it).
    fn stop(&self) {
        let _ = self.daemon(&["stop"]);
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.root.join(name)).unwrap_or_default()
    }

    /// Claude Code's `Edit` of `name`: `old` replaced by `new` on disk, then
    /// the PostToolUse payload it sends.
    fn claude_edit(&self, name: &str, old: &str, new: &str) -> Value {
        let original = self.read(name);
        assert_eq!(original.matches(old).count(), 1, "{old:?} in {original:?}");
        self.write(name, &original.replacen(old, new, 1));
        let path = self.root.join(name).display().to_string();
        let mut event = self.claude_event(
            "Edit",
            json!({"file_path": path, "old_string": old, "new_string": new, "replace_all": false}),
        );
        event["tool_response"] = json!({"filePath": path, "oldString": old, "newString": new,
            "originalFile": original, "structuredPatch": [], "userModified": false,
            "replaceAll": false});
        event
    }

    /// Claude Code's `Write` of `name`: `content` on disk, then its payload.
    fn claude_write(&self, name: &str, content: &str) -> Value {
        let file = self.root.join(name);
        let original = std::fs::read_to_string(&file).ok();
        self.write(name, content);
        let path = file.display().to_string();
        let mut event = self.claude_event("Write", json!({"file_path": path, "content": content}));
        event["tool_response"] = json!({
            "type": if original.is_some() { "update" } else { "create" },
            "filePath": path, "content": content, "structuredPatch": [],
            "originalFile": original});
        event
    }
}

/// The body of `file`'s block in rendered feedback, if it has one.
fn block<'a>(text: &'a str, file: &str) -> Option<&'a str> {
    let open = format!("<diagnostics file=\"{file}\">\n");
    let start = text.find(&open)? + open.len();
    let body = &text[start..];
    Some(&body[..body.find("</diagnostics>")?])
}
