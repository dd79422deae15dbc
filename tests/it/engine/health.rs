//! Health checks: a server that stops answering — silent
//! after `initialize` (`hang`), or stuck in the middle of a frame
//! (`stuckFrame`) — is found out by a probe after a check times out,
//! shown as `unresponsive` while it is stopped, restarted once, then
//! `broken`: later checks no longer wait out their deadline. A server that
//! answers the probe but never publishes (`neverPublish`) is slow, not
//! stuck: it stays `active` on its first start.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use squiggle::config::Config;
use squiggle::diagnostic::Outcome;
use squiggle::engine::{Engine, FileInput, HeldOthers, InstanceStatus, ServerState};
use squiggle::lsp::health::PROBE_METHOD;

use crate::support;
use crate::support::fake_server::{FakeServer, logged};
use crate::support::scratch::Scratch;

struct Setup {
    _scratch: Scratch,
    file: PathBuf,
    log: PathBuf,
    engine: Arc<Engine>,
}

fn setup(mut script: Value) -> Setup {
    let scratch = Scratch::bare();
    let file = scratch.write("a.fk", "@error(e)\n");
    let log = scratch.outer.join("fake-log.jsonl");
    script["logFile"] = json!(log.display().to_string());
    let mut config = Config::default();
    config
        .servers
        .insert("fake".into(), FakeServer::new(script).to_override());
    config.diagnostic_timeout = Duration::from_millis(300);
    config.first_touch_timeout = Duration::from_millis(1500);
    let engine = support::engine(&scratch.root, config);
    Setup {
        _scratch: scratch,
        file,
        log,
        engine,
    }
}

async fn check(engine: &Arc<Engine>, file: &Path) -> Outcome {
    let report = engine
        .check_files(vec![FileInput::on_disk(file)], HeldOthers::Skip)
        .await;
    report.files[0].outcomes[0].outcome
}

fn status(engine: &Engine) -> InstanceStatus {
    let all = engine.pool().statuses();
    assert_eq!(all.len(), 1, "{all:?}");
    all[0].clone()
}

/// Waits (on the client's own events) until the one running server is
/// stopped as unresponsive.
async fn until_unresponsive(engine: &Engine) {
    let clients = engine.pool().clients();
    let Some(client) = clients.first() else {
        return;
    };
    support::wait_for(client, "the server found unresponsive", |c| {
        c.unresponsive().is_some()
    })
    .await;
}

/// Probes the fake received (from its log).
fn probes(log: &Path) -> usize {
    logged(log)
        .iter()
        .filter(|v| v["dir"] == "in" && v["msg"]["method"] == PROBE_METHOD)
        .count()
}

async fn stops_answering(script: Value) {
    let s = setup(script);
    assert_eq!(check(&s.engine, &s.file).await, Outcome::TimedOut);
    until_unresponsive(&s.engine).await;
    let row = status(&s.engine);
    assert_eq!(row.status, ServerState::Unresponsive, "{row:?}");
    let detail = row.detail.clone().unwrap_or_default();
    assert!(detail.contains(PROBE_METHOD), "{detail}");
    assert_eq!(row.server_pid, None, "{row:?}");
    // The same status on every surface: the engine's rows.
    let fake = s.engine.status().into_iter().find(|r| r.id == "fake");
    assert_eq!(fake.map(|r| r.status), Some(ServerState::Unresponsive));

    // Restarted once, as after a crash; it stops answering again.
    assert_eq!(check(&s.engine, &s.file).await, Outcome::TimedOut);
    assert_eq!(status(&s.engine).starts, 2);
    until_unresponsive(&s.engine).await;

    // Then broken: the next check is refused at once, not after a deadline.
    assert_eq!(check(&s.engine, &s.file).await, Outcome::Unavailable);
    let row = status(&s.engine);
    assert_eq!(
        (row.status, row.starts),
        (ServerState::Broken, 2),
        "{row:?}"
    );
    assert_eq!(probes(&s.log), 2, "one probe per start");
    s.engine.shutdown().await;
}

#[tokio::test]
async fn a_silent_server_is_stopped_as_unresponsive_restarted_once_then_broken() {
    stops_answering(json!({"fault": {"kind": "hang"}})).await;
}

#[tokio::test]
async fn a_server_stuck_in_a_frame_is_stopped_as_unresponsive() {
    stops_answering(json!({"fault": {"kind": "stuckFrame"}})).await;
}

#[tokio::test]
async fn a_server_that_answers_the_probe_is_slow_not_stuck() {
    let s = setup(json!({"fault": {"kind": "neverPublish"}}));
    for _ in 0..3 {
        assert_eq!(check(&s.engine, &s.file).await, Outcome::TimedOut);
    }
    // Each timed-out check probed it (one at a time) and it answered.
    let probed = support::poll_until_async(Duration::from_secs(10), || {
        logged(&s.log).iter().any(|v| {
            v["dir"] == "out" && v["msg"]["error"]["code"] == -32601 && v["msg"]["id"].is_number()
        })
    })
    .await;
    assert!(probed, "the fake never answered a probe");
    let row = status(&s.engine);
    assert_eq!(
        (row.status, row.starts),
        (ServerState::Active, 1),
        "{row:?}"
    );
    assert!(s.engine.pool().clients()[0].unresponsive().is_none());
    s.engine.shutdown().await;
}

#[tokio::test]
async fn a_server_that_publishes_is_not_probed() {
    let s = setup(json!({}));
    assert_eq!(check(&s.engine, &s.file).await, Outcome::Settled);
    assert_eq!(probes(&s.log), 0);
    s.engine.shutdown().await;
}
