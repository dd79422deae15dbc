//! Golden tests for a status row's text (`engine::status_line::row_line`),
//! the one rendering `squiggle status`, `daemon status` and MCP's
//! `lsp_status` print. Each `golden/status/<case>.json` holds a list of
//! rows as `lsp/status` gives them and `<case>.txt` a line per row,
//! `<id>: <row line>`. `SQUIGGLE_BLESS=1 cargo test --test it
//! golden::status` rewrites the `.txt` files; read the diff first.

use std::path::Path;

use squiggle::engine::ServerStatus;
use squiggle::engine::status_line::row_line;

use super::check_cases;

fn render(input: &Path) -> String {
    let json = std::fs::read_to_string(input).unwrap();
    let rows: Vec<ServerStatus> = serde_json::from_str(&json)
        .unwrap_or_else(|e| panic!("{}: invalid rows: {e}", input.display()));
    rows.iter()
        .map(|row| format!("{}: {}\n", row.id, row_line(row)))
        .collect()
}

#[test]
fn golden_status() {
    check_cases("golden/status", render);
}
