//! Impact's bounds bite and the answer says so (`docs/protocol.md`,
//! "Impact"): a file of 32 exported symbols is asked about 30 of them and
//! the note names the 2 left; a symbol the server finds 201 uses of counts
//! them all and lists 200, marked truncated; a server slower than the time
//! bound leaves every symbol unanswered, each named in the notes. The
//! fake server answers the outline and the references.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use squiggle::config::Config;
use squiggle::engine::Engine;
use squiggle::impact::{Bounds, MAX_LISTED_USES, MAX_SYMBOLS, file_impact};

use crate::support;
use crate::support::fake_server::FakeServer;

/// `let sN = 1;` on each of the first `symbols` lines, then blank lines to
/// 210 in all (room for the uses).
fn text(symbols: usize) -> String {
    (0..210)
        .map(|i| {
            if i < symbols {
                format!("let s{i} = 1;\n")
            } else {
                "\n".to_string()
            }
        })
        .collect()
}

fn range(line: usize, from: usize, to: usize) -> Value {
    json!({"start": {"line": line, "character": from}, "end": {"line": line, "character": to}})
}

/// The fake answering the outline of `names` (one a line, from line 0) and,
/// after `delay_ms`, 201 references in `uri` (one a line, past the names).
fn script(uri: &str, names: &[String], delay_ms: u64) -> Value {
    let symbols: Vec<Value> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let end = 4 + name.len();
            json!({"name": name, "kind": 13, "range": range(i, 0, end + 4), "selectionRange": range(i, 4, end)})
        })
        .collect();
    let uses: Vec<Value> = (0..201)
        .map(|i| json!({"uri": uri, "range": range(i, 8, 9)}))
        .collect();
    json!({
        "diagnosticMode": "pull",
        "capabilities": {"documentSymbolProvider": true, "referencesProvider": true},
        "responses": {"textDocument/documentSymbol": symbols, "textDocument/references": uses},
        "requestDelayMs": {"textDocument/references": delay_ms},
    })
}

/// An engine over the fake (`script` of `a.fk` holding `symbols` names),
/// in a project whose directory the returned guard keeps.
fn engine(symbols: usize, delay_ms: u64) -> (tempfile::TempDir, Arc<Engine>) {
    let dir = support::project(&[("a.fk", &text(symbols))]);
    let file = dir.path().join("a.fk");
    let canonical = file.canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let uri = squiggle::uri::from_path(&canonical);
    let names: Vec<String> = (0..symbols).map(|i| format!("s{i}")).collect();
    let mut config = Config::default();
    config.servers.insert(
        "fake".into(),
        FakeServer::new(script(&uri, &names, delay_ms)).to_override(),
    );
    let engine = support::engine(dir.path(), config);
    (dir, engine)
}

#[tokio::test]
async fn at_most_30_symbols_and_200_listed_uses_and_the_rest_is_named() {
    let (_dir, engine) = engine(32, 0);
    let bounds = Bounds::for_engine(&engine);
    assert_eq!(bounds.time, engine.config().first_touch_timeout * 2);
    let (result, text) = file_impact(&engine, "a.fk", bounds)
        .await
        .unwrap_or_else(|e| panic!("impact: {e}"));
    assert_eq!(result.symbols.len(), MAX_SYMBOLS, "{text}");
    assert_eq!(
        result.notes,
        ["2 more symbol(s) not asked about: at most 30 per call"],
        "{text}"
    );
    let first = &result.symbols[0];
    assert_eq!(first.name, "s0");
    assert_eq!(first.uses, 201, "every use counted");
    assert_eq!(first.files[0].lines.len(), MAX_LISTED_USES, "200 listed");
    assert!(first.truncated, "{text}");
    engine.shutdown().await;
}

#[tokio::test]
async fn a_server_slower_than_the_time_bound_leaves_each_symbol_named_as_cut() {
    let (_dir, engine) = engine(3, 30_000);
    // The outline first, so that the bound is spent on the references.
    squiggle::navigation::document_symbols(&engine, "a.fk", usize::MAX)
        .await
        .unwrap_or_else(|e| panic!("outline: {e}"));
    let bounds = Bounds {
        time: Duration::from_millis(500),
        symbols: MAX_SYMBOLS,
    };
    let (result, text) = file_impact(&engine, "a.fk", bounds)
        .await
        .unwrap_or_else(|e| panic!("impact: {e}"));
    assert!(result.symbols.is_empty(), "{text}");
    // The first symbol waits out the bound; the others are not asked. On
    // a machine slow enough to spend the bound on the outline, all three
    // are named in the second form.
    let expected = [
        "s0: no answer within the time bound (500 ms)",
        "the time bound (500 ms) ran out before s1, s2",
    ];
    let slow = ["the time bound (500 ms) ran out before s0, s1, s2"];
    assert!(
        result.notes == expected || result.notes == slow,
        "{:?}\n{text}",
        result.notes
    );
    // The text says nothing was answered, not that nothing was found.
    assert!(
        text.starts_with("No symbol's uses are known: see the notes below.\n"),
        "{text}"
    );
    for note in &result.notes {
        assert!(text.contains(&format!("note: {note}")), "{text}");
    }
    engine.shutdown().await;
}
