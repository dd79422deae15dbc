//! LSP 3.18 snippet edits (`snippet` with `$1`-style placeholders) are
//! never written: squiggle does not advertise `snippetEditSupport`, and a
//! server that sends one anyway gets no fix line for it, and a fix whose
//! resolved edit holds one is refused with the file left as it was.

use std::time::Duration;

use serde_json::{Value, json};
use squiggle::config::Config;
use squiggle::engine::fixes::Which;
use squiggle::engine::tools::Mode;

use crate::support;
use crate::support::fake_server::FakeServer;

const BROKEN: &str = "Edit applied successfully.\n\nLSP errors detected in this file, please fix:\n<diagnostics file=\"a.fk\">\nERROR [1:9] missing thing\n</diagnostics>";

/// A snippet edit over `[1:9]` of `file`, and a plain one beside it.
fn edits(file: &std::path::Path) -> Value {
    let canonical = file.canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let range = |c1: u32, c2: u32| json!({"start": {"line": 0, "character": c1}, "end": {"line": 0, "character": c2}});
    json!({"changes": {squiggle::uri::from_path(&canonical): [
        {"range": range(0, 3), "newText": "var"},
        {"range": range(8, 29), "snippet": {"kind": "snippet", "value": "thing(${1:x})"}},
    ]}})
}

/// An engine over one fake server answering code actions with `action`
/// (and `codeAction/resolve` with `resolved`), fix lines waited for.
fn engine_offering(
    root: &std::path::Path,
    action: Value,
    resolved: Option<Value>,
) -> std::sync::Arc<squiggle::engine::Engine> {
    let mut provider = json!({"codeActionKinds": ["quickfix"]});
    let mut responses = json!({"textDocument/codeAction": [action]});
    if let Some(resolved) = resolved {
        provider["resolveProvider"] = json!(true);
        responses["codeAction/resolve"] = resolved;
    }
    let script = json!({"capabilities": {"codeActionProvider": provider}, "responses": responses});
    let mut config = Config {
        diagnostic_timeout: Duration::from_secs(60),
        fix_wait: Duration::from_secs(60),
        ..Config::default()
    };
    config
        .servers
        .insert("fake-a".into(), FakeServer::new(script).to_override());
    support::engine(root, config)
}

async fn fix_refused(
    engine: &std::sync::Arc<squiggle::engine::Engine>,
    file: &std::path::Path,
) -> String {
    let which = Which::At {
        line: 1,
        column: None,
    };
    match engine.fix(file, &which, Mode::Apply).await {
        Ok(done) => panic!("a snippet fix was applied: {}", done.text()),
        Err(e) => e.to_string(),
    }
}

#[tokio::test]
async fn a_snippet_fix_gets_no_line_and_is_never_applied() {
    let dir = support::project(&[("a.fk", "let x = 1;\n")]);
    let file = dir.path().join("a.fk");
    let action = json!({"title": "Call thing", "kind": "quickfix", "isPreferred": true, "edit": edits(&file)});
    let engine = engine_offering(dir.path(), action, None);

    let result = support::edit_applied(&engine, &file, "1;", "@error(missing thing);").await;
    assert_eq!(result.text(), BROKEN);
    let refused = fix_refused(&engine, &file).await;
    assert!(refused.contains("nothing was written"), "{refused}");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap_or_default(),
        "let x = @error(missing thing);\n"
    );
    engine.shutdown().await;
}

#[tokio::test]
async fn a_fix_resolved_to_a_snippet_is_refused_and_writes_nothing() {
    let dir = support::project(&[("a.fk", "let x = 1;\n")]);
    let file = dir.path().join("a.fk");
    let action =
        json!({"title": "Call thing", "kind": "quickfix", "isPreferred": true, "data": {"id": 1}});
    let resolved = json!({"title": "Call thing", "kind": "quickfix", "edit": edits(&file)});
    let engine = engine_offering(dir.path(), action, Some(resolved));

    let result = support::edit_applied(&engine, &file, "1;", "@error(missing thing);").await;
    assert!(
        result.text().contains("  fix: Call thing\n"),
        "{}",
        result.text()
    );
    let refused = fix_refused(&engine, &file).await;
    assert!(refused.contains("snippet edit"), "{refused}");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap_or_default(),
        "let x = @error(missing thing);\n"
    );
    engine.shutdown().await;
}
