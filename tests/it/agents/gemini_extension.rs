//! The Gemini CLI extension in this repository (`plugins/gemini/`):
//! `gemini-extension.json` declares squiggle's MCP server, and
//! `hooks/hooks.json` (which Gemini CLI 0.61.0 loads from an extension's
//! directory) is what `squiggle init gemini` writes; a test holds them
//! equal. The real `gemini` installs it from the path with `--consent`
//! once the folder is trusted (without trust it asks, and headless that is
//! a refusal).

use std::path::Path;

use serde_json::{Value, json};

use crate::support::agents::{Project, require_agent};

fn extension_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("plugins/gemini")
}

fn json_file(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_extension_hooks_are_what_init_gemini_writes() {
    let project = Project::new();
    let out = project.squiggle(&["init", "gemini", "--print"]);
    assert!(out.status.success(), "{out:?}");
    let printed: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("init gemini --print: {e}"));
    let shipped = json_file(&extension_dir().join("hooks/hooks.json"));
    assert_eq!(shipped["hooks"], printed["hooks"]);
    let manifest = json_file(&extension_dir().join("gemini-extension.json"));
    assert_eq!(
        manifest["mcpServers"]["squiggle"],
        json!({"command": "squiggle", "args": ["mcp"]})
    );
}

#[test]
fn gemini_installs_the_extension_from_this_repository() {
    let Some(program) = require_agent("gemini") else {
        return;
    };
    let project = Project::new();
    let source = extension_dir();
    project.write_home(
        ".gemini/trustedFolders.json",
        &json!({ source.display().to_string(): "TRUST_FOLDER" }).to_string(),
    );
    let out = project
        .command(&program)
        .args(["extensions", "install"])
        .arg(&source)
        .arg("--consent")
        .env("GEMINI_TELEMETRY_ENABLED", "false")
        .output()
        .unwrap_or_else(|e| panic!("gemini extensions install: {e}"));
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("Extension \"squiggle\" installed successfully and enabled"),
        "{said}"
    );
    let installed = project.home.join(".gemini/extensions/squiggle");
    let hooks = json_file(&installed.join("hooks/hooks.json"));
    let command = &hooks["hooks"]["AfterTool"][0]["hooks"][0]["command"];
    assert_eq!(command, "squiggle hook gemini", "{hooks}");
    assert!(installed.join("gemini-extension.json").is_file());
}
