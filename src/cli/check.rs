//! `squiggle check [PATHS…]`: diagnostics for a set of files, for pre-commit
//! hooks and CI rather than for an agent's edit.
//!
//! Three steps, each in its own module: choose the files (`select`: paths
//! walked with the ignore rules, or what `git` says changed), check them all
//! at once with the engine, then keep what the diff filter allows (`filter`)
//! and print it in the chosen format (text, JSON, `sarif`, `github`).
//!
//! Exit codes: 0 nothing at or above `--fail-on` survived the filter, 1
//! findings, 2 a usage, configuration or environment error (and, with
//! `--require-servers`, a server that could not check its files). stdout
//! holds only the result; progress goes to stderr when it is a terminal.

mod filter;
mod git;
mod github;
mod sarif;
mod select;

use std::collections::{BTreeMap, HashMap};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use serde_json::json;

use crate::diagnostic::{Diagnostic, Outcome, Severity};
use crate::engine::{CheckReport, Engine, EngineOptions, FileInput};
use crate::render::{FileDiagnostics, render_files};

pub use filter::{FileChanges, FilterMode};
pub use git::DiffSource;

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The `<diagnostics>` blocks, capped as configured.
    Text,
    /// `{files: [{file, diagnostics, outcomes}], summary}`.
    Json,
    /// SARIF 2.1.0, for code-scanning uploads.
    Sarif,
    /// GitHub Actions workflow commands (annotations).
    Github,
}

#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// Files or directories to check; directories are walked honouring
    /// .gitignore. Default: the workspace root, or the changed files with
    /// --staged / --diff.
    pub paths: Vec<PathBuf>,
    /// Check the files staged in git, with their staged content.
    #[arg(long, conflicts_with = "diff")]
    pub staged: bool,
    /// Check the files changed since REV (working-tree content).
    #[arg(long, value_name = "REV")]
    pub diff: Option<String>,
    /// Which diagnostics count: on added lines, on changed lines, in changed
    /// files, or all. Default: added with --staged / --diff, else none.
    #[arg(long, value_enum)]
    pub filter: Option<FilterMode>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Same as --format json.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Lowest severity shown (default: the configuration's includeSeverities).
    #[arg(long, value_name = "LEVEL", value_parser = parse_severity)]
    pub severity: Option<Severity>,
    /// Lowest severity that fails the check (exit 1), shown or not.
    #[arg(long, value_name = "LEVEL", default_value = "error", value_parser = parse_severity)]
    pub fail_on: Severity,
    /// Exit 2 when a server that serves a checked file is unavailable.
    #[arg(long)]
    pub require_servers: bool,
    #[command(flatten)]
    pub workspace: super::WorkspaceArgs,
    /// Progress and per-file outcomes on stderr, even when it is not a terminal.
    #[arg(short, long)]
    pub verbose: bool,
    /// Check in this process instead of through the warm daemon (also
    /// `SQUIGGLE_NO_DAEMON=1`).
    #[arg(long)]
    pub no_daemon: bool,
}

fn parse_severity(name: &str) -> Result<Severity, String> {
    Severity::parse(name).ok_or_else(|| "expected error, warning, info or hint".to_string())
}

pub async fn run(args: Args) -> u8 {
    match check(args).await {
        Ok(code) => code,
        Err(message) => {
            eprintln!("squiggle: {message}");
            2
        }
    }
}

/// The diff a check is measured against: the changed files, and their
/// changed lines when the filter needs them.
struct Changes {
    source: DiffSource,
    files: Vec<String>,
    lines: HashMap<String, FileChanges>,
}

async fn check(args: Args) -> Result<u8, String> {
    let started = Instant::now();
    let format = if args.json { Format::Json } else { args.format };
    let source = match (&args.diff, args.staged) {
        (_, true) => Some(DiffSource::Staged),
        (Some(rev), false) => Some(DiffSource::Rev(rev.clone())),
        (None, false) => None,
    };
    let filter = args.filter.unwrap_or(if source.is_some() {
        FilterMode::Added
    } else {
        FilterMode::None
    });
    if filter != FilterMode::None && source.is_none() {
        return Err(format!(
            "--filter {} needs a diff: add --staged or --diff REV",
            filter_name(filter)
        ));
    }
    let progress = args.verbose || std::io::stderr().is_terminal();

    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    let opts = EngineOptions {
        root: args.workspace.root.clone(),
        trust_workspace: args.workspace.trust_workspace,
        ..Default::default()
    };
    let engine = Arc::new(Engine::new(&opts, &cwd).map_err(|e| e.to_string())?);
    let root = engine.workspace.root().to_path_buf();
    let include: Vec<Severity> = match args.severity {
        Some(lowest) => [
            Severity::Error,
            Severity::Warning,
            Severity::Info,
            Severity::Hint,
        ]
        .into_iter()
        .filter(|s| *s <= lowest)
        .collect(),
        None => engine.config.include_severities.clone(),
    };

    let changes = match source {
        Some(source) => {
            let files = git::changed_files(&root, &source)?;
            let lines = if filter.needs_lines() {
                filter::parse_unified(&git::unified_diff(&root, &source)?)
            } else {
                files
                    .iter()
                    .map(|f| (f.clone(), FileChanges::default()))
                    .collect()
            };
            Some(Changes {
                source,
                files,
                lines,
            })
        }
        None => None,
    };
    let selected = match &changes {
        Some(changes) if args.paths.is_empty() => select::served(&engine, changes.files.clone()),
        _ if args.paths.is_empty() => select::walk(&engine, &cwd, std::slice::from_ref(&root))?,
        _ => select::walk(&engine, &cwd, &args.paths)?,
    };
    let mut inputs = Vec::with_capacity(selected.len());
    for relative in &selected {
        let mut input = FileInput::on_disk(select::absolute(&engine, relative));
        if let Some(changes) = &changes
            && changes.source == DiffSource::Staged
            && changes.files.contains(relative)
        {
            input.content = Some(Arc::from(git::staged_content(&root, relative)?));
        }
        inputs.push(input);
    }

    if progress {
        eprintln!(
            "squiggle: checking {} {}…",
            inputs.len(),
            plural(inputs.len(), "file")
        );
    }
    // On-disk content can be checked by the warm daemon; staged content is
    // passed by value, which only an in-process check takes.
    let report = if inputs.iter().all(|i| i.content.is_none()) {
        let files = inputs.into_iter().map(|i| i.path).collect();
        super::warm::check_trusting(
            &engine,
            files,
            false,
            args.no_daemon,
            args.workspace.trust_workspace,
        )
        .await
    } else {
        let report = engine.check_files(inputs, false).await;
        engine.shutdown().await;
        report
    };

    let notices = server_notices(&report);
    for notice in &notices.warnings {
        eprintln!("squiggle: warning: {notice}");
    }
    if args.verbose {
        print_outcomes(&report);
    }

    let empty = FileChanges::default();
    let mut total = 0;
    let mut survivors: Vec<Vec<Diagnostic>> = Vec::with_capacity(report.files.len());
    for file in &report.files {
        let file_changes = match &changes {
            Some(changes) => changes.lines.get(&file.file),
            None => Some(&empty),
        };
        total += file.diagnostics.len();
        survivors.push(
            file.diagnostics
                .iter()
                .filter(|d| filter.keeps(d, file_changes))
                .cloned()
                .collect(),
        );
    }
    let all_survivors = || survivors.iter().flatten();
    let failed = all_survivors().any(|d| d.severity <= args.fail_on);
    let errors = all_survivors()
        .filter(|d| d.severity == Severity::Error)
        .count();
    let warnings = all_survivors()
        .filter(|d| d.severity == Severity::Warning)
        .count();
    let kept = all_survivors().count();
    let shown: Vec<Vec<Diagnostic>> = survivors
        .iter()
        .map(|list| {
            list.iter()
                .filter(|d| include.contains(&d.severity))
                .cloned()
                .collect()
        })
        .collect();

    let output = match format {
        Format::Text => {
            let files: Vec<FileDiagnostics> = report
                .files
                .iter()
                .zip(&shown)
                .map(|(f, diagnostics)| FileDiagnostics {
                    file: f.file.clone(),
                    diagnostics: diagnostics.clone(),
                    baseline_hidden: 0,
                })
                .collect();
            let mut opts = engine.render_options();
            opts.include = include.clone();
            render_files(&files, &opts)
        }
        Format::Json => {
            let files: Vec<_> = report
                .files
                .iter()
                .zip(&shown)
                .map(|(f, diagnostics)| {
                    json!({ "file": f.file, "diagnostics": diagnostics, "outcomes": f.outcomes })
                })
                .collect();
            let value = json!({
                "files": files,
                "summary": {
                    "errors": errors,
                    "warnings": warnings,
                    "files": report.files.len(),
                    "failed": failed,
                },
            });
            format!(
                "{}\n",
                serde_json::to_string_pretty(&value).unwrap_or_default()
            )
        }
        Format::Sarif => {
            let flat: Vec<Diagnostic> = shown.iter().flatten().cloned().collect();
            let value = sarif::sarif(&flat, &root, &notices.warnings);
            format!(
                "{}\n",
                serde_json::to_string_pretty(&value).unwrap_or_default()
            )
        }
        Format::Github => {
            let flat: Vec<Diagnostic> = shown.iter().flatten().cloned().collect();
            github::workflow_commands(&flat)
        }
    };
    emit(&output);

    let failing_hidden = all_survivors()
        .filter(|d| d.severity <= args.fail_on && !include.contains(&d.severity))
        .count();
    if failing_hidden > 0 {
        eprintln!(
            "squiggle: {failing_hidden} {} at or above --fail-on {} not shown (raise --severity to see them)",
            plural(failing_hidden, "diagnostic"),
            severity_name(args.fail_on),
        );
    }
    if progress {
        let hidden = total - kept;
        let mut line = format!(
            "squiggle: {errors} {}, {warnings} {} in {} {} ({:.1}s)",
            plural(errors, "error"),
            plural(warnings, "warning"),
            report.files.len(),
            plural(report.files.len(), "file"),
            started.elapsed().as_secs_f64(),
        );
        if hidden > 0 {
            line += &format!(
                "; {hidden} outside the diff hidden by --filter {}",
                filter_name(filter)
            );
        }
        eprintln!("{line}");
    }
    if args.require_servers && !notices.missing.is_empty() {
        eprintln!(
            "squiggle: --require-servers: {} could not check {}",
            notices.missing.join(", "),
            if notices.missing.len() == 1 {
                "its files"
            } else {
                "their files"
            },
        );
        return Ok(2);
    }
    Ok(u8::from(failed))
}

/// What the servers' outcomes say about the run, once per server.
struct Notices {
    /// Lines for stderr (and SARIF notifications), without the prefix.
    warnings: Vec<String>,
    /// Servers that could not answer at all (unavailable or dead).
    missing: Vec<String>,
}

fn server_notices(report: &CheckReport) -> Notices {
    let mut unavailable: BTreeMap<&str, &str> = BTreeMap::new();
    let mut dead: BTreeMap<&str, &str> = BTreeMap::new();
    let mut timed_out: BTreeMap<&str, usize> = BTreeMap::new();
    for o in report.files.iter().flat_map(|f| &f.outcomes) {
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
    let mut warnings = Vec::new();
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
    Notices { warnings, missing }
}

fn print_outcomes(report: &CheckReport) {
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

/// Writes the result to stdout; a closed pipe (`| head`) is not an error.
fn emit(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        noun.to_string()
    } else {
        format!("{noun}s")
    }
}

fn filter_name(filter: FilterMode) -> &'static str {
    match filter {
        FilterMode::Added => "added",
        FilterMode::ChangedLines => "changed-lines",
        FilterMode::File => "file",
        FilterMode::None => "none",
    }
}

fn severity_name(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
        Severity::Hint => "hint",
    }
}
