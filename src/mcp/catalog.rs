//! The tool table: each tool's name, title, description, input and output
//! JSON Schemas (from the same Rust types that are deserialized and
//! serialized, so `structuredContent` always matches `outputSchema`), group
//! and annotations. Listing, lookup and dispatch all read this one table.

use std::sync::Arc;

use rmcp::handler::server::common::{schema_for_input, schema_for_output};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;

use super::acknowledge::{AcknowledgeInput, AcknowledgeResult};
use super::inputs::{
    ApplyFixInput, ApplyPatchInput, CallHierarchyInput, CodeActionsInput, DeleteFileInput,
    DiagnosticsInput, EditFileInput, FileContextInput, FileInput, ImpactInput, PositionInput,
    ReferencesInput, RenameInput, StatusInput, WorkspaceSymbolsInput, WriteFileInput,
};
use super::session_inputs::{SessionChainInput, SessionEditsInput, SessionInput, SessionOpenInput};
use crate::engine::tools::ToolResult;
use crate::engine::{ChainAnswer, SessionAnswer};
use crate::impact::ImpactResult;
use crate::navigation::diagnostics::{DiagnosticsResult, StatusResult};
use crate::navigation::file_context::FileContextResult;
use crate::navigation::{
    CallsResult, CodeActionsResult, HoverResult, LocationsResult, RenameResult, SignatureResult,
    SymbolsResult,
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
    /// Speculative sessions: shown with the write tools (their commit
    /// writes) when the servers run.
    Session,
}

/// Every tool, for dispatch (`tools::call`); its name is in [`specs`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum ToolId {
    GotoDefinition,
    FindReferences,
    Hover,
    DocumentSymbols,
    WorkspaceSymbols,
    Diagnostics,
    GotoTypeDefinition,
    GotoImplementation,
    CallHierarchy,
    SignatureHelp,
    CodeActions,
    Rename,
    FileContext,
    Impact,
    Status,
    EditFile,
    WriteFile,
    ApplyPatch,
    ApplyFix,
    DeleteFile,
    SessionOpen,
    SessionEdit,
    SessionEvaluate,
    SessionChain,
    SessionCommit,
    SessionDiscard,
    Acknowledge,
}

struct Spec {
    id: ToolId,
    name: &'static str,
    title: &'static str,
    description: &'static str,
    input: Arc<JsonObject>,
    output: Arc<JsonObject>,
    group: Group,
}

fn spec<I: JsonSchema + 'static, O: JsonSchema + 'static>(
    id: ToolId,
    name: &'static str,
    title: &'static str,
    description: &'static str,
    group: Group,
) -> Spec {
    Spec {
        id,
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
            ToolId::GotoDefinition,
            "lsp_goto_definition",
            "Go to definition",
            "Where the symbol at a position is defined, from the language server. Give `path` and `line` + `column` (1-based, column in characters), or `symbol` (a name on `line`, or declared in the file). Returns `path:line:col` and the source line of each definition.",
            Navigation,
        ),
        spec::<ReferencesInput, LocationsResult>(
            ToolId::FindReferences,
            "lsp_find_references",
            "Find references",
            "Every reference to the symbol at a position across the workspace (semantic, not text search). Position as in lsp_goto_definition; `include_declaration` defaults to true.",
            Navigation,
        ),
        spec::<PositionInput, HoverResult>(
            ToolId::Hover,
            "lsp_hover",
            "Hover",
            "Type signature and documentation of the symbol at a position, as the language server shows it on hover.",
            Navigation,
        ),
        spec::<FileInput, SymbolsResult>(
            ToolId::DocumentSymbols,
            "lsp_document_symbols",
            "Document symbols",
            "The outline of one file: classes, functions, methods, variables with their kinds and line spans, indented by nesting.",
            Navigation,
        ),
        spec::<WorkspaceSymbolsInput, SymbolsResult>(
            ToolId::WorkspaceSymbols,
            "lsp_workspace_symbols",
            "Workspace symbols",
            "Symbols whose name matches `query` across the workspace, with their locations. `path` (any file of the language) picks the server.",
            Navigation,
        ),
        spec::<DiagnosticsInput, DiagnosticsResult>(
            ToolId::Diagnostics,
            "lsp_diagnostics",
            "Diagnostics",
            "Current errors from the language servers: for `path` (checked now against the file on disk), or for every file the running servers know. Same format and caps as the feedback after edits.",
            Navigation,
        ),
        spec::<PositionInput, LocationsResult>(
            ToolId::GotoTypeDefinition,
            "lsp_goto_type_definition",
            "Go to type definition",
            "Where the type of the symbol at a position is defined. Position as in lsp_goto_definition.",
            Navigation,
        ),
        spec::<PositionInput, LocationsResult>(
            ToolId::GotoImplementation,
            "lsp_goto_implementation",
            "Go to implementation",
            "Implementations of the interface, abstract method or type at a position. Position as in lsp_goto_definition.",
            Navigation,
        ),
        spec::<CallHierarchyInput, CallsResult>(
            ToolId::CallHierarchy,
            "lsp_call_hierarchy",
            "Call hierarchy",
            "Callers (`direction: incoming`, default) or callees (`outgoing`) of the function or method at a position.",
            Navigation,
        ),
        spec::<PositionInput, SignatureResult>(
            ToolId::SignatureHelp,
            "lsp_signature_help",
            "Signature help",
            "The signature(s) of the call whose argument list contains the position, with the active parameter.",
            Navigation,
        ),
        spec::<CodeActionsInput, CodeActionsResult>(
            ToolId::CodeActions,
            "lsp_code_actions",
            "Code actions",
            "Titles and kinds of the quick fixes and refactorings the server offers for a range (a line by default). Lists only; never applies anything.",
            Navigation,
        ),
        spec::<RenameInput, RenameResult>(
            ToolId::Rename,
            "lsp_rename",
            "Rename preview",
            "Preview a semantic rename of the symbol at a position to `new_name`: the server's edit as a unified diff across files. Never writes; apply it with an edit tool if wanted.",
            Navigation,
        ),
        spec::<FileContextInput, FileContextResult>(
            ToolId::FileContext,
            "lsp_file_context",
            "File context",
            "One call to understand a file: its symbol outline, the signatures (hover) of symbols it uses from other files, and its current diagnostics, within a size `budget` in characters.",
            Navigation,
        ),
        spec::<ImpactInput, ImpactResult>(
            ToolId::Impact,
            "lsp_impact",
            "Impact",
            "Who uses what you are about to change, before you change it: for a symbol (`path` + `line`/`column` or `symbol`, also a name path like `Shape.area`), every use the server finds grouped by file, test files apart; for a file (`path` alone), each exported symbol with its use count; for a `diff`, the symbols it changes and their users. Also the files that import the declaring file.",
            Navigation,
        ),
        spec::<StatusInput, StatusResult>(
            ToolId::Status,
            "lsp_status",
            "LSP status",
            "Which language servers run for this workspace, their state, version and start count, and whether they are still indexing.",
            Status,
        ),
        spec::<EditFileInput, ToolResult>(
            ToolId::EditFile,
            "edit_file",
            "Edit file",
            "Replace an exact string in a file (once, or every occurrence with `replace_all`), then report the language servers' diagnostics for the new content.",
            Write,
        ),
        spec::<WriteFileInput, ToolResult>(
            ToolId::WriteFile,
            "write_file",
            "Write file",
            "Write a whole file (creating it), then report the language servers' diagnostics for it and for files that import it.",
            Write,
        ),
        spec::<ApplyPatchInput, ToolResult>(
            ToolId::ApplyPatch,
            "apply_patch",
            "Apply patch",
            "Apply a unified diff or Codex patch across files, all or nothing, then report diagnostics for the touched files.",
            Write,
        ),
        spec::<ApplyFixInput, ToolResult>(
            ToolId::ApplyFix,
            "lsp_apply_fix",
            "Apply a fix",
            "Apply the language server's quick fix for one diagnostic (the `fix.id` an edit's answer gave it, or its line), recomputed for the file as it is now and refused if the file changed since it was offered; then report diagnostics like an edit.",
            Write,
        ),
        spec::<DeleteFileInput, ToolResult>(
            ToolId::DeleteFile,
            "delete_file",
            "Delete file",
            "Delete a file, then report the language servers' diagnostics for the files that imported it.",
            Write,
        ),
        spec::<SessionOpenInput, SessionAnswer>(
            ToolId::SessionOpen,
            "session_open",
            "Open a speculative session",
            "Start a what-if change over `paths` (every file it may touch; new files allowed): nothing is written until session_commit. Answers the session id and the diagnostics already there (the baseline).",
            Session,
        ),
        spec::<SessionEditsInput, SessionAnswer>(
            ToolId::SessionEdit,
            "session_edit",
            "Edit in a session",
            "Apply `edits` to the session's text only (all or none; each {path, old_string, new_string}, {path, content} or {patch}), then evaluate: the errors the session's text has that the files did not have when it opened (`new_errors`), in its files and the files importing them. Nothing is written.",
            Session,
        ),
        spec::<SessionInput, SessionAnswer>(
            ToolId::SessionEvaluate,
            "session_evaluate",
            "Evaluate a session",
            "The diagnostics of the session's text against its baseline, shaped as an edit's result, with `new_errors`. Nothing is written.",
            Session,
        ),
        spec::<SessionChainInput, ChainAnswer>(
            ToolId::SessionChain,
            "session_chain",
            "Chain edits in a session",
            "Apply `edits` one step at a time, evaluating after each; by default stop after the first step that adds errors (it stays applied). Nothing is written.",
            Session,
        ),
        spec::<SessionInput, ToolResult>(
            ToolId::SessionCommit,
            "session_commit",
            "Commit a session",
            "Write every file the session changed, all or none, as apply_patch does, then report their diagnostics; refused with nothing written if a file changed on disk since the session opened. Closes the session.",
            Session,
        ),
        spec::<SessionInput, SessionAnswer>(
            ToolId::SessionDiscard,
            "session_discard",
            "Discard a session",
            "Forget the session's edits; nothing was or is written, and the servers answer for the disk's text.",
            Session,
        ),
        spec::<AcknowledgeInput, AcknowledgeResult>(
            ToolId::Acknowledge,
            "lsp_acknowledge",
            "Acknowledge a false positive",
            "Declare the diagnostic on `line` of `path` (name its `code` when the line has several) a false positive, with a `reason`. No answer shows it again until that line's text changes; it is recorded for review (`squiggle audit`). Only for diagnostics that are wrong, never to silence a real error.",
            Navigation,
        ),
    ]
}

fn shown(group: Group, exposure: Exposure) -> bool {
    match group {
        Group::Status => true,
        Group::Navigation => exposure.lsp && exposure.navigation,
        // With `lsp = false` squiggle is off: only the status tool says so.
        Group::Write => exposure.write && exposure.lsp,
        Group::Session => exposure.write && exposure.lsp,
    }
}

/// The tools this session lists.
pub fn catalog(exposure: Exposure) -> Vec<Tool> {
    specs()
        .into_iter()
        .filter(|s| shown(s.group, exposure))
        .map(|s| {
            let read_only = !writes_files(&s);
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

/// Whether the tool named `name` changes files (so resources may change).
pub fn writes(name: &str) -> bool {
    specs().iter().any(|s| s.name == name && writes_files(s))
}

fn writes_files(spec: &Spec) -> bool {
    // An acknowledgement writes the workspace's store, and changes what
    // the diagnostics resources read.
    spec.group == Group::Write || [ToolId::SessionCommit, ToolId::Acknowledge].contains(&spec.id)
}
/// The tool named `name` when this session shows it.
pub(super) fn shown_tool(name: &str, exposure: Exposure) -> Option<ToolId> {
    specs()
        .into_iter()
        .find(|s| s.name == name && shown(s.group, exposure))
        .map(|s| s.id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_tool_has_object_schemas_and_honest_annotations() {
        let all = catalog(Exposure {
            lsp: true,
            navigation: true,
            write: true,
        });
        assert_eq!(all.len(), 27);
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
            let writes = [
                "edit_file",
                "write_file",
                "apply_patch",
                "session_commit",
                "lsp_apply_fix",
                "lsp_acknowledge",
                "delete_file",
            ]
            .contains(&tool.name.as_ref());
            assert_eq!(read_only, Some(!writes), "{}", tool.name);
        }
        // `lsp = false`: the write tools too are gone, as `lsp_status`
        // says ("only this status tool is available").
        let status_only = catalog(Exposure {
            lsp: false,
            navigation: true,
            write: true,
        });
        let names: Vec<_> = status_only.iter().map(|t| t.name.to_string()).collect();
        assert_eq!(names, ["lsp_status"]);
    }
}
