//! `squiggle audit`: the evidence log read back, for one workspace (or
//! every one). Which changes introduced errors that were never fixed — a
//! `diagnostic_regression` (not a dry run) whose file no later written
//! change brought back to the count of errors it had before, nor back to
//! the very text it had before — and the counts per file and per agent
//! (the surface when no agent was known). Lines that are not records of a
//! known version are counted and skipped.

use std::collections::BTreeMap;
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::record::{Delivered, Head, Record, VERSION};

/// What the log says, summed up.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    /// The files read, oldest first.
    pub files: Vec<String>,
    /// The workspace summed up (its root, as the records name it); `None`:
    /// every workspace, each path under its workspace's root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// Records of other workspaces, not counted.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub other_workspaces: usize,
    pub changes: usize,
    pub regressions: usize,
    /// Regressions of dry runs (never written), among `regressions`.
    pub dry_run_regressions: usize,
    /// Lines skipped: not JSON, or a record of another version.
    pub skipped: usize,
    /// Regressions no later change fixed, oldest first.
    pub unfixed: Vec<Unfixed>,
    /// Per workspace-relative path.
    pub by_file: BTreeMap<String, Counts>,
    /// Per agent (or surface).
    pub by_agent: BTreeMap<String, Counts>,
    /// Diagnostics acknowledged as false positives (and removals of
    /// acknowledgements), oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub acknowledgements: Vec<Acknowledged>,
    /// Per agent: whether the blocks its hooks handed over reached the
    /// model, as the host's record showed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub deliveries: BTreeMap<String, Deliveries>,
}

/// Blocks judged for one agent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Deliveries {
    pub delivered: usize,
    pub not_delivered: usize,
    pub unknown: usize,
}

/// One acknowledgement the log recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Acknowledged {
    pub time: String,
    pub workspace: String,
    pub path: String,
    pub line: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    pub server: String,
    /// The agent, else the surface.
    pub by: String,
    pub reason: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub removed: bool,
}

/// Counts for one file or agent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Counts {
    pub changes: usize,
    pub regressions: usize,
    pub unfixed: usize,
}

/// A regression still open at the end of the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Unfixed {
    pub time: String,
    pub workspace: String,
    pub path: String,
    /// The agent, else the surface.
    pub by: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    pub new_errors: usize,
    /// The file's errors at the last change that recorded it.
    pub errors_now: usize,
    /// The count the regression must come back to.
    #[serde(skip)]
    errors_target: usize,
    /// The sha256 of the file's text before the change: a later change
    /// that puts that text back undid the regression.
    #[serde(skip)]
    sha256_before: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One file of one workspace.
type Key = (String, String);

/// What the records read so far say of each file.
#[derive(Default)]
struct Files {
    /// The errors each file had at the last change recording it.
    errors: BTreeMap<Key, usize>,
    /// The sha256 of each file's text before its last change.
    before: BTreeMap<Key, Option<String>>,
    /// The text a file's last change put back, when that undid a
    /// regression: that change's own regression is then no new one.
    restored: BTreeMap<Key, String>,
}

fn by(head: &Head) -> String {
    head.agent.clone().unwrap_or_else(|| {
        serde_json::to_value(head.surface)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    })
}

/// Reads `files` (oldest first) and sums up the records of `workspace`
/// (a root as the records name it), or of every workspace when `None`.
pub fn summarize(files: &[impl AsRef<Path>], workspace: Option<&str>) -> std::io::Result<Summary> {
    let mut summary = Summary {
        workspace: workspace.map(str::to_string),
        ..Summary::default()
    };
    let mut state = Files::default();
    for file in files {
        let file = file.as_ref();
        summary.files.push(file.display().to_string());
        let text = crate::edit::read_regular_string(file, crate::edit::MAX_READ_BYTES)?;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            match serde_json::from_str::<Record>(line) {
                Ok(record) if head(&record).v == VERSION => {
                    if workspace.is_some_and(|w| head(&record).workspace != w) {
                        summary.other_workspaces += 1;
                    } else {
                        take(&mut summary, &mut state, record);
                    }
                }
                _ => summary.skipped += 1,
            }
        }
    }
    for open in &summary.unfixed {
        let name = shown(&summary, &open.workspace, &open.path);
        summary.by_file.entry(name).or_default().unfixed += 1;
        summary.by_agent.entry(open.by.clone()).or_default().unfixed += 1;
    }
    Ok(summary)
}

/// A file as the summary names it: workspace-relative when it sums up one
/// workspace, else under its workspace's root (a path outside any
/// workspace is absolute either way).
fn shown(summary: &Summary, workspace: &str, path: &str) -> String {
    if summary.workspace.is_some() || Path::new(path).is_absolute() {
        path.to_string()
    } else {
        format!("{}/{path}", workspace.trim_end_matches(['/', '\\']))
    }
}

fn head(record: &Record) -> &Head {
    match record {
        Record::Change(c) => &c.head,
        Record::DiagnosticRegression(r) => &r.head,
        Record::Acknowledgement(a) => &a.head,
        Record::Delivery(d) => &d.head,
    }
}

fn take(summary: &mut Summary, state: &mut Files, record: Record) {
    match record {
        Record::Delivery(d) => {
            let counts = summary.deliveries.entry(by(&d.head)).or_default();
            match d.delivered {
                Delivered::Yes => counts.delivered += 1,
                Delivered::No => counts.not_delivered += 1,
                Delivered::Unknown => counts.unknown += 1,
            }
        }
        Record::Acknowledgement(a) => summary.acknowledgements.push(Acknowledged {
            by: by(&a.head),
            time: a.head.time,
            workspace: a.head.workspace,
            path: a.path,
            line: a.line,
            code: a.code,
            server: a.server,
            reason: a.reason,
            removed: a.removed,
        }),
        Record::Change(change) => take_change(summary, state, &change),
        Record::DiagnosticRegression(r) => take_regression(summary, state, &r),
    }
}

/// A change: counted, and every regression of its files it fixed closed —
/// by the count of errors, or by putting back the text a regression's
/// change started from (that regression and every later one of the file).
fn take_change(summary: &mut Summary, state: &mut Files, change: &super::record::Change) {
    summary.changes += 1;
    summary
        .by_agent
        .entry(by(&change.head))
        .or_default()
        .changes += 1;
    let workspace = &change.head.workspace;
    for f in &change.files {
        if !f.other {
            let name = shown(summary, workspace, &f.path);
            summary.by_file.entry(name).or_default().changes += 1;
        }
        if change.dry_run {
            continue;
        }
        let key = (workspace.clone(), f.path.clone());
        state.errors.insert(key.clone(), f.errors_after);
        state.before.insert(key.clone(), f.sha256_before.clone());
        state.restored.remove(&key);
        let ours = |open: &Unfixed| open.workspace == *workspace && open.path == f.path;
        let undone = f.sha256_after.as_ref().and_then(|after| {
            summary
                .unfixed
                .iter()
                .position(|open| ours(open) && open.sha256_before.as_ref() == Some(after))
        });
        if let (Some(first), Some(after)) = (undone, &f.sha256_after) {
            let mut index = 0;
            summary.unfixed.retain(|open| {
                index += 1;
                index <= first || !ours(open)
            });
            state.restored.insert(key, after.clone());
        }
        summary.unfixed.retain_mut(|open| {
            if !ours(open) {
                return true;
            }
            open.errors_now = f.errors_after;
            f.errors_after > open.errors_target
        });
    }
}

/// A regression: counted, and each of its files left open until a later
/// change fixes it — unless its change only put back a text from before
/// an earlier regression (its errors are that text's, not new ones).
fn take_regression(summary: &mut Summary, state: &mut Files, r: &super::record::Regression) {
    summary.regressions += 1;
    summary.by_agent.entry(by(&r.head)).or_default().regressions += 1;
    if r.dry_run {
        summary.dry_run_regressions += 1;
    }
    for f in &r.files {
        let name = shown(summary, &r.head.workspace, &f.path);
        summary.by_file.entry(name).or_default().regressions += 1;
        if r.dry_run {
            continue;
        }
        let key = (r.head.workspace.clone(), f.path.clone());
        if f.sha256.is_some() && state.restored.get(&key) == f.sha256.as_ref() {
            continue;
        }
        let now = state.errors.get(&key).copied().unwrap_or(f.new_errors);
        summary.unfixed.push(Unfixed {
            time: r.head.time.clone(),
            workspace: r.head.workspace.clone(),
            path: f.path.clone(),
            by: by(&r.head),
            tool: r.head.tool.clone(),
            new_errors: f.new_errors,
            errors_now: now,
            errors_target: now.saturating_sub(f.new_errors),
            sha256_before: state.before.get(&key).cloned().flatten(),
        });
    }
}

/// The summary as text.
pub fn render(summary: &Summary) -> String {
    let of = summary
        .workspace
        .as_deref()
        .map(|w| format!(" of workspace {w}"))
        .unwrap_or_default();
    let mut out = vec![format!(
        "{} change(s), {} regression(s) ({} in dry runs){of} in {}",
        summary.changes,
        summary.regressions,
        summary.dry_run_regressions,
        summary.files.join(", ")
    )];
    if summary.other_workspaces > 0 {
        out.push(format!(
            "{} record(s) of other workspaces not counted (--all counts every workspace)",
            summary.other_workspaces
        ));
    }
    if summary.skipped > 0 {
        out.push(format!(
            "{} line(s) skipped (not a record of version {VERSION})",
            summary.skipped
        ));
    }
    unfixed_lines(summary, &mut out);
    acknowledgement_lines(summary, &mut out);
    if !summary.deliveries.is_empty() {
        out.push("Blocks handed to the model (read from each host's record):".into());
        for (agent, d) in &summary.deliveries {
            out.push(format!(
                "  {agent}: {} delivered, {} not delivered, {} unknown",
                d.delivered, d.not_delivered, d.unknown
            ));
        }
    }
    for (title, map) in [
        ("By file:", &summary.by_file),
        ("By agent:", &summary.by_agent),
    ] {
        out.push(title.into());
        for (name, c) in map {
            out.push(format!(
                "  {name}: {} change(s), {} regression(s), {} never fixed",
                c.changes, c.regressions, c.unfixed
            ));
        }
    }
    out.join("\n")
}

/// The errors introduced and never fixed, or that there are none.
fn unfixed_lines(summary: &Summary, out: &mut Vec<String>) {
    if summary.unfixed.is_empty() {
        out.push("Every error a change introduced was fixed later.".into());
        return;
    }
    out.push("Errors introduced and never fixed:".into());
    for u in &summary.unfixed {
        let tool = u
            .tool
            .as_deref()
            .map(|t| format!(", {t}"))
            .unwrap_or_default();
        out.push(format!(
            "  {}: {} new error(s) at {} by {}{tool}; {} error(s) at its last change",
            shown(summary, &u.workspace, &u.path),
            u.new_errors,
            u.time,
            u.by,
            u.errors_now
        ));
    }
}

/// The acknowledgements made and removed, when any.
fn acknowledgement_lines(summary: &Summary, out: &mut Vec<String>) {
    if summary.acknowledgements.is_empty() {
        return;
    }
    out.push("Acknowledged as false positives:".into());
    for a in &summary.acknowledgements {
        let code = a
            .code
            .as_deref()
            .map(|c| format!(" {c}"))
            .unwrap_or_default();
        let what = if a.removed { "removed" } else { "acknowledged" };
        out.push(format!(
            "  {}:{} {}{code}: {what} at {} by {}: {}",
            shown(summary, &a.workspace, &a.path),
            a.line,
            a.server,
            a.time,
            a.by,
            a.reason
        ));
    }
}

#[cfg(test)]
mod tests;
