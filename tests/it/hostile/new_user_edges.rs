//! More of the path a new user follows through the docs: `status` after
//! `lsp = false` under a running daemon, and `impact`'s paths in each mode.

use serde_json::json;

use super::{IN_PROCESS, squiggle, stdout, stop_daemon, workspace};
use crate::support::both;

/// A server stopped for a configuration change that turned squiggle off
/// was listed as "stopped … starts again on demand"; it does not start
/// again while `lsp = false` holds: the row says `disabled`.
#[test]
fn status_under_lsp_false_does_not_promise_a_start() {
    let ws = workspace("", json!({"diagnosticMode": "pull"}));
    ws.write("a.fk", "@error(seen)\n");
    let out = squiggle(&ws, &["check", "a.fk"], &[], b"");
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    ws.write(".squiggle.toml", "lsp = false\n");
    let out = squiggle(&ws, &["check", "a.fk"], &[], b"");
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let out = squiggle(&ws, &["status"], &[], b"");
    let text = stdout(&out);
    stop_daemon(&ws);
    let row = text
        .lines()
        .find(|l| l.starts_with("fake "))
        .unwrap_or_default();
    assert!(row.contains(" disabled "), "{text}");
    assert!(!text.contains("starts again on demand"), "{text}");
}

/// `impact FILE` and `impact FILE --symbol A.b` named the declaration by
/// its absolute path, `impact --stdin` (a diff) by the workspace-relative
/// one; every mode names it relative now.
#[test]
fn impact_names_files_relative_in_every_mode() {
    let symbol = |name: &str, line: u32| {
        let range =
            json!({"start": {"line": line, "character": 0}, "end": {"line": line, "character": 5}});
        json!({"name": name, "kind": 5, "range": range, "selectionRange": range, "children": [
            {"name": "b", "kind": 6, "range": range, "selectionRange": range}
        ]})
    };
    let script = json!({
        "diagnosticMode": "pull",
        "capabilities": {"documentSymbolProvider": true, "referencesProvider": true},
        "responses": {"textDocument/documentSymbol": [symbol("A", 0)], "textDocument/references": []},
    });
    let ws = workspace("", script);
    ws.write("sub/a.fk", "A b\n");
    for args in [
        &["impact", "sub/a.fk", "--json"][..],
        &["impact", "sub/a.fk", "--symbol", "A.b", "--json"],
    ] {
        let out = squiggle(&ws, args, IN_PROCESS, b"");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", both(&out));
        let answer: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", both(&out)));
        let declared = answer["symbols"][0]["declared"]
            .as_str()
            .unwrap_or_default();
        assert!(declared.starts_with("sub/a.fk:1:"), "{args:?}: {answer:#}");
    }
}
