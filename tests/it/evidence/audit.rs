//! `squiggle audit` on the log the tests of this module write: the error
//! `squiggle edit` left in `b.fk` is named as never fixed (exit 1), the
//! one the hook's change fixed in `a.fk` is not; counts per file and agent.

use serde_json::{Value, json};

use super::{squiggle, workspace};
use crate::support;

#[test]
fn audit_names_the_error_never_fixed_and_who_made_it() {
    let (ws, _log) = workspace(false);
    let a = ws.root.join("a.fk");
    let out = squiggle(&ws, &["write", "a.fk"], "@error(one)\n");
    assert_eq!(out.status.code(), Some(0), "{}", support::both(&out));
    std::fs::write(&a, "fine\n").unwrap_or_else(|e| panic!("{e}"));
    let event = ws.claude_event("Edit", json!({"file_path": a.display().to_string(), "old_string": "@error(one)", "new_string": "fine"}));
    let out = squiggle(&ws, &["hook", "claude"], &event.to_string());
    assert_eq!(out.status.code(), Some(0), "{}", support::both(&out));
    ws.write("b.fk", "start\n");
    let out = squiggle(
        &ws,
        &[
            "edit",
            "b.fk",
            "--old-string",
            "start",
            "--new-string",
            "@error(two)",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", support::both(&out));

    let out = squiggle(&ws, &["audit", "--json"], "");
    assert_eq!(out.status.code(), Some(1), "{}", support::both(&out));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (summary["changes"].as_u64(), summary["regressions"].as_u64()),
        (Some(3), Some(2))
    );
    let unfixed = summary["unfixed"].as_array().cloned().unwrap_or_default();
    assert_eq!(unfixed.len(), 1, "{summary:#}");
    assert_eq!(unfixed[0]["path"], "b.fk");
    assert_eq!(unfixed[0]["by"], "cli");
    assert_eq!(unfixed[0]["tool"], "edit");
    assert_eq!(
        summary["by_file"]["a.fk"],
        json!({"changes": 2, "regressions": 1, "unfixed": 0})
    );
    assert_eq!(
        summary["by_agent"]["claude-code"],
        json!({"changes": 1, "regressions": 0, "unfixed": 0})
    );
    assert_eq!(
        summary["by_agent"]["cli"],
        json!({"changes": 2, "regressions": 2, "unfixed": 1})
    );

    let out = squiggle(&ws, &["audit"], "");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Errors introduced and never fixed:\n  b.fk: 1 new error(s) at ")
            && text.contains(" by cli, edit; 1 error(s) at its last change"),
        "{text}"
    );
}
