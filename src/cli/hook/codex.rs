//! Codex's PostToolUse event for `apply_patch`. The payload carries
//! `session_id`, `turn_id`, `transcript_path`, `cwd`, `hook_event_name`,
//! `model`, `permission_mode`, `tool_name`, `tool_use_id`, `tool_input` and
//! `tool_response`; the patch body is `tool_input.command` (a string; an
//! array whose last element is the patch is read too, as a shell-style
//! `["apply_patch", patch]` call). Every added, updated or moved-to file is
//! checked in one call; deleted files are not. Paths are relative to `cwd`.

use std::path::Path;

use serde_json::Value;

use super::before::{Told, told_replaced};
use super::{Malformed, Plan, event_cwd, other_event, string, tool_input};
use crate::baseline::Replacement;
use crate::edit::{FilePatch, Hunk, parse_patch};
use crate::engine::Mutation;

/// The event name the reply's `hookSpecificOutput` carries.
pub const EVENT: &str = "PostToolUse";

pub(crate) fn plan(payload: &Value, fallback_cwd: &Path) -> Result<Plan, Malformed> {
    if !payload.is_object() {
        return Err(Malformed("expected a JSON object".into()));
    }
    if other_event(payload, EVENT) {
        return Ok(Plan::Skip("not a PostToolUse event"));
    }
    if string(payload, "tool_name", "tool_name")? != "apply_patch" {
        return Ok(Plan::Skip("not apply_patch"));
    }
    let input = tool_input(payload)?;
    let text = match input.get("command") {
        Some(Value::String(s)) => s.as_str(),
        Some(Value::Array(parts)) => match parts.last() {
            Some(Value::String(s)) => s.as_str(),
            _ => {
                return Err(Malformed(
                    "tool_input.command: the array's last element is not the patch text".into(),
                ));
            }
        },
        Some(_) => {
            return Err(Malformed(
                "tool_input.command is neither a string nor an array".into(),
            ));
        }
        None => return Err(Malformed("tool_input.command is missing".into())),
    };
    let patch = parse_patch(text)
        .map_err(|e| Malformed(format!("tool_input.command is not a patch: {e}")))?;
    // An added file is the patch's own; an updated one's text before is
    // the file with the patch's hunks undone (when they still are there;
    // else the daemon's last look at it stands in).
    let written = patch.files.iter().filter_map(|file| match file {
        FilePatch::Add { path, .. } => Some((path, Some(Told::Created))),
        FilePatch::Update {
            path,
            move_to: None,
            hunks,
        } => Some((path, undo(hunks))),
        FilePatch::Update {
            move_to: Some(to), ..
        } => Some((to, None)),
        FilePatch::Delete { .. } => None,
    });
    let cwd = event_cwd(payload, fallback_cwd);
    let why_none = "the patch only deletes files";
    Ok(Plan::files(cwd, written, Mutation::Edit, why_none))
}

/// The patch's hunks as the replacements they made (new side for old),
/// for the text before to be told by undoing them; `None` for a hunk at a
/// missing final newline.
fn undo(hunks: &[Hunk]) -> Option<Told> {
    let joined = |lines: &mut dyn Iterator<Item = &str>| -> String {
        lines.map(|l| format!("{l}\n")).collect()
    };
    let mut edits = Vec::new();
    for hunk in hunks {
        if hunk.old_missing_newline || hunk.new_missing_newline {
            return None;
        }
        edits.push(Replacement {
            old: joined(&mut hunk.old_lines()),
            new: joined(&mut hunk.new_lines()),
            all: false,
        });
    }
    Some(edits)
        .filter(|e| !e.is_empty())
        .and_then(told_replaced)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::PathBuf;

    const PATCH: &str = "*** Begin Patch\n*** Add File: a.py\n+x = 1\n*** Update File: b.py\n*** Move to: c.py\n@@\n-old\n+new\n*** Delete File: d.py\n*** Update File: e.py\n@@\n-1\n+2\n*** End Patch\n";

    fn check(payload: Value) -> Result<Plan, Malformed> {
        plan(&payload, Path::new("/fallback"))
    }

    fn undone(old: &str, new: &str) -> Told {
        let edit = Replacement {
            old: old.into(),
            new: new.into(),
            all: false,
        };
        Told::Replaced {
            edits: vec![edit],
            original: None,
        }
    }

    #[test]
    fn added_moved_and_updated_files_not_deleted_ones() {
        let expected = Ok(Plan::Check {
            cwd: PathBuf::from("/ws"),
            files: ["/ws/a.py", "/ws/c.py", "/ws/e.py"]
                .map(PathBuf::from)
                .to_vec(),
            mutation: Mutation::Edit,
            told: [
                (PathBuf::from("/ws/a.py"), Told::Created),
                (PathBuf::from("/ws/e.py"), undone("1\n", "2\n")),
            ]
            .into(),
        });
        let string_form = json!({"hook_event_name": "PostToolUse", "cwd": "/ws",
            "tool_name": "apply_patch", "tool_input": {"command": PATCH},
            "tool_response": "Success. Updated the following files: ..."});
        assert_eq!(check(string_form), expected);
        let array_form = json!({"cwd": "/ws", "tool_name": "apply_patch",
            "tool_input": {"command": ["apply_patch", PATCH]}});
        assert_eq!(check(array_form), expected);
    }

    #[test]
    fn other_tools_skipped_and_bad_patches_named() {
        assert!(matches!(
            check(json!({"tool_name": "Bash", "tool_input": {"command": "ls"}})),
            Ok(Plan::Skip(_))
        ));
        let deletes_only = "*** Begin Patch\n*** Delete File: d.py\n*** End Patch\n";
        assert!(matches!(
            check(json!({"tool_name": "apply_patch", "tool_input": {"command": deletes_only}})),
            Ok(Plan::Skip(_))
        ));
        let Err(Malformed(why)) =
            check(json!({"tool_name": "apply_patch", "tool_input": {"command": "hello"}}))
        else {
            panic!("expected malformed");
        };
        assert!(
            why.starts_with("tool_input.command is not a patch"),
            "{why}"
        );
        assert_eq!(
            check(json!({"tool_name": "apply_patch", "tool_input": {"command": [1]}})),
            Err(Malformed(
                "tool_input.command: the array's last element is not the patch text".into()
            ))
        );
    }
}
