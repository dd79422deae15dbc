//! The fault matrix through the service API: `squiggle serve` over stdio,
//! configured by a `.squiggle.toml` whose custom server is the scripted fake
//! with one fault. For each fault, three `squiggle/edit` calls: each lands on
//! disk exactly as asked and is answered within its deadline plus a small
//! bound; `lsp/status` then shows the pool's policy (restart once, then
//! `broken`); the service's fd count does not grow with dead servers; and
//! after `lsp/shutdown` no process the service started is left.
//!
//! This test process makes itself a child subreaper, so that a server the
//! service orphans is re-parented here and found by the `/proc` walk.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::faults::{Fault, fault, first_touch_timeout_ms, squiggle_toml, time_scale};
use crate::support::poll_until;
use crate::support::process::{
    descendants, descendants_in, fds_within, none_left_in, open_fds, subreaper,
};
use crate::support::service::{Service, Workspace};

/// What a call may take beyond its deadline (scheduling, process start).
const SLACK_MS: u64 = 1500;

/// A workspace whose fake runs `script`, with short deadlines.
fn workspace(script: Value) -> Workspace {
    let ws = Workspace::bare();
    ws.write(".squiggle.toml", &squiggle_toml(script));
    ws
}

fn fake_status(svc: &mut Service) -> Value {
    let status = svc.ok("lsp/status", Value::Null);
    status
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["id"] == "fake"))
        .cloned()
        .unwrap_or_else(|| panic!("no fake in {status}"))
}

/// Three edits, the status, then shutdown; `state` and `starts` are what
/// `lsp/status` must show after the edits.
fn run(fault: Fault) {
    let (name, state, starts) = (fault.name, fault.state(), fault.starts());
    let script = fault.script;
    subreaper();
    let ws = workspace(script);
    let path = ws.write("a.fk", "v0 @error(e)\n");
    let mut svc = Service::start(&ws);
    let pid = svc.child.id();
    svc.ok("lsp/status", Value::Null);
    let fds_before = open_fds(Some(pid));

    for i in 0..3 {
        let started = Instant::now();
        let edited = svc.ok(
            "squiggle/edit",
            json!({"filePath": "a.fk", "oldString": format!("v{i}"), "newString": format!("v{}", i + 1)}),
        );
        let elapsed = started.elapsed();
        assert_eq!(edited["message"], "Edit applied successfully.", "{name}");
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert_eq!(
            on_disk,
            format!("v{} @error(e)\n", i + 1),
            "{name}: edit {i}"
        );
        let bound = Duration::from_millis(first_touch_timeout_ms() + SLACK_MS * time_scale());
        assert!(elapsed < bound, "{name}: edit {i} took {elapsed:?}");
        if state == "broken" {
            // A dying server must be seen dead before the next edit.
            let gone = poll_until(Duration::from_secs(5), || descendants(pid).is_empty());
            assert!(
                gone,
                "{name}: the server outlived its crash: {:?}",
                descendants(pid)
            );
        }
    }
    let fake = fake_status(&mut svc);
    assert_eq!(
        (fake["status"].as_str(), fake["starts"].as_u64()),
        (Some(state), Some(starts)),
        "{name}: {fake}"
    );
    let fds = open_fds(Some(pid));
    if state == "broken" {
        assert!(
            fds_within(fds, fds_before, 0),
            "{name}: {fds:?} fds with every server dead, {fds_before:?} before"
        );
    } else {
        // One live server: its stdin, stdout and stderr pipes, and a pidfd.
        assert!(
            fds_within(fds, fds_before, 4),
            "{name}: {fds:?} fds with one server, {fds_before:?} before"
        );
    }

    let started = Instant::now();
    assert_eq!(svc.ok("lsp/shutdown", json!({})), Value::Null, "{name}");
    assert_eq!(svc.wait(), Some(0), "{name}");
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(6),
        "{name}: shutdown took {took:?}"
    );
    let me = std::process::id();
    let clean = poll_until(Duration::from_secs(5), || none_left_in(me, &ws.root));
    assert!(
        clean,
        "{name}: processes left after shutdown: {:?}",
        descendants_in(me, &ws.root)
    );
}

#[test]
fn crash_before_initialize_answers() {
    run(fault("crashOnInitialize"));
}

#[test]
fn crash_mid_request() {
    run(fault("crashOnRequest"));
}

#[test]
fn crash_right_after_publishing() {
    run(fault("crashAfterPublish"));
}

#[test]
fn hang_forever() {
    run(fault("hang"));
}

#[test]
fn stuck_in_a_frame() {
    run(fault("stuckFrame"));
}

#[test]
fn hang_before_initialize_answers() {
    run(fault("hangOnInitialize"));
}

#[test]
fn answers_but_never_publishes() {
    run(fault("neverPublish"));
}

#[test]
fn publishes_in_an_endless_loop() {
    run(fault("publishLoop"));
}

#[test]
fn floods_stderr() {
    run(fault("stderrFlood"));
}

#[test]
fn garbage_frames() {
    run(fault("garbageFrames"));
}

#[test]
fn partial_frame_then_exit() {
    run(fault("partialFrame"));
}

#[test]
fn oversized_frame() {
    run(fault("oversizedFrame"));
}

#[test]
fn storm_of_server_requests() {
    run(fault("requestStorm"));
}

#[test]
fn exits_zero_at_once() {
    run(fault("exitImmediately"));
}

#[test]
fn initialize_slower_than_first_touch_timeout() {
    run(fault("initializeDelayMs"));
}

#[test]
fn ignores_shutdown_and_exit() {
    run(fault("ignoreShutdown"));
    run(fault("ignoreExit"));
}
