//! Engine-level integration tests: the engine drives the scripted fake server
//! (`squiggle-fake-lsp`), configured as custom servers for `.fk` files.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use squiggle::config::Config;
use squiggle::diagnostic::Outcome;
use squiggle::engine::HeldOthers;
use squiggle::engine::tools::{Mode, Replace};
use squiggle::engine::{Engine, FileInput, ServerState};
use tokio::time::Instant;

use crate::support;
use crate::support::fake_server::{FakeServer, logged, started_pids};
use crate::support::scratch::{Scratch, scratch_type};

scratch_type!(
    /// The scratch workspace at `ws/`, so that `../` from the workspace is
    /// still inside the temporary directory, and the fakes' shared log
    /// beside it.
    Ws
);

impl Ws {
    fn bare() -> Ws {
        Ws(Scratch::bare())
    }

    fn file(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    fn log(&self) -> PathBuf {
        self.outer.join("fake-log.jsonl")
    }
}

/// An engine serving `.fk` files by one fake per `(id, script)`.
fn engine_with(
    root: &Path,
    servers: Vec<(&str, Value)>,
    tweak: impl FnOnce(&mut Config),
) -> Arc<Engine> {
    let mut config = Config::default();
    for (id, script) in servers {
        config
            .servers
            .insert(id.to_string(), FakeServer::new(script).to_override());
    }
    tweak(&mut config);
    support::engine(root, config)
}

fn engine(root: &Path, script: Value) -> Arc<Engine> {
    engine_with(root, vec![("fake-a", script)], |_| {})
}

fn write_file(path: &Path, content: &str) {
    std::fs::write(path, content).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

fn read_file(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// Waits (bounded) until no pooled client is alive any more.
async fn wait_no_live_clients(engine: &Engine) {
    let none = support::poll_until_async(Duration::from_secs(10), || {
        engine.pool().clients().is_empty()
    })
    .await;
    assert!(none, "a crashed server still looks alive");
}

/// Whether every didOpen the fakes received came before the first
/// publishDiagnostics any of them sent, and how many didOpens there were:
/// a wait in parallel hands out every file before any answer is due.
fn opened_before_any_publish(log: &Path) -> (bool, usize) {
    let lines = logged(log);
    let is = |v: &Value, dir: &str, method: &str| v["dir"] == dir && v["msg"]["method"] == method;
    let opens: Vec<usize> = (0..lines.len())
        .filter(|&i| is(&lines[i], "in", "textDocument/didOpen"))
        .collect();
    let first_publish = lines
        .iter()
        .position(|v| is(v, "out", "textDocument/publishDiagnostics"));
    let before = match (opens.last(), first_publish) {
        (Some(open), Some(publish)) => *open < publish,
        _ => false,
    };
    (before, opens.len())
}

async fn wait_gone(pid: u32) {
    let gone = support::exits_within(pid, Duration::from_secs(10)).await;
    assert!(gone, "process {pid} still exists");
}

#[tokio::test]
async fn edit_reports_new_error_then_clean_after_fix() {
    let s = Ws::bare();
    let path = s.file("a.fk");
    write_file(&path, "hello\n");
    let engine = engine(&s.root, json!({}));

    let result = engine
        .edit(&path, "hello", "@error(boom)", Replace::Once, Mode::Apply)
        .await
        .unwrap_or_else(|e| panic!("edit: {e}"));
    let text = result.text();
    assert!(
        text.starts_with("Edit applied successfully.\n\n"),
        "text: {text:?}"
    );
    assert!(
        text.contains("<diagnostics file=\"a.fk\">"),
        "text: {text:?}"
    );
    assert!(text.contains("ERROR [1:1] boom"), "text: {text:?}");
    assert_eq!(read_file(&path), "@error(boom)\n");

    let fixed = engine
        .edit(&path, "@error(boom)", "fine", Replace::Once, Mode::Apply)
        .await
        .unwrap_or_else(|e| panic!("fix: {e}"));
    assert_eq!(fixed.text(), "Edit applied successfully.");
    assert_eq!(read_file(&path), "fine\n");
    engine.shutdown().await;
}

#[tokio::test]
async fn two_servers_for_one_file_are_waited_on_in_parallel() {
    let s = Ws::bare();
    let path = s.file("a.fk");
    write_file(&path, "@error(both)\n");
    // Both fakes append to one log; each answers a second after the change,
    // far longer than either takes to start.
    let script = json!({"publishDelayMs": 1000, "logFile": s.log().display().to_string()});
    let engine = engine_with(
        &s.root,
        vec![("fake-a", script.clone()), ("fake-b", script)],
        |_| {},
    );

    let report = engine
        .check_files(vec![FileInput::on_disk(&path)], HeldOthers::Skip)
        .await;

    assert_eq!(report.files.len(), 1);
    let file = &report.files[0];
    let servers: Vec<&str> = file.outcomes.iter().map(|o| o.server.as_str()).collect();
    assert_eq!(servers, ["fake-a", "fake-b"], "{:?}", file.outcomes);
    for o in &file.outcomes {
        assert_eq!(o.outcome, Outcome::Settled, "{o:?}");
    }
    assert!(
        file.diagnostics.iter().any(|d| d.message == "both"),
        "{:?}",
        file.diagnostics
    );
    assert_eq!(
        opened_before_any_publish(&s.log()),
        (true, 2),
        "a server got the file only after the other answered: sequential, not parallel; log:\n{}",
        read_file(&s.log())
    );
    engine.shutdown().await;
}

#[tokio::test]
async fn ten_file_patch_is_checked_in_one_parallel_wait() {
    let s = Ws::bare();
    let engine = engine(
        &s.root,
        json!({"publishDelayMs": 1000, "logFile": s.log().display().to_string()}),
    );
    let mut patch = String::from("*** Begin Patch\n");
    for i in 0..10 {
        patch.push_str(&format!("*** Add File: f{i}.fk\n+@error(err{i})\n"));
    }
    patch.push_str("*** End Patch\n");

    let result = engine
        .apply_patch(&patch, Mode::Apply)
        .await
        .unwrap_or_else(|e| panic!("patch: {e}"));

    let text = result.text();
    assert!(text.starts_with("Patch applied successfully."), "{text}");
    for i in 0..10 {
        assert_eq!(
            read_file(&s.file(&format!("f{i}.fk"))),
            format!("@error(err{i})\n")
        );
        assert!(
            text.contains(&format!("<diagnostics file=\"f{i}.fk\">")),
            "f{i} missing: {text}"
        );
        assert!(
            text.contains(&format!("] err{i}")),
            "err{i} missing: {text}"
        );
        assert!(
            result
                .diagnostics
                .iter()
                .any(|d| d.message == format!("err{i}")),
            "err{i} missing in {:?}",
            result.diagnostics
        );
    }
    assert_eq!(
        opened_before_any_publish(&s.log()),
        (true, 10),
        "a file was sent only after another was answered: not one parallel wait; log:\n{}",
        read_file(&s.log())
    );
    engine.shutdown().await;
}

#[tokio::test]
async fn hung_server_never_blocks_the_edit() {
    let s = Ws::bare();
    let path = s.file("a.fk");
    write_file(&path, "hello\n");
    let first_touch = Duration::from_secs(2);
    let engine = engine_with(
        &s.root,
        vec![("fake-a", json!({"fault": {"kind": "hang"}}))],
        |c| {
            c.diagnostic_timeout = Duration::from_millis(500);
            c.first_touch_timeout = first_touch;
        },
    );

    let started = Instant::now();
    let result = engine
        .edit(&path, "hello", "@error(boom)", Replace::Once, Mode::Apply)
        .await
        .unwrap_or_else(|e| panic!("edit: {e}"));
    let elapsed = started.elapsed();

    assert_eq!(read_file(&path), "@error(boom)\n");
    // Not knowing is never presented as clean (`reportUnknown`, on by default).
    // The line names the time the wait took, which a loaded machine
    // stretches past the 2 s deadline ("after 2.1 s").
    assert!(
        result
            .feedback
            .starts_with("fake-a had not finished checking a.fk after 2")
            && result
                .feedback
                .ends_with(" s; its diagnostics are unknown.\n"),
        "{}",
        result.feedback
    );
    // The hung server would hold the edit for ever: what ends it must be the
    // first-touch deadline, not a later one (the 10 s request timeout, the
    // shutdown's 2 s graces), so it ends within twice that deadline.
    assert!(
        elapsed < first_touch * 2,
        "the edit took {elapsed:?} with a {first_touch:?} first-touch timeout"
    );
    let outcomes = &result.outcomes["a.fk"];
    assert_eq!(outcomes.len(), 1, "{outcomes:?}");
    assert_eq!(outcomes[0].outcome, Outcome::TimedOut, "{outcomes:?}");
    engine.shutdown().await;
}

#[tokio::test]
async fn binary_file_is_never_sent_to_a_server() {
    let s = Ws::bare();
    let path = s.file("blob.fk");
    std::fs::write(&path, b"abc\0def@error(x)\n").unwrap_or_else(|e| panic!("write: {e}"));
    let engine = engine(&s.root, json!({}));

    let report = engine
        .check_files(vec![FileInput::on_disk(&path)], HeldOthers::Skip)
        .await;
    let outcomes = &report.files[0].outcomes;
    assert_eq!(outcomes.len(), 1, "{outcomes:?}");
    assert_eq!(outcomes[0].outcome, Outcome::BinaryFile);
    assert!(report.files[0].diagnostics.is_empty());
    assert!(
        engine.pool().statuses().is_empty(),
        "{:?}",
        engine.pool().statuses()
    );
    engine.shutdown().await;
}

#[tokio::test]
async fn failing_patch_writes_nothing() {
    let s = Ws::bare();
    let a = s.file("a.fk");
    let b = s.file("b.fk");
    write_file(&a, "one\n");
    write_file(&b, "two\n");
    let engine = engine(&s.root, json!({}));
    let patch = "*** Begin Patch\n\
                 *** Update File: a.fk\n\
                 @@\n\
                 -one\n\
                 +ONE\n\
                 *** Update File: b.fk\n\
                 @@\n\
                 -not there\n\
                 +TWO\n\
                 *** End Patch\n";

    let result = engine.apply_patch(patch, Mode::Apply).await;
    assert!(result.is_err(), "the patch applied: {:?}", result.ok());
    assert_eq!(read_file(&a), "one\n");
    assert_eq!(read_file(&b), "two\n");
    assert!(engine.pool().statuses().is_empty());
    engine.shutdown().await;
}

#[tokio::test]
async fn paths_outside_the_workspace_are_refused() {
    let s = Ws::bare();
    let engine = engine(&s.root, json!({}));
    let outside = s.root.join("../outside.fk");

    let err = match engine.write(&outside, "@error(x)\n", Mode::Apply).await {
        Ok(r) => panic!("write outside succeeded: {}", r.text()),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("outside the workspace"), "{err}");
    assert!(!s.outer.join("outside.fk").exists());

    let err = match engine
        .edit(&outside, "a", "b", Replace::Once, Mode::Apply)
        .await
    {
        Ok(r) => panic!("edit outside succeeded: {}", r.text()),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("outside the workspace"), "{err}");
    assert!(!s.outer.join("outside.fk").exists());
    assert!(engine.pool().statuses().is_empty());
    engine.shutdown().await;
}

#[tokio::test]
async fn concurrent_first_touches_share_one_start() {
    let s = Ws::bare();
    let a = s.file("a.fk");
    let b = s.file("b.fk");
    write_file(&a, "@error(a)\n");
    write_file(&b, "@error(b)\n");
    let log = s.log();
    let engine = engine(
        &s.root,
        json!({"initializeDelayMs": 200, "logFile": log.display().to_string()}),
    );

    let (ra, rb) = tokio::join!(
        engine.check_files(vec![FileInput::on_disk(&a)], HeldOthers::Skip),
        engine.check_files(vec![FileInput::on_disk(&b)], HeldOthers::Skip),
    );
    assert_eq!(ra.files[0].outcomes[0].outcome, Outcome::Settled);
    assert_eq!(rb.files[0].outcomes[0].outcome, Outcome::Settled);
    assert!(ra.files[0].diagnostics.iter().any(|d| d.message == "a"));
    assert!(rb.files[0].diagnostics.iter().any(|d| d.message == "b"));

    let statuses = engine.pool().statuses();
    assert_eq!(statuses.len(), 1, "{statuses:?}");
    assert_eq!(statuses[0].starts, 1, "{statuses:?}");
    assert_eq!(statuses[0].status, ServerState::Active);

    assert_eq!(started_pids(&log).len(), 1, "fake processes started");
    engine.shutdown().await;
}

#[tokio::test]
async fn crashing_server_restarts_once_then_is_broken() {
    let s = Ws::bare();
    let path = s.file("a.fk");
    write_file(&path, "@error(boom)\n");
    let engine = engine(&s.root, json!({"fault": {"kind": "crashAfterPublish"}}));
    let check = || engine.check_files(vec![FileInput::on_disk(&path)], HeldOthers::Skip);

    check().await;
    let statuses = engine.pool().statuses();
    assert_eq!(statuses.len(), 1, "{statuses:?}");
    assert_eq!(statuses[0].starts, 1);
    if let Some(pid) = statuses[0].server_pid {
        wait_gone(pid).await;
    }
    wait_no_live_clients(&engine).await;

    check().await;
    let statuses = engine.pool().statuses();
    assert_eq!(statuses[0].starts, 2, "{statuses:?}");
    if let Some(pid) = statuses[0].server_pid {
        wait_gone(pid).await;
    }
    wait_no_live_clients(&engine).await;

    let third = check().await;
    let outcomes = &third.files[0].outcomes;
    assert_eq!(outcomes.len(), 1, "{outcomes:?}");
    assert_eq!(outcomes[0].outcome, Outcome::Unavailable, "{outcomes:?}");
    let statuses = engine.pool().statuses();
    assert_eq!(statuses[0].status, ServerState::Broken, "{statuses:?}");
    assert_eq!(statuses[0].starts, 2, "{statuses:?}");

    // Broken stays broken: no respawn loop.
    let fourth = check().await;
    assert_eq!(fourth.files[0].outcomes[0].outcome, Outcome::Unavailable);
    assert_eq!(engine.pool().statuses()[0].starts, 2);
    engine.shutdown().await;
}

#[tokio::test]
async fn shutdown_leaves_no_server_process() {
    let s = Ws::bare();
    let a = s.file("a.fk");
    write_file(&a, "@error(a)\n");
    let engine = engine_with(
        &s.root,
        vec![
            ("fake-a", json!({})),
            ("fake-b", json!({})),
            ("fake-hang", json!({"fault": {"kind": "hang"}})),
        ],
        |c| {
            c.first_touch_timeout = Duration::from_secs(1);
            c.diagnostic_timeout = Duration::from_millis(500);
        },
    );
    engine
        .check_files(vec![FileInput::on_disk(&a)], HeldOthers::Skip)
        .await;
    let pids: Vec<u32> = engine
        .pool()
        .statuses()
        .iter()
        .filter_map(|s| s.server_pid)
        .collect();
    assert_eq!(pids.len(), 3, "{:?}", engine.pool().statuses());
    for &pid in &pids {
        assert!(support::process_exists(pid), "{pid} gone before shutdown");
    }

    engine.shutdown().await;
    for &pid in &pids {
        wait_gone(pid).await;
    }
    assert!(engine.pool().statuses().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_edits_to_one_file_are_serialized_and_none_is_lost() {
    // Twenty edits race on one file, each replacing its own token. Without
    // the per-file lock two edits read the same text and the later write
    // drops the earlier one's change.
    let s = Ws::bare();
    let path = s.file("race.fk");
    let tokens: Vec<String> = (0..20).map(|i| format!("t{i:02}")).collect();
    write_file(&path, &format!("{}\n", tokens.join(" ")));
    let engine = engine(&s.root, json!({"pullDelayMs": 5}));
    let mut tasks = tokio::task::JoinSet::new();
    for token in &tokens {
        let (engine, path, token) = (engine.clone(), path.clone(), token.clone());
        tasks.spawn(async move {
            engine
                .edit(
                    &path,
                    &token,
                    &token.to_uppercase(),
                    Replace::Once,
                    Mode::Apply,
                )
                .await
                .map(|_| ())
        });
    }
    while let Some(done) = tasks.join_next().await {
        assert!(matches!(done, Ok(Ok(()))), "{done:?}");
    }
    let expected: Vec<String> = tokens.iter().map(|t| t.to_uppercase()).collect();
    assert_eq!(read_file(&path), format!("{}\n", expected.join(" ")));
    engine.shutdown().await;
}
