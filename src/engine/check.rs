//! Checking files: open or update each file in every server that serves it,
//! then wait for every (file, server) pair at once under one deadline —
//! never one wait per file or per server in sequence. A server that had to
//! start gets `firstTouchTimeout`; a warm one `diagnosticTimeout`.
//!
//! `check_with_dependents` adds a second phase: the importers of the
//! written files are opened (or kept open), and their diagnostics are taken
//! once each server is done with the edit — by the server's own signals
//! (`LspClient::other_file_diagnostics`), not by waiting for a fresh publish
//! of each importer, which a server that has nothing new to say never sends.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinSet;
use tokio::time::Instant;

use super::Engine;
use super::dependents::{MAX_DEPENDENTS, likely_dependents};
use super::report::{CheckReport, FileReport, ServerOutcome};
use super::servers::{language_for, serving};
use crate::diagnostic::{Diagnostic, Outcome, sort_and_dedupe};
use crate::edit::{ContentKind, DEFAULT_MAX_BYTES, classify_content};
use crate::lsp::normalize::normalize;
use crate::lsp::uri;
use crate::workspace::{PathClass, project_root};

/// A file to check, with its content when the caller has it (staged content,
/// a dry run); otherwise it is read from disk.
#[derive(Debug, Clone)]
pub struct FileInput {
    pub path: PathBuf,
    pub content: Option<Arc<str>>,
    /// The text before the edit, when the caller knows it (see
    /// `WaitProfile::open_then_change`).
    pub before: Option<Arc<str>>,
}

impl FileInput {
    pub fn on_disk(path: impl Into<PathBuf>) -> FileInput {
        FileInput {
            path: path.into(),
            content: None,
            before: None,
        }
    }
}

/// One (file, server) pair to wait on.
struct Pending {
    server_index: usize,
    language: String,
    root: PathBuf,
    canonical: PathBuf,
    text: Arc<str>,
    before: Option<Arc<str>>,
    relative: String,
}

/// (lowercased extension, language id): all of a path that `serving` reads.
type ServingKey = (Option<String>, Option<&'static str>);

/// What a check looks up once rather than once per file: which servers serve
/// a file (a function of its extension and language id only), and each
/// server's required marker and project root per directory (walks of the
/// filesystem). Lives for one check, so a marker created between checks is
/// seen by the next one.
#[derive(Default)]
struct Lookups {
    serving: HashMap<ServingKey, Vec<(usize, String)>>,
    markers: HashMap<(usize, PathBuf), bool>,
    roots: HashMap<(usize, PathBuf), PathBuf>,
}

/// Where the edit reached each (server, root) instance, and whether that
/// server's answer for the edited files was final: the facts a wait for
/// another file needs. Empty in the first phase.
#[derive(Default, Clone)]
struct WaitRules {
    edits: Arc<HashMap<(String, PathBuf), EditSeen>>,
    /// Files changed on disk outside squiggle: send each checked file again
    /// even if its text did not change, so the answer is fresh.
    resend: bool,
}

#[derive(Default, Clone, Copy)]
struct EditSeen {
    /// The server's `received_count()` once the last edited file was written.
    written_at: u64,
    /// Every edited file's wait on this server ended settled or pulled.
    done: bool,
}

impl Engine {
    /// Checks `files`; with `others`, also collects diagnostics the involved
    /// servers hold for other files.
    pub async fn check_files(self: &Arc<Self>, files: Vec<FileInput>, others: bool) -> CheckReport {
        let rules = WaitRules {
            resend: self.sync_disk().await,
            ..WaitRules::default()
        };
        let started = Instant::now();
        let reports = self.check_phase(files, rules, started).await;
        let mut check = CheckReport {
            files: reports,
            ..CheckReport::default()
        };
        if others {
            check.others = self.other_files(&check);
        }
        tracing::debug!(
            files = check.files.len(),
            ms = started.elapsed().as_millis() as u64,
            "check done"
        );
        check
    }

    /// `check_files` plus the importers of the checked files, opened (or
    /// kept open) and taken once each server is done with the edit; their
    /// diagnostics go to `others`, their outcomes to `other_outcomes`.
    pub async fn check_with_dependents(self: &Arc<Self>, files: Vec<FileInput>) -> CheckReport {
        let first = WaitRules {
            resend: self.sync_disk().await,
            ..WaitRules::default()
        };
        let started = Instant::now();
        // Finding the importers reads files, not servers: it runs on a
        // blocking thread while the first phase waits.
        let importers = self.importers(&files);
        let mut check = CheckReport {
            files: self.check_phase(files, first, started).await,
            ..CheckReport::default()
        };
        let mut edits: HashMap<(String, PathBuf), EditSeen> = HashMap::new();
        for o in check
            .files
            .iter()
            .flat_map(|f| &f.outcomes)
            .filter(|o| !o.server.is_empty())
        {
            let seen = edits
                .entry((o.server.clone(), o.root.clone()))
                .or_insert(EditSeen {
                    written_at: 0,
                    done: true,
                });
            seen.written_at = seen.written_at.max(o.written_at);
            seen.done &= matches!(o.outcome, Outcome::Settled | Outcome::Pulled);
        }
        let dependents = importers.await.unwrap_or_default();
        if !dependents.is_empty() {
            // Phase 2 has its own budget from now: after a cold start the
            // first phase may have used more than diagnosticTimeout already.
            let rules = WaitRules {
                edits: Arc::new(edits),
                resend: false,
            };
            let inputs = dependents.into_iter().map(FileInput::on_disk).collect();
            for report in self.check_phase(inputs, rules, Instant::now()).await {
                if !report.diagnostics.is_empty() {
                    check.others.insert(report.file.clone(), report.diagnostics);
                }
                check.other_outcomes.insert(report.file, report.outcomes);
            }
        }
        for (file, diagnostics) in self.other_files(&check) {
            check.others.entry(file).or_insert(diagnostics);
        }
        tracing::debug!(
            files = check.files.len(),
            others = check.others.len(),
            ms = started.elapsed().as_millis() as u64,
            "check with dependents done"
        );
        check
    }

    /// The files that import any of `files` (not themselves among them), at
    /// most `MAX_DEPENDENTS`, found on a blocking thread: one scan per
    /// (file, project root), whichever servers serve it.
    fn importers(self: &Arc<Self>, files: &[FileInput]) -> tokio::task::JoinHandle<Vec<PathBuf>> {
        let edited: Vec<PathBuf> = files
            .iter()
            .filter_map(|f| match self.workspace.classify(&f.path) {
                PathClass::Inside { canonical, .. } => Some(canonical),
                _ => None,
            })
            .collect();
        let engine = self.clone();
        tokio::task::spawn_blocking(move || {
            let mut scanned: HashSet<(PathBuf, PathBuf)> = HashSet::new();
            let mut found: Vec<PathBuf> = Vec::new();
            for canonical in &edited {
                let servers = serving(canonical, &engine.servers);
                for (server, _) in &servers {
                    let root = engine.project_root_for(canonical, server);
                    if !scanned.insert((canonical.clone(), root.clone())) {
                        continue;
                    }
                    let serves =
                        |p: &Path| servers.iter().any(|(s, _)| language_for(p, s).is_some());
                    for dep in likely_dependents(canonical, &root, serves) {
                        if !edited.contains(&dep)
                            && !found.contains(&dep)
                            && found.len() < MAX_DEPENDENTS
                        {
                            found.push(dep);
                        }
                    }
                }
            }
            found
        })
    }

    async fn check_phase(
        self: &Arc<Self>,
        files: Vec<FileInput>,
        rules: WaitRules,
        started: Instant,
    ) -> Vec<FileReport> {
        let mut reports: Vec<FileReport> = Vec::with_capacity(files.len());
        let mut waits = JoinSet::new();
        let mut lookups = Lookups::default();
        for (index, input) in files.into_iter().enumerate() {
            let (report, pending) = self.prepare(input, &mut lookups);
            reports.push(report);
            for p in pending {
                let engine = self.clone();
                let rules = rules.clone();
                waits.spawn(async move { (index, engine.wait_one(p, &rules, started).await) });
            }
        }
        while let Some(joined) = waits.join_next().await {
            let Ok((index, (outcome, diagnostics))) = joined else {
                continue;
            };
            let report = &mut reports[index];
            report.outcomes.push(outcome);
            report.diagnostics.extend(diagnostics);
        }
        for report in &mut reports {
            sort_and_dedupe(&mut report.diagnostics);
            report.outcomes.sort_by(|a, b| a.server.cmp(&b.server));
        }
        reports
    }

    /// The project root of `server` for `canonical`: where its instance runs.
    pub(super) fn project_root_for(
        &self,
        canonical: &Path,
        server: &super::ResolvedServer,
    ) -> PathBuf {
        project_root(
            canonical,
            self.workspace.root(),
            &server.spec.root_markers,
            server.spec.root_strategy,
        )
    }

    /// Classifies a file and lists the (server, language, root) pairs to wait on.
    fn prepare(&self, input: FileInput, lookups: &mut Lookups) -> (FileReport, Vec<Pending>) {
        let mut report = FileReport {
            file: input.path.display().to_string(),
            diagnostics: Vec::new(),
            outcomes: Vec::new(),
            text: None,
            canonical: None,
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
                report.outcomes.push(ServerOutcome::without_server(
                    Outcome::OutsideWorkspace,
                    detail,
                ));
                return (report, Vec::new());
            }
            PathClass::Ignored { relative, dir, .. } => {
                report.file = relative;
                report.outcomes.push(ServerOutcome::without_server(
                    Outcome::Ignored,
                    format!("files under {dir}/ are not checked"),
                ));
                return (report, Vec::new());
            }
        };
        report.file = relative.clone();
        report.canonical = Some(canonical.clone());
        if !self.config.enabled {
            report.outcomes.push(ServerOutcome::without_server(
                Outcome::Unavailable,
                "lsp is disabled in the configuration".into(),
            ));
            return (report, Vec::new());
        }
        let text = match input.content {
            Some(text) => text,
            None => match read_checkable(&canonical) {
                Ok(text) => text,
                Err(outcome) => {
                    report.outcomes.push(outcome);
                    return (report, Vec::new());
                }
            },
        };
        // `memchr` is vectorized; `str::contains(char)` walks the text bytewise.
        if memchr::memchr(0, text.as_bytes()).is_some() || text.len() > DEFAULT_MAX_BYTES {
            let detail = "binary or oversized content is not sent to servers".to_string();
            report
                .outcomes
                .push(ServerOutcome::without_server(Outcome::BinaryFile, detail));
            return (report, Vec::new());
        }
        report.text = Some(text.clone());
        let dir = canonical.parent().unwrap_or(self.workspace.root());
        // `project_root` starts from the path itself when it is a directory.
        let root_key = if canonical.is_dir() {
            canonical.as_path()
        } else {
            dir
        };
        let mut pending = Vec::new();
        for (server_index, language) in self.serving_indices(&canonical, lookups) {
            let server = &self.servers[server_index];
            if !server.spec.requires_marker.is_empty()
                && !*lookups
                    .markers
                    .entry((server_index, dir.to_path_buf()))
                    .or_insert_with(|| {
                        crate::registry::marker_present(&server.spec, dir, self.workspace.root())
                    })
            {
                continue;
            }
            let root = lookups
                .roots
                .entry((server_index, root_key.to_path_buf()))
                .or_insert_with(|| self.project_root_for(&canonical, server))
                .clone();
            pending.push(Pending {
                server_index,
                language,
                root,
                canonical: canonical.clone(),
                text: text.clone(),
                before: input.before.clone(),
                relative: relative.clone(),
            });
        }
        if pending.is_empty() {
            let detail = format!("no language server is configured for {}", report.file);
            report
                .outcomes
                .push(ServerOutcome::without_server(Outcome::Unavailable, detail));
        }
        (report, pending)
    }

    /// `serving` for `path`, by index into `self.servers`, memoized by
    /// (extension, language id): the only parts of the path it reads.
    fn serving_indices(&self, path: &Path, lookups: &mut Lookups) -> Vec<(usize, String)> {
        let extension = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        let language = crate::registry::languages::language_id(path);
        lookups
            .serving
            .entry((extension, language))
            .or_insert_with(|| {
                serving(path, &self.servers)
                    .into_iter()
                    .map(|(server, language)| {
                        let index = self
                            .servers
                            .iter()
                            .position(|s| std::ptr::eq(s, server))
                            .unwrap_or(0);
                        (index, language)
                    })
                    .collect()
            })
            .clone()
    }

    async fn wait_one(
        &self,
        p: Pending,
        rules: &WaitRules,
        started: Instant,
    ) -> (ServerOutcome, Vec<Diagnostic>) {
        let server = &self.servers[p.server_index];
        let id = server.spec.id.clone();
        let mut cold = false;
        let first_touch = self.config.first_touch_timeout;
        let client = match self
            .pool
            .client(
                server,
                &p.root,
                self.workspace.root(),
                first_touch,
                &mut cold,
            )
            .await
        {
            Ok(client) => client,
            Err(unavailable) => {
                let mut outcome =
                    ServerOutcome::without_server(Outcome::Unavailable, unavailable.reason);
                outcome.server = id;
                outcome.root = p.root;
                outcome.elapsed_ms = started.elapsed().as_millis() as u64;
                return (outcome, Vec::new());
            }
        };
        let budget = if cold {
            first_touch
        } else {
            self.config.diagnostic_timeout
        };
        let deadline = started + budget.max(Duration::from_millis(1));
        if let Some(before) = &p.before
            && server.spec.wait.open_then_change
            && client.document(&p.canonical).is_none()
        {
            let opened = client
                .sync_document(&p.canonical, &p.language, before.clone())
                .await;
            client.diagnostics_for(&opened, deadline).await;
        }
        let doc = if rules.resend {
            client
                .resync_document(&p.canonical, &p.language, p.text.clone())
                .await
        } else {
            client
                .sync_document(&p.canonical, &p.language, p.text.clone())
                .await
        };
        let report = match rules.edits.get(&(id.clone(), p.root.clone())) {
            Some(edit) => {
                client
                    .other_file_diagnostics(&doc, edit.written_at, edit.done, deadline)
                    .await
            }
            None => client.diagnostics_for(&doc, deadline).await,
        };
        let encoding = client.facts().map(|f| f.encoding).unwrap_or_default();
        let diagnostics = normalize(&report.diagnostics, &p.text, encoding, &p.relative, &id);
        tracing::debug!(server = %id, file = %p.relative, outcome = report.outcome.as_str(), ms = report.elapsed.as_millis() as u64, "diagnostics");
        let outcome = ServerOutcome {
            server: id,
            outcome: report.outcome,
            elapsed_ms: started.elapsed().as_millis() as u64,
            detail: client
                .dead_reason()
                .filter(|_| report.outcome == Outcome::ServerDead),
            root: p.root,
            written_at: doc.changed_at,
        };
        (outcome, diagnostics)
    }

    /// Diagnostics the running servers hold for files other than the checked
    /// ones, from the servers involved in the check.
    fn other_files(&self, check: &CheckReport) -> BTreeMap<String, Vec<Diagnostic>> {
        let involved: Vec<&str> = check
            .files
            .iter()
            .flat_map(|f| &f.outcomes)
            .map(|o| o.server.as_str())
            .collect();
        let checked: HashSet<String> = check
            .files
            .iter()
            .filter_map(|f| f.canonical.as_ref())
            .map(|p| uri::from_path(p))
            .collect();
        self.known_diagnostics(|server, file_uri| {
            involved.contains(&server) && !checked.contains(file_uri)
        })
    }

    /// What the running servers last said for every file of the workspace
    /// that `wanted(server id, file uri)`, normalized against the server's
    /// copy of the file (or the file on disk), merged across servers.
    pub(super) fn known_diagnostics(
        &self,
        wanted: impl Fn(&str, &str) -> bool,
    ) -> BTreeMap<String, Vec<Diagnostic>> {
        let mut known: BTreeMap<String, Vec<Diagnostic>> = BTreeMap::new();
        for client in self.pool.clients() {
            let encoding = client.facts().map(|f| f.encoding).unwrap_or_default();
            for (file_uri, diagnostics) in client.known_diagnostics() {
                if !wanted(client.server_id(), &file_uri) {
                    continue;
                }
                let Some(path) = uri::to_path(&file_uri) else {
                    continue;
                };
                let PathClass::Inside { relative, .. } = self.workspace.classify(&path) else {
                    continue;
                };
                let text = match client.document_by_uri(&file_uri) {
                    Some(text) => text,
                    None => match std::fs::read_to_string(&path) {
                        Ok(t) => Arc::from(t),
                        Err(_) => continue,
                    },
                };
                let normalized =
                    normalize(&diagnostics, &text, encoding, &relative, client.server_id());
                known.entry(relative).or_default().extend(normalized);
            }
        }
        for list in known.values_mut() {
            sort_and_dedupe(list);
        }
        known
    }
}

/// Reads a file squiggle may send to servers, or says why not.
fn read_checkable(path: &Path) -> Result<Arc<str>, ServerOutcome> {
    let bytes = std::fs::read(path).map_err(|e| {
        ServerOutcome::without_server(
            Outcome::Unavailable,
            format!("cannot read {}: {e}", path.display()),
        )
    })?;
    match classify_content(&bytes, DEFAULT_MAX_BYTES) {
        ContentKind::Text => Ok(Arc::from(String::from_utf8_lossy(&bytes).as_ref())),
        ContentKind::Binary => Err(ServerOutcome::without_server(
            Outcome::BinaryFile,
            "binary content is not sent to servers".into(),
        )),
        ContentKind::TooLarge => Err(ServerOutcome::without_server(
            Outcome::BinaryFile,
            format!("files over {DEFAULT_MAX_BYTES} bytes are not sent to servers"),
        )),
    }
}
