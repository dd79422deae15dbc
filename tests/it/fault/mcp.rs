//! The fault matrix through the MCP server: for each fault, one
//! `squiggle mcp` session (driven by the official `mcp` Python SDK,
//! `tests/clients/python/faults.py`) against a workspace whose
//! `.squiggle.toml` names the scripted fake with that fault as a custom
//! server. Three `edit_file`
//! calls: each answered without an MCP error within 3 s and on disk byte for
//! byte; `lsp_status` then shows the pool's policy (restart once, then
//! `broken`, as `tests/it/fault/service.rs` asserts for the same fault); the
//! session closes within 6 s (the service test's shutdown bound); and no
//! process working in the workspace is left.
//!
//! This test process makes itself a child subreaper, so that a server
//! orphaned by `squiggle mcp` (or `squiggle mcp` orphaned by the Python
//! client) is re-parented here and found by the `/proc` walk.

use std::time::Duration;

use crate::support::faults::{Fault, fault, squiggle_toml};
use crate::support::mcp;
use crate::support::poll_until;
use crate::support::process::{descendants_in, none_left_in, subreaper};
use crate::support::scratch::Scratch;

/// How long closing the session may take, as `lsp/shutdown` in
/// `tests/it/fault/service.rs`. The Python SDK closes stdin, waits 2 s, then
/// SIGTERMs `squiggle mcp`'s process group (see the `hang` note in
/// `docs/reliability.md`: that row leaks its fake today and is left out). The fakes run in their own process groups,
/// so the SDK's kill never reaches them: the `/proc` walk below still sees
/// any that `squiggle mcp` leaves.
const CLOSE_BOUND_S: f64 = 6.0;

/// One session with the fake running `script`; `state` and `starts` are what
/// `lsp_status` must show after the three edits.
fn run(fault: Fault) {
    let (name, state, starts) = (fault.name, fault.state(), fault.starts());
    let script = fault.script;
    let Some(python) = mcp::require(mcp::tools().join("venv/bin/python"), "the Python mcp SDK")
    else {
        return;
    };
    subreaper();
    let ws = Scratch::with_git_root();
    ws.write(".squiggle.toml", &squiggle_toml(script));
    ws.write("a.fk", "v0 @error(e)\n");

    let mut command = mcp::sdk_script(&python, "faults.py", &ws.root, &ws.config_home);
    command
        .arg(name)
        .arg(state)
        .arg(starts.to_string())
        .current_dir(&ws.outer)
        .env("HOME", &ws.outer)
        .env_remove("RUST_LOG");
    let stdout = mcp::passes(command, &format!("{name}: faults.py"));
    let closed = stdout
        .lines()
        .find_map(|l| l.strip_prefix("closed in "))
        .and_then(|s| s.trim_end_matches(" s").parse::<f64>().ok())
        .unwrap_or_else(|| panic!("{name}: no close time in:\n{stdout}"));
    assert!(
        closed < CLOSE_BOUND_S,
        "{name}: squiggle mcp took {closed} s to exit after its stdin closed:\n{stdout}"
    );

    let me = std::process::id();
    let clean = poll_until(Duration::from_secs(5), || none_left_in(me, &ws.root));
    assert!(
        clean,
        "{name}: processes left after the session: {:?}",
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
fn hang_forever() {
    run(fault("hang"));
}
