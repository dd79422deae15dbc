//! What an agent's payload says of a file's text before its tool ran: the
//! "before" the daemon classifies the tool's change against
//! (`crate::baseline`). An `Edit` says which string it replaced with which,
//! so undoing it on the file as it is now gives the file right before this
//! edit, whatever another agent's hook showed the daemon since; the
//! payloads also carry the whole text before (Claude Code's
//! `tool_response.originalFile`, Gemini CLI's `returnDisplay.originalContent`),
//! used when the undo cannot be told for certain, and say when the tool
//! created the file. A payload that says nothing leaves the daemon's own
//! last look at the file to stand in.

use std::path::Path;

use serde_json::Value;

use crate::baseline::{Replacement, undo_replacements};

/// What a payload tells of one file's text before the tool ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Told {
    /// The tool created the file.
    Created,
    /// The whole text before.
    Text(String),
    /// The replacements the tool made, and the whole text before when the
    /// payload has it too.
    Replaced {
        edits: Vec<Replacement>,
        original: Option<String>,
    },
}

impl Told {
    /// What is told of a file before two tools ran, `self` of the first and
    /// `next` of the second (two edits of one file in a batch).
    pub(crate) fn then(self, next: Option<Told>) -> Option<Told> {
        match (self, next) {
            (Told::Created, _) => Some(Told::Created),
            (Told::Text(text), _) => Some(Told::Text(text)),
            (
                Told::Replaced {
                    mut edits,
                    original,
                },
                Some(Told::Replaced { edits: more, .. }),
            ) => {
                edits.extend(more);
                Some(Told::Replaced { edits, original })
            }
            (Told::Replaced { original, .. }, _) => original.map(Told::Text),
        }
    }

    /// The text before as `squiggle/check`'s `before` takes it: `Some(None)`
    /// for a created file, `Some(Some(text))`, or `None` when it cannot be
    /// told. `path`'s text now is read to undo replacements.
    pub(crate) fn resolve(&self, path: &Path) -> Option<Option<String>> {
        match self {
            Told::Created => Some(None),
            Told::Text(text) => Some(Some(text.clone())),
            Told::Replaced { edits, original } => {
                let undone = crate::edit::read_regular_string(path, crate::edit::MAX_READ_BYTES)
                    .ok()
                    .and_then(|now| undo_replacements(&now, edits));
                undone.or_else(|| original.clone()).map(Some)
            }
        }
    }
}

/// Claude Code's `Edit` and `MultiEdit` (`tool_input`'s replacements, and
/// `tool_response.originalFile`) and `Write` (`tool_response.type` is
/// `create` for a new file, `originalFile` the text it replaced).
pub(crate) fn claude(tool: &str, payload: &Value) -> Option<Told> {
    let input = &payload["tool_input"];
    let original = payload["tool_response"]["originalFile"].as_str();
    match tool {
        "Edit" => replaced(vec![replacement(input, "replace_all")?], original),
        "MultiEdit" => {
            let edits = input["edits"].as_array()?;
            let edits = edits
                .iter()
                .map(|e| replacement(e, "replace_all"))
                .collect::<Option<Vec<_>>>()?;
            replaced(edits, original)
        }
        "Write" if payload["tool_response"]["type"] == "create" => Some(Told::Created),
        "Write" => original.map(|t| Told::Text(t.to_string())),
        _ => None,
    }
}

/// Gemini CLI's `replace` (`tool_input`'s replacement, and
/// `returnDisplay.originalContent`) and `write_file` (`isNewFile`,
/// `originalContent`).
pub(crate) fn gemini(tool: &str, payload: &Value) -> Option<Told> {
    let display = &payload["tool_response"]["returnDisplay"];
    let original = display["originalContent"].as_str();
    if display["isNewFile"] == true {
        return Some(Told::Created);
    }
    match tool {
        "replace" => {
            let input = &payload["tool_input"];
            let mut edit = replacement(input, "allow_multiple")?;
            edit.all |= input["expected_replacements"]
                .as_u64()
                .is_some_and(|n| n > 1);
            replaced(vec![edit], original)
        }
        _ => original.map(|t| Told::Text(t.to_string())),
    }
}

/// What Qwen Code's `edit` (`replace_all`) or `write_file` tells of the
/// file before: its `returnDisplay` is Gemini CLI's. An empty
/// `originalContent` is also what a created file shows: unknown then.
pub(crate) fn qwen(tool: &str, payload: &Value) -> Option<Told> {
    let original = payload["tool_response"]["returnDisplay"]["originalContent"]
        .as_str()
        .filter(|t| !t.is_empty());
    match tool {
        "edit" => replaced(
            vec![replacement(&payload["tool_input"], "replace_all")?],
            original,
        ),
        _ => original.map(|t| Told::Text(t.to_string())),
    }
}

/// `old_string` → `new_string` of one tool input, every occurrence when
/// its `all` flag is true.
fn replacement(input: &Value, all: &str) -> Option<Replacement> {
    read_replacement(input, ["old_string", "new_string"], Some(all))
}

/// One replacement of a tool input whose host names its texts `old` and
/// `new` (and its every-occurrence flag `all`, when it has one).
pub(crate) fn read_replacement(
    input: &Value,
    [old, new]: [&str; 2],
    all: Option<&str>,
) -> Option<Replacement> {
    Some(Replacement {
        old: input[old].as_str()?.to_string(),
        new: input[new].as_str()?.to_string(),
        all: all.is_some_and(|all| input[all] == true),
    })
}

/// What a host's tool told of one file it changed: `edits`, not the text
/// before them.
pub(crate) fn told_replaced(edits: Vec<Replacement>) -> Option<Told> {
    replaced(edits, None)
}

fn replaced(edits: Vec<Replacement>, original: Option<&str>) -> Option<Told> {
    Some(Told::Replaced {
        edits,
        original: original.map(str::to_string),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn claude_says_what_it_replaced_and_what_it_created() {
        let edit = json!({"tool_input": {"old_string": "a", "new_string": "b"},
            "tool_response": {"originalFile": "a\n"}});
        let Some(Told::Replaced { edits, original }) = claude("Edit", &edit) else {
            panic!("no replacement");
        };
        assert_eq!((edits[0].old.as_str(), edits[0].new.as_str()), ("a", "b"));
        assert_eq!(original.as_deref(), Some("a\n"));
        let created = json!({"tool_response": {"type": "create", "originalFile": null}});
        assert_eq!(claude("Write", &created), Some(Told::Created));
        let updated = json!({"tool_response": {"type": "update", "originalFile": "x\n"}});
        assert_eq!(claude("Write", &updated), Some(Told::Text("x\n".into())));
        assert_eq!(claude("Write", &json!({"tool_response": {}})), None);
    }

    #[test]
    fn gemini_says_it_too() {
        let replace = json!({"tool_input": {"old_string": "a", "new_string": "b",
            "expected_replacements": 2}, "tool_response": {"returnDisplay": {"originalContent": "a a\n"}}});
        let Some(Told::Replaced { edits, .. }) = gemini("replace", &replace) else {
            panic!("no replacement");
        };
        assert!(edits[0].all);
        let new = json!({"tool_response": {"returnDisplay": {"isNewFile": true}}});
        assert_eq!(gemini("write_file", &new), Some(Told::Created));
    }

    #[test]
    fn the_undo_comes_first_and_the_whole_text_when_it_cannot_be_told() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("a.py");
        std::fs::write(&path, "b\nc = 2\n").unwrap_or_else(|e| panic!("{e}"));
        let told = |new: &str| Told::Replaced {
            edits: vec![Replacement {
                old: "a".into(),
                new: new.into(),
                all: false,
            }],
            original: Some("a\nc = 1\n".into()),
        };
        assert_eq!(told("b").resolve(&path), Some(Some("a\nc = 2\n".into())));
        assert_eq!(told("z").resolve(&path), Some(Some("a\nc = 1\n".into())));
        assert_eq!(Told::Created.resolve(&path), Some(None));
    }
}
