//! Checking files: open or update each file in every server that serves it,
//! then wait for every (file, server) pair at once under one deadline —
//! never one wait per file or per server in sequence. A server that had to
//! start gets `firstTouchTimeout`; a warm one `diagnosticTimeout`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use tokio::task::JoinSet;
use tokio::time::Instant;

use super::Engine;
use super::servers::serving;
use crate::diagnostic::{Diagnostic, Outcome, sort_and_dedupe};
use crate::edit::{ContentKind, DEFAULT_MAX_BYTES, classify_content};
use crate::lsp::normalize::normalize;
use crate::lsp::uri;
use crate::workspace::{PathClass, RootSearch, project_root};

/// A file to check, with its content when the caller has it (staged content,
/// a dry run); otherwise it is read from disk.
#[derive(Debug, Clone)]
pub struct FileInput {
    pub path: PathBuf,
    pub content: Option<Arc<str>>,
}

impl FileInput {
    pub fn on_disk(path: impl Into<PathBuf>) -> FileInput {
        FileInput {
            path: path.into(),
            content: None,
        }
    }
}

/// How one server's wait ended for one file.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerOutcome {
    pub server: String,
    pub outcome: Outcome,
    pub elapsed_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileReport {
    /// Workspace-relative, or the path as given when outside.
    pub file: String,
    pub diagnostics: Vec<Diagnostic>,
    pub outcomes: Vec<ServerOutcome>,
    #[serde(skip)]
    pub text: Option<Arc<str>>,
    #[serde(skip)]
    pub canonical: Option<PathBuf>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckReport {
    pub files: Vec<FileReport>,
    /// Other files with diagnostics from the servers involved, by relative path.
    pub others: BTreeMap<String, Vec<Diagnostic>>,
}

impl CheckReport {
    /// Whether any server could answer for any file.
    pub fn any_server(&self) -> bool {
        self.files.iter().flat_map(|f| &f.outcomes).any(|o| {
            matches!(
                o.outcome,
                Outcome::Pulled | Outcome::Settled | Outcome::TimedOut | Outcome::ServerDead
            )
        })
    }
}

impl Engine {
    /// Checks `files`; with `others`, also collects diagnostics the involved
    /// servers hold for other files.
    pub async fn check_files(self: &Arc<Self>, files: Vec<FileInput>, others: bool) -> CheckReport {
        let started = Instant::now();
        let mut reports: Vec<FileReport> = Vec::with_capacity(files.len());
        let mut waits = JoinSet::new();
        for (index, input) in files.into_iter().enumerate() {
            let (report, pending) = self.prepare(input);
            reports.push(report);
            for (server_index, language, root, canonical, text, rel) in pending {
                let engine = self.clone();
                waits.spawn(async move {
                    let outcome = engine
                        .wait_one(
                            server_index,
                            &language,
                            &root,
                            &canonical,
                            text.clone(),
                            &rel,
                            started,
                        )
                        .await;
                    (index, outcome)
                });
            }
        }
        let mut involved: Vec<String> = Vec::new();
        while let Some(joined) = waits.join_next().await {
            let Ok((index, (outcome, diagnostics))) = joined else {
                continue;
            };
            if !involved.contains(&outcome.server) {
                involved.push(outcome.server.clone());
            }
            let report = &mut reports[index];
            report.outcomes.push(outcome);
            report.diagnostics.extend(diagnostics);
        }
        for report in &mut reports {
            sort_and_dedupe(&mut report.diagnostics);
            report.outcomes.sort_by(|a, b| a.server.cmp(&b.server));
        }
        let mut check = CheckReport {
            files: reports,
            others: BTreeMap::new(),
        };
        if others {
            check.others = self.other_files(&check, &involved);
        }
        tracing::debug!(
            files = check.files.len(),
            ms = started.elapsed().as_millis() as u64,
            "check done"
        );
        check
    }

    /// Classifies a file and lists the (server, language, root) pairs to wait on.
    #[allow(clippy::type_complexity)]
    fn prepare(
        &self,
        input: FileInput,
    ) -> (
        FileReport,
        Vec<(usize, String, PathBuf, PathBuf, Arc<str>, String)>,
    ) {
        let given = input.path.display().to_string();
        let mut report = FileReport {
            file: given,
            diagnostics: Vec::new(),
            outcomes: Vec::new(),
            text: None,
            canonical: None,
        };
        let outcome = |o: Outcome, detail: String| ServerOutcome {
            server: String::new(),
            outcome: o,
            elapsed_ms: 0,
            detail: Some(detail),
        };
        let (canonical, relative) = match self.workspace.classify(&input.path) {
            PathClass::Inside {
                canonical,
                relative,
            } => (canonical, relative),
            PathClass::Outside { canonical } => {
                let detail = format!(
                    "{} is outside the workspace {}",
                    canonical.display(),
                    self.workspace.root().display()
                );
                report
                    .outcomes
                    .push(outcome(Outcome::OutsideWorkspace, detail));
                return (report, Vec::new());
            }
            PathClass::Ignored { relative, dir, .. } => {
                report.file = relative;
                report.outcomes.push(outcome(
                    Outcome::Ignored,
                    format!("files under {dir}/ are not checked"),
                ));
                return (report, Vec::new());
            }
        };
        report.file = relative.clone();
        report.canonical = Some(canonical.clone());
        if !self.config.enabled {
            report.outcomes.push(outcome(
                Outcome::Unavailable,
                "lsp is disabled in the configuration".into(),
            ));
            return (report, Vec::new());
        }
        let text: Arc<str> = match input.content {
            Some(text) => text,
            None => match std::fs::read(&canonical) {
                Ok(bytes) => match classify_content(&bytes, DEFAULT_MAX_BYTES) {
                    ContentKind::Text => Arc::from(String::from_utf8_lossy(&bytes).as_ref()),
                    ContentKind::Binary => {
                        report.outcomes.push(outcome(
                            Outcome::BinaryFile,
                            "binary content is not sent to servers".into(),
                        ));
                        return (report, Vec::new());
                    }
                    ContentKind::TooLarge => {
                        let detail =
                            format!("files over {DEFAULT_MAX_BYTES} bytes are not sent to servers");
                        report.outcomes.push(outcome(Outcome::BinaryFile, detail));
                        return (report, Vec::new());
                    }
                },
                Err(e) => {
                    report.outcomes.push(outcome(
                        Outcome::Unavailable,
                        format!("cannot read {}: {e}", canonical.display()),
                    ));
                    return (report, Vec::new());
                }
            },
        };
        report.text = Some(text.clone());
        let dir = canonical.parent().unwrap_or(self.workspace.root());
        let mut pending = Vec::new();
        for (server, language) in serving(&canonical, &self.servers) {
            if !server.spec.requires_marker.is_empty()
                && !crate::registry::marker_present(&server.spec, dir, self.workspace.root())
            {
                continue;
            }
            let strategy = match server.spec.root_strategy {
                crate::registry::RootStrategy::Nearest => RootSearch::Nearest,
                crate::registry::RootStrategy::Outermost => RootSearch::Outermost,
                crate::registry::RootStrategy::PreferFirstMarker => RootSearch::PreferFirstMarker,
            };
            let root = project_root(
                &canonical,
                self.workspace.root(),
                &server.spec.root_markers,
                strategy,
            );
            let index = self
                .servers
                .iter()
                .position(|s| std::ptr::eq(s, server))
                .unwrap_or(0);
            pending.push((
                index,
                language,
                root,
                canonical.clone(),
                text.clone(),
                relative.clone(),
            ));
        }
        if pending.is_empty() {
            report.outcomes.push(outcome(
                Outcome::Unavailable,
                format!("no language server is configured for {}", report.file),
            ));
        }
        (report, pending)
    }

    #[allow(clippy::too_many_arguments)]
    async fn wait_one(
        &self,
        server_index: usize,
        language: &str,
        root: &Path,
        canonical: &Path,
        text: Arc<str>,
        relative: &str,
        started: Instant,
    ) -> (ServerOutcome, Vec<Diagnostic>) {
        let server = &self.servers[server_index];
        let id = server.spec.id.clone();
        let mut cold = false;
        let first_touch = self.config.first_touch_timeout;
        let client = match self
            .pool
            .client(server, root, self.workspace.root(), first_touch, &mut cold)
            .await
        {
            Ok(client) => client,
            Err(unavailable) => {
                let outcome = ServerOutcome {
                    server: id,
                    outcome: Outcome::Unavailable,
                    elapsed_ms: started.elapsed().as_millis() as u64,
                    detail: Some(unavailable.reason),
                };
                return (outcome, Vec::new());
            }
        };
        let budget = if cold {
            first_touch
        } else {
            self.config.diagnostic_timeout
        };
        let deadline = started + budget.max(Duration::from_millis(1));
        let doc = client
            .sync_document(canonical, language, text.clone())
            .await;
        let report = client.diagnostics_for(&doc, deadline).await;
        let encoding = client.facts().map(|f| f.encoding).unwrap_or_default();
        let diagnostics = normalize(&report.diagnostics, &text, encoding, relative, &id);
        tracing::debug!(server = %id, file = relative, outcome = report.outcome.as_str(), ms = report.elapsed.as_millis() as u64, "diagnostics");
        let outcome = ServerOutcome {
            server: id,
            outcome: report.outcome,
            elapsed_ms: started.elapsed().as_millis() as u64,
            detail: client
                .dead_reason()
                .filter(|_| report.outcome == Outcome::ServerDead),
        };
        (outcome, diagnostics)
    }

    /// Diagnostics the involved servers hold for files other than the checked
    /// ones, normalized against the server's copy (or the file on disk).
    fn other_files(
        &self,
        check: &CheckReport,
        involved: &[String],
    ) -> BTreeMap<String, Vec<Diagnostic>> {
        let checked: Vec<String> = check
            .files
            .iter()
            .filter_map(|f| f.canonical.as_ref())
            .map(|p| uri::from_path(p))
            .collect();
        let mut others: BTreeMap<String, Vec<Diagnostic>> = BTreeMap::new();
        for client in self
            .pool
            .clients()
            .iter()
            .filter(|c| involved.iter().any(|id| id == c.server_id()))
        {
            let encoding = client.facts().map(|f| f.encoding).unwrap_or_default();
            for (file_uri, diagnostics) in client.known_diagnostics() {
                if checked.contains(&file_uri) {
                    continue;
                }
                let Some(path) = uri::to_path(&file_uri) else {
                    continue;
                };
                let PathClass::Inside { relative, .. } = self.workspace.classify(&path) else {
                    continue;
                };
                let text = match client.document(&path) {
                    Some((_, text)) => text,
                    None => match std::fs::read_to_string(&path) {
                        Ok(t) => Arc::from(t),
                        Err(_) => continue,
                    },
                };
                let normalized =
                    normalize(&diagnostics, &text, encoding, &relative, client.server_id());
                others.entry(relative).or_default().extend(normalized);
            }
        }
        for list in others.values_mut() {
            sort_and_dedupe(list);
        }
        others
    }
}
