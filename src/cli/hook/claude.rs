//! Claude Code's PostToolUse event. The payload carries `session_id`,
//! `transcript_path`, `cwd`, `hook_event_name`, `tool_name`, `tool_input`
//! and `tool_response`; the edit tools name their file in
//! `tool_input.file_path`. `Write` replaces a whole file, so its importers
//! are checked too; `Edit` and `MultiEdit` check the file alone; notebooks
//! (`NotebookEdit`) get no diagnostics.
//!
//! In batch mode (`squiggle init claude --batch`) the hook runs on
//! `PostToolBatch` instead, fired once after every tool call of a model
//! turn has resolved, with the calls in `tool_calls` (each with
//! `tool_name` and `tool_input`): every file the batch's edits touched is
//! checked in one wait and reported once.

use std::path::Path;

use serde_json::Value;

use super::before::{self, Told};
use super::{Malformed, Plan, other_event, string, tool_input};
use crate::engine::Mutation;

/// The event name the reply's `hookSpecificOutput` carries.
pub const EVENT: &str = "PostToolUse";
/// The batch-end event (see the module doc).
pub const BATCH_EVENT: &str = "PostToolBatch";

pub(crate) fn plan(payload: &Value, fallback_cwd: &Path) -> Result<Plan, Malformed> {
    if !payload.is_object() {
        return Err(Malformed("expected a JSON object".into()));
    }
    if payload["hook_event_name"] == BATCH_EVENT {
        return batch(payload, fallback_cwd);
    }
    if other_event(payload, EVENT) {
        return Ok(Plan::Skip("not a PostToolUse event"));
    }
    let tool = string(payload, "tool_name", "tool_name")?;
    let mutation = match tool {
        "Write" => Mutation::Write,
        "Edit" | "MultiEdit" => Mutation::Edit,
        "NotebookEdit" => return Ok(Plan::Skip("notebooks get no diagnostics")),
        _ => return Ok(Plan::Skip("not a file edit tool")),
    };
    if payload["tool_response"]["staged"] == true {
        return Ok(Plan::Skip(
            "the edit was held for review; the file is unchanged",
        ));
    }
    let input = tool_input(payload)?;
    let path = string(input, "file_path", "tool_input.file_path")?;
    let told = before::claude(tool, payload);
    Ok(Plan::one_file(payload, fallback_cwd, path, mutation, told))
}

/// Every file the batch's `Write` and `Edit` calls touched, in order.
fn batch(payload: &Value, fallback_cwd: &Path) -> Result<Plan, Malformed> {
    let Some(calls) = payload.get("tool_calls").and_then(Value::as_array) else {
        return Err(Malformed("tool_calls is missing or not an array".into()));
    };
    let edits: Vec<(Mutation, &str, Option<Told>)> = calls
        .iter()
        .filter_map(|call| {
            let tool = call["tool_name"].as_str()?;
            let mutation = match tool {
                "Write" => Mutation::Write,
                "Edit" | "MultiEdit" => Mutation::Edit,
                _ => return None,
            };
            let path = call["tool_input"]["file_path"].as_str();
            let path = path.filter(|p| !p.is_empty())?;
            Some((mutation, path, before::claude(tool, call)))
        })
        .collect();
    let mutation = if edits.iter().any(|(m, _, _)| *m == Mutation::Write) {
        Mutation::Write
    } else {
        Mutation::Edit
    };
    let cwd = super::event_cwd(payload, fallback_cwd);
    let paths = edits.into_iter().map(|(_, path, told)| (path, told));
    Ok(Plan::files(
        cwd,
        paths,
        mutation,
        "the batch edited no file",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::PathBuf;

    fn replaced(old: &str, new: &str) -> Told {
        let edit = crate::baseline::Replacement {
            old: old.into(),
            new: new.into(),
            all: false,
        };
        Told::Replaced {
            edits: vec![edit],
            original: None,
        }
    }

    fn check(payload: Value) -> Result<Plan, Malformed> {
        plan(&payload, Path::new("/fallback"))
    }

    #[test]
    fn a_batch_checks_every_edited_file_once() {
        let batch = json!({"hook_event_name": "PostToolBatch", "cwd": "/ws", "tool_calls": [
            {"tool_name": "Edit", "tool_input": {"file_path": "a.py"}},
            {"tool_name": "Read", "tool_input": {"file_path": "r.py"}},
            {"tool_name": "Edit", "tool_input": {"file_path": "/ws/a.py"}},
            {"tool_name": "Write", "tool_input": {"file_path": "b.py", "content": ""}}]});
        assert_eq!(
            check(batch),
            Ok(Plan::Check {
                cwd: PathBuf::from("/ws"),
                files: vec![PathBuf::from("/ws/a.py"), PathBuf::from("/ws/b.py")],
                mutation: Mutation::Write,
                told: Default::default(),
            })
        );
        let reads =
            json!({"hook_event_name": "PostToolBatch", "tool_calls": [{"tool_name": "Read"}]});
        assert!(matches!(check(reads), Ok(Plan::Skip(_))));
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
                mutation: Mutation::Edit,
                told: [(PathBuf::from("/ws/a.ts"), replaced("x", "y"))].into(),
            })
        );
        let write = json!({"cwd": "/ws", "tool_name": "Write",
            "tool_input": {"file_path": "src/b.ts", "content": ""}});
        assert_eq!(
            check(write),
            Ok(Plan::Check {
                cwd: PathBuf::from("/ws"),
                files: vec![PathBuf::from("/ws/src/b.ts")],
                mutation: Mutation::Write,
                told: Default::default(),
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
