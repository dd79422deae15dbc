//! Every reply about a change is about the whole change, with real pyright
//! through a warm daemon: a patch whose first file is the importer
//! (`app.py` renaming its import of a symbol that `geometry.py` renames
//! further down the diff) reports no false "unknown import symbol", run
//! after run; and a file over the size limit is named as not checked,
//! never shown as clean, and fails `check --require-servers`.

use super::Ws;
use crate::support::scratch::Scratch;
use crate::support::{both, require_program};

const RUNS: usize = 20;

/// `geometry.py` defining `name`, and `app.py` importing and calling it.
fn files(name: &str) -> [(&'static str, String); 2] {
    [
        (
            "geometry.py",
            format!("def {name}(areas: list[float]) -> float:\n    return sum(areas)\n"),
        ),
        (
            "app.py",
            format!("from geometry import {name}\n\nprint({name}([1.0, 2.0]))\n"),
        ),
    ]
}

/// The `git diff` renaming `from` to `to` in both files, `app.py` first.
fn rename(from: &str, to: &str) -> String {
    let [geometry, app] = files(from);
    let [geometry_after, app_after] = files(to);
    let mut patch = String::new();
    for ((name, before), (_, after)) in [(app, app_after), (geometry, geometry_after)] {
        let diff = similar::TextDiff::from_lines(&before, &after);
        let header = (format!("a/{name}"), format!("b/{name}"));
        patch.push_str(&format!("diff --git a/{name} b/{name}\n"));
        patch.push_str(&diff.unified_diff().header(&header.0, &header.1).to_string());
    }
    patch
}

#[test]
fn an_importer_first_patch_reports_no_false_error_run_after_run() {
    if require_program("pyright-langserver").is_none() {
        return;
    }
    let ws = Scratch::bare();
    let [geometry, app] = files("total_area");
    ws.repo(&[(geometry.0, &geometry.1), (app.0, &app.1)]);
    let ws = Ws::real(ws);
    // Warm: the daemon and pyright hold both files.
    let _ = ws.run(&["check", "app.py", "geometry.py"], "");
    let names = ["total_area", "sum_area"];
    let mut replies = Vec::new();
    for run in 0..RUNS {
        let (from, to) = (names[run % 2], names[(run + 1) % 2]);
        let out = ws.run(&["apply-patch", "--json"], &rename(from, to));
        replies.push((run, out));
    }
    ws.stop();
    for (run, out) in replies {
        assert_eq!(out.status.code(), Some(0), "run {run}: {}", both(&out));
        let result: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("run {run}: not JSON ({e}): {}", both(&out)));
        assert_eq!(
            result["classification"], "clean",
            "run {run} of {RUNS}: {}",
            result["feedback"]
        );
    }
}

#[test]
fn a_file_over_the_size_limit_is_named_as_not_checked() {
    if require_program("pyright-langserver").is_none() {
        return;
    }
    let ws = Scratch::bare();
    let big = format!("# padding\n{}", "x = 1\n".repeat(400_000));
    ws.repo(&[("small.py", "x = 1\n")]);
    ws.write("big.py", &big);
    let ws = Ws::real(ws);
    let written = ws.wrapped(&["write", "big.py"], &format!("{big}y = 2\n"));
    let check = ws.run(&["check", "big.py", "--require-servers"], "");
    ws.stop();
    assert!(
        written.contains("Not checked: big.py (files over 2 MiB are not sent to servers)."),
        "{written}"
    );
    assert_eq!(check.status.code(), Some(2), "{}", both(&check));
    assert!(
        String::from_utf8_lossy(&check.stderr).contains("big.py not checked"),
        "{}",
        both(&check)
    );
}
