//! The dispatch from a `tools/call` to the navigation code or the engine
//! (a change tool's input read into the engine's `Request`),
//! and the shape of the answers: a compact text plus `structuredContent`.
//! Arguments that do not parse are the tool's error, not a protocol error.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::catalog::{Exposure, ToolId, shown_tool};
use super::inputs::{
    ApplyFixInput, ApplyPatchInput, CallHierarchyInput, CodeActionsInput, DeleteFileInput,
    DiagnosticsInput, EditFileInput, FileContextInput, FileInput, ImpactInput, PositionInput,
    ReferencesInput, RenameInput, WorkspaceSymbolsInput, WriteFileInput,
};
use crate::engine::tools::ToolResult;
use crate::engine::{Engine, Request};
use crate::navigation::diagnostics::{diagnostics, status};
use crate::navigation::{self, DEFAULT_MAX_RESULTS, Goto, NavError, RangeArgs};
use crate::sessions::Owner;

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

/// An edit tool's answer; the error is its message (arguments that did not
/// parse, or the refused edit).
fn edit_answer(result: Result<ToolResult, String>) -> CallToolResult {
    match result {
        Ok(done) => {
            let mut r = CallToolResult::success(vec![ContentBlock::text(done.text())]);
            r.structured_content = Some(serde_json::to_value(&done).unwrap_or(json!({})));
            r
        }
        Err(e) => CallToolResult::error(vec![ContentBlock::text(e)]),
    }
}

/// A change tool: its input read into the engine's request, answered by
/// the engine's one door.
async fn change<I>(engine: &Arc<Engine>, args: JsonObject) -> Result<ToolResult, String>
where
    I: DeserializeOwned + TryInto<Request>,
    I::Error: std::fmt::Display,
{
    let input = parse::<I>(args).map_err(|e| e.0)?;
    let request = input.try_into().map_err(|e| e.to_string())?;
    engine.handle(request).await.map_err(|e| e.to_string())
}

/// Runs one tool. Unknown or hidden tools are `None` (a protocol error).
pub async fn call(
    engine: &Arc<Engine>,
    exposure: Exposure,
    owner: Owner,
    name: &str,
    args: JsonObject,
) -> Option<CallToolResult> {
    let result = match shown_tool(name, exposure)? {
        ToolId::Status => answer(Ok(status(engine, exposure.write))),
        ToolId::EditFile => edit_answer(change::<EditFileInput>(engine, args).await),
        ToolId::WriteFile => edit_answer(change::<WriteFileInput>(engine, args).await),
        ToolId::ApplyPatch => edit_answer(change::<ApplyPatchInput>(engine, args).await),
        ToolId::ApplyFix => edit_answer(change::<ApplyFixInput>(engine, args).await),
        ToolId::DeleteFile => edit_answer(change::<DeleteFileInput>(engine, args).await),
        id @ (ToolId::SessionOpen
        | ToolId::SessionEdit
        | ToolId::SessionEvaluate
        | ToolId::SessionChain
        | ToolId::SessionCommit
        | ToolId::SessionDiscard) => super::sessions::call(engine, owner, id, args).await,
        ToolId::Acknowledge => super::acknowledge::call(engine, args).await,
        navigation => navigate(engine, navigation, args).await,
    };
    Some(result)
}

/// Runs a navigation tool about a position (or range) in a file.
async fn navigate(engine: &Arc<Engine>, id: ToolId, args: JsonObject) -> CallToolResult {
    match id {
        ToolId::GotoDefinition | ToolId::GotoTypeDefinition | ToolId::GotoImplementation => {
            let kind = match id {
                ToolId::GotoDefinition => Goto::Definition,
                ToolId::GotoTypeDefinition => Goto::TypeDefinition,
                _ => Goto::Implementation,
            };
            answer(
                async {
                    let a = parse::<PositionInput>(args)?;
                    navigation::goto(engine, &a.args(), kind, a.max()).await
                }
                .await,
            )
        }
        ToolId::FindReferences => answer(
            async {
                let a = parse::<ReferencesInput>(args)?;
                let declaration = a.include_declaration.unwrap_or(true);
                navigation::references(engine, &a.at.args(), declaration, a.at.max()).await
            }
            .await,
        ),
        ToolId::Hover => answer(
            async { navigation::hover(engine, &parse::<PositionInput>(args)?.args()).await }.await,
        ),
        ToolId::CallHierarchy => answer(
            async {
                let a = parse::<CallHierarchyInput>(args)?;
                let direction = a.direction.unwrap_or_default();
                navigation::call_hierarchy(engine, &a.at.args(), direction, a.at.max()).await
            }
            .await,
        ),
        ToolId::SignatureHelp => answer(
            async {
                navigation::signature_help(engine, &parse::<PositionInput>(args)?.args()).await
            }
            .await,
        ),
        ToolId::CodeActions => answer(
            async {
                let a = parse::<CodeActionsInput>(args)?;
                let range = RangeArgs {
                    start: a.at.args(),
                    end_line: a.end_line,
                    end_column: a.end_column,
                };
                navigation::code_actions(engine, &range).await
            }
            .await,
        ),
        ToolId::Rename => answer(
            async {
                let a = parse::<RenameInput>(args)?;
                navigation::rename(engine, &a.at.args(), &a.new_name).await
            }
            .await,
        ),
        file_tool => about_files(engine, file_tool, args).await,
    }
}

/// Runs a navigation tool about whole files or the workspace.
async fn about_files(engine: &Arc<Engine>, id: ToolId, args: JsonObject) -> CallToolResult {
    match id {
        ToolId::DocumentSymbols => answer(
            async {
                let a = parse::<FileInput>(args)?;
                let max = a.max_results.unwrap_or(200).max(1);
                navigation::document_symbols(engine, &a.path, max).await
            }
            .await,
        ),
        ToolId::WorkspaceSymbols => answer(
            async {
                let a = parse::<WorkspaceSymbolsInput>(args)?;
                let max = a.max_results.unwrap_or(DEFAULT_MAX_RESULTS).max(1);
                navigation::workspace_symbols(engine, &a.query, a.path.as_deref(), max).await
            }
            .await,
        ),
        ToolId::Diagnostics => answer(
            async { diagnostics(engine, parse::<DiagnosticsInput>(args)?.path.as_deref()).await }
                .await,
        ),
        ToolId::Impact => answer(async { impact(engine, parse::<ImpactInput>(args)?).await }.await),
        ToolId::FileContext => answer(
            async {
                let a = parse::<FileContextInput>(args)?;
                let budget = a.budget.unwrap_or(6000);
                navigation::file_context::file_context(engine, &a.path, budget).await
            }
            .await,
        ),
        _ => CallToolResult::error(vec![ContentBlock::text("not a navigation tool")]),
    }
}

/// `lsp_impact`: a diff, a symbol, or a whole file.
async fn impact(
    engine: &Arc<Engine>,
    a: ImpactInput,
) -> Result<(crate::impact::ImpactResult, String), NavError> {
    let bounds = crate::impact::Bounds::for_engine(engine);
    if let Some(diff) = &a.diff {
        if a.path.is_some() || a.line.is_some() || a.symbol.is_some() {
            return Err(NavError::new("give either `diff` or `path`, not both"));
        }
        return crate::impact::diff_impact(engine, diff, bounds).await;
    }
    let Some(path) = a.path else {
        return Err(NavError::new(
            "give `path` (with `line` or `symbol` for one symbol), or `diff`",
        ));
    };
    if a.line.is_none() && a.symbol.is_none() {
        return crate::impact::file_impact(engine, &path, bounds).await;
    }
    let args = crate::navigation::PositionArgs {
        path,
        line: a.line,
        column: a.column,
        symbol: a.symbol,
    };
    crate::impact::symbol_impact(engine, &args, bounds).await
}
