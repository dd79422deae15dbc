//! Cline (the `cline` CLI, 3.x): hook files named by event in
//! `.clinerules/hooks/` (`PostToolUse`, run as `tool_result`). The payload
//! carries `clineVersion`, `hookName`, `timestamp`, `taskId`,
//! `workspaceRoots` and the call: `tool_result` (`name`, `input`) or
//! `postToolUse` (`toolName`, `parameters`). Its file tools are `editor`
//! (`path`, `old_text`, `new_text`), `apply_patch` (`input`) and the older
//! `write_to_file` and `replace_in_file` (`path`). A hook's
//! `contextModification` reaches the model inside `<hook_context>`.

use std::path::Path;

use serde_json::Value;

use super::before::{read_replacement, told_replaced};
use super::{Malformed, Plan, event_cwd, string};
use crate::engine::Mutation;

/// Cline's tools that write files.
pub(crate) const EDIT_TOOLS: &[&str] =
    &["editor", "apply_patch", "write_to_file", "replace_in_file"];

pub(crate) fn plan(payload: &Value, fallback_cwd: &Path) -> Result<Plan, Malformed> {
    let (tool, input) = match (payload.get("tool_result"), payload.get("postToolUse")) {
        (Some(call), _) => (call["name"].as_str(), &call["input"]),
        (None, Some(call)) => (call["toolName"].as_str(), &call["parameters"]),
        (None, None) => return Err(Malformed("tool_result is missing".into())),
    };
    let tool = tool.ok_or_else(|| Malformed("the tool's name is missing".into()))?;
    let cwd = event_cwd(payload, fallback_cwd);
    if tool == "apply_patch" {
        let input = match input {
            Value::String(text) => serde_json::json!({"input": text}),
            other => other.clone(),
        };
        return super::vscode::patch(&input, cwd);
    }
    let path = string(input, "path", "the tool's path")?;
    let (mutation, told) = match tool {
        "editor" if input["insert_line"].is_null() => {
            let edit = read_replacement(input, ["old_text", "new_text"], None);
            (Mutation::Edit, edit.and_then(|e| told_replaced(vec![e])))
        }
        "write_to_file" => (Mutation::Write, None),
        _ => (Mutation::Edit, None),
    };
    Ok(Plan::files(cwd, [(path, told)], mutation, "no file"))
}
