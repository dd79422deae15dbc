//! An edit's importers that a pulling server answers for are pulled beside
//! the edited file, not after its answer (`engine::beside`): against a
//! fake that answers pulls late, the importer's pull reaches the server
//! before the edited file's answer leaves it, and after the edit's change,
//! so that its answer is for the change.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use squiggle::config::Config;
use squiggle::diagnostic::Outcome;
use squiggle::engine::Engine;

use crate::support;
use crate::support::fake_server::{FakeServer, logged};
use crate::support::matrix::write;
use crate::support::scratch::Scratch;

fn engine(root: &Path, log: &Path) -> Arc<Engine> {
    let mut config = Config::default();
    let fake = FakeServer::new(json!({"diagnosticMode": "pull", "pullDelayMs": 150,
        "logFile": log.display().to_string()}));
    config
        .servers
        .insert("fake-a".to_string(), fake.to_override());
    config.diagnostic_timeout = Duration::from_secs(20);
    support::engine(root, config)
}

/// Where in the fake's log the first message matching `wanted` is, after
/// position `from`.
fn position(log: &[Value], from: usize, wanted: impl Fn(&Value) -> bool) -> Option<usize> {
    log.iter()
        .enumerate()
        .skip(from)
        .find(|(_, v)| wanted(v))
        .map(|(i, _)| i)
}

fn names(v: &Value, method: &str, file: &str) -> bool {
    v["dir"] == "in"
        && v["msg"]["method"] == method
        && v["msg"]["params"]["textDocument"]["uri"]
            .as_str()
            .is_some_and(|u| u.ends_with(file))
}

#[tokio::test]
async fn an_importer_is_pulled_beside_the_edited_file_after_its_change() {
    let ws = Scratch::bare();
    let log_path = ws.outer.join("fake.jsonl");
    let engine = engine(&ws.root, &log_path);
    let (app, lib) = (ws.root.join("app.fk"), ws.root.join("lib.fk"));
    write(&engine, &lib, "x\n").await;
    write(&engine, &app, "import lib\n@error(app)\n").await;
    let start = logged(&log_path).len();
    let result = write(&engine, &lib, "@error(lib)\n").await;
    let outcomes: Vec<Outcome> = result.outcomes["app.fk"]
        .iter()
        .map(|o| o.outcome)
        .collect();
    assert_eq!(outcomes, [Outcome::Pulled], "{}", result.text());
    let log = logged(&log_path);
    let change = position(&log, start, |v| {
        names(v, "textDocument/didChange", "lib.fk")
    });
    let lib_pull = position(&log, start, |v| {
        names(v, "textDocument/diagnostic", "lib.fk")
    });
    let app_pull = position(&log, start, |v| {
        names(v, "textDocument/diagnostic", "app.fk")
    });
    let (Some(change), Some(lib_pull), Some(app_pull)) = (change, lib_pull, app_pull) else {
        panic!("no change and two pulls in the log: {:#?}", &log[start..]);
    };
    let id = &log[lib_pull]["msg"]["id"];
    let lib_answer = position(&log, lib_pull, |v| {
        v["dir"] == "out" && v["msg"]["id"] == *id
    })
    .unwrap_or_else(|| panic!("lib.fk's pull was never answered: {:#?}", &log[start..]));
    assert!(
        change < app_pull && app_pull < lib_answer,
        "change at {change}, app.fk's pull at {app_pull}, lib.fk's answer at {lib_answer}: {:#?}",
        &log[start..]
    );
    engine.shutdown().await;
}
