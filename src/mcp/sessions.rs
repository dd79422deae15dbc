//! The speculative-session tools (`session_*`): their inputs (snake_case,
//! workspace paths, as the edit tools take them) and their dispatch to
//! the engine's sessions (`crate::sessions`).

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::catalog::ToolId;
use crate::engine::Engine;
use crate::sessions::Edit;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionOpenInput {
    /// Every file the change may touch (workspace-relative); a file that
    /// does not exist yet may be created in the session.
    pub paths: Vec<String>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionInput {
    /// The session's id, as `session_open` answered it.
    pub session: String,
}

/// One edit of a session: `path` + `old_string` + `new_string` (an exact
/// replacement, as `edit_file`), `path` + `content` (a whole file, as
/// `write_file`), or `patch` (a unified diff or Codex patch over the
/// session's files, as `apply_patch`; no deletes or renames).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionEditInput {
    pub path: Option<String>,
    pub old_string: Option<String>,
    pub new_string: Option<String>,
    /// Replace every occurrence of `old_string` (default false).
    pub replace_all: Option<bool>,
    pub content: Option<String>,
    pub patch: Option<String>,
}

impl SessionEditInput {
    fn edit(self) -> Result<Edit, String> {
        let Self {
            path,
            old_string,
            new_string,
            replace_all,
            content,
            patch,
        } = self;
        match (path, old_string, new_string, content, patch) {
            (None, None, None, None, Some(patch)) if replace_all.is_none() => {
                Ok(Edit::Patch { patch })
            }
            (Some(path), None, None, Some(content), None) if replace_all.is_none() => {
                Ok(Edit::Write { path, content })
            }
            (Some(path), Some(old), Some(new), None, None) => Ok(Edit::Replace {
                path,
                old,
                new,
                all: replace_all.unwrap_or(false),
            }),
            _ => Err("an edit is {path, old_string, new_string[, replace_all]}, {path, content} or {patch}".into()),
        }
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionEditsInput {
    pub session: String,
    /// Applied in order, all or none.
    pub edits: Vec<SessionEditInput>,
    /// Evaluate after applying (default true).
    pub evaluate: Option<bool>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionChainInput {
    pub session: String,
    /// Each edit is one step, evaluated after it is applied.
    pub edits: Vec<SessionEditInput>,
    /// Stop after the first step that adds errors (default true).
    pub stop_on_new_errors: Option<bool>,
}

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

/// Runs one `session_*` tool.
pub(super) async fn call(engine: &Arc<Engine>, id: ToolId, args: JsonObject) -> CallToolResult {
    let e = engine;
    match id {
        ToolId::SessionOpen => reply(
            async {
                let a = parse::<SessionOpenInput>(args)?;
                let answer = e.session_open(&a.paths).await.map_err(|e| e.to_string())?;
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
                let answer = e.session_edit(&a.session, &edits, evaluate).await;
                let answer = answer.map_err(|e| e.to_string())?;
                let text = answer.text();
                Ok((answer, text))
            }
            .await,
        ),
        ToolId::SessionEvaluate => reply(
            async {
                let a = parse::<SessionInput>(args)?;
                let answer = e.session_evaluate(&a.session).await;
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
                let answer = e.session_chain(&a.session, &edits, stop).await;
                let answer = answer.map_err(|e| e.to_string())?;
                let text = answer.text();
                Ok((answer, text))
            }
            .await,
        ),
        ToolId::SessionCommit => reply(
            async {
                let a = parse::<SessionInput>(args)?;
                let result = e.session_commit(&a.session).await;
                let result = result.map_err(|e| e.to_string())?;
                let text = result.text();
                Ok((result, text))
            }
            .await,
        ),
        _ => reply(
            async {
                let a = parse::<SessionInput>(args)?;
                let answer = e.session_discard(&a.session).await;
                let answer = answer.map_err(|e| e.to_string())?;
                let text = answer.text();
                Ok((answer, text))
            }
            .await,
        ),
    }
}
