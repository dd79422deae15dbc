//! Gemini CLI's AfterTool event. The payload carries `session_id`,
//! `transcript_path`, `cwd`, `hook_event_name`, `timestamp`, `tool_name`,
//! `tool_input` and `tool_response` (`llmContent`, `returnDisplay`, and
//! `error` when the call failed). `write_file` replaces a whole file (its
//! importers are checked too), `replace` edits one; both name the file in
//! `tool_input.file_path`. A failed call wrote nothing and is skipped.

use std::path::Path;

use serde_json::Value;

use super::{Malformed, Plan, before, other_event, string, tool_input};
use crate::engine::Mutation;

/// The event name the reply's `hookSpecificOutput` carries.
pub const EVENT: &str = "AfterTool";

pub(crate) fn plan(payload: &Value, fallback_cwd: &Path) -> Result<Plan, Malformed> {
    if !payload.is_object() {
        return Err(Malformed("expected a JSON object".into()));
    }
    if other_event(payload, EVENT) {
        return Ok(Plan::Skip("not an AfterTool event"));
    }
    let tool = string(payload, "tool_name", "tool_name")?;
    let mutation = match tool {
        "write_file" => Mutation::Write,
        "replace" => Mutation::Edit,
        _ => return Ok(Plan::Skip("not a file edit tool")),
    };
    if payload
        .pointer("/tool_response/error")
        .is_some_and(|e| !e.is_null())
    {
        return Ok(Plan::Skip("the tool call failed"));
    }
    let input = tool_input(payload)?;
    // Older releases named the parameter `absolute_path` or `path`.
    let key = ["file_path", "absolute_path", "path"]
        .into_iter()
        .find(|k| input.get(k).is_some())
        .unwrap_or("file_path");
    let path = string(input, key, &format!("tool_input.{key}"))?;
    let told = before::gemini(tool, payload);
    Ok(Plan::one_file(payload, fallback_cwd, path, mutation, told))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::PathBuf;

    fn replaced(old: &str, new: &str) -> super::super::before::Told {
        let edit = crate::baseline::Replacement {
            old: old.into(),
            new: new.into(),
            all: false,
        };
        super::super::before::Told::Replaced {
            edits: vec![edit],
            original: None,
        }
    }

    fn check(payload: Value) -> Result<Plan, Malformed> {
        plan(&payload, Path::new("/fallback"))
    }

    #[test]
    fn replace_and_write_file() {
        let replace = json!({"hook_event_name": "AfterTool", "cwd": "/ws", "tool_name": "replace",
            "timestamp": "2026-01-01T00:00:00Z",
            "tool_input": {"file_path": "/ws/a.py", "old_string": "x", "new_string": "y"},
            "tool_response": {"llmContent": "ok", "returnDisplay": "ok"}});
        assert_eq!(
            check(replace),
            Ok(Plan::Check {
                cwd: PathBuf::from("/ws"),
                files: vec![PathBuf::from("/ws/a.py")],
                mutation: Mutation::Edit,
                told: [(PathBuf::from("/ws/a.py"), replaced("x", "y"))].into(),
            })
        );
        let write =
            json!({"tool_name": "write_file", "tool_input": {"file_path": "b.py", "content": ""}});
        assert_eq!(
            check(write),
            Ok(Plan::Check {
                cwd: PathBuf::from("/fallback"),
                files: vec![PathBuf::from("/fallback/b.py")],
                mutation: Mutation::Write,
                told: Default::default(),
            })
        );
    }

    #[test]
    fn failed_calls_and_other_tools_are_skipped() {
        for payload in [
            json!({"tool_name": "replace", "tool_input": {"file_path": "/a"},
                "tool_response": {"error": {"message": "no match"}}}),
            json!({"tool_name": "run_shell_command", "tool_input": {"command": "ls"}}),
            json!({"hook_event_name": "BeforeTool", "tool_name": "replace", "tool_input": {}}),
        ] {
            assert!(matches!(check(payload), Ok(Plan::Skip(_))));
        }
        assert_eq!(
            check(json!({"tool_name": "replace", "tool_input": {}})),
            Err(Malformed("tool_input.file_path is missing".into()))
        );
    }
}
