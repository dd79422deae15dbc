//! What a client keeps of a server's diagnostics per file, and how it asks
//! for them again: the pull request's parameters, a pull's answer stored
//! (with its related documents), each of several files pulled again at
//! once, and every file's latest list for "other files" — where a server's
//! pulls are partial (rust-analyzer: its own analysis by pull, cargo
//! check's by push), a file's pulled and pushed lists united, never one
//! replacing the other. The waits in `lsp::diagnostics` and
//! `lsp::sync_pull` use it.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::client::LspClient;
use super::state::{LspDiagnostic, Pulled};

/// The LSP pull request for one document's diagnostics.
pub(super) const PULL_METHOD: &str = "textDocument/diagnostic";

impl LspClient {
    /// A `textDocument/diagnostic` request's parameters for `uri`.
    pub(super) fn pull_params(&self, uri: &str, previous: Option<&str>) -> Value {
        let mut params = json!({ "textDocument": { "uri": uri } });
        if let Some(id) = previous {
            params["previousResultId"] = Value::String(id.to_string());
        }
        let identifier = self
            .state()
            .registration_options(PULL_METHOD)
            .and_then(|o| o.get("identifier"))
            .cloned()
            .or_else(|| {
                self.facts()
                    .and_then(|f| f.raw.get("diagnosticProvider")?.get("identifier").cloned())
            });
        if let Some(identifier) = identifier {
            params["identifier"] = identifier;
        }
        params
    }

    /// Pulls each of `uris` once, all at once, and keeps the answers; a
    /// file whose pull fails loses what it said before (not known to hold).
    pub(super) async fn pull_each(&self, uris: Vec<String>, deadline: Instant) {
        let mut pulls = tokio::task::JoinSet::new();
        for uri in uris {
            let previous = self
                .state()
                .pulled
                .get(&uri)
                .and_then(|p| p.result_id.clone());
            let params = self.pull_params(&uri, previous.as_deref());
            let remaining = deadline.saturating_duration_since(Instant::now());
            let answer = self.request_with_timeout(PULL_METHOD, params, remaining);
            pulls.spawn(async move { (uri, answer.await) });
        }
        while let Some(joined) = pulls.join_next().await {
            let Ok((uri, answer)) = joined else { continue };
            let kept = answer
                .ok()
                .and_then(|report| self.store_pull_report(&uri, &report));
            if kept.is_none() {
                self.state().pulled.remove(&uri);
            }
        }
    }

    /// Stores a `DocumentDiagnosticReport` (and its related documents);
    /// returns the diagnostics for `uri`, or None for an `unchanged` report
    /// whose earlier result we do not have.
    pub(super) fn store_pull_report(
        &self,
        uri: &str,
        report: &Value,
    ) -> Option<Arc<[LspDiagnostic]>> {
        let mut state = self.state();
        if let Some(Value::Object(related)) = report.get("relatedDocuments") {
            for (other, sub) in related {
                if sub.get("kind").and_then(Value::as_str) == Some("full") {
                    let diagnostics = LspDiagnostic::parse_list(sub.get("items"));
                    let result_id = sub
                        .get("resultId")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    state.pulled.insert(
                        other.clone(),
                        Pulled {
                            result_id,
                            diagnostics,
                        },
                    );
                }
            }
        }
        let result_id = report
            .get("resultId")
            .and_then(Value::as_str)
            .map(str::to_string);
        match report.get("kind").and_then(Value::as_str) {
            Some("unchanged") => {
                let held = state.pulled.get_mut(uri)?;
                held.result_id = result_id.or(held.result_id.take());
                Some(held.diagnostics.clone())
            }
            _ => {
                let diagnostics = LspDiagnostic::parse_list(report.get("items"));
                state.pulled.insert(
                    uri.to_string(),
                    Pulled {
                        result_id,
                        diagnostics: diagnostics.clone(),
                    },
                );
                Some(diagnostics)
            }
        }
    }

    /// Every URI with non-empty diagnostics this server has reported (pushed
    /// or pulled), with the latest set for each. Used for "other files".
    /// Where pulls are partial (rust-analyzer: its own analysis by pull,
    /// cargo check's by push), a file's two lists are united: neither
    /// replaces the other. Otherwise a pulled list is the whole answer and
    /// replaces what was pushed before it (a synchronous pull's answer is
    /// newer than any wave).
    pub fn known_diagnostics(&self) -> Vec<(String, Arc<[LspDiagnostic]>)> {
        let unite = self.inner.config.wait.pull_is_partial;
        let state = self.state();
        let mut all: Vec<(String, Arc<[LspDiagnostic]>)> = state
            .published
            .iter()
            .filter(|(uri, _)| unite || !state.pulled.contains_key(*uri))
            .map(|(uri, p)| match state.pulled.get(uri) {
                Some(pulled) => (uri.clone(), united(&pulled.diagnostics, &p.diagnostics)),
                None => (uri.clone(), p.diagnostics.clone()),
            })
            .chain(
                state
                    .pulled
                    .iter()
                    .filter(|(uri, _)| !unite || !state.published.contains_key(*uri))
                    .map(|(uri, p)| (uri.clone(), p.diagnostics.clone())),
            )
            .filter(|(_, d)| !d.is_empty())
            .collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all
    }
}

/// A file's pulled list with what was pushed for it, each diagnostic once.
pub(super) fn united(
    pulled: &Arc<[LspDiagnostic]>,
    pushed: &Arc<[LspDiagnostic]>,
) -> Arc<[LspDiagnostic]> {
    if pushed.is_empty() {
        return pulled.clone();
    }
    let mut all: Vec<LspDiagnostic> = pulled.to_vec();
    all.extend(pushed.iter().filter(|d| !pulled.contains(d)).cloned());
    all.into()
}
