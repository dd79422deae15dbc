//! Document sync in both modes and encodings. The fake server rebuilds each
//! document from the changes we send and reports its markers' positions in
//! the negotiated encoding; normalized back to 1-based character columns they
//! must point at the markers in *our* text. Any drift in incremental ranges or
//! encoding math shows up as a wrong message or a wrong column.

use serde_json::json;

use crate::support::{Fake, deadline, sync};

/// (line, column) of every `@` marker in `text`, 1-based, columns in chars.
fn marker_positions(text: &str) -> Vec<(u32, u32)> {
    let mut found = Vec::new();
    for (i, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        for (col, (_, c)) in line.char_indices().enumerate() {
            if c == '@' {
                found.push((i as u32 + 1, col as u32 + 1));
            }
        }
    }
    found
}

const VERSIONS: &[&str] = &[
    "α😀 @error(one)\r\nline two\r\n",
    "α😀 insert 中文 @error(one)\r\nline two\r\n",
    "α😀 insert 中文 @error(one)\r\nline two @warning(二)\r\n",
    "😀😀\r\n\r\nα😀 insert 中文 @error(one)\r\nline @warning(二)",
    "@error(start)",
    "",
    "x\ny\n@hint(🎉 end)",
];

async fn run(sync_kind: &str, encoding: &str) {
    let fake = Fake::new();
    let client = fake
        .start(json!({"sync": sync_kind, "positionEncoding": encoding}))
        .await;
    let negotiated = client.facts().map(|f| f.encoding).unwrap_or_default();
    assert_eq!(negotiated.as_lsp(), encoding);
    let path = fake.file("doc.txt");
    for (i, text) in VERSIONS.iter().enumerate() {
        let doc = sync(&client, &path, text).await;
        assert_eq!(doc.version, i as i32 + 1);
        let report = client.diagnostics_for(&doc, deadline(5000)).await;
        let normalized = client.normalize(&report.diagnostics, text, "doc.txt");
        let got: Vec<(u32, u32)> = normalized.iter().map(|d| (d.line, d.column)).collect();
        assert_eq!(
            got,
            marker_positions(text),
            "{sync_kind}/{encoding} version {}: {text:?} -> {normalized:?}",
            i + 1
        );
    }
    let changes = fake.received("textDocument/didChange");
    let versions: Vec<i64> = changes
        .iter()
        .filter_map(|c| c["params"]["textDocument"]["version"].as_i64())
        .collect();
    assert_eq!(versions, (2..=VERSIONS.len() as i64).collect::<Vec<_>>());
    let ranged = changes
        .iter()
        .flat_map(|c| {
            c["params"]["contentChanges"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .any(|c| c.get("range").is_some_and(|r| !r.is_null()));
    assert_eq!(
        ranged,
        sync_kind == "incremental",
        "incremental sync sends ranges, full sync does not"
    );
}

#[tokio::test]
async fn incremental_utf16() {
    run("incremental", "utf-16").await;
}

#[tokio::test]
async fn incremental_utf8() {
    run("incremental", "utf-8").await;
}

#[tokio::test]
async fn full_utf16() {
    run("full", "utf-16").await;
}

#[tokio::test]
async fn identical_text_sends_no_change() {
    let fake = Fake::new();
    let client = fake.start(json!({})).await;
    let path = fake.file("a.txt");
    let first = sync(&client, &path, "same\n").await;
    let second = sync(&client, &path, "same\n").await;
    assert_eq!(first.version, second.version);
    assert!(fake.received("textDocument/didChange").is_empty());
}

#[tokio::test]
async fn did_save_follows_a_change_when_the_server_asks() {
    let fake = Fake::new();
    let client = fake.start(json!({"saveNotify": true})).await;
    let path = fake.file("a.txt");
    sync(&client, &path, "one\n").await;
    sync(&client, &path, "two\n").await;
    fake.wait_log("two saves", |f| {
        f.received("textDocument/didSave").len() == 2
    })
    .await;
    let order: Vec<String> = fake
        .messages("in")
        .iter()
        .filter_map(|m| m["method"].as_str().map(str::to_string))
        .filter(|m| m.starts_with("textDocument/did"))
        .collect();
    assert_eq!(
        order,
        [
            "textDocument/didOpen",
            "textDocument/didSave",
            "textDocument/didChange",
            "textDocument/didSave"
        ]
    );
}

#[tokio::test]
async fn close_forgets_the_document_and_its_diagnostics() {
    let fake = Fake::new();
    let client = fake.start(json!({})).await;
    let path = fake.file("a.txt");
    let doc = sync(&client, &path, "@error(e)\n").await;
    client.diagnostics_for(&doc, deadline(5000)).await;
    assert_eq!(client.known_diagnostics().len(), 1);
    client.close_document(&path);
    assert!(client.document(&path).is_none());
    assert!(client.known_diagnostics().is_empty());
    fake.wait_log("didClose", |f| {
        f.received("textDocument/didClose").len() == 1
    })
    .await;
    let reopened = sync(&client, &path, "x\n").await;
    assert_eq!(
        reopened.version, 1,
        "a reopened document starts again at version 1"
    );
}
