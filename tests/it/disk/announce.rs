//! Which disk changes reach a server as `workspace/didChangeWatchedFiles`.
//! squiggle's own writes are atomic (a new file renamed over the old one),
//! so the disk watch sees each as a file *created*; announced as such to a
//! server that has the file open anyway, pyright took it for a new file,
//! rescanned the workspace and checked again on every warm Python write
//! (py-tomli's warm median 0.37 s with it, 0.22 s without, docs/truth.md).
//! A change a server learns through its open
//! document is not announced; one it cannot learn otherwise still is.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::json;
use squiggle::config::Config;
use squiggle::engine::HeldOthers;
use squiggle::engine::tools::Mode;
use squiggle::engine::{Engine, FileInput};
use squiggle::uri;

use crate::support;
use crate::support::fake_server::{FakeServer, logged};
use crate::support::scratch::Scratch;

/// An engine over `scratch` whose one server, the fake, watches every file
/// and logs what it receives to `log`.
fn engine(scratch: &Scratch, log: &std::path::Path) -> Arc<Engine> {
    let watch_all = json!([{
        "method": "client/registerCapability",
        "params": {"registrations": [{
            "id": "w",
            "method": "workspace/didChangeWatchedFiles",
            "registerOptions": {"watchers": [{"globPattern": "**/*"}]}
        }]},
        "after": "initialized"
    }]);
    let script = json!({ "logFile": log.display().to_string(), "serverRequests": watch_all });
    let mut config = Config::default();
    config
        .servers
        .insert("fake".into(), FakeServer::new(script).to_override());
    let engine = support::engine(&scratch.root, config);
    engine.watch_disk();
    engine
}

/// A scratch workspace holding `a.fk` (its path third), the fake's log
/// beside it (second), and the engine over it.
fn with_a() -> (Scratch, PathBuf, PathBuf, Arc<Engine>) {
    let scratch = Scratch::bare();
    let log = scratch.outer.join("fake-log.jsonl");
    let a = scratch.write("a.fk", "one\n");
    let engine = engine(&scratch, &log);
    (scratch, log, a, engine)
}

/// Every (uri, type) the fake was told of through didChangeWatchedFiles.
fn announced(log: &std::path::Path) -> Vec<(String, u64)> {
    logged(log)
        .into_iter()
        .filter(|v| v["dir"] == "in" && v["msg"]["method"] == "workspace/didChangeWatchedFiles")
        .flat_map(|v| {
            v["msg"]["params"]["changes"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|c| Some((c["uri"].as_str()?.to_string(), c["type"].as_u64()?)))
        .collect()
}

/// Neither as created nor as changed (gopls starts a diagnosis pass for
/// each such event, and its watched-file passes run its module checks:
/// 90 ms a warm Go write with them, 30 ms without), and neither is the temp
/// file the write was staged in, which lives only for the write.
#[tokio::test]
async fn an_open_file_written_by_squiggle_is_not_announced() {
    let (_scratch, log, a, engine) = with_a();
    for text in ["two\n", "three\n", "four\n"] {
        let result = engine.write(&a, text, Mode::Apply).await;
        assert!(result.is_ok(), "{result:?}");
    }
    let a_uri = uri::from_path(&a);
    let own: Vec<_> = announced(&log)
        .into_iter()
        .filter(|(u, _)| *u == a_uri || u.contains(".squiggle-"))
        .collect();
    assert_eq!(own, [], "squiggle's own writes announced as disk changes");
    engine.shutdown().await;
}

#[tokio::test]
async fn a_file_changed_outside_squiggle_is_still_announced() {
    let (scratch, log, a, engine) = with_a();
    let result = engine.write(&a, "two\n", Mode::Apply).await;
    assert!(result.is_ok(), "{result:?}");
    // Never opened by the server: it can learn of this only from the event.
    let b = scratch.write("b.fk", "new\n");
    // Open, but changed behind squiggle's back: the document follows the
    // disk, and the event is sent too.
    std::fs::write(&a, "changed outside\n").unwrap_or_else(|e| panic!("{e}"));
    engine
        .check_files(
            vec![FileInput::on_disk(scratch.write("c.fk", "c\n"))],
            HeldOthers::Skip,
        )
        .await;
    let seen = announced(&log);
    let b_uri = uri::from_path(&b);
    let a_uri = uri::from_path(&a);
    assert!(seen.iter().any(|(u, _)| *u == b_uri), "{seen:?}");
    assert!(
        seen.iter().any(|(u, kind)| *u == a_uri && *kind == 2),
        "{seen:?}"
    );
    engine.shutdown().await;
}
