//! MCP resources over stdio, driven by the official `mcp` Python SDK
//! (`tests/mcp/resources.py`) against a workspace whose `.fk` files are
//! served by the scripted fake server (pull mode, `@error(...)` markers):
//! the resource and template listings, reads of one file and of every known
//! file, and a subscription that announces the change an `edit_file` call
//! makes.

mod support;

mod mcp;

use serde_json::json;
use std::path::Path;
use std::process::Command;
use support::fake_server::FakeServer;

#[test]
fn python_sdk_reads_and_subscribes_to_diagnostics_resources() {
    let Some(python) = mcp::require(mcp::tools().join("venv/bin/python"), "the Python mcp SDK")
    else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let outer = tmp
        .path()
        .canonicalize()
        .unwrap_or_else(|e| panic!("canonicalize: {e}"));
    let root = outer.join("ws");
    let config_home = outer.join("xdg");
    for dir in [root.join(".git"), config_home.clone()] {
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("mkdir: {e}"));
    }
    std::fs::write(
        root.join(".squiggle.toml"),
        FakeServer::new(json!({"diagnosticMode": "pull"})).toml("fake"),
    )
    .unwrap_or_else(|e| panic!("write config: {e}"));
    std::fs::write(root.join("a.fk"), "line one @error(first)\nok\n")
        .unwrap_or_else(|e| panic!("write a.fk: {e}"));

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/resources.py");
    let output = Command::new(python)
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_squiggle"))
        .arg(&root)
        .env("XDG_CONFIG_HOME", &config_home)
        .env("HOME", &outer)
        .env_remove("RUST_LOG")
        .output()
        .unwrap_or_else(|e| panic!("run python: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("all checks passed"),
        "resources.py failed ({}):\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
}
