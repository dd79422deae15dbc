//! Cursor's hooks (`.cursor/hooks.json`). Every event carries
//! `conversation_id`, `generation_id`, `hook_event_name` and
//! `workspace_roots`; `afterFileEdit` adds `file_path` and `edits[]`
//! (`old_string`, `new_string`). Cursor reads no output of
//! `afterFileEdit`, so the block reaches the model at the turn's end:
//! `stop` answers `{"followup_message": …}`, which Cursor sends as the next
//! user message (`loop_count` counts those). Documented payloads only:
//! Cursor is an editor and cannot run here.

use std::path::Path;

use serde_json::Value;

use super::before::{read_replacement, told_replaced};
use super::{Malformed, Plan, event_cwd, string};
use crate::baseline::Replacement;
use crate::engine::Mutation;

pub(crate) fn plan(payload: &Value, fallback_cwd: &Path) -> Result<Plan, Malformed> {
    if payload["hook_event_name"] != "afterFileEdit" {
        // afterShellExecution: only what the shell changed.
        return Ok(Plan::Skip("not a file edit"));
    }
    let path = string(payload, "file_path", "file_path")?;
    let edits: Option<Vec<Replacement>> = payload["edits"].as_array().map(|each| {
        each.iter()
            .filter_map(|e| read_replacement(e, ["old_string", "new_string"], None))
            .collect()
    });
    let told = edits.filter(|e| !e.is_empty()).and_then(told_replaced);
    let cwd = event_cwd(payload, fallback_cwd);
    Ok(Plan::files(cwd, [(path, told)], Mutation::Edit, "no file"))
}
