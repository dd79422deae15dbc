//! clangd's `sync` (`WaitProfile::idle_request`), played by the fake under
//! the registry's own clangd profile: after a header's change, a file that
//! includes it is queued, re-read and idle; the wait on it ends at a
//! republish or at the idle request's answer, never at a quiet window
//! while that answer is pending — an includer rebuilt later than the
//! window after its idle status was answered with its old diagnostics.

use crate::support;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use squiggle::config::{Config, ServerOverride};
use squiggle::diagnostic::Outcome;
use squiggle::engine::{CheckReport, FileInput, HeldOthers};

const REBUILT: &str = "rebuilt after the header changed";

/// A C project whose clangd is the fake running `script`, its quiet
/// window for other files `others_quiet_ms`.
fn engine(root: &Path, script: Value, others_quiet_ms: u64) -> Arc<squiggle::engine::Engine> {
    let mut config = Config {
        first_touch_timeout: Duration::from_secs(60),
        diagnostic_timeout: Duration::from_secs(30),
        ..Config::default()
    };
    config.servers.insert(
        "clangd".into(),
        ServerOverride {
            others_quiet_ms: Some(others_quiet_ms),
            ..support::fake_server::FakeServer::in_place(&script)
        },
    );
    support::engine(root, config)
}

/// `b.h` (which includes `a.h`, and holds a marker the fake reports only
/// once it rebuilds it) opened and checked, then `a.h` changed and
/// checked with the files that include it.
async fn header_change(script: Value, others_quiet_ms: u64) -> CheckReport {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let write = |name: &str, text: &str| {
        std::fs::write(root.join(name), text).unwrap_or_else(|e| panic!("{e}"));
    };
    write("compile_flags.txt", "");
    write("a.h", "int a(void);\n");
    write(
        "b.h",
        &format!("#include \"a.h\"\n// @error#1({REBUILT})\n"),
    );
    let engine = engine(&root, script, others_quiet_ms);
    let opened = engine
        .check_files(vec![FileInput::on_disk(root.join("b.h"))], HeldOthers::Skip)
        .await;
    assert!(
        opened.files[0].diagnostics.is_empty(),
        "{:?}",
        opened.files[0].diagnostics
    );
    write("a.h", "int a(int);\n");
    let check = engine
        .check_with_dependents(vec![FileInput::on_disk(root.join("a.h"))])
        .await;
    engine.shutdown().await;
    check
}

fn script(file_status: Value, responses: Value) -> Value {
    json!({
        "publishVersion": true,
        "waves": [0],
        "fileStatus": file_status,
        "responses": responses,
        "requestDelayMs": {"sync": 600},
    })
}

fn messages_of(check: &CheckReport, file: &str) -> Vec<String> {
    check
        .others
        .get(file)
        .into_iter()
        .flatten()
        .map(|d| d.message.clone())
        .collect()
}

fn outcome_of(check: &CheckReport, file: &str) -> Vec<Outcome> {
    check
        .other_outcomes
        .get(file)
        .into_iter()
        .flatten()
        .map(|o| o.outcome)
        .collect()
}

#[tokio::test]
async fn an_includer_rebuilt_after_the_quiet_window_is_waited_for_while_sync_is_pending() {
    // Idle at once, republished 150 ms later with the rebuild's error;
    // `sync` answered after 400 ms. A 50 ms quiet window after the idle
    // status took the old, empty list.
    let file_status = json!({"republishAfterMs": 150});
    let check = header_change(script(file_status, json!({"sync": null})), 50).await;
    assert_eq!(messages_of(&check, "b.h"), [REBUILT]);
    assert_eq!(outcome_of(&check, "b.h"), [Outcome::Settled]);
}

#[tokio::test]
async fn an_includer_whose_statuses_come_late_is_not_taken_as_never_queued() {
    // The header's own answer arrives before the includer's first status
    // (a server that reads the save after it has published the change, as
    // the emulated ARM run showed): "no status yet" must not read as
    // "never queued" while `sync`, which comes after every status, is
    // pending.
    let file_status = json!({"queuedAfterMs": 100, "republishAfterMs": 150});
    let check = header_change(script(file_status, json!({"sync": null})), 50).await;
    assert_eq!(messages_of(&check, "b.h"), [REBUILT]);
    assert_eq!(outcome_of(&check, "b.h"), [Outcome::Settled]);
}

#[tokio::test]
async fn a_header_re_read_and_not_rebuilt_is_current_at_the_sync_answer() {
    // No republish: the answer to `sync` ends the wait, with its earlier
    // (empty) list, where only a quiet window far past the deadline would.
    let file_status = json!({});
    let check = header_change(script(file_status, json!({"sync": null})), 600_000).await;
    assert!(messages_of(&check, "b.h").is_empty());
    assert_eq!(outcome_of(&check, "b.h"), [Outcome::Settled]);
}

#[tokio::test]
async fn a_server_that_refuses_the_idle_request_is_waited_on_by_its_quiet_window() {
    // The fake answers `sync` "method not found": the quiet window after
    // the idle status ends the wait, as before the request existed.
    let file_status = json!({});
    let check = header_change(script(file_status, json!({})), 50).await;
    assert!(messages_of(&check, "b.h").is_empty());
    assert_eq!(outcome_of(&check, "b.h"), [Outcome::Settled]);
}
