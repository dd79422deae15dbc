//! The session start's survey (`engine::warm`): every file a server
//! serves is checked, a few at a time, and what the servers said of each
//! is remembered as its "before". A first edit of a surveyed file then
//! hands the servers only its new text — no check of the text before on
//! the edit's way, which was a second whole wait — and still blames
//! nothing that was there before on the edit.

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};
use squiggle::config::Config;
use squiggle::engine::Engine;

use crate::support;
use crate::support::fake_server::{FakeServer, logged};
use crate::support::matrix::write;
use crate::support::scratch::Scratch;

fn fake_engine(root: &Path, log: &Path) -> Arc<Engine> {
    let mut config = Config::default();
    let fake = FakeServer::new(json!({"logFile": log.display().to_string()}));
    config
        .servers
        .insert("fake".to_string(), fake.to_override());
    support::engine(root, config)
}

/// The texts of `name` the fake received (opened with, or the change's
/// text), from the `skip`-th line of its log on.
fn texts_sent(log: &Path, skip: usize, name: &str) -> Vec<String> {
    logged(log)
        .iter()
        .skip(skip)
        .filter(|v| v["dir"] == "in")
        .filter_map(|v| {
            let params = &v["msg"]["params"];
            let uri = params["textDocument"]["uri"].as_str()?;
            if !uri.ends_with(name) {
                return None;
            }
            match v["msg"]["method"].as_str()? {
                "textDocument/didOpen" => params["textDocument"]["text"].as_str(),
                "textDocument/didChange" => params["contentChanges"][0]["text"].as_str(),
                _ => None,
            }
            .map(str::to_string)
        })
        .collect()
}

/// `lib.fk` and `app.fk`, which imports it and has an error of its own.
fn project(ws: &Scratch) {
    std::fs::write(ws.root.join("lib.fk"), "x\n").unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(ws.root.join("app.fk"), "import lib\n@error(old)\n")
        .unwrap_or_else(|e| panic!("{e}"));
}

fn new_errors(result: &squiggle::engine::tools::ToolResult) -> Vec<Value> {
    result
        .diagnostics
        .iter()
        .filter(|d| d.new)
        .map(|d| json!([d.diagnostic.file, d.diagnostic.message]))
        .collect()
}

#[tokio::test]
async fn a_surveyed_file_is_edited_without_a_check_of_its_text_before() {
    // Without a survey, the first write checks lib.fk's text before first.
    let cold = Scratch::bare();
    project(&cold);
    let cold_log = cold.outer.join("fake.log");
    let engine = fake_engine(&cold.root, &cold_log);
    let result = write(&engine, &cold.root.join("lib.fk"), "y\n").await;
    // Opened with the text before, checked, then changed to the new one.
    assert_eq!(texts_sent(&cold_log, 0, "lib.fk").len(), 2);
    assert_eq!(texts_sent(&cold_log, 0, "lib.fk")[0], "x\n");
    assert_eq!(
        new_errors(&result),
        Vec::<Value>::new(),
        "{}",
        result.text()
    );
    engine.shutdown().await;

    let ws = Scratch::bare();
    project(&ws);
    let log = ws.outer.join("fake.log");
    let engine = fake_engine(&ws.root, &log);
    let targets = engine.survey_targets();
    assert_eq!(targets.len(), 2, "{targets:?}");
    assert_eq!(engine.survey(&targets).await, 2);
    let surveyed = logged(&log).len();
    let result = write(&engine, &ws.root.join("lib.fk"), "y\n").await;
    // Only the change: the survey had opened it with the text before.
    let sent = texts_sent(&log, surveyed, "lib.fk");
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_ne!(sent[0], "x\n");
    // app.fk's error was there before the write: not the write's.
    assert_eq!(
        new_errors(&result),
        Vec::<Value>::new(),
        "{}",
        result.text()
    );
    engine.shutdown().await;
}
