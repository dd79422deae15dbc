//! The fault matrix, once: every scripted misbehaviour of
//! `squiggle-fake-lsp` (`docs/fake-server.md`) and what a surface must show
//! after three edits against it. `fault::engine`, `fault::service` and
//! `fault::mcp` each run the rows through their own surface; the deadlines
//! are shared so a row means the same thing everywhere.

use serde_json::{Value, json};
use squiggle::diagnostic::Outcome;

use crate::support::fake_server::{self, FakeServer};

/// How much slower than native this run is, as a factor on the matrix's
/// deadlines: `SQUIGGLE_TEST_TIME_SCALE`, which `scripts/cross-test` sets
/// from `scripts/cross/platforms.toml` for an emulator that moves the rows'
/// volumes (a 70 MiB frame, 8 MB of stderr, 2,000 requests) through pipes
/// slower than the native deadlines allow (wine); 1 otherwise. Every
/// deadline and delay of a row scales alike, so a row means the same.
pub fn time_scale() -> u64 {
    std::env::var("SQUIGGLE_TEST_TIME_SCALE")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|&n| n >= 1)
        .unwrap_or(1)
}

/// The rows' diagnostics deadline.
pub fn diagnostic_timeout_ms() -> u64 {
    500 * time_scale()
}

/// The rows' first-touch deadline.
pub fn first_touch_timeout_ms() -> u64 {
    1500 * time_scale()
}

/// The `.squiggle.toml` of a row's workspace: the shared deadlines, and the
/// fake running `script` as `[lsp.servers.fake]`.
pub fn squiggle_toml(script: Value) -> String {
    let deadlines = format!(
        "diagnosticTimeout = {}\nfirstTouchTimeout = {}",
        diagnostic_timeout_ms(),
        first_touch_timeout_ms()
    );
    fake_server::squiggle_toml(&deadlines, &FakeServer::new(script))
}

/// One row of the matrix.
pub struct Fault {
    /// The fault's name (the script's `fault.kind`, or the key it sets).
    pub name: &'static str,
    /// The fake's script.
    pub script: Value,
    /// The pool gives up on the server (restarted once, then `broken`);
    /// otherwise it stays `active` on its first start.
    pub broken: bool,
    /// The first edit's outcome, when it is certain.
    pub first: Option<Outcome>,
}

impl Fault {
    /// The status `lsp/status` shows after the three edits.
    pub fn state(&self) -> &'static str {
        if self.broken { "broken" } else { "active" }
    }

    /// How many times the server was started by then.
    pub fn starts(&self) -> u64 {
        if self.broken { 2 } else { 1 }
    }
}

fn kind(kind: &str) -> Value {
    json!({"fault": {"kind": kind}})
}

/// Every row.
pub fn faults() -> Vec<Fault> {
    let row = |name, script, broken, first| Fault {
        name,
        script,
        broken,
        first,
    };
    let (broken, active) = (true, false);
    let unavailable = Some(Outcome::Unavailable);
    let settled = Some(Outcome::Settled);
    let timed_out = Some(Outcome::TimedOut);
    vec![
        row(
            "crashOnInitialize",
            kind("crashOnInitialize"),
            broken,
            unavailable,
        ),
        row(
            "crashOnRequest",
            json!({"diagnosticMode": "pull",
                "fault": {"kind": "crashOnRequest", "method": "textDocument/diagnostic"}}),
            broken,
            Some(Outcome::ServerDead),
        ),
        // Settled or server_dead: the crash races the wait's end.
        row("crashAfterPublish", kind("crashAfterPublish"), broken, None),
        // Silent after `initialize`: the wait and then a health probe go
        // unanswered, so it is stopped as unresponsive, like a crash.
        row("hang", kind("hang"), broken, timed_out),
        // Half a frame, then silence: the reader waits for the rest forever.
        row("stuckFrame", kind("stuckFrame"), broken, timed_out),
        row(
            "hangOnInitialize",
            kind("hangOnInitialize"),
            broken,
            unavailable,
        ),
        row("neverPublish", kind("neverPublish"), active, timed_out),
        row(
            "publishLoop",
            json!({"fault": {"kind": "publishLoop", "intervalMs": 2}}),
            active,
            settled,
        ),
        row(
            "stderrFlood",
            json!({"fault": {"kind": "stderrFlood", "bytes": 8_000_000}}),
            active,
            settled,
        ),
        row("garbageFrames", kind("garbageFrames"), active, settled),
        row("junkHeaderLines", kind("junkHeaderLines"), active, settled),
        row("partialFrame", kind("partialFrame"), broken, None),
        row(
            "oversizedFrame",
            json!({"fault": {"kind": "oversizedFrame", "bytes": 70 * 1024 * 1024}}),
            active,
            settled,
        ),
        row(
            "requestStorm",
            json!({"fault": {"kind": "requestStorm", "count": 2000}}),
            active,
            settled,
        ),
        row(
            "exitImmediately",
            kind("exitImmediately"),
            broken,
            unavailable,
        ),
        row(
            "exitAfterInitialize",
            kind("exitAfterInitialize"),
            broken,
            None,
        ),
        row(
            "initializeDelayMs",
            json!({"initializeDelayMs": first_touch_timeout_ms() + 2000 * time_scale()}),
            broken,
            unavailable,
        ),
        row("ignoreShutdown", kind("ignoreShutdown"), active, settled),
        row("ignoreExit", kind("ignoreExit"), active, settled),
    ]
}

/// The row named `name`.
pub fn fault(name: &str) -> Fault {
    faults()
        .into_iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no fault {name} in the table"))
}
