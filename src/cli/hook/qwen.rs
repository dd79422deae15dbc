//! Qwen Code's PostToolUse (a Gemini CLI fork whose hooks took Claude
//! Code's shape): the payload carries `session_id`, `transcript_path`,
//! `cwd`, `hook_event_name`, `tool_name`, `tool_input`, `tool_response`
//! (Gemini's `llmContent` and `returnDisplay`, with `originalContent`) and
//! `tool_use_id`. `write_file` replaces a whole file (`file_path`,
//! `content`), `edit` replaces text in one (`file_path`, `old_string`,
//! `new_string`, `replace_all`); the reply is Claude's
//! `hookSpecificOutput.additionalContext`, which Qwen Code 0.24.4 appends
//! to the tool's result with `<` and `>` written as `&lt;` and `&gt;`.

use std::path::Path;

use serde_json::Value;

use super::{Malformed, Plan, before, other_event, string, tool_input};
use crate::engine::Mutation;

/// Qwen Code's tools that write files.
pub(crate) const EDIT_TOOLS: &[&str] = &["edit", "write_file"];
/// Its shell tool.
pub(crate) const SHELL_TOOLS: &[&str] = &["run_shell_command"];

pub(crate) fn plan(payload: &Value, fallback_cwd: &Path) -> Result<Plan, Malformed> {
    if !payload.is_object() {
        return Err(Malformed("expected a JSON object".into()));
    }
    if other_event(payload, super::claude::EVENT) {
        return Ok(Plan::Skip("not a PostToolUse event"));
    }
    let tool = string(payload, "tool_name", "tool_name")?;
    let mutation = match tool {
        "write_file" => Mutation::Write,
        "edit" => Mutation::Edit,
        _ => return Ok(Plan::Skip("not a file edit tool")),
    };
    if payload
        .pointer("/tool_response/error")
        .is_some_and(|e| !e.is_null())
    {
        return Ok(Plan::Skip("the tool call failed"));
    }
    let path = string(tool_input(payload)?, "file_path", "tool_input.file_path")?;
    let told = before::qwen(tool, payload);
    Ok(Plan::one_file(payload, fallback_cwd, path, mutation, told))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::PathBuf;

    use super::super::before::Told;
    use crate::baseline::Replacement;

    fn check(payload: Value) -> Result<Plan, Malformed> {
        plan(&payload, Path::new("/fallback"))
    }

    /// Qwen Code 0.24.4's payload for its `edit` tool (as the real CLI
    /// sent it, ids shortened).
    #[test]
    fn edit_and_write_file() {
        let edit = json!({"session_id": "s", "transcript_path": "/h/s.jsonl", "cwd": "/ws",
            "hook_event_name": "PostToolUse", "permission_mode": "auto_edit", "tool_name": "edit",
            "tool_input": {"file_path": "/ws/a.py", "old_string": "x", "new_string": "y"},
            "tool_response": {"llmContent": "The file: /ws/a.py has been updated.",
                "returnDisplay": {"fileName": "a.py", "originalContent": "x = 1\n", "newContent": "y = 1\n"}},
            "tool_use_id": "toolu_1", "tool_call_id": "call_2"});
        let replaced = Told::Replaced {
            edits: vec![Replacement {
                old: "x".into(),
                new: "y".into(),
                all: false,
            }],
            original: Some("x = 1\n".into()),
        };
        assert_eq!(
            check(edit),
            Ok(Plan::Check {
                cwd: PathBuf::from("/ws"),
                files: vec![PathBuf::from("/ws/a.py")],
                mutation: Mutation::Edit,
                told: [(PathBuf::from("/ws/a.py"), replaced)].into(),
            })
        );
        let write = json!({"hook_event_name": "PostToolUse", "tool_name": "write_file",
            "tool_input": {"file_path": "b.py", "content": ""}});
        let Ok(Plan::Check {
            files, mutation, ..
        }) = check(write)
        else {
            panic!("write_file is checked");
        };
        assert_eq!(
            (files, mutation),
            (vec![PathBuf::from("/fallback/b.py")], Mutation::Write)
        );
    }

    #[test]
    fn reads_failures_and_other_events_are_skipped() {
        let read = json!({"hook_event_name": "PostToolUse", "tool_name": "read_file",
            "tool_input": {"file_path": "/ws/a.py"}});
        assert!(matches!(check(read), Ok(Plan::Skip(_))));
        let failed = json!({"hook_event_name": "PostToolUse", "tool_name": "edit",
            "tool_input": {"file_path": "/ws/a.py"}, "tool_response": {"error": "no match"}});
        assert!(matches!(check(failed), Ok(Plan::Skip(_))));
        let pre = json!({"hook_event_name": "PreToolUse", "tool_name": "edit",
            "tool_input": {"file_path": "/ws/a.py"}});
        assert!(matches!(check(pre), Ok(Plan::Skip(_))));
    }
}
