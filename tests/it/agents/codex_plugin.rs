//! The Codex plugin in this repository: `plugins/squiggle/` carries a
//! `.codex-plugin/plugin.json` beside Claude Code's manifest, naming
//! `hooks/codex.json` (what `squiggle init codex` writes, a test holds them
//! equal) and the MCP server in `.mcp.json`. The real `codex` 0.169.0 adds
//! this repository as a marketplace (it reads `.claude-plugin/
//! marketplace.json`), installs the plugin, and lists it enabled; the
//! installed copy keeps the Codex manifest and hooks.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::agents::{Project, require_agent};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn json(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `codex ARGS` with the project's private home as `CODEX_HOME`'s parent;
/// its stdout and stderr, after asserting success.
fn codex(project: &Project, program: &Path, args: &[&str]) -> String {
    let out = project
        .command(program)
        .args(args)
        .env("CODEX_HOME", project.home.join(".codex"))
        .env("CODEX_DISABLE_TELEMETRY", "1")
        .output()
        .unwrap_or_else(|e| panic!("codex {args:?}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "codex {args:?} failed:\n{text}");
    text
}

#[test]
fn the_codex_hooks_are_what_init_codex_writes() {
    let project = Project::new();
    let out = project.squiggle(&["init", "codex", "--print"]);
    assert!(out.status.success(), "{out:?}");
    let printed: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("init codex --print: {e}"));
    let shipped = json(&repo().join("plugins/squiggle/hooks/codex.json"));
    assert_eq!(shipped["hooks"], printed["hooks"]);
    let manifest = json(&repo().join("plugins/squiggle/.codex-plugin/plugin.json"));
    assert_eq!(manifest["hooks"], "./hooks/codex.json");
    assert_eq!(manifest["mcpServers"], "./.mcp.json");
}

#[test]
fn codex_installs_the_plugin_from_this_repository() {
    let Some(program) = require_agent("codex") else {
        return;
    };
    let project = Project::new();
    std::fs::create_dir_all(project.home.join(".codex"))
        .unwrap_or_else(|e| panic!("mkdir .codex: {e}"));
    let repo = repo().display().to_string();
    let added = codex(&project, &program, &["plugin", "marketplace", "add", &repo]);
    assert!(added.contains("Added marketplace `squiggle`"), "{added}");
    let installed = codex(&project, &program, &["plugin", "add", "squiggle@squiggle"]);
    assert!(installed.contains("Added plugin `squiggle`"), "{installed}");
    let listed = codex(&project, &program, &["plugin", "list"]);
    assert!(
        listed
            .lines()
            .any(|l| l.starts_with("squiggle@squiggle") && l.contains("installed, enabled")),
        "{listed}"
    );
    let root: PathBuf = project
        .home
        .join(".codex/plugins/cache/squiggle/squiggle/0.1.0");
    let manifest = json(&root.join(".codex-plugin/plugin.json"));
    let hooks = json(&root.join(manifest["hooks"].as_str().unwrap_or("missing")));
    let command = &hooks["hooks"]["PostToolUse"][0]["hooks"][0]["command"];
    assert_eq!(command, "squiggle hook codex", "{hooks}");
}
