//! `squiggle audit` as a new user meets it: a change the agent fully
//! reverted and an importer the next write repaired are not "never
//! fixed"; a read-only `check` and a session's opening leave no record;
//! one log shared by two workspaces is summed up per workspace (the one of
//! the current directory, or `--root`), and `--all` names each file under
//! its workspace's root.

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use super::squiggle;
use crate::support;
use crate::support::fake_server::FakeServer;
use crate::support::scratch::Scratch;
use crate::support::service::{Framing, Service};

/// A workspace served by the fake alone (it publishes the `@error(…)`
/// markers), the evidence log on at the returned path.
fn quick() -> (Scratch, std::path::PathBuf) {
    let ws = Scratch::bare();
    let log = ws.outer.join("state/evidence.jsonl");
    let fake = FakeServer::new(json!({}));
    let user = format!(
        "[lsp]\n[lsp.evidence]\npath = {}\n{}",
        support::fake_server::toml_string(&log.display().to_string()),
        fake.toml("fake"),
    );
    support::scratch::write_under(&ws.config_home, "squiggle/config.toml", user.as_bytes());
    (ws, log)
}

fn ok(out: &Output) {
    assert_eq!(out.status.code(), Some(0), "{}", support::both(out));
}

fn edit(ws: &Scratch, file: &str, old: &str, new: &str) {
    ok(&squiggle(
        ws,
        &["edit", file, "--old-string", old, "--new-string", new],
        "",
    ));
}

fn audit(ws: &Scratch, args: &[&str]) -> (Option<i32>, Value) {
    let mut all = vec!["audit", "--json"];
    all.extend_from_slice(args);
    let out = squiggle(ws, &all, "");
    let summary = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", support::both(&out)));
    (out.status.code(), summary)
}

fn lines(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// A file with an error from before; the agent's edit changes that error
/// into another (a regression), and its next edit puts the text back as it
/// was: the file is as before the regression, so nothing is open. Audit
/// said "never fixed" for both edits.
#[test]
fn a_fully_reverted_change_is_not_never_fixed() {
    let (ws, _log) = quick();
    ws.write("a.fk", "@error(old)\n");
    edit(&ws, "a.fk", "old", "new");
    edit(&ws, "a.fk", "new", "old");
    let (code, summary) = audit(&ws, &[]);
    assert_eq!(summary["unfixed"], json!([]), "{summary:#}");
    assert_eq!(code, Some(0), "{summary:#}");
    assert_eq!(summary["changes"], 2, "{summary:#}");
}

/// An importer that had an error and has none after the next write: the
/// change's record left it out (only other files with errors were
/// listed), so a regression on it stayed "never fixed" for audit. Every
/// other file the check waited on is listed, with its counts.
#[test]
fn a_change_lists_the_importer_it_repaired() {
    let (ws, log) = quick();
    ws.write("util.fk", "one\n");
    ws.write("app.fk", "import util\n@error(app lost its import)\n");
    ok(&squiggle(&ws, &["write", "util.fk"], "two\n"));
    ws.write("app.fk", "import util\nfine\n");
    ok(&squiggle(&ws, &["write", "util.fk"], "three\n"));
    let app = |record: &Value| {
        record["files"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|f| f["path"] == "app.fk")
            .cloned()
    };
    let changes: Vec<Value> = lines(&log)
        .into_iter()
        .filter(|r| r["kind"] == "change")
        .collect();
    assert_eq!(changes.len(), 2, "{changes:#?}");
    assert_eq!(
        app(&changes[0]).map(|f| f["errors_after"].clone()),
        Some(json!(1))
    );
    assert_eq!(
        app(&changes[1]),
        Some(
            json!({"path": "app.fk", "other": true, "errors_before": 0, "errors_after": 0, "new_errors": 0})
        ),
        "{:#}",
        changes[1]
    );
}

/// `squiggle check` of a file with an error, and a session opened over
/// it, change nothing: no record (they were logged as changes that
/// introduced the error).
#[test]
fn a_read_only_check_and_a_session_opening_write_no_record() {
    let (ws, log) = quick();
    ws.write("a.fk", "@error(there before)\n");
    let out = squiggle(&ws, &["check", "a.fk"], "");
    assert_eq!(out.status.code(), Some(1), "{}", support::both(&out));
    assert_eq!(lines(&log), Vec::<Value>::new());

    let mut command = ws.command(&["serve", "--root"]);
    command.arg(&ws.root);
    let mut svc = Service::spawn(&mut command, Framing::Headers);
    let opened = svc.ok("squiggle/sessionOpen", json!({"paths": ["a.fk"]}));
    assert!(opened["session"].is_string(), "{opened}");
    svc.ok(
        "squiggle/sessionDiscard",
        json!({"session": opened["session"]}),
    );
    drop(svc);
    assert_eq!(lines(&log), Vec::<Value>::new());
}

/// Two workspaces, one log: audit in each names only its own records,
/// `--root` picks the other, and `--all` names each file under its root.
#[test]
fn one_log_is_summed_up_per_workspace() {
    let (ws, _log) = quick();
    let other = ws.outer.join("other");
    std::fs::create_dir(&other).unwrap_or_else(|e| panic!("{e}"));
    ws.write("a.fk", "start\n");
    edit(&ws, "a.fk", "start", "@error(here)");
    std::fs::write(other.join("a.fk"), "start\n").unwrap_or_else(|e| panic!("{e}"));
    let mut command = ws.command(&["write", "a.fk"]);
    command.current_dir(&other).env("SQUIGGLE_NO_DAEMON", "1");
    ok(&support::output_with_stdin(&mut command, "fine\n"));

    let (code, here) = audit(&ws, &[]);
    assert_eq!(code, Some(1), "{here:#}");
    assert_eq!(here["workspace"], ws.root.display().to_string());
    assert_eq!(
        (here["changes"].as_u64(), here["other_workspaces"].as_u64()),
        (Some(1), Some(1)),
        "{here:#}"
    );
    assert_eq!(here["unfixed"][0]["path"], "a.fk", "{here:#}");

    let root = other.display().to_string();
    let (code, there) = audit(&ws, &["--root", &root]);
    assert_eq!(code, Some(0), "{there:#}");
    assert_eq!(there["workspace"], root);
    assert_eq!(
        (
            there["changes"].as_u64(),
            there["other_workspaces"].as_u64()
        ),
        (Some(1), Some(2)),
        "{there:#}"
    );

    let out = squiggle(&ws, &["audit", "--all"], "");
    let text = String::from_utf8_lossy(&out.stdout);
    let mine = format!("  {}/a.fk: 1 new error(s)", ws.root.display());
    assert!(text.contains(&mine), "{text}");
    assert!(
        text.contains(&format!(
            "  {root}/a.fk: 1 change(s), 0 regression(s), 0 never fixed"
        )),
        "{text}"
    );
}
