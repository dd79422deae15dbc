//! Hiding what the configuration's ignore rules and the workspace's
//! acknowledgements say the model should not read (`crate::hidden`), once
//! over a check's report: every surface that answers from a report —
//! edits, writes, patches, `squiggle/check` (the hooks, `squiggle check`),
//! sessions, MCP — reads the same split. And acknowledging: one
//! diagnostic a check just found, stored for the workspace and recorded
//! in the evidence log.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

use super::Engine;
use super::report::CheckReport;
use super::touched::Touched;
use crate::diagnostic::Diagnostic;
use crate::evidence::Record;
use crate::evidence::record::Acknowledgement;
use crate::hidden::acks::line_text;
use crate::hidden::{Ack, AckStore, Hidden, Hider};
use crate::workspace::PathClass;

/// What `squiggle ack` and `lsp_acknowledge` ask: the diagnostic on
/// `line` of `file` (with `code`, when several are there).
#[derive(Debug, Clone)]
pub struct AckRequest<'a> {
    pub file: &'a Path,
    pub line: u32,
    pub code: Option<&'a str>,
    pub reason: &'a str,
}

impl Engine {
    /// The workspace's acknowledgements store.
    pub fn ack_store(&self) -> AckStore {
        AckStore::for_workspace(self.workspace.root())
    }

    /// The rules and acknowledgements of this moment; an unreadable store
    /// hides nothing of its own (and says so in the log).
    fn hider(&self) -> Hider {
        let acks = self.ack_store().load().unwrap_or_else(|e| {
            tracing::warn!("acknowledgements not applied: {e}");
            Vec::new()
        });
        Hider::new(self.ignore_rules.clone(), acks)
    }

    /// Takes what is hidden out of `check`'s files and other files into
    /// `check.ignored`. `texts` are the checked texts by relative path
    /// where the caller has them (a dry run's are on no disk); any other
    /// file's text is read from disk when an acknowledgement needs it.
    pub fn hide_ignored(&self, check: &mut CheckReport, texts: &HashMap<String, Arc<str>>) {
        let hider = self.hider();
        if hider.is_empty() {
            return;
        }
        let text = |file: &str| -> Option<Arc<str>> {
            if !hider.acknowledges(file) {
                return None;
            }
            texts.get(file).cloned().or_else(|| self.disk_text(file))
        };
        for report in &mut check.files {
            let all = std::mem::take(&mut report.diagnostics);
            let (shown, hidden) = hider.split(all, text(&report.file).as_deref());
            report.diagnostics = shown;
            check.ignored.extend(hidden);
        }
        for (file, list) in &mut check.others {
            let all = std::mem::take(list);
            let (shown, hidden) = hider.split(all, text(file).as_deref());
            *list = shown;
            check.ignored.extend(hidden);
        }
        check.others.retain(|_, list| !list.is_empty());
    }

    /// [`hide_ignored`](Self::hide_ignored) over diagnostics by file, read
    /// from disk (what the servers hold: `lsp_diagnostics`).
    pub fn hide_ignored_in(
        &self,
        by_file: BTreeMap<String, Vec<Diagnostic>>,
    ) -> (BTreeMap<String, Vec<Diagnostic>>, Vec<Hidden>) {
        let mut check = CheckReport {
            others: by_file,
            ..CheckReport::default()
        };
        self.hide_ignored(&mut check, &HashMap::new());
        (check.others, check.ignored)
    }

    /// Acknowledges the diagnostic `request` names among `found` (what a
    /// check of the file just reported, shown and hidden alike): stored
    /// with the text of its line, recorded in the evidence log.
    pub fn acknowledge(
        &self,
        request: &AckRequest<'_>,
        found: &[Diagnostic],
    ) -> Result<Ack, String> {
        let reason = request.reason.trim();
        if reason.is_empty() {
            return Err("say why it is a false positive: give a reason".to_string());
        }
        let (canonical, relative) = match self.workspace.classify(request.file) {
            PathClass::Inside {
                canonical,
                relative,
            } => (canonical, relative),
            _ => {
                return Err(format!(
                    "{} is not a file of the workspace {}",
                    request.file.display(),
                    self.workspace.root().display()
                ));
            }
        };
        let d = pick(&relative, request, found)?;
        let text = crate::edit::read_regular_string(&canonical, crate::edit::MAX_READ_BYTES)
            .map_err(|e| format!("cannot read {relative}: {e}"))?;
        let line =
            line_text(&text, d.line).ok_or_else(|| format!("{relative} has no line {}", d.line))?;
        let ack = Ack::of(d, line, reason);
        self.ack_store().add(ack.clone())?;
        self.record_ack(&ack, false);
        Ok(ack)
    }

    /// Removes the acknowledgements of `file` (on `line`, with `code`, when
    /// given); returns those removed, each recorded in the evidence log.
    pub fn unacknowledge(
        &self,
        file: &Path,
        line: Option<u32>,
        code: Option<&str>,
    ) -> Result<Vec<Ack>, String> {
        let relative = match self.workspace.classify(file).within() {
            Ok((_, relative)) => relative,
            Err(_) => crate::platform::paths::slashed(file),
        };
        let removed = self.ack_store().remove(|a| {
            a.file == relative
                && line.is_none_or(|l| a.line == l)
                && code.is_none_or(|c| a.code.as_deref() == Some(c))
        })?;
        for ack in &removed {
            self.record_ack(ack, true);
        }
        Ok(removed)
    }

    fn record_ack(&self, ack: &Ack, removed: bool) {
        if !self.evidence.enabled() {
            return;
        }
        let record = Acknowledgement {
            head: self.head(),
            path: ack.file.clone(),
            line: ack.line,
            code: ack.code.clone(),
            server: ack.server.clone(),
            reason: ack.reason.clone(),
            removed,
            message: self.evidence.messages().then(|| ack.message.clone()),
        };
        self.evidence.write(&[Record::Acknowledgement(record)]);
    }

    /// The touched files' texts after, by relative path (what an
    /// acknowledgement's line is read from).
    pub(super) fn texts(&self, files: &[Touched]) -> HashMap<String, Arc<str>> {
        files
            .iter()
            .filter_map(|f| match (self.workspace.classify(&f.path), &f.after) {
                (PathClass::Inside { relative, .. }, Some(after)) => {
                    Some((relative, after.clone()))
                }
                _ => None,
            })
            .collect()
    }

    fn disk_text(&self, relative: &str) -> Option<Arc<str>> {
        let path = self.workspace.root().join(relative);
        crate::edit::read_regular_string(&path, crate::edit::MAX_READ_BYTES)
            .ok()
            .map(Arc::from)
    }
}

/// The one diagnostic of `found` on the requested line of `file`.
fn pick<'d>(
    file: &str,
    request: &AckRequest<'_>,
    found: &'d [Diagnostic],
) -> Result<&'d Diagnostic, String> {
    let line = request.line;
    let on_line: Vec<&Diagnostic> = found
        .iter()
        .filter(|d| d.file == file && d.line == line)
        .collect();
    let matching: Vec<&Diagnostic> = on_line
        .iter()
        .copied()
        .filter(|d| request.code.is_none_or(|c| d.code.as_deref() == Some(c)))
        .collect();
    let describe = |list: &[&Diagnostic]| -> String {
        list.iter()
            .map(|d| match &d.code {
                Some(code) => format!("{code} ({}): {}", d.server, d.message),
                None => format!("({}): {}", d.server, d.message),
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    match (matching.as_slice(), request.code) {
        ([d], _) => Ok(d),
        ([], Some(code)) if !on_line.is_empty() => Err(format!(
            "no diagnostic with code {code} on line {line} of {file}; there are: {}",
            describe(&on_line)
        )),
        ([], _) => Err(format!(
            "no diagnostic on line {line} of {file}: nothing to acknowledge"
        )),
        ([first, ..], _) => {
            let several = matching.as_slice();
            let same = several.iter().all(|d| {
                d.code == first.code && d.server == first.server && d.message == first.message
            });
            if same {
                Ok(first)
            } else {
                Err(format!(
                    "{} diagnostics on line {line} of {file}; name one with its code: {}",
                    several.len(),
                    describe(several)
                ))
            }
        }
    }
}
