//! VS Code's agent (GitHub Copilot in VS Code): its PostToolUse payload
//! has `hookEventName`, `sessionId`, `timestamp`, `cwd`, `tool_name`,
//! `tool_input` and `tool_use_id`, and its file tools name their file in
//! camelCase: `create_file` (`filePath`, `content`), `replace_string_in_file`
//! (`filePath`, `oldString`, `newString`), `multi_replace_string_in_file`
//! (`replacements[]` of those), `insert_edit_into_file` (`filePath`,
//! `code`), `editFiles` (`files[]`) and `apply_patch` (`input`, a patch).
//! The reply is Claude Code's (`hookSpecificOutput.additionalContext`).

use std::path::Path;

use serde_json::Value;

use super::before::{Told, read_replacement, told_replaced};
use super::{Malformed, Plan, event_cwd, string, tool_input};
use crate::baseline::Replacement;
use crate::edit::{FilePatch, parse_patch};
use crate::engine::Mutation;

/// VS Code's tools that write files.
pub(crate) const EDIT_TOOLS: &[&str] = &[
    "create_file",
    "replace_string_in_file",
    "multi_replace_string_in_file",
    "insert_edit_into_file",
    "editFiles",
    "apply_patch",
];

pub(crate) fn plan(payload: &Value, fallback_cwd: &Path) -> Result<Plan, Malformed> {
    let tool = string(payload, "tool_name", "tool_name")?;
    let input = tool_input(payload)?;
    let cwd = event_cwd(payload, fallback_cwd);
    let none = "the tool named no file";
    match tool {
        "create_file" => {
            let path = file_path(input)?;
            Ok(Plan::files(cwd, [(path, None)], Mutation::Write, none))
        }
        "replace_string_in_file" => {
            let path = file_path(input)?;
            let told = replaced(input).and_then(|r| told_replaced(vec![r]));
            Ok(Plan::files(cwd, [(path, told)], Mutation::Edit, none))
        }
        "multi_replace_string_in_file" => {
            let Some(each) = input["replacements"].as_array() else {
                return Err(Malformed("tool_input.replacements is missing".into()));
            };
            let paths = each.iter().filter_map(|r| {
                let path = r["filePath"].as_str().filter(|p| !p.is_empty())?;
                let told = replaced(r).and_then(|r| told_replaced(vec![r]));
                Some((path, told))
            });
            Ok(Plan::files(cwd, paths, Mutation::Edit, none))
        }
        "insert_edit_into_file" => {
            let path = file_path(input)?;
            Ok(Plan::files(cwd, [(path, None)], Mutation::Edit, none))
        }
        "editFiles" => {
            let paths = input["files"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(|p| (p, None));
            Ok(Plan::files(cwd, paths, Mutation::Edit, none))
        }
        "apply_patch" => patch(input, cwd),
        _ => Ok(Plan::Skip("not a file edit tool")),
    }
}

/// `tool_input.filePath` (VS Code's spelling; `file_path` read too).
fn file_path(input: &Value) -> Result<&str, Malformed> {
    if input.get("filePath").is_none() && input.get("file_path").is_some() {
        return string(input, "file_path", "tool_input.file_path");
    }
    string(input, "filePath", "tool_input.filePath")
}

fn replaced(input: &Value) -> Option<Replacement> {
    read_replacement(input, ["oldString", "newString"], None)
}

/// A patch in `tool_input.input` (or `patch`, `command`): every added,
/// updated or moved-to file.
pub(crate) fn patch(input: &Value, cwd: std::path::PathBuf) -> Result<Plan, Malformed> {
    let text = ["input", "patch", "command"]
        .iter()
        .find_map(|k| input[*k].as_str())
        .ok_or_else(|| Malformed("tool_input.input is missing".into()))?;
    let patch = parse_patch(text)
        .map_err(|e| Malformed(format!("tool_input.input is not a patch: {e}")))?;
    let written = patch.files.iter().filter_map(|file| match file {
        FilePatch::Add { path, .. } => Some((path, Some(Told::Created))),
        FilePatch::Update { path, move_to, .. } => Some((move_to.as_ref().unwrap_or(path), None)),
        FilePatch::Delete { .. } => None,
    });
    Ok(Plan::files(
        cwd,
        written,
        Mutation::Edit,
        "the patch only deletes files",
    ))
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
    fn camel_case_file_paths() {
        let replace = json!({"hookEventName": "PostToolUse", "cwd": "/ws",
            "tool_name": "replace_string_in_file",
            "tool_input": {"filePath": "/ws/a.py", "oldString": "x", "newString": "y"}});
        let Ok(Plan::Check { files, told, .. }) = check(replace) else {
            panic!("expected a check");
        };
        assert_eq!(files, vec![PathBuf::from("/ws/a.py")]);
        assert_eq!(told.len(), 1);
        let multi = json!({"cwd": "/ws", "tool_name": "multi_replace_string_in_file",
            "tool_input": {"replacements": [
                {"filePath": "a.py", "oldString": "1", "newString": "2"},
                {"filePath": "b.py", "oldString": "3", "newString": "4"}]}});
        let Ok(Plan::Check { files, .. }) = check(multi) else {
            panic!("expected a check");
        };
        assert_eq!(files, ["/ws/a.py", "/ws/b.py"].map(PathBuf::from).to_vec());
        let create = json!({"cwd": "/ws", "tool_name": "create_file",
            "tool_input": {"filePath": "n.py", "content": ""}});
        assert!(matches!(
            check(create),
            Ok(Plan::Check {
                mutation: Mutation::Write,
                ..
            })
        ));
        assert_eq!(
            check(json!({"tool_name": "create_file", "tool_input": {}})),
            Err(Malformed("tool_input.filePath is missing".into()))
        );
    }
}
