//! `squiggle mcp` over stdio, driven by the official `mcp` Python SDK
//! (`tests/mcp/client.py`) against real pyright and
//! typescript-language-server on the fixture projects in
//! `tests/fixtures/mcp`: tool listing with schemas and annotations, every
//! navigation tool with exact `path:line:col` answers, the honesty errors,
//! and one server process shared by `edit_file` and navigation.

mod mcp;

use std::path::Path;
use std::process::Command;

#[test]
fn python_sdk_client_calls_every_tool_against_real_servers() {
    let tools = mcp::tools();
    let Some(python) = mcp::require(tools.join("venv/bin/python"), "the Python mcp SDK") else {
        return;
    };
    let bin = tools.join("npm/node_modules/.bin");
    if mcp::require(bin.join("pyright-langserver"), "pyright").is_none()
        || mcp::require(
            bin.join("typescript-language-server"),
            "typescript-language-server",
        )
        .is_none()
    {
        return;
    }
    let fixture = mcp::Fixture::new();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    let output = Command::new(python)
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_squiggle"))
        .arg(&fixture.root)
        .env("PATH", mcp::path_with_tools())
        .env("XDG_CONFIG_HOME", &fixture.config_home)
        .output()
        .unwrap_or_else(|e| panic!("run python: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("all checks passed"),
        "client.py failed ({}):\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
}
