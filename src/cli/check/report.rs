//! What `squiggle check` prints once the engine has answered: the
//! diagnostics that survive the diff filter, counted against `--fail-on`,
//! rendered in the chosen format on stdout; the servers' notices, the
//! per-file outcomes (`--verbose`) and the summary line on stderr.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::json;

use super::{FileChanges, FilterMode, Format, github, sarif};
use crate::diagnostic::{Diagnostic, Outcome, Severity};
use crate::engine::CheckReport;
use crate::render::{FileDiagnostics, RenderOptions, render_files, with_hidden};

/// The diagnostics that survived the filter, per file of the report, and
/// their counts.
pub struct Tally {
    /// Every diagnostic the servers reported, before the filter.
    pub total: usize,
    pub survivors: Vec<Vec<Diagnostic>>,
    pub errors: usize,
    pub warnings: usize,
    /// A survivor at or above `--fail-on`, shown or not.
    pub failed: bool,
}

impl Tally {
    /// Keeps what `filter` allows of each file's diagnostics; `lines` is
    /// `None` without a diff (every diagnostic is outside no diff).
    pub fn new(
        report: &CheckReport,
        filter: FilterMode,
        lines: Option<&std::collections::HashMap<String, FileChanges>>,
        fail_on: Severity,
    ) -> Tally {
        let empty = FileChanges::default();
        let mut total = 0;
        let mut survivors = Vec::with_capacity(report.files.len());
        for file in &report.files {
            let file_changes = match lines {
                Some(lines) => lines.get(&file.file),
                None => Some(&empty),
            };
            total += file.diagnostics.len();
            survivors.push(
                file.diagnostics
                    .iter()
                    .filter(|d| filter.keeps(d, file_changes))
                    .cloned()
                    .collect::<Vec<_>>(),
            );
        }
        let all = survivors.iter().flatten();
        let count = |severity| all.clone().filter(|d| d.severity == severity).count();
        Tally {
            total,
            errors: count(Severity::Error),
            warnings: count(Severity::Warning),
            failed: all.clone().any(|d| d.severity <= fail_on),
            survivors,
        }
    }

    fn all(&self) -> impl Iterator<Item = &Diagnostic> + Clone {
        self.survivors.iter().flatten()
    }

    /// The survivors whose severity is shown, per file.
    pub fn shown(&self, include: &[Severity]) -> Vec<Vec<Diagnostic>> {
        self.survivors
            .iter()
            .map(|list| {
                list.iter()
                    .filter(|d| include.contains(&d.severity))
                    .cloned()
                    .collect()
            })
            .collect()
    }

    /// Survivors at or above `fail_on` whose severity is not shown.
    pub fn failing_hidden(&self, fail_on: Severity, include: &[Severity]) -> usize {
        self.all()
            .filter(|d| d.severity <= fail_on && !include.contains(&d.severity))
            .count()
    }

    /// Diagnostics the filter hid.
    pub fn filtered_out(&self) -> usize {
        self.total - self.all().count()
    }
}

/// What the output formats need besides the diagnostics.
pub struct Output<'a> {
    pub format: Format,
    pub report: &'a CheckReport,
    pub tally: &'a Tally,
    /// The shown diagnostics, per file of the report.
    pub shown: &'a [Vec<Diagnostic>],
    pub render: RenderOptions,
    pub root: &'a Path,
    pub notices: &'a Notices,
}

/// The result in the chosen format, for stdout.
pub fn format(out: &Output) -> String {
    let flat = || -> Vec<Diagnostic> { out.shown.iter().flatten().cloned().collect() };
    match out.format {
        Format::Text => {
            let files: Vec<FileDiagnostics> = out
                .report
                .files
                .iter()
                .zip(out.shown)
                .map(|(f, diagnostics)| FileDiagnostics {
                    file: f.file.clone(),
                    diagnostics: diagnostics.clone(),
                    baseline_hidden: 0,
                    fixes: Vec::new(),
                })
                .collect();
            let hidden = crate::hidden::count_of(&out.report.ignored, &out.render.include);
            with_hidden(render_files(&files, &out.render), hidden)
        }
        Format::Json => pretty(&json_result(out)),
        Format::Sarif => pretty(&sarif::sarif(&flat(), out.root, &out.notices.warnings)),
        Format::Github => github::workflow_commands(&flat()),
    }
}

fn json_result(out: &Output) -> serde_json::Value {
    let files: Vec<_> = out
        .report
        .files
        .iter()
        .zip(out.shown)
        .map(|(f, diagnostics)| {
            json!({ "file": f.file, "diagnostics": diagnostics, "outcomes": f.outcomes })
        })
        .collect();
    let mut result = json!({
        "files": files,
        "summary": {
            "errors": out.tally.errors,
            "warnings": out.tally.warnings,
            "files": out.report.files.len(),
            "failed": out.tally.failed,
        },
    });
    // Hidden by ignore rules or acknowledgements: counted nowhere above.
    if !out.report.ignored.is_empty() {
        result["ignored"] = json!(out.report.ignored);
    }
    result
}

fn pretty(value: &serde_json::Value) -> String {
    format!(
        "{}\n",
        serde_json::to_string_pretty(value).unwrap_or_default()
    )
}

/// What the servers' outcomes say about the run, once per server.
pub struct Notices {
    /// Lines for stderr (and SARIF notifications), without the prefix.
    pub warnings: Vec<String>,
    /// Servers that could not answer at all (unavailable or dead).
    pub missing: Vec<String>,
    /// Files sent to no server (binary, over the size limit).
    pub unchecked: Vec<String>,
}

pub fn server_notices(report: &CheckReport) -> Notices {
    let mut unavailable: BTreeMap<&str, &str> = BTreeMap::new();
    let mut dead: BTreeMap<&str, &str> = BTreeMap::new();
    let mut timed_out: BTreeMap<&str, usize> = BTreeMap::new();
    let mut warnings = Vec::new();
    let mut unchecked = Vec::new();
    for (file, o) in report
        .files
        .iter()
        .flat_map(|f| f.outcomes.iter().map(move |o| (&f.file, o)))
    {
        if o.outcome == Outcome::BinaryFile {
            let detail = o.detail.as_deref().unwrap_or("not sent to servers");
            warnings.push(format!("{file} not checked: {detail}"));
            unchecked.push(file.clone());
        }
        if o.server.is_empty() {
            continue;
        }
        let detail = o.detail.as_deref().unwrap_or("no detail");
        match o.outcome {
            Outcome::Unavailable => {
                unavailable.entry(&o.server).or_insert(detail);
            }
            Outcome::ServerDead => {
                dead.entry(&o.server).or_insert(detail);
            }
            Outcome::TimedOut => *timed_out.entry(&o.server).or_default() += 1,
            _ => {}
        }
    }
    for (server, detail) in &unavailable {
        warnings.push(format!("{server} unavailable: {detail}"));
    }
    for (server, detail) in &dead {
        warnings.push(format!("{server} stopped during the check: {detail}"));
    }
    for (server, count) in &timed_out {
        warnings.push(format!(
            "{server} timed out on {count} {}; their diagnostics may be incomplete (raise diagnosticTimeout)",
            plural(*count, "file")
        ));
    }
    let mut missing: Vec<String> = unavailable
        .keys()
        .chain(dead.keys())
        .map(|s| s.to_string())
        .collect();
    missing.sort();
    missing.dedup();
    Notices {
        warnings,
        missing,
        unchecked,
    }
}

/// Every server's outcome per file, on stderr (`--verbose`).
pub fn print_outcomes(report: &CheckReport) {
    for file in &report.files {
        for o in &file.outcomes {
            let server = if o.server.is_empty() { "-" } else { &o.server };
            match &o.detail {
                Some(detail) => eprintln!(
                    "squiggle: {}: {server} {} ({} ms): {detail}",
                    file.file,
                    o.outcome.as_str(),
                    o.elapsed_ms
                ),
                None => eprintln!(
                    "squiggle: {}: {server} {} ({} ms)",
                    file.file,
                    o.outcome.as_str(),
                    o.elapsed_ms
                ),
            }
        }
    }
}

/// The summary line on stderr: counts, files, time, and what the filter hid.
pub fn summary(tally: &Tally, files: usize, seconds: f64, filter: FilterMode) -> String {
    let (errors, warnings) = (tally.errors, tally.warnings);
    let mut line = format!(
        "squiggle: {errors} {}, {warnings} {} in {files} {} ({seconds:.1}s)",
        plural(errors, "error"),
        plural(warnings, "warning"),
        plural(files, "file"),
    );
    let hidden = tally.filtered_out();
    if hidden > 0 {
        line += &format!(
            "; {hidden} outside the diff hidden by --filter {}",
            filter_name(filter)
        );
    }
    line
}

pub fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        noun.to_string()
    } else {
        format!("{noun}s")
    }
}

pub fn filter_name(filter: FilterMode) -> &'static str {
    match filter {
        FilterMode::Added => "added",
        FilterMode::ChangedLines => "changed-lines",
        FilterMode::File => "file",
        FilterMode::None => "none",
    }
}

pub fn severity_name(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
        Severity::Hint => "hint",
    }
}
