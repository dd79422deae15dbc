//! A clean file one of whose servers checked it is clean: with pyright
//! present and ruff missing, `lsp_diagnostics` (what MCP's tool of that
//! name answers) reports no diagnostics and names ruff in a note — never
//! "no server could check" (an MCP `isError`).

use squiggle::config::ServerOverride;
use squiggle::navigation::diagnostics::diagnostics;

use crate::support;
use crate::support::matrix::engine;
use crate::support::scratch::Scratch;

#[tokio::test]
async fn a_file_pyright_checked_is_clean_with_ruff_missing() {
    if support::require_program("pyright-langserver").is_none() {
        return;
    }
    let ws = Scratch::with_git_root();
    ws.write("main.py", "count: int = 1\n");
    let engine = engine(&ws.root, &[]);
    let mut config = engine.config().clone();
    config.servers.insert(
        "ruff".to_string(),
        ServerOverride {
            command: Some("squiggle-test-no-such-ruff".to_string()),
            ..ServerOverride::default()
        },
    );
    let engine = support::engine(&ws.root, config);
    let answer = diagnostics(&engine, Some("main.py")).await;
    engine.shutdown().await;
    let (result, text) = answer.unwrap_or_else(|e| panic!("an error for a clean file: {}", e.0));
    assert!(result.files.is_empty(), "{text}");
    assert!(text.starts_with("No diagnostics"), "{text}");
    assert!(
        result.notes.iter().any(|n| n.starts_with("ruff")),
        "the missing server is not named: {text}"
    );
}
