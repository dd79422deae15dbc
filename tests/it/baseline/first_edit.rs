//! A first edit blames nothing old, with real pyright through the daemon:
//! in a git repository where `user.py` imports `lib` and has a committed
//! error, the first harmless write of `lib.py` — through the wrapped tool,
//! and through Claude Code's hook right after `SessionStart` — reports
//! `user.py`'s error as there before, never as the edit's.

use serde_json::json;

use super::{Ws, block};
use crate::support::require_program;
use crate::support::scratch::Scratch;

const LIB: &str = "def greet(name: str) -> str:\n    return name\n";
const USER: &str = "from lib import greet\n\nbroken: int = \"old-error\"\nprint(greet(\"a\"))\n";

/// The repository of the finding, or `None` when pyright is missing and
/// not required.
fn repository() -> Option<Ws> {
    require_program("pyright-langserver")?;
    let ws = Scratch::bare();
    ws.repo(&[("lib.py", LIB), ("user.py", USER)]);
    Some(Ws::real(ws))
}

/// The reply blames nothing on the edit and counts the old error.
fn blames_nothing(what: &str, reply: &str) {
    assert!(
        block(reply, "user.py").is_none_or(|b| !b.contains("old-error")),
        "{what} blames user.py's committed error on the edit:\n{reply}"
    );
    assert!(
        reply.is_empty() || !reply.contains("new error"),
        "{what}:\n{reply}"
    );
}

#[test]
fn a_first_write_blames_no_committed_importer_error() {
    let Some(ws) = repository() else {
        return;
    };
    let first = ws.wrapped(&["write", "lib.py"], &format!("{LIB}# harmless\n"));
    let second = ws.wrapped(&["write", "lib.py"], &format!("{LIB}# harmless too\n"));
    let breaking = ws.wrapped(&["write", "lib.py"], &LIB.replace("str", "int"));
    ws.stop();
    blames_nothing("the first write", &first);
    blames_nothing("the second write", &second);
    // What the edit did break in the importer is still its own.
    let broke = block(&breaking, "user.py").unwrap_or_else(|| panic!("not reported: {breaking}"));
    assert!(broke.contains("\"Literal['a']\""), "{breaking}");
    assert!(!broke.contains("old-error"), "{breaking}");
}

#[test]
fn the_hooks_first_write_after_session_start_blames_no_committed_importer_error() {
    let Some(ws) = repository() else {
        return;
    };
    let start = json!({
        "session_id": "abc123",
        "transcript_path": ws.outer.join("transcript.jsonl").display().to_string(),
        "cwd": ws.root.display().to_string(),
        "hook_event_name": "SessionStart",
        "source": "startup"
    });
    let started = ws.hook("claude", &start);
    let first = ws.hook(
        "claude",
        &ws.claude_write("lib.py", &format!("{LIB}# harmless\n")),
    );
    ws.stop();
    assert_eq!(started, "", "SessionStart answers with nothing");
    blames_nothing("the hook's first write", &first);
}
