//! The Claude Code plugin in this repository (`.claude-plugin/marketplace.json`,
//! `plugins/squiggle/`), installed by the real `claude` CLI into a private
//! `HOME`: claude must list the plugin enabled with its `PostToolUse` hook and
//! its MCP server, and the hook command it installed, run the way Claude Code
//! runs it (through a shell, `squiggle` found on PATH), must hand back
//! pyright's error for a Python file with a type error.
//!
//! claude is taken from `SQUIGGLE_CLAUDE`, else the project's install
//! (`.tools/agents/node_modules/.bin/claude`), else PATH. It runs cut off from
//! the network: telemetry and update checks are disabled and every proxy
//! points at a closed loopback port.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use crate::support;
use crate::support::scratch::Scratch;

fn find_claude() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("SQUIGGLE_CLAUDE") {
        return Some(PathBuf::from(path));
    }
    let root = std::env::var_os("SQUIGGLE_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    let local = root.join(".tools/agents/node_modules/.bin/claude");
    if local.is_file() {
        return Some(local);
    }
    support::require_program("claude")
}

/// A private home, a workspace (a git root) and a runtime dir: the scratch
/// workspace, whose daemon is stopped when it goes.
struct Sandbox {
    scratch: Scratch,
}

impl Sandbox {
    fn new() -> Sandbox {
        let scratch = Scratch::with_git_root();
        // A cold pyright on a loaded machine: generous first-check budgets.
        scratch.write_home(
            ".config/squiggle/config.toml",
            "[lsp]\nfirstTouchTimeout = 60000\ndiagnosticTimeout = 20000\n",
        );
        Sandbox { scratch }
    }

    /// The environment both claude and the hook run in.
    fn env(&self, cmd: &mut Command) {
        let squiggle_dir = Path::new(env!("CARGO_BIN_EXE_squiggle"))
            .parent()
            .unwrap_or(Path::new("."))
            .to_path_buf();
        let path = std::env::var_os("PATH").unwrap_or_default();
        let path =
            std::env::join_paths(std::iter::once(squiggle_dir).chain(std::env::split_paths(&path)))
                .unwrap_or_else(|e| panic!("PATH: {e}"));
        cmd.current_dir(&self.scratch.root)
            .env("PATH", path)
            .env("HOME", &self.scratch.home)
            .env("XDG_CONFIG_HOME", self.scratch.home.join(".config"))
            .env("XDG_RUNTIME_DIR", &self.scratch.runtime_dir)
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("RUST_LOG")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
        for proxy in ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"] {
            cmd.env(proxy, "http://127.0.0.1:9");
        }
        cmd.env("NO_PROXY", "").env("no_proxy", "");
    }

    fn claude(&self, claude: &Path, args: &[&str]) -> String {
        let mut cmd = Command::new(claude);
        cmd.args(args).stdin(Stdio::null());
        self.env(&mut cmd);
        let out = cmd
            .output()
            .unwrap_or_else(|e| panic!("run {}: {e}", claude.display()));
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "claude {args:?} failed:\n{text}");
        text
    }

    /// Runs a hook command as Claude Code does: `sh -c`, the event on stdin.
    fn run_hook(&self, command: &str, event: &Value) -> Output {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", command]);
        self.env(&mut cmd);
        support::output_with_stdin(&mut cmd, event.to_string())
    }
}

/// Stops the daemon the hook started, whatever the test's outcome.
impl Drop for Sandbox {
    fn drop(&mut self) {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_squiggle"));
        cmd.args(["daemon", "stop", "--root"])
            .arg(&self.scratch.root);
        self.env(&mut cmd);
        let _ = cmd.output();
    }
}

fn read_json(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// Where claude copied the plugin, from its `installed_plugins.json`.
fn install_path(home: &Path) -> PathBuf {
    let index = read_json(&home.join(".claude/plugins/installed_plugins.json"));
    let entry = &index["plugins"]["squiggle@squiggle"];
    let entry = entry.get(0).unwrap_or(entry);
    let path = entry["installPath"]
        .as_str()
        .unwrap_or_else(|| panic!("no installPath for squiggle@squiggle in {index:#}"));
    PathBuf::from(path)
}

/// The command of the installed `PostToolUse` hook whose matcher names `Edit`.
fn edit_hook_command(hooks: &Value) -> String {
    let groups = hooks["hooks"]["PostToolUse"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    groups
        .iter()
        .filter(|g| {
            g["matcher"]
                .as_str()
                .is_some_and(|m| m.split('|').any(|t| t == "Edit"))
        })
        .flat_map(|g| g["hooks"].as_array().cloned().unwrap_or_default())
        .find_map(|h| h["command"].as_str().map(str::to_string))
        .unwrap_or_else(|| panic!("no PostToolUse hook for Edit in {hooks:#}"))
}

#[test]
fn claude_installs_the_plugin_and_its_hook_reports_pyright_errors() {
    let Some(claude) = find_claude() else { return };
    if support::require_program("pyright-langserver").is_none() {
        return;
    }
    let sb = Sandbox::new();
    let repo = env!("CARGO_MANIFEST_DIR");

    let added = sb.claude(&claude, &["plugin", "marketplace", "add", repo]);
    assert!(added.contains("squiggle"), "marketplace add:\n{added}");
    let installed = sb.claude(&claude, &["plugin", "install", "squiggle@squiggle"]);
    assert!(
        installed.contains("squiggle@squiggle"),
        "plugin install:\n{installed}"
    );
    let listed = sb.claude(&claude, &["plugin", "list"]);
    assert!(
        listed.contains("squiggle@squiggle") && listed.contains("enabled"),
        "plugin list:\n{listed}"
    );
    let details = sb.claude(&claude, &["plugin", "details", "squiggle@squiggle"]);
    // What docs/install.md says `claude plugin details` shows (it
    // once said one hook while the plugin has three).
    for part in documented_details() {
        assert!(
            details.contains(&part),
            "plugin details do not show {part:?}, which docs/install.md says they do:\n{details}"
        );
    }

    // The copy claude installed, not the repository's files, is what runs.
    let dir = install_path(&sb.scratch.home);
    let dir_s = dir.display().to_string();
    let validated = sb.claude(&claude, &["plugin", "validate", &dir_s]);
    assert!(
        validated.contains("PostToolUse Write|Edit|Bash command \"squiggle hook claude\""),
        "claude does not read the installed hook:\n{validated}"
    );
    let command = edit_hook_command(&read_json(&dir.join("hooks/hooks.json")));
    let mcp = read_json(&dir.join(".mcp.json"));
    assert_eq!(
        mcp["mcpServers"]["squiggle"],
        json!({"command": "squiggle", "args": ["mcp"]})
    );

    let file = sb.scratch.write(
        "app.py",
        "def greet(name: str) -> str:\n    return name\n\n\ngreet(42)\n",
    );
    let event = sb.scratch.claude_event(
        "Edit",
        json!({"file_path": file.display().to_string(), "old_string": "greet(\"a\")", "new_string": "greet(42)", "replace_all": false}),
    );
    let out = sb.run_hook(&command, &event);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "hook `{command}` failed:\n{stdout}\n{stderr}"
    );
    let reply: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("hook reply is not JSON ({e}):\n{stdout}\n{stderr}"));
    let context = reply["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_default();
    assert!(
        context.contains("<diagnostics file=\"app.py\">") && context.contains("ERROR [5:"),
        "the installed hook did not report pyright's error:\n{stdout}\n{stderr}"
    );
}

/// The parts of `claude plugin details squiggle@squiggle`'s output that
/// docs/install.md names in the comment after that command (`# Hooks (3):
/// PostToolUse, …; MCP servers (1): squiggle`): each heading and its list.
fn documented_details() -> Vec<String> {
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/install.md");
    let text = std::fs::read_to_string(&doc).unwrap_or_else(|e| panic!("{e}"));
    let comment = text
        .lines()
        .find(|l| l.starts_with("claude plugin details squiggle@squiggle"))
        .and_then(|l| l.split_once('#'))
        .map(|(_, comment)| comment.trim().to_string())
        .unwrap_or_else(|| panic!("docs/install.md shows no `claude plugin details` line"));
    let parts: Vec<String> = comment
        .split("; ")
        .flat_map(|part| part.split(": "))
        .map(str::to_string)
        .collect();
    assert!(parts.len() >= 4, "docs/install.md: {comment}");
    parts
}
