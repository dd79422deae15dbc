//! Nothing from an earlier look, with real
//! pyright through the daemon, as the findings were made: a file removed
//! from disk is in no later report, and after a change is reverted on disk
//! outside squiggle (`git checkout`), no later hook repeats the error the
//! change had caused in another file.

use super::{Ws, block};
use crate::support::require_program;
use crate::support::scratch::Scratch;

const GREET: &str = "def greet(name: str) -> str:\n    return name\n";
/// `GREET` changed to return an `int`: an error in a caller that wants `str`.
const RETURNS_INT: &str = "def greet(name: str) -> int:\n    return len(name)\n";

/// A git repository holding `files` (committed) and the project's
/// configuration, or `None` when pyright is missing and not required.
fn python(files: &[(&str, &str)]) -> Option<Ws> {
    require_program("pyright-langserver")?;
    let ws = Scratch::bare();
    ws.repo(files);
    Some(Ws::real(ws))
}

/// A `Write` changes `greet(name: str)` to `int` and rightly
/// reports the importer `util.py`; `git checkout app.py` restores it. No
/// later hook — an `Edit` of an unrelated file, a `Write` of one (which
/// reports other files), again after a wrapped `edit` — may still report
/// `util.py`, which is clean for its text on disk now.
#[test]
fn a_revert_on_disk_leaves_no_stale_error_in_another_file() {
    let Some(ws) = python(&[
        ("app.py", GREET),
        ("util.py", "from app import greet\n\ngreet(\"a\")\n"),
        ("other.py", "x = 1\n"),
    ]) else {
        return;
    };
    let broke = ws.hook(
        "claude",
        &ws.claude_write("app.py", &GREET.replace("str", "int")),
    );
    ws.git(&["checkout", "app.py"]);
    let edit = ws.hook("claude", &ws.claude_edit("other.py", "x = 1", "x = 2"));
    let write = ws.hook("claude", &ws.claude_write("other.py", "x = 3\n"));
    let wrapped = ws.wrapped(
        &[
            "edit",
            "other.py",
            "--old-string",
            "x = 3",
            "--new-string",
            "x = 4",
        ],
        "",
    );
    let after_wrapped = ws.hook("claude", &ws.claude_edit("other.py", "x = 4", "x = 5"));
    let check = ws.run(&["check", "util.py"], "");
    ws.stop();
    let error = block(&broke, "util.py").unwrap_or_else(|| panic!("not reported: {broke}"));
    assert!(error.contains("\"Literal['a']\""), "{broke}");
    for (what, reply) in [
        ("an Edit of other.py", &edit),
        ("a Write of other.py", &write),
        ("the wrapped edit", &wrapped),
        ("an Edit after the wrapped edit", &after_wrapped),
    ] {
        assert!(!reply.contains("util.py"), "stale after {what}:\n{reply}");
    }
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        crate::support::both(&check)
    );
}

/// After `rm gone.py`, a later hook reported `gone.py`'s old
/// error under "other files". A file that no longer exists is in no report.
/// (The first write causes `gone.py`'s error: one that was there before
/// would not be the write's to report.)
#[test]
fn a_removed_file_is_in_no_later_report() {
    let Some(ws) = python(&[
        ("util.py", GREET),
        (
            "gone.py",
            "from util import greet\n\ncount: str = greet(\"a\")\n",
        ),
        ("other.py", "x = 1\n"),
    ]) else {
        return;
    };
    let first = ws.hook(
        "claude",
        &ws.claude_write("util.py", &format!("{RETURNS_INT}# one\n")),
    );
    std::fs::remove_file(ws.root.join("gone.py")).unwrap_or_else(|e| panic!("rm gone.py: {e}"));
    let write = ws.hook(
        "claude",
        &ws.claude_write("util.py", &format!("{RETURNS_INT}# two\n")),
    );
    let edit = ws.hook("claude", &ws.claude_edit("other.py", "x = 1", "x = 2"));
    let other = ws.hook("claude", &ws.claude_write("other.py", "x = 3\n"));
    let wrapped = ws.wrapped(&["write", "util.py"], &format!("{RETURNS_INT}# three\n"));
    ws.stop();
    assert!(block(&first, "gone.py").is_some(), "not reported: {first}");
    for (what, reply) in [
        ("a Write of util.py", &write),
        ("an Edit of other.py", &edit),
        ("a Write of other.py", &other),
        ("the wrapped write of util.py", &wrapped),
    ] {
        assert!(
            !reply.contains("gone.py"),
            "{what} reports a removed file:\n{reply}"
        );
    }
}

/// Where an older build still showed a stale error: `lsp/diagnostics` of a running
/// `squiggle serve` listed a removed file's errors from the server's open
/// copy of it.
#[test]
fn a_removed_file_is_not_in_the_known_diagnostics() {
    let ws = crate::support::service::Workspace::pull();
    ws.write("kept.fk", "x @error(kept)\n");
    let gone = ws.write("gone.fk", "y @error(gone)\n");
    let mut svc = crate::support::service::Service::start(&ws);
    for file in ["kept.fk", "gone.fk"] {
        svc.ok("lsp/checkFile", serde_json::json!({"filePath": file}));
    }
    std::fs::remove_file(&gone).unwrap_or_else(|e| panic!("rm gone.fk: {e}"));
    let all = svc.ok("lsp/diagnostics", serde_json::json!({}));
    svc.ok("lsp/shutdown", serde_json::json!({}));
    let files: Vec<&String> = all
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    assert_eq!(files, ["kept.fk"], "{all}");
}
