//! Workflow prompts (`prompts/list`, `prompts/get`): the ways an agent
//! should combine squiggle's tools, served where every MCP client finds
//! them. Each is short and names only tools this session lists: a prompt
//! whose tools are hidden (write tools off, LSP off) is not listed, and a
//! test checks every tool a prompt names against the catalog.

use rmcp::model::{GetPromptResult, Prompt, PromptArgument, PromptMessage, Role};
use serde_json::{Map, Value};

use super::catalog::{Exposure, catalog};

/// One argument a prompt takes: its name, what it is, whether required.
type Argument = (&'static str, &'static str, bool);

struct Workflow {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    arguments: &'static [Argument],
    /// The instructions; `{name}` stands for an argument's value.
    body: &'static str,
}

const WORKFLOWS: &[Workflow] = &[
    Workflow {
        name: "safe-multi-file-change",
        title: "Safe multi-file change",
        description: "Make a change that spans several files without leaving the project broken: try it in a speculative session, see exactly which errors it adds (in the files and in those that import them), and write it only when none are left.",
        arguments: &[("goal", "what the change should achieve", true)],
        body: "Goal: {goal}\n\n\
1. Read before writing: `lsp_file_context` on each file you expect to touch (outline, the signatures it uses, its current errors). Find who uses what you will change: `lsp_find_references` on each symbol whose signature or meaning changes.\n\
2. `session_open` with every file the change may touch (new files too). Nothing is written while the session is open; its answer lists the errors that are already there.\n\
3. `session_edit` with the edits (several files at once; or `session_chain` to see which step breaks something). Its new_errors list holds the errors your change adds, in those files and in the files that import them.\n\
4. Fix with more `session_edit` calls until new_errors is empty. Errors that were there when the session opened are not yours: leave them, and say so.\n\
5. `session_commit` writes every file at once. If it refuses because a file changed on disk meanwhile, `session_discard` and start again from the file as it is now; if the change is wrong, `session_discard`.\n\
6. Finish with the `verify-before-finishing` steps.",
    },
    Workflow {
        name: "rename-with-impact",
        title: "Rename across files, impact first",
        description: "Rename a symbol everywhere it is used: see who uses it first, preview the server's rename, apply it in one step, and check the result.",
        arguments: &[
            ("path", "the file that declares the symbol", true),
            ("symbol", "the symbol's current name", true),
            ("new_name", "the name it should get", true),
        ],
        body: "Rename `{symbol}` (declared in {path}) to `{new_name}`.\n\n\
1. Impact first: `lsp_impact` with path {path} and symbol {symbol}: every use by file, tests apart, and the files importing {path} (one marked \"no use found\" may use the name in a way the server cannot see).\n\
2. Preview: `lsp_rename` on the symbol with new_name {new_name}. It writes nothing and returns a diff.\n\
3. Compare: every file from step 1 should be in the diff. A use the server cannot see (a string, a dynamic attribute, a config file) needs an edit of its own.\n\
4. Apply the diff, plus any manual edits, as one `apply_patch`, and read its diagnostics.\n\
5. Check that no use of the old name is left: `lsp_impact` on the new name counts as many uses as step 1 did.",
    },
    Workflow {
        name: "verify-before-finishing",
        title: "Verify before finishing",
        description: "Before saying the task is done: every changed file checked against the disk, no error your change introduced left, and no unchecked file called clean.",
        arguments: &[(
            "paths",
            "the files you changed, comma-separated (default: all you touched)",
            false,
        )],
        body: "Before you report the task as done:\n\n\
1. For each file you changed ({paths}), call `lsp_diagnostics` with its path: it is checked now, against the file on disk, including edits made by other tools.\n\
2. Call `lsp_diagnostics` without a path: the errors the running servers hold for every other file they know, such as importers of what you changed.\n\
3. Fix every error your change introduced, then check again. Say plainly which errors were there before your change.\n\
4. Call `lsp_status`. A server that is unavailable, not_started, broken or unresponsive checked nothing: name the files it would have checked as unverified, never as clean.",
    },
];

/// The prompts this session lists: those whose every tool it lists.
pub fn list(exposure: Exposure) -> Vec<Prompt> {
    let tools = tool_names(exposure);
    WORKFLOWS
        .iter()
        .filter(|w| named_tools(w.body).iter().all(|t| tools.contains(t)))
        .map(|w| {
            let arguments = w
                .arguments
                .iter()
                .map(|(name, description, required)| {
                    PromptArgument::new(*name)
                        .with_description(*description)
                        .with_required(*required)
                })
                .collect();
            Prompt::new(w.name, Some(w.description), Some(arguments)).with_title(w.title)
        })
        .collect()
}

/// The prompt `name` with `arguments` filled in; the error says what is
/// wrong (an unknown prompt or argument, a required one missing).
pub fn get(
    exposure: Exposure,
    name: &str,
    arguments: Option<&Map<String, Value>>,
) -> Result<GetPromptResult, String> {
    let listed = list(exposure);
    let workflow = WORKFLOWS
        .iter()
        .find(|w| w.name == name && listed.iter().any(|p| p.name == name))
        .ok_or_else(|| {
            let names: Vec<String> = listed.iter().map(|p| p.name.clone()).collect();
            format!(
                "unknown prompt {name}; this session has {}",
                names.join(", ")
            )
        })?;
    let empty = Map::new();
    let given = arguments.unwrap_or(&empty);
    if let Some(unknown) = given
        .keys()
        .find(|k| !workflow.arguments.iter().any(|(n, ..)| n == k))
    {
        return Err(format!("prompt {name} takes no argument {unknown}"));
    }
    let mut text = workflow.body.to_string();
    for (arg, _, required) in workflow.arguments {
        let value = match given.get(*arg) {
            Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
            Some(Value::String(_)) | None if *required => {
                return Err(format!("prompt {name} needs the argument {arg}"));
            }
            Some(Value::String(_)) | None => "every file you touched".to_string(),
            Some(other) => {
                return Err(format!(
                    "prompt {name}: argument {arg} must be a string, not {other}"
                ));
            }
        };
        text = text.replace(&format!("{{{arg}}}"), &value);
    }
    Ok(
        GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
            .with_description(workflow.description),
    )
}

fn tool_names(exposure: Exposure) -> Vec<String> {
    catalog(exposure)
        .into_iter()
        .map(|t| t.name.to_string())
        .collect()
}

/// The tools a prompt's text names: every backquoted word shaped like a
/// tool name (`lsp_find_references`, `apply_patch`), not an argument's
/// placeholder or a prompt's name.
fn named_tools(body: &str) -> Vec<String> {
    body.split('`')
        .skip(1)
        .step_by(2)
        .filter(|w| {
            w.contains('_')
                && !w.starts_with('{')
                && w.chars().all(|c| c.is_ascii_lowercase() || c == '_')
        })
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: Exposure = Exposure {
        lsp: true,
        navigation: true,
        write: true,
    };

    #[test]
    fn every_tool_a_prompt_names_is_in_the_catalog() {
        let tools = tool_names(ALL);
        for w in WORKFLOWS {
            let named = named_tools(w.body);
            assert!(named.len() >= 2, "{}: {named:?}", w.name);
            for tool in named {
                assert!(tools.contains(&tool), "{} names {tool}", w.name);
            }
            for (arg, ..) in w.arguments {
                assert!(w.body.contains(&format!("{{{arg}}}")), "{}: {arg}", w.name);
            }
        }
        assert_eq!(list(ALL).len(), WORKFLOWS.len());
    }

    #[test]
    fn prompts_whose_tools_are_hidden_are_not_listed() {
        let read_only = Exposure {
            write: false,
            ..ALL
        };
        let names: Vec<String> = list(read_only).into_iter().map(|p| p.name).collect();
        assert_eq!(names, ["verify-before-finishing"]);
        let err = get(read_only, "rename-with-impact", None).err();
        assert!(err.is_some_and(|e| e.starts_with("unknown prompt rename-with-impact")));
    }

    #[test]
    fn arguments_are_filled_in_and_checked() {
        let mut args = Map::new();
        args.insert("path".into(), "src/a.py".into());
        args.insert("symbol".into(), "load".into());
        args.insert("new_name".into(), "read".into());
        let got = get(ALL, "rename-with-impact", Some(&args)).unwrap_or_default();
        let text = serde_json::to_string(&got.messages).unwrap_or_default();
        assert!(
            text.contains("Rename `load` (declared in src/a.py) to `read`"),
            "{text}"
        );
        assert!(!text.contains("{symbol}"), "{text}");
        args.remove("symbol");
        let err = get(ALL, "rename-with-impact", Some(&args)).err();
        assert_eq!(
            err.as_deref(),
            Some("prompt rename-with-impact needs the argument symbol")
        );
        args.insert("colour".into(), "red".into());
        let err = get(ALL, "verify-before-finishing", Some(&args)).err();
        assert!(err.is_some_and(|e| e.contains("takes no argument")));
        let got = get(ALL, "verify-before-finishing", None).unwrap_or_default();
        let text = serde_json::to_string(&got.messages).unwrap_or_default();
        assert!(text.contains("(every file you touched)"), "{text}");
    }
}
