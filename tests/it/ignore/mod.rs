//! Ignore rules and acknowledgements on every surface: a diagnostic an
//! `ignore` rule matches (by code, source, path glob, message, under a
//! server's table for that server only), or one acknowledged as a false
//! positive, is hidden from what the model reads — `squiggle write`,
//! `squiggle check`, `squiggle/check` (the hooks' method) through
//! `serve`, MCP — counted in one line, kept in structured results with
//! `ignored: true`, never an error for an exit code. An acknowledgement
//! holds while its line reads the same, wherever the line moves; the
//! evidence log records it and `squiggle audit` lists it. The rules come
//! from the workspace file (no trust needed), followed on reload.

mod surfaces;

use std::path::PathBuf;
use std::process::Output;

use serde_json::{Value, json};

use crate::support;
use crate::support::fake_server::{FakeServer, toml_string};
use crate::support::scratch::Scratch;

/// A workspace whose user configuration runs the fake on `.fk` files
/// (with the evidence log on at the returned path); `rules` is the
/// workspace file's `[lsp]` body.
fn workspace(rules: &str) -> (Scratch, PathBuf) {
    let ws = Scratch::bare();
    let log = ws.outer.join("state/evidence.jsonl");
    let user = format!(
        "[lsp]\ndiagnosticTimeout = 5000\n[lsp.evidence]\npath = {}\n{}",
        toml_string(&log.display().to_string()),
        FakeServer::new(json!({})).toml("fake"),
    );
    ws.write_home_config(&user);
    ws.write(".squiggle.toml", &format!("[lsp]\n{rules}\n"));
    (ws, log)
}

trait Config {
    fn write_home_config(&self, text: &str);
}

impl Config for Scratch {
    fn write_home_config(&self, text: &str) {
        std::fs::create_dir_all(self.config_home.join("squiggle"))
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(self.config_home.join("squiggle/config.toml"), text)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

/// `squiggle ARGS` in `ws` without a daemon, `stdin` on its input.
fn squiggle(ws: &Scratch, args: &[&str], stdin: &str) -> Output {
    let mut command = ws.command(args);
    command.env("SQUIGGLE_NO_DAEMON", "1");
    support::output_with_stdin(&mut command, stdin)
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn json_out(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", support::both(out)))
}

/// The messages of a JSON list of diagnostics.
fn messages(list: &Value) -> Vec<String> {
    let mut all: Vec<String> = list
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["message"].as_str().map(str::to_string))
        .collect();
    all.sort();
    all
}

const FIVE: &str = "a @error[E1](by-code)\nb @error(by-message-part)\nc @error[E3](per-server)\nd @error[E4](other-server)\ne @error(kept)\n";

const RULES: &str = "ignore = [{ code = \"E1\" }, { message = \"message-part\" }, { path = \"gen/**\", source = \"fake\" }]\n[lsp.servers.fake]\nignore = [{ code = \"E3\" }]\n[lsp.servers.pyright]\nignore = [{ code = \"E4\" }]";

#[test]
fn rules_hide_by_code_message_path_source_and_server_through_the_cli() {
    let (ws, _) = workspace(RULES);
    let out = squiggle(&ws, &["write", "a.fk"], FIVE);
    assert_eq!(out.status.code(), Some(0), "{}", support::both(&out));
    let text = stdout(&out);
    for hidden in ["by-code", "by-message-part", "per-server"] {
        assert!(!text.contains(hidden), "{hidden} shown:\n{text}");
    }
    // A rule under another server's table does not hold for the fake's.
    assert!(
        text.contains("other-server") && text.contains("kept"),
        "{text}"
    );
    assert!(
        text.ends_with("3 diagnostics hidden by ignore rules\n"),
        "{text}"
    );

    ws.write("gen/b.fk", "@error[E9](generated)\n");
    let out = squiggle(&ws, &["check", "a.fk", "gen/b.fk", "--json"], "");
    assert_eq!(out.status.code(), Some(1), "{}", support::both(&out));
    let answer = json_out(&out);
    assert_eq!(answer["summary"]["errors"], 2, "{answer}");
    let ignored = &answer["ignored"];
    assert_eq!(
        messages(ignored),
        ["by-code", "by-message-part", "generated", "per-server"],
        "{answer}"
    );
    assert!(
        ignored
            .as_array()
            .into_iter()
            .flatten()
            .all(|d| d["ignored"] == true),
        "{answer}"
    );

    // Only hidden errors: nothing fails.
    let out = squiggle(&ws, &["check", "gen/b.fk"], "");
    assert_eq!(out.status.code(), Some(0), "{}", support::both(&out));
    assert_eq!(stdout(&out), "1 diagnostic hidden by ignore rules\n");
}

#[test]
fn a_bad_rule_stops_the_run_naming_the_file_and_key() {
    for (rules, key) in [
        ("ignore = [{}]", "lsp.ignore[0]: an empty rule"),
        (
            "ignore = [{ cod = \"E1\" }]",
            "lsp.ignore[0].cod: unknown key",
        ),
        (
            "[lsp.servers.fake]\nignore = [{ path = \"[\" }]",
            "lsp.servers.fake.ignore[0].path: expected a glob",
        ),
    ] {
        let (ws, _) = workspace(rules);
        let out = squiggle(&ws, &["check", "a.fk"], "");
        assert_eq!(out.status.code(), Some(2), "{}", support::both(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(".squiggle.toml: ") && err.contains(key),
            "{rules}: {err}"
        );
    }
}

#[test]
fn an_acknowledgement_holds_until_its_line_changes_and_audit_lists_it() {
    let (ws, log) = workspace("");
    ws.write("a.fk", "first\nx @error[E5](false-positive)\n");
    let refused = squiggle(&ws, &["ack", "a.fk", "--line", "1", "--reason", "no"], "");
    assert_eq!(
        refused.status.code(),
        Some(1),
        "{}",
        support::both(&refused)
    );
    let out = squiggle(
        &ws,
        &[
            "ack",
            "a.fk",
            "--line",
            "2",
            "--reason",
            "set at runtime by the loader",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", support::both(&out));
    assert!(ws.root.join(".squiggle/acknowledgements.json").is_file());

    let check = |ws: &Scratch| squiggle(ws, &["check", "a.fk"], "");
    let out = check(&ws);
    assert_eq!(out.status.code(), Some(0), "{}", support::both(&out));
    assert_eq!(stdout(&out), "1 diagnostic hidden by an acknowledgement\n");

    // Lines above it move it; it still reads the same.
    ws.write("a.fk", "zero\nfirst\nx @error[E5](false-positive)\n");
    assert_eq!(check(&ws).status.code(), Some(0));
    // Its line changes: it is shown again.
    ws.write("a.fk", "zero\nfirst\ny @error[E5](false-positive)\n");
    let out = check(&ws);
    assert_eq!(out.status.code(), Some(1), "{}", support::both(&out));
    assert!(stdout(&out).contains("false-positive"), "{}", stdout(&out));

    let out = squiggle(&ws, &["ack", "--list"], "");
    assert!(
        stdout(&out).contains("a.fk:2 fake E5: set at runtime by the loader"),
        "{}",
        stdout(&out)
    );
    let out = squiggle(&ws, &["ack", "a.fk", "--remove"], "");
    assert_eq!(out.status.code(), Some(0), "{}", support::both(&out));

    let out = squiggle(&ws, &["audit"], "");
    let text = stdout(&out);
    assert!(
        text.contains("Acknowledged as false positives:"),
        "{}",
        support::both(&out)
    );
    assert!(text.contains("a.fk:2 fake E5: acknowledged at"), "{text}");
    assert!(
        text.contains("by cli: set at runtime by the loader"),
        "{text}"
    );
    assert!(text.contains("a.fk:2 fake E5: removed at"), "{text}");
    let records = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(
        records.matches("\"kind\":\"acknowledgement\"").count(),
        2,
        "{records}"
    );
}
