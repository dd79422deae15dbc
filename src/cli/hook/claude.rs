//! Claude Code's PostToolUse event. The payload carries `session_id`,
//! `transcript_path`, `cwd`, `hook_event_name`, `tool_name`, `tool_input`
//! and `tool_response`; the edit tools name their file in
//! `tool_input.file_path`. `Write` replaces a whole file, so its importers
//! are checked too; `Edit` and `MultiEdit` check the file alone; notebooks
//! (`NotebookEdit`) get no diagnostics.

use std::path::Path;

use serde_json::Value;

use super::{Malformed, Plan, other_event, string, tool_input};

/// The event name the reply's `hookSpecificOutput` carries.
pub const EVENT: &str = "PostToolUse";

pub(crate) fn plan(payload: &Value, fallback_cwd: &Path) -> Result<Plan, Malformed> {
    if !payload.is_object() {
        return Err(Malformed("expected a JSON object".into()));
    }
    if other_event(payload, EVENT) {
        return Ok(Plan::Skip("not a PostToolUse event"));
    }
    let with_dependents = match string(payload, "tool_name", "tool_name")? {
        "Write" => true,
        "Edit" | "MultiEdit" => false,
        "NotebookEdit" => return Ok(Plan::Skip("notebooks get no diagnostics")),
        _ => return Ok(Plan::Skip("not a file edit tool")),
    };
    let input = tool_input(payload)?;
    let path = string(input, "file_path", "tool_input.file_path")?;
    Ok(Plan::one_file(payload, fallback_cwd, path, with_dependents))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::PathBuf;

    fn check(payload: Value) -> Result<Plan, Malformed> {
        plan(&payload, Path::new("/fallback"))
    }

    #[test]
    fn edit_checks_the_file_alone_and_write_adds_dependents() {
        let edit = json!({"hook_event_name": "PostToolUse", "cwd": "/ws", "tool_name": "Edit",
            "tool_input": {"file_path": "/ws/a.ts", "old_string": "x", "new_string": "y"},
            "tool_response": {"filePath": "/ws/a.ts", "success": true}});
        assert_eq!(
            check(edit),
            Ok(Plan::Check {
                cwd: PathBuf::from("/ws"),
                files: vec![PathBuf::from("/ws/a.ts")],
                with_dependents: false
            })
        );
        let write = json!({"cwd": "/ws", "tool_name": "Write",
            "tool_input": {"file_path": "src/b.ts", "content": ""}});
        assert_eq!(
            check(write),
            Ok(Plan::Check {
                cwd: PathBuf::from("/ws"),
                files: vec![PathBuf::from("/ws/src/b.ts")],
                with_dependents: true
            })
        );
    }

    #[test]
    fn other_tools_notebooks_and_other_events_are_skipped() {
        for payload in [
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
            json!({"tool_name": "NotebookEdit", "tool_input": {"notebook_path": "/ws/n.ipynb"}}),
            json!({"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": {}}),
        ] {
            assert!(matches!(check(payload), Ok(Plan::Skip(_))));
        }
    }

    #[test]
    fn missing_fields_are_named() {
        assert_eq!(
            check(json!({"tool_name": "Edit", "tool_input": {}})),
            Err(Malformed("tool_input.file_path is missing".into()))
        );
        assert_eq!(
            check(json!({"tool_input": {}})),
            Err(Malformed("tool_name is missing".into()))
        );
        assert_eq!(
            check(json!({"tool_name": "Write", "tool_input": "x"})),
            Err(Malformed("tool_input is not an object: a string".into()))
        );
        assert_eq!(
            check(json!([1])),
            Err(Malformed("expected a JSON object".into()))
        );
    }
}
