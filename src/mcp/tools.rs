//! The tool catalog: each tool's name, description, input and output JSON
//! Schemas (from the same Rust types that are deserialized and serialized,
//! so `structuredContent` always matches `outputSchema`), annotations, and
//! the dispatch from a `tools/call` to the navigation code or the engine.

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::handler::server::common::{schema_for_input, schema_for_output};
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::inputs::{
    ApplyPatchInput, CallHierarchyInput, CodeActionsInput, DiagnosticsInput, EditFileInput,
    EditOutput, FileContextInput, FileInput, PositionInput, ReferencesInput, RenameInput,
    StatusInput, WorkspaceSymbolsInput, WriteFileInput,
};
use crate::engine::Engine;
use crate::navigation::diagnostics::{DiagnosticsResult, StatusResult, diagnostics, status};
use crate::navigation::{
    self, CallsResult, CodeActionsResult, DEFAULT_MAX_RESULTS, Goto, HoverResult, LocationsResult,
    NavError, RangeArgs, RenameResult, SignatureResult, SymbolsResult,
};

/// Which tools a session shows.
#[derive(Debug, Clone, Copy)]
pub struct Exposure {
    pub lsp: bool,
    pub navigation: bool,
    pub write: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Group {
    Navigation,
    Write,
    Status,
}

pub use crate::navigation::file_context::FileContextResult;

struct Spec {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    input: Arc<JsonObject>,
    output: Arc<JsonObject>,
    group: Group,
}

fn spec<I: JsonSchema + 'static, O: JsonSchema + 'static>(
    name: &'static str,
    title: &'static str,
    description: &'static str,
    group: Group,
) -> Spec {
    Spec {
        name,
        title,
        description,
        input: schema_for_input::<I>().unwrap_or_else(|e| panic!("input schema of {name}: {e}")),
        output: schema_for_output::<O>(),
        group,
    }
}

fn specs() -> Vec<Spec> {
    use Group::*;
    vec![
        spec::<PositionInput, LocationsResult>(
            "lsp_goto_definition",
            "Go to definition",
            "Where the symbol at a position is defined, from the language server. Give `path` and `line` + `column` (1-based, column in characters), or `symbol` (a name on `line`, or declared in the file). Returns `path:line:col` and the source line of each definition.",
            Navigation,
        ),
        spec::<ReferencesInput, LocationsResult>(
            "lsp_find_references",
            "Find references",
            "Every reference to the symbol at a position across the workspace (semantic, not text search). Position as in lsp_goto_definition; `include_declaration` defaults to true.",
            Navigation,
        ),
        spec::<PositionInput, HoverResult>(
            "lsp_hover",
            "Hover",
            "Type signature and documentation of the symbol at a position, as the language server shows it on hover.",
            Navigation,
        ),
        spec::<FileInput, SymbolsResult>(
            "lsp_document_symbols",
            "Document symbols",
            "The outline of one file: classes, functions, methods, variables with their kinds and line spans, indented by nesting.",
            Navigation,
        ),
        spec::<WorkspaceSymbolsInput, SymbolsResult>(
            "lsp_workspace_symbols",
            "Workspace symbols",
            "Symbols whose name matches `query` across the workspace, with their locations. `path` (any file of the language) picks the server.",
            Navigation,
        ),
        spec::<DiagnosticsInput, DiagnosticsResult>(
            "lsp_diagnostics",
            "Diagnostics",
            "Current errors from the language servers: for `path` (checked now against the file on disk), or for every file the running servers know. Same format and caps as the feedback after edits.",
            Navigation,
        ),
        spec::<PositionInput, LocationsResult>(
            "lsp_goto_type_definition",
            "Go to type definition",
            "Where the type of the symbol at a position is defined. Position as in lsp_goto_definition.",
            Navigation,
        ),
        spec::<PositionInput, LocationsResult>(
            "lsp_goto_implementation",
            "Go to implementation",
            "Implementations of the interface, abstract method or type at a position. Position as in lsp_goto_definition.",
            Navigation,
        ),
        spec::<CallHierarchyInput, CallsResult>(
            "lsp_call_hierarchy",
            "Call hierarchy",
            "Callers (`direction: incoming`, default) or callees (`outgoing`) of the function or method at a position.",
            Navigation,
        ),
        spec::<PositionInput, SignatureResult>(
            "lsp_signature_help",
            "Signature help",
            "The signature(s) of the call whose argument list contains the position, with the active parameter.",
            Navigation,
        ),
        spec::<CodeActionsInput, CodeActionsResult>(
            "lsp_code_actions",
            "Code actions",
            "Titles and kinds of the quick fixes and refactorings the server offers for a range (a line by default). Lists only; never applies anything.",
            Navigation,
        ),
        spec::<RenameInput, RenameResult>(
            "lsp_rename",
            "Rename preview",
            "Preview a semantic rename of the symbol at a position to `new_name`: the server's edit as a unified diff across files. Never writes; apply it with an edit tool if wanted.",
            Navigation,
        ),
        spec::<FileContextInput, FileContextResult>(
            "lsp_file_context",
            "File context",
            "One call to understand a file: its symbol outline, the signatures (hover) of symbols it uses from other files, and its current diagnostics, within a size `budget` in characters.",
            Navigation,
        ),
        spec::<StatusInput, StatusResult>(
            "lsp_status",
            "LSP status",
            "Which language servers run for this workspace, their state, version and start count, and whether they are still indexing.",
            Status,
        ),
        spec::<EditFileInput, EditOutput>(
            "edit_file",
            "Edit file",
            "Replace an exact string in a file (once, or every occurrence with `replace_all`), then report the language servers' diagnostics for the new content.",
            Write,
        ),
        spec::<WriteFileInput, EditOutput>(
            "write_file",
            "Write file",
            "Write a whole file (creating it), then report the language servers' diagnostics for it and for files that import it.",
            Write,
        ),
        spec::<ApplyPatchInput, EditOutput>(
            "apply_patch",
            "Apply patch",
            "Apply a unified diff or Codex patch across files, all or nothing, then report diagnostics for the touched files.",
            Write,
        ),
    ]
}

fn shown(group: Group, exposure: Exposure) -> bool {
    match group {
        Group::Status => true,
        Group::Navigation => exposure.lsp && exposure.navigation,
        Group::Write => exposure.write,
    }
}

/// The tools this session lists.
pub fn catalog(exposure: Exposure) -> Vec<Tool> {
    specs()
        .into_iter()
        .filter(|s| shown(s.group, exposure))
        .map(|s| {
            let read_only = s.group != Group::Write;
            let annotations = ToolAnnotations::with_title(s.title)
                .read_only(read_only)
                .destructive(!read_only)
                .idempotent(read_only)
                .open_world(false);
            Tool::new(s.name, s.description, s.input)
                .with_title(s.title)
                .with_raw_output_schema(s.output)
                .with_annotations(annotations)
        })
        .collect()
}

fn parse<T: DeserializeOwned>(args: JsonObject) -> Result<T, NavError> {
    serde_json::from_value(Value::Object(args))
        .map_err(|e| NavError(format!("invalid arguments: {e}")))
}

fn answer<T: Serialize>(result: Result<(T, String), NavError>) -> CallToolResult {
    match result {
        Ok((value, text)) => {
            let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
            r.structured_content = Some(serde_json::to_value(value).unwrap_or(json!({})));
            r
        }
        Err(e) => CallToolResult::error(vec![ContentBlock::text(e.0)]),
    }
}

fn edit_answer(
    result: Result<crate::engine::tools::ToolResult, crate::engine::tools::ToolError>,
) -> CallToolResult {
    match result {
        Ok(done) => {
            let mut r = CallToolResult::success(vec![ContentBlock::text(done.text())]);
            r.structured_content = Some(serde_json::to_value(&done).unwrap_or(json!({})));
            r
        }
        Err(e) => CallToolResult::error(vec![ContentBlock::text(e.to_string())]),
    }
}

fn absolute(engine: &Engine, path: &str) -> PathBuf {
    let p = PathBuf::from(path);
    if p.is_absolute() {
        p
    } else {
        engine.workspace.root().join(p)
    }
}

/// Runs one tool. Unknown or hidden tools are `None` (a protocol error).
pub async fn call(
    engine: &Arc<Engine>,
    exposure: Exposure,
    name: &str,
    args: JsonObject,
) -> Option<CallToolResult> {
    let spec = specs().into_iter().find(|s| s.name == name)?;
    if !shown(spec.group, exposure) {
        return None;
    }
    let result = match name {
        "lsp_status" => answer(Ok(status(engine, exposure.write))),
        "edit_file" => match parse::<EditFileInput>(args) {
            Ok(a) => edit_answer(
                engine
                    .edit(
                        &absolute(engine, &a.path),
                        &a.old_string,
                        &a.new_string,
                        a.replace_all.unwrap_or(false),
                        false,
                    )
                    .await,
            ),
            Err(e) => answer::<()>(Err(e)),
        },
        "write_file" => match parse::<WriteFileInput>(args) {
            Ok(a) => edit_answer(
                engine
                    .write(&absolute(engine, &a.path), &a.content, false)
                    .await,
            ),
            Err(e) => answer::<()>(Err(e)),
        },
        "apply_patch" => match parse::<ApplyPatchInput>(args) {
            Ok(a) => edit_answer(engine.apply_patch(&a.patch, false).await),
            Err(e) => answer::<()>(Err(e)),
        },
        _ => navigate(engine, name, args).await,
    };
    Some(result)
}

async fn navigate(engine: &Arc<Engine>, name: &str, args: JsonObject) -> CallToolResult {
    match name {
        "lsp_goto_definition" | "lsp_goto_type_definition" | "lsp_goto_implementation" => {
            let kind = match name {
                "lsp_goto_definition" => Goto::Definition,
                "lsp_goto_type_definition" => Goto::TypeDefinition,
                _ => Goto::Implementation,
            };
            match parse::<PositionInput>(args) {
                Ok(a) => answer(navigation::goto(engine, &a.args(), kind, a.max()).await),
                Err(e) => answer::<()>(Err(e)),
            }
        }
        "lsp_find_references" => match parse::<ReferencesInput>(args) {
            Ok(a) => answer(
                navigation::references(
                    engine,
                    &a.at.args(),
                    a.include_declaration.unwrap_or(true),
                    a.at.max(),
                )
                .await,
            ),
            Err(e) => answer::<()>(Err(e)),
        },
        "lsp_hover" => match parse::<PositionInput>(args) {
            Ok(a) => answer(navigation::hover(engine, &a.args()).await),
            Err(e) => answer::<()>(Err(e)),
        },
        "lsp_document_symbols" => match parse::<FileInput>(args) {
            Ok(a) => answer(
                navigation::document_symbols(engine, &a.path, a.max_results.unwrap_or(200).max(1))
                    .await,
            ),
            Err(e) => answer::<()>(Err(e)),
        },
        "lsp_workspace_symbols" => match parse::<WorkspaceSymbolsInput>(args) {
            Ok(a) => answer(
                navigation::workspace_symbols(
                    engine,
                    &a.query,
                    a.path.as_deref(),
                    a.max_results.unwrap_or(DEFAULT_MAX_RESULTS).max(1),
                )
                .await,
            ),
            Err(e) => answer::<()>(Err(e)),
        },
        "lsp_diagnostics" => match parse::<DiagnosticsInput>(args) {
            Ok(a) => answer(diagnostics(engine, a.path.as_deref()).await),
            Err(e) => answer::<()>(Err(e)),
        },
        "lsp_call_hierarchy" => match parse::<CallHierarchyInput>(args) {
            Ok(a) => answer(
                navigation::call_hierarchy(
                    engine,
                    &a.at.args(),
                    a.direction.unwrap_or_default(),
                    a.at.max(),
                )
                .await,
            ),
            Err(e) => answer::<()>(Err(e)),
        },
        "lsp_signature_help" => match parse::<PositionInput>(args) {
            Ok(a) => answer(navigation::signature_help(engine, &a.args()).await),
            Err(e) => answer::<()>(Err(e)),
        },
        "lsp_code_actions" => match parse::<CodeActionsInput>(args) {
            Ok(a) => {
                let range = RangeArgs {
                    start: a.at.args(),
                    end_line: a.end_line,
                    end_column: a.end_column,
                };
                answer(navigation::code_actions(engine, &range).await)
            }
            Err(e) => answer::<()>(Err(e)),
        },
        "lsp_rename" => match parse::<RenameInput>(args) {
            Ok(a) => answer(navigation::rename(engine, &a.at.args(), &a.new_name).await),
            Err(e) => answer::<()>(Err(e)),
        },
        "lsp_file_context" => match parse::<FileContextInput>(args) {
            Ok(a) => answer(
                navigation::file_context::file_context(engine, &a.path, a.budget.unwrap_or(6000))
                    .await,
            ),
            Err(e) => answer::<()>(Err(e)),
        },
        _ => CallToolResult::error(vec![ContentBlock::text(format!("unknown tool {name}"))]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_object_schemas_and_honest_annotations() {
        let all = catalog(Exposure {
            lsp: true,
            navigation: true,
            write: true,
        });
        assert_eq!(all.len(), 17);
        for tool in &all {
            assert_eq!(
                tool.input_schema.get("type"),
                Some(&json!("object")),
                "{}",
                tool.name
            );
            let output = tool.output_schema.as_ref().expect("output schema");
            assert_eq!(output.get("type"), Some(&json!("object")), "{}", tool.name);
            let read_only = tool.annotations.as_ref().and_then(|a| a.read_only_hint);
            let writes = ["edit_file", "write_file", "apply_patch"].contains(&tool.name.as_ref());
            assert_eq!(read_only, Some(!writes), "{}", tool.name);
        }
        let status_only = catalog(Exposure {
            lsp: false,
            navigation: true,
            write: false,
        });
        let names: Vec<_> = status_only.iter().map(|t| t.name.to_string()).collect();
        assert_eq!(names, ["lsp_status"]);
    }
}
