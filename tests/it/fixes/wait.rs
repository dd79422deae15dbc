//! A fix line never delays the reply: a fix lookup not done when the
//! diagnostics are ready (and `fixWaitMs` after) is dropped — its request
//! cancelled — and its line left out of that reply, while `Engine::fix`
//! (behind `squiggle fix` and MCP `lsp_apply_fix`) looks the fix up again
//! with a check's whole deadline and applies it.

use std::time::Duration;

use serde_json::json;
use squiggle::config::Config;
use squiggle::engine::fixes::Which;

use super::auto::fake_with_fix;
use super::fixed;
use crate::support;
use crate::support::fake_server::{FakeServer, logged};

#[tokio::test]
async fn a_late_fix_lookup_is_left_out_of_the_reply_and_the_fix_still_applies() {
    let dir = support::project(&[("a.fk", "let x = 1;\n")]);
    let file = dir.path().join("a.fk");
    let log = dir.path().join("fake.log");
    let mut script = fake_with_fix(&file, [0, 8, 0, 29], "2", "Fill in the thing");
    // Code actions answer seconds after the diagnostics, well inside the
    // check's deadline: a reply that waited for them would show the line.
    script["requestDelayMs"] = json!({"textDocument/codeAction": 3000});
    script["logFile"] = json!(log);
    let mut config = Config {
        diagnostic_timeout: Duration::from_secs(60),
        ..Config::default()
    };
    config
        .servers
        .insert("fake-a".into(), FakeServer::new(script).to_override());
    let engine = support::engine(dir.path(), config);

    let result = support::edit_applied(&engine, &file, "1;", "@error(missing thing);").await;
    assert_eq!(
        result.text(),
        "Edit applied successfully.\n\nLSP errors detected in this file, please fix:\n<diagnostics file=\"a.fk\">\nERROR [1:9] missing thing\n</diagnostics>"
    );
    assert!(
        result.diagnostics.iter().all(|d| d.fix.is_none()),
        "{:#?}",
        result.diagnostics
    );

    let fixed = fixed(
        &engine,
        &file,
        Which::At {
            line: 1,
            column: None,
        },
    )
    .await;
    assert_eq!(
        fixed.text(),
        "Fix applied: Fill in the thing (changed a.fk)"
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap_or_default(),
        "let x = 2;\n"
    );
    // The reply's own lookup was cancelled, not left to run.
    let cancelled = logged(&log)
        .iter()
        .filter(|e| e["event"] == "cancelled")
        .count();
    assert_eq!(cancelled, 1, "{:#?}", logged(&log));
    engine.shutdown().await;
}

/// A fix lookup begins when its server answers, beside the wait for the
/// rest of the check: with a second server still checking the file, a fix
/// that takes far longer than `fixWaitMs` to look up is in the reply, and
/// the reply waited for nothing past the slower server's answer.
#[tokio::test]
async fn a_fix_looked_up_while_another_server_still_checks_is_in_the_reply() {
    let dir = support::project(&[("a.fk", "let x = 1;\n")]);
    let file = dir.path().join("a.fk");
    let mut quick = fake_with_fix(&file, [0, 8, 0, 29], "2", "Fill in the thing");
    quick["requestDelayMs"] = json!({"textDocument/codeAction": 500});
    // The second server answers for the same file long after the first's
    // fix is ready; a lookup begun only once both had answered would get
    // `fixWaitMs` (10 ms by default) for its 500 ms.
    let slow = json!({"publishDelayMs": 3000});
    let mut config = Config {
        diagnostic_timeout: Duration::from_secs(60),
        ..Config::default()
    };
    config
        .servers
        .insert("fake-a".into(), FakeServer::new(quick).to_override());
    config
        .servers
        .insert("fake-b".into(), FakeServer::new(slow).to_override());
    let engine = support::engine(dir.path(), config);

    let result = support::edit_applied(&engine, &file, "1;", "@error(missing thing);").await;
    assert_eq!(
        result.text(),
        "Edit applied successfully.\n\nLSP errors detected in this file, please fix:\n<diagnostics file=\"a.fk\">\nERROR [1:9] missing thing\n  fix: Fill in the thing\n</diagnostics>"
    );
    engine.shutdown().await;
}
