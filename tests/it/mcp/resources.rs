//! MCP resources over stdio, driven by the official `mcp` Python SDK
//! (`tests/clients/python/resources.py`) against a workspace whose `.fk`
//! files are served by the scripted fake server (pull mode, `@error(...)`
//! markers): the resource and template listings, reads of one file and of
//! every known file, and a subscription that announces the change an
//! `edit_file` call makes, then one made on disk.

use serde_json::json;

use crate::support::fake_server::FakeServer;
use crate::support::mcp;
use crate::support::scratch::Scratch;

#[test]
fn python_sdk_reads_and_subscribes_to_diagnostics_resources() {
    let Some(python) = mcp::require(mcp::tools().join("venv/bin/python"), "the Python mcp SDK")
    else {
        return;
    };
    let ws = Scratch::with_git_root();
    ws.write(
        ".squiggle.toml",
        &FakeServer::new(json!({"diagnosticMode": "pull"})).toml("fake"),
    );
    ws.write("a.fk", "line one @error(first)\nok\n");
    let mut command = mcp::sdk_script(&python, "resources.py", &ws.root, &ws.config_home);
    command.env("HOME", &ws.outer).env_remove("RUST_LOG");
    mcp::passes(command, "resources.py");
}
