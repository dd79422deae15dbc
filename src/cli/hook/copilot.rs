//! GitHub Copilot CLI's own hooks (`.github/hooks/*.json`, camelCase
//! events): `postToolUse` sends `sessionId`, `timestamp`, `cwd`,
//! `toolName`, `toolArgs` (the arguments, as a JSON string or an object)
//! and `toolResult`. Its file tools are `create` (`path`, `file_text`),
//! `edit` (`path`, `old_str`, `new_str`) and `apply_patch`. Copilot CLI
//! run on `.claude/settings.json` or PascalCase events sends VS Code's
//! payloads instead (see `vscode`), or, on Claude's hook files, Claude's
//! snake_case names with its own tools (`Edit`, `tool_input.path`) and
//! result (`tool_result`). Run for real by `tests/it/agents/copilot.rs`
//! (1.0.102, offline, its own model provider: no GitHub account).

use std::path::Path;

use serde_json::Value;

use super::before::{read_replacement, told_replaced};
use super::{Malformed, Plan, event_cwd, string};
use crate::engine::Mutation;

/// Copilot CLI's tools that write files.
pub(crate) const EDIT_TOOLS: &[&str] = &["create", "edit", "apply_patch", "write"];

pub(crate) fn plan(payload: &Value, fallback_cwd: &Path) -> Result<Plan, Malformed> {
    // Its own camelCase payload, or Claude's shape (`tool_name`,
    // `tool_input`) when it runs Claude's or VS Code's hook files.
    let (tool, args) = if payload.get("toolName").is_some() {
        (
            string(payload, "toolName", "toolName")?,
            payload.get("toolArgs"),
        )
    } else {
        (
            string(payload, "tool_name", "tool_name")?,
            payload.get("tool_input"),
        )
    };
    let args = match args {
        Some(Value::String(text)) => serde_json::from_str::<Value>(text)
            .map_err(|e| Malformed(format!("toolArgs is not JSON: {e}")))?,
        Some(v @ Value::Object(_)) => v.clone(),
        _ => return Err(Malformed("toolArgs is missing".into())),
    };
    let cwd = event_cwd(payload, fallback_cwd);
    if tool == "apply_patch" {
        return super::vscode::patch(&args, cwd);
    }
    let key = ["path", "filePath", "file_path"]
        .into_iter()
        .find(|k| args.get(k).is_some())
        .unwrap_or("path");
    let path = string(&args, key, &format!("toolArgs.{key}"))?;
    let (mutation, told) = match tool.to_ascii_lowercase().as_str() {
        "edit" => {
            let edit = read_replacement(&args, ["old_str", "new_str"], None);
            (Mutation::Edit, edit.and_then(|e| told_replaced(vec![e])))
        }
        _ => (Mutation::Write, None),
    };
    Ok(Plan::files(cwd, [(path, told)], mutation, "no file"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::PathBuf;

    #[test]
    fn tool_args_as_a_json_string() {
        let payload = json!({"sessionId": "s", "timestamp": 1, "cwd": "/ws", "toolName": "edit",
            "toolArgs": "{\"path\": \"a.py\", \"old_str\": \"x\", \"new_str\": \"y\"}",
            "toolResult": {"resultType": "success"}});
        let Ok(Plan::Check { files, told, .. }) = plan(&payload, Path::new("/")) else {
            panic!("expected a check");
        };
        assert_eq!(files, vec![PathBuf::from("/ws/a.py")]);
        assert_eq!(told.len(), 1);
    }
}
