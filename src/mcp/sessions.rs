//! The speculative-session tools (`session_*`): their dispatch to the
//! engine's sessions (`crate::sessions`); their inputs are in
//! `mcp::session_inputs`.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use serde_json::{Value, json};

use super::catalog::ToolId;
use super::session_inputs::{
    SessionChainInput, SessionEditInput, SessionEditsInput, SessionInput, SessionOpenInput,
};
use crate::engine::Engine;
use crate::engine::request::{Operation, Request};
use crate::sessions::{Edit, Owner};

fn parse<T: serde::de::DeserializeOwned>(args: JsonObject) -> Result<T, String> {
    serde_json::from_value(Value::Object(args)).map_err(|e| format!("invalid arguments: {e}"))
}

fn edits(inputs: Vec<SessionEditInput>) -> Result<Vec<Edit>, String> {
    inputs.into_iter().map(SessionEditInput::edit).collect()
}

fn reply<T: serde::Serialize>(result: Result<(T, String), String>) -> CallToolResult {
    match result {
        Ok((value, text)) => {
            let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
            r.structured_content = Some(serde_json::to_value(value).unwrap_or(json!({})));
            r
        }
        Err(e) => CallToolResult::error(vec![ContentBlock::text(e)]),
    }
}

/// Runs one `session_*` tool for `owner`, who reaches only the sessions
/// it opened.
pub(super) async fn call(
    engine: &Arc<Engine>,
    owner: Owner,
    id: ToolId,
    args: JsonObject,
) -> CallToolResult {
    let (e, me) = (engine, owner);
    match id {
        ToolId::SessionOpen => reply(
            async {
                let a = parse::<SessionOpenInput>(args)?;
                let answer = e
                    .session_open(me, &a.paths)
                    .await
                    .map_err(|e| e.to_string())?;
                let text = answer.text();
                Ok((answer, text))
            }
            .await,
        ),
        ToolId::SessionEdit => reply(
            async {
                let a = parse::<SessionEditsInput>(args)?;
                let edits = edits(a.edits)?;
                let evaluate = a.evaluate.unwrap_or(true);
                let answer = e.session_edit(me, &a.session, &edits, evaluate).await;
                let answer = answer.map_err(|e| e.to_string())?;
                let text = answer.text();
                Ok((answer, text))
            }
            .await,
        ),
        ToolId::SessionEvaluate => reply(
            async {
                let a = parse::<SessionInput>(args)?;
                let answer = e.session_evaluate(me, &a.session).await;
                let answer = answer.map_err(|e| e.to_string())?;
                let text = answer.text();
                Ok((answer, text))
            }
            .await,
        ),
        ToolId::SessionChain => reply(
            async {
                let a = parse::<SessionChainInput>(args)?;
                let edits = edits(a.edits)?;
                let stop = a.stop_on_new_errors.unwrap_or(true);
                let answer = e.session_chain(me, &a.session, &edits, stop).await;
                let answer = answer.map_err(|e| e.to_string())?;
                let text = answer.text();
                Ok((answer, text))
            }
            .await,
        ),
        ToolId::SessionCommit => reply(
            async {
                let a = parse::<SessionInput>(args)?;
                let commit = Operation::Commit {
                    session: a.session,
                    owner: me,
                };
                let result = e.handle(Request::new(commit, false)).await;
                let result = result.map_err(|e| e.to_string())?;
                let text = result.text();
                Ok((result, text))
            }
            .await,
        ),
        _ => reply(
            async {
                let a = parse::<SessionInput>(args)?;
                let answer = e.session_discard(me, &a.session).await;
                let answer = answer.map_err(|e| e.to_string())?;
                let text = answer.text();
                Ok((answer, text))
            }
            .await,
        ),
    }
}
