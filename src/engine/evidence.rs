//! What a change leaves in the evidence log (`crate::evidence`): built
//! from what [`Engine::report`] already knows — the touched files'
//! texts before and after, their baselines and the errors each change
//! introduced, the other files against what the servers had said of them
//! before, every (file, server) outcome — and the origin its surface set.
//! Nothing here runs when the log is off.

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use std::sync::Arc;

use super::Engine;
use super::report::{CheckReport, FileReport, ServerOutcome};
use crate::baseline::{Before, Classification, new_other_errors};
use crate::config::Mutation;
use crate::diagnostic::{Diagnostic, Outcome, Severity};
use crate::evidence::record::{
    Change, FileEvidence, Head, Message, RegressedFile, Regression, ServerEvidence,
    ServerOutcomeKind, VERSION,
};
use crate::evidence::{Origin, Record, Surface, clock, origin};

/// One touched file: its texts and what the classification found.
pub(super) struct FileFacts {
    pub before: Before,
    /// The text checked; `None` when it could not be read.
    pub after: Option<Arc<str>>,
    /// Errors in its baseline; `None` when the baseline was not known.
    pub errors_before: Option<usize>,
    /// Indices into its report's diagnostics of the errors it introduced.
    pub introduced: Vec<usize>,
}

/// One change, as `Engine::report` saw it.
pub(super) struct Seen<'a> {
    pub facts: &'a [FileFacts],
    pub check: &'a CheckReport,
    /// The verdict, every diagnostic and every outcome the answer carries.
    pub classification: Classification,
    pub diagnostics: &'a [super::reported::Reported],
    pub outcomes: &'a BTreeMap<String, Vec<ServerOutcome>>,
    /// What the servers had said of the other files before the change.
    pub known_before: &'a BTreeMap<String, Vec<Diagnostic>>,
    pub mutation: Mutation,
    pub dry_run: bool,
    /// False for a check that is no change (a session's opening).
    pub recorded: bool,
}

/// Whether the file's text after the change is the text it had before.
fn unchanged(facts: &FileFacts) -> bool {
    match (&facts.before, &facts.after) {
        (Before::Text(before), Some(after)) => before == after,
        _ => false,
    }
}

fn sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn errors(diagnostics: &[Diagnostic]) -> usize {
    diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count()
}

fn kind(outcome: Outcome) -> Option<ServerOutcomeKind> {
    match outcome {
        Outcome::Pulled | Outcome::Settled => Some(ServerOutcomeKind::Answered),
        Outcome::TimedOut => Some(ServerOutcomeKind::TimedOut),
        Outcome::ServerDead => Some(ServerOutcomeKind::Error),
        Outcome::Unavailable => Some(ServerOutcomeKind::NotStarted),
        Outcome::OutsideWorkspace | Outcome::Ignored | Outcome::BinaryFile => None,
    }
}

fn message(d: &Diagnostic) -> Message {
    Message {
        path: d.file.clone(),
        line: d.line,
        column: d.column,
        severity: d.severity.name().to_string(),
        server: d.server.clone(),
        message: d.message.clone(),
    }
}

impl Engine {
    /// Writes the change's records when the log is on: `change`, then
    /// `diagnostic_regression` when it introduced errors. A listing (the
    /// `check` command, a session's opening) changes nothing and writes
    /// nothing.
    pub(super) fn record_change(&self, seen: &Seen<'_>) {
        if !self.evidence.enabled() || !seen.recorded {
            return;
        }
        let head = self.head();
        if head.is_listing() {
            return;
        }
        let mut files = Vec::new();
        let mut regressed = Vec::new();
        let mut new_messages = Vec::new();
        for (report, facts) in seen.check.files.iter().zip(seen.facts) {
            // A file the change left as it was gained nothing from it.
            let new: Vec<&Diagnostic> = facts
                .introduced
                .iter()
                .filter(|_| !unchanged(facts))
                .map(|&i| &report.diagnostics[i])
                .collect();
            let mut evidence = touched_evidence(report, facts);
            evidence.new_errors = new.len();
            let sha = evidence.sha256_after.clone();
            files.push(evidence);
            regressed_into(
                report,
                (false, sha),
                &new,
                &mut regressed,
                &mut new_messages,
            );
        }
        others_into(seen, &mut files, &mut regressed, &mut new_messages);
        let messages = self.evidence.messages();
        let change = Change {
            head: head.clone(),
            mutation: seen.mutation,
            dry_run: seen.dry_run,
            servers: self.servers_evidence(seen.outcomes.values().flatten()),
            errors_before: seen.facts.iter().map(|f| f.errors_before).sum(),
            errors_after: files.iter().map(|f| f.errors_after).sum(),
            new_errors: files.iter().map(|f| f.new_errors).sum(),
            result: seen.classification,
            messages: messages.then(|| seen.diagnostics.iter().map(|d| message(d)).collect()),
            files,
        };
        let mut records = vec![Record::Change(change)];
        if !regressed.is_empty() {
            records.push(Record::DiagnosticRegression(Regression {
                head,
                dry_run: seen.dry_run,
                files: regressed,
                messages: messages.then_some(new_messages),
            }));
        }
        self.evidence.write(&records);
    }

    /// When, where and who: the origin the surface set, else the library.
    pub(super) fn head(&self) -> Head {
        let origin = origin::current().unwrap_or(Origin {
            surface: Surface::Library,
            agent: None,
            tool: None,
        });
        Head {
            v: VERSION,
            time: clock::now(),
            workspace: self.workspace.root().display().to_string(),
            surface: origin.surface,
            agent: origin.agent,
            tool: origin.tool,
        }
    }

    /// Each server's outcomes counted, with its version when running.
    fn servers_evidence<'a>(
        &self,
        outcomes: impl Iterator<Item = &'a ServerOutcome>,
    ) -> Vec<ServerEvidence> {
        let mut counts: BTreeMap<(String, ServerOutcomeKind), usize> = BTreeMap::new();
        for o in outcomes.filter(|o| !o.server.is_empty() && !o.optional) {
            if let Some(kind) = kind(o.outcome) {
                *counts.entry((o.server.clone(), kind)).or_default() += 1;
            }
        }
        let clients = self.pool.clients();
        let version = |id: &str| {
            clients
                .iter()
                .filter(|c| c.server_id() == id)
                .find_map(|c| c.facts().and_then(|f| f.version.clone()))
        };
        counts
            .into_iter()
            .map(|((id, outcome), files)| ServerEvidence {
                version: version(&id),
                id,
                outcome,
                files,
            })
            .collect()
    }
}

/// An other file's evidence: its error counts against what the servers
/// had said of it before.
fn other_evidence(
    path: &str,
    before: &[Diagnostic],
    after: &[Diagnostic],
    new: usize,
) -> FileEvidence {
    FileEvidence {
        path: path.to_string(),
        other: true,
        created: false,
        sha256_before: None,
        sha256_after: None,
        errors_before: Some(errors(before)),
        errors_after: errors(after),
        new_errors: new,
    }
}

/// A touched file's evidence: its hashes and error counts.
fn touched_evidence(report: &FileReport, facts: &FileFacts) -> FileEvidence {
    let (created, sha256_before) = match &facts.before {
        Before::Text(text) => (false, Some(sha256(text))),
        Before::Absent => (true, None),
        Before::Unknown => (false, None),
    };
    FileEvidence {
        path: report.file.clone(),
        other: false,
        created,
        sha256_before,
        sha256_after: facts.after.as_deref().map(sha256),
        errors_before: facts.errors_before,
        errors_after: errors(&report.diagnostics),
        new_errors: facts.introduced.len(),
    }
}

/// Adds `report`'s file (other or not, with the sha256 of its text when
/// known) to the regression when `new` holds errors.
fn regressed_into(
    report: &FileReport,
    (other, sha256): (bool, Option<String>),
    new: &[&Diagnostic],
    regressed: &mut Vec<RegressedFile>,
    messages: &mut Vec<Message>,
) {
    if new.is_empty() {
        return;
    }
    let mut lines: Vec<u32> = new.iter().map(|d| d.line).collect();
    lines.sort_unstable();
    regressed.push(RegressedFile {
        path: report.file.clone(),
        other,
        sha256,
        new_errors: new.len(),
        lines,
    });
    messages.extend(new.iter().map(|d| message(d)));
}

/// The other files waited on, with errors now or not (an importer the
/// change repaired has none), and those the servers hold: each file's
/// evidence, and its regression when it gained errors.
fn others_into(
    seen: &Seen<'_>,
    files: &mut Vec<FileEvidence>,
    regressed: &mut Vec<RegressedFile>,
    new_messages: &mut Vec<Message>,
) {
    let waited = seen.check.other_outcomes.keys();
    let touched: Vec<&String> = seen.check.files.iter().map(|f| &f.file).collect();
    let others: std::collections::BTreeSet<&String> = seen
        .check
        .others
        .keys()
        .chain(waited)
        .filter(|path| !touched.contains(path))
        .collect();
    for path in others {
        let after = seen.check.others.get(path).map_or(&[][..], Vec::as_slice);
        let before = seen.known_before.get(path).map_or(&[][..], Vec::as_slice);
        let new = new_other_errors(after, before);
        files.push(other_evidence(path, before, after, new.len()));
        let report = FileReport {
            file: path.clone(),
            diagnostics: after.to_vec(),
            outcomes: Vec::new(),
        };
        regressed_into(&report, (true, None), &new, regressed, new_messages);
    }
}
