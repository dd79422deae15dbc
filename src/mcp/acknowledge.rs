//! `lsp_acknowledge`: an agent declares one diagnostic a false positive,
//! with a reason. The file is checked now (as `lsp_diagnostics` checks
//! it), the diagnostic on `line` (with `code`, when the line has several)
//! is stored for the workspace (`crate::hidden::acks`) and recorded in the
//! evidence log; no surface shows it again until its line's text changes.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::engine::{AckRequest, Engine, FileInput, HeldOthers};
use crate::hidden::Ack;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct AcknowledgeInput {
    /// Workspace-relative path (absolute paths inside the workspace are accepted).
    pub path: String,
    /// 1-based line of the diagnostic.
    pub line: u32,
    /// Its code, when the line has several diagnostics.
    pub code: Option<String>,
    /// Why it is a false positive: kept with it and in the evidence log.
    pub reason: String,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AcknowledgeResult {
    pub acknowledged: Ack,
}

pub(super) async fn call(engine: &Arc<Engine>, args: JsonObject) -> CallToolResult {
    match acknowledge(engine, args).await {
        Ok(ack) => {
            let code = ack
                .code
                .as_deref()
                .map(|c| format!(" ({c})"))
                .unwrap_or_default();
            let text = format!(
                "Acknowledged {}:{}{code} as a false positive; it stays hidden until line {} changes.",
                ack.file, ack.line, ack.line
            );
            let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
            let value = AcknowledgeResult { acknowledged: ack };
            r.structured_content = Some(serde_json::to_value(value).unwrap_or(json!({})));
            r
        }
        Err(e) => CallToolResult::error(vec![ContentBlock::text(e)]),
    }
}

async fn acknowledge(engine: &Arc<Engine>, args: JsonObject) -> Result<Ack, String> {
    let a: AcknowledgeInput = serde_json::from_value(Value::Object(args))
        .map_err(|e| format!("invalid arguments: {e}"))?;
    let (canonical, _) = crate::navigation::workspace_path(engine, &a.path).map_err(|e| e.0)?;
    let check = engine
        .check_files(vec![FileInput::on_disk(&canonical)], HeldOthers::Skip)
        .await;
    let found: Vec<_> = check
        .files
        .into_iter()
        .flat_map(|f| f.diagnostics)
        .collect();
    let request = AckRequest {
        file: &canonical,
        line: a.line,
        code: a.code.as_deref(),
        reason: &a.reason,
    };
    engine.acknowledge(&request, &found)
}
