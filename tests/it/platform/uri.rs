//! A server that sends a document's URI back spelled
//! another way than squiggle sent it (`file:///c%3A/…` for `file:///C:/…`
//! on Windows; here every path byte percent-encoded and a `localhost`
//! authority) is still heard for that document: its diagnostics are
//! shown, not waited for until the deadline.

use crate::support::fake_server::FakeServer;
use crate::support::scratch::Scratch;
use serde_json::json;
use squiggle::config::Config;
use squiggle::diagnostic::Outcome;
use squiggle::engine::{FileInput, HeldOthers};

#[tokio::test]
async fn diagnostics_under_a_respelled_uri_reach_the_document() {
    let s = Scratch::bare();
    let path = s.root.join("my file-1.fk");
    std::fs::write(&path, "@error(respelled)\n").unwrap_or_else(|e| panic!("{e}"));
    let mut config = Config::default();
    config.servers.insert(
        "fake-a".to_string(),
        FakeServer::new(json!({"respellUris": true})).to_override(),
    );
    let engine = crate::support::engine(&s.root, config);
    let report = engine
        .check_files(vec![FileInput::on_disk(&path)], HeldOthers::Skip)
        .await;
    let file = &report.files[0];
    assert!(
        file.outcomes.iter().all(|o| o.outcome == Outcome::Settled),
        "{:?}",
        file.outcomes
    );
    assert!(
        file.diagnostics.iter().any(|d| d.message == "respelled"),
        "{:?}",
        file.diagnostics
    );
    engine.shutdown().await;
}
