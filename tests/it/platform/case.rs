//! Two spellings of one file on a case-insensitive file system: `A.FK`
//! and `a.fk` are one file, so one document on the server and one path in
//! every answer, the file's own spelling on disk. Windows only here (wine's
//! lookup is case-insensitive too, so the emulated suite can run it);
//! macOS's default volume is case-insensitive as well, but no macOS machine
//! runs the suite.

use serde_json::json;
use squiggle::config::Config;
use squiggle::engine::{FileInput, HeldOthers};

use crate::support;
use crate::support::fake_server::FakeServer;
use crate::support::scratch::Scratch;

#[tokio::test]
async fn two_spellings_of_one_file_are_one_document() {
    let s = Scratch::bare();
    let lower = s.write("a.fk", "let x = 1;\n");
    let upper = s.root.join("A.FK");
    let mut config = Config::default();
    config.servers.insert(
        "fake".to_string(),
        FakeServer::new(json!({"diagnosticMode": "pull"})).to_override(),
    );
    let engine = support::engine(&s.root, config);

    let edited = support::edit_applied(&engine, &upper, "1;", "@error(one);").await;
    let files: Vec<&str> = edited.diagnostics.iter().map(|d| d.file.as_str()).collect();
    assert_eq!(files, ["a.fk"], "{}", edited.text());
    assert!(
        edited.text().contains("<diagnostics file=\"a.fk\">"),
        "{}",
        edited.text()
    );

    let report = engine
        .check_files(vec![FileInput::on_disk(&lower)], HeldOthers::Skip)
        .await;
    let messages: Vec<&str> = report.files[0]
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(messages, ["one"]);
    let open: Vec<usize> = engine
        .pool()
        .statuses()
        .iter()
        .map(|i| i.open_documents)
        .collect();
    assert_eq!(open, [1], "one document for both spellings");
    engine.shutdown().await;
}
