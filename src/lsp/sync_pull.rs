//! A pull by another name, for a server that offers no LSP pull but will run
//! a checker request on the current text when asked. typescript-language-server
//! publishes unversioned waves, waits ≥ 300 ms before it checks, and says
//! nothing when a file's diagnostics did not change, so a push wait has to
//! guess with quiet windows. Its `typescript.tsserverRequest` command forwards
//! tsserver's synchronous diagnostics requests, which tsserver answers for the
//! text it holds now — after every change sent before the request — with the
//! same diagnostics the server would publish (docs/servers.md). One answer,
//! exact, and no window.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use lsp_types::{Position, Range};
use serde_json::{Value, json};
use tokio::time::Instant;

use super::client::LspClient;
use super::profile::SyncPull;
use super::state::{LspDiagnostic, Pulled};
use crate::uri;

/// tsserver's requests whose answers together are what typescript-language-
/// server publishes for a file (its syntax, semantic and suggestion waves).
const TSSERVER_REQUESTS: [&str; 3] = [
    "syntacticDiagnosticsSync",
    "semanticDiagnosticsSync",
    "suggestionDiagnosticsSync",
];

impl LspClient {
    /// The diagnostics of `path` as the server computes them now, or `None`
    /// when the server would not answer so (the caller then waits on its
    /// pushes as for any push server).
    pub(super) async fn sync_pull(
        &self,
        kind: SyncPull,
        path: &Path,
        deadline: Instant,
    ) -> Option<Arc<[LspDiagnostic]>> {
        let diagnostics = match kind {
            SyncPull::Tsserver => self.tsserver_pull(path, deadline).await,
        }?;
        // Kept as the file's known diagnostics: a push that arrives later
        // may be a wave begun before this answer, so it never replaces it.
        self.state().pulled.insert(
            uri::from_path(path),
            Pulled {
                result_id: None,
                diagnostics: diagnostics.clone(),
            },
        );
        Some(diagnostics)
    }

    /// Pulls again every open document whose last pull (synchronous or
    /// LSP) found something, except the `fresh` URIs (pulled for this check
    /// already): what is reported of other files is then what the server
    /// says now, not the list from before the edit.
    pub async fn repull_reported(&self, fresh: &HashSet<String>, deadline: Instant) {
        let kind = self.inner.config.wait.sync_pull;
        if kind.is_none() && !self.pulls_diagnostics() {
            return;
        }
        let stale: Vec<String> = {
            let state = self.state();
            state
                .pulled
                .iter()
                .filter(|(u, p)| !p.diagnostics.is_empty() && !fresh.contains(*u))
                .filter(|(u, _)| state.documents.contains_key(*u))
                .map(|(u, _)| u.clone())
                .collect()
        };
        let Some(kind) = kind else {
            return self.pull_each(stale, deadline).await;
        };
        for file in stale {
            if let Some(path) = uri::to_path(&file)
                && self.sync_pull(kind, &path, deadline).await.is_none()
            {
                // No answer now: what it said before is not known to hold.
                self.state().pulled.remove(&file);
            }
        }
    }

    async fn tsserver_pull(&self, path: &Path, deadline: Instant) -> Option<Arc<[LspDiagnostic]>> {
        let file = path.to_str()?;
        let mut all = Vec::new();
        for request in TSSERVER_REQUESTS {
            let params = json!({
                "command": "typescript.tsserverRequest",
                "arguments": [request, { "file": file }],
            });
            let remaining = deadline.saturating_duration_since(Instant::now());
            let answer = self
                .request_with_timeout("workspace/executeCommand", params, remaining)
                .await;
            let answer = match answer {
                Ok(answer) => answer,
                Err(e) => {
                    tracing::debug!(server = %self.server_id(), request, "no synchronous diagnostics: {e}");
                    return None;
                }
            };
            all.extend(tsserver_body(&answer)?.iter().filter_map(from_tsserver));
        }
        Some(Arc::from(all))
    }
}

/// The diagnostics of a successful tsserver response.
fn tsserver_body(answer: &Value) -> Option<&Vec<Value>> {
    if answer.get("success").and_then(Value::as_bool) == Some(false) {
        return None;
    }
    answer.get("body")?.as_array()
}

/// One tsserver diagnostic as typescript-language-server converts it for a
/// publish: 1-based line and offset to 0-based positions, `category` to a
/// severity (a suggestion is a hint; anything unknown an error), the source
/// `typescript` unless tsserver named one.
fn from_tsserver(d: &Value) -> Option<LspDiagnostic> {
    let position = |p: &Value| -> Option<Position> {
        let line = p.get("line")?.as_u64()?.checked_sub(1)?;
        let offset = p.get("offset")?.as_u64()?.checked_sub(1)?;
        Some(Position::new(
            u32::try_from(line).ok()?,
            u32::try_from(offset).ok()?,
        ))
    };
    let severity = match d.get("category").and_then(Value::as_str) {
        Some("warning") => 2,
        Some("suggestion") => 4,
        _ => 1,
    };
    Some(LspDiagnostic {
        range: Range::new(position(d.get("start")?)?, position(d.get("end")?)?),
        severity: Some(severity),
        code: d.get("code").and_then(Value::as_i64).map(|c| c.to_string()),
        source: Some(
            d.get("source")
                .and_then(Value::as_str)
                .unwrap_or("typescript")
                .to_string(),
        ),
        message: d.get("text")?.as_str()?.to_string(),
        data: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tsserver_diagnostic_reads_as_the_server_would_publish_it() {
        let d = json!({
            "start": {"line": 189, "offset": 32}, "end": {"line": 189, "offset": 41},
            "text": "Cannot find name 'key_undef'.", "code": 2304, "category": "error"
        });
        let read = from_tsserver(&d);
        assert_eq!(
            read,
            Some(LspDiagnostic {
                range: Range::new(Position::new(188, 31), Position::new(188, 40)),
                severity: Some(1),
                code: Some("2304".into()),
                source: Some("typescript".into()),
                message: "Cannot find name 'key_undef'.".into(),
                data: None,
            })
        );
        let hint = json!({
            "start": {"line": 1, "offset": 1}, "end": {"line": 1, "offset": 2},
            "text": "unused", "code": 6133, "category": "suggestion", "source": "ts-plugin"
        });
        let hint = from_tsserver(&hint);
        assert_eq!(hint.as_ref().and_then(|h| h.severity), Some(4));
        assert_eq!(hint.and_then(|h| h.source), Some("ts-plugin".to_string()));
    }

    #[test]
    fn a_failed_or_malformed_answer_is_no_answer() {
        assert!(tsserver_body(&json!({"success": false, "message": "No Project."})).is_none());
        assert!(tsserver_body(&json!({"success": true})).is_none());
        assert_eq!(
            tsserver_body(&json!({"success": true, "body": []})).map(Vec::len),
            Some(0)
        );
        // Line 0 does not exist in tsserver's 1-based positions.
        let bad = json!({"start": {"line": 0, "offset": 1}, "end": {"line": 1, "offset": 1}, "text": "x"});
        assert_eq!(from_tsserver(&bad), None);
    }
}
