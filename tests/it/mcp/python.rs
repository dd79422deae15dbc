//! `squiggle mcp` over stdio, driven by the official `mcp` Python SDK
//! (`tests/clients/python/client.py`) against real pyright and
//! typescript-language-server on the fixture projects in
//! `tests/fixtures/mcp`: tool listing with schemas and annotations, every
//! navigation tool with exact `path:line:col` answers, the honesty errors,
//! and one server process shared by `edit_file` and navigation.

use crate::support::mcp;

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
    let mut command = mcp::sdk_script(&python, "client.py", &fixture.root, &fixture.config_home);
    command.env("PATH", mcp::path_with_tools());
    mcp::passes(command, "client.py");
}

/// The workflow prompts through the Python SDK: listed,
/// each got with its arguments, every tool each names listed by the same
/// session; a session without write tools lists only what it can do.
#[test]
fn python_sdk_client_lists_and_gets_the_workflow_prompts() {
    let tools = mcp::tools();
    let Some(python) = mcp::require(tools.join("venv/bin/python"), "the Python mcp SDK") else {
        return;
    };
    let ws = crate::support::scratch::Scratch::bare();
    let command = mcp::sdk_script(&python, "prompts.py", &ws.root, &ws.config_home);
    mcp::passes(command, "prompts.py");
}
