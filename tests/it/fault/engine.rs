//! The fault matrix through the Engine API (`Engine::edit`): every scripted
//! misbehaviour of `squiggle-fake-lsp` (`docs/fake-server.md`), and for each
//! the same four promises. The edit is on disk exactly as asked; every call
//! returns within its deadline plus a small bound; the server's status follows
//! the pool's policy (restart once, then `broken`); after shutdown no server
//! process of this test is left and this process holds no more file
//! descriptors than before. The table in `docs/reliability.md` lists each row.
//!
//! Each test runs alone in a fresh copy of the test binary
//! (`support::process::alone`), on its own runtime, so that the fd count of
//! the process (taken before the runtime exists and after it is dropped) is
//! this test's alone: a leaked task, pipe or child shows up as a difference.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use squiggle::config::Config;
use squiggle::engine::tools::{Mode, Replace};
use squiggle::engine::{Engine, InstanceStatus, ServerState};
use tokio::time::Instant;

use crate::support;
use crate::support::fake_server::FakeServer;
use crate::support::faults::{
    Fault, diagnostic_timeout_ms, fault, first_touch_timeout_ms, time_scale,
};
use crate::support::poll_until_async;
use crate::support::process::{alone, descendants_in, fds_within, none_left_in, open_fds};

/// What a call may take beyond its deadline (scheduling, process start),
/// at native speed.
const SLACK_MS: u64 = 1500;
/// Shutdown: the 2 s grace for `shutdown`, then exit and kill.
const SHUTDOWN_BOUND: Duration = Duration::from_secs(6);

fn engine(root: &Path, script: Value) -> Arc<Engine> {
    let mut config = Config::default();
    config
        .servers
        .insert("fake".into(), FakeServer::new(script).to_override());
    config.diagnostic_timeout = Duration::from_millis(diagnostic_timeout_ms());
    config.first_touch_timeout = Duration::from_millis(first_touch_timeout_ms());
    support::engine(root, config)
}

fn status(engine: &Engine) -> InstanceStatus {
    let statuses = engine.pool().statuses();
    assert_eq!(statuses.len(), 1, "{statuses:?}");
    statuses[0].clone()
}

/// Runs the test `test` of this module ([`edits_and_fds`]) alone ([`alone`]).
fn run(test: &str, fault: Fault) {
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    alone(&format!("{module}::{test}"), || edits_and_fds(fault));
}

/// Three edits against a server with the fault's script, then shutdown,
/// checking every promise of the module doc.
fn edits_and_fds(fault: Fault) {
    let name = fault.name;
    warm_up();
    let fds_before = open_fds(None);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("runtime: {e}"));
    runtime.block_on(edits_then_shutdown(&fault));
    drop(runtime);
    let settled = support::poll_until(Duration::from_secs(5), || {
        fds_within(open_fds(None), fds_before, 0)
    });
    assert!(
        settled,
        "{name}: {:?} fds open after shutdown, {fds_before:?} before",
        open_fds(None)
    );
}

/// tokio keeps process-wide state for child processes (the SIGCHLD pipe)
/// from the first spawn on; create it before the first baseline.
fn warm_up() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap_or_else(|e| panic!("runtime: {e}"));
        runtime.block_on(async {
            let fake = env!("CARGO_BIN_EXE_squiggle-fake-lsp");
            let _ = tokio::process::Command::new(fake)
                .env(
                    "SQUIGGLE_FAKE_SCRIPT_JSON",
                    r#"{"fault":{"kind":"exitImmediately"}}"#,
                )
                .status()
                .await;
        });
    });
}

async fn edits_then_shutdown(fault: &Fault) {
    let name = fault.name;
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let root: PathBuf = tmp
        .path()
        .canonicalize()
        .unwrap_or_else(|e| panic!("canonicalize: {e}"));
    let path = root.join("a.fk");
    std::fs::write(&path, "v0 @error(e)\n").unwrap_or_else(|e| panic!("write: {e}"));
    let engine = engine(&root, fault.script.clone());

    for i in 0..3 {
        let started = Instant::now();
        let result = engine
            .edit(
                &path,
                &format!("v{i}"),
                &format!("v{}", i + 1),
                Replace::Once,
                Mode::Apply,
            )
            .await
            .unwrap_or_else(|e| panic!("{name}: edit {i} refused: {e}"));
        let elapsed = started.elapsed();
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert_eq!(
            on_disk,
            format!("v{} @error(e)\n", i + 1),
            "{name}: edit {i}"
        );
        assert!(
            result.text().starts_with("Edit applied successfully."),
            "{name}: {}",
            result.text()
        );
        let bound = Duration::from_millis(first_touch_timeout_ms() + SLACK_MS * time_scale());
        assert!(
            elapsed < bound,
            "{name}: edit {i} took {elapsed:?} (bound {bound:?})"
        );
        if i == 0
            && let Some(first) = fault.first
        {
            let outcomes = &result.outcomes["a.fk"];
            assert_eq!(outcomes[0].outcome, first, "{name}: {outcomes:?}");
        }
        // A server that dies after answering must be seen dead before the
        // next edit, or the next edit would not be the restart.
        if fault.broken {
            let gone = poll_until_async(Duration::from_secs(5), || {
                engine.pool().clients().is_empty()
            })
            .await;
            assert!(
                gone,
                "{name}: a dying server still looks alive after edit {i}"
            );
        }
    }
    let s = status(&engine);
    let state = if fault.broken {
        ServerState::Broken
    } else {
        ServerState::Active
    };
    assert_eq!(
        (s.status, u64::from(s.starts)),
        (state, fault.starts()),
        "{name}: {s:?}"
    );

    let started = Instant::now();
    engine.shutdown().await;
    let took = started.elapsed();
    assert!(took < SHUTDOWN_BOUND, "{name}: shutdown took {took:?}");
    let me = std::process::id();
    let clean = poll_until_async(Duration::from_secs(5), || none_left_in(me, &root)).await;
    assert!(
        clean,
        "{name}: server processes left after shutdown: {:?}",
        descendants_in(me, &root)
    );
}

#[test]
fn crash_before_initialize_answers() {
    run(
        "crash_before_initialize_answers",
        fault("crashOnInitialize"),
    );
}

#[test]
fn crash_mid_request() {
    run("crash_mid_request", fault("crashOnRequest"));
}

#[test]
fn crash_right_after_publishing() {
    run("crash_right_after_publishing", fault("crashAfterPublish"));
}

#[test]
fn hang_forever() {
    run("hang_forever", fault("hang"));
}

#[test]
fn stuck_in_a_frame() {
    run("stuck_in_a_frame", fault("stuckFrame"));
}

#[test]
fn hang_before_initialize_answers() {
    run("hang_before_initialize_answers", fault("hangOnInitialize"));
}

#[test]
fn answers_but_never_publishes() {
    run("answers_but_never_publishes", fault("neverPublish"));
}

#[test]
fn publishes_in_an_endless_loop() {
    run("publishes_in_an_endless_loop", fault("publishLoop"));
}

#[test]
fn floods_stderr() {
    run("floods_stderr", fault("stderrFlood"));
}

#[test]
fn garbage_frames() {
    run("garbage_frames", fault("garbageFrames"));
}

#[test]
fn junk_header_lines() {
    run("junk_header_lines", fault("junkHeaderLines"));
}

#[test]
fn partial_frame_then_exit() {
    run("partial_frame_then_exit", fault("partialFrame"));
}

#[test]
fn oversized_frame() {
    run("oversized_frame", fault("oversizedFrame"));
}

#[test]
fn storm_of_server_requests() {
    run("storm_of_server_requests", fault("requestStorm"));
}

#[test]
fn exits_zero_at_once() {
    run("exits_zero_at_once", fault("exitImmediately"));
}

#[test]
fn exits_right_after_initialize() {
    run("exits_right_after_initialize", fault("exitAfterInitialize"));
}

#[test]
fn initialize_slower_than_first_touch_timeout() {
    run(
        "initialize_slower_than_first_touch_timeout",
        fault("initializeDelayMs"),
    );
}

#[test]
fn ignores_shutdown() {
    run("ignores_shutdown", fault("ignoreShutdown"));
}

#[test]
fn ignores_exit() {
    run("ignores_exit", fault("ignoreExit"));
}
